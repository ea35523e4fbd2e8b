"""Check yourself as a reader sees it (support.seen), on module 04's page, at 390 and 1366 px,
in both palettes, under both engines: no part of an answer before Check, no sideways scroll in
any state, a visible focus mark on every control, Enter in a number answer checks it, and
edges of 3:1 around each question and each field."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import expect

from support import MODULE_04
from support.reader_states import STATES, bring_to, kind_of, questions, ready
from support.seen import (
    View,
    assert_edges,
    assert_focus_visible,
    assert_no_sideways_scroll,
    assert_quiet,
    assert_tab_order,
    assert_unseen,
)

pytestmark = pytest.mark.browser

NUMBER = "#check-a-longer-beat"
REVIEW = "review/index.html"


def test_no_part_of_an_answer_is_seen_before_check(
    reader: Callable[..., View], site_url: str, viewport: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport)
    ids = questions(view.page)
    assert len(ids) >= 4
    for id_ in ids:
        question = view.page.locator(f"#{id_}")
        ready(question)
        assert_unseen(question.locator(".tk-check__answer"), f"{id_}: the answer before Check")
        assert_unseen(question.locator(".tk-check__answer dd"), f"{id_}: a why before Check")
    # After Check the feedback says what the answer says; "Show the answer" stays closed.
    question = view.page.locator(f"#{ids[0]}")
    bring_to(question, "wrong")
    assert_unseen(question.locator(".tk-check__answer"), "the answer's own box after Check")
    assert_quiet(view)


def test_no_state_of_any_question_scrolls_the_page_sideways(
    reader: Callable[..., View], site_url: str, viewport: str
) -> None:
    """Each kind of question in each state: a run shown (and a sure but wrong answer, which
    shows it at once) scrolls in its own box, never the page."""
    first = reader(site_url + MODULE_04, viewport=viewport)
    by_kind: dict[str, str] = {}
    for id_ in questions(first.page):
        question = first.page.locator(f"#{id_}")
        if question.get_attribute("data-run") is not None:
            by_kind.setdefault(kind_of(question), id_)
    assert set(by_kind) == {"choice", "number", "order"}, by_kind
    for kind, id_ in by_kind.items():
        for state in STATES:
            first.goto(site_url + MODULE_04)  # a fresh page: each state from the start
            bring_to(first.page.locator(f"#{id_}"), state)
            assert_no_sideways_scroll(first.page, f"{kind} question {id_}, {state}")
    assert_quiet(first)


def test_every_control_of_a_question_shows_where_the_keyboard_is(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    for id_ in questions(page):
        question = page.locator(f"#{id_}")
        ready(question)
        kind = kind_of(question)
        controls = {
            "choice": [".tk-check__options input"],
            "number": [".tk-check__value"],
            "order": [".tk-check__move"],
        }[kind] + [".tk-check__sure input", "button:text-is('Check')"]
        for selector in controls:
            control = question.locator(selector).first
            assert_focus_visible(page, control, f"{id_} {selector} ({palette}, {viewport})")
    assert_quiet(view)


def test_tab_reaches_every_control_of_the_questions_in_reading_order(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04, viewport="desktop")
    for id_ in questions(view.page):
        ready(view.page.locator(f"#{id_}"))
    assert_tab_order(view.page, "section.tk-check")


def test_enter_in_a_number_answer_checks_it(reader: Callable[..., View], site_url: str) -> None:
    view = reader(site_url + MODULE_04)
    question = view.page.locator(NUMBER)
    ready(question)
    field = question.get_by_label("Your answer")
    field.fill(question.get_attribute("data-answer") or "")
    field.press("Enter")
    expect(question.locator(".tk-check__verdict")).to_contain_text("Right.")
    assert_quiet(view)


def test_each_question_and_each_field_has_an_edge_of_three_to_one(
    reader: Callable[..., View], site_url: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport="desktop", palette=palette)
    ready(view.page.locator(NUMBER))
    assert_edges(view.page.locator("section.tk-check"), f"question cards ({palette})")
    assert_edges(view.page.locator(".tk-check__value"), f"number fields ({palette})")
    assert_edges(view.page.locator(".tk-check__move"), f"move buttons ({palette})")


def test_without_javascript_no_control_that_needs_it_is_seen(
    reader: Callable[..., View], site_url: str
) -> None:
    """The review page's "Clear my record" needs the script: without it, it is not there to
    press. Each question's answer opens from its own "Show the answer"."""
    view = reader(site_url + REVIEW, javascript=False)
    assert_unseen(view.page.locator(".tk-review__clear"), "Clear my record without JavaScript")
    summary = view.page.locator("section.tk-check summary").first
    expect(summary).to_be_visible()
    summary.click()
    expect(view.page.locator("section.tk-check .tk-check__answer dd").first).to_be_visible()
