"""What the checks read in a page's Markdown: marked spans, verbs, library names, code fences,
excerpt blocks and source comments. Pure text scanning, shared by the checks and the Markdown
extension.

A marked span is a bracketed text followed by what checks or marks it:

    [no row carries the blocking command flag]{claim: *.flags lacks blocking}
    [j1 stays in schedule until 3 s]{expect: j1 in schedule from 2.5 to 3}
    [a batch of 2]{choice: scenario}

A claim is checked against the registry or the library manifest, an expectation against the
model's run, and a choice marks a value the model chose. The reader sees the text in brackets
(a choice also gets its visible marker).

A source comment cites the seed sentence a sentence follows from: `<!-- seed: "…" -->` in
Markdown, `# seed: "…"` in YAML. It covers the sentence it closes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from trafikist.base.memo import BoundedCache
from trafikist.course.sources import DRAFT, SOURCE_COMMENT

CLAIM_OPEN = re.compile(r"\{\s*(?P<kind>claim|expect|choice|valkey)\s*:")

# The only characters the claim scanner stops at: an escape, a code span, an opening bracket.
_SIGNIFICANT = re.compile(r"[\\`\[]")
_BACKTICKS = re.compile(r"`+")
# EMQ.PROMOTE, EMQ.STALLED.CHECK; not the family wildcard `EMQ.*`.
VERB = re.compile(r"(?<![\w.@/-])EMQ(?:\.[A-Z][A-Z0-9_]*)+(?![\w])")
FUNCTION = re.compile(r"(?<![\w.@/])(?P<name>(?:[A-Z]\w*\.)+[a-z_]\w*[!?]?/\d+)")
MODULE = re.compile(r"(?<![\w.@/])EchoMQ(?:\.[A-Z]\w*)+")
WIRE = re.compile(r"\bwire:\s*(?P<number>\d+)")
SCRIPT = re.compile(r"(?<![\w@.+/-])@(?P<name>[a-z_][a-z0-9_]*)\b")
# Valkey's ACL categories (ACL CAT) are written `@slow`, `+@all` too; they are not scripts.
ACL_CATEGORIES = frozenset(
    [
        "all",
        "keyspace",
        "read",
        "write",
        "set",
        "sortedset",
        "list",
        "hash",
        "string",
        "bitmap",
        "hyperloglog",
        "geo",
        "stream",
        "pubsub",
        "admin",
        "fast",
        "slow",
        "blocking",
        "dangerous",
        "connection",
        "transaction",
        "scripting",
    ]
)
# Valkey's command flags, as a sentence names them (`the blocking flag`, `write commands`): facts
# about trafikey's rows to the provenance check, statements about Valkey to the Valkey statements
# check, which need a proof.
COMMAND_FLAGS = (
    "write",
    "readonly",
    "denyoom",
    "admin",
    "pubsub",
    "noscript",
    "blocking",
    "loading",
    "stale",
    "fast",
    "slow",
    "may_replicate",
    "no_auth",
    "allow_busy",
    "movablekeys",
    "no_mandatory_keys",
)
FENCE_OPEN = re.compile(r"^(?P<indent>\s{0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
BLOCK_OPEN = re.compile(r"^\s*(?P<slashes>/{3,})\s*(?P<name>[\w-]+)\s*(?:\|\s*(?P<arg>.*))?$")
BLOCK_CLOSE = re.compile(r"^\s*(?P<slashes>/{3,})\s*$")
OPTION = re.compile(r"^\s{4,}(?P<key>[\w-]+)\s*:\s*(?P<value>.*)$")
# A question (trafikist.course.questions) opens with exactly `/// check` at a line's start and
# closes with exactly `///`: its body is YAML. `//// check`, an indented `/// check` or
# `// check` is no question (the page-syntax check refuses them as near misses).
QUESTION_BLOCK = "check"
QUESTION_OPEN = re.compile(rf"^///\s*{QUESTION_BLOCK}\s*(?:\|\s*(?P<prompt>.*?))?\s*$")
QUESTION_CLOSE = re.compile(r"^///\s*$")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# An inline link, [text](target): group 1 is its text, what a sentence or a heading's id reads.
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
MODELS_OWN = re.compile(r"model['’]s own", re.IGNORECASE)


@dataclass(frozen=True)
class ClaimSpan:
    start: int  # offset of `[`
    end: int  # offset after `}`
    text: str  # what the reader sees, as written (Markdown)
    expression: str  # what the build checks (a claim, an expectation) or the choice's id
    text_start: int  # offset of the text, after `[`
    kind: str = "claim"  # claim, expect or choice

    @property
    def sentence(self) -> str:
        return plain(self.text)


@dataclass
class Fence:
    first_line: int  # index (0-based) in the body of the first code line
    info: str
    code: list[str] = field(default_factory=list)
    excerpt: Excerpt | None = None


@dataclass
class Excerpt:
    line: int  # index (0-based) of the `/// excerpt` line
    caption: str
    options: dict[str, str]
    fences: list[Fence] = field(default_factory=list)

    @property
    def quotes_registry(self) -> bool:
        return self.options.get("quotes", "").strip().strip("'\"") == "registry"

    @property
    def says_models_own(self) -> bool:
        return bool(MODELS_OWN.search(self.caption))


@dataclass
class Scanned:
    """A page body split into prose (code fences blanked out) and its fences and excerpts."""

    prose: str  # same length and lines as the body, fenced code replaced by spaces
    fences: list[Fence]
    excerpts: list[Excerpt]
    line_starts: list[int]

    def line_of(self, offset: int) -> int:
        """0-based line index of an offset."""
        return bisect.bisect_right(self.line_starts, offset) - 1


def scan(body: str) -> Scanned:
    """The body's prose, fences and excerpts; kept per body, since every check reads them."""
    return SCANS.get_or_make(body, lambda: _scan(body))


SCANS: BoundedCache[str, Scanned] = BoundedCache(1024)


def _scan(body: str) -> Scanned:
    lines = body.splitlines(keepends=True)
    prose_lines: list[str] = []
    fences: list[Fence] = []
    excerpts: list[Excerpt] = []
    blocks: list[tuple[int, Excerpt | None]] = []  # open blocks: slash count, excerpt or None
    fence: Fence | None = None
    fence_mark = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.rstrip("\r\n")
        if fence is not None:
            if fence_closes(stripped, fence_mark):
                fence = None
            else:
                fence.code.append(stripped)
            prose_lines.append(blank(line))
            index += 1
            continue
        opening = FENCE_OPEN.match(stripped)
        if opening:
            excerpt = next((ex for _, ex in reversed(blocks) if ex is not None), None)
            fence = Fence(first_line=index + 1, info=opening["info"].strip(), excerpt=excerpt)
            fence_mark = opening["fence"]
            fences.append(fence)
            if excerpt is not None:
                excerpt.fences.append(fence)
            prose_lines.append(blank(line))
            index += 1
            continue
        block = BLOCK_OPEN.match(stripped)
        if block and QUESTION_OPEN.match(stripped):
            # A question's body is YAML (trafikist.course.questions reads it): not prose.
            end = next((i for i in range(index + 1, len(lines)) if QUESTION_CLOSE.match(
                lines[i].rstrip("\r\n"))), len(lines) - 1)  # fmt: skip
            prose_lines += [blank(text) for text in lines[index : end + 1]]
            index = end + 1
            continue
        if block:
            excerpt = None
            prose_lines.append(line)
            index += 1
            options: dict[str, str] = {}
            while index < len(lines) and (option := OPTION.match(lines[index].rstrip("\r\n"))):
                options[option["key"]] = option["value"].strip()
                prose_lines.append(blank(lines[index]))
                index += 1
            if block["name"] == "excerpt":
                excerpt = Excerpt(
                    line=index - 1 - len(options), caption=block["arg"] or "", options=options
                )
                excerpts.append(excerpt)
            blocks.append((len(block["slashes"]), excerpt))
            continue
        closing = BLOCK_CLOSE.match(stripped)
        if closing:
            count = len(closing["slashes"])
            for position in range(len(blocks) - 1, -1, -1):
                if blocks[position][0] == count:
                    del blocks[position:]
                    break
        prose_lines.append(line)
        index += 1
    prose = DRAFT.sub(lambda match: blank(match.group()), "".join(prose_lines))
    prose = HTML_COMMENT.sub(lambda match: blank(match.group()), prose)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line))
    return Scanned(prose=prose, fences=fences, excerpts=excerpts, line_starts=starts)


@dataclass(frozen=True)
class Region:
    """Lines of a page that are not prose: fenced code (its fence lines included), a question
    (its `/// check` and `///` lines included), a comment that spans lines."""

    kind: str  # "fence", "question" or "comment"
    start: int  # 0-based index of its first line
    end: int  # index of its last line (the page's last when it is never closed)
    closed: bool


def fence_closes(line: str, fence: str) -> bool:
    """Whether `line` closes a fence opened with `fence` (at least as many of its character,
    nothing else)."""
    stripped = line.strip()
    return stripped.startswith(fence) and set(stripped) <= {fence[0]}


def regions(lines: list[str]) -> list[Region]:
    """The fenced code, questions and multi-line comments of a page's lines, in order, as the
    page-syntax check, the question reader and the renderer all read them: inside a fence
    everything is literal (a `/// check` there is the author's example, no question), inside a
    question everything is YAML, inside a comment nothing shows."""
    found: list[Region] = []
    index = 0
    while index < len(lines):
        text = lines[index]
        kind, closes = _region_at(text)
        if not kind:
            index += 1
            continue
        end = next((i for i in range(index + 1, len(lines)) if closes(lines[i])), None)
        found.append(Region(kind, index, len(lines) - 1 if end is None else end, end is not None))
        index = found[-1].end + 1
    return found


def _region_at(text: str) -> tuple[str, Callable[[str], object]]:
    """The kind of region a line opens ("" for none) and what tells the line that ends it."""
    opening = FENCE_OPEN.match(text)
    if opening:
        fence = opening["fence"]
        return "fence", lambda line: fence_closes(line, fence)
    if QUESTION_OPEN.match(text):
        return "question", QUESTION_CLOSE.match
    if comment_left_open(text):
        return "comment", lambda line: "-->" in line
    return "", bool


def comment_left_open(text: str) -> bool | None:
    """Whether the line opens an HTML comment it does not close (outside code spans): True;
    None when a comment on the line holds another `<!--` before its `-->`; False otherwise."""
    text = re.sub(r"(`+).*?\1", "", text)
    while "<!--" in text:
        after = text.split("<!--", 1)[1]
        if "-->" not in after:
            return True
        inside, text = after.split("-->", 1)
        if "<!--" in inside:
            return None
    return False


_FENCE_TOKEN = re.compile(r"^\x00fence (?P<number>\d+)\x00$", re.M)


def mask_fences(body: str) -> tuple[str, list[str]]:
    """The body with each fenced code block (outside questions) replaced by one line no
    pattern of the renderer matches, and the blocks, to put back with `unmask_fences`: what a
    fence holds is the author's literal text, never a block, a heading or a reference to fill."""
    lines = body.split("\n")
    fences: list[str] = []
    out: list[str] = []
    position = 0
    for region in regions(lines):
        if region.kind != "fence":
            continue
        out += lines[position : region.start]
        out.append(f"\x00fence {len(fences)}\x00")
        fences.append("\n".join(lines[region.start : region.end + 1]))
        position = region.end + 1
    if not fences:
        return body, []
    out += lines[position:]
    return "\n".join(out), fences


def unmask_fences(text: str, fences: list[str]) -> str:
    """`text` with the fences `mask_fences` took out put back."""
    if not fences:
        return text
    return _FENCE_TOKEN.sub(lambda match: fences[int(match["number"])], text)


def blank(text: str) -> str:
    """Spaces in place of every character but line breaks, so offsets and lines stay put."""
    return re.sub(r"[^\r\n]", " ", text)


def find_claims(text: str) -> Iterator[ClaimSpan]:
    """Every `[text]{claim: …}` in `text` (see `find_spans`)."""
    return (span for span in find_spans(text) if span.kind == "claim")


def find_spans(text: str) -> Iterator[ClaimSpan]:
    """Every marked span (claim, expect, choice) in `text`, outermost first, left to right;
    none inside a code span or after a backslash, as Markdown would read them."""
    if CLAIM_OPEN.search(text) is None:  # most text has no marked span: skip the scan
        return
    index = 0
    while (found := _SIGNIFICANT.search(text, index)) is not None:
        index = found.start()
        char = text[index]
        if char == "\\":
            index += 2
        elif char == "`":
            index = _after_code_span(text, index)
        elif (span := claim_at(text, index)) is not None:
            yield span
            index = span.end
        else:
            index += 1


def claim_at(text: str, start: int) -> ClaimSpan | None:
    """The marked span that opens at `text[start] == "["`, or None when there is none."""
    close = _matching_bracket(text, start)
    if close is None:
        return None
    opening = CLAIM_OPEN.match(text, close + 1)
    if opening is None:
        return None
    end = _closing_brace(text, opening.end())
    if end is None:
        return None
    return ClaimSpan(
        start=start,
        end=end + 1,
        text=text[start + 1 : close],
        expression=" ".join(text[opening.end() : end].split()),
        text_start=start + 1,
        kind=opening["kind"],
    )


def _matching_bracket(text: str, start: int) -> int | None:
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "`":
            index = _after_code_span(text, index)
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return None


def _after_code_span(text: str, start: int) -> int:
    """The offset after the code span that opens at `start` (or after its backticks if none)."""
    opened = _BACKTICKS.match(text, start)
    assert opened is not None, "a code span opens with a backtick"
    run = opened.end() - start  # no slicing: pages are long
    end = text.find("`" * run, start + run)
    return end + run if end != -1 else start + run


def _closing_brace(text: str, start: int) -> int | None:
    quoted = False
    for index in range(start, len(text)):
        char = text[index]
        if char == '"':
            quoted = not quoted
        elif char == "}" and not quoted:
            return index
        elif char == "\n" and index + 1 < len(text) and text[index + 1] == "\n":
            return None  # a claim never spans paragraphs
    return None


def split_predicates(expression: str) -> list[str]:
    """The parts of a span's expression, split at `;` outside double quotes."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    for char in expression:
        if char == '"':
            quoted = not quoted
        if char == ";" and not quoted:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    return [part for part in parts if part]


def strip_claims(text: str) -> str:
    """The text as the reader sees it: every marked span reduced to its bracketed words."""
    parts: list[str] = []
    position = 0
    for span in find_spans(text):
        parts.append(text[position : span.start])
        parts.append(strip_claims(span.text))
        position = span.end
    parts.append(text[position:])
    return "".join(parts)


def plain(markdown: str) -> str:
    """Markdown inline text as a sentence to quote: links reduced to their text, marked spans to
    theirs, source comments dropped, whitespace collapsed."""
    text = strip_claims(SOURCE_COMMENT.sub(" ", markdown))
    text = MARKDOWN_LINK.sub(r"\1", text)
    return " ".join(text.split())
