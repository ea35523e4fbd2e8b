"""Mutations of the real course's sources, and the one invariant every mutation must keep
(tests/checks/test_fuzz_sources.py runs a short seeded profile, scripts/bench_fuzz.py a long one).

A mutation changes one file under modules/ (a page, duties.yml, a scenario, a transcript, a
worked example, course.yml) the way a slip of the hand or a broken file would: it deletes a
line, duplicates one, swaps two, drops a closing marker (a `///` line, a `-->`, the `}` that
closes a claim), turns a YAML scalar into a list or a mapping or a value YAML retypes (`yes`,
`012`, `3.00`, a date), inserts bytes (NUL, bytes that are not UTF-8, a byte-order mark, a soft
hyphen, zero-width and bidi characters), swaps a letter for its Cyrillic or Greek look-alike,
puts a block inside a code fence, or makes a block's opener almost right (`////`, `//`,
indented). Then the course is loaded, checked and rendered in this
process, with no engine (trafikist.core.site.load_site, the renderer, Python-Markdown with the
extensions of mkdocs.yml), and one of two things must hold:

- **caught**: a CourseError with exactly one line, `FILE:LINE: what. Fix: how.` (one Fix),
  naming the mutated file or one it leads to, at a line that file has;
- **built**: the pages of the mutated file's module (or the page itself, or the home page for
  course.yml) have the outline of the original build (headings, blocks, sections and how they
  nest, in order) except for what stands on the lines the mutation touched, and no syntax of
  the sources (`///`, `]{`, `{claim:`, `<!--`, `-->`, a NUL, Python's form of a list) shows as
  text where the original shows none.

Anything else, another exception included, is a failure of the invariant (`Outcome.kind ==
"failed"`), with the reason.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
import re
import shutil
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import markdown

from support import PROJECT_PARTS, copy_project, markdown_extensions
from trafikist.base.errors import CourseError
from trafikist.core.site import Site, load_site
from trafikist.course.structure import Page

OPERATORS = (
    "delete a line",
    "duplicate a line",
    "swap two lines",
    "drop a closing marker",
    "change a value's type",
    "insert bytes",
    "swap in a look-alike letter",
    "fence a block",
    "miss a block's opener",
)
# NUL, bytes that are not UTF-8, a byte-order mark; a soft hyphen, a zero-width space, a
# zero-width joiner, a right-to-left override (invisible, UTF-8).
INSERTED = (b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf",
            "\u00ad".encode(), "\u200b".encode(), "\u200d".encode(), "\u202e".encode())  # fmt: skip
# Latin letters and the Cyrillic or Greek letters that look like them.
LOOK_ALIKES = {
    b"a": "\u0430", b"e": "\u0435", b"o": "\u043e", b"p": "\u0440", b"c": "\u0441",
    b"x": "\u0445", b"i": "\u0456", b"y": "\u0443", b"T": "\u03a4", b"M": "\u041c",
}  # fmt: skip
BLOCK_OPENER = re.compile(rb"^/// [\w-]+.*$")
# What YAML turns into another type, or reads otherwise than written.
RETYPED = (b"yes", b"012", b"null", b"3.00", b"0_3", b"1e3", b"2001-01-01")
ONE_LINE = re.compile(r"^(?P<file>[^\s:][^:\n]*?)(?::(?P<line>\d+))?: [^\n]+[.?!] Fix: [^\n]+$")
SCALAR = re.compile(rb"^(?P<key>\s*(?:- )?[A-Za-z_][\w-]*:[ \t]+)(?P<value>[^\s>|&*!#][^\n]*)$")
CLAIM_END = re.compile(rb"\]\{(?:claim|expect|choice|valkey):[^}\n]*(?P<close>\})")
# Source syntax that must never reach a page as text (outside code).
LEAKS = ("///", "]{", "{claim", "{expect", "{choice", "{valkey", "<!--", "-->", "\x00", "['")
CODE_TAGS = {"pre", "code", "script", "style"}
BLOCK_TAGS = {"div", "section", "aside", "nav", "figure", "details", "blockquote", "table"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
VOID_TAGS = {"br", "img", "input", "hr", "meta", "link", "wbr", "source", "col", "area"}

# A picker: picker(low, high) is a whole number from low to high, both included (hypothesis'
# data, or a seeded random.Random's randint).
Picker = Callable[[int, int], int]


@dataclass(frozen=True)
class Mutation:
    file: str  # relative to the project, as messages name it
    operator: str
    where: str  # what changed, for the report
    data: bytes  # the file's new bytes
    touched: tuple[str, ...]  # the text of the lines it touched, before and after

    def describe(self) -> str:
        return f"{self.file}: {self.operator}: {self.where}"


@dataclass(frozen=True)
class Outcome:
    kind: str  # "caught", "caught-many", "built" or "failed"
    mutation: Mutation
    message: str = ""  # the CourseError's message, or why the invariant failed


def course_files(project: Path) -> list[str]:
    """Every source of the course a mutation may change: its pages, its YAML, its transcripts."""
    modules = project / "modules"
    return sorted(
        path.relative_to(project).as_posix()
        for path in modules.rglob("*")
        if path.is_file() and path.suffix in (".md", ".yml", ".txt")
    )


def mutate(project: Path, files: list[str], pick: Picker) -> Mutation:
    """One mutation of one of `files`, chosen with `pick`: an operator, then a file it
    applies to (a closing marker is dropped from a page or duties.yml, a value's type changed
    in YAML or front matter), then where."""
    operator = OPERATORS[pick(0, len(OPERATORS) - 1)]
    fitting = [file for file in files if applies(operator, file)]
    file = fitting[pick(0, len(fitting) - 1)]
    data = (project / file).read_bytes()
    made = _apply(operator, data, pick, file)
    if made is None:  # nothing of that kind in the file: a line is deleted instead
        operator = "delete a line"
        made = _apply(operator, data, pick, file)
    assert made is not None
    new, where, touched = made
    return Mutation(file, operator, where, new, touched)


def applies(operator: str, file: str) -> bool:
    if operator == "drop a closing marker":
        return file.endswith((".md", "duties.yml"))
    if operator == "change a value's type":
        return file.endswith((".md", ".yml"))
    if operator in ("fence a block", "miss a block's opener"):
        return file.endswith(".md")
    return True


def _apply(
    operator: str, data: bytes, pick: Picker, file: str
) -> tuple[bytes, str, tuple[str, ...]] | None:
    lines = data.split(b"\n")
    if operator == "delete a line":
        index = pick(0, len(lines) - 1)
        new = lines[:index] + lines[index + 1 :]
        return b"\n".join(new), f"line {index + 1}", (_text(lines[index]),)
    if operator == "duplicate a line":
        index = pick(0, len(lines) - 1)
        new = lines[: index + 1] + lines[index:]
        return b"\n".join(new), f"line {index + 1}", (_text(lines[index]),)
    if operator == "swap two lines":
        if len(lines) < 2:
            return None
        first = pick(0, len(lines) - 2)
        second = pick(first + 1, len(lines) - 1)
        new = list(lines)
        new[first], new[second] = new[second], new[first]
        where = f"lines {first + 1} and {second + 1}"
        return b"\n".join(new), where, (_text(lines[first]), _text(lines[second]))
    if operator == "drop a closing marker":
        return _drop_marker(data, pick)
    if operator == "change a value's type":
        return _change_type(lines, pick, file)
    if operator == "insert bytes":
        inserted = INSERTED[pick(0, len(INSERTED) - 1)]
        offset = pick(0, len(data))
        inserted_data = data[:offset] + inserted + data[offset:]
        start = data.rfind(b"\n", 0, offset) + 1
        end = data.find(b"\n", offset)
        line = data[start : end if end != -1 else len(data)]
        number = data[:offset].count(b"\n") + 1
        return inserted_data, f"{inserted!r} at line {number}, offset {offset}", (_text(line),)
    if operator == "swap in a look-alike letter":
        return _look_alike(data, pick)
    if operator == "fence a block":
        return _fence_block(lines, pick)
    if operator == "miss a block's opener":
        return _miss_opener(lines, pick)
    raise AssertionError(operator)


def _look_alike(data: bytes, pick: Picker) -> tuple[bytes, str, tuple[str, ...]] | None:
    """One Latin letter of a word replaced by the Cyrillic or Greek letter it looks like."""
    spots = [m.start() for m in re.finditer(rb"[" + b"".join(LOOK_ALIKES) + rb"]", data)]
    if not spots:
        return None
    offset = spots[pick(0, len(spots) - 1)]
    letter = data[offset : offset + 1]
    new = data[:offset] + LOOK_ALIKES[letter].encode() + data[offset + 1 :]
    start = data.rfind(b"\n", 0, offset) + 1
    end = data.find(b"\n", offset)
    line = data[start : end if end != -1 else len(data)]
    number = data[:offset].count(b"\n") + 1
    return new, f"{letter.decode()} to {LOOK_ALIKES[letter]!r} at line {number}", (_text(line),)


def _block_spans(lines: list[bytes]) -> list[tuple[int, int]]:
    """Each top-level `/// NAME` block: its opener's and its closing line's index."""
    spans = []
    index = 0
    while index < len(lines):
        if BLOCK_OPENER.match(lines[index]):
            end = next(
                (i for i in range(index + 1, len(lines)) if lines[i].strip() == b"///"), None
            )
            if end is None:
                break
            spans.append((index, end))
            index = end
        index += 1
    return spans


def _fence_block(lines: list[bytes], pick: Picker) -> tuple[bytes, str, tuple[str, ...]] | None:
    """A whole block put inside a code fence, as an author shows an example of one: it must
    then be literal (no question counted, no block rendered)."""
    spans = _block_spans(lines)
    if not spans:
        return None
    first, last = spans[pick(0, len(spans) - 1)]
    new = [*lines[:first], b"````markdown", *lines[first : last + 1], b"````", *lines[last + 1 :]]
    touched = tuple(_text(line) for line in lines[first : last + 1])
    return b"\n".join(new), f"lines {first + 1} to {last + 1} fenced", touched


def _miss_opener(lines: list[bytes], pick: Picker) -> tuple[bytes, str, tuple[str, ...]] | None:
    """A block's opener almost right: a slash more or less, or indented."""
    spans = _block_spans(lines)
    if not spans:
        return None
    first, last = spans[pick(0, len(spans) - 1)]
    opener = lines[first]
    shape = pick(0, 2)
    new_opener = [b"/" + opener, opener[1:], b"  " + opener][shape]
    new = [*lines[:first], new_opener, *lines[first + 1 :]]
    touched = tuple(_text(line) for line in lines[first : last + 1])
    what = ["a slash more", "a slash less", "indented"][shape]
    return b"\n".join(new), f"line {first + 1}: {what}", touched


def _drop_marker(data: bytes, pick: Picker) -> tuple[bytes, str, tuple[str, ...]] | None:
    """Delete one `///` line, one `-->` or one claim's closing `}`."""
    spots: list[tuple[int, int, str]] = []  # (start, end, what)
    offset = 0
    for line in data.split(b"\n"):
        if line.strip() == b"///":
            spots.append((offset, offset + len(line) + 1, "a closing '///' line"))
        offset += len(line) + 1
    spots += [(m.start(), m.end(), "a '-->'") for m in re.finditer(rb"-->", data)]
    spots += [(m.start("close"), m.end("close"), "a claim's '}'") for m in CLAIM_END.finditer(data)]
    if not spots:
        return None
    start, end, what = spots[pick(0, len(spots) - 1)]
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", start)
    line = data[line_start : line_end if line_end != -1 else len(data)]
    number = data[:start].count(b"\n") + 1
    return data[:start] + data[end:], f"{what} at line {number}", (_text(line),)


def _change_type(
    lines: list[bytes], pick: Picker, file: str
) -> tuple[bytes, str, tuple[str, ...]] | None:
    """A `key: value` line of YAML (a file's, or a page's front matter) whose value becomes a
    list or a mapping."""
    if file.endswith(".md"):
        # The front matter: from the first line to the next '---'.
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == b"---"), 0)
        candidates = list(range(1, end))
    elif file.endswith(".yml"):
        candidates = list(range(len(lines)))
    else:
        return None
    candidates = [i for i in candidates if SCALAR.match(lines[i])]
    if not candidates:
        return None
    index = candidates[pick(0, len(candidates) - 1)]
    match = SCALAR.match(lines[index])
    assert match is not None
    value = match["value"]
    shapes = [b"[" + value + b"]", b"{value: " + value + b"}", b"[]", *RETYPED]
    shape = pick(0, len(shapes) - 1)
    new = list(lines)
    new[index] = match["key"] + shapes[shape]
    kinds = ["a list", "a mapping", "an empty list", *(repr(v.decode()) for v in RETYPED)]
    where = f"line {index + 1} to {kinds[shape]}"
    return b"\n".join(new), where, (_text(lines[index]), _text(new[index]))


def _text(line: bytes) -> str:
    return line.decode("utf-8", errors="replace")


# -- the outline of a rendered page ------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A heading or a block of a page: its kind, its label, and the blocks it stands in."""

    kind: str
    label: str
    inside: tuple[str, ...]
    text: str = ""  # the start of its text, normalized (what it says, not how)

    def compared(self) -> tuple[str, str, tuple[str, ...]]:
        """What the comparison reads: a question's id is left out (it may be made from its
        text, and then moves with it)."""
        return (self.kind, "" if self.kind == "tk-check" else self.label, self.inside)

    def source_words(self) -> list[str]:
        """The words of the source that stand for it: its label, else its kind's name; and
        the start of its text."""
        kind = self.kind.removeprefix("tk-")
        label = self.label.removeprefix("check-")
        words = [_norm(label)[:40]] if _norm(label) else [_norm(kind)]
        return words + ([self.text[:40]] if len(self.text) >= 12 else [])

    def touched_by(self, touched: str, lines: list[str]) -> bool:
        """True when the mutation's lines (`touched`, all of them normalized; `lines`, each)
        stand for it or hold its words."""
        return any(word in touched for word in self.source_words()) or any(
            len(line) >= 12 and line[:60] in self.text for line in lines
        )


@dataclass
class Outline:
    entries: list[Entry] = field(default_factory=list)
    leaks: Counter[str] = field(default_factory=Counter)


class _OutlineParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.outline = Outline()
        self.stack: list[tuple[str, int | None]] = []  # (tag, index of its entry)
        self.heading: list[str] | None = None
        self.code = 0
        self.texts: list[list[str]] = []  # each entry's text, as it comes

    def _blocks(self) -> tuple[str, ...]:
        return tuple(
            self.outline.entries[index].kind
            for _, index in self.stack
            if index is not None and self.outline.entries[index].kind not in HEADINGS
        )

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_TAGS:
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        kind = next((c for c in classes if c.startswith("tk-") and "__" not in c), None)
        index = None
        if tag in HEADINGS or tag == "pre" or (tag in ("blockquote", "table") and kind is None):
            kind = tag
        elif tag not in BLOCK_TAGS:
            kind = None
        if kind is not None:
            label = values.get("id") or "" if kind == "tk-check" else ""
            if kind == "tk-excerpt":
                label = ""  # its caption follows as a heading-like text
            self.outline.entries.append(Entry(kind, label, self._blocks()))
            self.texts.append([])
            index = len(self.outline.entries) - 1
            if tag in HEADINGS:
                self.heading = []
        if tag in CODE_TAGS:
            self.code += 1
        self.stack.append((tag, index))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID_TAGS:
            return
        while self.stack:
            open_tag, index = self.stack.pop()
            if open_tag in CODE_TAGS:
                self.code -= 1
            if index is not None and open_tag in HEADINGS and self.heading is not None:
                entry = self.outline.entries[index]
                text = " ".join("".join(self.heading).replace("¶", "").split())
                self.outline.entries[index] = Entry(entry.kind, text, entry.inside)
                self.heading = None
                self._label_section(text, entry)
            if open_tag == tag:
                break

    def _label_section(self, text: str, heading: Entry) -> None:
        """A section is known by its heading (the h2 it opens with)."""
        if heading.kind != "h2":
            return
        for _, index in reversed(self.stack):
            if index is None:
                continue
            entry = self.outline.entries[index]
            if entry.kind == "tk-section" and not entry.label:
                self.outline.entries[index] = Entry(entry.kind, text, entry.inside)
            break

    def handle_data(self, data: str) -> None:
        if self.heading is not None:
            self.heading.append(data)
        for _, index in self.stack:
            if index is not None and sum(map(len, self.texts[index])) < 2000:
                self.texts[index].append(data)
        if self.code:
            return
        for leak in LEAKS:
            if leak in data:
                self.outline.leaks[leak] += data.count(leak)


def outline(html: str) -> Outline:
    parser = _OutlineParser()
    parser.feed(html)
    parser.close()
    found = parser.outline
    found.entries = [
        dataclasses.replace(entry, text=_norm("".join(text)))
        for entry, text in zip(found.entries, parser.texts, strict=True)
    ]
    return found


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


# -- the harness -------------------------------------------------------------------------------


class Harness:
    """One copy of the project, mutated and restored in turn, with the original's outlines."""

    def __init__(self, folder: Path) -> None:
        self.project = copy_project(folder / "project", PROJECT_PARTS)
        self.files = course_files(self.project)
        self.extensions, self.options = markdown_extensions()
        self.stamp = 1_000_000_000  # a mutated file's modification time: new each time
        site = self._load()
        self.original = {page.id: self._outline(site, page) for page in self._pages(site)}
        self.sources = {page.id: self._source(page) for page in self._pages(site)}
        self.lines = {
            file: (self.project / file).read_bytes().count(b"\n") + 1 for file in self.files
        }

    def _load(self) -> Site:
        with contextlib.chdir(self.project):
            return load_site(self.project / "modules", base_dir=self.project)

    @staticmethod
    def _pages(site: Site) -> list[Page]:
        return [page for page in site.pages() if page.source is not None]

    def _source(self, page: Page) -> str:
        assert page.source is not None
        return Path(os.path.relpath(page.source, self.project)).as_posix()

    def _outline(self, site: Site, page: Page) -> Outline:
        text = site.renderer.page_markdown(page)
        if text.startswith("---\n"):
            text = text.split("\n---\n", 1)[1]
        converter = markdown.Markdown(
            extensions=[*self.extensions, *site.markdown_extensions()],
            extension_configs=self.options,
        )
        return outline(converter.convert(text))

    def run(self, mutation: Mutation) -> Outcome:
        """Apply the mutation, load, check and render; restore the file; judge the outcome."""
        path = self.project / mutation.file
        before = path.read_bytes()
        stat = path.stat()
        self.stamp += 1
        path.write_bytes(mutation.data)
        os.utime(path, ns=(self.stamp * 10**9, self.stamp * 10**9))
        try:
            return self._judge(mutation)
        finally:
            path.write_bytes(before)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

    def _judge(self, mutation: Mutation) -> Outcome:
        try:
            site = self._load()
            pages = [
                page
                for page in self._pages(site)
                if page.id in self.original and self._watched(mutation.file, self._source(page))
            ]
            outlines = {page.id: self._outline(site, page) for page in pages}
        except CourseError as error:
            return self._caught(mutation, str(error))
        except Exception:  # any other exception is what the invariant forbids
            return Outcome("failed", mutation, traceback.format_exc(limit=-4))
        for page_id, found in outlines.items():
            why = self._differs(self.original[page_id], found, mutation)
            if why:
                return Outcome("failed", mutation, f"{self.sources[page_id]}: {why}")
        return Outcome("built", mutation)

    @staticmethod
    def _watched(mutated: str, source: str) -> bool:
        """The pages a mutation of `mutated` may change: its own; for a module's other files
        (duties, scenarios, transcripts, worked examples) every page of the module; for
        course.yml the home page."""
        if mutated.endswith(".md"):
            return source == mutated
        if mutated == "modules/course.yml":
            return source == mutated
        module = mutated.split("/")[:2]
        return source.split("/")[:2] == module

    def _caught(self, mutation: Mutation, message: str) -> Outcome:
        """One line per problem, each `FILE:LINE: what. Fix: how.` with one Fix, at a line of
        a file the mutation leads to, and no place named twice (one slip told twice). A change
        that makes several sentences false (a scenario's job deleted, a transcript's reply
        changed) is a problem at each sentence: several lines, "caught-many"."""
        places: set[str] = set()
        for text in message.splitlines():
            why = self._bad_line(mutation, text)
            if why:
                return Outcome("failed", mutation, f"{why}:\n{message}")
            place = text.split(": ", 1)[0]
            if place in places:
                return Outcome("failed", mutation, f"{place} is named twice:\n{message}")
            places.add(place)
        kind = "caught" if len(places) == 1 else "caught-many"
        return Outcome(kind, mutation, message)

    def _bad_line(self, mutation: Mutation, text: str) -> str:
        match = ONE_LINE.match(text)
        if match is None or text.count("Fix:") != 1:
            return "not one `FILE:LINE: what. Fix: how.`"
        named = match["file"]
        if not self._leads_to(mutation.file, named):
            return f"names {named}, not the mutated file or one it leads to"
        if match["line"] is not None:
            path = self.project / named
            limit = path.read_bytes().count(b"\n") + 1 if path.is_file() else 0
            if not 1 <= int(match["line"]) <= limit:
                return f"line {match['line']} is not in {named}"
        return ""

    def _leads_to(self, mutated: str, named: str) -> bool:
        """The file a message names is the mutated one, or one it leads to: a file of the same
        module (a duty's scenario, the page that shows a transcript, the dive of a worked
        example), the course file, or a page that links to the mutated page."""
        if named == mutated or named.rstrip("/") == str(Path(mutated).parent):
            return True
        if named == "modules/course.yml" or mutated == "modules/course.yml":
            return named.startswith("modules/")
        module = mutated.split("/")[:2]
        if named.split("/")[:2] == module and not module[1].startswith("books"):
            return True
        # A page's id or title changed: a page that links to it by id is where it shows.
        page_id = next((pid for pid, src in self.sources.items() if src == mutated), None)
        path = self.project / named
        return (
            page_id is not None
            and path.is_file()
            and f"id:{page_id}" in path.read_text(encoding="utf-8", errors="replace")
        )

    @staticmethod
    def _differs(original: Outline, found: Outline, mutation: Mutation) -> str:
        """Where the mutated page's outline differs from the original's, beyond the entries
        that stand on the lines the mutation touched; or "" when it does not."""
        touched = _norm(" ".join(mutation.touched))
        lines = [_norm(line) for line in mutation.touched]
        before = [entry.compared() for entry in original.entries]
        after = [entry.compared() for entry in found.entries]
        matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            region = original.entries[i1:i2] + found.entries[j1:j2]
            if any(entry.touched_by(touched, lines) for entry in region):
                continue  # a heading or block on a line the mutation touched
            return (
                "the outline changed where the mutation touched nothing: "
                f"{before[i1:i2]} became {after[j1:j2]}"
            )
        for leak, count in found.leaks.items():
            was = original.leaks.get(leak, 0)
            if count > was:
                return f"{leak!r} shows as text {count} times (the original: {was})"
        return ""


def fresh_harness(folder: Path) -> Harness:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return Harness(folder)
