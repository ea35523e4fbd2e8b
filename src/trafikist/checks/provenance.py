"""Provenance: every sentence the course teaches about trafikey or EchoMQ has a source, and every
fact in it is checked.

trafikey and EchoMQ are not public: the seed (the published module 04 text) is the course's only
source on them. A sentence that names one of them (trafikey, EchoMQ, Elixir, the module, the
library, the reaper, the lane claim, the wake list, the beat, an EMQ verb, an EchoMQ module,
function or script, a `wire: N`) must be one of these:

- the seed's own words (it occurs in the seed, code marks and spacing aside);
- a consequence of seed sentences cited by a source comment right after it
  (`<!-- seed: "…" -->`; in YAML, `# seed: "…"` right above the field);
- a sentence whose facts are all inside claims, expectations or choice markers.

A fact is a number (digits or words: "one second", "100", "thirteen"), an arity, a command flag
or ACL category, or the name of a verb, a library function, module or script, or a wire. A fact
outside every claim, expectation and choice marker must be in the seed sentence it stands in,
or in the seed sentences its source comment cites: "up to 200 members" does not follow from "up
to 100 members". Headings, captions and block labels are labels, not statements: only their
facts are checked.

Problems here fail a strict build (`strict: true`, and `trafikist check`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from trafikist.base.errors import Problem
from trafikist.checks import quantity
from trafikist.checks.inputs import PageCheck, proving, source_file
from trafikist.checks.memo import remembered
from trafikist.checks.seed import Seed, normalize
from trafikist.checks.sentences import Sentence, page_sentences, shortened
from trafikist.course import syntax
from trafikist.course.evidence import CheckedSentence, SeedQuote
from trafikist.course.structure import Page

# Names that make a sentence one about trafikey or EchoMQ.
GENERAL_NAMES = re.compile(
    r"\b(?:trafikey|EchoMQ|Elixir)\b(?!\.)|\b[Tt]he (?:module|library|reaper|lane claim)\b"
    r"|\bwake list\b|\bbeats?\b"
)
NUMBER = re.compile(r"(?<![\w.@/:-])-?\d+(?:\.\d+)?(?![\w/])")
NUMBER_WORDS = quantity.NUMBER_WORDS | quantity.TIMES_WORDS
NUMBER_WORD = re.compile(r"\b(?:" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)
# Every number of a text, digits or words, to compare two texts but for their numbers.
NUMBERS_MASK = re.compile(
    r"(?<![\w.@/:-])-?\d+(?:\.\d+)?(?![\w/])|\b(?:" + "|".join(NUMBER_WORDS) + r")\b",
    re.IGNORECASE,
)
# Valkey's command flags and ACL categories, as a sentence about a command's row names them.
FLAG_WORDS = "|".join(syntax.COMMAND_FLAGS)
ACL_WORDS = "|".join(sorted(syntax.ACL_CATEGORIES))
FLAG_NEAR = re.compile(
    rf"\b(?P<word>{FLAG_WORDS})\b(?=\W+(?:commands?|flags?)\b)|@(?P<acl>{ACL_WORDS})\b"
)
FLAG_CONTEXT = re.compile(r"\b(?:flags?|ACL|categor(?:y|ies))\b")
FLAG_ANY = re.compile(rf"`?\b(?P<word>{FLAG_WORDS})\b`?")
ARITY = re.compile(r"\barity\b")
# Numbers that name the course's own parts, or Valkey's version: not facts about trafikey.
COURSE_NUMBERS = re.compile(
    r"\b(?:module|modules|dive|dives)\s+\d+(?:\s*(?:,|and|→)\s*\d+)*|\bValkey\s+\d+(?:\.\d+)*"
    r"|[\w.-]+\.(?:ya?ml|md|txt|json)\b"
)
LINK_TARGET = re.compile(r"\]\([^)]*\)")
ATTR_LIST = re.compile(r"(?<!\])\{[:\s]*(?:[.#]|data-|\w+=)[^}]*\}")
# A list entry that opens with a link to a course page, then " — ": the title is the page's.
TITLED_ENTRY = re.compile(r"^\[[^\]]*\]\(id:[^)]*\)\s+—\s+")

FIX_UNSOURCED = (
    'Cite the seed sentence it follows from right after it (<!-- seed: "…" -->; in YAML, '
    '# seed: "…" above the field), mark the values the model chose ([…]{choice: ID}), or '
    'remove it (docs/authoring.md, "Sources").'
)
FIX_FACT = (
    "Put it in a claim ([…]{claim: …}) or an expectation ([…]{expect: …}), cite the seed "
    'sentence that states it (<!-- seed: "…" -->), or mark it as the model\'s own choice '
    '([…]{choice: ID}) (docs/authoring.md, "Sources").'
)


def check_provenance(
    page: Page,
    seed: Seed,
    verbs: set[str],
    scanned: syntax.Scanned | None = None,
    proven: list[CheckedSentence] | None = None,
) -> list[Problem]:
    """Every sentence of an author's page (and its duties) about trafikey or EchoMQ; each that
    the seed says, or follows from the seed sentences it cites, goes to `proven` with them."""
    if page.source is None:
        return []
    problems: list[Problem] = []
    for sentence in page_sentences(page, scanned, hint=NAME_HINT):
        found, quotes = _check(sentence, seed, verbs)
        problems.extend(found)
        # A heading, a caption or a label is checked for its facts; it states nothing.
        if quotes and sentence.statement and proven is not None:
            proven.append(
                CheckedSentence(
                    str(sentence.file),
                    sentence.line,
                    sentence.markdown,
                    sentence.anchor(),
                    quotes,
                )
            )
    return problems


CHECK = PageCheck(
    "provenance",
    proving(
        lambda page, facts, proven: check_provenance(
            page, facts.seed, set(facts.registry.rows), proven=proven
        )
    ),
    facts=("seed", "registry"),
    files=(source_file,),  # a front matter field's source comment is in the file only
)


# -- checking one sentence --------------------------------------------------------------------


# What any name needs, to skip at once the many sentences that name none of them.
NAME_HINT = re.compile(
    r"trafikey|EchoMQ|Elixir|[Tt]he (?:module|library|reaper|lane claim)|wake list|\bbeats?\b"
    r"|EMQ\.|@[a-z_]|wire:|\.[a-z_]\w*[!?]?/\d"
)


def _check(
    sentence: Sentence, seed: Seed, verbs: set[str]
) -> tuple[list[Problem], tuple[SeedQuote, ...]]:
    """The sentence's problems, and the seed sentences that hold it when it holds."""
    if NAME_HINT.search(sentence.markdown) is None:
        return [], ()
    # A sentence's verdict reads its text and what it cites, nothing else; prose repeats (a
    # course's own phrasing, a preview's rebuild).
    key = ("sentence", sentence.markdown, tuple(sentence.quotes), sentence.statement, seed.file,
           len(verbs))  # fmt: skip

    def verdict() -> tuple[list[tuple[str, str]], tuple[SeedQuote, ...]]:
        sources: list[SeedQuote] = []
        found = [
            (problem.what, problem.fix) for problem in _verdict(sentence, seed, verbs, sources)
        ]
        return found, (() if found else tuple(dict.fromkeys(sources)))

    found, quotes = remembered(key, verdict)
    problems = [
        Problem(sentence.file, sentence.line, what, fix, strict_only=True) for what, fix in found
    ]
    return problems, quotes


def _verdict(
    sentence: Sentence, seed: Seed, verbs: set[str], sources: list[SeedQuote]
) -> Iterator[Problem]:
    """The sentence's problems; the seed sentences it is, or follows from, go to `sources`."""
    text = sentence.markdown
    spans = list(syntax.find_spans(text))
    # What the reader sees outside every marked span, offsets kept (link targets blanked).
    outside = text
    for span in reversed(spans):
        outside = (
            outside[: span.start]
            + syntax.blank(outside[span.start : span.end])
            + outside[span.end :]
        )
    outside = LINK_TARGET.sub(lambda m: "]" + syntax.blank(m.group()[1:]), outside)
    outside = ATTR_LIST.sub(lambda m: syntax.blank(m.group()), outside)
    names = _names(outside, verbs)
    if not names and not _names(_reader(text), verbs):
        return
    reader = _reader(text)
    quotes = [quote for quote in sentence.quotes if seed.contains(quote)]
    for quote in sentence.quotes:
        if quote not in quotes:
            yield Problem(
                sentence.file,
                sentence.line,
                f'the source comment cites "{shortened(quote)}", which the seed ({seed.file.name}) '
                "does not say.",
                "Quote the seed word for word (spacing and code marks aside), or remove the "
                "comment and the sentence it sources.",
                strict_only=True,
            )
    own = _reader(TITLED_ENTRY.sub("", text)).rstrip(".!?;:")
    for words in (reader.rstrip(".!?;:"), own):
        if (said := seed.sentence_of(words)) is not None:
            sources.append(SeedQuote(said))
            return  # the seed's own words
    # The seed's words with a number changed: that seed sentence is its source, and the changed
    # number is the fact that does not hold.
    cites = list(quotes)
    quotes += seed.lines_like(own, NUMBERS_MASK)
    cited = " ".join(normalize(quote) for quote in quotes)
    unchecked = [fact for fact in _facts(outside, verbs) if not (quotes and _fact_in(fact, cited))]
    for fact in unchecked:
        yield Problem(
            sentence.file,
            sentence.line,
            f"an unchecked fact: {fact.shown} stands beside {', '.join(names) or 'trafikey'} in "
            f'"{shortened(reader)}", and no claim, expectation, choice marker or seed sentence '
            "holds it.",
            FIX_FACT,
            strict_only=True,
        )
    sources.extend(
        SeedQuote(said) for quote in cites if (said := seed.sentence_of(quote)) is not None
    )
    if sentence.statement and names and not quotes and not spans and not unchecked:
        yield Problem(
            sentence.file,
            sentence.line,
            f'an unsourced sentence about {", ".join(names)}: "{shortened(reader)}" is not the '
            "seed's, and no source comment cites the seed sentence it follows from.",
            FIX_UNSOURCED,
            strict_only=True,
        )


def _reader(markdown: str) -> str:
    return " ".join(ATTR_LIST.sub(" ", syntax.plain(markdown)).split())


@dataclass(frozen=True)
class Fact:
    kind: str  # number, flag, arity, name
    value: str  # normalized: a number as digits, a flag word, a name
    shown: str  # as the message shows it


# What names trafikey's or EchoMQ's parts: a verb, a library function, a module, a wire.
NAME_PATTERNS = (syntax.VERB, syntax.FUNCTION, syntax.MODULE, syntax.WIRE)


def _names(text: str, verbs: set[str]) -> list[str]:
    names, _ = _named(text, (*NAME_PATTERNS, GENERAL_NAMES))
    return list(dict.fromkeys(names))


def _named(text: str, patterns: tuple[re.Pattern[str], ...]) -> tuple[list[str], str]:
    """The names `text` gives, by `patterns` in turn, then its scripts (`@name`, not an ACL
    category); and the text with the patterns' names blanked, offsets kept."""
    found: list[str] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            found.append(" ".join(match.group().split()))
        # A function's module (EchoMQ.Jobs in EchoMQ.Jobs.promote/3) is not a name of its own.
        text = pattern.sub(lambda match: syntax.blank(match.group()), text)
    for match in syntax.SCRIPT.finditer(text):
        if match["name"] not in syntax.ACL_CATEGORIES:
            found.append(match.group())
    return found, text


def _facts(text: str, verbs: set[str]) -> list[Fact]:
    names, masked = _named(
        COURSE_NUMBERS.sub(lambda m: syntax.blank(m.group()), text), NAME_PATTERNS
    )
    facts = [Fact("name", name, name) for name in names]
    for match in NUMBER.finditer(masked):
        facts.append(Fact("number", _number(match.group()), f"'{match.group()}'"))
    for match in NUMBER_WORD.finditer(masked):
        word = match.group()
        facts.append(Fact("number", str(NUMBER_WORDS[word.lower()]), f"'{word}'"))
    in_context = bool(FLAG_CONTEXT.search(masked))
    flags = FLAG_ANY if in_context else FLAG_NEAR
    for match in flags.finditer(masked):
        flag = match["word"] or match.groupdict().get("acl")
        if flag:
            facts.append(Fact("flag", flag.lower(), f"the flag or category '{flag}'"))
    if ARITY.search(masked):
        facts.append(Fact("arity", "arity", "an arity"))
    # A name is the sentence's subject, not a fact about it: names are facts only beside others.
    if len({fact.value for fact in facts if fact.kind == "name"}) == 1:
        facts = [fact for fact in facts if fact.kind != "name"]
    return list(dict.fromkeys(facts))


def _number(text: str) -> str:
    value = float(text)
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _fact_in(fact: Fact, cited: str) -> bool:
    if fact.kind == "number":
        numbers = {_number(m.group()) for m in NUMBER.finditer(cited)}
        numbers |= {str(NUMBER_WORDS[m.group().lower()]) for m in NUMBER_WORD.finditer(cited)}
        return fact.value in numbers
    if fact.kind == "name":
        value = fact.value
        if value in cited:
            return True
        # A short form (Jobs.promote/3) is cited by its full name (EchoMQ.Jobs.promote/3).
        return f"EchoMQ.{value}" in cited or re.sub(r"wire:\s*", "wire: ", value) in cited
    if fact.kind == "flag":
        return re.search(rf"\b{re.escape(fact.value)}\b", cited, re.IGNORECASE) is not None
    return fact.value in cited
