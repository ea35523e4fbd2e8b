"""The feedback and the notes around the questions, as a reader reads them (support.seen), in
both palettes under both engines: an order question's evidence is a list, a step to a line;
every text of the questions, the review page and the module's header and home entry is 12 px
or more with 4.5:1 (3:1 when large). The run a question shows is the duty widget's drawing,
measured by its own tests (tests/reader/test_timeline_seen.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from support import MODULE_04
from support.reader_states import bring_to
from support.seen import (
    View,
    assert_no_sideways_scroll,
    assert_quiet,
    assert_unseen,
    seen,
    text_problems,
)

pytestmark = pytest.mark.browser

ORDER = "#check-a-longer-beat-in-order"
DIVE_02 = "trafikist/04-blocking-timers-and-the-bus/02-the-blocking-claim/index.html"
ORDER_HINT = "Put these in the order the run takes them"
REVIEW = "review/index.html"
# The reader's own texts: the header's count, the questions and their feedback, the review
# page, the home page's entries, the badges and the choice marks among them.
OURS = ".tk-header, .tk-check, .tk-review, .tk-course-entry, .tk-dive-card, .tk-up-next"
THE_RUN = ".tk-check__run-box"
A_RECORD = (
    '{"version": 2, "questions": {"a-beat-on-wire-6": '
    '[{"at": 1765000000000, "answer": 0, "right": false, "sure": "sure"}]}}'
)


def test_an_order_questions_evidence_is_a_step_to_a_line(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04)
    question = view.page.locator(ORDER)
    bring_to(question, "wrong")
    steps = question.locator(".tk-check__feedback .tk-check__steps > li")
    items = question.locator(".tk-check__order > li").count()
    assert steps.count() == items >= 3
    tops = [steps.nth(index).bounding_box()["y"] for index in range(items)]  # type: ignore[index]
    assert tops == sorted(set(tops)), tops  # each below the one before: one to a line
    words = [steps.nth(index).inner_text() for index in range(items)]
    assert all("in the model's run" in line for line in words), words
    assert_quiet(view)


def test_every_text_of_the_questions_and_the_review_is_readable(
    reader: Callable[..., View], site_url: str, palette: str
) -> None:
    found: dict[str, list[str]] = {}
    for path in (MODULE_04, REVIEW, "index.html"):
        view = reader(site_url + path, palette=palette, storage={"trafikist-checks": A_RECORD})
        if path == MODULE_04:
            bring_to(view.page.locator(ORDER), "wrong")
            bring_to(view.page.locator("#check-a-beat-on-wire-6"), "sure-but-wrong")
        else:
            view.page.locator(".tk-checks-progress, .tk-review__last").first.wait_for()
        problems = text_problems(view.page, OURS, exclude=THE_RUN)
        if problems:
            found[path] = problems
        assert_quiet(view)
    lines = [f"{path} ({palette}): {problem}" for path, ps in found.items() for problem in ps]
    assert not found, "\n".join(lines)


# Each model's-choice mark seen whose sentence goes on with a stop, a comma or another mark of
# punctuation right after it: that character's line, below the mark's own line.
PUNCTUATION_AFTER = """() => {
  const found = [];
  for (const mark of document.querySelectorAll(".tk-choice__mark")) {
    if (!mark.checkVisibility()) continue;
    const text = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    text.currentNode = mark.lastChild || mark;
    let node = text.nextNode();
    // The next text a reader sees (empty anchors and the visually hidden pause skipped).
    while (node && (!node.textContent.trim() || !node.parentElement.checkVisibility() ||
                    node.parentElement.closest(".tk-visually-hidden"))) node = text.nextNode();
    if (!node) continue;
    const at = node.textContent.search(/\\S/);
    if (!/[.,;:)?!]/.test(node.textContent[at])) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    const stop = range.getBoundingClientRect();
    const shown = mark.getClientRects();
    const last = shown[shown.length - 1];
    const words = node.textContent.trim().slice(0, 30);
    if (stop.top >= last.bottom - 1) found.push(`"${words}" after the mark at y=${last.top}`);
  }
  return found;
}"""
PAGES = (
    MODULE_04,
    "trafikist/04-blocking-timers-and-the-bus/01-who-moves-time-today/index.html",
    "trafikist/04-blocking-timers-and-the-bus/02-the-blocking-claim/index.html",
    "trafikist/04-blocking-timers-and-the-bus/03-the-native-bus/index.html",
    REVIEW,
)


def test_no_line_begins_with_the_stop_after_a_models_choice_mark(
    reader: Callable[..., View], site_url: str
) -> None:
    """On a phone a "model's choice" mark at the end of a line sent the full stop or the comma
    after it to the next line, alone at its start (one or two a page at 390 px, in the prose
    and in the questions' feedback): the mark keeps its punctuation on its line."""
    found = []
    for path in PAGES:
        view = reader(site_url + path, viewport="phone")
        for width in (390, 360):
            view.page.set_viewport_size({"width": width, "height": 844})
            found += [
                f"{path} at {width} px: {where}" for where in view.page.evaluate(PUNCTUATION_AFTER)
            ]
        assert_no_sideways_scroll(view.page, path)
    assert not found, "\n".join(found)


def test_the_review_pages_questions_take_the_columns_width(
    reader: Callable[..., View], site_url: str, viewport: str
) -> None:
    """Each question card of the review page starts and ends where the page's text does: the
    theme indented them as a list's items, 30 px of a phone's 358."""
    view = reader(site_url + REVIEW, viewport=viewport)
    page = view.page
    page.locator(".tk-review__last").first.wait_for()
    text = page.locator(".md-content h1").bounding_box()  # a block: the column's width
    assert text is not None
    for card in page.locator(".tk-review__list section.tk-check").all()[:3]:
        box = card.bounding_box()
        assert box is not None
        assert abs(box["x"] - text["x"]) <= 1, f"a card at x={box['x']}, the text at {text['x']}"
        right, text_right = box["x"] + box["width"], text["x"] + text["width"]
        assert abs(right - text_right) <= 1, f"a card ends at {right}, the text at {text_right}"
    assert_quiet(view)


# The review page's list: how far below its heading it begins, and the spacing the two ask for
# (their margins, which meet).
LIST_GAP = """() => {
  const heading = document.querySelector(".tk-review").previousElementSibling;
  const list = document.querySelector(".tk-review__list");
  const spacing = Math.max(parseFloat(getComputedStyle(heading).marginBottom),
                           parseFloat(getComputedStyle(list).marginTop));
  return { gap: list.getBoundingClientRect().top - heading.getBoundingClientRect().bottom,
           spacing };
}"""


def test_the_review_pages_actions_take_no_room_when_they_have_nothing_to_say(
    reader: Callable[..., View], site_url: str, viewport: str
) -> None:
    """With no record there is nothing to clear and no order to tell: the line of actions is
    not seen and the list follows its heading at the page's spacing (the empty line kept its
    own margins, 16 px more). With a record it shows "Clear my record" and what comes first."""
    view = reader(site_url + REVIEW, viewport=viewport)
    page = view.page
    page.locator(".tk-review__last").first.wait_for()
    assert_unseen(page.locator(".tk-review__actions"), "the empty line of actions")
    found = page.evaluate(LIST_GAP)
    assert abs(found["gap"] - found["spacing"]) <= 1, found
    assert_quiet(view)
    view = reader(site_url + REVIEW, viewport=viewport, storage={"trafikist-checks": A_RECORD})
    page = view.page
    page.locator(".tk-review__last").first.wait_for()
    assert seen(page.locator(".tk-review__clear")) == [True]
    assert page.locator(".tk-review__status").inner_text().startswith("First: 1 answered wrong")
    assert_quiet(view)


def test_an_order_question_says_once_what_to_do(reader: Callable[..., View], site_url: str) -> None:
    """The hint under an order question's list says what to do; its prompt said it too, so a
    reader read "Put these in the order the run takes them." twice, one line apart."""
    said = {}
    for path in (MODULE_04, DIVE_02):
        view = reader(site_url + path)
        questions = view.page.locator("section.tk-check:has(.tk-check__order)")
        assert questions.count() >= 1, path
        for question in questions.all():
            text = question.inner_text()
            said[question.get_attribute("id")] = text.count(ORDER_HINT)
        assert_quiet(view)
    assert set(said.values()) == {1}, said
