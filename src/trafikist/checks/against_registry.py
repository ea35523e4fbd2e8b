"""The registry checks: every excerpt, verb, claim and library name of a page against trafikey's
registry and the library manifest.

    1. excerpts      a `quotes: registry` excerpt matches registry::TABLE field by field
    2. verbs         every EMQ.* verb a page names is a row (or the page says it is absent)
    3. claims        every `[sentence]{claim: …}` holds
    4. library       every EchoMQ name, @script and default is in the manifest

Each problem names the file and line, what is wrong and the fix.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import Problem
from trafikist.checks.claims import (
    FORMS,
    ClaimSyntaxError,
    absent_globs,
    evaluate,
    split_expressions,
)
from trafikist.checks.inputs import PageCheck, proving
from trafikist.checks.manifest import Manifest
from trafikist.checks.sentences import readable_questions
from trafikist.course import syntax
from trafikist.course.evidence import CheckedSentence, RegistryField
from trafikist.course.structure import Course, Page
from trafikist.course.syntax import Excerpt, Fence
from trafikist.registry import rust
from trafikist.registry.rows import Registry, Row

MANIFEST_FIX = "registry/library.yml"


@dataclass
class Text:
    """A run of an author's text to check, and how to find the line of an offset in it."""

    file: Path
    text: str
    line_at: Callable[[int], int | None]
    where: str = "body"  # as an evidence anchor names the text (trafikist.course.evidence)


def check_course(course: Course, registry: Registry, manifest: Manifest) -> list[Problem]:
    """The four checks over every page written by an author; an empty list when all hold."""
    problems: list[Problem] = []
    for page in course.pages.values():
        if page.source is not None:
            problems.extend(check_against_registry(page, registry, manifest))
    return _unique(problems)


def check_against_registry(
    page: Page,
    registry: Registry,
    manifest: Manifest,
    proven: list[CheckedSentence] | None = None,
) -> list[Problem]:
    """The four checks of one page; each claim that holds goes to `proven`, with the fields
    it read."""
    assert page.source is not None
    scanned = syntax.scan(page.body)
    problems = list(_check_fences(page.source, scanned.fences, page.body_line, registry))
    texts = list(_texts(page, scanned))
    exempt = [
        glob
        for text in texts
        for span in syntax.find_claims(text.text)
        for glob in absent_globs(span.expression)
    ]
    for text in texts:
        problems.extend(_check_claims(text, registry, manifest, proven))
        reader = _without_expressions(text.text)
        problems.extend(_check_verbs(text, reader, registry, exempt))
        problems.extend(_check_library(text, reader, manifest))
    return problems


CHECK = PageCheck(
    "registry",
    proving(
        lambda page, facts, proven: check_against_registry(
            page, facts.registry, facts.manifest, proven
        )
    ),
    facts=("registry", "manifest"),
)


def _texts(page: Page, scanned: syntax.Scanned) -> Iterator[Text]:
    assert page.source is not None
    yield Text(page.source, scanned.prose, lambda offset: page.body_line + scanned.line_of(offset))
    for key in ("title", "summary"):
        value = page.meta.get(key)
        if isinstance(value, str):
            yield Text(page.source, value, _always(page.line_of(key)), f"meta:{key}")
    for duty in page.duties:
        for name in duty.TEXT_FIELDS:
            where = f"duty:{duty.id}:{name}"
            yield Text(duty.source, duty.text(name), _always(duty.line_of(name)), where)
    # A question's prompt, options and explanations are read like the page's prose: their
    # claims hold, their verbs and library names exist.
    for question in readable_questions(page):
        where = f"question:{question.id}"
        parts = [(question.prompt, question.line, f"{where}:prompt")]
        parts += [
            (option.text, option.line, f"{where}:option:{number}")
            for number, option in enumerate(question.options)
        ]
        parts += [
            (item.text, item.line, f"{where}:item:{number}")
            for number, item in enumerate(question.items)
        ]
        parts += [
            (text, line, f"{where}:why:{number}")
            for number, (text, line) in enumerate(question.whys)
        ]
        for text, line, part in parts:
            yield Text(page.source, text, _always(line), part)


def _always(line: int | None) -> Callable[[int], int | None]:
    """The line of a text that sits on one line, whatever the offset."""
    return lambda _offset: line


# ---------------------------------------------------------------- 1. excerpts


def _check_fences(
    file: Path, fences: Iterable[Fence], body_line: int, registry: Registry
) -> Iterator[Problem]:
    for fence in fences:
        first_line = body_line + fence.first_line
        code = "\n".join(fence.code)
        excerpt = fence.excerpt
        if excerpt is None or not excerpt.quotes_registry:
            if "Row" in code and rust.rows_in_fragment(code, file, first_line).rows:
                yield Problem(
                    file,
                    first_line,
                    "this code quotes registry::TABLE rows, but nothing checks it.",
                    "Put it in an excerpt block with the option `quotes: registry`: "
                    "`/// excerpt | caption`, then `    quotes: registry` on the next line.",
                )
            continue
        parsed = rust.rows_in_fragment(code, file, first_line)
        for issue in parsed.issues:
            yield Problem(
                file,
                issue.line,
                issue.what,
                "An excerpt that quotes the registry holds whole rows "
                "(`key => handler, Row { … };`), comment lines and `// …` elisions.",
            )
        if not parsed.rows and not parsed.issues:
            yield Problem(
                file,
                first_line,
                "the excerpt is marked `quotes: registry` but quotes no row.",
                "Quote at least one row of registry::TABLE, or drop `quotes: registry`.",
            )
        for row in parsed.rows:
            yield from _check_row(file, row, excerpt, registry)


def _check_row(file: Path, quoted: Row, excerpt: Excerpt, registry: Registry) -> Iterator[Problem]:
    actual = registry.rows.get(quoted.name)
    if actual is None:
        yield Problem(
            file,
            quoted.fields["name"].line,
            f"the excerpt quotes a row named {quoted.name}, which registry::TABLE "
            f"({registry.root}) does not have.",
            f"Quote a registered row: {', '.join(registry.rows)}.",
        )
        return
    fix = f"Quote the row as {actual.location} has it, or update the registry if trafikey changed."
    for name, found in quoted.fields.items():
        expected = actual.fields.get(name)
        if expected is None:
            yield Problem(
                file,
                found.line,
                f"excerpt row {quoted.name}, field '{name}': expected no such field "
                f"(registry), found {found.text} (excerpt).",
                fix,
            )
            continue
        if expected.tokens != found.tokens:
            yield Problem(
                file,
                found.line,
                f"excerpt row {quoted.name}, field '{name}': expected {expected.text} "
                f"(registry), found {found.text} (excerpt).",
                fix,
            )
        if name in actual.chosen_fields and not excerpt.says_models_own:
            yield Problem(
                file,
                found.line,
                f"excerpt row {quoted.name} quotes field '{name}' ({found.text}), a value that "
                f"is the model's own choice, not trafikey's ({actual.location}).",
                'Say so in the caption ("… the model\'s own choice …"), or leave the field out '
                "and mark the gap with `// …`.",
            )
    missing = [name for name in actual.fields if name not in quoted.fields]
    if missing and not quoted.elided:
        yield Problem(
            file,
            quoted.line,
            f"excerpt row {quoted.name} leaves out {', '.join(missing)} with no `// …` elision.",
            "Quote the whole row, or mark the skipped part with a `// …` line.",
        )


# ---------------------------------------------------------------- 3. claims


def _check_claims(
    text: Text, registry: Registry, manifest: Manifest, proven: list[CheckedSentence] | None
) -> Iterator[Problem]:
    for span in syntax.find_claims(text.text):
        line = text.line_at(span.start)
        sentence = span.sentence
        expressions = split_expressions(span.expression)
        read: list[RegistryField] = []
        held = bool(expressions)
        if not expressions:
            yield Problem(
                text.file,
                line,
                f'the claim on the sentence "{sentence}" is empty.',
                f"Write one of: {FORMS}.",
            )
        for expression in expressions:
            try:
                verdict = evaluate(expression, span.text, registry, manifest)
            except ClaimSyntaxError as error:
                held = False
                yield Problem(
                    text.file,
                    line,
                    f"the claim '{expression}' on the sentence \"{sentence}\" cannot be read: "
                    f"{error}",
                    f"Write one of: {FORMS} (docs/registry.md).",
                )
                continue
            held = held and verdict.holds
            read.extend(verdict.read)
            if verdict.circular:
                yield Problem(
                    text.file,
                    line,
                    f"the claim '{expression}' checks nothing: {verdict.why}. "
                    f'Sentence: "{sentence}"',
                    "Drop the claim: cite the seed sentence the sentence follows from in a source "
                    'comment (<!-- seed: "…" -->), or mark the value as the model\'s own choice '
                    "([…]{choice: ID}).",
                )
            elif not verdict.holds:
                yield Problem(
                    text.file,
                    line,
                    f"the claim '{expression}' does not hold: {verdict.why}. "
                    f'Sentence: "{sentence}"',
                    "Correct the sentence and its claim, or update the registry or "
                    f"{MANIFEST_FIX} if trafikey or EchoMQ changed.",
                )
        if held and proven is not None:
            proven.append(
                CheckedSentence(
                    str(text.file),
                    line or 0,
                    text.text[span.start : span.end],
                    f"{text.where}:{span.start}",
                    tuple(dict.fromkeys(read)),
                )
            )


# ---------------------------------------------------------------- 2. verbs


def _check_verbs(
    text: Text, reader: str, registry: Registry, exempt: list[str]
) -> Iterator[Problem]:
    for match in syntax.VERB.finditer(reader) if "EMQ." in reader else ():
        verb = match.group()
        if verb in registry.rows or any(fnmatch.fnmatchcase(verb, glob) for glob in exempt):
            continue
        yield Problem(
            text.file,
            text.line_at(match.start()),
            f"names the verb {verb}, which registry::TABLE does not have.",
            f"Name a registered verb ({', '.join(registry.rows)}); if the page says it does not "
            f"exist, mark that sentence with a claim: [sentence]{{claim: absent {verb}}}.",
        )


# ---------------------------------------------------------------- 4. library names


def _check_library(text: Text, reader: str, manifest: Manifest) -> Iterator[Problem]:
    # Each name has a mark that a plain `in` finds far faster than its pattern: most of a
    # course's prose names none (a function's arity "/", a module's "EchoMQ.", a script's "@").
    blanked = reader
    if "/" in reader:
        module_tails = {name.rsplit(".", 1)[-1]: name for name in manifest.modules}
        for match in syntax.FUNCTION.finditer(reader):
            name = match["name"]
            full = name if name.startswith("EchoMQ.") else f"EchoMQ.{name}"
            if full in manifest.functions:
                continue
            if name.startswith("EchoMQ.") or name.split(".", 1)[0] in module_tails:
                yield _unknown(text, match.start(), full, "function", manifest.functions, manifest)
        blanked = syntax.FUNCTION.sub(lambda match: " " * len(match.group()), reader)
    for match in syntax.MODULE.finditer(blanked) if "EchoMQ." in blanked else ():
        if match.group() not in manifest.modules:
            yield _unknown(text, match.start(), match.group(), "module", manifest.modules, manifest)
    for match in syntax.SCRIPT.finditer(blanked) if "@" in blanked else ():
        if match["name"] in syntax.ACL_CATEGORIES:
            continue
        if match.group() not in manifest.scripts:
            yield _unknown(text, match.start(), match.group(), "script", manifest.scripts, manifest)
    for match in syntax.WIRE.finditer(reader) if "wire:" in reader else ():
        wire = f"wire: {match['number']}"
        if wire not in manifest.wires:
            yield _unknown(text, match.start(), wire, "wire", manifest.wires, manifest)


def _unknown(
    text: Text, offset: int, name: str, kind: str, known: Iterable[str], manifest: Manifest
) -> Problem:
    base = re.split(r"[/.]", name.removeprefix("EchoMQ."))[0]
    close = [entry for entry in known if base and base in entry][:3]
    hint = f" Close: {', '.join(close)}." if close else ""
    return Problem(
        text.file,
        text.line_at(offset),
        f"names the {kind} {name}, which the library manifest ({manifest.file}) does not list.",
        f"Use a name the seed gives, or add it to {MANIFEST_FIX} with the seed sentence that "
        f"gives it.{hint}",
    )


# ---------------------------------------------------------------- helpers


def _without_expressions(text: str) -> str:
    """The text with every claim's expression blanked out, offsets kept."""
    for span in syntax.find_claims(text):
        close = span.text_start + len(span.text)
        text = text[:close] + syntax.blank(text[close : span.end]) + text[span.end :]
    return text


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, int | None, str]] = set()
    unique: list[Problem] = []
    for problem in problems:
        key = (str(problem.file), problem.line, problem.what)
        if key not in seen:
            seen.add(key)
            unique.append(problem)
    return unique
