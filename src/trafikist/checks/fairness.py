"""Fair questions: the build proves that the reader was told enough to answer, and that copying
the page is not enough (docs/authoring.md, "Fair questions").

- **What it gives is said.** Each value a question gives (`given:`) names a value of its run
  (`j1.due`, `consumer.beat`) or one of the model's choices, and stands in the prompt or on
  the page above it: the value with its job or process, the words the author wrote for it, or
  the choice's marker.
- **The answer holds whatever else the run does.** The question's run is made again with each
  value it does not give changed within its range, one at a time (trafikist.course.variants):
  the right option holds and every other fails in each, a number stays the same at the
  precision asked, an order stays the order. The verdicts are kept on disk
  (trafikist.base.diskcache, `fairness`), keyed by everything they read.
- **Copying is not enough.** A right answer whose words, number or order stand in one sentence
  of the section above the question fails, naming the sentence.
- **Precision is said.** A number question's prompt gives the unit and the precision it is
  graded at.

(Each order item is one step: trafikist.course.questions refuses an item that matches several.)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.base.errors import Problem
from trafikist.base.files import file_signature
from trafikist.checks import quantity
from trafikist.checks.sentences import prose_sentences
from trafikist.course import syntax
from trafikist.course import variants as variants_module
from trafikist.course.questions import KINDS, Outcome, Question, outcome
from trafikist.course.runs import model_signature
from trafikist.course.variants import Variable, VariantRuns
from trafikist.model.choices import CHOICE_IDS
from trafikist.model.commands import table_signature

FIX_GIVEN = (
    "Give it in the prompt and in `given:`, or ask what does not depend on it "
    '(docs/authoring.md, "Fair questions").'
)
# Bump when what the variants check changes: the verdicts on disk are keyed by it.
RULES = "1"
# … and by the source of the rules themselves (this module and the variants').
RULES_SOURCE = file_signature([Path(__file__), Path(variants_module.__file__)])
KEEP = 4000  # verdicts on disk: a course's questions, many times over

# The small numbers a prompt spells out (quantity's words up to twelve), and "twice".
NUMBER_WORDS = {word: n for word, n in quantity.NUMBER_WORDS.items() if n <= 12} | {"twice": 2}
NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)(?![\w])|\b(" + "|".join(NUMBER_WORDS) + r")\b")
WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "in",
        "on",
        "at",
        "to",
        "by",
        "for",
        "from",
        "with",
        "its",
        "it",
        "is",
        "are",
        "was",
        "be",
        "as",
        "that",
        "this",
        "then",
        "than",
        "not",
        "no",
        "into",
        "one",
        "who",
        "which",
        "what",
        "when",
        "where",
        "since",
        "still",
        "only",
        "each",
        "every",
        "all",
        "any",
    ]
)
# A section's heading: the copying check reads what stands between the last one and the question.
HEADING = re.compile(r"^#{2,6}\s", re.M)
PRECISIONS = {
    0: ("nearest second", "whole second", "whole number"),
    1: ("nearest tenth", "one decimal", "0.1 s"),
    2: ("nearest hundredth", "two decimals", "0.01 s"),
    3: ("nearest millisecond", "three decimals", "0.001 s"),
}


def check_fairness(question: Question, result: Outcome) -> list[Problem]:
    """Every way `question` is unfair to its reader, at its line: each fails a strict build
    (a lenient one warns)."""
    above = _page_above(question)
    problems = _given(question, above)
    problems += _precision(question)
    problems += _copied(question, result, _section_above(question))
    if not problems:
        problems += _variants(question)
    return [dataclasses.replace(problem, strict_only=True) for problem in problems]


# -- what the question gives --------------------------------------------------------------------


def _given(question: Question, above: list[str]) -> list[Problem]:
    if not question.given:
        return []
    named = {variable.name: variable for variable in _variables(question)}
    told = [_plain(question.prompt), *above]
    problems = []
    line = question.lines.get("given", question.line)
    for name, words in question.given:
        if name in CHOICE_IDS:
            marker = re.compile(r"\{\s*choice:\s*" + re.escape(name) + r"\s*\}")
            raw = [question.prompt, *_raw_above(question)]
            if not any(marker.search(text) for text in raw):
                problems.append(
                    Problem(
                        question.file,
                        line,
                        f"the question '{question.id}' gives the model's choice '{name}', "
                        "which neither its prompt nor the page above it marks.",
                        f"Mark it where the reader reads it: [words]{{choice: {name}}} "
                        '(docs/authoring.md, "Fair questions").',
                    )
                )
            continue
        variable = named.get(name)
        if variable is None:
            known = ", ".join(sorted(named)[:12])
            problems.append(
                Problem(
                    question.file,
                    line,
                    f"the question '{question.id}' gives '{name}', which is neither a value of "
                    f"its run ({known} …) nor one of the model's choices.",
                    "Name a value as SUBJECT.FIELD (`j1.due`, `consumer.beat`) or a choice's "
                    'id (docs/authoring.md, "Fair questions").',
                )
            )
            continue
        if not any(_states(text, variable, words) for text in told):
            said = f'"{words}"' if words else f"{variable.subject} with {variable.shown()}"
            problems.append(
                Problem(
                    question.file,
                    line,
                    f"the question '{question.id}' gives {variable.described()}, and neither "
                    f"its prompt nor the page above it says it ({said}).",
                    "Say it in the prompt, or in `given:` write the prompt's words for it "
                    '(docs/authoring.md, "Fair questions").',
                )
            )
    return problems


def _states(text: str, variable: Variable, words: str) -> bool:
    """Whether one sentence (or the prompt) says the value: the author's words for it, or its
    subject and its number."""
    lowered = text.lower()
    if words:
        return " ".join(words.lower().split()) in " ".join(lowered.split())
    subject = variable.subject.lower()
    if subject != "scenario" and not re.search(
        rf"(?<![\w-]){re.escape(subject)}(?![\w-])", lowered
    ):
        return False
    return any(abs(number - variable.value) < 1e-9 for number in _numbers(text))


def _variables(question: Question) -> list[Variable]:
    run = question.run
    if run is None or run.scenario is None:
        return []
    try:
        return VariantRuns(run.scenario, run.overrides).variables()
    except Exception:
        return []


# -- precision -------------------------------------------------------------------------------------


def _precision(question: Question) -> list[Problem]:
    if question.kind != "number":
        return []
    prompt = _plain(question.prompt).lower()
    if question.ask.strip().startswith("count"):
        if "how many" in prompt and question.decimals == 0:
            return []
        what = "a count asks 'how many' and is a whole number"
    else:
        unit = "second" in prompt or re.search(r"\d\s?s\b", prompt) is not None
        phrases = PRECISIONS.get(question.decimals, ())
        if unit and any(phrase in prompt for phrase in phrases):
            return []
        what = f"a time gives its unit and its precision ({' or '.join(phrases[:2])})"
    return [
        Problem(
            question.file,
            question.line,
            f"the number question '{question.id}' does not say its unit and precision in its "
            f"prompt: {what}.",
            'Say both, as "At what time, in seconds to the nearest tenth, …?" for an answer '
            'like 3.0, or "How many times …?" for a count (docs/authoring.md, "Fair questions").',
        )
    ]


# -- copying -------------------------------------------------------------------------------------


def _copied(question: Question, result: Outcome, section: list[str]) -> list[Problem]:
    found = None
    if question.kind == "choice":
        right = next((option for option in question.options if option.right), None)
        words = _content_words(right.text) if right else []
        if len(words) >= 2:
            found = next((s for s in section if set(words) <= set(_content_words(s))), None)
    elif question.kind == "number" and question.answer:
        found = _number_above(question, section)
    elif question.kind == "order" and len(question.items) >= 2:
        items = [_content_words(item.text) for item in question.items]
        found = next((s for s in section if _in_order(items, _content_words(s))), None)
    if found is None:
        return []
    shown = " ".join(found.split())
    shown = shown if len(shown) <= 160 else shown[:157] + "…"
    return [
        Problem(
            question.file,
            question.line,
            f"the answer of '{question.id}' stands in the section above it, so copying is "
            f'enough: "{shown}".',
            "Ask what the section teaches but does not say (a prediction about a changed run), "
            'or ask it on a later page (docs/authoring.md, "Fair questions").',
        )
    ]


def _number_above(question: Question, section: list[str]) -> str | None:
    """The sentence of the section that states a number question's answer: the job (or the
    command) it asks about, and the answer, a time with its unit for a time."""
    ask = re.findall(r"[\w.:@-]+", question.ask)
    if len(ask) < 4:
        return None
    timed = ask[0] == "time"
    name = (ask[1] if ask[2] == "reaches" else ask[3]).lstrip("@").lower()
    key = Decimal(question.answer)
    for sentence in section:
        if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sentence.lower()):
            continue
        for number, unit in _numbers_with_units(sentence):
            if unit == timed and _rounded(number, question.decimals) == key:
                return sentence
    return None


def _in_order(items: list[list[str]], sentence: list[str]) -> bool:
    last = -1
    for words in items:
        if not words or not set(words) <= set(sentence):
            return False
        first = min(sentence.index(word) for word in words)
        if first <= last:
            return False
        last = first
    return True


def _content_words(text: str) -> list[str]:
    words = WORD.findall(_plain(text).lower())
    return [_stem(word) for word in words if len(word) > 2 and word not in STOP]


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


# -- the variants ----------------------------------------------------------------------------------


def _variants(question: Question) -> list[Problem]:
    run = question.run
    if run is None or run.scenario is None:
        return []
    key = _variants_key(question, run.scenario)
    folder = cache_folder("fairness")
    entry = folder / f"{key}.json"
    kept = read_entry(entry)
    if kept is not None:
        try:
            found = json.loads(kept)
            return [Problem(question.file, line, what, FIX_GIVEN) for line, what in found]
        except (ValueError, TypeError):
            pass  # a torn entry: made again
    made = _unfair_variants(question, run.scenario, run.overrides)
    write_entry(entry, json.dumps(made).encode("utf-8"))
    prune(folder, "*.json", KEEP)
    return [Problem(question.file, line, what, FIX_GIVEN) for line, what in made]


def _variants_key(question: Question, scenario: Path) -> str:
    try:
        content = hashlib.sha256(scenario.read_bytes()).hexdigest()
    except OSError:
        content = ""
    parts = [
        RULES,
        question.id,
        question.prompt,
        question.line,
        json.dumps(question.data, sort_keys=True, default=str),
        content,
        model_signature(),
        table_signature(),
        RULES_SOURCE,
    ]
    return hashlib.sha256(json.dumps(parts, default=str).encode("utf-8")).hexdigest()


def _unfair_variants(
    question: Question, scenario: Path, overrides: dict[str, Any] | None
) -> list[tuple[int, str]]:
    """(line, what) for each value not given whose change changes the answer."""
    given = {name for name, _ in question.given}
    found: list[tuple[int, str]] = []
    runs = VariantRuns(scenario, overrides)
    for variable in runs.variables():
        if variable.name in given:
            continue
        for value in variable.values():
            trace = runs.trace(variable, value)
            if trace is None:
                continue
            what = _changed_answer(question, outcome(question, trace))
            if what:
                found.append(
                    (
                        question.line,
                        f"the answer of '{question.id}' depends on {variable.described()}, "
                        f"which the prompt does not give: with {variable.shown(value)}, {what}.",
                    )
                )
                break
    return found


def _changed_answer(question: Question, result: Outcome) -> str:
    """What a variant's run answers, when it is not the question's answer; "" when it is (each
    kind says: trafikist.course.questions)."""
    if result.problems:
        return result.problems[0][1]
    kind = KINDS.get(question.kind)
    return kind.changed(question, result) if kind is not None else ""


# -- the page's text -----------------------------------------------------------------------------


def _lines_above(question: Question) -> list[str]:
    page = question.page
    return page.body.split("\n")[: max(0, question.line - page.body_line)]


def _raw_above(question: Question) -> list[str]:
    return ["\n".join(_lines_above(question))]


def _prose_above(question: Question) -> str:
    """The page's prose above the question, as the sentence checks read it (syntax.scan)."""
    page = question.page
    scanned = syntax.scan(page.body)
    above = max(0, question.line - page.body_line)
    end = scanned.line_starts[above] if above < len(scanned.line_starts) else len(page.body)
    return scanned.prose[:end]


def _page_above(question: Question) -> list[str]:
    """The sentences of the page above the question, as the reader reads them."""
    return _sentences(_prose_above(question))


def _section_above(question: Question) -> list[str]:
    """The sentences of the question's section above it (from its heading)."""
    prose = _prose_above(question)
    start = max((match.start() for match in HEADING.finditer(prose)), default=0)
    return _sentences(prose[start:])


def _sentences(prose: str) -> list[str]:
    return [_plain(text) for _, text in prose_sentences(prose)]


def _plain(markdown: str) -> str:
    return syntax.plain(markdown)


def _numbers_with_units(text: str) -> list[tuple[float, bool]]:
    """Each number of the text, and whether a unit of time follows it."""
    found = []
    for match in NUMBER.finditer(text.lower()):
        digits, word = match.groups()
        number = float(digits.replace(",", ".")) if digits else float(NUMBER_WORDS[word])
        after = text.lower()[match.end() : match.end() + 9]
        found.append((number, re.match(r"\s*-?(s\b|seconds?\b)", after) is not None))
    return found


def _numbers(text: str) -> list[float]:
    found = []
    for digits, word in NUMBER.findall(text.lower()):
        found.append(float(digits.replace(",", ".")) if digits else float(NUMBER_WORDS[word]))
    return found


def _rounded(value: float, decimals: int) -> Decimal:
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals))
