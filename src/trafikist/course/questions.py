"""Check yourself: the questions a page asks its reader, and their answers as the model, the
registry or the seed gives them.

An author writes a question as a block of the page, its body YAML:

    /// check | Where is j1 at 3.5 s?
    run: duty promote               # or: worked example · scenario NAME (the module's scenarios/)
    with: {wire: 6}                 # overrides of the run (wire, reaper, beat, batch, limit, …)
    crash: reader after 3           # a fault: the client stops after its third command
    options:
      - text: In schedule.
        expect: j1 in schedule at 3.5
        why: A due job does not move when it falls due; a promote call moves it.
      - text: In pending.
        right: true
        expect: j1 in pending at 3.5
        why: The consumer's beat promoted it.
    ///

Kinds (`kind:`): `choice` (the default: `options`, one `right`), `number` (`ask:` what the
model counts or times, `answer:` as the reader would write it, its decimals the precision,
`mistakes:` the wrong values a reader gives and why), and `order` (`items:` in the order the
run takes them, each with the `step:` that places it). An option holds by an expectation on the
run (`expect:`), a registry claim (`claim:`), or a sentence of the seed (`seed:`); the build
runs every option (trafikist.checks.questions): the right one holds and no other does.

This module reads the blocks and works out what the run shows for each option: the step of
the trace that decides it, which the reader sees after answering.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar
from urllib.parse import urlencode

import yaml

from trafikist.base.errors import CourseError, Problem
from trafikist.course.examples import example_path
from trafikist.course.predicates import (
    Expectation,
    ExpectationSyntaxError,
    Fault,
    Verdict,
    command_name,
    evaluate,
    parse,
    place_of,
)
from trafikist.course.runs import load_scenario, scenario_trace
from trafikist.course.sources import line_of_path, load_yaml_node
from trafikist.course.structure import (
    SLUG_MAX_LENGTH,
    SLUG_TEXT,
    Kind,
    Page,
    scenario_file,
    slugify,
)
from trafikist.course.syntax import QUESTION_BLOCK, QUESTION_OPEN, regions
from trafikist.model.choices import CHOICE_IDS
from trafikist.model.trace import Reply, Trace, jobs_in
from trafikist.model_view.controls import shared_query
from trafikist.model_view.draw import render_result_html

BLOCK = QUESTION_BLOCK  # `/// check | PROMPT`: its body is the question's YAML
RUN = re.compile(
    r"^(?:duty\s+(?P<duty>[a-z0-9-]+)|(?P<example>worked example)"
    r"|scenario\s+(?P<scenario>[a-z0-9-]+))$"
)
CRASH = re.compile(
    r"^(?P<client>[\w.:-]+)\s+after\s+(?P<after>\d+|@?[A-Za-z][\w.:-]*(?:\s+[1-9]\d*)?)"
    r"(?P<for_good>\s+for\s+good)?$"
)
ASK = re.compile(
    r"^(?:count\s+(?P<count_client>[\w.:-]+)\s+sends\s+(?P<count_command>[\w.:@-]+)"
    r"|time\s+(?P<job>[\w.:-]+)\s+reaches\s+(?P<place>\w+)"
    r"|time\s+(?P<time_client>[\w.:-]+)\s+sends\s+(?P<time_command>[\w.:@-]+))$"
)
STEP = re.compile(
    r"^(?:(?P<job>[\w.:-]+)\s+reaches\s+(?P<place>\w+)"
    r"|(?P<client>[\w.:-]+)\s+sends\s+(?P<command>[\w.:@-]+)"
    r"|(?P<event_client>[\w.:-]+)\s+(?P<event>[a-z][a-z-]*))$"
)


@dataclass(frozen=True)
class Option:
    text: str
    why: str
    right: bool
    line: int
    why_line: int
    expect: str = ""
    claim: str = ""
    seed: str = ""


@dataclass(frozen=True)
class Item:
    text: str
    step: str
    line: int


@dataclass(frozen=True)
class Mistake:
    value: str
    why: str
    line: int
    why_line: int


@dataclass(frozen=True)
class RunSpec:
    """The run a question asks about: its scenario and the changes the question makes."""

    label: str  # as written: "duty promote", "worked example", "scenario promote-due"
    scenario: Path | None  # None when the page has no such run
    overrides: dict[str, Any] | None
    duty: str = ""  # the duty whose run it is, for the widget's link
    known: tuple[str, ...] = ()  # the runs the page can name, for a message about a wrong one


@dataclass(frozen=True)
class Question:
    id: str
    prompt: str
    kind: str
    page: Page
    line: int  # the `/// check` line of the page's source (`file`)
    lines: dict[str, int]  # a field's line
    run: RunSpec | None = None
    options: tuple[Option, ...] = ()
    ask: str = ""
    answer: str = ""
    unit: str = ""
    mistakes: tuple[Mistake, ...] = ()
    items: tuple[Item, ...] = ()
    why: str = ""
    # The values the question gives its reader (`given:`): `SUBJECT.FIELD` of its run (`j1.due`,
    # `consumer.beat`), or a model choice's id; each with the words that state it, if written.
    given: tuple[tuple[str, str], ...] = ()
    # The block's fields as written, for the checks of its schema.
    data: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def file(self) -> Path:
        """The page's source, where the question is written."""
        assert self.page.source is not None  # a question is read from its page's source
        return self.page.source

    @property
    def whys(self) -> list[tuple[str, int]]:
        """Every explanation the reader may read, with its line: the sentences the checks read
        as the course's own (an option's text is a candidate, not a statement)."""
        found = [(option.why, option.why_line) for option in self.options]
        found += [(mistake.why, mistake.why_line) for mistake in self.mistakes]
        if self.why:
            found.append((self.why, self.lines.get("why", self.line)))
        return [(text, line) for text, line in found if text]

    @property
    def decimals(self) -> int:
        exponent = Decimal(self.answer).as_tuple().exponent if self.answer else 0
        return -exponent if isinstance(exponent, int) and exponent < 0 else 0


@dataclass(frozen=True)
class Decider:
    """The step of the run that decides an option, as the reader reads it."""

    t: float
    client: str
    what: str  # the command (a script by its name) or the event
    reply: str
    step: int | None  # the trace's step, for the highlight in the run
    event: int | None = None  # or the trace's event
    lead: str = ""  # what the run shows before this step, when the step is not the whole story

    def sentence(self) -> str:
        """The step in the reader's words; the run is the model's (its keys and arguments are
        the model's own choices, which the shown run lists)."""
        if not self.client:
            return f"In the model's run, {self.lead}."
        if self.step is None:
            done = f"{self.client}: {self.what}"
        else:
            done = f"{self.client} sent {self.what}; it replied {self.reply}"
        if self.lead:
            return f"In the model's run, {self.lead} until the call at {self.t:g} s: {done}."
        return f"In the model's run, at {self.t:g} s, {done}."


@dataclass
class Outcome:
    """What the run (or the registry, or the seed) says of each part of a question."""

    holds: list[bool] = field(default_factory=list)  # per option, in order
    deciders: list[Decider | None] = field(default_factory=list)  # per option, or per item
    value: float | None = None  # a number question's, as the model counts or times it
    times: list[float | None] = field(default_factory=list)  # an order question's, per item
    problems: list[tuple[int, str]] = field(default_factory=list)  # (line, what) the run says
    fixes: dict[int, str] = field(default_factory=dict)  # a problem's own fix, by its line


# -- reading the blocks --------------------------------------------------------------------------


def page_questions(page: Page) -> list[Question]:
    """The questions of a page, in order; CourseError naming the line of a block it cannot
    read."""
    if page.source is None or "/// check" not in page.body:
        return []
    found = []
    for start, prompt, body, body_line in blocks(page.body):
        line = page.body_line + start
        found.append(_question(page, prompt, body, line, page.body_line + body_line))
    return found


def blocks(body: str) -> list[tuple[int, str, str, int]]:
    """(line index of `/// check`, the prompt, the YAML body, the body's first line index), of
    the questions `course.syntax.regions` finds: none inside fenced code or a comment, each
    ending where the page-syntax check ends it."""
    lines = body.split("\n")
    found = []
    for region in regions(lines):
        if region.kind != "question":
            continue
        match = QUESTION_OPEN.match(lines[region.start])
        assert match is not None, "a question region opens with its block"
        end = region.end if region.closed else len(lines)  # an unclosed block: the checks name it
        found.append(
            (
                region.start,
                (match["prompt"] or "").strip(),
                "\n".join(lines[region.start + 1 : end]),
                region.start + 1,
            )
        )
    return found


def _question(page: Page, prompt: str, body: str, line: int, body_line: int) -> Question:
    assert page.source is not None
    path = page.source
    if not prompt:
        raise CourseError.at(
            path, line, "the question has no prompt.", "Write it after the bar: `/// check | …?`"
        )
    data, node = load_yaml_node(body, path, body_line)
    if not isinstance(data, dict):
        raise CourseError.at(
            path,
            body_line,
            "the question's body is not a mapping of fields.",
            "Write `run:`, `options:` … under `/// check | …` (docs/authoring.md, "
            '"Check yourself").',
        )

    def at(name: str) -> int:
        return line_of_path(node, name, body_line) or body_line

    kind = str(data.get("kind", "choice"))
    _check_written(path, node, body_line, KINDS.get(kind))
    lines = {name: at(name) for name in data}
    question_id = str(data.get("id") or slugify(prompt)[:60])
    run = _run(page, data, at) if "run" in data else None
    options = tuple(
        Option(
            text=str(entry.get("text", "")),
            why=str(entry.get("why", "")),
            right=entry.get("right") is True,
            line=at(f"options[{number}]"),
            why_line=at(f"options[{number}].why"),
            expect=str(entry.get("expect", "") or ""),
            claim=str(entry.get("claim", "") or ""),
            seed=str(entry.get("seed", "") or ""),
        )
        for number, entry in enumerate(data.get("options") or [])
        if isinstance(entry, dict)
    )
    items = tuple(
        Item(str(entry.get("text", "")), str(entry.get("step", "")), at(f"items[{number}]"))
        for number, entry in enumerate(data.get("items") or [])
        if isinstance(entry, dict)
    )
    mistakes = tuple(
        Mistake(
            _written(node, ("mistakes", number, "value")) or "",
            str(entry.get("why", "")),
            at(f"mistakes[{number}]"),
            at(f"mistakes[{number}].why"),
        )
        for number, entry in enumerate(data.get("mistakes") or [])
        if isinstance(entry, dict)
    )
    return Question(
        id=question_id,
        prompt=prompt,
        kind=kind,
        page=page,
        line=line,
        lines=lines,
        run=run,
        options=options,
        ask=str(data.get("ask", "") or ""),
        answer=_written(node, ("answer",)) or "",
        unit=str(data.get("unit", "") or ""),
        mistakes=mistakes,
        items=items,
        why=str(data.get("why", "") or ""),
        given=_given(data.get("given")),
        data=data,
    )


def _given(value: Any) -> tuple[tuple[str, str], ...]:
    """`given:` as a list of names, or a mapping of names to the words that state them."""
    if isinstance(value, dict):
        return tuple((str(name), str(words or "")) for name, words in value.items())
    if isinstance(value, list):
        return tuple((str(name), "") for name in value)
    return ()


def _run(page: Page, data: dict[str, Any], at: Callable[[str], int]) -> RunSpec:
    assert page.source is not None
    label = " ".join(str(data["run"]).split())
    match = RUN.match(label)
    module = page.module_folder
    if match is None:
        raise _unreadable(page, at("run"), f"the question's run '{label}'", RUN_FIX)
    overrides: dict[str, Any] = dict(data.get("with") or {})
    crash = None
    if "crash" in data:
        crash = CRASH.match(" ".join(str(data["crash"]).split()))
        if crash is None:
            raise _unreadable(page, at("crash"), f"the crash '{data['crash']}'", CRASH_FIX)
    scenario: Path | None = None
    duty_id = ""
    if match["duty"]:
        duty_id = match["duty"]
        owner = page if page.kind is Kind.MODULE else page.parent
        duty = next((d for d in (owner.duties if owner else []) if d.id == duty_id), None)
        if duty is not None:
            scenario = duty.default_scenario
    elif match["example"]:
        path = example_path(page)
        scenario = path if path is not None and path.is_file() else None
    elif module is not None:
        path = scenario_file(module, match["scenario"])
        scenario = path if path.is_file() else None
    if crash is not None:
        after = crash["after"]
        fault = Fault(client=crash["client"], after=int(after) if after.isdigit() else after)
        restart = None if crash["for_good"] else _restart_of(scenario, crash["client"])
        if restart is not None:
            fault["restart"] = restart
        overrides["faults"] = [fault]
    return RunSpec(label, scenario, overrides or None, duty_id, _known_runs(page))


def _restart_of(scenario: Path | None, client: str) -> float | None:
    """The restart delay the scenario gives `client` after a crash: a question's crash keeps
    what the run does after one, unless it says `for good`."""
    if scenario is None:
        return None
    try:
        faults = load_scenario(scenario).get("faults") or []
    except CourseError:
        return None  # the run names the scenario's problem
    for entry in faults if isinstance(faults, list) else []:
        if isinstance(entry, dict) and entry.get("client") == client:
            restart = entry.get("restart")
            if isinstance(restart, int | float) and not isinstance(restart, bool):
                return float(restart)
    return None


RUN_FIX = "Write `run: duty ID`, `run: worked example` or `run: scenario NAME`."
CRASH_FIX = (
    "Write `crash: CLIENT after COMMAND` (the client stops right after it sends COMMAND, or "
    "`COMMAND 2` its second; `after N`: its Nth command of any kind), and it restarts as the "
    "scenario's own fault for it does; add `for good` when it never comes back."
)


# -- the fields as written -------------------------------------------------------------------------

# What each field of a question must be, as the author writes it: YAML turns `yes` into true,
# `3.00` into 3.0 and `012` into 10; a question reads each as written, or refuses it. The fields
# every question has are here; each kind lists its own (QuestionKind.fields and .entries).
TEXT, NUMBER, FLAG, MAPPING, LIST = "text", "number", "flag", "mapping", "list"
COMMON_FIELDS = MappingProxyType(
    {"id": TEXT, "run": TEXT, "with": MAPPING, "crash": TEXT, "kind": TEXT, "given": MAPPING}
)
# A number the page reads as a reader types it (the grader's Number()): ASCII digits, a point.
NUMBER_TEXT = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")
_YAML_KINDS = {"bool": "true or false", "int": "a whole number", "float": "a number",
               "null": "nothing (null)", "timestamp": "a date"}  # fmt: skip
_GUIDE = '(docs/authoring.md, "Check yourself")'


def _check_written(path: Path, node: Any, first_line: int, kind: QuestionKind | None) -> None:
    """Each field of a question (the shared ones and its kind's) is what it must be, as
    written: a text that YAML reads as another type, a number the page cannot read, an id that
    is no slug, a list item that is not a mapping, an order question's item given twice:
    CourseError at its line. A field no kind has is the checks' to name."""
    if not isinstance(node, yaml.MappingNode):
        return
    fields = {**COMMON_FIELDS, **(kind.fields if kind else {})}
    entries = kind.entries if kind else {}
    for key, value in node.value:
        name = str(key.value)
        if name in entries:
            _check_entries(path, name, value, first_line, entries[name])
        elif name in fields:
            _check_value(path, name, fields[name], value, first_line)


def _check_entries(
    path: Path, name: str, node: Any, first_line: int, fields: Mapping[str, str]
) -> None:
    line = first_line + node.start_mark.line
    if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
        return
    if not isinstance(node, yaml.SequenceNode):
        raise CourseError.at(
            path, line, f"'{name}' is not a list.", f"Write each entry as '- text: …' {_GUIDE}."
        )
    texts: dict[str, int] = {}
    for entry in node.value:
        entry_line = first_line + entry.start_mark.line
        if not isinstance(entry, yaml.MappingNode):
            raise CourseError.at(
                path,
                entry_line,
                f"this entry of '{name}' is {_kind_of(entry)}, not a mapping of fields: it "
                "would be left out of the question.",
                f"Write it as '- text: …' with its fields under it {_GUIDE}.",
            )
        for key, value in entry.value:
            kind = fields.get(str(key.value))
            if kind is not None:
                _check_value(path, f"{name}[].{key.value}", kind, value, first_line)
            if name == "items" and str(key.value) == "text" and isinstance(value, yaml.ScalarNode):
                text = " ".join(str(value.value).split())
                if text in texts:
                    raise CourseError.at(
                        path,
                        entry_line,
                        f"the item '{text[:60]}' is listed twice (first at line {texts[text]}): "
                        "an order question would have two right places for it.",
                        "List each step once.",
                    )
                texts[text] = entry_line


def _check_value(path: Path, name: str, kind: str, node: Any, first_line: int) -> None:
    line = first_line + node.start_mark.line
    field = name.replace("[]", "")
    if kind in (MAPPING, LIST):
        return  # the run reads `with:` and names what it cannot use; `given:` names its own
    if not isinstance(node, yaml.ScalarNode):
        raise CourseError.at(
            path,
            line,
            f"'{field}' is {_kind_of(node)}, not {'a number' if kind == NUMBER else 'a text'}.",
            f"Write one value on the line of '{field}:' {_GUIDE}.",
        )
    tag = node.tag.rsplit(":", 1)[-1]
    written = str(node.value)
    if kind == FLAG:
        if tag != "bool":
            raise CourseError.at(
                path, line, f"'{field}: {written}' is not true or false.", f"Write '{field}: true'."
            )
        return
    if kind == NUMBER:
        if tag in ("bool", "null") or not NUMBER_TEXT.match(written):
            raise CourseError.at(
                path,
                line,
                f"'{field}: {written}' is not a number the page can read: a reader types ASCII "
                "digits, with a point for decimals.",
                f"Write it as the reader would, like 3, 2.5 or 3.00 {_GUIDE}.",
            )
        return
    if tag != "str":
        raise CourseError.at(
            path,
            line,
            f"YAML reads '{field}: {written}' as {_YAML_KINDS.get(tag, tag)}, not as the text "
            "written.",
            f'Quote it: {field}: "{written}".',
        )
    if field == "id" and not (SLUG_TEXT.match(written) and len(written) <= SLUG_MAX_LENGTH):
        raise CourseError.at(
            path,
            line,
            f"the question id '{written[:60]}' is not a slug: the reader's record and the "
            "run's address keep answers by it.",
            "Write lowercase letters, digits and hyphens, up to 80: id: where-is-a-due-job.",
        )


def _kind_of(node: Any) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return f"'{str(node.value)[:40]}'"


def _written(node: Any, path: tuple[str | int, ...]) -> str | None:
    """The text of the scalar at `path` (keys and list indexes) as the author wrote it."""
    for part in path:
        if isinstance(part, int) and isinstance(node, yaml.SequenceNode):
            node = node.value[part] if part < len(node.value) else None
        elif isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if str(k.value) == part), None)
        else:
            return None
    return str(node.value) if isinstance(node, yaml.ScalarNode) else None


def _unreadable(page: Page, line: int, what: str, fix: str) -> CourseError:
    """A field of a question that cannot be read: `what` names it and its value."""
    assert page.source is not None
    return CourseError.at(page.source, line, f"{what} cannot be read.", fix)


def _did_you_mean(label: str, known: tuple[str, ...]) -> str:
    if not known:
        return " (it has none a question can name)"
    close = difflib.get_close_matches(label, known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f" (its runs: {', '.join(known)}){hint}"


def _known_runs(page: Page) -> tuple[str, ...]:
    """Every `run:` a question of `page` can name: its module's duties that have a run, its
    worked example, and its module's scenario files."""
    owner = page if page.kind is Kind.MODULE else page.parent
    runs = [f"duty {d.id}" for d in (owner.duties if owner else []) if d.scenarios]
    example = example_path(page)
    if example is not None and example.is_file():
        runs.append("worked example")
    scenarios = page.scenarios_folder
    if scenarios is not None and scenarios.is_dir():
        runs += sorted(f"scenario {path.stem}" for path in scenarios.glob("*.yml"))
    return tuple(runs)


# -- what the run shows --------------------------------------------------------------------------


def outcome(question: Question, trace: Trace | None = None) -> Outcome:
    """Each option's verdict on the run (or on `trace`, a variant of it) and the step that
    decides it; a number question's value; an order question's times. Options that hold by a
    claim or the seed are left to the checks (trafikist.checks.questions), which have the
    registry and the seed."""
    result = Outcome()
    if trace is None:
        trace = _trace(question, result)
    kind = KINDS.get(question.kind)
    if kind is not None:
        kind.outcome(question, trace, result)
    return result


def trace_of(question: Question) -> Trace | None:
    """The run a question is about, or None (no run, or one that cannot be made)."""
    if question.run is None or question.run.scenario is None:
        return None
    try:
        return scenario_trace(question.run.scenario, question.run.overrides)
    except CourseError:
        return None


def _trace(question: Question, result: Outcome) -> Trace | None:
    if question.run is None:
        return None
    if question.run.scenario is None:
        result.problems.append(
            (
                question.lines.get("run", question.line),
                f"the question's run '{question.run.label}' names no run of this page"
                + _did_you_mean(question.run.label, question.run.known),
            )
        )
        return None
    try:
        return scenario_trace(question.run.scenario, question.run.overrides)
    except CourseError as error:
        problem = error.problems[0]
        result.problems.append(
            (
                question.lines.get("run", question.line),
                f"the question's run cannot be made: {problem.what}",
            )
        )
        return None


def _verdict(
    text: str, trace: Trace, line: int, result: Outcome
) -> tuple[Expectation, Verdict] | None:
    try:
        expectation = parse(text)
    except ExpectationSyntaxError as error:
        result.problems.append((line, f"the expectation '{text}' cannot be read: {error}"))
        return None
    if expectation.fault:
        result.problems.append(
            (
                line,
                "a question's options run on the question's run: write its fault once, as `crash:`",
            )
        )
        return None
    return expectation, evaluate(expectation, lambda overrides: trace)


def decider(
    trace: Trace, verdict: Verdict, expectation: Expectation | None = None
) -> Decider | None:
    """The step that decides a verdict, as the reader reads it; where no step put the job
    where it is (it is where the run began it), the first step that moves it after the
    moment asked about."""
    if verdict.step is not None:
        return _step_decider(trace, verdict.step)
    if expectation is not None and expectation.form in ("in_at", "in_from", "never"):
        return _from_the_start(trace, expectation)
    if verdict.event is not None:
        event = verdict.event
        index = next((i for i, e in enumerate(trace["events"]) if e is event), None)
        return Decider(event["t"], event["client"], event["kind"], "", None, index)
    return None


def _from_the_start(trace: Trace, expectation: Expectation) -> Decider | None:
    job = expectation.fields["job"]
    steps = trace["steps"]
    start = place_of(job, trace["initial"])
    if start is None:
        return None
    after = {"in_at": "t", "in_from": "b"}.get(expectation.form)
    moment = float(trace["duration"]) if after is None else _moment(trace, expectation, after)
    for index, step in enumerate(steps):
        if step["t"] <= moment + 1e-9:
            continue
        if job not in jobs_in(step["state"], start):
            lead = f"{job} stays in {start}, where the run began it,"
            return replace(_step_decider(trace, index), lead=lead)
    where = f"{job} stays in {start}, where the run began it, to the end"
    return Decider(moment, "", "", "", None, lead=where)


def _moment(trace: Trace, expectation: Expectation, name: str) -> float:
    value = expectation.fields[name]
    return float(trace["duration"]) if value == "end" else float(value)


def _step_decider(trace: Trace, index: int) -> Decider:
    step = trace["steps"][index]
    argv = step["argv"]
    name = command_name(argv)
    # A script by its name, its keys and arguments after it (not EVALSHA, its SHA and numkeys).
    shown = " ".join([name, *argv[3:]] if name != argv[0] else argv)
    return Decider(float(step["t"]), step["client"], shown, _reply(step["reply"]), index)


def _reply(reply: Reply) -> str:
    if isinstance(reply, dict) and "error" in reply:
        return f"the error {reply['error']}"
    if reply is None:
        return "nil"
    if isinstance(reply, list):
        return "[" + ", ".join(_reply(item) for item in reply) + "]"
    return str(reply)


def _ask(question: Question, trace: Trace, result: Outcome) -> tuple[float | None, int | None]:
    """The number a question asks for, and the step that decides it."""
    match = ASK.match(" ".join(question.ask.split()))
    line = question.lines.get("ask", question.line)
    if match is None:
        result.problems.append(
            (
                line,
                f"the question asks '{question.ask}', which cannot be read "
                "(count CLIENT sends COMMAND, time JOB reaches PLACE, time CLIENT "
                "sends COMMAND)",
            )
        )
        return None, None
    if match["count_client"]:
        sent = _sends(trace, match["count_client"], match["count_command"])
        return float(len(sent)), (sent[-1] if sent else None)
    if match["job"]:
        found = _first_entry(trace, match["job"], match["place"])
        what = f"{match['job']} never reaches {match['place']} in the run"
    else:
        sent = _sends(trace, match["time_client"], match["time_command"])
        found = sent[0] if sent else None
        what = f"{match['time_client']} never sends {match['time_command']} in the run"
    if found is None:
        result.problems.append((line, what))
        return None, None
    return float(trace["steps"][found]["t"]), found


ONE_STEP_FIX = (
    'Say which time the item means ("the first time …", "the second …", "the last …"), or '
    'name a step that happens once (docs/authoring.md, "Fair questions").'
)
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
ORDINAL = re.compile(rf"\b({'|'.join(ORDINALS)})\b", re.IGNORECASE)


def _place(item: Item, trace: Trace, result: Outcome) -> tuple[float | None, Decider | None]:
    """When the run takes an item's step. An item is one step: when the step happens more than
    once, the item's text says which time ("the first time …", "the last …")."""
    match = STEP.match(" ".join(item.step.split()))
    if match is None:
        result.problems.append(
            (
                item.line,
                f"the step '{item.step}' cannot be read (JOB reaches "
                "PLACE, CLIENT sends COMMAND, CLIENT EVENT)",
            )
        )
        return None, None
    found: list[Decider]
    if match["job"]:
        entries = _entries(trace, match["job"], match["place"])
        found = [_step_decider(trace, index) for index in entries]
    elif match["client"]:
        found = [_step_decider(trace, i) for i in _sends(trace, match["client"], match["command"])]
    else:
        found = [
            Decider(float(event["t"]), event["client"], event["kind"], "", None, index)
            for index, event in enumerate(trace["events"])
            if event["client"] == match["event_client"] and event["kind"] == match["event"]
        ]
    if not found:
        result.problems.append((item.line, f"the step '{item.step}' never happens in the run"))
        return None, None
    ordinal = ORDINAL.search(item.text)
    if ordinal is None and len(found) > 1:
        times = ", ".join(f"{d.t:g}" for d in found[:6]) + (" …" if len(found) > 6 else "")
        result.problems.append(
            (
                item.line,
                f'the item "{item.text}" matches {len(found)} steps of the run (at {times} s), '
                "and does not say which it means",
            )
        )
        result.fixes[item.line] = ONE_STEP_FIX
        return None, None
    number = ORDINALS[ordinal[1].lower()] if ordinal else 1
    if number > len(found):
        result.problems.append(
            (item.line, f'the item "{item.text}" happens {len(found)} times in the run, not more')
        )
        result.fixes[item.line] = ONE_STEP_FIX
        return None, None
    chosen = found[number - 1] if number > 0 else found[-1]
    return chosen.t, chosen


def _sends(trace: Trace, client: str, command: str) -> list[int]:
    return [
        index
        for index, step in enumerate(trace["steps"])
        if step["client"] == client and command_name(step["argv"]) == command
    ]


def _first_entry(trace: Trace, job: str, place: str) -> int | None:
    """The first step that moves `job` into `place`."""
    entries = _entries(trace, job, place)
    return entries[0] if entries else None


def _entries(trace: Trace, job: str, place: str) -> list[int]:
    """Every step that moves `job` into `place`."""
    steps = trace["steps"]
    found = []
    for index, step in enumerate(steps):
        before = steps[index - 1]["state"] if index else trace["initial"]
        if job in jobs_in(step["state"], place) and job not in jobs_in(before, place):
            found.append(index)
    return found


# -- what the page shows -------------------------------------------------------------------------

CHECKS_FOLDER = "checks"  # under the assets path: the script, and each question's run
RUNS_FOLDER = "runs"


def replace_blocks(body: str, render: Callable[[int], str]) -> str:
    """The body with each `/// check` block replaced by `render(prompt, block_index)`."""
    lines = body.split("\n")
    out: list[str] = []
    index = 0
    for number, (start, _prompt, block, _first) in enumerate(blocks(body)):
        out += lines[index:start]
        out.append(render(number))
        index = start + 1 + len(block.split("\n")) + 1
    out += lines[index:]
    return "\n".join(out)


def page_context(question: Question, result: Outcome) -> dict[str, Any]:
    """What check.html.j2 shows of a question: the right answer, each why, the step of the run
    that decides it (once, when every option turns on the same step), an order question's
    groups and its starting order."""
    context: dict[str, Any] = {"q": question, "key": {}, "ties": False, "shuffled": []}
    context["steps"] = []  # an order's: (item, its step), one to a line
    steps = [d.sentence() if d else "" for d in result.deciders]
    shared = steps[0] if steps and steps[0] and len(set(steps)) == 1 else ""
    context["step"] = shared
    kind = KINDS.get(question.kind)
    if kind is not None:
        context.update(kind.page_context(question, result, steps, shared))
    if question.run is not None:
        context["run_label"] = run_label(question)
    return context


def _lower(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:]


def run_label(question: Question) -> str:
    assert question.run is not None
    scenario = question.run.scenario.stem if question.run.scenario else ""
    changes = question.run.overrides or {}
    words = [
        f"{key} {value}" for key, value in changes.items() if key not in ("faults", "processes")
    ]
    for fault in changes.get("faults", []):
        again = f", restarts {fault['restart']:g} s later" if "restart" in fault else " for good"
        words.append(f"{fault['client']} crashes after {_crash_point(fault['after'])}{again}")
    if "processes" in changes:
        words.append("sending: " + (", ".join(changes["processes"]) or "none"))
    label = f"On the model · {question.run.label} · scenario {scenario}"
    return label + (f" · with {', '.join(words)}" if words else "")


def _crash_point(after: int | str) -> str:
    """A fault's `after` in words: `3` is command 3, `EXPIRE 2` its second EXPIRE."""
    if isinstance(after, int):
        return f"command {after}"
    command, _, count = str(after).partition(" ")
    number = int(count) if count.isdigit() else 1
    nth = next((word for word, n in ORDINALS.items() if n == number), f"number {number}")
    return f"its {nth} {command}"


def _scrambled(count: int, seed: str) -> list[int]:
    """A starting order that is not the run's (the same on every build): the items turned by
    a step the question's id gives."""
    if count < 2:
        return list(range(count))
    turn = 1 + sum(map(ord, seed)) % (count - 1)
    order = [(index + turn) % count for index in range(count)]
    return order[::-1] if order == sorted(order) else order


def run_fragment(question: Question, result: Outcome, choices_href: str) -> str | None:
    """The question's run as the page fetches it on "Show the run": the timeline and the trace,
    the row that decides the answer marked (the right option's, else the first that decides
    anything); the model's choices it relies on link at `choices_href` + the choice's id."""
    trace = trace_of(question)
    if trace is None:
        return None
    right = None
    if question.kind == "choice":
        index = next((i for i, o in enumerate(question.options) if o.right), None)
        if index is not None and index < len(result.deciders):
            right = result.deciders[index]
    found = [d for d in result.deciders if d is not None]
    chosen = right or (found[0] if found else None)
    decides = None
    if chosen is not None and chosen.step is not None:
        decides = ("step", chosen.step)
    elif chosen is not None and chosen.event is not None:
        decides = ("event", chosen.event)
    # The page may show the same scenario's run in a duty's panel or a worked example: the
    # question's regions are named after the question.
    of = f", for the question: {plain_text(question.prompt)}"
    markup = render_result_html(trace, CHOICE_IDS, decides, choices_href, of)
    return f'<div class="tk-run tk-check__run-shown">{markup}</div>'


SPAN = re.compile(r"\[(?P<text>[^\]]*)\]\{[^}]*\}")


def plain_text(markdown_text: str) -> str:
    """A prompt's words without its Markdown: a span's text without its `{…}`, no code marks
    or emphasis."""
    return re.sub(r"[`*]", "", SPAN.sub(r"\g<text>", markdown_text)).strip()


def live_query(question: Question) -> str:
    """The query of the widget's shared URL that runs a question live, its controls set as the
    question sets them (`?duty=ID&wire=6`: trafikist.model_view.controls.shared_query), or ""
    when the widget cannot: the run is not a duty's, or changes what no control sets."""
    run = question.run
    if run is None or not run.duty or run.scenario is None:
        return ""
    query = shared_query(run.duty, run.overrides or {})
    return urlencode(query) if query is not None else ""


# -- the kinds of question ---------------------------------------------------------------------
#
# One kind, one unit: its class here (its fields, its outcome on a run, its page context and its
# check), its part of the template (templates/check/KIND.html.j2) and its entry in the grader's
# table (widgets/checks/grade.mjs, KINDS, keyed by the `data-kind` the page writes). A new kind
# is a subclass registered with `register` (docs/architecture.md, "Where a new part goes").

# How the checks judge an option that holds by a registry claim or a seed quote (the checks
# have the registry and the seed; this layer does not): (holds, what shows it), holds None when
# it cannot be checked.
type FactCheck = Callable[[Option], tuple[bool | None, str]]

FIX_KEY = (
    "Mark the option the run (or the registry, or the seed) bears out as `right: true`, and "
    'correct the others (docs/authoring.md, "Check yourself").'
)


class QuestionKind:
    """What one kind of question is: its name (`kind:`), its own fields, and what it does."""

    name: ClassVar[str] = ""
    # Its own fields, beside COMMON_FIELDS, each with what it is written as (TEXT, NUMBER,
    # FLAG, MAPPING or LIST): the reader refuses another at its line, the checks a field no
    # kind has.
    fields: ClassVar[Mapping[str, str]] = MappingProxyType({})
    # The fields of its list entries, by list (`options`: text, why …), written as above.
    entries: ClassVar[Mapping[str, Mapping[str, str]]] = MappingProxyType({})
    # Its part of the template, when it is not templates/check/NAME.html.j2 of this package.
    part: ClassVar[str] = ""

    def outcome(self, question: Question, trace: Trace | None, result: Outcome) -> None:
        """What the run (or a variant of it) shows of the question, into `result`."""

    def page_context(
        self, question: Question, result: Outcome, steps: list[str], shared: str
    ) -> dict[str, Any]:
        """What its part of the template and the grader read: `key` (its `data-*`),
        `answer`, `whys` and, where it differs from the shared one, `step`."""
        return {}

    def check(self, question: Question, result: Outcome, facts: FactCheck) -> list[Problem]:
        """Its key proved: what fails the build."""
        return []

    def changed(self, question: Question, result: Outcome) -> str:
        """What a variant's run answers when it is not the question's answer; "" when it is."""
        return ""


KINDS: dict[str, QuestionKind] = {}
PARTS: dict[str, str] = {}  # the template parts kinds bring with them, by template name


def register(kind: QuestionKind) -> QuestionKind:
    """Make `kind` a kind of question: `kind: NAME` in a block, its check in every build, its
    part in the page (and, for the page to grade it, an entry in grade.mjs's KINDS)."""
    KINDS[kind.name] = kind
    if kind.part:
        PARTS[f"check/{kind.name}.html.j2"] = kind.part
    return kind


def _at(question: Question, field_name: str, what: str, fix: str) -> Problem:
    return Problem(question.file, question.lines.get(field_name, question.line), f"{what}.", fix)


def _rounded(value: float, decimals: int) -> Decimal:
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals))


class ChoiceKind(QuestionKind):
    """Options, one of them right: each holds by an expectation on the run, a registry claim
    or a seed quote."""

    name = "choice"
    fields = MappingProxyType({"options": LIST})
    entries = MappingProxyType(
        {
            "options": MappingProxyType(
                {
                    "text": TEXT,
                    "why": TEXT,
                    "right": FLAG,
                    "expect": TEXT,
                    "claim": TEXT,
                    "seed": TEXT,
                }
            )
        }
    )

    def outcome(self, question: Question, trace: Trace | None, result: Outcome) -> None:
        for option in question.options:
            if option.expect and trace is not None:
                found = _verdict(option.expect, trace, option.line, result)
                if found is None:
                    result.holds.append(False)
                    result.deciders.append(None)
                    continue
                expectation, verdict = found
                if verdict.unrunnable:
                    what = f"the expectation '{option.expect}' cannot be run: {verdict.why}"
                    result.problems.append((option.line, what))
                result.holds.append(verdict.holds)
                result.deciders.append(decider(trace, verdict, expectation))
            else:
                result.holds.append(option.right)  # checked against the registry or the seed
                result.deciders.append(None)

    def page_context(
        self, question: Question, result: Outcome, steps: list[str], shared: str
    ) -> dict[str, Any]:
        right = next((i for i, option in enumerate(question.options) if option.right), 0)
        whys = []
        for i, option in enumerate(question.options):
            step = "" if shared else (steps[i] if i < len(steps) else "")
            whys.append((option.text, " ".join(filter(None, [option.why, step]))))
        return {
            "key": {"right": right},
            "answer": question.options[right].text if question.options else "",
            "whys": whys,
        }

    def check(self, question: Question, result: Outcome, facts: FactCheck) -> list[Problem]:
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
                        "Name the run: `run: duty ID`, `run: worked example` or "
                        "`run: scenario NAME`.",
                    )
                )
                continue
            if option.expect:
                found = result.deciders[number] if number < len(result.deciders) else None
                shown = found.sentence() if found else ""
                why = _lower(shown) if shown else "the run shows otherwise"
                verdicts.append((option, result.holds[number], why))
                continue
            holds, why = facts(option)
            if holds is None:
                fix = (
                    "Write a claim as the registry's claims are written (docs/registry.md)."
                    if option.claim
                    else "Quote the seed word for word (registry/seed.txt)."
                )
                problems.append(Problem(question.file, option.line, why, fix))
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

    def changed(self, question: Question, result: Outcome) -> str:
        right = next((i for i, option in enumerate(question.options) if option.right), None)
        if right is None or right >= len(result.holds):
            return ""
        others = [
            question.options[i].text
            for i, holds in enumerate(result.holds)
            if holds and i != right and question.options[i].expect
        ]
        if not result.holds[right]:
            return f'"{others[0]}" holds instead' if others else "no option holds"
        return f'"{others[0]}" holds too' if others else ""


class NumberKind(QuestionKind):
    """How many, or at what time: the model counts or times it, and the reader's number is
    graded at the answer's precision."""

    name = "number"
    fields = MappingProxyType(
        {"ask": TEXT, "answer": NUMBER, "unit": TEXT, "mistakes": LIST, "why": TEXT}
    )
    entries = MappingProxyType({"mistakes": MappingProxyType({"value": NUMBER, "why": TEXT})})

    def outcome(self, question: Question, trace: Trace | None, result: Outcome) -> None:
        if trace is None:
            return
        value, step = _ask(question, trace, result)
        result.value = value
        result.deciders.append(_step_decider(trace, step) if step is not None else None)

    def page_context(
        self, question: Question, result: Outcome, steps: list[str], shared: str
    ) -> dict[str, Any]:
        unit = f" {question.unit}" if question.unit else ""
        return {
            "key": {"answer": question.answer, "decimals": question.decimals},
            "answer": f"{question.answer}{unit}",
            "step": " ".join(filter(None, steps)),
            "whys": [
                (f"{question.answer}{unit}", question.why),
                *((f"{m.value}{unit}", m.why) for m in question.mistakes),
            ],
        }

    def check(self, question: Question, result: Outcome, facts: FactCheck) -> list[Problem]:
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

    def changed(self, question: Question, result: Outcome) -> str:
        if result.value is None or not question.answer:
            return ""
        shown = _rounded(result.value, question.decimals)
        return "" if shown == Decimal(question.answer) else f"the model gives {shown}"


class OrderKind(QuestionKind):
    """Items in the order the run takes them, each one step of the run."""

    name = "order"
    fields = MappingProxyType({"items": LIST, "why": TEXT})
    entries = MappingProxyType({"items": MappingProxyType({"text": TEXT, "step": TEXT})})

    def outcome(self, question: Question, trace: Trace | None, result: Outcome) -> None:
        if trace is None:
            return
        for item in question.items:
            time, placed = _place(item, trace, result)
            result.times.append(time)
            result.deciders.append(placed)

    def page_context(
        self, question: Question, result: Outcome, steps: list[str], shared: str
    ) -> dict[str, Any]:
        times = result.times
        groups: list[int] = []
        for index, time in enumerate(times):
            same = index > 0 and time is not None and time == times[index - 1]
            groups.append(groups[-1] if same else (groups[-1] + 1 if groups else 0))
        pairs = zip(question.items, result.deciders, strict=False)
        # Each item's step, one to a line: an order is read as a list, not one paragraph.
        each = [(item.text, _lower(d.sentence())) for item, d in pairs if d]
        return {
            "key": {"order": " ".join(map(str, groups))},
            "ties": len(set(groups)) < len(groups),
            "shuffled": _scrambled(len(question.items), question.id),
            "answer": " → ".join(item.text for item in question.items),
            "steps": each,
            "step": " ".join(f"{text}: {sentence}" for text, sentence in each),
            "whys": [("The run's order", question.why)],
        }

    def check(self, question: Question, result: Outcome, facts: FactCheck) -> list[Problem]:
        if len(question.items) < 2 or not question.why:
            return [
                _at(
                    question,
                    "items",
                    f"the question '{question.id}' needs two items or more and a why",
                    "List `items:` (text and step) and `why:`.",
                )
            ]
        return [
            Problem(
                question.file,
                question.items[number].line,
                what,
                "List the items in the order the run takes them.",
            )
            for number, what in _out_of_order(question, result.times)
        ]

    def changed(self, question: Question, result: Outcome) -> str:
        wrong = _out_of_order(question, result.times)
        if not wrong:
            return ""
        number = wrong[0][0]
        first, second = question.items[number - 1].text, question.items[number].text
        return f'"{second}" comes before "{first}"'


def _out_of_order(question: Question, times: list[float | None]) -> list[tuple[int, str]]:
    found = []
    for number in range(1, len(times)):
        before, after = times[number - 1], times[number]
        if before is not None and after is not None and after < before:
            first, second = question.items[number - 1], question.items[number]
            found.append(
                (
                    number,
                    f"the items of '{question.id}' are not in the run's order: "
                    f'"{second.text}" happens at {after:g} s, before '
                    f'"{first.text}" at {before:g} s',
                )
            )
    return found


for _kind in (ChoiceKind(), NumberKind(), OrderKind()):
    register(_kind)
