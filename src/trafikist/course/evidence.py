"""What a check verified, kept as data: the evidence behind each checked sentence.

A check that proves a sentence (the seed's provenance, a registry claim, a Valkey proof, an
expectation run on the model, a choice marker) records what it read, in one of these frozen
dataclasses, beside the problems it finds; `CheckedSentence` carries a sentence and all of its
evidence. The page shows exactly this ("Show the evidence", the foot list, the "How we know"
page): never text an author writes beside a sentence, so a proof that changes changes the page.

Dataclasses only, no logic, standard library only: the checks fill them (trafikist.checks),
the renderer shows them, and the questions reuse `ModelStep` for an option's deciding step.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeedQuote:
    """The published module's words: the seed sentence a sentence is, or follows from."""

    quote: str


@dataclass(frozen=True)
class RegistryField:
    """A fact of trafikey's registry or of the library manifest that a claim checked, as the
    registry holds it: a row's field (`EMQ.PROMOTE`, `flags`, `write`); for a claim about
    rows that do not exist, the glob and `absent`; for a default of the library manifest,
    `command` is empty and `field` is `default NAME`."""

    command: str
    field: str
    value: str


@dataclass(frozen=True)
class TranscriptStep:
    """A step of a Valkey transcript the page shows: the command and the reply as the runner
    recorded them from Valkey (the tests replay every cited step on a real server)."""

    transcript: str  # the command list's name, transcripts/NAME.txt
    step: int  # from 1, as the proof names it
    command: str  # as the transcript prints it, its prompt included: `> TTL k`, `A< `
    reply: str  # as the transcript prints it


@dataclass(frozen=True)
class CommandTableField:
    """A field of the pinned Valkey's command table (registry/valkey/commands.json)."""

    command: str
    field: str
    value: str


@dataclass(frozen=True)
class DocsQuote:
    """Words of Valkey's documentation, pinned with the commit they were read at
    (registry/valkey/docs.yml); `url` is the page at that commit."""

    path: str
    quote: str
    commit: str
    url: str


@dataclass(frozen=True)
class ModelStep:
    """What decides a predicate on a run of the model: the step (or event) that made it true
    or false (trafikist.course.predicates.evaluate's `Verdict.step`/`event`), and where the
    job stood after it. Fields the deciding step does not have are None: a predicate that no
    step decides (`j5 never reaches pending` when none does) has no step."""

    run: str  # the run: its scenario's name, and a fault the predicate adds (`given …`)
    predicate: str  # as written
    holds: bool
    t: float | None = None
    client: str | None = None
    command: str | None = None  # the command as the trace shows it
    reply: str | None = None  # the reply as the trace shows it
    place: str | None = None  # where the predicate's job stood after the step
    step: int | None = None  # the trace step's index, from 0 (Verdict.step)
    event: str | None = None  # an event that decides it instead of a step: "kind: text"


@dataclass(frozen=True)
class ModelChoice:
    """A value the model chose where the course gives none (trafikist.model.choices)."""

    id: str
    sentence: str


type Evidence = (
    SeedQuote
    | RegistryField
    | TranscriptStep
    | CommandTableField
    | DocsQuote
    | ModelStep
    | ModelChoice
)


@dataclass(frozen=True)
class CheckedSentence:
    """A sentence (or a marked span of one) and everything its checks verified.

    `file` and `line` are where the author wrote it; `text` is the sentence as written
    (Markdown; a marked span whole, `[…]{claim: …}`, as the page renders it); `anchor`
    names where it stands in the text it came from, so the page can mark it: `body:OFFSET`
    in the page's body, `duty:ID:FIELD:OFFSET` in a duty's field, `meta:KEY:OFFSET` in a
    field of the front matter (`meta:up_next.KEY:OFFSET` in "Up next"),
    `question:ID:PART:OFFSET` in a question (PART: `prompt`, `option:N`, `item:N`, `why:N`)
    (offsets of the sentence's first character)."""

    file: str
    line: int
    text: str
    anchor: str
    evidence: tuple[Evidence, ...]
