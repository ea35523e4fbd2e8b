"""The parser: the snapshot, tricky rows, excerpt fragments, gate lists and host calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import SEED
from support.registry import SEED_ROWS, SNAPSHOT
from trafikist.base.errors import CourseError
from trafikist.checks.manifest import load_manifest
from trafikist.registry import (
    ENV_VAR,
    export_command_table,
    load_registry,
    resolve_registry_path,
    rust,
)
from trafikist.registry.rows import ALL_FIELDS

BUS_VERBS = ("EMQ.APPEND", "EMQ.PUBLISH", "EMQ.FAILURES.INCR")
SEED_VERBS = ("EMQ.PROMOTE", "EMQ.STALLED.CHECK")


@pytest.fixture(scope="module")
def snapshot():
    return load_registry(SNAPSHOT)


def test_snapshot_holds_the_seed_rows_and_the_bus_verbs(snapshot) -> None:
    assert list(snapshot.rows) == [*SEED_VERBS, *BUS_VERBS]
    promote = snapshot.rows["EMQ.PROMOTE"]
    assert promote.value("key") == "emq_promote"
    assert promote.handler == "crate::emq::scheduling::promote"
    assert promote.value("family") == "Family::Emq"
    assert promote.arity == 6
    assert promote.flags == ["write"]
    assert promote.value("keys") == "EVAL_KEYS"
    assert promote.acl == ["write", "slow"]
    assert promote.caps == ["promote"]
    assert promote.value("summary") == (
        "Move due scheduled flat jobs to pending, bounded by batch (emq6.8 G8, @promote)"
    )
    assert promote.value("complexity") == "O(M log N) for M due jobs"
    assert promote.value("since") == "0.1.0"
    assert promote.fields["name"].text == 'c"EMQ.PROMOTE"'
    assert promote.fields["acl"].text == 'c"write slow"'
    stalled = snapshot.rows["EMQ.STALLED.CHECK"]
    assert (stalled.arity, stalled.handler, stalled.caps) == (
        8,
        "crate::emq::recovery::stalled_check",
        ["stalled.check"],
    )
    assert stalled.value("summary").endswith("restart expiries exempt (emq6.8 G15, @sweep_stalled)")


def test_snapshot_quotes_the_seed_rows_word_for_word() -> None:
    assert SEED_ROWS in (SNAPSHOT / "src" / "registry.rs").read_text(encoding="utf-8")
    if SEED.is_file():  # the seed itself, where this machine has it
        seed = SEED.read_text(encoding="utf-8")
        for line in SEED_ROWS.splitlines():
            if "=>" in line or "summary" in line or "flags" in line or "complexity" in line:
                assert line.strip() in seed


def test_only_the_seed_rows_are_given_every_other_value_is_marked_chosen(snapshot) -> None:
    for verb in SEED_VERBS:
        assert snapshot.rows[verb].chosen_fields == frozenset()
    for verb in BUS_VERBS:
        assert snapshot.rows[verb].chosen_fields == frozenset(ALL_FIELDS) - {"name"}
    assert snapshot.gate_chosen


def test_snapshot_gate_list_and_no_source(snapshot) -> None:
    assert snapshot.gate_functions[0] == "ValkeyModule_CreateCommand"
    assert snapshot.gate_file == SNAPSHOT / "src" / "gate.rs"
    assert all(name.startswith("ValkeyModule_") for name in snapshot.gate_functions)
    assert snapshot.source_calls is None  # a snapshot is not the crate's source
    assert snapshot.is_snapshot


def test_no_snapshot_row_carries_the_blocking_flag(snapshot) -> None:
    assert all("blocking" not in row.flags for row in snapshot.rows.values())


def test_export_command_table(snapshot) -> None:
    table = export_command_table(snapshot)
    assert table["EMQ.PROMOTE"] == {
        "arity": 6,
        "flags": ["write"],
        "acl": ["write", "slow"],
        "keys": "EVAL_KEYS",
        "caps": ["promote"],
        "family": "Family::Emq",
        "summary": (
            "Move due scheduled flat jobs to pending, bounded by batch (emq6.8 G8, @promote)"
        ),
        "complexity": "O(M log N) for M due jobs",
        "since": "0.1.0",
        "handler": "crate::emq::scheduling::promote",
        "chosen": [],
    }
    assert table["EMQ.APPEND"]["chosen"] == sorted(set(ALL_FIELDS) - {"name"})
    assert table["EMQ.APPEND"]["summary"] is not None


TRICKY = r"""
macro_rules! unused { () => {}; }
pub static TABLE: &[Entry] = table! {
    // a comment before the row
    emq_tricky => crate::emq::tricky::run, Row {
        name: c"EMQ.TRICKY", // the name
        family: Family::Emq, /* block comment; with a semicolon */ arity: -3,
        flags: "write deny-oom", keys: EVAL_KEYS,
        acl: c"write slow",
        caps: &["a;b", "c,d"],
        summary: Some("Say \"hi\"; then \\ leave, {braces} and [brackets]"),
        complexity: None,
        since: Some(r"0.2.0"), };
    // model's own choice: arity, summary
    emq_bare => crate::emq::bare, Row { name: c"EMQ.BARE", arity: 2, flags: "readonly",
        keys: NO_KEYS, acl: c"read fast", caps: &[], summary: None, complexity: None, since: None }
};
"""


def test_tricky_rows() -> None:
    parsed = rust.rows_in_file(TRICKY, Path("tricky.rs"))
    assert parsed.issues == []
    tricky, bare = parsed.rows
    assert tricky.name == "EMQ.TRICKY"
    assert tricky.line == 5
    assert tricky.arity == -3
    assert tricky.flags == ["write", "deny-oom"]
    assert tricky.caps == ["a;b", "c,d"]
    assert tricky.value("summary") == 'Say "hi"; then \\ leave, {braces} and [brackets]'
    assert tricky.fields["summary"].line == 11
    assert tricky.value("complexity") is None
    assert tricky.value("since") == "0.2.0"
    assert tricky.chosen_fields == frozenset()
    assert bare.value("summary") is None
    assert bare.caps == []
    assert bare.chosen_fields == {"arity", "summary"}
    assert bare.handler == "crate::emq::bare"


def test_rows_nested_in_a_token_tree() -> None:
    text = 'rows!(TABLE = [ k => h::f, Row { name: c"EMQ.A", arity: 2 }; ]);'
    parsed = rust.rows_in_file(text, Path("nested.rs"))
    assert [row.name for row in parsed.rows] == ["EMQ.A"]


def test_a_chosen_mark_naming_no_field_is_an_error() -> None:
    text = 'table! {\n    // model\'s own choice: arty\n    k => h, Row { name: c"EMQ.A" };\n}\n'
    parsed = rust.rows_in_file(text, Path("x.rs"))
    assert [issue.line for issue in parsed.issues] == [2]
    assert "'arty'" in parsed.issues[0].what


def test_fragment_lines_elisions_and_order() -> None:
    fragment = (
        '    b => h::b, Row { name: c"EMQ.B", arity: 3,\n'
        "// …\n"
        "    };\n"
        "// …\n"
        '    a => h::a, Row { name: c"EMQ.A", arity: 2, flags: "write" };\n'
    )
    parsed = rust.rows_in_fragment(fragment, Path("page.md"), first_line=20)
    assert parsed.issues == []
    b, a = parsed.rows
    assert (b.name, b.line, b.elided, b.fields["arity"].line) == ("EMQ.B", 20, True, 20)
    assert (a.name, a.line, a.elided, a.fields["flags"].line) == ("EMQ.A", 24, False, 24)


def test_fragment_that_is_not_rows() -> None:
    parsed = rust.rows_in_fragment("let x = 1;\n", Path("page.md"), first_line=7)
    assert [(issue.line, issue.what) for issue in parsed.issues] == [
        (7, "'let x = 1' is not a table row.")
    ]
    broken = rust.rows_in_fragment('k => h, Row { name: c"EMQ.A",\n', Path("p.md"), 3)
    assert broken.rows == []
    assert "does not parse" in broken.issues[0].what


def test_host_calls_and_gate_lists() -> None:
    text = """
    const GATE: &[&CStr] = &[c"ValkeyModule_Call", c"RedisModule_OpenKey"];
    const NOT_A_GATE: &[&str] = &["write", "slow"];
    fn f(ctx: &Context) {
        ValkeyModule_BlockClient(ctx);
        raw::ValkeyModule_CreateTimer.unwrap()(ctx);
        ctx.signal_key_as_ready();
        call!(ValkeyModule_StopTimer, ctx);
    }
    """
    (gate,) = rust.gate_lists(text)
    assert (gate.name, gate.functions, gate.chosen) == (
        "GATE",
        ["ValkeyModule_Call", "RedisModule_OpenKey"],
        False,
    )
    calls = rust.host_calls(text)
    assert {
        "ValkeyModule_BlockClient",
        "ValkeyModule_CreateTimer",
        "signal_key_as_ready",
        "ValkeyModule_StopTimer",
    } <= calls


def test_a_checkout_is_read_with_its_source(tmp_path: Path) -> None:
    (tmp_path / "src" / "emq").mkdir(parents=True)
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "trafikey"\n')
    (tmp_path / "src" / "registry.rs").write_text(
        "pub static TABLE: &[Entry] = table! {\n"
        '    k => h::f, Row { name: c"EMQ.A", arity: 2 };\n'
        "};\n"
    )
    (tmp_path / "src" / "emq" / "sweep.rs").write_text("fn f() { ValkeyModule_Call(ctx); }\n")
    registry = load_registry(tmp_path)
    assert not registry.is_snapshot
    assert registry.source_calls == {"ValkeyModule_Call"}
    assert registry.gate_functions == []


def test_duplicate_rows_and_an_empty_registry_fail(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with pytest.raises(CourseError, match="no registry::TABLE rows were found"):
        load_registry(tmp_path)
    (tmp_path / "src" / "a.rs").write_text(
        'table! { a => h, Row { name: c"EMQ.A" }; b => h, Row { name: c"EMQ.A" }; }\n'
    )
    with pytest.raises(CourseError, match=r"the command EMQ.A is registered twice"):
        load_registry(tmp_path)


def test_resolve_registry_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    (tmp_path / "registry").mkdir()
    (tmp_path / "checkout").mkdir()
    (tmp_path / "other").mkdir()
    assert resolve_registry_path(None, tmp_path) == tmp_path / "registry"
    assert resolve_registry_path("checkout", tmp_path) == tmp_path / "checkout"
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "other"))
    assert resolve_registry_path("checkout", tmp_path) == tmp_path / "other"


def test_a_missing_registry_names_its_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(CourseError) as error:
        resolve_registry_path("../trafikey", tmp_path)
    (problem,) = error.value.problems
    assert problem.file == tmp_path / "mkdocs.yml"
    assert problem.what == (
        f"the registry folder {tmp_path / '../trafikey'} (from the option 'registry' of plugin "
        "'trafikist') does not exist."
    )
    assert "Set 'registry:' under '- trafikist:' in mkdocs.yml" in problem.fix
    monkeypatch.setenv(ENV_VAR, "/nowhere/trafikey")
    with pytest.raises(CourseError) as error:
        resolve_registry_path("checkout", tmp_path)
    (problem,) = error.value.problems
    assert problem.file == ENV_VAR
    assert "(from the environment variable TRAFIKIST_REGISTRY)" in problem.what
    assert problem.fix.startswith("Point TRAFIKIST_REGISTRY at a trafikey checkout")


def test_manifest_quotes_the_seed() -> None:
    manifest = load_manifest(SNAPSHOT)
    assert "EchoMQ.Jobs.promote/3" in manifest.functions
    assert set(manifest.scripts) == {"@promote", "@sweep_stalled"}
    assert str(manifest.defaults["consumer-beat"].value) == "1 second"
    assert manifest.defaults["promote-members-per-call"].value.number == 100
    if SEED.is_file():
        seed = SEED.read_text(encoding="utf-8")
        entries = [
            *manifest.modules.values(),
            *manifest.functions.values(),
            *manifest.scripts.values(),
            *manifest.defaults.values(),
        ]
        for entry in entries:
            assert entry.seed.strip() in seed, entry.name


def test_manifest_errors(tmp_path: Path) -> None:
    (tmp_path / "library.yml").write_text(
        "modules:\n  Jobs:\n    seed: x\n"
        "functions:\n  EchoMQ.Jobs.promote/3: {}\n"
        "defaults:\n  beat:\n    value: soon\n    seed: x\n"
    )
    with pytest.raises(CourseError) as error:
        load_manifest(tmp_path)
    assert [(problem.line, problem.what) for problem in error.value.problems] == [
        (2, "'Jobs' is not a name for 'modules'."),
        (5, "'EchoMQ.Jobs.promote/3' has no 'seed:' sentence."),
        (7, "the default 'beat' has no numeric 'value:'."),
    ]


# Any value a row field can hold survives writing it as Rust and reading it back.
string_values = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30
)


def rust_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@settings(max_examples=60, deadline=None)
@given(
    arity=st.integers(min_value=-20, max_value=20),
    summary=st.one_of(st.none(), string_values),
    caps=st.lists(string_values, max_size=3),
    comment=st.booleans(),
)
def test_field_values_round_trip(
    arity: int, summary: str | None, caps: list[str], comment: bool
) -> None:
    summary_text = "None" if summary is None else f"Some({rust_string(summary)})"
    note = "\n        // a note; with, punctuation\n" if comment else " "
    text = (
        'table! {\n    k => h::f, Row { name: c"EMQ.X", arity: '
        f"{arity},{note}caps: &[{', '.join(rust_string(cap) for cap in caps)}], "
        f"summary: {summary_text} }};\n}}\n"
    )
    parsed = rust.rows_in_file(text, Path("x.rs"))
    assert parsed.issues == []
    (row,) = parsed.rows
    assert (row.arity, row.value("summary"), row.caps) == (arity, summary, caps)
