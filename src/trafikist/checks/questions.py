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
from decimal import Decimal, InvalidOperation
from typing import Any

from trafikist.base.errors import CourseError, Problem
from trafikist.checks.claims import ClaimSyntaxError, evaluate
from trafikist.checks.fairness import check_fairness
from trafikist.checks.inputs import PageCheck, proving_nothing, runs
from trafikist.checks.manifest import Manifest
from trafikist.checks.seed import Seed
from trafikist.course.questions import KINDS, Option, Outcome, Question, outcome, page_questions
from trafikist.course.structure import Course, Page
from trafikist.registry import Registry

FIELDS = (
    "id",
    "run",
    "with",
    "crash",
    "kind",
    "options",
    "ask",
    "answer",
    "unit",
    "mistakes",
    "items",
    "why",
    "given",
)
OPTION_FIELDS = ("text", "why", "right", "expect", "claim", "seed")
ITEM_FIELDS = ("text", "step")
MISTAKE_FIELDS = ("value", "why")
FIX_KEY = (
    "Mark the option the run (or the registry, or the seed) bears out as `right: true`, and "
    'correct the others (docs/authoring.md, "Check yourself").'
)


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
    problems += _unknown(question, body, FIELDS, "", question.line)
    for name, fields in (("options", OPTION_FIELDS), ("items", ITEM_FIELDS)):
        for number, entry in enumerate(body.get(name) or []):
            if isinstance(entry, dict):
                parts = question.options if name == "options" else question.items
                line = parts[number].line if number < len(parts) else question.line
                problems += _unknown(question, entry, fields, f"{name}[{number}].", line)
    for number, entry in enumerate(body.get("mistakes") or []):
        if isinstance(entry, dict):
            line = question.mistakes[number].line
            problems += _unknown(question, entry, MISTAKE_FIELDS, f"mistakes[{number}].", line)
    if question.kind not in KINDS:
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
    if question.kind == "choice":
        problems += _choice(question, result, registry, manifest, seed)
    elif question.kind == "number":
        problems += _number(question, result)
    elif question.kind == "order":
        problems += _order(question, result)
    if not problems:
        # A question whose key holds: is it fair to its reader?
        problems += check_fairness(question, result)
    return problems


def _choice(
    question: Question, result: Outcome, registry: Registry, manifest: Manifest, seed: Seed
) -> list[Problem]:
    problems: list[Problem] = []
    rights = [option for option in question.options if option.right]
    if len(question.options) < 2 or len(rights) != 1:
        return [
            _at(
                question,
                "options",
                f"the question '{question.id}' has "
                f"{len(question.options)} options, {len(rights)} of them marked right",
                "Give it two options or more, one of them `right: true`.",
            )
        ]
    verdicts: list[tuple[Option, bool, str]] = []  # (option, holds, what shows it)
    for number, option in enumerate(question.options):
        ways = [way for way in (option.expect, option.claim, option.seed) if way]
        if len(ways) != 1 or not option.text or not option.why:
            problems.append(
                Problem(
                    question.file,
                    option.line,
                    f"option {number + 1} of '{question.id}' needs a text, a why "
                    "and one way to check it (expect, claim or seed)",
                    "Write `text:`, `why:` and one of `expect:`, `claim:`, `seed:`.",
                )
            )
            continue
        if option.expect and question.run is None:
            problems.append(
                Problem(
                    question.file,
                    option.line,
                    f"option {number + 1} of '{question.id}' has an expectation "
                    "and the question names no run",
                    "Name the run: `run: duty ID`, `run: worked example` or `run: scenario NAME`.",
                )
            )
            continue
        holds, why = _holds(option, number, result, registry, manifest, seed)
        if holds is None:
            problems.append(Problem(question.file, option.line, why, _fix_way(option)))
        else:
            verdicts.append((option, holds, why))
    if problems or result.problems:
        return problems  # an option that cannot be checked leaves the key open
    right = next(entry for entry in verdicts if entry[0].right)
    others = [entry for entry in verdicts if not entry[0].right and entry[1]]
    if not right[1]:
        # The slip an author makes when the key is stale: named once, with the option that
        # holds instead.
        instead = f'; the option "{others[0][0].text}" holds' if len(others) == 1 else ""
        problems.append(
            Problem(
                question.file,
                right[0].line,
                f"the marked answer of '{question.id}', \"{right[0].text}\", "
                f"does not hold: {right[2].rstrip('.')}{instead}",
                FIX_KEY,
            )
        )
        if instead:
            return problems
    for option, _, why in others:
        problems.append(
            Problem(
                question.file,
                option.line,
                f"the option \"{option.text}\" of '{question.id}' holds too, "
                "so the question has two answers" + (f": {why}" if why else ""),
                FIX_KEY,
            )
        )
    return problems


def _holds(
    option: Option, number: int, result: Outcome, registry: Registry, manifest: Manifest, seed: Seed
) -> tuple[bool | None, str]:
    """Whether the option is true, and what shows it; None when it cannot be checked."""
    if option.expect:
        decider = result.deciders[number] if number < len(result.deciders) else None
        shown = decider.sentence() if decider else ""
        return result.holds[number], (shown[0].lower() + shown[1:]) if shown else (
            "the run shows otherwise"
        )
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


def _number(question: Question, result: Outcome) -> list[Problem]:
    try:
        answer = Decimal(question.answer)
    except (InvalidOperation, ValueError):
        return [
            _at(
                question,
                "answer",
                f"the answer '{question.answer}' of '{question.id}' is not a number",
                "Write it as the reader would, like 3 or 2.5.",
            )
        ]
    if not question.why:
        return [
            _at(
                question,
                "why",
                f"the question '{question.id}' has no why",
                "Say why the run gives that number (`why:`).",
            )
        ]
    if result.value is None:
        return []  # the run's problem is named already
    shown = _rounded(result.value, question.decimals)
    problems = []
    if shown != answer:
        problems.append(
            _at(
                question,
                "answer",
                f"the answer {question.answer} of "
                f"'{question.id}' is not the run's: the model gives {result.value:g} "
                f"({shown} at the precision written)",
                FIX_KEY,
            )
        )
    for mistake in question.mistakes:
        try:
            wrong = Decimal(mistake.value)
        except (InvalidOperation, ValueError):
            problems.append(
                Problem(
                    question.file,
                    mistake.line,
                    f"the mistake '{mistake.value}' is not a number",
                    "Write the wrong value a reader gives.",
                )
            )
            continue
        if wrong == shown or not mistake.why:
            problems.append(
                Problem(
                    question.file,
                    mistake.line,
                    f"the mistake {mistake.value} of "
                    f"'{question.id}' is the run's answer or has no why",
                    "List a value the run does not give, with `why:`.",
                )
            )
    return problems


def _order(question: Question, result: Outcome) -> list[Problem]:
    if len(question.items) < 2 or not question.why:
        return [
            _at(
                question,
                "items",
                f"the question '{question.id}' needs two items or more and a why",
                "List `items:` (text and step) and `why:`.",
            )
        ]
    problems = []
    times = result.times
    for number in range(1, len(times)):
        before, after = times[number - 1], times[number]
        if before is not None and after is not None and after < before:
            first, second = question.items[number - 1], question.items[number]
            problems.append(
                Problem(
                    question.file,
                    second.line,
                    f"the items of '{question.id}' are not in the run's order: "
                    f'"{second.text}" happens at {after:g} s, before '
                    f'"{first.text}" at {before:g} s',
                    "List the items in the order the run takes them.",
                )
            )
    return problems


def _rounded(value: float, decimals: int) -> Decimal:
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals))


def _at(question: Question, field: str, what: str, fix: str) -> Problem:
    return Problem(question.file, question.lines.get(field, question.line), f"{what}.", fix)


def _fix_run(question: Question) -> str:
    return (
        "Name a run of this page (`run: duty ID`, `run: worked example`, `run: scenario NAME`) "
        "and write what its trace shows; `.venv/bin/trafikist model run SCENARIO` prints it."
    )


def _fix_way(option: Option) -> str:
    if option.claim:
        return "Write a claim as the registry's claims are written (docs/registry.md)."
    return "Quote the seed word for word (registry/seed.txt)."
