"""Valkey statements: every sentence that says how a Valkey command, a Modules API function or a
command flag behaves carries a proof the build checks, as every trafikey sentence cites the
seed (trafikist.checks.provenance).

A sentence names Valkey when, outside its marked spans, it names a command of Valkey's command
table (BLPOP, XGROUP CREATE; `TTL` and `ACL` only as commands, not as nouns), a Modules API
function or constant (`ValkeyModule_BlockClientOnKeys`, `VALKEYMODULE_OK`) or a command flag
(the `blocking` flag). It needs a proof unless it is a label (a heading, a caption, a block's
title), or the seed's own words, or cites seed sentences that name the same commands. A proof is
a marked span around the statement, `[sentence]{valkey: PROOF; PROOF …}`, each PROOF one of:

    03-failure-count#5 replies 60          a step of a transcript the page shows: its reply
    02-a-wake-carries-no-work#3 shows "blocked_clients:1"      … or a text in its reply
    BLPOP.flags has blocking               Valkey's command table (registry/valkey/commands.json):
                                           =, !=, has, lacks, like the registry's claims
    docs topics/modules-api-ref.md "It is updated in the server cron job"
                                           a pinned quote of Valkey's documentation
                                           (registry/valkey/docs.yml), word for word

The tests replay every transcript on a real Valkey and compare it with the page, so a step's
reply is Valkey's; and they compare the command table with the live server's.

The transcripts a page shows, which a proof's step cites, are trafikist.checks.transcripts'. A
link to a command's page (`https://valkey.io/commands/NAME/`) names a command of the table.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trafikist.base.errors import Problem
from trafikist.checks.claims import OPERATOR, words_hold
from trafikist.checks.inputs import PageCheck, proving, source_file, transcripts
from trafikist.checks.seed import Seed
from trafikist.checks.sentences import Sentence, page_sentences, shortened
from trafikist.checks.transcripts import (
    TRANSCRIPT_PROOF,
    Shown,
    shown_transcripts,
    transcript_disproof,
)
from trafikist.course import syntax
from trafikist.course.evidence import (
    CheckedSentence,
    CommandTableField,
    DocsQuote,
    Evidence,
    SeedQuote,
    TranscriptStep,
)
from trafikist.course.sources import SOURCE_COMMENT
from trafikist.course.structure import Page
from trafikist.registry.valkey import (
    TEXT_FIELDS,
    WORD_FIELDS,
    ValkeyCommand,
    ValkeyDocs,
    ValkeyTable,
    quoted,
)

FUNCTION = re.compile(r"\b(?:Valkey|Redis)Module_[A-Za-z]\w*|\bVALKEYMODULE_[A-Z_]+\b")
COMMAND_WORD = re.compile(r"(?<![\w.@/:-])(?P<name>[A-Z][A-Z0-9]{2,})(?![\w.]|-\w)")
FLAG = re.compile(rf"`?\b(?P<flag>{'|'.join(syntax.COMMAND_FLAGS)})`?\s+(?:command\s+)?flag")
# Words that are commands and nouns too: commands only where a sentence uses them as one.
NOUNS = {"TTL", "ACL"}
AS_A_COMMAND = re.compile(r"\s+(?:replies|returns|command)\b")
COMMAND_LINK = re.compile(r"https://valkey\.io/commands/(?P<name>[a-z0-9-]+)/?")
TABLE_PROOF = re.compile(
    r"^(?P<command>[A-Za-z][A-Za-z0-9|]*(?: [A-Z][A-Z0-9]*)?)\.(?P<field>[a-z_]+)"
    rf"\s*{OPERATOR}\s*(?P<value>.*)$"
)
DOCS_PROOF = re.compile(r'^docs\s+(?P<page>\S+)\s+"(?P<quote>(?:[^"\\]|\\.)+)"$')
# What a paragraph needs for any of the above, to skip at once the many that have none: a
# proof or a command's link ("valkey"), an API name ("Module_", "VALKEYMODULE_"), a flag, or
# a word of capitals that may be a command.
HINT = re.compile(r"valkey|Module_|flag|[A-Z][A-Z0-9]{2}")
FORMS = (
    '`TRANSCRIPT#STEP replies VALUE`, `TRANSCRIPT#STEP shows "TEXT"`, '
    '`COMMAND.field = value` (=, !=, has, lacks), `docs PAGE "QUOTE"`'
)
FIX_UNPROVEN = (
    "Prove it: point it at a step of a transcript the page shows ([…]{valkey: "
    "NAME#STEP replies VALUE}), at Valkey's command table ([…]{valkey: BLPOP.flags has "
    'blocking}) or at a pinned quote of its documentation ([…]{valkey: docs PAGE "…"}) '
    '(docs/authoring.md, "Valkey statements"), or cite the seed sentence it follows from.'
)


def check_valkey(
    page: Page,
    seed: Seed,
    table: ValkeyTable,
    docs: ValkeyDocs,
    proven: list[CheckedSentence] | None = None,
) -> list[Problem]:
    """The page's transcripts, its Valkey statements and their proofs; each proven span goes
    to `proven` with what proves it."""
    if page.source is None:
        return []
    problems: list[Problem] = []
    shown = shown_transcripts(page, table, problems)
    found = proven if proven is not None else []
    for sentence in page_sentences(page, hint=HINT):
        problems.extend(_check_sentence(sentence, seed, table, docs, shown, found))
    return problems


CHECK = PageCheck(
    "valkey",
    proving(
        lambda page, facts, proven: check_valkey(
            page, facts.seed, facts.valkey, facts.valkey_docs, proven
        )
    ),
    facts=("seed", "valkey", "valkey_docs"),
    files=(transcripts, source_file),  # the lists the page shows; its front matter's comments
)


# -- one sentence ---------------------------------------------------------------------------------


def named_in(text: str, table: ValkeyTable) -> list[str]:
    """The Valkey commands, API names and flags `text` names, as it writes them."""
    found = [match.group() for match in FUNCTION.finditer(text)]
    found += [f"the {match['flag']} flag" for match in FLAG.finditer(text)]
    position = 0
    while match := COMMAND_WORD.search(text, position):
        name, position = match["name"], match.end()
        following = re.match(r"\s+(?P<sub>[A-Z][A-Z0-9]+)\b", text[position:])
        if following and table.get(f"{name} {following['sub']}"):
            found.append(f"{name} {following['sub']}")  # a subcommand: COMMAND INFO
            position += following.end()
        elif table.get(name) and (name not in NOUNS or AS_A_COMMAND.match(text, position)):
            found.append(name)
    return list(dict.fromkeys(found))


def _check_sentence(
    sentence: Sentence,
    seed: Seed,
    table: ValkeyTable,
    docs: ValkeyDocs,
    shown: dict[str, Shown],
    proven: list[CheckedSentence],
) -> Iterator[Problem]:
    text = sentence.markdown
    spans = list(syntax.find_spans(text))
    for span in spans:
        if span.kind == "valkey":
            yield from _check_proofs(sentence, span, table, docs, shown, proven)
    for match in COMMAND_LINK.finditer(text):
        if table.get(match["name"].replace("-", " ")) is None:
            yield Problem(
                sentence.file,
                sentence.line,
                f"the link {match.group()} names a command, '{match['name']}', that Valkey "
                f"{table.version}'s command table does not have.",
                "Link to the page of a command the table has (registry/valkey/commands.json).",
            )
    if not sentence.statement:
        return
    # Every span taken out (its words are proven, claimed or marked), the rest as written.
    outside = text
    for span in spans:
        blanked = syntax.blank(text[span.start : span.end])
        outside = outside[: span.start] + blanked + outside[span.end :]
    outside = re.sub(r"\]\([^)]*\)", lambda m: syntax.blank(m.group()), outside)
    outside = syntax.strip_claims(SOURCE_COMMENT.sub(" ", outside))
    names = named_in(outside, table)
    if not names:
        return
    reader = syntax.plain(text)
    if seed.contains(reader.rstrip(".!?;:")):
        return  # the seed's own words: what trafikey and EchoMQ send
    cited = " ".join(quoted(quote) for quote in sentence.quotes if seed.contains(quote))
    unproven = [
        name for name in names if not (cited and re.search(rf"\b{re.escape(name)}\b", cited))
    ]
    if not unproven:  # what trafikey and EchoMQ send, in the seed sentences it cites
        sources = [seed.sentence_of(quote) for quote in sentence.quotes]
        evidence = tuple(dict.fromkeys(SeedQuote(said) for said in sources if said))
        proven.append(
            CheckedSentence(str(sentence.file), sentence.line, text, sentence.anchor(), evidence)
        )
    if unproven:
        shown_names = ", ".join(unproven)
        yield Problem(
            sentence.file,
            sentence.line,
            f'an unproven Valkey statement: "{shortened(reader)}" says how {shown_names} behaves, '
            "and no proof holds it.",
            FIX_UNPROVEN,
            strict_only=True,
        )


def _check_proofs(
    sentence: Sentence,
    span: syntax.ClaimSpan,
    table: ValkeyTable,
    docs: ValkeyDocs,
    shown: dict[str, Shown],
    proven: list[CheckedSentence],
) -> Iterator[Problem]:
    proofs = syntax.split_predicates(span.expression)
    if not proofs:
        yield _problem(sentence, span, "the Valkey proof is empty", f"Write one of: {FORMS}.")
    evidence: list[Evidence] = []
    for proof in proofs:
        why, read = _disproof(proof, table, docs, shown)
        if why:
            yield _problem(sentence, span, f"the Valkey proof '{proof}' {why}", _fix_of(proof))
        elif read is not None:
            evidence.append(read)
    if proofs and len(evidence) == len(proofs):
        proven.append(
            CheckedSentence(
                str(sentence.file),
                sentence.line,
                sentence.markdown[span.start : span.end],
                sentence.anchor(span.start),
                tuple(dict.fromkeys(evidence)),
            )
        )


def _disproof(
    proof: str, table: ValkeyTable, docs: ValkeyDocs, shown: dict[str, Shown]
) -> tuple[str, Evidence | None]:
    """Why the proof does not hold, or "" and what proves it."""
    if match := TRANSCRIPT_PROOF.match(proof):
        why = transcript_disproof(match, shown)
        if why:
            return why, None
        transcript = shown[match["name"]]
        number = int(match["step"])
        prompt, reply = transcript.steps[number - 1]
        return "", TranscriptStep(transcript.name, number, prompt.strip(), reply)
    if match := DOCS_PROOF.match(proof):
        page = docs.page(match["page"])
        if page is None:
            known = ", ".join(sorted(docs.pages)) or "none"
            return (
                f"names the page '{match['page']}', which docs.yml does not pin (it pins {known})",
                None,
            )
        quote = quoted(re.sub(r"\\(.)", r"\1", match["quote"]))
        pinned = next((pinned for pinned in page.quotes if quote in pinned), None)
        if pinned is None:
            return f"quotes words that no pinned quote of {page.path} holds", None
        return "", DocsQuote(page.path, pinned, page.commit, page.url)
    if match := TABLE_PROOF.match(proof):
        command = table.get(match["command"])
        if command is None:
            return (
                f"names '{match['command']}', which Valkey {table.version}'s table does not have",
                None,
            )
        why = _table_disproof(command, match["field"], match["op"], match["value"], table)
        actual = command.fields.get(match["field"])
        value = " ".join(map(str, actual)) if isinstance(actual, list) else str(actual)
        return why, None if why else CommandTableField(command.name, match["field"], value)
    return f"cannot be read: write one of {FORMS}", None


def _table_disproof(
    command: ValkeyCommand, field: str, op: str, value: str, table: ValkeyTable
) -> str:
    kept = WORD_FIELDS + TEXT_FIELDS
    if field not in kept:
        return f"reads '{field}', which the table does not keep ({', '.join(kept)})"
    actual = command.fields.get(field)
    wanted = value.strip().strip("`")
    if field in WORD_FIELDS:
        have = {str(word).lower() for word in actual or []}
        want = {word.lower().lstrip("@") for word in wanted.replace(",", " ").split()}
        holds = words_hold(op, have, want)
    else:
        text = "" if actual is None else str(actual)
        target = "" if wanted in ("None", "none", "") else wanted.strip('"')
        holds = {"=": text == target, "!=": text != target, "has": target in text,
                 "lacks": target not in text}[op]  # fmt: skip
    if holds:
        return ""
    shown = " ".join(map(str, actual)) if isinstance(actual, list) else actual
    return f"does not hold: Valkey {table.version}'s {command.name} has {field} {shown!r}"


def _fix_of(proof: str) -> str:
    if TRANSCRIPT_PROOF.match(proof):
        return (
            "Point it at the step that shows what the sentence says, and state that step's "
            "reply as the page shows it."
        )
    if DOCS_PROOF.match(proof):
        return "Quote a pinned quote of registry/valkey/docs.yml word for word, or pin the page."
    if TABLE_PROOF.match(proof):
        return "Correct the sentence and its proof: registry/valkey/commands.json has the table."
    return f'Write one of: {FORMS} (docs/authoring.md, "Valkey statements").'


def _problem(sentence: Sentence, span: syntax.ClaimSpan, what: str, fix: str) -> Problem:
    return Problem(sentence.file, sentence.line, f'{what}. Sentence: "{span.sentence}"', fix)
