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
from support.seen import View, assert_quiet, text_problems

pytestmark = pytest.mark.browser

ORDER = "#check-a-longer-beat-in-order"
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
