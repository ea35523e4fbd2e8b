"""Mutation tests: change one thing in a copied course or registry, and the check names it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support import edit, line_of
from support.registry import FIXTURE_COURSE, MODULE, ROOT, copy_tree, problems_of
from trafikist.base.errors import Problem

DIVE = "01-the-sweeps/dives/01-the-bus-verbs.md"
DUTIES = "01-the-sweeps/duties.yml"


def whats(problems: list[Problem]) -> list[str]:
    return [problem.what for problem in problems]


def test_the_fixture_course_passes(tmp_path: Path) -> None:
    assert problems_of(*copy_tree(tmp_path)) == []


def test_the_real_course_passes() -> None:
    assert problems_of(ROOT / "modules", ROOT / "registry") == []


# ------------------------------------------------------------------ 1. excerpts


def test_an_arity_changed_in_the_excerpt(tmp_path: Path) -> None:
    modules, _ = copy_tree(tmp_path)
    page = modules / MODULE
    line = edit(
        page,
        'c"EMQ.PROMOTE", family: Family::Emq, arity: 6,',
        'c"EMQ.PROMOTE", family: Family::Emq, arity: 7,',
    )
    assert problems_of(modules, tmp_path / "registry") == [
        Problem(
            page,
            line,
            "excerpt row EMQ.PROMOTE, field 'arity': expected 6 (registry), found 7 (excerpt).",
            f"Quote the row as {tmp_path / 'registry/src/registry.rs'}:18 has it, or update the "
            "registry if trafikey changed.",
        )
    ]


def test_a_summary_changed_in_the_registry(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(registry / "src/registry.rs", "bounded by batch (emq6.8", "bounded by limit (emq6.8")
    (problem,) = problems_of(modules, registry)
    assert problem.line == line_of(modules / MODULE, 'summary: Some("Move due')
    assert problem.what == (
        "excerpt row EMQ.PROMOTE, field 'summary': expected "
        'Some("Move due scheduled flat jobs to pending, bounded by limit (emq6.8 G8, @promote)") '
        "(registry), found "
        'Some("Move due scheduled flat jobs to pending, bounded by batch (emq6.8 G8, @promote)") '
        "(excerpt)."
    )


def test_a_c_string_is_not_a_plain_string(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    page = modules / MODULE
    line = edit(
        page, 'acl: c"write slow", caps: &["promote"]', 'acl: "write slow", caps: &["promote"]'
    )
    assert whats(problems_of(modules, registry)) == [
        "excerpt row EMQ.PROMOTE, field 'acl': expected c\"write slow\" (registry), "
        'found "write slow" (excerpt).'
    ]
    assert problems_of(modules, registry)[0].line == line


def test_a_field_left_out_without_an_elision(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    page = modules / MODULE
    line = line_of(page, "emq_promote => ")
    edit(page, 'for M due jobs"), since: Some("0.1.0") };', 'for M due jobs") };')
    (problem,) = problems_of(modules, registry)
    assert (problem.line, problem.what) == (
        line,
        "excerpt row EMQ.PROMOTE leaves out since with no `// …` elision.",
    )


def test_a_row_the_registry_does_not_have(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    page = modules / MODULE
    line = edit(page, 'Row { name: c"EMQ.PROMOTE"', 'Row { name: c"EMQ.PROMOTES"')
    (problem,) = problems_of(modules, registry)
    assert (problem.line, problem.what) == (
        line,
        f"the excerpt quotes a row named EMQ.PROMOTES, which registry::TABLE ({registry}) "
        "does not have.",
    )


def test_a_chosen_value_quoted_without_saying_so(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    page = modules / MODULE
    edit(
        page,
        "every field but the name is the model's own choice\n    quotes",
        "the row of the first bus verb\n    quotes",
    )
    line = line_of(page, "emq_append => ")
    location = f"{registry / 'src/registry.rs'}:32"
    problems = problems_of(modules, registry)
    assert [(problem.line, problem.what) for problem in problems] == [
        (
            line,
            f"excerpt row EMQ.APPEND quotes field '{field}' ({text}), a value that is the "
            f"model's own choice, not trafikey's ({location}).",
        )
        for field, text in (
            ("key", "emq_append"),
            ("handler", "crate::emq::bus::append"),
            ("family", "Family::Emq"),
            ("arity", "-4"),
        )
    ]


def test_rows_outside_a_checked_excerpt(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    page = modules / MODULE
    edit(
        page,
        "the second first: the time-driven sweeps are plain write commands\n    quotes: registry\n",
        "two rows\n",
    )
    (problem,) = problems_of(modules, registry)
    assert problem.line == line_of(page, "    emq_stalled_check =>")
    assert problem.what == "this code quotes registry::TABLE rows, but nothing checks it."


# ------------------------------------------------------------------ 2. verbs


def test_a_verb_renamed_in_prose(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    dive = modules / DIVE
    line = edit(dive, "EMQ.APPEND writes", "EMQ.APPENDS writes")
    (problem,) = problems_of(modules, registry)
    assert problem == Problem(
        dive,
        line,
        "names the verb EMQ.APPENDS, which registry::TABLE does not have.",
        "Name a registered verb (EMQ.PROMOTE, EMQ.STALLED.CHECK, EMQ.APPEND, EMQ.PUBLISH, "
        "EMQ.FAILURES.INCR); if the page says it does not exist, mark that sentence with a "
        "claim: [sentence]{claim: absent EMQ.APPENDS}.",
    )


def test_verbs_in_code_spans_and_the_summary_are_checked(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(modules / DIVE, "`EMQ.PUBLISH`", "`EMQ.PUBLISHER`")
    edit(modules / MODULE, "summary: EMQ.PROMOTE and", "summary: EMQ.PROMOTED and")
    assert whats(problems_of(modules, registry)) == [
        "names the verb EMQ.PROMOTED, which registry::TABLE does not have.",
        "names the verb EMQ.PUBLISHER, which registry::TABLE does not have.",
    ]


def test_a_verb_the_course_says_is_absent_appears(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(
        registry / "src/registry.rs",
        "since: None };\n};\n",
        "since: None };\n"
        '    emq_reap => crate::emq::recovery::reap, Row { name: c"EMQ.REAP" };\n'
        "};\n",
    )
    (problem,) = problems_of(modules, registry)
    assert problem.line == line_of(modules / MODULE, "[`EchoMQ.Jobs.reap/2`")
    assert problem.what == (
        "the claim 'absent EMQ.*REAP* EMQ.*LANE*CLAIM* EMQ.*CLAIM*LANE*' does not hold: "
        f"registry::TABLE has EMQ.REAP ({registry / 'src/registry.rs'}:46). Sentence: "
        '"`EchoMQ.Jobs.reap/2` and the lane claim have no verb and are refused"'
    )


def test_an_absent_verb_named_without_a_claim(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(modules / MODULE, "{claim: absent EMQ.*REAP* EMQ.*LANE*CLAIM* EMQ.*CLAIM*LANE*}", "")
    assert whats(problems_of(modules, registry)) == [
        "names the verb EMQ.REAP, which registry::TABLE does not have."
    ]


# ------------------------------------------------------------------ 3. claims


def test_write_becomes_write_blocking_in_the_snapshot(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    snapshot = registry / "src/registry.rs"
    edit(
        snapshot, 'arity: 6,\n        flags: "write"', 'arity: 6,\n        flags: "write blocking"'
    )
    page = modules / MODULE
    claim_line = line_of(page, "[no row of its registration table")
    problems = problems_of(modules, registry)
    assert [(problem.line, problem.what) for problem in problems] == [
        (
            line_of(
                page, 'flags: "write", keys: EVAL_KEYS, acl: c"write slow", caps: &["promote"]'
            ),
            "excerpt row EMQ.PROMOTE, field 'flags': expected \"write blocking\" (registry), "
            'found "write" (excerpt).',
        ),
        (
            claim_line,
            "the claim '*.flags lacks blocking' does not hold: EMQ.PROMOTE has flags "
            f'"write blocking" ({snapshot}:18). Sentence: "no row of its registration '
            'table carries the blocking command flag"',
        ),
        (
            claim_line,
            "the claim 'EMQ.PROMOTE.flags = write' does not hold: EMQ.PROMOTE has flags "
            f'"write blocking" ({snapshot}:18). Sentence: "The two commands that move '
            'time-driven work are ordinary `write` commands with ACL `write slow`"',
        ),
    ]


def test_an_arity_changed_in_the_registry_fails_the_claim(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    snapshot = registry / "src/registry.rs"
    edit(
        snapshot,
        'c"EMQ.STALLED.CHECK", family: Family::Emq, arity: 8',
        'c"EMQ.STALLED.CHECK", family: Family::Emq, arity: 9',
    )
    problems = problems_of(modules, registry)
    assert "the claim 'EMQ.STALLED.CHECK.arity' does not hold: EMQ.STALLED.CHECK has arity 9 " in (
        problems[-1].what
    )
    assert problems[-1].what.endswith('Sentence: "8"')
    assert problems[0].what == (
        "excerpt row EMQ.STALLED.CHECK, field 'arity': expected 9 (registry), found 8 (excerpt)."
    )


def test_a_gate_claim_against_the_snapshot_checks_nothing(tmp_path: Path) -> None:
    # The snapshot's gate list is the model's own choice: a claim on it would check the model
    # against itself, so it fails; so does a call claim where no crate source is there.
    modules, registry = copy_tree(tmp_path, checkout=False)
    found = whats(problems_of(modules, registry))
    gate = registry / "src/gate.rs"
    assert found == [
        "the claim 'gate lacks blocked-client ready-signal timer' checks nothing: the entries of "
        f"the gate list ({gate}:9) are the model's own choice. Sentence: \"the list names no "
        'blocked-client, ready-signal or timer function"',
        "the claim 'calls lacks blocked-client ready-signal timer' checks nothing: the snapshot "
        "holds no crate source to search. Sentence: \"neither does any call in the crate's "
        'source"',
    ]


def test_a_claim_on_a_value_the_model_chose_checks_nothing(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(
        modules / MODULE,
        "[The three are registered]{claim: exists EMQ.APPEND EMQ.PUBLISH EMQ.FAILURES.INCR}",
        "[EMQ.APPEND takes four arguments or more]{claim: EMQ.APPEND.arity = -4}",
    )
    assert whats(problems_of(modules, registry)) == [
        "the claim 'EMQ.APPEND.arity = -4' checks nothing: the arity of EMQ.APPEND is the "
        "model's own choice, not trafikey's. Sentence: \"EMQ.APPEND takes four arguments or more\""
    ]


def test_the_gate_list_names_a_blocked_client_function(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    gate = registry / "src/gate.rs"
    edit(
        gate,
        '    c"ValkeyModule_Call",\n',
        '    c"ValkeyModule_Call",\n    c"ValkeyModule_BlockClient",\n',
    )
    (problem,) = problems_of(modules, registry)
    assert problem.what == (
        "the claim 'gate lacks blocked-client ready-signal timer' does not hold: the gate list "
        f'({gate}:9) names ValkeyModule_BlockClient (blocked-client). Sentence: "the list names '
        'no blocked-client, ready-signal or timer function"'
    )


def test_a_call_in_the_crate_source_arms_a_timer(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    (registry / "Cargo.toml").write_text('[package]\nname = "trafikey"\n')  # a checkout now
    (registry / "src/tick.rs").write_text("fn arm(ctx: &Context) { ctx.create_timer(d, f, ()); }\n")
    (problem,) = problems_of(modules, registry)
    assert problem.what == (
        "the claim 'calls lacks blocked-client ready-signal timer' does not hold: the crate's "
        "source names create_timer (timer). Sentence: \"neither does any call in the crate's "
        'source"'
    )


def test_a_default_changed_in_prose(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    page = modules / MODULE
    line = edit(page, "[one second]{claim", "[two seconds]{claim")
    assert problems_of(modules, registry) == [
        Problem(
            page,
            line,
            "the claim 'default consumer-beat' does not hold: the page says 2 seconds, the "
            f"manifest gives 1 second ({registry / 'library.yml'}:"
            f"{line_of(registry / 'library.yml', '  consumer-beat:')}). "
            'Sentence: "two seconds"',
            "Correct the sentence and its claim, or update the registry or registry/library.yml "
            "if trafikey or EchoMQ changed.",
        )
    ]


def test_a_default_changed_in_a_duty(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(modules / DUTIES, "[up to 100 members", "[up to 50 members")
    (problem,) = problems_of(modules, registry)
    # The line of the field that holds the claim.
    assert (problem.file, problem.line) == (modules / DUTIES, line_of(modules / DUTIES, "library:"))
    assert problem.what.startswith(
        "the claim 'default promote-members-per-call' does not hold: the page says 50, the "
        "manifest gives 100"
    )


def test_a_default_changed_in_the_manifest(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(registry / "library.yml", "value: 1 second", "value: 1500 ms")
    assert whats(problems_of(modules, registry))[0].startswith(
        "the claim 'default consumer-beat' does not hold: the page says 1 second, the manifest "
        "gives 1500 ms"
    )


def test_a_claim_that_cannot_be_read(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(modules / MODULE, "{claim: exists EMQ.APPEND", "{claim: EMQ.APPEND exists")
    (problem,) = problems_of(modules, registry)
    assert problem.what == (
        "the claim 'EMQ.APPEND exists EMQ.PUBLISH EMQ.FAILURES.INCR' on the sentence "
        '"The three are registered" cannot be read: cannot read the claim '
        "'EMQ.APPEND exists EMQ.PUBLISH EMQ.FAILURES.INCR'."
    )
    assert problem.fix.startswith("Write one of: `VERB.field = value`")


# ------------------------------------------------------------------ 4. library names


@pytest.mark.parametrize(
    ("file", "old", "new", "what"),
    [
        (
            MODULE,
            "`EchoMQ.Jobs.promote/3` sends",
            "`EchoMQ.Jobs.promote/4` sends",
            "names the function EchoMQ.Jobs.promote/4, which the library manifest "
            "({manifest}) does not list.",
        ),
        (
            DUTIES,
            "`Jobs.promote/3` sends it",
            "`Jobs.promote/2` sends it",
            "names the function EchoMQ.Jobs.promote/2, which the library manifest "
            "({manifest}) does not list.",
        ),
        (
            MODULE,
            "`EchoMQ.Consumer` runs",
            "`EchoMQ.Conductor` runs",
            "names the module EchoMQ.Conductor, which the library manifest ({manifest}) does "
            "not list.",
        ),
        (
            MODULE,
            "in place of `@sweep_stalled`",
            "in place of `@sweep_stall`",
            "names the script @sweep_stall, which the library manifest ({manifest}) does not list.",
        ),
    ],
)
def test_a_library_name_changed(tmp_path: Path, file: str, old: str, new: str, what: str) -> None:
    modules, registry = copy_tree(tmp_path)
    edit(modules / file, old, new)
    (problem,) = problems_of(modules, registry)
    assert problem.what == what.format(manifest=registry / "library.yml")
    assert problem.file == modules / file


# ------------------------------------------------------------------ the real course, mutated


def test_the_real_module_04_excerpt_is_checked(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path, ROOT / "modules")
    page = modules / "04-blocking-timers-and-the-bus/module.md"
    if 'c"EMQ.STALLED.CHECK", family: Family::Emq, arity: 8,' not in page.read_text():
        pytest.skip("module 04 does not quote the EMQ.STALLED.CHECK row")
    line = edit(
        page,
        'c"EMQ.STALLED.CHECK", family: Family::Emq, arity: 8,',
        'c"EMQ.STALLED.CHECK", family: Family::Emq, arity: 3,',
    )
    (problem,) = problems_of(modules, registry)
    assert (problem.file, problem.line, problem.what) == (
        page,
        line,
        "excerpt row EMQ.STALLED.CHECK, field 'arity': expected 8 (registry), found 3 (excerpt).",
    )


def test_a_missing_course_registry_folder(tmp_path: Path) -> None:
    modules, registry = copy_tree(tmp_path)
    shutil.rmtree(registry / "src")
    from trafikist.base.errors import CourseError

    with pytest.raises(CourseError, match="the registry folder has no src/ folder"):
        problems_of(modules, registry)
    assert FIXTURE_COURSE.is_dir()


# ------------------------------------------------------------------ the seed's claims

# The sentences of module 04 that assert a registry or library fact, and the same sentences with
# their claims (docs/registry.md): what the page carries once the claim syntax renders.
SEED_CLAIMS = [
    (
        "and the list names no blocked-client, ready-signal or timer function; neither does any "
        "call in the crate's source, and no row of its registration table carries the blocking "
        "command flag.",
        "and [the list names no blocked-client, ready-signal or timer function]{claim: gate lacks "
        "blocked-client ready-signal timer}; [neither does any call in the crate's source]{claim: "
        "calls lacks blocked-client ready-signal timer}, and [no row of its registration table "
        "carries the blocking command flag]{claim: *.flags lacks blocking}.",
    ),
    (
        "The two commands that move time-driven work are ordinary write commands with a bound on "
        "how much one call does:",
        "[The two commands that move time-driven work are ordinary write commands]{claim: "
        "EMQ.PROMOTE.flags = write; EMQ.STALLED.CHECK.flags = write; EMQ.PROMOTE.acl = write "
        "slow; EMQ.STALLED.CHECK.acl = write slow} with a bound on how much one call does:",
    ),
    (
        "`EchoMQ.Consumer` runs a beat, one second by default:",
        "`EchoMQ.Consumer` runs a beat, [one second]{claim: default consumer-beat} by default:",
    ),
    (
        "as scripts on its default `wire: 4` connection.",
        "as scripts on its default [`wire: 4`]{claim: default library-wire} connection.",
    ),
    (
        "`EchoMQ.Jobs.reap/2` and the lane claim a consumer drains with have no verb and are "
        "refused,",
        "[`EchoMQ.Jobs.reap/2` and the lane claim a consumer drains with have no verb]{claim: "
        "absent EMQ.*REAP* EMQ.*LANE*CLAIM* EMQ.*CLAIM*LANE*} and are refused,",
    ),
]


def with_seed_claims(tmp_path: Path) -> tuple[Path, Path, Path]:
    modules, registry = copy_tree(tmp_path, ROOT / "modules")
    page = modules / "04-blocking-timers-and-the-bus/module.md"
    text = " ".join(page.read_text(encoding="utf-8").split(" "))
    for sentence, claimed in SEED_CLAIMS:
        if sentence not in text:
            pytest.skip(f"module 04 no longer has the sentence {sentence!r}")
        text = text.replace(sentence, claimed)
    page.write_text(text, encoding="utf-8")
    return modules, registry, page


def test_module_04_with_the_seed_claims_passes(tmp_path: Path) -> None:
    assert problems_of(*with_seed_claims(tmp_path)[:2]) == []


def test_module_04_seed_claims_fail_on_a_blocking_flag(tmp_path: Path) -> None:
    modules, registry, page = with_seed_claims(tmp_path)
    edit(
        registry / "src/registry.rs",
        'flags: "write", keys: EVAL_KEYS, acl: c"write stream"',
        'flags: "write blocking", keys: EVAL_KEYS, acl: c"write stream"',
    )
    # The dives repeat the claim; every page that makes it fails, each naming its sentence.
    problems = problems_of(modules, registry)
    assert all("*.flags lacks blocking" in p.what for p in problems), problems
    (problem,) = [p for p in problems if Path(p.file) == page]
    assert problem.line == line_of(page, "[no row of its registration table")
    assert problem.what == (
        "the claim '*.flags lacks blocking' does not hold: EMQ.APPEND has flags "
        f'"write blocking" ({registry / "src/registry.rs"}:32). Sentence: "no row of its '
        'registration table carries the blocking command flag"'
    )


def test_the_claims_in_the_author_guide_hold(tmp_path: Path) -> None:
    from trafikist.checks.claims import evaluate, split_expressions
    from trafikist.checks.manifest import load_manifest
    from trafikist.course.syntax import find_claims
    from trafikist.registry import load_registry

    guide = (ROOT / "docs" / "registry.md").read_text(encoding="utf-8")
    # The guide's gate and call claims are for a trafikey checkout, where the list is trafikey's.
    _, checkout = copy_tree(tmp_path)
    registry, manifest = load_registry(checkout), load_manifest(checkout)
    lines = [line for line in guide.splitlines() if "]{claim:" in line]
    spans = [span for line in lines for span in find_claims(line)]
    assert len(spans) >= 7
    for span in spans:
        for expression in split_expressions(span.expression):
            assert evaluate(expression, span.text, registry, manifest).holds, expression
