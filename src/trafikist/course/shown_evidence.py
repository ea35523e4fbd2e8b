"""The evidence of a page as the reader meets it: "How we know".

Each sentence a check proved (trafikist.course.evidence: what the check read, never an author's
words beside it) gets a number in reading order and a mark after it in the text: an empty
element that holds its place (`<i id="tk-m12"></i>`). The page's evidence, one kind per line
for each number, is a file of its own (`page_data`, written by the build beside the page's
scripts), which the page's script loads when the reader first turns the switch "How we know"
on; it then makes each mark a button that opens its evidence in a popover. A written page's
title and summary are its sentences too (the build checks them as it checks its text): the
title's marks stand at the end of its heading, and the summary, which the course's lists show
but the page did not, stands under the title with its marks while the switch is on (hidden
before). Module 04's page has a weight budget: before the switch, the page carries the marks,
the switch and that summary only. A trace row
that decides an expectation lists the sentences it proves. The "How we know" page of a module
(trafikist.course.how_we_know) lists them all, with or without JavaScript.

The mark is written into the Markdown as a token (`MARK_OPEN`, a number, `MARK_CLOSE`: brackets
no author types), which the registry's inline extension turns into the element under either
engine, in the page's text and in the generated parts (a duty's rows, a question) alike.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from trafikist.course.evidence import (
    CheckedSentence,
    CommandTableField,
    DocsQuote,
    Evidence,
    ModelChoice,
    ModelStep,
    RegistryField,
    SeedQuote,
    TranscriptStep,
)
from trafikist.course.examples import run_stem
from trafikist.course.markdown.registry_inline import MARK_CLOSE, MARK_ID, MARK_OPEN
from trafikist.course.questions import Question, page_questions
from trafikist.course.structure import Duty, Page
from trafikist.course.syntax import plain
from trafikist.registry.rows import command_slug

ROW_KEY = "{run}-{kind}{index}"  # a row of that run's trace: its step or its event
TRANSCRIPT_ID = "tk-transcript-{name}"  # a transcript the page shows
# A body line where no mark can stand: a heading, a block's label (both labels, not prose).
UP_NEXT_ORDER = {"previous": 0, "next": 1}  # as up_next.html.j2 shows them
HEADER_ORDER = {"title": 0, "summary": 1}  # as header.html.j2 shows them
LABEL_LINE = re.compile(r"[ \t]*(?:#{1,6}\s|/{3,})")


@dataclass(frozen=True)
class Kind:
    key: str
    name: str  # as a line of the evidence names it
    counted: str  # as the switch counts it: "14 from the published module"


def kinds(valkey_version: str) -> tuple[Kind, ...]:
    """The kinds of evidence, in the order a line and a count show them."""
    return (
        Kind("seed", "The published module", "from the published module"),
        Kind("registry", "The registry", "on the registry"),
        Kind("valkey", f"Valkey {valkey_version}", f"on Valkey {valkey_version}"),
        Kind("model", "The model", "on the model"),
        Kind("choice", "The model's choice", "marked as the model's own choice"),
    )


def kind_of(evidence: Evidence) -> str:
    match evidence:
        case SeedQuote():
            return "seed"
        case RegistryField():
            return "registry"
        case TranscriptStep() | CommandTableField() | DocsQuote():
            return "valkey"
        case ModelStep():
            return "model"
        case ModelChoice():
            return "choice"


def own_words(sentence: CheckedSentence) -> bool:
    """True when the sentence is the seed's own words: one of its seed sentences holds it."""

    def folded(text: str) -> str:
        return " ".join(text.replace("`", "").replace("’", "'").split()).casefold()

    said = folded(plain(sentence.text)).rstrip(".!?;:")
    return bool(said) and any(
        said in folded(item.quote) for item in sentence.evidence if isinstance(item, SeedQuote)
    )


def kinds_of(sentence: CheckedSentence) -> list[str]:
    return list(dict.fromkeys(kind_of(evidence) for evidence in sentence.evidence))


def census(sentences: Iterable[CheckedSentence]) -> dict[str, int]:
    """How many sentences have evidence of each kind (a sentence counts once in each of its
    kinds), and "all": how many sentences."""
    counts = {"all": 0}
    for sentence in sentences:
        counts["all"] += 1
        for key in kinds_of(sentence):
            counts[key] = counts.get(key, 0) + 1
    return counts


def counts_text(counts: dict[str, int], valkey_version: str) -> str:
    """ "42 checked sentences: 14 from the published module, 9 on the registry, …"."""
    total = counts.get("all", 0)
    head = f"{total} checked sentence{'' if total == 1 else 's'}"
    parts = [
        f"{counts[kind.key]} {kind.counted}"
        for kind in kinds(valkey_version)
        if counts.get(kind.key)
    ]
    return f"{head}: {', '.join(parts)}" if parts else head


# -- where a sentence stands -----------------------------------------------------------------------


@dataclass(frozen=True)
class Numbered:
    number: int
    sentence: CheckedSentence
    # Its mark stands in the page's text (not in a label); when not, its number is 0.
    marked: bool

    @property
    def mark_id(self) -> str:
        return MARK_ID.format(number=self.number)


def _split_anchor(anchor: str) -> tuple[str, int]:
    where, _, offset = anchor.rpartition(":")
    return where, int(offset)


def reading_order(page: Page, sentences: Iterable[CheckedSentence]) -> list[CheckedSentence]:
    """The sentences in the order the reader meets them: the page's front matter, its text
    with each duty's rows where the duties stand and each question where it is asked, then
    the texts of "Up next"."""
    body = page.body
    duties_at = body.find("/// duties")
    up_next_at = body.find("/// up-next")
    duty_order = {duty.id: index for index, duty in enumerate(page.duties)}
    asked = {question.id: question for question in page_questions(page)}

    def key(sentence: CheckedSentence) -> tuple[int, int, int, int]:
        where, offset = _split_anchor(sentence.anchor)
        # By where it ends, as its mark stands: a span inside a sentence comes before it.
        offset += len(sentence.text)
        part, _, rest = where.partition(":")
        if part == "body":
            return (offset, 0, 0, 0)
        if part == "meta":
            if rest.startswith("up_next"):
                # "Previous" stands before "next", whatever the front matter's order.
                order = UP_NEXT_ORDER.get(rest.removeprefix("up_next."), len(UP_NEXT_ORDER))
                return (up_next_at if up_next_at >= 0 else len(body), 0, order, offset)
            # The header: the title, then the summary (header.html.j2).
            return (-1, 0, HEADER_ORDER.get(rest, len(HEADER_ORDER)), offset)
        if part == "duty":
            duty, _, field = rest.partition(":")
            fields = Duty.TEXT_FIELDS
            position = fields.index(field) if field in fields else len(fields)
            return (max(duties_at, 0), duty_order.get(duty, 0), position, offset)
        if part == "question":
            question, _, text = rest.partition(":")
            found = re.search(rf"^id:\s*{re.escape(question)}\s*$", body, re.M)
            return (
                found.start() if found else len(body),
                1,
                _shown_at(asked, question, text),
                offset,
            )
        return (len(body) + 1, 0, 0, offset)

    return sorted(sentences, key=key)


def _shown_at(asked: dict[str, Question], question: str, part: str) -> int:
    """Where a part of a question stands in it: its prompt, then its explanations as the page
    lists them (widgets/checks): the question's own first, then its options' and mistakes'."""
    if not part.startswith("why:"):
        return 0
    index = int(part.split(":")[1])
    found = asked.get(question)
    if found is not None and found.why and index == len(found.whys) - 1:
        return 1
    return index + 2


def number(page: Page, sentences: Iterable[CheckedSentence]) -> list[Numbered]:
    """The page's checked sentences in reading order; each whose mark can stand in the text
    is numbered from 1 (the others, 0, are on the module's "How we know" page only)."""
    numbered = []
    count = 0
    for sentence in reading_order(page, sentences):
        marked = _markable(page, sentence)
        count += marked
        numbered.append(Numbered(count if marked else 0, sentence, marked))
    return numbered


def _markable(page: Page, sentence: CheckedSentence) -> bool:
    where, offset = _split_anchor(sentence.anchor)
    if where == "meta:title":
        # Its marks stand at the title's end: the title shows as text, its spans' words only.
        return True
    if where == "meta:summary":
        return page.summary[offset : offset + len(sentence.text)] == sentence.text
    if where.startswith(("question:", "meta:up_next.")):
        # A question's prompt and explanations, and "Up next"'s texts, are marked where they
        # render. (The feedback copies an explanation: the copy keeps its marks, not their ids:
        # widgets/checks/grade.mjs.)
        return True
    if where == "body":
        end = offset + len(sentence.text)
        if page.body[offset:end] != sentence.text:
            return False
        line_start = page.body.rfind("\n", 0, offset) + 1
        return LABEL_LINE.match(page.body, line_start) is None
    if where.startswith("duty:"):
        _, duty_id, field = where.split(":", 2)
        duty = next((duty for duty in page.duties if duty.id == duty_id), None)
        return (
            duty is not None
            and field != "label"
            and duty.text(field)[offset : offset + len(sentence.text)] == sentence.text
        )
    return False


def _token(number: int) -> str:
    return f"{MARK_OPEN}{number}{MARK_CLOSE}"


def _with_marks(text: str, marks: list[tuple[int, int]]) -> str:
    """`text` with the token of each (end offset, number) inserted there."""
    for end, index in sorted(marks, reverse=True):
        text = text[:end] + _token(index) + text[end:]
    return text


def marked_body(page: Page, numbered: list[Numbered]) -> str:
    """The page's body with each of its checked sentences' marks after it."""
    marks = []
    for entry in numbered:
        where, offset = _split_anchor(entry.sentence.anchor)
        if entry.marked and where == "body":
            marks.append((offset + len(entry.sentence.text), entry.number))
    return _with_marks(page.body, marks)


def _marks_in(numbered: list[Numbered], prefix: str) -> dict[str, list[tuple[int, int]]]:
    """The marks of the texts whose anchor starts with `prefix`, by the rest of the name."""
    marks: dict[str, list[tuple[int, int]]] = {}
    for entry in numbered:
        where, offset = _split_anchor(entry.sentence.anchor)
        if entry.marked and where.startswith(prefix):
            end = offset + len(entry.sentence.text)
            marks.setdefault(where.removeprefix(prefix), []).append((end, entry.number))
    return marks


def marked_question(question: Question, numbered: list[Numbered]) -> Question:
    """The question with the marks of its checked sentences in its prompt and explanations
    (`why:N` counts them as `Question.whys` lists them)."""
    marks = _marks_in(numbered, f"question:{question.id}:")
    if not marks:
        return question
    options, mistakes, why = list(question.options), list(question.mistakes), question.why
    slots = [("option", i) for i, option in enumerate(options) if option.why]
    slots += [("mistake", i) for i, mistake in enumerate(mistakes) if mistake.why]
    slots += [("why", 0)] if why else []
    for number, (kind, index) in enumerate(slots):
        found = marks.get(f"why:{number}")
        if not found:
            continue
        if kind == "option":
            options[index] = replace(options[index], why=_with_marks(options[index].why, found))
        elif kind == "mistake":
            mistakes[index] = replace(mistakes[index], why=_with_marks(mistakes[index].why, found))
        else:
            why = _with_marks(why, found)
    return replace(
        question,
        prompt=_with_marks(question.prompt, marks.get("prompt", [])),
        options=tuple(options),
        mistakes=tuple(mistakes),
        why=why,
    )


def marked_up_next(texts: dict[str, str], numbered: list[Numbered]) -> dict[str, str]:
    """The texts of "Up next" with the marks of their checked sentences."""
    marks = _marks_in(numbered, "meta:up_next.")
    return {key: _with_marks(str(text), marks.get(key, [])) for key, text in texts.items()}


def marked_header(page: Page, numbered: list[Numbered]) -> tuple[list[str], str]:
    """The ids of the title's marks (they stand at its end) and the page's summary with the
    marks of its checked sentences ("" when it has none). A written page shows its summary
    under its title while the switch is on (header.html.j2, widgets/evidence/show.mjs): the
    course's lists show it elsewhere, and the page itself nowhere else."""
    title = [
        entry.mark_id
        for entry in numbered
        if entry.marked and entry.sentence.anchor.startswith("meta:title:")
    ]
    marks = _marks_in(numbered, "meta:").get("summary")
    return title, _with_marks(page.summary, marks) if marks else ""


def marked_duties(page: Page, numbered: list[Numbered]) -> list[Duty]:
    """The page's duties with the marks of their checked sentences in their rows."""
    marks: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for entry in numbered:
        where, offset = _split_anchor(entry.sentence.anchor)
        if entry.marked and where.startswith("duty:"):
            _, duty_id, field = where.split(":", 2)
            marks.setdefault((duty_id, field), []).append(
                (offset + len(entry.sentence.text), entry.number)
            )
    duties = []
    for duty in page.duties:
        for field in Duty.TEXT_FIELDS:
            if (duty.id, field) in marks:
                marked = _with_marks(duty.text(field), marks[(duty.id, field)])
                duty = replace(duty, **{field: marked})  # type: ignore[arg-type]  # a text field
        duties.append(duty)
    return duties


# -- the evidence, one kind per line ------------------------------------------------------------


def row_key(step: ModelStep, event_index: int | None = None) -> str | None:
    """The trace row that decides `step` on the page's run of its scenario; None when the step
    names no row, or its run adds a fault the page's baked run does not have."""
    if " · " in step.run:
        return None
    if step.step is not None:
        return ROW_KEY.format(run=run_stem(step.run), kind="s", index=step.step)
    if event_index is not None:
        return ROW_KEY.format(run=run_stem(step.run), kind="e", index=event_index)
    return None


@dataclass
class EvidenceHtml:
    """How a line of evidence is written (HTML), given what the page holds: the traces it
    shows (each row's place in its table), the transcripts it shows, and Markdown for a
    sentence."""

    valkey_version: str
    inline: Callable[[str], str]  # a sentence's Markdown as inline HTML
    # A row's key: its place in its table, the table's rows, and the id of what holds the run
    # (a duty's panel, a worked example).
    rows: dict[str, tuple[int, int, str]]
    transcripts: set[str]  # names of the transcripts the page shows
    event_index: Callable[[ModelStep], int | None] = lambda step: None
    page: str = ""  # on another page: `id:PAGE` before a link into the sentence's page

    def line(self, evidence: Evidence, own: bool = False, linked: set[str] | None = None) -> str:
        """One line of evidence. Its kind's name ("The published module") is the stylesheet's
        (`data-kind`, widgets/evidence/shown.css); `own`, a seed
        sentence that is the sentence itself, is not quoted twice; `linked`, the trace rows the
        sentence's lines above link to (each row is linked once, _model)."""
        kind = kind_of(evidence)
        # The version is the command table's: Valkey's lines name it themselves.
        named = (
            f'<span class="tk-evidence__kind">Valkey {html.escape(self.valkey_version)}</span> · '
            if kind == "valkey"
            else ""
        )
        return f'<li data-kind="{kind}">{named}{self._body(evidence, own, linked)}</li>'

    def _body(self, evidence: Evidence, own: bool = False, linked: set[str] | None = None) -> str:
        e = html.escape
        match evidence:
            case SeedQuote(quote=quote):
                # Now that the evidence loads when asked for, the quote is always there.
                return f"{'word for word: ' if own else ''}<q>{e(quote)}</q>"
            case RegistryField(command=command, field=field, value=value):
                if command.startswith("EMQ.") and "*" not in command:
                    where = (
                        f'<a class="tk-verb" href="id:command-{command_slug(command)}">'
                        f"<code>{e(command)}</code></a>"
                    )
                elif command:
                    where = f"<code>{e(command)}</code>"
                else:
                    where = "the library manifest"
                return f"{where} · {e(field)} = <code>{e(value)}</code>"
            case TranscriptStep(transcript=name, step=step, command=command, reply=reply):
                shown = (
                    f'<a href="{self.page}#{TRANSCRIPT_ID.format(name=name)}">{e(name)}</a>'
                    if name in self.transcripts
                    else e(name)
                )
                return (
                    f"step {step} of the transcript {shown}: <code>{e(command)}</code> → "
                    f'<code class="tk-evidence__reply">{e(reply) or "(no reply yet)"}</code>'
                )
            case CommandTableField(command=command, field=field, value=value):
                return (
                    f"the command table: <code>{e(command)}</code> · {e(field)} = "
                    f"<code>{e(value)}</code>"
                )
            case DocsQuote(path=path, quote=quote, commit=commit, url=url):
                return f'<q>{e(quote)}</q> <a href="{e(url)}">{e(path)} at {e(commit[:7])}</a>'
            case ModelStep():
                return self._model(evidence, linked)
            case ModelChoice(id=choice_id, sentence=sentence):
                return (
                    f'<a class="tk-choice__mark" data-no-badge '
                    f'href="id:model-choices#choice-{e(choice_id)}">{e(choice_id)}</a>: '
                    f"{e(sentence)}"
                )

    def _model(self, step: ModelStep, linked: set[str] | None = None) -> str:
        e = html.escape
        text = f"<code>{e(step.predicate)}</code> on <code>{e(step.run)}</code>"
        if step.t is not None:
            text += f": at {step.t:g} s, "
            if step.command is not None:
                text += (
                    f"{e(step.client or '')} sent <code>{e(step.command)}</code>, "
                    f"reply <code>{e(step.reply or '')}</code>"
                )
            elif step.event is not None:
                text += f"{e(step.client or '')}: {e(step.event)}"
        else:
            text += ": no step changes it in the run"
        if step.place is not None:
            text += f"; then in {e(step.place)}"
        key = row_key(step, self.event_index(step))
        if key is not None and key in self.rows and linked is not None and key in linked:
            # Several steps of a sentence may turn on one row (a move and the job it moved):
            # one link to it is enough.
            text += " · the same row as above"
        elif key is not None and key in self.rows:
            # The page's script opens the trace at the row, marks it and lists in it the
            # sentences it proves; without it the link leads to the run.
            if linked is not None:
                linked.add(key)
            place, count, holder = self.rows[key]
            text += (
                f' · <a class="tk-evidence__row" href="{self.page}#{holder}" data-row="{place}" '
                f'data-rows="{count}">the row in the trace</a>'
            )
        return text + "."

    def lines(self, sentence: CheckedSentence) -> str:
        """A sentence's evidence, one kind per line (a seed sentence that is the sentence
        itself is not quoted twice)."""
        own = own_words(sentence)
        linked: set[str] = set()
        lines = "".join(self.line(evidence, own, linked) for evidence in sentence.evidence)
        return f'<ul class="tk-evidence__lines">{lines}</ul>'


def page_data(
    numbered: list[Numbered], lines: Callable[[CheckedSentence], str], valkey_version: str
) -> dict[str, object]:
    """What the page's script loads on the first "How we know": the counts the switch shows,
    and each number's evidence (HTML, its `id:` links still to resolve)."""
    counts = counts_text(census(entry.sentence for entry in numbered), valkey_version)
    return {
        "counts": counts,
        "marks": {str(entry.number): lines(entry.sentence) for entry in numbered},
    }
