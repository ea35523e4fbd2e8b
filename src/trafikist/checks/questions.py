"""Check yourself: every question's key and every explanation, proved as the course's sentences
are (trafikist.course.questions reads the blocks).

A choice question has one right option and every other wrong: the build runs each option's
expectation on the question's run, evaluates each claim on the registry, and finds each seed
quote in the seed; the marked option must hold and no other may. A number question's answer is
the model's value at the precision written, and no mistake it explains is. An order question
lists its items in the order the run takes them. Each failure is one `FILE:LINE: what. Fix:
how.`; a change to the model that makes a key or an explanation false fails the build.
"""

from __future__ import annotations

import difflib
from typing import Any

from trafikist.base.errors import CourseError, Problem
from trafikist.checks.claims import ClaimSyntaxError, evaluate
from trafikist.checks.fairness import check_fairness
from trafikist.checks.inputs import PageCheck, proving_nothing, runs
from trafikist.checks.manifest import Manifest
from trafikist.checks.seed import Seed
from trafikist.course.questions import (
    COMMON_FIELDS,
    KINDS,
    Option,
    Question,
    outcome,
    page_questions,
)
from trafikist.course.structure import Course, Page
from trafikist.registry import Registry


def known_fields() -> tuple[str, ...]:
    """Every field a question may have: the shared ones, then each kind's (its class says)."""
    own = [name for kind in KINDS.values() for name in kind.fields]
    return tuple(dict.fromkeys([*COMMON_FIELDS, *own]))


def check_questions(
    page: Page, registry: Registry, manifest: Manifest, seed: Seed
) -> list[Problem]:
    if page.source is None or "/// check" not in page.body:
        return []
    try:
        questions = page_questions(page)
    except CourseError as error:
        return list(error.problems)
    problems: list[Problem] = []
    for question in questions:
        # A misspelt field is the slip to fix: what follows from it (no options) is not named.
        wrong_fields = _fields(question)
        problems += wrong_fields or _check(question, registry, manifest, seed)
    return problems


CHECK = PageCheck(
    "questions",
    proving_nothing(
        lambda page, facts: check_questions(page, facts.registry, facts.manifest, facts.seed)
    ),
    facts=("registry", "manifest", "seed"),
    files=(runs,),
)


def check_question_ids(course: Course) -> list[Problem]:
    """Each question's id is the course's own: the reader's record keeps answers by it."""
    seen: dict[str, Question] = {}
    problems = []
    for page in course.pages.values():
        try:
            questions = page_questions(page)
        except CourseError:
            continue  # check_questions names it
        for question in questions:
            first = seen.setdefault(question.id, question)
            if first is not question:
                problems.append(
                    Problem(
                        question.file,
                        question.line,
                        f"the question id '{question.id}' is already used at "
                        f"{first.file.name}:{first.line}.",
                        "Give the question an `id:` of its own; the reader's record keeps "
                        "answers by it.",
                    )
                )
    return problems


# -- the fields ----------------------------------------------------------------------------------


def _fields(question: Question) -> list[Problem]:
    problems = []
    body = question.data
    problems += _unknown(question, body, known_fields(), "", question.line)
    kind = KINDS.get(question.kind)
    for name, fields in (kind.entries if kind else {}).items():
        lines = {
            "options": [option.line for option in question.options],
            "items": [item.line for item in question.items],
            "mistakes": [mistake.line for mistake in question.mistakes],
        }.get(name, [])
        for number, entry in enumerate(body.get(name) or []):
            if isinstance(entry, dict):
                line = lines[number] if number < len(lines) else question.line
                problems += _unknown(question, entry, tuple(fields), f"{name}[{number}].", line)
    if kind is None:
        problems.append(
            _at(
                question,
                "kind",
                f"the question's kind '{question.kind}' is not one of {', '.join(KINDS)}",
                f"Write `kind: {' | '.join(KINDS)}`.",
            )
        )
    return problems


def _unknown(
    question: Question, data: dict[str, Any], known: tuple[str, ...], prefix: str, line: int
) -> list[Problem]:
    problems = []
    for key in data:
        if key in known:
            continue
        close = difflib.get_close_matches(str(key), known, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        problems.append(
            Problem(
                question.file,
                line,
                f"the question '{question.id}' has no field '{prefix}{key}'.{hint}",
                f'Use one of: {", ".join(known)} (docs/authoring.md, "Check yourself").',
            )
        )
    return problems


# -- the key ---------------------------------------------------------------------------------------


def _check(question: Question, registry: Registry, manifest: Manifest, seed: Seed) -> list[Problem]:
    result = outcome(question)
    problems = [
        # An order item that matches several steps is unfair, not wrong: a strict build's.
        Problem(
            question.file,
            line,
            what,
            result.fixes.get(line) or _fix_run(question),
            strict_only=line in result.fixes,
        )
        for line, what in result.problems
    ]
    kind = KINDS[question.kind]
    problems += kind.check(
        question, result, lambda option: _holds(option, registry, manifest, seed)
    )
    if not problems:
        # A question whose key holds: is it fair to its reader?
        problems += check_fairness(question, result)
    return problems


def _holds(
    option: Option, registry: Registry, manifest: Manifest, seed: Seed
) -> tuple[bool | None, str]:
    """Whether an option that holds by a registry claim or a seed quote is true, and what
    shows it; None when it cannot be checked."""
    if option.claim:
        try:
            verdict = evaluate(option.claim, option.text, registry, manifest)
        except ClaimSyntaxError as error:
            return None, f"the claim '{option.claim}' cannot be read: {error}"
        return verdict.holds, verdict.why or "the registry says so"
    if not seed.contains(option.seed):
        return None, f'the seed quote "{option.seed}" is not in the seed ({seed.file.name})'
    # A seed question's right option quotes what the seed says; a wrong one quotes what the
    # seed says instead, which refutes it.
    return option.right, ""


def _at(question: Question, field: str, what: str, fix: str) -> Problem:
    return Problem(question.file, question.lines.get(field, question.line), f"{what}.", fix)


def _fix_run(question: Question) -> str:
    return (
        "Name a run of this page (`run: duty ID`, `run: worked example`, `run: scenario NAME`) "
        "and write what its trace shows; `.venv/bin/trafikist model run SCENARIO` prints it."
    )
