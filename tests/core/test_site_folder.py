"""The site folder (trafikist.core.sitedir, trafikist.core.staging), in-process, in throw-away
copies of the project: a site folder that is, holds or lies in a source, the project itself, a
file, a link, or a folder the build did not make is refused with one line before anything is
touched; the build replaces only a folder it made (the marker, or an older build's site);
what a killed build left goes at the next build, and nothing a running build holds; an
interrupt waits for the swap. The same at both engines' command lines:
tests/authoring/test_site_folder.py."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support import copy_project, line_of
from trafikist.base.errors import CourseError
from trafikist.core.project import read_project
from trafikist.core.sitedir import (
    MARKER,
    Claim,
    SiteDirChoice,
    check_site_dir,
    in_use,
    legacy_site,
    remove_leftovers,
)
from trafikist.core.staging import SiteStaging, interrupts_deferred
from trafikist.zensical_adapter.build import ZensicalBuild


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project's mkdocs.yml and, for its folders, one file each (nothing here builds), with
    src/, tests/, scripts/, .git and node_modules as a checkout has them."""
    folder = copy_project(tmp_path / "project", ("mkdocs.yml",))
    (folder / "node_modules").unlink()  # a folder here, not copy_project's link
    for name in ("docs", "modules", "overrides", "widgets", "registry", "src", "tests", "scripts",
                 ".git", "node_modules", "notes"):  # fmt: skip
        (folder / name).mkdir()
        (folder / name / "kept.txt").write_text(name)
    (folder / "a-file.txt").write_text("a file")
    (folder / "link-to-modules").symlink_to("modules")
    monkeypatch.chdir(folder)
    return folder


def _tree(folder: Path) -> dict[str, str]:
    """Every entry under `folder` (links not followed) and what it is or holds."""
    found = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[name] = "-> " + os.readlink(path)
        elif path.is_file():
            found[name] = path.read_bytes().decode("utf-8", "replace")
        else:
            found[name] = "/"
    return found


def _refusal(project: Path, site_dir: str, *, from_command_line: bool = True) -> str:
    """The one line `check_site_dir` refuses `site_dir` with, as the Zensical adapter checks
    it (the MkDocs plugin builds the same choice: test_mkdocs_refuses_…)."""
    config = project / "mkdocs.yml"
    if from_command_line:
        built = read_project(config, Path(site_dir))
    else:
        config.write_text(config.read_text() + f"site_dir: {site_dir}\n")
        built = read_project(config)
    with pytest.raises(CourseError) as caught:
        check_site_dir(built.site_dir_choice(), built.reads())
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and " Fix: " in message, message
    return message


HOSTILE = [
    # (-d value, what the line says)
    ("modules", r"^-d modules: the site folder is modules, one of the project's sources"),
    ("docs", r"^-d docs: the site folder is docs, one of the project's sources"),
    ("registry", r"^-d registry: the site folder is registry, one of"),
    ("widgets", r"^-d widgets: the site folder is widgets, one of"),
    ("overrides", r"^-d overrides: the site folder is overrides, one of"),
    ("src", r"^-d src: the site folder is src, one of"),
    ("tests", r"^-d tests: the site folder is tests, one of"),
    ("scripts", r"^-d scripts: the site folder is scripts, one of"),
    (".git", r"^-d \.git: the site folder is \.git, one of"),
    ("node_modules", r"^-d node_modules: the site folder is node_modules, one of"),
    ("modules/site", r"^-d modules/site: the site folder lies inside modules, one of"),
    ("docs/site", r"^-d docs/site: the site folder lies inside docs, one of"),
    (".git/site", r"^-d \.git/site: the site folder lies inside \.git, one of"),
    (".", r"^-d \.: the site folder is the project's own folder \(mkdocs\.yml, the sources"),
    ("..", r"^-d \S+: the site folder contains the project's folder /"),
    ("/", r"^-d /: the site folder contains the project's folder /"),
    ("mkdocs.yml", r"^-d mkdocs\.yml: the site folder is mkdocs\.yml, one of the project's"),
    ("a-file.txt", r"^-d a-file\.txt: the site folder is a file, not a folder\."),
    ("a-file.txt/site", r"^-d a-file\.txt/site: the site folder lies under the file a-file\.txt"),
    ("link-to-modules", r"^-d link-to-modules: the site folder is a symbolic link \(to modules\)"),
    ("link-to-modules/site", r"^-d link-to-modules/site: the site folder lies inside modules"),
    ("notes", r"^-d notes: the site folder holds 1 entry and was not made by the build \(it has"),
]


@pytest.mark.parametrize(("site_dir", "pattern"), HOSTILE, ids=[case[0] for case in HOSTILE])
def test_a_site_folder_the_build_must_not_write_is_refused(
    project: Path, site_dir: str, pattern: str
) -> None:
    before = _tree(project)
    message = _refusal(project, site_dir)
    assert re.search(pattern, message), message
    assert message.endswith("nothing was changed."), message
    assert _tree(project) == before


def test_site_dir_in_mkdocs_yml_is_refused_at_its_line(project: Path) -> None:
    message = _refusal(project, "modules", from_command_line=False)
    line = line_of(project / "mkdocs.yml", "site_dir: modules")
    assert message.startswith(
        f"mkdocs.yml:{line}: the site folder modules is modules, one of the project's sources, "
        "and a build replaces its site folder whole. Fix: Set 'site_dir:' in mkdocs.yml to a "
        "new or empty folder outside the sources"
    ), message


def test_a_symbolic_link_to_a_site_is_refused_too(project: Path) -> None:
    (project / "built").mkdir()
    (project / "built" / MARKER).write_text("")
    (project / "published").symlink_to("built")
    assert "is a symbolic link (to built)" in _refusal(project, "published")


@pytest.mark.parametrize("kind", ["missing", "empty", "marked", "older build", "nested new"])
def test_a_new_empty_or_own_site_folder_is_accepted(project: Path, kind: str) -> None:
    site = project / "out" / "site"
    if kind != "missing":
        site.mkdir(parents=True)
    if kind == "marked":
        (site / MARKER).write_text("")
        (site / "index.html").write_text("built")
    if kind == "older build":  # what an older build left in an author's checkout: no marker
        (site / "assets" / "trafikist").mkdir(parents=True)
        (site / "index.html").write_text("built")
        (site / "sitemap.xml").write_text("<urlset/>")
        assert legacy_site(site)
    if kind == "nested new":
        site = project / "build" / "deep" / "site"
    built = read_project(project / "mkdocs.yml", site)
    check_site_dir(built.site_dir_choice(), built.reads())  # no error


def test_an_older_site_is_recognised_by_its_layout_only(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "assets" / "trafikist").mkdir(parents=True)
    assert not legacy_site(site)  # no page
    (site / "index.html").write_text("x")
    assert legacy_site(site)
    (site / "mkdocs.yml").write_text("site_name: x")  # a project, not a site
    assert not legacy_site(site)


def test_a_preview_refuses_only_a_site_dir_that_would_destroy_a_source(project: Path) -> None:
    choice = SiteDirChoice(project / "notes", project / "mkdocs.yml", 3)
    check_site_dir(choice, [project / "modules"], writes=False)  # a foreign folder: not written
    with pytest.raises(CourseError, match=r"^mkdocs\.yml:3: the site folder modules is modules"):
        check_site_dir(SiteDirChoice(project / "modules", project / "mkdocs.yml", 3),
                       [(project / "modules").resolve()], writes=False)  # fmt: skip


def test_the_zensical_adapter_refuses_before_it_makes_any_folder(project: Path) -> None:
    before = _tree(project)
    builder = ZensicalBuild(read_project(project / "mkdocs.yml", Path("modules")))
    try:
        with pytest.raises(CourseError, match=r"^-d modules: the site folder is modules"):
            builder.build(project / "modules")
    finally:
        builder.close()
    assert _tree(project) == before  # no work folder, no staging


# -- the swap replaces only the build's own folder --------------------------------------------


def test_a_staged_site_carries_the_marker_into_the_site(tmp_path: Path) -> None:
    staging = SiteStaging(tmp_path / "site")
    folder = staging.begin()
    assert (folder / MARKER).is_file() and in_use(folder)
    (folder / "index.html").write_text("new")
    staging.commit()
    assert (tmp_path / "site" / MARKER).is_file()
    assert not in_use(tmp_path / "site")  # the lock went with the build
    assert sorted(path.name for path in tmp_path.iterdir()) == ["site"]


def test_the_swap_leaves_a_folder_that_appeared_meanwhile(tmp_path: Path) -> None:
    staging = SiteStaging(tmp_path / "site")
    folder = staging.begin()
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "mine.txt").write_text("someone's")
    with pytest.raises(CourseError, match=r"the site folder became a folder the build did not"):
        staging.commit()
    assert (tmp_path / "site" / "mine.txt").read_text() == "someone's"
    staging.discard()
    assert not folder.exists()


# -- leftovers of killed builds ----------------------------------------------------------------


def _leftover(parent: Path, name: str, *files: str, marker: bool = True) -> Path:
    folder = parent / name
    folder.mkdir()
    for file in files:
        (folder / file).parent.mkdir(parents=True, exist_ok=True)
        (folder / file).write_text("x")
    if marker:
        (folder / MARKER).write_text("")
    return folder


def test_what_killed_builds_left_goes_and_nothing_else(tmp_path: Path) -> None:
    final = tmp_path / "site"
    gone = [
        _leftover(tmp_path, ".site-building-abcd1234", "index.html"),
        _leftover(tmp_path, ".site-previous-abcd1234", "index.html"),
        _leftover(tmp_path, ".zensical-abcd1234", "mkdocs.yml"),
        # An older build's, before the marker: by name and contents.
        _leftover(tmp_path, ".site-building-efgh5678", "assets/trafikist/a.js", marker=False),
        _leftover(tmp_path, ".site-building-ijkl9012", marker=False),
        _leftover(tmp_path, ".site-previous", "index.html", "assets/trafikist/a", marker=False),
    ]
    older_work = _leftover(tmp_path, ".zensical-mnop3456", "docs/index.md", marker=False)
    (older_work / "mkdocs.yml").write_text("INHERIT: /somewhere/mkdocs.yml\n")
    gone.append(older_work)
    kept = [
        _leftover(tmp_path, ".site-building-qrst7890", "mkdocs.yml", marker=False),  # a project
        _leftover(tmp_path, ".zensical-uvwx1234", "notes.txt", marker=False),
        _leftover(tmp_path, ".other-building-abcd1234", "index.html"),  # another site's
        _leftover(tmp_path, "site-building-abcd1234", "index.html"),
    ]
    running = _leftover(tmp_path, ".site-building-running1")
    claim = Claim(running)  # a build that runs now holds its lock
    try:
        removed = remove_leftovers(final)
    finally:
        claim.release()
    assert sorted(removed) == sorted(gone)
    assert all(folder.is_dir() for folder in [*kept, running])


def test_a_killed_builds_lock_goes_with_its_process(tmp_path: Path) -> None:
    folder = tmp_path / ".site-building-killed12"
    folder.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from pathlib import Path
            from trafikist.core.sitedir import Claim
            claim = Claim(Path({str(folder)!r}))
            print("claimed", flush=True)
            time.sleep(60)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "claimed"
        assert in_use(folder) and remove_leftovers(tmp_path / "site") == []
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        child.kill()
    assert not in_use(folder)
    assert remove_leftovers(tmp_path / "site") == [folder] and not folder.exists()


# -- interrupts --------------------------------------------------------------------------------


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_waits_for_the_end_of_the_block(number: int) -> None:
    caught: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda signum, frame: caught.append(signum))
    try:
        steps = []
        with pytest.raises(KeyboardInterrupt) if number == signal.SIGINT else _nothing():
            with interrupts_deferred():
                os.kill(os.getpid(), number)
                steps.append("after the signal")  # the block runs on
            steps.append("after the block")
        assert (
            steps == ["after the signal"]
            if number == signal.SIGINT
            else steps
            == [
                "after the signal",
                "after the block",
            ]
        )
        assert caught == ([] if number == signal.SIGINT else [signal.SIGTERM])
    finally:
        signal.signal(signal.SIGTERM, before)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False
