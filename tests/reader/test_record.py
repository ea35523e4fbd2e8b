"""The reader's record as a reader meets it, in Chromium under both engines: every attempt kept
across a reload, the review page's order and what it says of each question, "Clear my
record" asking first and offering undo, a record of the former format read, and a damaged one
read for what fits. The record's pure part is tested in Node (record.test.mjs)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import expect

from support import MODULE_04
from support.reader_states import bring_to
from support.seen import View, assert_no_sideways_scroll, assert_quiet, assert_unseen

pytestmark = pytest.mark.browser

STORE = "trafikist-checks"
REVIEW = "review/index.html"
CHOICE = "#check-a-beat-on-wire-6"
NUMBER = "#check-a-longer-beat"
DAY_MS = 24 * 3600 * 1000


def stored(view: View) -> dict:
    text = view.page.evaluate(f"localStorage.getItem({STORE!r})")
    return json.loads(text) if text else {}


def review_order(view: View) -> list[str]:
    order: list[str] = view.page.locator(".tk-review__list > li").evaluate_all(
        "(l) => l.map((e) => e.dataset.review)"
    )
    return order


def entry(view: View, id_: str):
    return view.page.locator(f'.tk-review__list > li[data-review="{id_}"]')


def test_every_attempt_is_kept_and_a_mistake_stays_until_right_on_a_later_day(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04)
    question = view.page.locator(CHOICE)
    bring_to(question, "sure-but-wrong")
    question.get_by_label("Guessing").check()  # then right, guessing
    index = int(question.get_attribute("data-right") or 0)
    question.locator(".tk-check__options input").nth(index).check()
    question.get_by_role("button", name="Check").click()
    expect(question.locator(".tk-check__verdict")).to_contain_text("Right.")
    view.page.reload()
    attempts = stored(view)["questions"]["a-beat-on-wire-6"]
    assert [(a["right"], a["sure"]) for a in attempts] == [(False, "sure"), (True, "guess")]
    assert attempts[1]["answer"] == index and attempts[0]["at"] <= attempts[1]["at"]
    # Right again the same day: the mistake is still asked first on the review page.
    view.goto(site_url + REVIEW)
    assert review_order(view)[0] == "a-beat-on-wire-6"
    expect(view.page.locator(".tk-review__status")).to_contain_text(
        "1 answered wrong before and not yet right on a later day"
    )
    expect(entry(view, "a-beat-on-wire-6").locator(".tk-review__last")).to_contain_text(
        re.compile(r"right, and you were guessing · 2 attempts, 1 wrong")
    )
    assert_quiet(view)


def test_the_review_orders_wrong_last_then_not_yet_right_then_not_seen_for_longest(
    reader: Callable[..., View], site_url: str, viewport: str
) -> None:
    now = int(time.time() * 1000)

    def attempt(days_ago: float, right: bool, sure: str | None = None) -> dict:
        return {"at": now - int(days_ago * DAY_MS), "answer": 0, "right": right, "sure": sure}

    record = {
        "version": 2,
        "questions": {
            # right two days after its mistake: reviewed by age only
            "a-beat-on-wire-6": [attempt(5, False), attempt(3, True)],
            "a-longer-beat": [attempt(2, True), attempt(1, False, "sure")],
            "a-longer-beat-in-order": [attempt(4, False), attempt(4, True)],  # right the same day
            "a-consumer-that-stops": [attempt(6, True, "think")],
        },
    }
    view = reader(site_url + REVIEW, viewport=viewport, storage={STORE: json.dumps(record)})
    order = review_order(view)
    assert order[:2] == ["a-longer-beat", "a-longer-beat-in-order"], order
    # Then those not seen for longest: never seen first, then the older.
    rest = order[2:]
    assert rest.index("a-consumer-that-stops") < rest.index("a-beat-on-wire-6")
    assert rest[-2:] == ["a-consumer-that-stops", "a-beat-on-wire-6"], rest
    last = entry(view, "a-longer-beat").locator(".tk-review__last")
    expect(last).to_contain_text("wrong, and you were sure · 2 attempts, 1 wrong")
    expect(entry(view, "a-consumer-that-stops").locator(".tk-review__last")).to_contain_text(
        "right, and you thought so."
    )
    never = entry(view, rest[0]).locator(".tk-review__last")
    expect(never).to_have_text("Not answered yet.")
    assert_no_sideways_scroll(view.page, f"review page with a record ({viewport})")
    assert_quiet(view)


def test_clear_asks_first_and_can_be_undone_until_the_page_is_left(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04)
    bring_to(view.page.locator(NUMBER), "wrong")
    view.goto(site_url + REVIEW)
    page = view.page
    page.get_by_role("button", name="Clear my record").click()
    expect(page.locator(".tk-review__confirm")).to_contain_text("Clear every answer")
    page.get_by_role("button", name="Keep it").click()  # nothing cleared
    assert "a-longer-beat" in stored(view)["questions"]
    expect(page.get_by_role("button", name="Clear my record")).to_be_focused()
    page.get_by_role("button", name="Clear my record").click()
    page.get_by_role("button", name="Clear it").click()
    expect(page.locator(".tk-review__status")).to_have_text("Your record is cleared.")
    assert stored(view)["questions"] == {}
    expect(entry(view, "a-longer-beat").locator(".tk-review__last")).to_have_text(
        "Not answered yet."
    )
    # With nothing left to clear, only Undo is offered.
    assert_unseen(page.locator(".tk-review__clear"), "Clear my record with no record")
    page.get_by_role("button", name="Undo").click()
    expect(page.locator(".tk-review__status")).to_contain_text("Your record is back.")
    assert len(stored(view)["questions"]["a-longer-beat"]) == 1
    assert review_order(view)[0] == "a-longer-beat"
    # Cleared again, and the page left: there is nothing left to undo.
    page.get_by_role("button", name="Clear my record").click()
    page.get_by_role("button", name="Clear it").click()
    view.goto(site_url + REVIEW)
    page.locator(".tk-review__last").first.wait_for()
    assert_unseen(page.locator(".tk-review__undo"), "Undo after the page was left")
    assert_unseen(page.locator(".tk-review__clear"), "Clear my record with no record")
    assert stored(view)["questions"] == {}
    bring_to(page.locator("section.tk-check").first, "wrong")  # an answer on the review page
    expect(page.get_by_role("button", name="Clear my record")).to_be_visible()
    assert_quiet(view)


def test_a_record_of_the_former_format_is_read_and_a_damaged_one_for_what_fits(
    reader: Callable[..., View], site_url: str
) -> None:
    now = int(time.time() * 1000)
    # As the site wrote it before: one entry per question, its last answer. One is damaged
    # ("false" is not right), one's id is __proto__ (a plain object would lose it).
    when = f'"at": {now}, "seen": {now}'
    former = (
        f'{{"a-beat-on-wire-6": {{"right": true, {when}}},'
        f' "a-longer-beat": {{"right": "false", {when}}},'
        f' "__proto__": {{"right": false, {when}}}}}'
    )
    assert json.loads(former)["a-longer-beat"]["right"] == "false"
    view = reader(site_url + MODULE_04, storage={STORE: former})
    progress = view.page.locator(".tk-header__checks")
    expect(progress).to_contain_text(re.compile(r"\b1 of \d+ answered right"))
    bring_to(view.page.locator(NUMBER), "wrong")  # written in today's format, nothing lost
    view.page.reload()
    questions = stored(view)["questions"]
    assert questions["a-beat-on-wire-6"][0]["right"] is True
    # The damaged attempt dropped; the wrong answer just given kept.
    assert [a["right"] for a in questions["a-longer-beat"]] == [False]
    text = view.page.evaluate(f"localStorage.getItem({STORE!r})")
    assert '"__proto__":[{' in text.replace(" ", ""), text
    expect(progress).to_contain_text(re.compile(r"\b1 of \d+ answered right"))
    assert_quiet(view)


def test_the_header_counts_the_questions_its_page_holds(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04)
    held = view.page.locator("section.tk-check").count()
    bring_to(view.page.locator(CHOICE), "right")
    expect(view.page.locator(".tk-header__checks")).to_contain_text(f"1 of {held} answered right")
