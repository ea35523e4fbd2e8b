"""The real course's sources, mutated: every mutation builds the page it changes with the
original's outline, or fails with one clear line per problem, and never with another exception
(support.fuzz: the mutations, the outline and the invariant).

This is the short, seeded profile (derandomized: the same examples on every run, in about
twenty seconds); scripts/bench_fuzz.py runs the long one (2,000 mutations and more) and prints
what it found.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.fuzz import OPERATORS, Harness, Mutation, applies, course_files, mutate, outline

SHORT_PROFILE = settings(
    max_examples=80,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
MODULE = "modules/04-blocking-timers-and-the-bus/module.md"


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Harness:
    return Harness(tmp_path_factory.mktemp("fuzz-sources"))


@SHORT_PROFILE
# 80 builds in about twenty seconds: scripts/test runs it, the fast tier (kept under a
# minute for every edit) does not.
@pytest.mark.slow
@given(data=st.data())
def test_a_mutated_source_builds_its_page_or_fails_cleanly(
    harness: Harness, data: st.DataObject
) -> None:
    mutation = mutate(
        harness.project, harness.files, lambda low, high: data.draw(st.integers(low, high))
    )
    outcome = harness.run(mutation)
    assert outcome.kind != "failed", f"{mutation.describe()}\n{outcome.message}"


@pytest.mark.build
def test_the_mutations_reach_every_kind_of_source(harness: Harness) -> None:
    """Pages, duties, scenarios, worked examples, transcripts and course.yml are all mutated."""
    files = course_files(harness.project)
    assert "modules/course.yml" in files and MODULE in files
    for part in (
        "/dives/",
        "/duties.yml",
        "/scenarios/",
        ".example.yml",
        "/transcripts/",
        "/books/",
    ):
        assert any(part in file for file in files), part


def middle_picks(*first: int):
    """A picker that gives `first`, then the middle of each range."""
    picks = iter(first)
    return lambda low, high: next(picks, (low + high) // 2)


@pytest.mark.build
@pytest.mark.parametrize("operator", OPERATORS)
def test_each_operator_changes_the_file(harness: Harness, operator: str) -> None:
    """Each operator makes a change of its own kind to module 04's page."""
    fitting = [file for file in harness.files if applies(operator, file)]
    pick = middle_picks(OPERATORS.index(operator), fitting.index(MODULE))
    mutation = mutate(harness.project, harness.files, pick)
    assert (mutation.file, mutation.operator) == (MODULE, operator)
    assert mutation.data != (harness.project / MODULE).read_bytes()


def test_the_outline_sees_a_block_that_swallows_the_page() -> None:
    """What the invariant compares: a takeaway left open holds every later section."""
    closed = (
        "<div class='tk-takeaway'><p>A</p></div><section class='tk-section'><h2>B</h2></section>"
    )
    swallowed = (
        "<div class='tk-takeaway'><p>A</p><section class='tk-section'><h2>B</h2></section></div>"
    )
    assert [entry.inside for entry in outline(closed).entries] == [(), (), ("tk-section",)]
    assert outline(swallowed).entries[2].inside == ("tk-takeaway", "tk-section")


@pytest.mark.build
def test_the_invariant_fails_when_a_check_is_missing(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the page-syntax checks switched off, deleting the `///` that closes module 04's
    first takeaway builds a page whose later sections sit in the box: the fuzz says so."""
    import trafikist.checks

    monkeypatch.setattr(trafikist.checks, "check_blocks", lambda page: [])
    data = (harness.project / MODULE).read_bytes()
    start = data.index(b"/// takeaway\n")
    close = data.index(b"\n///\n", start)
    mutation = Mutation(
        MODULE, "drop a closing marker", "the first takeaway's '///'",
        data[: close + 1] + data[close + 5 :], ("///",),
    )  # fmt: skip
    outcome = harness.run(mutation)
    assert outcome.kind == "failed"
    assert "the outline changed where the mutation touched nothing" in outcome.message
    assert (harness.project / MODULE).read_bytes() == data  # the file is restored


@pytest.mark.build
def test_the_harness_restores_each_file(harness: Harness) -> None:
    path = harness.project / MODULE
    before, stat = path.read_bytes(), path.stat()
    outcome = harness.run(Mutation(MODULE, "insert bytes", "a NUL", b"\x00" + before, ("",)))
    assert outcome.kind == "caught"
    assert outcome.message.startswith(f"{MODULE}:1: this line holds a NUL character")
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stat.st_mtime_ns
