"""What a check reads. Each check of a page declares it (`PageCheck`): which of the facts
(trafikey's registry, the library manifest, the seed, Valkey's command table and pinned
documentation) and which files beside the page (its scenarios, its transcripts, the model's
code …). The checks' memo keeps a check's problems under a key built from its declaration and
the page's own text (`PageCheck.key`), so a check that comes to read a new file names it in its
declaration, and an edit there checks the page again: nothing else remembers what a check reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from trafikist.base.errors import Problem
from trafikist.base.files import file_signature
from trafikist.checks.manifest import Manifest
from trafikist.checks.seed import Seed
from trafikist.course.evidence import CheckedSentence
from trafikist.course.examples import example_path
from trafikist.course.runs import model_signature
from trafikist.course.structure import Page
from trafikist.course.transcripts import TRANSCRIPTS_FOLDER
from trafikist.registry import Registry
from trafikist.registry.valkey import ValkeyDocs, ValkeyTable

type Fact = Literal["registry", "manifest", "seed", "valkey", "valkey_docs"]


@dataclass(frozen=True)
class Facts:
    """What the checks check the course against: trafikey's registry, the library manifest,
    the seed, and Valkey's command table and pinned documentation."""

    registry: Registry
    manifest: Manifest
    seed: Seed
    valkey: ValkeyTable
    valkey_docs: ValkeyDocs

    def signatures(self) -> dict[Fact, str]:
        """Each fact's files, signed (taken once a build: the registry is a folder)."""
        return {
            "registry": file_signature([self.registry.root]),
            "manifest": file_signature([self.manifest.file]),
            "seed": file_signature([self.seed.file]),
            "valkey": file_signature([self.valkey.file]),
            "valkey_docs": file_signature([self.valkey_docs.file]),
        }


def no_files(page: Page) -> str:
    """A check that reads nothing beside the page's text and its facts."""
    return ""


@dataclass(frozen=True)
class Checked:
    """A check's verdict on a page: its problems, and the sentences it proved, each with what
    it read to prove it (the evidence the page shows: trafikist.course.evidence)."""

    problems: list[Problem]
    proven: tuple[CheckedSentence, ...] = ()


def proving(
    check: Callable[[Page, Facts, list[CheckedSentence]], list[Problem]],
) -> Callable[[Page, Facts], Checked]:
    """A check that gathers what it proves into the list it is given, as a PageCheck runs it."""

    def run(page: Page, facts: Facts) -> Checked:
        proven: list[CheckedSentence] = []
        problems = check(page, facts, proven)
        return Checked(problems, tuple(proven))

    return run


def proving_nothing(
    check: Callable[[Page, Facts], list[Problem]],
) -> Callable[[Page, Facts], Checked]:
    """A check that finds problems and proves no sentence (a page's syntax, its markup)."""
    return lambda page, facts: Checked(check(page, facts))


@dataclass(frozen=True)
class PageCheck:
    """One check of a page, and everything it reads besides the page's own text, front matter
    and duties."""

    name: str
    run: Callable[[Page, Facts], Checked]
    facts: tuple[Fact, ...]
    files: tuple[Callable[[Page], str], ...] = ()  # signatures of the other files it reads

    def key(
        self, page: Page, signatures: Mapping[Fact, str], reads: PageReads | None = None
    ) -> tuple[object, ...]:
        """The memo's key of this check's problems on `page` (`reads`: what the page's other
        checks read of it already)."""
        reads = reads if reads is not None else PageReads(page)
        return (
            "page",
            self.name,
            *(signatures[fact] for fact in self.facts),
            *reads.text,
            *(reads.file(files) for files in self.files),
        )


class PageReads:
    """What a page's checks read of it, each read once however many of them read it: every
    check reads the page's text, and several read the same files (its runs, its file)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.text = page_text(page)
        self._files: dict[Callable[[Page], str], str] = {}

    def file(self, read: Callable[[Page], str]) -> str:
        if read not in self._files:
            self._files[read] = read(self.page)
        return self._files[read]


def page_text(page: Page) -> tuple[object, ...]:
    """What every check of a page reads of it: its file, its text, its front matter, its
    duties (their text, lines and source comments)."""
    return (
        str(page.source),
        page.body_line,
        page.body,
        repr(sorted(page.meta.items(), key=lambda item: str(item[0]))),
        repr(page.duties),
    )


def source_file(page: Page) -> str:
    """The page's whole file: its front matter's comments (`# seed: "…"` above a field) are in
    it and nowhere else."""
    return file_signature([page.source]) if page.source is not None else ""


def runs(page: Page) -> str:
    """What the model's runs of a page read: its module's scenarios, its worked example, and
    the model's code."""
    if not page.duties and "{expect:" not in page.body and "/// check" not in page.body:
        return ""
    example = example_path(page)
    scenarios = [path for path in (page.scenarios_folder, example) if path is not None]
    return model_signature() + "\n" + file_signature(scenarios, "*.yml")


def transcripts(page: Page) -> str:
    """The command lists of the transcripts a page can show (its module's transcripts/)."""
    module = page.module_folder
    if "transcript:" not in page.body or module is None:
        return ""
    return file_signature([Path(module) / TRANSCRIPTS_FOLDER], "*.txt")
