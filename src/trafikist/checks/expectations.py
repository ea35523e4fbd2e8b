"""Expectations: what a sentence says the model's run shows, checked on the run.

An author marks a sentence about a run with `[sentence]{expect: PREDICATE; PREDICATE …}` (the
predicates: trafikist.course.predicates). The build runs the scenario the sentence is about (a
duty's default scenario, or a dive's worked example) and checks each predicate on the trace. A
predicate that does not hold fails the build, quoting the sentence and the trace step that
disagrees.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from trafikist.base.errors import Problem, display_path
from trafikist.checks.inputs import PageCheck, proving, runs
from trafikist.checks.provenance import COURSE_NUMBERS
from trafikist.checks.sentences import Sentence, page_sentences
from trafikist.course import syntax
from trafikist.course.evidence import CheckedSentence, ModelChoice, ModelStep
from trafikist.course.examples import example_path, missing_scenario
from trafikist.course.predicates import (
    FORMS,
    GIVEN,
    Expectation,
    ExpectationSyntaxError,
    Verdict,
    evaluate,
    parse,
)
from trafikist.course.runs import RunChangeError, scenario_trace
from trafikist.course.structure import Page
from trafikist.course.syntax import plain, split_predicates
from trafikist.model.choices import CHOICE_IDS, MODEL_CHOICES
from trafikist.model.trace import Trace
from trafikist.model_view.draw import quote_arg, step_reply

CHOICE_WORDS = {choice.id: choice.text for choice in MODEL_CHOICES}

# -- the checks of a page ----------------------------------------------------------------------

FIX_EXPECTATION = (
    "Correct the sentence and its expectation, or the model (src/trafikist/model) if it changed; "
    "`.venv/bin/trafikist model run SCENARIO` prints the run's trace."
)
WORKED_EXAMPLE_BLOCK = "/// worked-example"
# What marks a sentence about the run: a number, or an id of a scenario's jobs and entries
# (j1, m2); process names are often plain words, so they do not count.
_ABOUT_THE_RUN = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])|\b[a-z]\d+\b")


def check_page_runs(page: Page, proven: list[CheckedSentence] | None = None) -> list[Problem]:
    """Every expectation on the page holds on its run, every choice names a choice of the
    model, every duty's "between calls" sentence carries an expectation, and so does every
    sentence of a worked example that states what the run shows. Each expectation that holds
    goes to `proven` with the steps that decide it, each choice marker with its choice."""
    found = proven if proven is not None else []
    if page.source is None:
        return []
    marks = ("{expect:", "{choice:", WORKED_EXAMPLE_BLOCK)
    if not page.duties and not any(mark in page.body for mark in marks):
        return []  # nothing on the page runs or marks the model
    problems: list[Problem] = []
    example = example_path(page) if WORKED_EXAMPLE_BLOCK in page.body else None
    if example is not None and not example.is_file():
        return [missing_scenario(page)]  # what every expectation of the page would run on
    scenario_of_page = example
    duties = {
        (str(duty.source), line): duty for duty in page.duties for line in duty.lines.values()
    }
    section = _worked_example_range(page.body)
    for sentence in page_sentences(page):
        duty = duties.get((str(sentence.file), sentence.line))
        scenario = duty.default_scenario if duty is not None else scenario_of_page
        spans = list(syntax.find_spans(sentence.markdown))
        for span in spans:
            if span.kind == "choice":
                problems.extend(_check_choice(sentence, span, found))
            elif span.kind == "expect":
                problems.extend(_check_expect(sentence, span, scenario, found))
        between_calls = duty is not None and sentence.line == duty.line_of("between_calls")
        if between_calls and not any(span.kind == "expect" for span in spans):
            assert duty is not None
            problems.append(
                Problem(
                    sentence.file,
                    sentence.line,
                    f"the duty '{duty.id}' says what happens between calls with no "
                    f'expectation: "{syntax.plain(sentence.markdown)}".',
                    "Mark what the run shows: [sentence]{expect: j1 in schedule from 2.5 to "
                    '3} (docs/authoring.md, "Expectations").',
                    strict_only=True,
                )
            )
        in_example = (
            duty is None
            and section is not None
            and sentence.statement
            and section[0] <= sentence.offset < section[1]
        )
        if in_example and scenario is not None and not spans:
            reader = syntax.plain(sentence.markdown)
            if _ABOUT_THE_RUN.search(COURSE_NUMBERS.sub(" ", reader)):
                problems.append(
                    Problem(
                        sentence.file,
                        sentence.line,
                        "the worked example states what the run shows with no expectation: "
                        f'"{reader}".',
                        "Mark it: [sentence]{expect: …} for what the run shows, or "
                        "[value]{choice: scenario} for a value the scenario chose "
                        '(docs/authoring.md, "Expectations").',
                        strict_only=True,
                    )
                )
        if (
            in_example
            and scenario is not None
            and CHOICES_LIST.match(syntax.plain(sentence.markdown))
        ):
            marked = set(CHOICE_MARK.findall(page.body))
            problems.extend(_check_choices_list(sentence, spans, scenario, marked))
    return problems


# The runs read the registry too: the model runs its verbs by the registry's rows.
CHECK = PageCheck(
    "runs",
    proving(lambda page, facts, proven: check_page_runs(page, proven)),
    ("registry",),
    (runs,),
)


# The sentence of a worked example that lists the model's own choices its run relies on.
CHOICES_LIST = re.compile(r"^Values that are the model's own choice\b")
CHOICE_MARK = re.compile(r"\{choice:\s*([\w-]+)\s*\}")


def _check_choices_list(
    sentence: Sentence, spans: list[syntax.ClaimSpan], scenario: Path, on_page: set[str]
) -> list[Problem]:
    """The list names every choice the run relies on (its trace lists them) and every choice
    the page marks elsewhere (a prompt's, a paragraph's): the page's one list of the model's
    choices a reader meets there."""
    marked = {span.expression for span in spans if span.kind == "choice"}
    relied = scenario_trace(scenario)["choices"]
    missing = [choice for choice in relied if choice not in marked]
    elsewhere = sorted(choice for choice in on_page - marked if choice in CHOICE_IDS)
    if elsewhere:
        left_out, why = elsewhere, "which the page marks"
        guide = 'docs/authoring.md, "The model\'s own choices"'
    elif missing:
        left_out = missing
        why = f"which its run relies on (the trace of {display_path(scenario)} lists them)"
        guide = (
            "src/trafikist/model/choices.py gives the words; docs/authoring.md, \"The model's "
            'own choices"'
        )
    else:
        return []
    return [
        Problem(
            sentence.file,
            sentence.line,
            "the worked example's list of the model's own choices leaves out "
            f"{', '.join(left_out)}, {why}.",
            f"Name each in the list with its marker, [words]{{choice: ID}} ({guide}).",
            strict_only=True,
        )
    ]


def _worked_example_range(body: str) -> tuple[int, int] | None:
    """Offsets of the level-2 section that holds the worked-example block."""
    block = body.find(WORKED_EXAMPLE_BLOCK)
    if block == -1:
        return None
    start = body.rfind("\n## ", 0, block)
    end = body.find("\n## ", block)
    return (0 if start == -1 else start, len(body) if end == -1 else end)


def _check_choice(
    sentence: Sentence, span: syntax.ClaimSpan, proven: list[CheckedSentence]
) -> list[Problem]:
    choice_id = span.expression
    if choice_id in CHOICE_IDS:
        choice = ModelChoice(choice_id, CHOICE_WORDS[choice_id])
        anchor = sentence.anchor(span.start)
        written = sentence.markdown[span.start : span.end]
        proven.append(
            CheckedSentence(str(sentence.file), sentence.line, written, anchor, (choice,))
        )
        return []
    return [
        Problem(
            sentence.file,
            sentence.line,
            f"the choice marker names '{choice_id}', which is not one of the model's own choices.",
            f"Name one of: {', '.join(sorted(CHOICE_IDS))} (src/trafikist/model/choices.py).",
        )
    ]


def _check_expect(
    sentence: Sentence, span: Any, scenario: Path | None, proven: list[CheckedSentence]
) -> list[Problem]:
    reader = plain(sentence.markdown)
    if scenario is None:
        return [
            Problem(
                sentence.file,
                sentence.line,
                f'the expectation on "{reader}" has no run to check: only a duty with a '
                "scenario and a dive's worked example have one.",
                "Remove the expectation, or give the duty a scenario (scenarios: [NAME]).",
            )
        ]
    problems: list[Problem] = []
    steps: list[ModelStep] = []
    given = ""  # a `given …:` clause holds for the predicates after it in the same span
    for text in split_predicates(span.expression):
        if GIVEN.match(text):
            given = text[: text.index(":") + 1]
        elif given:
            text = f"{given} {text}"
        try:
            expectation = parse(text)
        except ExpectationSyntaxError as error:
            problems.append(
                Problem(
                    sentence.file,
                    sentence.line,
                    f"the expectation '{text}' cannot be read: {error}",
                    f"Write one of: {FORMS} (docs/authoring.md).",
                )
            )
            continue
        try:
            verdict = evaluate(expectation, lambda overrides: scenario_trace(scenario, overrides))
        except RunChangeError as error:
            if given and any(error.what in problem.what for problem in problems):
                continue  # the span's other predicates under the same `given`: named once
            problems.append(
                Problem(
                    sentence.file,
                    sentence.line,
                    f"the expectation '{text}' cannot run on {display_path(scenario)}: "
                    f"{error.what}",
                    error.fix,
                )
            )
            continue
        if not verdict.holds:
            problems.append(
                Problem(
                    sentence.file,
                    sentence.line,
                    f"the expectation '{text}' does not hold on the model's run of "
                    f'{display_path(scenario)}: {verdict.why}. Sentence: "{reader}"',
                    FIX_EXPECTATION,
                )
            )
            continue
        trace = scenario_trace(scenario, expectation.overrides)
        steps.append(model_step(expectation, verdict, trace, scenario.name))
    if steps and not problems:
        anchor = sentence.anchor(span.start)
        written = sentence.markdown[span.start : span.end]
        proven.append(
            CheckedSentence(str(sentence.file), sentence.line, written, anchor, tuple(steps))
        )
    return problems


def model_step(expectation: Expectation, verdict: Verdict, trace: Trace, run: str) -> ModelStep:
    """What decides `expectation` on `trace`, as the trace's row shows it: the deciding step
    (or event), and where the predicate's job stood after it."""
    text = expectation.text
    name = run + (f" · {text[: text.index(':')]}" if GIVEN.match(text) else "")
    step = trace["steps"][verdict.step] if verdict.step is not None else None
    event = verdict.event if step is None else None
    # What decides it, a step or else an event: both have a time and a client.
    moment = step if step is not None else event
    return ModelStep(
        name,
        expectation.text,
        verdict.holds,
        t=None if moment is None else float(moment["t"]),
        client=None if moment is None else moment["client"],
        command=None if step is None else " ".join(quote_arg(arg) for arg in step["argv"]),
        reply=None if step is None else step_reply(step),
        place=verdict.place,
        step=verdict.step,
        event=None if event is None else f"{event['kind']}: {event['text']}",
    )
