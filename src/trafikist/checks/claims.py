"""Claims: the machine-checkable form of a sentence that asserts a registry or library fact.

An author writes `[sentence]{claim: EXPRESSION; EXPRESSION …}`. Each expression is one of:

    EMQ.PROMOTE.arity = 6             a row's field (=, !=, has, lacks)
    EMQ.PROMOTE.acl = write slow      word fields (flags, acl, caps) compare as sets of words
    *.flags lacks blocking            a glob selects rows; the claim holds for every one
    EMQ.PROMOTE.arity                 no value: the value is the bracketed text ("[6]{claim: …}")
    absent EMQ.*REAP*                 no row's name matches (the course says the verb is missing)
    exists EMQ.APPEND EMQ.PUBLISH     each is a row
    gate lacks blocked-client ready-signal timer      the load gate's list names none of these
    calls lacks blocked-client ready-signal timer     no call in the crate's source names one
    default consumer-beat = 1 second  a default of the library manifest (value optional as above)

Kinds for gate/calls are `blocked-client`, `ready-signal` and `timer`; any other word is a host
function name.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from trafikist.base.errors import display_path
from trafikist.checks.manifest import Manifest
from trafikist.checks.quantity import parse_quantity
from trafikist.course.evidence import RegistryField
from trafikist.course.structure import SLUG_PATTERN
from trafikist.course.syntax import split_predicates
from trafikist.registry import hostapi
from trafikist.registry.rows import ALL_FIELDS, LIST_FIELDS, WORD_FIELDS, Registry, Row, words

# How a claim compares a field with its value; a proof from Valkey's command table
# (trafikist.checks.valkey_statements) takes the same operators, meaning the same (words_hold).
OPERATOR = r"(?P<op>!=|=|\bhas\b|\blacks\b)"
ROW_CLAIM = re.compile(
    r"^(?P<selector>[A-Z*?][A-Z0-9_.*?]*?)\.(?P<field>[a-z]+)"
    rf"(?:\s*{OPERATOR}\s*(?P<value>.*))?$"
)
KEYWORD_CLAIM = re.compile(r"^(?P<keyword>absent|exists|gate|calls|default)\b\s*(?P<rest>.*)$")
LIST_CLAIM = re.compile(r"^(?P<op>has|lacks)\s+(?P<items>.+)$")
DEFAULT_CLAIM = re.compile(rf"^(?P<name>{SLUG_PATTERN})(?:\s*=\s*(?P<value>.+))?$")
FORMS = (
    "`VERB.field = value` (=, !=, has, lacks; VERB may be a glob like `*`), "
    "`absent GLOB`, `exists VERB`, `gate lacks KIND`, `calls lacks KIND` "
    "(KIND: blocked-client, ready-signal, timer, or a function name), "
    "`default NAME = value`"
)


class ClaimSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class Verdict:
    holds: bool
    why: str = ""  # what the registry or manifest holds instead, when it does not hold
    # True when every value the claim reads is the model's own choice, or is not there to read
    # (the snapshot has no crate source): such a claim would only check the model against
    # itself, so the build refuses it instead of counting it as checked.
    circular: bool = False
    # What the claim read, as the registry or the manifest holds it: the evidence it shows.
    read: tuple[RegistryField, ...] = ()


def split_expressions(expression: str) -> list[str]:
    return split_predicates(expression)


def absent_globs(expression: str) -> list[str]:
    """The globs of every `absent` part: verbs the sentence says do not exist."""
    globs: list[str] = []
    for part in split_expressions(expression):
        match = KEYWORD_CLAIM.match(part)
        if match and match["keyword"] == "absent":
            globs.extend(match["rest"].split())
    return globs


def evaluate(expression: str, text: str, registry: Registry, manifest: Manifest) -> Verdict:
    """Check one expression; `text` is the sentence (the bracketed words) it is attached to."""
    keyword = KEYWORD_CLAIM.match(expression)
    if keyword is not None:
        rest = keyword["rest"].strip()
        match keyword["keyword"]:
            case "absent":
                return _absent(rest, registry)
            case "exists":
                return _exists(rest, registry)
            case "gate":
                return _gate(rest, registry)
            case "calls":
                return _calls(rest, registry)
            case "default":
                return _default(rest, text, manifest)
    row_claim = ROW_CLAIM.match(expression)
    if row_claim is None:
        raise ClaimSyntaxError(f"cannot read the claim '{expression}'.")
    return _rows(
        row_claim["selector"],
        row_claim["field"],
        row_claim["op"] or "=",
        row_claim["value"] if row_claim["op"] else None,
        text,
        registry,
    )


def _rows(
    selector: str, field: str, op: str, value: str | None, text: str, registry: Registry
) -> Verdict:
    if field not in ALL_FIELDS:
        raise ClaimSyntaxError(f"'{field}' is not a row field ({', '.join(ALL_FIELDS)}).")
    rows = _select(selector, registry)
    if not rows:
        return Verdict(False, f"registry::TABLE has no row named {selector}")
    wanted = _unquote(value if value is not None else text)
    if all(field in row.chosen_fields for row in rows):
        chosen = ", ".join(row.name for row in rows)
        return Verdict(
            False, f"the {field} of {chosen} is the model's own choice, not trafikey's", True
        )
    read = []
    for row in rows:
        failure = _row_holds(row, field, op, wanted, value is None)
        if failure:
            return Verdict(False, f"{row.name} has {field} {failure} ({row.location})")
        found = row.fields.get(field)
        read.append(RegistryField(row.name, field, _shown(found.value if found else None)))
    return Verdict(True, read=tuple(read))


def words_hold(op: str, have: set[str], want: set[str]) -> bool:
    """`have OP want` of a field of words (flags, ACL categories) and the words stated: `=` the
    same words, `!=` not, `has` every word stated, `lacks` none of them."""
    by_operator = {
        "=": have == want,
        "!=": have != want,
        "has": want <= have,
        "lacks": not want & have,
    }
    return by_operator[op]


def _row_holds(row: Row, field: str, op: str, wanted: str, from_text: bool) -> str | None:
    """None when the row satisfies `field op wanted`, else the row's value as written."""
    found = row.fields.get(field)
    shown = found.text if found is not None else "(not written)"
    actual = found.value if found is not None else None
    if field in WORD_FIELDS or field in LIST_FIELDS:
        have = set(words(actual))
        want = set(wanted.replace(",", " ").split())
        holds = words_hold(op, have, want)
    elif field == "arity":
        if from_text:
            quantity = parse_quantity(wanted)
            target = int(quantity.number) if quantity is not None else None
        else:
            target = _int_or_none(wanted)
        if target is None:
            raise ClaimSyntaxError(f"'{wanted}' is not an arity.")
        holds = {
            "=": actual == target,
            "!=": actual != target,
            "has": actual == target,
            "lacks": actual != target,
        }[op]
    else:
        text = "" if actual is None else str(actual)
        stated = None if wanted == "None" else wanted
        holds = {
            "=": actual == stated,
            "!=": actual != stated,
            "has": stated is not None and stated in text,
            "lacks": stated is None or stated not in text,
        }[op]
    return None if holds else shown


def _select(selector: str, registry: Registry) -> list[Row]:
    if any(char in selector for char in "*?"):
        return [row for name, row in registry.rows.items() if fnmatch.fnmatchcase(name, selector)]
    row = registry.rows.get(selector)
    return [row] if row is not None else []


def _absent(rest: str, registry: Registry) -> Verdict:
    if not rest:
        raise ClaimSyntaxError("'absent' needs a verb or a glob, like 'absent EMQ.*REAP*'.")
    for glob in rest.split():
        for name, row in registry.rows.items():
            if fnmatch.fnmatchcase(name, glob):
                return Verdict(False, f"registry::TABLE has {name} ({row.location})")
    return Verdict(True, read=tuple(RegistryField(glob, "row", "absent") for glob in rest.split()))


def _exists(rest: str, registry: Registry) -> Verdict:
    if not rest:
        raise ClaimSyntaxError("'exists' needs a verb, like 'exists EMQ.APPEND'.")
    missing = [name for name in rest.split() if not _select(name, registry)]
    if missing:
        return Verdict(False, f"registry::TABLE has no row named {', '.join(missing)}")
    return Verdict(True, read=tuple(RegistryField(name, "row", "exists") for name in rest.split()))


def _gate(rest: str, registry: Registry) -> Verdict:
    where = (
        f"{display_path(registry.gate_file)}:{registry.gate_line}"
        if registry.gate_file
        else "nowhere"
    )
    if registry.gate_file is None:
        return Verdict(
            False, "the registry has no load gate list (a const array of host function names)"
        )
    verdict = _names_claim(rest, registry.gate_functions, f"the gate list ({where})")
    if registry.gate_chosen and verdict.holds:
        return Verdict(
            False, f"the entries of the gate list ({where}) are the model's own choice", True
        )
    if not verdict.holds:
        return verdict
    listed = ", ".join(registry.gate_functions) or "none"
    return Verdict(True, read=(RegistryField("load gate", "host functions", listed),))


def _calls(rest: str, registry: Registry) -> Verdict:
    if registry.source_calls is None:
        _names_claim(rest, [], "")  # still reject a malformed claim
        return Verdict(False, "the snapshot holds no crate source to search", circular=True)
    verdict = _names_claim(rest, sorted(registry.source_calls), "the crate's source")
    if not verdict.holds:
        return verdict
    return Verdict(True, read=(RegistryField("the crate's source", "calls", rest),))


def _names_claim(rest: str, names: list[str], where: str) -> Verdict:
    match = LIST_CLAIM.match(rest)
    if match is None:
        raise ClaimSyntaxError("write 'has NAME…' or 'lacks KIND…' after 'gate' or 'calls'.")
    for item in match["items"].replace(",", " ").split():
        if item in hostapi.KINDS:
            hits = hostapi.names_of_kind(names, item)
        else:
            hits = [name for name in names if hostapi.normalize(name) == hostapi.normalize(item)]
        if match["op"] == "lacks" and hits:
            return Verdict(False, f"{where} names {', '.join(hits)} ({item})")
        if match["op"] == "has" and not hits:
            return Verdict(False, f"{where} names no {item}")
    return Verdict(True)


def _default(rest: str, text: str, manifest: Manifest) -> Verdict:
    match = DEFAULT_CLAIM.match(rest)
    if match is None:
        raise ClaimSyntaxError("write 'default NAME' or 'default NAME = VALUE'.")
    entry = manifest.defaults.get(match["name"])
    if entry is None:
        known = ", ".join(sorted(manifest.defaults)) or "none"
        return Verdict(False, f"the manifest has no default '{match['name']}' (known: {known})")
    stated_text = match["value"] if match["value"] else text
    stated = parse_quantity(stated_text)
    if stated is None:
        raise ClaimSyntaxError(f"'{stated_text}' states no number for the default.")
    if not stated.same_as(entry.value):
        return Verdict(
            False,
            f"the page says {stated}, the manifest gives {entry.text} ({manifest.location(entry)})",
        )
    return Verdict(True, read=(RegistryField("", f"default {match['name']}", entry.text),))


def _shown(value: object) -> str:
    """A field's value as the reader reads it: `c"write slow"` is write slow, a list its
    entries."""
    if value is None:
        return "(not written)"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def _unquote(value: str) -> str:
    value = value.strip().replace("`", "")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _int_or_none(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None
