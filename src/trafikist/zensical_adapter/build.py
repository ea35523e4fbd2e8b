"""Zensical adapter: the core's steps (trafikist.core.session lists them) run before and after
a Zensical build. Zensical reads mkdocs.yml and runs Python-Markdown extensions, but it ignores
MkDocs plugins and offers no hook of its own (docs/architecture.md has the evidence): before the
build this writes a work folder (every course page's Markdown, docs/, and a configuration that
inherits mkdocs.yml), runs `zensical.build` on it in this process, then finishes the built site
in a staging folder (`finish`) and swaps it in. The course's checks run meanwhile on the second
core (trafikist.core.checks_child). Any step that fails raises CourseError, one `FILE:LINE:
what. Fix: how.` line per problem; the staging folder goes and the last good site stays. The
build guard is here too: any other exception becomes one such line, naming the file being read
when it was raised (trafikist.base.reading.unexpected), raised `from` the exception for
`--debug` to show.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path

import yaml

from trafikist.base.errors import CourseError, Problem
from trafikist.base.reading import note_reading, unexpected
from trafikist.core import checks_child
from trafikist.core.files import site_target, write_site_files
from trafikist.core.project import Project
from trafikist.core.session import CourseBuild
from trafikist.core.sitedir import (
    Claim,
    check_site_dir,
    remove_leftovers,
)
from trafikist.core.staging import SiteStaging, interrupts_deferred
from trafikist.course.structure import Page
from trafikist.zensical_adapter import guard
from trafikist.zensical_adapter.finish import FinishedPages, built_pages, finish_site

# Zensical's link validation is a Python scanner of every page's Markdown, about 1 s of a
# 96-page build (docs/performance.md); the finished site's links are checked instead.
NO_VALIDATION = {"invalid_links": False, "invalid_link_anchors": False}


_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml where it is built in


class ZensicalBuild:
    """Builds of one project with Zensical; kept across preview rebuilds, it keeps the course's
    caches and Zensical's own (in its work folder)."""

    def __init__(self, project: Project, *, preview: bool = False, strict: bool = False) -> None:
        self.project = project
        self.strict = strict or project.strict
        self.warnings: list[Problem] = []  # this build's, when it is not strict
        self.course = CourseBuild(
            project.base_dir,
            project.options,
            directory_urls=project.directory_urls,
            preview=preview,
            strict=self.strict,
            warn=self.warnings.append,
            config_file=project.config_file,
        )
        # A one-shot build checks the course on the second core while Zensical builds on the
        # first (trafikist.core.checks_child); a preview keeps its checks' memo in this
        # process instead.
        self.parallel = not preview
        self.checks: checks_child.ChecksInChild | None = None
        self.finished = FinishedPages()  # a preview's, across rebuilds
        self.preview = preview
        self._work: Path | None = None
        self._claim: Claim | None = None
        if preview:  # it builds in its work folder: only a site_dir that is a source is refused
            check_site_dir(project.site_dir_choice(), project.reads(), writes=False)

    @property
    def work(self) -> Path:
        """The work folder, made on first use (after the site folder is checked). Zensical
        builds a folder's docs/ into its site/, both inside the folder of its configuration. A
        build's goes beside the site folder, so the built site moves by a rename; a preview's
        sites stay inside it, so it can be anywhere. Marked and locked as the build's own."""
        if self._work is None:
            parent = None if self.preview else self.project.site_dir.parent
            if parent is not None:
                parent.mkdir(parents=True, exist_ok=True)
            self._work = Path(tempfile.mkdtemp(prefix=".zensical-", dir=parent))
            self._claim = Claim(self._work)
        return self._work

    def build(self, final: Path, *, clean: bool = False) -> list[Problem]:
        """One build into `final`; returns the warnings of a build that is not strict. A site
        folder the build must not write is refused before anything is touched."""
        if not self.preview:
            choice, reads = self.project.site_dir_choice(final), self.project.reads()
            check_site_dir(choice, reads, assets_path=self.project.options.assets_path)
            remove_leftovers(choice.path, self.project.options.assets_path)  # of killed builds
        staging = SiteStaging(final, self.project.options.assets_path)
        self.warnings.clear()
        try:
            try:
                site_dir = staging.adopt(self._zensical(clean))
                self.warnings += self._finish(site_dir)
            except BaseException as failure:
                self._verdict(failure)  # the checks' problems come first
                raise
            self._verdict()
            staging.commit()
            return list(self.warnings)
        except BaseException as failure:
            self.course.cancel()
            self._cancel_checks()
            staging.discard()
            if isinstance(failure, Exception) and not isinstance(failure, CourseError):
                # The guard: one line, naming the file being read; the traceback under --debug.
                raise unexpected(failure, self.project.config_file) from failure
            raise

    def _verdict(self, failure: BaseException | None = None) -> None:
        """The verdict of the checks running in the child: raises CourseError with their
        problems, which come before `failure` (what stopped the build meanwhile), as a build
        that checks first would have stopped on them."""
        if self.checks is None:
            return
        checks, self.checks = self.checks, None
        if failure is not None and not isinstance(failure, CourseError):
            checks.cancel()
            return
        self.warnings.extend(checks.verdict())

    def _cancel_checks(self) -> None:
        if self.checks is not None:
            self.checks.cancel()
            self.checks = None

    def close(self) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None
        if self._claim is not None:
            self._claim.release()
            self._claim = None

    # -- before --------------------------------------------------------------------------------

    def _zensical(self, clean: bool) -> Path:
        """Write the work folder and run Zensical on it; returns the folder it built."""
        if self.parallel:
            self.checks = self.course.start_checks()
            try:
                site = self.course.load(checks=False)
            except BaseException:
                self._cancel_checks()  # the child would stop at the same place
                raise
        else:
            site = self.course.load()
        docs = self.work / "docs"
        files = self._docs(site.pages())
        _sync(docs, files)
        config = self.work / "mkdocs.yml"
        settings = self._config(site.markdown_extension_configs())
        text = yaml.dump(settings, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
        config.write_text(text, encoding="utf-8")
        try:
            import zensical  # the engine; imported only by this adapter
        except ImportError:
            raise CourseError.at(
                self.project.config_file,
                None,
                "Zensical is not installed in this environment.",
                "Run scripts/setup (it installs the zensical version pyproject.toml pins).",
            ) from None

        guard.FAILURES.clear()
        try:
            # Zensical ends the process with status 0 on an interrupt it sees, skipping every
            # clean-up: an interrupt waits until it returns (a few seconds at most).
            with interrupts_deferred():
                zensical.build(str(config), {"strict": self.strict, "clean": clean})
        except Exception as error:  # Zensical raises RuntimeError and click's errors
            failure, cause = self._zensical_failure(error)
            raise failure from cause
        finally:
            guard.FAILURES.clear()  # the pages' errors, and their tracebacks, go with the build
        return self.work / "site"

    def _zensical_failure(self, error: Exception) -> tuple[CourseError, BaseException]:
        """What stopped Zensical, in one line, and what `--debug` shows the traceback of: a
        page's failure (trafikist.zensical_adapter.guard) at the author's file, a CourseError
        as it is, or Zensical's own first line."""
        if guard.FAILURES:
            failure = guard.FAILURES[0]
            if isinstance(failure.error, CourseError):
                return failure.error, error
            name = failure.src_uri
            docs = self.work / "docs"
            if Path(name).is_absolute() and Path(name).is_relative_to(docs):
                name = Path(name).relative_to(docs).as_posix()
            source = self.course.source_of(name, self.project.docs_dir) if name else None
            found = unexpected(failure.error, self.project.config_file, source=source)
            return found, failure.error
        lines = str(error).strip().splitlines()
        what = lines[0].strip().rstrip(".") if lines else type(error).__name__
        return CourseError.at(
            self.project.config_file,
            None,
            f"Zensical stopped: {what}.",
            "Correct what Zensical names; the last good site is unchanged (--debug shows all "
            "it printed).",
        ), error

    def _docs(self, pages: list[Page]) -> dict[str, bytes]:
        """The files of the docs folder Zensical builds: the course, and under a preview the
        authors' pages of docs/ (under `authors/`, out of the navigation and the search)."""
        files = {}
        authors = self.course.authors_pages(self.project.docs_dir)
        for authors_page in authors:
            if authors_page.source is not None:
                note_reading(authors_page.source)
            markdown = self.course.authors_markdown(authors_page, authors)
            files[authors_page.src_uri] = markdown.encode("utf-8")
        for page in pages:
            src_uri = page.src_uri()
            if src_uri in files:
                raise CourseError.at(
                    self.project.docs_dir / src_uri,
                    None,
                    f"the course generates '{src_uri}' already.",
                    "Rename or remove that file from docs/.",
                )
            files[src_uri] = self.course.page_markdown(page).encode("utf-8")
        return files

    def _config(self, extensions: dict[str, dict[str, object]]) -> dict[str, object]:
        """A configuration that inherits mkdocs.yml; Zensical merges mappings and appends
        lists, so only what the course adds is here."""
        theme: dict[str, object] = {}
        if self.project.custom_dir is not None:
            theme["custom_dir"] = str(self.project.custom_dir)  # read from this folder
        return {
            "INHERIT": str(self.project.config_file),
            "docs_dir": "docs",
            "site_dir": "site",
            "nav": self.course.nav(),
            "theme": theme,
            "extra": self.course.theme_extra(),
            "extra_css": self.course.stylesheets(),
            "extra_javascript": [
                {"path": uri, "type": "module"} for uri in self.course.module_scripts()
            ],
            "markdown_extensions": [
                {name: options} for name, options in {**extensions, guard.NAME: {}}.items()
            ],
            "validation": NO_VALIDATION,
        }

    # -- after ---------------------------------------------------------------------------------

    def _finish(self, site_dir: Path) -> list[Problem]:
        """The site's own files, the finished pages, the link check, and what comes after
        the pages; raises CourseError."""
        write_site_files(site_dir, self.course.site_files())
        pages = built_pages(self.course, self.project.docs_dir)
        dead = finish_site(self.course, site_dir, pages, self.finished)
        if dead and self.strict:
            raise CourseError(dead)
        self.course.after_pages(site_dir)
        return dead

    @property
    def watched_paths(self) -> list[Path]:
        """What a preview rebuilds on: the course's inputs, docs/, the overrides, mkdocs.yml."""
        extra = [self.project.docs_dir, self.project.config_file]
        if self.project.custom_dir is not None:
            extra.append(self.project.custom_dir)
        return [*self.course.watched_paths(), *extra]


def _sync(folder: Path, files: dict[str, bytes]) -> None:
    """Make `folder` hold exactly `files`, writing only what changed (Zensical's cache keys on
    the files it reads)."""
    for name, content in files.items():
        target = site_target(folder, name)  # inside the work folder's docs/, however named
        with contextlib.suppress(OSError):
            if target.read_bytes() == content:
                continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    if folder.is_dir():
        for path in sorted(folder.rglob("*"), reverse=True):
            name = path.relative_to(folder).as_posix()
            if path.is_file() and name not in files:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
