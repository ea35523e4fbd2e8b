"""Every check of the course, in one package, behind one entry point:

    check_site(course, renderer, facts) -> list[Problem]

It runs, in order:

- the library manifest against the seed (`manifest`);
- every `id:` link names a page (`links.check_id_links`);
- each page written by an author: first its syntax (`blocks`: every block closed and known,
  every comment closed, each generated block once and where its data is; a page that fails
  here is checked no further), then the checks of `PAGE_CHECKS`: its registry excerpts, verbs,
  claims (`claims`) and library names (`against_registry`); the provenance of every sentence
  about trafikey or EchoMQ (`provenance`, against the seed: `seed`, numbers read by
  `quantity`); the expectations and choice markers of what the model's runs show
  (`expectations`); every Valkey statement's proof (`valkey_statements`, against Valkey's
  command table, its pinned documentation and the transcripts the page shows: `transcripts`);
  every question's key and explanations (`questions`); no raw HTML, unsafe link or
  attribute in any text an author writes (`markup`). The checks that read sentences take
  them from `sentences`;
- every link's anchor, and no relative path (`links.check_link_targets`).

Each check of a page declares what it reads (`inputs.PageCheck`: the facts, the files beside
the page), and its problems are kept in the one memo of the checks (`memo.CHECKS`) under a key
built from that declaration, so a preview that rebuilds after one module's edit checks that
module again only, and an edit to a file a check reads checks the page again.
The built site's links, which only an engine with no link validation of its own needs
(Zensical), are checked by `links.dead_links_in` on the finished HTML.

A new check goes here: a module of its own that returns a `Problem` for each finding (file,
line, what, fix), called from `check_site`, or, when it reads one page, declared as a
`PageCheck` (what it reads) and listed in `PAGE_CHECKS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from trafikist.base.errors import Problem
from trafikist.base.reading import reading
from trafikist.checks import (
    against_registry,
    expectations,
    headings,
    markup,
    provenance,
    questions,
    valkey_statements,
)
from trafikist.checks.blocks import check_blocks
from trafikist.checks.inputs import Checked, Fact, Facts, PageCheck, PageReads, page_text
from trafikist.checks.links import check_id_links, check_link_targets
from trafikist.checks.manifest import Manifest, entries
from trafikist.checks.memo import remembered
from trafikist.checks.questions import check_question_ids
from trafikist.checks.seed import Seed
from trafikist.course.evidence import CheckedSentence
from trafikist.course.examples import example_path
from trafikist.course.render import Renderer
from trafikist.course.structure import Course, Page

__all__ = [
    "PAGE_CHECKS",
    "Facts",
    "PageCheck",
    "check_site",
    "merged_evidence",
    "page_evidence",
    "page_syntax_problems",
]

# The checks of one page, in the order their problems are named (trafikist.checks.inputs: what
# each reads, which keys its verdict in the memo).
PAGE_CHECKS: tuple[PageCheck, ...] = (
    markup.CHECK,
    against_registry.CHECK,
    provenance.CHECK,
    expectations.CHECK,
    valkey_statements.CHECK,
    questions.CHECK,
    headings.CHECK,
)


def check_site(
    course: Course,
    renderer: Renderer,
    facts: Facts,
    checked: Callable[[Page], None] | None = None,
) -> list[Problem]:
    """Every problem of the course, each once, in the order above; an empty list when the
    course holds. `checked` is told of each page written by an author once its checks ran (its
    verdicts are in the memo)."""
    problems = _manifest_against_seed(facts.manifest, facts.seed)
    problems += check_id_links(course)
    problems += check_question_ids(course)
    signatures = facts.signatures()
    for page in course.pages.values():
        if page.source is not None:
            with reading(page.source):  # what the build guard names if a check breaks
                problems += _page_problems(page, facts, signatures)
                if checked is not None:
                    checked(page)
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


def _page_problems(page: Page, facts: Facts, signatures: dict[Fact, str]) -> list[Problem]:
    """The page's problems: each check's, kept while nothing it declares it reads changes."""
    # A page whose blocks or comments are broken is read wrongly by every other check: its
    # syntax is the slip to fix, and the only one named.
    broken = page_syntax_problems(page)
    if broken:
        return broken
    problems: list[Problem] = []
    reads = PageReads(page)
    for check in PAGE_CHECKS:
        key = check.key(page, signatures, reads)
        problems += remembered(key, _running(check, page, facts)).problems
    return one_per_line(problems)


def page_evidence(
    page: Page, facts: Facts, signatures: dict[Fact, str] | None = None
) -> list[CheckedSentence]:
    """The sentences of the page its checks proved, each once with all of its evidence (a
    span's claim and the seed sentence its sentence cites, when both start there), from the
    checks' verdicts: those of this build when it checked the page in this process, the same
    checks run now when it did not (a build whose checks ran in a child)."""
    if page.source is None or page_syntax_problems(page):
        return []
    signatures = signatures if signatures is not None else facts.signatures()
    reads = PageReads(page)
    return merged_evidence(
        remembered(check.key(page, signatures, reads), _running(check, page, facts))
        for check in PAGE_CHECKS
    )


def merged_evidence(verdicts: Iterable[Checked]) -> list[CheckedSentence]:
    """The sentences a page's verdicts proved (one `Checked` a check of PAGE_CHECKS), each
    once with all of its evidence."""
    merged: dict[str, CheckedSentence] = {}
    for checked in verdicts:
        for sentence in checked.proven:
            known = merged.get(sentence.anchor)
            if known is None:
                merged[sentence.anchor] = sentence
                continue
            longer = sentence if len(sentence.text) > len(known.text) else known
            evidence = tuple(dict.fromkeys((*known.evidence, *sentence.evidence)))
            merged[sentence.anchor] = dataclasses.replace(longer, evidence=evidence)
    return list(merged.values())


def page_syntax_problems(page: Page) -> list[Problem]:
    """The page's syntax problems (kept while its text is the same)."""
    return remembered(
        ("blocks", *page_text(page), _example_exists(page)), lambda: check_blocks(page)
    )


def _example_exists(page: Page) -> bool:
    """What the syntax check reads besides the page: whether its worked example's file is
    there (a `/// worked-example` stands only where it is)."""
    path = example_path(page)
    return path is not None and path.is_file()


def _running(check: PageCheck, page: Page, facts: Facts) -> Callable[[], Checked]:
    return lambda: check.run(page, facts)


def one_per_line(problems: list[Problem]) -> list[Problem]:
    """One problem per line of a file: the checks that one slip breaks there (the predicates
    of one sentence on a changed run, the proofs of one sentence on a changed transcript, a
    sentence both unsourced and unchecked) are named once, by the first, with a count of the
    others. An error comes before what fails a strict build only."""
    groups: dict[tuple[str, int | None], list[Problem]] = {}
    for problem in problems:
        groups.setdefault((str(problem.file), problem.line), []).append(problem)
    merged = []
    for group in groups.values():
        group.sort(key=lambda problem: problem.strict_only)
        first, more = group[0], len(group) - 1
        if more and first.line is not None:
            what = first.what.rstrip()
            what += "" if what.endswith((".", "?", "!")) else "."
            count = "1 more problem" if more == 1 else f"{more} more problems"
            first = dataclasses.replace(first, what=f"{what} This line has {count} too.")
        merged.append(first)
    return merged
