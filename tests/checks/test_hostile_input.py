"""The attack of issue 20, each input as an author (or a hostile copy) would give it, on a copy
of the real course, in-process with no engine (support.building: the core's load, checks,
pages and site files). Each ends with exactly one `FILE:LINE: what. Fix: how.` line, the one
asserted here word for word, as a CourseError and never another exception; or, where the
input is fine (a byte-order mark), the course builds and reads as the author meant."""

from __future__ import annotations

import contextlib
import html
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

from support import copy_project, edit, line_of
from support.authoring import DIVE_01, DIVE_02, DUTIES, MODULE, MODULE_04
from support.building import core_build
from trafikist.core.site import load_site

SCENARIO = MODULE_04 / "scenarios/promote-due.yml"
MODULE_03 = Path("modules/03-the-job-core-natively/module.md")
MODULE_05 = Path("modules/05-tra-and-native-values/module.md")
REGISTRY_RS = Path("registry/src/registry.rs")
# One line: the file, the line when there is one, what is wrong, one fix.
ONE_LINE = re.compile(r"^[\w./-]+(?::\d+)?: [^\n]+[.?!] Fix: [^\n]+$")
SCENARIO_FIX = "(docs/scenarios.md lists every field.)"
EXPECTATION_FIX = (
    "Fix: Correct the sentence and its expectation, or the model (src/trafikist/model) if it "
    "changed; `.venv/bin/trafikist model run SCENARIO` prints the run's trace."
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def assert_fails_with(project: Path, expected: str) -> None:
    """The core's build of `project` ends with a CourseError whose message is `expected`: one
    line, one Fix. Any other exception fails the test with its traceback."""
    message = core_build(project)
    assert message == expected
    assert ONE_LINE.match(message), message
    assert message.count("Fix:") == 1, message


# -- page syntax -----------------------------------------------------------------------------


@pytest.mark.build
def test_a_takeaway_left_open(project: Path) -> None:
    """The `///` that closes module 04's first takeaway is deleted: the rest of the page would
    render inside the box."""
    text = (project / MODULE).read_text(encoding="utf-8")
    start = text.index("/// takeaway\n")
    close = text.index("\n///\n", start)
    (project / MODULE).write_text(text[: close + 1] + text[close + 5 :], encoding="utf-8")
    line = line_of(project / MODULE, "/// takeaway\n")
    assert_fails_with(
        project,
        f"{MODULE}:{line}: the block '/// takeaway' opened here is never closed: everything "
        "after it would render inside it. Fix: Close it with a line '///' where the block ends.",
    )


@pytest.mark.build
def test_a_takeaway_closed_after_the_next_section(project: Path) -> None:
    """The closing `///` moved below the next heading (found by the fuzz): every block is
    closed, yet the section would render inside the takeaway box."""
    path = project / DIVE_01
    text = path.read_text(encoding="utf-8")
    heading = "## Between calls\n"
    start = text.index("/// takeaway\n", text.index(heading) - 600)
    close = text.index("\n///\n", start)
    text = text[: close + 1] + text[close + 5 :]
    text = text.replace(heading, heading + "\n///\n", 1)
    path.write_text(text, encoding="utf-8")
    line = line_of(path, "/// takeaway\nOn `wire: 6`")
    at = line_of(path, heading)
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the block '/// takeaway' opened here runs on past the heading "
        f"'## Between calls' at line {at}: the sections after it would render inside the "
        "block. Fix: Close the block with a line '///' before the heading.",
    )


@pytest.mark.build
def test_an_unknown_block(project: Path) -> None:
    line = edit(project / MODULE, "/// takeaway\n", "/// warning\n")
    assert_fails_with(
        project,
        f"{MODULE}:{line}: '/// warning' is not a block of the course. Fix: Use one of: "
        "takeaway, forward, excerpt, pattern, check, duties, dive-cards, up-next, "
        'worked-example (docs/authoring.md, "The blocks").',
    )


@pytest.mark.build
def test_a_misspelt_block_gets_a_suggestion(project: Path) -> None:
    line = edit(project / MODULE, "/// takeaway\n", "/// takeway\n")
    assert_fails_with(
        project,
        f"{MODULE}:{line}: '/// takeway' is not a block of the course. Did you mean "
        "'/// takeaway'? Fix: Use one of: takeaway, forward, excerpt, pattern, check, duties, "
        'dive-cards, up-next, worked-example (docs/authoring.md, "The blocks").',
    )


@pytest.mark.build
def test_a_stray_closing_line(project: Path) -> None:
    heading = "## The module answers and returns\n"
    line = edit(project / MODULE, heading, heading + "///\n") + 1
    assert_fails_with(
        project,
        f"{MODULE}:{line}: this '///' closes no block: none is open here. Fix: Delete the line, "
        "or open the block it closes with '/// NAME'.",
    )


@pytest.mark.build
def test_duties_in_a_module_without_duties(project: Path) -> None:
    path = project / MODULE_03
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n/// duties\n///\n", encoding="utf-8")
    line = line_of(path, "/// duties")
    assert_fails_with(
        project,
        f"{MODULE_03}:{line}: '/// duties' stands in a module that has no duties.yml. "
        "Fix: Write the module's duties.yml, or remove the block.",
    )


@pytest.mark.build
def test_a_comment_never_closed(project: Path) -> None:
    path = project / MODULE_03
    path.write_text(path.read_text(encoding="utf-8") + "\n<!-- a note\n\nMore.\n", "utf-8")
    line = line_of(path, "<!-- a note")
    assert_fails_with(
        project,
        f"{MODULE_03}:{line}: this HTML comment '<!--' is never closed: the rest of the page "
        "would not show. Fix: Close it with '-->'.",
    )


@pytest.mark.build
def test_a_comment_closed_only_by_the_next_one(project: Path) -> None:
    """`<!--` left open before a `<!-- seed: … -->`: HTML ends it at that comment's `-->`, and
    the heading between would vanish from the page."""
    line = edit(project / DIVE_01, "## Two sweeps", "<!-- a note\n\n## Two sweeps")
    after = line_of(project / DIVE_01, "[Both sweeps are")  # the next comment is on its line
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: this HTML comment '<!--' is not closed before the next '<!--' at "
        f"line {after}: everything up to that comment's '-->' would not show. Fix: Close it "
        "with '-->' where the comment ends.",
    )


@pytest.mark.build
@pytest.mark.parametrize(
    ("kind", "nesting"),
    [
        ("quotes", ">" * 300 + " deep\n"),
        ("lists", "".join("  " * level + "- deeper\n" for level in range(300))),
    ],
)
def test_markdown_nested_hundreds_of_levels(project: Path, kind: str, nesting: str) -> None:
    """Python-Markdown would recurse on each level and end in an error that names no line
    (2,500 lines under Zensical, blaming mkdocs.yml)."""
    start = edit(project / DIVE_01, "## Two sweeps", nesting + "\n## Two sweeps")
    line = start if kind == "quotes" else start + 33  # the first item past 16 levels
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the {kind} here nest deeper than 16 levels. Fix: Flatten the text: "
        "a page of the course never nests this deep.",
    )


# -- front matter, course.yml and the folders ------------------------------------------------


@pytest.mark.build
def test_a_misspelt_front_matter_key(project: Path) -> None:
    line = edit(project / MODULE, "up_next:\n", "up_nxt:\n")
    assert_fails_with(
        project,
        f"{MODULE}:{line}: 'up_nxt' is not a field of the module's front matter. Did you mean "
        "'up_next'? Fix: Use one of: id, title, summary, status, published_status, up_next "
        '(docs/authoring.md, "Front matter").',
    )


@pytest.mark.build
def test_a_list_where_text_is_expected(project: Path) -> None:
    line = edit(project / MODULE_05, 'title: "TRA and native values"', "title: [TRA, native]")
    assert_fails_with(
        project,
        f"{MODULE_05}:{line}: 'title' must be text, not a list. Fix: Write it as text: quote it "
        "if YAML reads it as a number, a date, a list or a mapping.",
    )


@pytest.mark.build
def test_an_alias_cycle_in_front_matter(project: Path) -> None:
    line = edit(project / DIVE_01, 'title: "Who moves time today"', "title: &loop [*loop]")
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: a YAML alias refers to the value that holds it. Fix: Write the value "
        "out: an alias (*name) may not stand inside its own anchor.",
    )


@pytest.mark.build
def test_a_key_given_twice_in_front_matter(project: Path) -> None:
    line = edit(project / DIVE_02, "status: built\n", "status: built\nstatus: planned\n") + 1
    assert_fails_with(
        project,
        f"{DIVE_02}:{line}: the key 'status' is given twice (first at line {line - 1}). "
        "Fix: Keep one of them: YAML would keep the last and drop the first.",
    )


@pytest.mark.build
def test_a_key_given_twice_in_duties(project: Path) -> None:
    line = edit(project / DUTIES, "    kind: time\n", "    kind: time\n    kind: waiting\n") + 1
    assert_fails_with(
        project,
        f"{DUTIES}:{line}: the key 'kind' is given twice (first at line {line - 1}). "
        "Fix: Keep one of them: YAML would keep the last and drop the first.",
    )


@pytest.mark.build
def test_two_module_folders_numbered_05(project: Path) -> None:
    modules = project / "modules"
    shutil.copytree(modules / "05-tra-and-native-values", modules / "05-workshop")
    edit(modules / "05-workshop/module.md", "id: tra-and-native-values", "id: workshop")
    assert_fails_with(
        project,
        "modules/05-workshop: module 05 is also '05-tra-and-native-values': two modules "
        "share a number. Fix: Renumber one of the folders: each module has a number of its own.",
    )


@pytest.mark.build
def test_a_book_folder_course_yml_does_not_list(project: Path) -> None:
    folder = project / "modules/books/the-workshop"
    folder.mkdir()
    (folder / "01-a-page.md").write_text(
        "---\nid: a-page\ntitle: A page\nsummary: S.\nstatus: built\n---\nText.\n", "utf-8"
    )
    line = line_of(project / "modules/course.yml", "books:")
    assert_fails_with(
        project,
        f"modules/course.yml:{line}: the book folder 'books/the-workshop' is not a book of the "
        "course. Fix: Add a book with 'id: the-workshop' to 'books:', or move the folder out of "
        "modules/books/.",
    )


@pytest.mark.build
def test_a_link_to_itself(project: Path) -> None:
    path = project / DIVE_02
    path.unlink()
    os.symlink(path.name, path)
    assert_fails_with(
        project,
        f"{DIVE_02}: cannot be read (Too many levels of symbolic links). Fix: Check that the "
        "file exists and is not a link to itself or to a missing file.",
    )


@pytest.mark.build
def test_a_byte_order_mark_builds(project: Path) -> None:
    """An editor's UTF-8 byte-order mark is not the author's: the page builds as without it
    (it used to say "has no front matter")."""
    path = project / DIVE_01
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert core_build(project) is None
    with contextlib.chdir(project):
        site = load_site(project / "modules", base_dir=project)
    page = site.course.pages["who-moves-time-today"]
    assert page.title == "Who moves time today"
    assert "\ufeff" not in site.renderer.page_markdown(page)


@pytest.mark.build
def test_html_in_a_title_is_escaped_everywhere(project: Path) -> None:
    """A title holding markup reaches the engine as HTML text: in the front matter the theme
    writes into <title>, the header and the footer, in the navigation (neither engine's theme
    escapes either), in the page's heading, and in the cards and up-next links of the pages
    that name it. Each reads back as the title, and no tag of it is ever markup."""
    title = 'Who <b>moves</b> & <script>alert("x")</script>'
    edit(project / DIVE_01, 'title: "Who moves time today"', "title: '" + title + "'")
    with contextlib.chdir(project):
        site = load_site(project / "modules", base_dir=project)
    dive = site.renderer.page_markdown(site.course.pages["who-moves-time-today"])
    module = site.renderer.page_markdown(site.course.pages["blocking-timers-and-the-bus"])
    front = yaml.safe_load(dive.split("\n---\n", 1)[0].removeprefix("---\n"))
    assert "<" not in front["title"] and html.unescape(front["title"]) == title
    labels = [label for label in _nav_labels(site.nav()) if "moves" in label]
    assert len(labels) == 1 and "<" not in labels[0]
    assert html.unescape(labels[0]) == f"01 · {title}"
    heading = BeautifulSoup(dive, "html.parser").select_one("h1.tk-title")
    assert heading is not None and heading.get_text() == title and not heading.find_all(True)
    links = BeautifulSoup(module, "html.parser").select('a[href="id:who-moves-time-today"]')
    named = [link for link in links if "moves" in link.get_text()]
    assert len(named) >= 2  # the dive card and "Up next"
    assert all(link.get_text() == title and not link.find_all(True) for link in named)
    for markdown in (dive, module):
        assert "<script>" not in markdown and "<b>moves" not in markdown


def _nav_labels(tree: object) -> list[str]:
    if isinstance(tree, list):
        return [label for entry in tree for label in _nav_labels(entry)]
    if isinstance(tree, dict):
        return [label for key, value in tree.items() for label in [key, *_nav_labels(value)]]
    return []


# -- scenarios and expectations --------------------------------------------------------------


@pytest.mark.build
@pytest.mark.parametrize(
    ("old", "new"), [("duration: 10", "duration: .nan"), ("beat: 1", "beat: .inf")]
)
def test_a_number_that_is_not_finite(project: Path, old: str, new: str) -> None:
    line = edit(project / SCENARIO, old, new)
    value = new.split(": ")[1]
    assert_fails_with(
        project,
        f"{SCENARIO}:{line}: '{value}' is not a finite number. Fix: Write a number such as 1 or "
        "0.5; quote it if it is text.",
    )


@pytest.mark.build
def test_a_beat_of_one_millisecond(project: Path) -> None:
    edit(project / SCENARIO, "duration: 10", "duration: 3600")
    line = edit(project / SCENARIO, "    beat: 1\n", "    beat: 0.001\n")
    assert_fails_with(
        project,
        f"{SCENARIO}:{line}: the scenario breaks its schema: 'processes[0].beat' must be at "
        "least 0.01 s, got 0.001. Fix: Write 0.01 or more: the model counts time in "
        f"milliseconds, and a shorter period floods the run. {SCENARIO_FIX}",
    )


@pytest.mark.build
def test_an_hour_of_the_shortest_beat_stops_at_the_step_cap(project: Path) -> None:
    """3,600 s at the shortest beat would run out of memory: the run stops at its cap of
    commands, named, within seconds."""
    line = edit(project / SCENARIO, "duration: 10", "duration: 3600")
    edit(project / SCENARIO, "    beat: 1\n", "    beat: 0.01\n")
    assert_fails_with(
        project,
        f"{SCENARIO}:{line}: 'duration': the run sends more than 20000 commands by 70.75 s (of "
        "3600 s), the cap of one run. Fix: Shorten the duration, or lengthen the beats and "
        "intervals: a scenario shows one behaviour.",
    )


@pytest.mark.build
def test_a_pool_of_ten_million(project: Path) -> None:
    line = (
        edit(
            project / SCENARIO, "  - kind: Consumer\n", "  - kind: Metronome\n    pool: 10000000\n"
        )
        + 1
    )
    assert_fails_with(
        project,
        f"{SCENARIO}:{line}: the scenario breaks its schema: 'processes[0].pool' must be at most "
        f"100, got 10000000. Fix: Write a whole number of at most 100. {SCENARIO_FIX}",
    )


@pytest.mark.build
def test_a_scenario_name_that_leaves_the_module(project: Path) -> None:
    """`../../../../elsewhere/x` would have Zensical write x.json outside the site."""
    line = edit(
        project / DUTIES, "scenarios: [promote-due]", "scenarios: [../../../../elsewhere/x]"
    )
    assert_fails_with(
        project,
        f"{DUTIES}:{line}: 'duties[0].scenarios[0]' is '../../../../elsewhere/x', which is not a "
        "lowercase slug. Fix: Use lowercase letters, digits and dashes, like "
        "'the-consumer-loop'.",
    )


PROMOTE_EXPECT = "{expect: j1 in schedule from 2.5 to 3;"
PROMOTE_SENTENCE = 'Sentence: "between calls, a due job stays in schedule".'


@pytest.mark.build
@pytest.mark.parametrize(
    ("predicate", "why"),
    [
        ("j1 in schedule at -5", "the time -5 s lies outside the run, which lasts 10 s"),
        ("j1 in schedule at 50", "the time 50 s lies outside the run, which lasts 10 s"),
        ("j1 in schedule from 3 to 2.5", "the range from 3 to 2.5 s ends before it starts"),
    ],
    ids=["before the start", "after the end", "reversed range"],
)
def test_an_expectation_outside_the_run(project: Path, predicate: str, why: str) -> None:
    """These used to pass: a time before 0 or past the end, or a range that ends before it
    starts, checks nothing."""
    edit(project / DUTIES, PROMOTE_EXPECT, "{expect: " + predicate + ";")
    line = line_of(project / DUTIES, "between_calls:")  # the promote duty's sentence
    assert_fails_with(
        project,
        f"{DUTIES}:{line}: the expectation '{predicate}' does not hold on the model's run of "
        f"{SCENARIO}: {why}. {PROMOTE_SENTENCE} {EXPECTATION_FIX}",
    )


@pytest.mark.build
def test_a_fault_of_an_unknown_process_in_a_duty(project: Path) -> None:
    """The fault is the sentence's: its duty field is blamed, not the scenario file."""
    edit(project / DUTIES, "given bus crashes after 1:", "given ghost crashes after 1:")
    line = line_of(project / DUTIES, "given ghost crashes") - 2  # its between_calls:
    assert_fails_with(
        project,
        f"{DUTIES}:{line}: the expectation 'given ghost crashes after 1: stream events length 1 "
        f"at 1.5' cannot run on {MODULE_04}/scenarios/batch-append.yml: 'faults[0].client': no "
        "process is named 'ghost'. Fix: Use one of: bus, cli.",
    )


@pytest.mark.build
def test_a_fault_of_an_unknown_process_in_a_dive(project: Path) -> None:
    line = edit(
        project / DIVE_01,
        "{expect: consumer refused at 0, 1, 3, 7;",
        "{expect: given ghost crashes after 1: consumer refused at 0, 1, 3, 7;",
    )
    example = MODULE_04 / "dives/01-who-moves-time-today.example.yml"
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the expectation 'given ghost crashes after 1: consumer refused at 0, "
        f"1, 3, 7' cannot run on {example}: 'faults[0].client': no process is named 'ghost'. "
        "Fix: Use one of: pump, stalled, consumer.",
    )


# -- the registry ----------------------------------------------------------------------------


@pytest.mark.build
def test_a_registry_source_that_is_not_utf8(project: Path) -> None:
    path = project / REGISTRY_RS
    line = line_of(path, "flat jobs")
    path.write_bytes(path.read_bytes().replace(b"flat jobs", b"flat \xff jobs", 1))
    offset = path.read_bytes().index(b"\xff")
    assert_fails_with(
        project,
        f"{REGISTRY_RS}:{line}: is not UTF-8 text (byte 0xff at offset {offset}). "
        "Fix: Save the file as UTF-8.",
    )


@pytest.mark.build
def test_an_arity_that_is_a_word(project: Path) -> None:
    line = edit(project / REGISTRY_RS, "arity: 6,", 'arity: "six",')
    assert_fails_with(
        project,
        f"{REGISTRY_RS}:{line}: the row EMQ.PROMOTE: 'arity' is `\"six\"`, not a whole number. "
        "Fix: Write arity as a whole number, as the other rows do.",
    )


SYNTAX_FIX = (
    "Fix: Fix the syntax at this line (an unbalanced brace, bracket or quote, or a stray "
    "character)."
)


@pytest.mark.build
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("arity: 8,", "arity: 8, {"),  # a brace opened
        ('c"EMQ.STALLED.CHECK"', 'c"EMQ.STALLED.CHECK'),  # a quote left open
        ("arity: 8,", "arity: 8, ["),
    ],
    ids=["brace", "quote", "bracket"],
)
def test_a_syntax_error_in_the_registry(project: Path, old: str, new: str) -> None:
    """The error is named at its row's line; it used to say that no row was found and to point
    the registry at another folder."""
    line = line_of(project / REGISTRY_RS, 'Row { name: c"EMQ.STALLED.CHECK"')
    edit(project / REGISTRY_RS, old, new)
    assert_fails_with(
        project,
        f"{REGISTRY_RS}:{line}: the Rust does not parse here, so the registry::TABLE rows "
        f"cannot be read. {SYNTAX_FIX}",
    )


@pytest.mark.build
def test_a_row_missing_its_semicolon(project: Path) -> None:
    """Without the `;`, the next row would be read as part of this one and vanish."""
    end = 'restart expiries exempt (emq6.8 G15, @sweep_stalled)"),\n'
    line = line_of(project / REGISTRY_RS, end) + 1
    edit(
        project / REGISTRY_RS,
        'for M expired leases"), since: Some("0.1.0") };',
        'for M expired leases"), since: Some("0.1.0") }',
    )
    assert_fails_with(
        project,
        f"{REGISTRY_RS}:{line}: the row's closing '}}' is followed by 'emq_append => "
        "crate::emq::bus::append, Row { name: c\"EMQ.APP', not by ';'. Fix: Write each row as "
        '`key => path::to::handler, Row { name: c"EMQ.X", field: value, … };` and mark chosen '
        "values with a `// model's own choice: field, field` line before the row.",
    )


# -- found by the fuzz of the sources (tests/checks/test_fuzz_sources.py) ---------------------


def _drop_closing_fence(path: Path, opening: str) -> int:
    """Delete the closing ``` of the fence that opens with `opening`; the fence's line."""
    text = path.read_text(encoding="utf-8")
    start = text.index(opening)
    close = text.index("\n```\n", start + len(opening))
    path.write_text(text[: close + 1] + text[close + 5 :], encoding="utf-8")
    return text[:start].count("\n") + 1


@pytest.mark.build
def test_a_code_fence_that_runs_into_the_next(project: Path) -> None:
    """Its closing ``` deleted, the excerpt's code would run on to the next fence's opening,
    and the code after that would render as text."""
    line = _drop_closing_fence(project / DIVE_01, "```rust\n")
    after = line_of(project / DIVE_01, "```text\n")
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the code fence opened here is not closed before the fence at line "
        f"{after}: the code would run on, and the code after it would render as text. "
        "Fix: Close it with a line of the same backticks.",
    )


@pytest.mark.build
def test_a_code_fence_never_closed(project: Path) -> None:
    """The last fence of the page left open: named, not the block its closing line was in."""
    line = _drop_closing_fence(project / DIVE_01, "```text\n")
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the code fence opened here is never closed: the rest of the page "
        "would be code. Fix: Close it with a line of the same backticks.",
    )


SPAN_OPEN = "span has no closing '}' in its paragraph: the page would show it as written."


@pytest.mark.build
def test_a_claim_without_its_closing_brace(project: Path) -> None:
    claim = "{claim: EMQ.PROMOTE.arity = 6; EMQ.STALLED.CHECK.arity = 8}"
    line = edit(project / DIVE_01, claim, claim[:-1])
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the '{{claim:' {SPAN_OPEN} Fix: Close it with '}}' right after its "
        "expression: [text]{claim: …}.",
    )


@pytest.mark.build
def test_a_choice_that_runs_into_the_next_span(project: Path) -> None:
    line = edit(project / DIVE_01, "{choice: intervals},", "{choice: intervals,")
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the '{{choice:' span has no closing '}}': it runs on into the next "
        "marked span, and reads 'intervals, [a woken consumer that runs its whole beat again]'. "
        "Fix: Close it with '}' right after its expression: [text]{choice: …}.",
    )


@pytest.mark.build
def test_an_expectation_without_its_brace_in_a_duty(project: Path) -> None:
    edit(project / DUTIES, "j1 reaches pending at 3}", "j1 reaches pending at 3")
    line = line_of(project / DUTIES, "between_calls:")
    assert_fails_with(
        project,
        f"{DUTIES}:{line}: the '{{expect:' {SPAN_OPEN} Fix: Close it with '}}' right after its "
        "expression: [text]{expect: …}.",
    )


@pytest.mark.build
def test_a_choice_without_its_brace_in_a_question(project: Path) -> None:
    line = edit(project / DIVE_02, "{choice: promote-rings}. Who", "{choice: promote-rings. Who")
    assert_fails_with(
        project,
        f"{DIVE_02}:{line}: the '{{choice:' {SPAN_OPEN} Fix: Close it with '}}' right after its "
        "expression: [text]{choice: …}.",
    )


@pytest.mark.build
@pytest.mark.parametrize(
    ("inserted", "what"),
    [("\x00", "a NUL character (U+0000)"), ("\ufeff", "a byte-order mark (U+FEFF)")],
    ids=["NUL", "byte-order mark"],
)
def test_an_invisible_character_in_a_page(project: Path, inserted: str, what: str) -> None:
    """A NUL would reach the page; a byte-order mark past the file's start hides the syntax
    of its line (`\ufeff## Two sweeps` is no heading)."""
    line = edit(project / DIVE_01, "## Two sweeps", f"## Two{inserted} sweeps")
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: this line holds {what}, invisible, at column 7. Fix: Delete it: a "
        "source of the course is plain UTF-8 text.",
    )


@pytest.mark.build
def test_a_byte_order_mark_in_front_matter(project: Path) -> None:
    """`status\ufeff:` would be a key the page does not have (and `status` missing); in a
    value the mark would reach the page. Named at its line, in any YAML of the course."""
    line = edit(project / MODULE, "status: built", "status\ufeff: built")
    assert_fails_with(
        project,
        f"{MODULE}:{line}: this line holds a byte-order mark (U+FEFF), invisible, at column 7. "
        "Fix: Delete it: a source of the course is plain UTF-8 text.",
    )


@pytest.mark.build
def test_a_misspelt_required_key_is_one_line(project: Path) -> None:
    """The unknown key and the required field it was meant to be are one slip: one line (it
    used to be two, the field reported missing too)."""
    line = edit(project / MODULE, "status: built", "statsu: built")
    assert_fails_with(
        project,
        f"{MODULE}:{line}: 'statsu' is not a field of the module's front matter. Did you mean "
        "'status'? Fix: Use one of: id, title, summary, status, published_status, up_next "
        '(docs/authoring.md, "Front matter").',
    )


@pytest.mark.build
def test_a_control_character_in_yaml_is_named_at_its_line(project: Path) -> None:
    """It used to be two lines (YAML's own position), at line 1."""
    line = edit(project / DUTIES, "    kind: time\n", "    kind: ti\x07me\n")
    assert_fails_with(
        project,
        f"{DUTIES}:{line}: this line holds an invisible character, U+0007, at column 13: the "
        "reader sees 'time', and every check reads another word. Fix: Delete it: a source of "
        "the course is plain UTF-8 text.",
    )


TRANSCRIPT = MODULE_04 / "transcripts/03-park.txt"


@pytest.mark.build
def test_a_transcript_that_is_not_utf8(project: Path) -> None:
    """It used to end in a UnicodeDecodeError."""
    path = project / TRANSCRIPT
    line = line_of(path, "XPENDING")
    path.write_bytes(path.read_bytes().replace(b"XPENDING", b"XPEN\xffDING", 1))
    offset = path.read_bytes().index(b"\xff")
    assert_fails_with(
        project,
        f"{TRANSCRIPT}:{line}: is not UTF-8 text (byte 0xff at offset {offset}). Fix: Save the "
        "file as UTF-8.",
    )


@pytest.mark.build
def test_a_transcript_quote_left_open(project: Path) -> None:
    """It used to end in shlex's ValueError ("No closing quotation"), caught only by the guard."""
    path = project / TRANSCRIPT
    line = line_of(path, "XPENDING")
    text = path.read_text(encoding="utf-8").splitlines()[line - 1].strip()
    edit(path, text, text + ' "open')
    assert_fails_with(
        project,
        f"{TRANSCRIPT}:{line}: the command '{text} \"open' has a quote that is not closed. Fix: "
        'Close the quote (`SET k "a b"`), or escape it with a backslash.',
    )


@pytest.mark.build
def test_a_transcript_edit_is_checked_again(project: Path) -> None:
    """The checks' memo of a page read the transcripts it shows: after a good build, an edit of
    one is checked again (it used to keep the page's verdict, under a preview too)."""
    assert core_build(project) is None
    path = project / TRANSCRIPT
    path.write_text(path.read_text(encoding="utf-8").split("\n", 1)[1], encoding="utf-8")
    dive = MODULE_04 / "dives/03-the-native-bus.md"
    line = line_of(project / dive, "    transcript: 03-park") - 1
    assert_fails_with(
        project,
        f"{dive}:{line}: the transcript '03-park' shows other commands than "
        "transcripts/03-park.txt sends. Fix: Show its commands in order, each after its prompt, "
        "as `.venv/bin/python -m support.transcripts` prints them.",
    )


@pytest.mark.build
def test_a_front_matter_source_comment_edit_is_checked_again(project: Path) -> None:
    """A field's source comment is in the page's file and nowhere else: after a good build, an
    edit of it is checked again (the checks' memo used to keep the page's verdict)."""
    quote = "A due job stays in schedule until a client sends the first"
    edit(project / MODULE, "summary: >-", f'# seed: "{quote}"\nsummary: >-')
    assert core_build(project) is None
    edit(project / MODULE, quote, "Words the seed never says.")  # the same lines: the same body
    line = line_of(project / MODULE, "summary: >-")
    message = core_build(project)
    assert message is not None and ONE_LINE.match(message), message
    assert message.startswith(
        f'{MODULE}:{line}: the source comment cites "Words the seed never says.", which the seed'
    ), message


@pytest.mark.build
def test_two_predicates_of_one_sentence_are_one_line(project: Path) -> None:
    """A changed run that two predicates of one sentence no longer hold is one slip: named
    once, with a count."""
    edit(
        project / DUTIES,
        "from 2.5 to 3;\n      j1 reaches pending at 3}",
        "from 2.5 to 9;\n      j1 reaches pending at 8}",
    )
    line = line_of(project / DUTIES, "between_calls:")
    message = core_build(project)
    assert message is not None and ONE_LINE.match(message), message
    assert message.startswith(
        f"{DUTIES}:{line}: the expectation 'j1 in schedule from 2.5 to 9' does not hold"
    )
    assert f"{PROMOTE_SENTENCE} This line has 1 more problem too. {EXPECTATION_FIX}" in message


# -- bounded work: YAML aliases (issue 28) -----------------------------------------------------


def _alias_fan_out(levels: int, indent: str = "") -> str:
    """`levels` lines of ten aliases each to the line before: 10**levels values in a few
    hundred bytes (seven levels took 51 s to refuse before aliases were)."""
    lines = [f"{indent}l0: &l0 [a, a, a, a, a, a, a, a, a, a]"]
    lines += [
        f"{indent}l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, levels)
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.build
def test_an_alias_fan_out_in_front_matter_is_refused_at_the_alias(project: Path) -> None:
    line = edit(project / DIVE_02, "status: built\n", "status: built\n" + _alias_fan_out(7)) + 2
    assert_fails_with(
        project,
        f"{DIVE_02}:{line}: the YAML alias '*l0' repeats a value anchored elsewhere; the "
        "course's files are read without aliases (a few lines of them can stand for billions of "
        "values). Fix: Write the value out where it is needed, and drop the anchor (&name).",
    )


@pytest.mark.build
def test_an_alias_in_a_question_is_refused_at_the_alias(project: Path) -> None:
    opener = "/// check | The consumer of the promote duty runs with [a beat of 2 s"
    text = (project / MODULE).read_text(encoding="utf-8")
    start = text.index(opener)
    at = text.index("\n", start) + 1
    text = text[:at] + _alias_fan_out(7) + text[at:]
    (project / MODULE).write_text(text, encoding="utf-8")
    line = line_of(project / MODULE, "l1: &l1")
    assert_fails_with(
        project,
        f"{MODULE}:{line}: the YAML alias '*l0' repeats a value anchored elsewhere; the course's "
        "files are read without aliases (a few lines of them can stand for billions of values). "
        "Fix: Write the value out where it is needed, and drop the anchor (&name).",
    )


@pytest.mark.build
def test_an_alias_in_a_scenario_is_refused_at_the_alias(project: Path) -> None:
    scenario = project / SCENARIO
    scenario.write_text(
        scenario.read_text(encoding="utf-8").replace("duration:", "x: &d 1\nduration:", 1)
        + "y: *d\n",
        encoding="utf-8",
    )
    line = line_of(scenario, "y: *d")
    message = core_build(project)
    assert message is not None and message.startswith(
        f"{SCENARIO}:{line}: the YAML alias '*d' repeats a value anchored elsewhere"
    ), message


@pytest.mark.build
def test_a_source_past_its_bound_is_read_no_further(project: Path) -> None:
    """A scenario with a log pasted in is refused after MAX_SOURCE_BYTES, not read whole (a
    link to a device is no file of the course: tests/cli/test_cli.py reads one)."""
    scenario = project / SCENARIO
    pasted = "# " + "a log line " * 9 + "\n"
    scenario.write_text(pasted * (4_000_000 // len(pasted) + 1), encoding="utf-8")
    assert_fails_with(
        project,
        f"{SCENARIO}: holds more than 4,000,000 bytes, the most a source of the course may hold "
        "(the largest is some 30 KB); it was not read further. Fix: Check that it is the file "
        "you meant (not a link to a device or a log), and split a page that grew that long.",
    )
