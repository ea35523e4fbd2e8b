"""The engine-free parts of the build: the staging folder, the options both engines read, the
link check on a finished site, and what the Zensical adapter reads of mkdocs.yml."""

from __future__ import annotations

from pathlib import Path

import pytest

from trafikist.base.errors import CourseError
from trafikist.core.config import REQUIRED_EXTENSIONS
from trafikist.core.options import DEFAULTS, BuildOptions
from trafikist.core.project import read_project
from trafikist.core.sitedir import MARKER
from trafikist.core.staging import SiteStaging
from trafikist.zensical_adapter.finish import BuiltPage, dead_links


def test_a_staged_site_replaces_the_last_only_on_commit(tmp_path: Path) -> None:
    final = tmp_path / "site"
    final.mkdir()
    (final / "index.html").write_text("last good")
    (final / MARKER).write_text("")  # a site the build made (tests/core/test_site_folder.py)
    staging = SiteStaging(final)
    folder = staging.begin()
    (folder / "index.html").write_text("new")
    assert (final / "index.html").read_text() == "last good"
    staging.commit()
    assert (final / "index.html").read_text() == "new"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site"]


def test_a_discarded_build_leaves_nothing_and_the_last_site_as_it_was(tmp_path: Path) -> None:
    final = tmp_path / "site"
    final.mkdir()
    (final / "index.html").write_text("last good")
    staging = SiteStaging(final)
    (staging.adopt(_built(tmp_path / "elsewhere")) / "extra.html").write_text("half")
    staging.discard()
    assert (final / "index.html").read_text() == "last good"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site"]


def test_an_adopted_folder_becomes_the_first_site(tmp_path: Path) -> None:
    staging = SiteStaging(tmp_path / "out" / "site")
    staging.adopt(_built(tmp_path / "engine"))
    staging.commit()
    assert (tmp_path / "out" / "site" / "index.html").read_text() == "built"
    assert not (tmp_path / "engine").exists()


def _built(folder: Path) -> Path:
    folder.mkdir()
    (folder / "index.html").write_text("built")
    return folder


def test_options_are_checked_as_mkdocs_checks_them() -> None:
    source = Path("mkdocs.yml")
    assert BuildOptions.from_mapping(None, source) == DEFAULTS
    assert BuildOptions.from_mapping({"run_time_limit": 3}, source).run_time_limit == 3
    with pytest.raises(CourseError, match=r"no option 'modules'\. Fix: Use one of: modules_dir"):
        BuildOptions.from_mapping({"modules": "x"}, source)
    with pytest.raises(CourseError, match=r"'memory_snapshot' must be a bool, not 'no'"):
        BuildOptions.from_mapping({"memory_snapshot": "no"}, source)


def test_the_zensical_adapter_reads_mkdocs_yml_with_its_tags(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_name: T\nsite_dir: out\nuse_directory_urls: false\n"
        "theme:\n  name: material\n  custom_dir: overrides\n"
        "markdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_generator: !!python/name:material.extensions.emoji.to_svg\n"
        + "".join(f"  - {name}\n" for name in REQUIRED_EXTENSIONS)
        + "plugins:\n  - search\n  - trafikist:\n      modules_dir: course\n",
        encoding="utf-8",
    )
    for folder in ("course", "widgets"):  # the plugin's folders are the project's
        (tmp_path / folder).mkdir()
    project = read_project(config)
    assert project.options.modules_dir == "course"
    assert project.site_dir == tmp_path / "out"
    assert project.custom_dir == tmp_path / "overrides"
    assert project.directory_urls is False
    assert read_project(config, tmp_path / "elsewhere").site_dir == tmp_path / "elsewhere"


def test_a_nav_in_mkdocs_yml_is_refused_under_zensical(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: T\nnav:\n  - Home: index.md\n", encoding="utf-8")
    with pytest.raises(CourseError, match=r"mkdocs\.yml has a nav:.*Fix: Remove it"):
        read_project(config)


def test_dead_links_name_the_source_line_as_the_author_wrote_the_link(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "guide").mkdir(parents=True)
    (site / "other").mkdir()
    (site / "other" / "index.html").write_text('<h2 id="there">There</h2>')
    (site / "guide" / "index.html").write_text(
        '<nav><a href="../nowhere/">not content</a></nav>'
        '<article class="md-content__inner"><h2 id="here">Here</h2>'
        '<a href="../other/">fine</a> <a href="../other/#there">fine</a> '
        '<a href="https://valkey.io/">outside</a> <a href="#here">here</a> '
        '<a href="../missing/">dead</a> <a href="../other/#gone">no anchor</a></article>'
    )
    source = tmp_path / "guide.md"
    source.write_text("# Guide\n\nSee [x](missing.md).\n\nAnd [y](other.md#gone).\n")
    found = dead_links(site, [BuiltPage(Path("guide/index.html"), "guide/", source)])
    # In the words MkDocs' own validation uses, as the MkDocs adapter reports it.
    assert [str(problem) for problem in found] == [
        f"{source}:3: the link 'missing.md' does not resolve: the target is not found among "
        "documentation files. Fix: Point it at a page that exists, or link a course page by "
        "its id: [text](id:PAGE).",
        f"{source}:5: the link 'other.md#gone' does not resolve: the page does not contain an "
        "anchor '#gone'. Fix: Link to an anchor the page has (its headings' ids), or to the "
        "page alone.",
    ]
