"""A page's address and the file it is written to: one function (course.structure.address),
which every part that needs either reads; right with and without directory URLs, under both
engines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import copy_project, site_build
from trafikist.checks.links import BuiltContent, dead_links_in
from trafikist.course.structure import address


@pytest.mark.parametrize(
    ("src_uri", "directory_urls", "url", "file"),
    [
        ("index.md", True, "", "index.html"),
        ("index.md", False, "index.html", "index.html"),
        ("trafikist/04-x/index.md", True, "trafikist/04-x/", "trafikist/04-x/index.html"),
        (
            "trafikist/04-x/index.md",
            False,
            "trafikist/04-x/index.html",
            "trafikist/04-x/index.html",
        ),
        ("trafikist/04-x/01-y.md", True, "trafikist/04-x/01-y/", "trafikist/04-x/01-y/index.html"),
        ("trafikist/04-x/01-y.md", False, "trafikist/04-x/01-y.html", "trafikist/04-x/01-y.html"),
        ("authoring.md", True, "authoring/", "authoring/index.html"),
    ],
)
def test_the_address_and_the_file_of_a_page(
    src_uri: str, directory_urls: bool, url: str, file: str
) -> None:
    found = address(src_uri, directory_urls)
    assert (found.url, found.file) == (url, file)


def _dead_links(site: Path) -> list[str]:
    contents = []
    for path in sorted(site.rglob("*.html")):
        match = re.search(r"<article\b.*?</article>", path.read_text(encoding="utf-8"), re.S)
        if match:
            contents.append(BuiltContent(path.relative_to(site), Path("page.md"), match[0]))
    assert len(contents) > 20
    return [str(problem) for problem in dead_links_in(site, contents)]


def test_without_directory_urls_every_link_of_every_page_resolves(
    engine: str, tmp_path: Path
) -> None:
    project = copy_project(tmp_path / "project")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "\nuse_directory_urls: false\n")
    result = site_build(engine, project, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    site = tmp_path / "site"
    dive = site / "trafikist/04-blocking-timers-and-the-bus/01-who-moves-time-today.html"
    assert dive.is_file()
    module = (site / "trafikist/04-blocking-timers-and-the-bus/index.html").read_text("utf-8")
    assert 'href="01-who-moves-time-today.html"' in module
    assert _dead_links(site) == []


def test_the_assets_path_reaches_every_script_and_stylesheet(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace(
            "      widgets_dir: widgets\n",
            "      widgets_dir: widgets\n      assets_path: static/course\n",
        ),
        encoding="utf-8",
    )
    result = site_build(engine, project, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    site = tmp_path / "site"
    page = (site / "trafikist/04-blocking-timers-and-the-bus/index.html").read_text("utf-8")
    ours = re.findall(r'(?:src|href)="((?:\.\./)*static/course/[^"]+)"', page)
    names = {Path(link).name for link in ours}
    # The theme's own inline scripts, moved to files by overrides/, come from there too.
    assert {"md-globals.js", "md-palette.js", "md-content.js", "duty.js"} <= names, names
    assert not re.search(r'(?:src|href)="[^"]*assets/trafikist/', page)
    base = site / "trafikist/04-blocking-timers-and-the-bus"
    for link in ours:
        assert (base / link).resolve().is_file(), link
