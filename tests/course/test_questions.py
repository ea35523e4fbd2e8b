"""Check yourself, the course's side (trafikist.course.questions, .review and the renderer):
blocks in, what the run says of each option and the HTML the reader gets out. Every value is
read from the model's own trace here, never from the author; tests/checks/test_questions.py
holds the build's refusals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from support import copy_project
from support.authoring import MODULE_04
from support.questions import CRASH, IDS, WIRE_6, add_questions, project_with_questions
from trafikist.core.site import Site, load_site
from trafikist.course.predicates import command_name
from trafikist.course.questions import Question, live_query, outcome, page_questions, trace_of
from trafikist.course.review import REVIEW_PAGE_ID, course_questions
from trafikist.course.structure import Kind

# Every test reads questions added to a copy of the course (the `asked` fixture): the full suite.
pytestmark = pytest.mark.build


@pytest.fixture(scope="module")
def asked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Site, dict[str, Question], list[int]]:
    project, lines = project_with_questions(tmp_path_factory.mktemp("questions") / "project")
    site = load_site(project / "modules", base_dir=project, checks=False)
    module = next(page for page in site.pages() if page.kind is Kind.MODULE and page.number == 4)
    questions = {question.id: question for question in page_questions(module)}
    return site, questions, lines


def first_entry(trace: dict, job: str, place: str) -> dict:
    return next(step for step in trace["steps"] if job in step["state"].get(place, ()))


def test_each_block_is_read_with_its_lines(asked) -> None:
    _, questions, lines = asked
    assert [qid for qid in questions if qid in IDS] == list(IDS)
    where = questions["where-is-j1"]
    assert where.line == lines[0]
    assert where.prompt == (
        "Where is j1 at 2.8 s, after it fell due at 2.5 s? The consumer starts at 0 s."
    )
    assert [option.right for option in where.options] == [False, True]
    source = where.file.read_text(encoding="utf-8").splitlines()
    assert source[where.options[1].line - 1].strip() == "- text: Still in schedule."
    assert source[where.options[1].why_line - 1].strip().startswith("why: Between calls")


def test_a_choice_is_decided_by_the_run(asked) -> None:
    _, questions, _ = asked
    question = questions["where-is-j1"]
    result = outcome(question)
    assert result.holds == [False, True]
    promoted = first_entry(trace_of(question), "j1", "pending")
    decider = result.deciders[1]
    assert decider is not None and decider.t == pytest.approx(promoted["t"])
    sentence = decider.sentence()
    assert sentence.startswith("In the model's run, j1 stays in schedule, where the run began it")
    assert f"until the call at {promoted['t']:g} s: consumer sent @promote" in sentence


def test_a_number_is_counted_and_timed_on_the_run(asked) -> None:
    _, questions, _ = asked
    trace = trace_of(questions["promote-count"])
    sent = [s for s in trace["steps"] if command_name(s["argv"]) == "@promote"]
    assert outcome(questions["promote-count"]).value == len(sent)
    when = outcome(questions["promote-when"])
    assert when.value == pytest.approx(first_entry(trace, "j1", "pending")["t"])
    assert questions["promote-when"].decimals == 1


def test_an_order_is_the_runs_and_equal_times_share_a_place(asked) -> None:
    site, questions, _ = asked
    question = questions["promote-order"]
    result = outcome(question)
    trace = trace_of(question)
    expected = [first_entry(trace, job, "pending")["t"] for job in ("j1", "j2", "j3", "j4")]
    assert result.times == pytest.approx(expected)
    section = BeautifulSoup(site.renderer.question_html(question), "html.parser").section
    # j2 and j3 move in one call: either may stand first.
    assert section["data-order"] == "0 1 1 2"
    shown = [int(item["data-item"]) for item in section.select(".tk-check__order > li")]
    assert sorted(shown) == [0, 1, 2, 3] and shown != [0, 1, 2, 3]
    assert "steps at the same moment may stand in either order" in section.get_text()


@pytest.mark.parametrize("block", [CRASH, WIRE_6], ids=["a crash", "wire 6"])
def test_a_what_if_runs_with_its_changes(asked, block: str) -> None:
    _, questions, _ = asked
    question = questions[block.split("id: ")[1].split("\n")[0]]
    result = outcome(question)
    assert result.holds == [False, True]
    trace = trace_of(question)
    assert all("j1" not in step["state"].get("pending", ()) for step in trace["steps"])
    if block is CRASH:
        assert question.run.overrides == {"faults": [{"client": "consumer", "after": 4}]}
        assert len([s for s in trace["steps"] if s["client"] == "consumer"]) == 4
    else:
        assert question.run.overrides == {"wire": 6}


def test_without_javascript_every_answer_is_in_the_page(asked) -> None:
    site, questions, _ = asked
    section = BeautifulSoup(site.renderer.question_html(questions["where-is-j1"]), "html.parser")
    form = section.select_one("section.tk-check > fieldset")
    assert form.legend.get_text() == (
        "Where is j1 at 2.8 s, after it fell due at 2.5 s? The consumer starts at 0 s."
    )
    assert [radio["value"] for radio in form.select("input[type=radio]")] == ["0", "1"]
    assert form.find("button") is None  # Check comes with the script
    answer = section.select_one("details.tk-check__answer")
    assert answer.summary.get_text() == "Show the answer"
    assert "The answer: Still in schedule." in answer.get_text(" ", strip=True)
    whys = [dd.get_text() for dd in answer.select("dd")]
    assert whys == [
        "A job does not move when it falls due; a call moves it.",
        "Between calls a due job stays in schedule.",
    ]
    # Both options turn on one step of the run: it is said once, after them.
    step = answer.select_one(".tk-check__step").get_text()
    assert step.startswith("In the model's run, j1 stays in schedule, where the run began it")


def test_a_number_question_shows_its_mistakes_and_why(asked) -> None:
    site, questions, _ = asked
    section = BeautifulSoup(site.renderer.question_html(questions["promote-count"]), "html.parser")
    assert section.section["data-answer"] == "13" and section.section["data-decimals"] == "0"
    terms = [dt.get_text() for dt in section.select("dt")]
    assert terms == ["13", "10"]
    last = [
        s for s in trace_of(questions["promote-count"])["steps"] if s["argv"][1:2] == ["@promote"]
    ]
    step = section.select_one(".tk-check__step").get_text()
    assert f"at {last[-1]['t']:g} s, consumer sent @promote" in step


def test_the_widget_link_sets_the_questions_controls(asked) -> None:
    _, questions, _ = asked
    assert live_query(questions["where-is-j1"]) == "duty=promote"
    assert live_query(questions["promote-wire-6"]) == "duty=promote&wire=6"
    assert live_query(questions["promote-crash"]) == "duty=promote&crash=consumer%404"


def test_the_run_marks_the_step_that_decides(asked) -> None:
    site, questions, _ = asked
    runs = site.renderer.question_runs("../../../reference/model-choices/#choice-")
    fragment = BeautifulSoup(runs["where-is-j1"], "html.parser")
    # Read the marked row's first cell as text.
    marked = re.findall(r'<tr class="tk-trace__decides"><td>([^<]*)</td>', runs["where-is-j1"])
    promoted = first_entry(trace_of(questions["where-is-j1"]), "j1", "pending")
    assert marked == [f"{promoted['t']:.3f}"]
    links = [a["href"] for a in fragment.select(".tk-run__choices a")]
    assert links and all(h.startswith("../../../reference/model-choices/#choice-") for h in links)


def test_the_review_page_asks_every_question_with_its_page(asked) -> None:
    site, _, _ = asked
    review = site.course.pages[REVIEW_PAGE_ID]
    assert review.kind is Kind.REVIEW and review.book.title == "Check yourself"
    markdown = site.renderer.page_markdown(review)
    page = BeautifulSoup(markdown.split("---\n", 2)[2], "html.parser")
    entries = page.select(".tk-review__list > li")
    assert [entry["data-review"] for entry in entries] == [
        q.id for q in course_questions(site.course)
    ]
    ours = next(entry for entry in entries if entry["data-review"] == "where-is-j1")
    assert ours.select_one(".tk-check__from a")["href"] == (
        "id:blocking-timers-and-the-bus#check-where-is-j1"
    )


def test_a_module_counts_its_questions_and_its_dives(asked) -> None:
    site, _, _ = asked
    module = next(page for page in site.pages() if page.kind is Kind.MODULE and page.number == 4)
    ids = site.renderer.question_ids(module).split()
    assert [qid for qid in ids if qid in IDS] == list(IDS)
    assert set(ids) == {
        q.id for q in course_questions(site.course) if q.page in (module, *module.dives)
    }
    # The module's header counts the questions its page holds; each dive's header its own.
    header = site.renderer.page_markdown(module)
    own = [q.id for q in course_questions(site.course) if q.page is module]
    assert len(own) < len(ids) and f'data-checks="{" ".join(own)}"' in header
    for dive in module.dives:
        theirs = [q.id for q in course_questions(site.course) if q.page is dive]
        if theirs:
            assert f'data-checks="{" ".join(theirs)}"' in site.renderer.page_markdown(dive)


def test_questions_in_order_are_the_run_blocks(asked) -> None:
    """The page's Markdown holds each question once, where its block stood."""
    site, _, _ = asked
    module = next(page for page in site.pages() if page.kind is Kind.MODULE and page.number == 4)
    markdown = site.renderer.page_markdown(module)
    assert "/// check" not in markdown
    positions = [markdown.index(f'id="check-{qid}"') for qid in IDS]
    assert positions == sorted(positions)
    assert markdown.index('id="check-promote-wire-6"') < markdown.index("## The dives")


DIVE_03_NAME = Path("dives/03-the-native-bus.md")
KEEPS_RESTART = """\
/// check | The reader stops after its third command. Is m1 parked?
id: crash-keeps-restart
run: worked example
crash: reader after 3
options:
  - text: Yes.
    right: true
    expect: stream events:dead length 1 at end
    why: It restarts and parks it.
  - text: No.
    expect: stream events:dead length 0 at end
    why: It restarts.
///
"""


@pytest.mark.build
def test_a_crash_keeps_the_scenarios_restart_unless_for_good(tmp_path) -> None:
    """A question's crash keeps what its run does after a crash (the worked example's reader
    restarts one second later); `for good` drops the restart, as its prompt then says."""
    for_good = KEEPS_RESTART.replace("crash-keeps-restart", "crash-for-good").replace(
        "crash: reader after 3\n", "crash: reader after 3 for good\n"
    )
    by_command = KEEPS_RESTART.replace("crash-keeps-restart", "crash-by-command").replace(
        "crash: reader after 3\n", "crash: reader after EXPIRE 2\n"
    )
    project = copy_project(tmp_path / "project")
    add_questions(project, KEEPS_RESTART, for_good, by_command, page=MODULE_04 / DIVE_03_NAME)
    site = load_site(project / "modules", base_dir=project, checks=False)
    dive = next(page for page in site.pages() if page.id == "the-native-bus")
    kept, dropped, named = page_questions(dive)[-3:]
    assert kept.run.overrides == {"faults": [{"client": "reader", "after": 3, "restart": 1.0}]}
    assert dropped.run.overrides == {"faults": [{"client": "reader", "after": 3}]}
    restarts = [
        [e["t"] for e in trace_of(q)["events"] if e["kind"] == "restart"] for q in (kept, dropped)
    ]
    assert restarts[0] and not restarts[1]
    # The question's line above its options says which crash the run has, and what follows it.
    labels = [
        BeautifulSoup(site.renderer.question_html(q), "html.parser")
        .select_one(".tk-check__run")
        .get_text()
        for q in (kept, dropped, named)
    ]
    assert labels[0].endswith("with reader crashes after command 3, restarts 1 s later")
    assert labels[1].endswith("with reader crashes after command 3 for good")
    assert labels[2].endswith("with reader crashes after its second EXPIRE, restarts 1 s later")
