"""Every check of the course, in one package, behind one entry point:

    check_site(course, renderer, facts) -> list[Problem]

It runs, in order:

- the library manifest against the seed (`manifest`);
- every `id:` link names a page (`links.check_id_links`);
- each page written by an author: first its syntax (`blocks`: every block closed and known,
  every comment closed, each generated block once and where its data is; a page that fails
  here is checked no further), then (`page.check_page`) its registry excerpts, verbs, claims
  (`claims`) and library names, and the provenance of every sentence about trafikey or
  EchoMQ (`provenance`, against the seed: `seed`, numbers read by `quantity`); then the
  expectations and choice markers of what the model's runs show (`expectations`); every
  question's key and explanations (`questions`); and every Valkey statement's proof
  (`valkey`, against Valkey's command table and pinned documentation quotes, and the
  transcripts the page shows);
- every link's anchor, and no relative path (`links.check_link_targets`).

A page's problems are kept in the one memo of the checks (`memo.CHECKS`) by everything they
read, so a preview that rebuilds after one module's edit checks that module again only.
The built site's links, which only an engine with no link validation of its own needs
(Zensical), are checked by `links.dead_links_in` on the finished HTML.

A new check goes here: a module of its own, called from `check_site` (or from `check_page` when
it reads one page), with a `Problem` for each finding (file, line, what, fix).
"""

from __future__ import annotations

from dataclasses import dataclass

from trafikist.base.errors import Problem
from trafikist.base.files import file_signature
from trafikist.base.reading import reading
from trafikist.checks.blocks import check_blocks
from trafikist.checks.expectations import check_page_runs
from trafikist.checks.links import check_id_links, check_link_targets
from trafikist.checks.manifest import Manifest, entries
from trafikist.checks.memo import remembered
from trafikist.checks.page import check_page, one_per_line
from trafikist.checks.questions import check_question_ids, check_questions
from trafikist.checks.seed import Seed
from trafikist.checks.valkey import check_valkey
from trafikist.course.examples import example_path
from trafikist.course.questions import module_folder
from trafikist.course.render import Renderer
from trafikist.course.runs import model_signature
from trafikist.course.structure import Course, Page
from trafikist.course.transcripts import command_file
from trafikist.registry import Registry
from trafikist.registry.valkey import ValkeyDocs, ValkeyTable

__all__ = ["Facts", "check_site"]


@dataclass(frozen=True)
class Facts:
    """What the checks check the course against: trafikey's registry, the library manifest,
    the seed, and Valkey's command table and pinned documentation."""

    registry: Registry
    manifest: Manifest
    seed: Seed
    valkey: ValkeyTable
    valkey_docs: ValkeyDocs

    def signature(self) -> str:
        files = [self.registry.root, self.manifest.file, self.seed.file]
        return file_signature([*files, self.valkey.file, self.valkey_docs.file])


def check_site(course: Course, renderer: Renderer, facts: Facts) -> list[Problem]:
    """Every problem of the course, each once, in the order above; an empty list when the
    course holds."""
    problems = _manifest_against_seed(facts.manifest, facts.seed)
    problems += check_id_links(course)
    problems += check_question_ids(course)
    inputs = facts.signature()
    for page in course.pages.values():
        if page.source is not None:
            with reading(page.source):  # what the build guard names if a check breaks
                problems += _page_problems(page, facts, inputs)
    problems += check_link_targets(course, renderer)
    unique: dict[tuple[str, int | None, str], Problem] = {}
    for problem in problems:
        unique.setdefault((str(problem.file), problem.line, problem.what), problem)
    # A line that a page's check and a site-wide one (a link's anchor) both fail: one slip.
    return one_per_line(list(unique.values()))


def _manifest_against_seed(manifest: Manifest, seed: Seed) -> list[Problem]:
    """Every entry of the library manifest quotes a sentence the seed really has."""
    return [
        Problem(
            manifest.file,
            entry.line,
            f"the seed sentence of '{entry.name}' is not in the seed ({seed.file.name}).",
            "Quote the seed word for word; a name no seed sentence gives does not belong here.",
        )
        for entry in entries(manifest)
        if not seed.contains(entry.seed)
    ]


def _page_problems(page: Page, facts: Facts, inputs: str) -> list[Problem]:
    """The page's registry checks, provenance and runs, kept while nothing they read changes:
    the page's text, its front matter and duties, its scenarios, the model and the registry."""
    key = (
        "page",
        inputs,
        str(page.source),
        page.body_line,
        page.body,
        repr(sorted(page.meta.items(), key=lambda item: str(item[0]))),
        repr(page.duties),
        _runs_signature(page),
        _transcripts_signature(page),
    )
    # A page whose blocks or comments are broken is read wrongly by every other check: its
    # syntax is the slip to fix, and the only one named.
    broken = check_blocks(page)
    if broken:
        return broken
    found = remembered(
        key,
        lambda: one_per_line(
            check_page(page, facts.registry, facts.manifest, facts.seed)
            + check_page_runs(page)
            + check_valkey(page, facts.seed, facts.valkey, facts.valkey_docs)
            + check_questions(page, facts.registry, facts.manifest, facts.seed)
        ),
    )
    return list(found)


def _transcripts_signature(page: Page) -> str:
    """The command lists of the transcripts a page shows (`transcript: NAME`): an edit there
    checks the page again."""
    if "transcript:" not in page.body:
        return ""
    assert page.source is not None
    module = module_folder(page) or page.source.parent
    return file_signature([command_file(module, "x").parent], "*.txt")


def _runs_signature(page: Page) -> str:
    """What a page's expectations read besides its text: its scenarios and the model's code."""
    if not page.duties and "{expect:" not in page.body and "/// check" not in page.body:
        return ""
    assert page.source is not None
    module = module_folder(page) or page.source.parent  # a dive's runs are its module's
    return (
        model_signature()
        + "\n"
        + file_signature([module / "scenarios", *filter(None, [example_path(page)])], "*.yml")
    )
