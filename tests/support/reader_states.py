"""A question of "Check yourself" brought to each state a reader can bring it to, in a Playwright
page: for tests/reader and scripts/screens.

The answers are the built page's own (the markup's data-right, data-answer and data-order, and
the mistakes its "Show the answer" lists), never typed here. Each state is reached as a reader
reaches it (the options ticked, the value typed, Check pressed), but an order's items, which a
reader moves one press at a time, are put in place at once.
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

# The states of one question, in the order a reader meets them.
STATES = ("before", "wrong", "sure-but-wrong", "run shown", "right")
# A cold module: the questions' script comes when a question nears the screen.
SCRIPT_MS = 30_000
RUN_MS = 30_000  # the run's fragment, fetched on a busy machine


def questions(page: Page) -> list[str]:
    """The ids of the page's questions (its <section>s), in reading order."""
    found: list[str] = page.locator("section.tk-check").evaluate_all("(l) => l.map((s) => s.id)")
    return found


def kind_of(question: Locator) -> str:
    attributes = question.evaluate("(s) => Object.keys(s.dataset)")
    if "right" in attributes:
        return "choice"
    return "number" if "answer" in attributes else "order"


def ready(question: Locator) -> None:
    """Bring the question near the screen and wait for its script (the Check button)."""
    question.scroll_into_view_if_needed()
    expect(question.get_by_role("button", name="Check")).to_be_visible(timeout=SCRIPT_MS)


# An order's items put in the run's order (right) or against it (wrong), in the page.
ORDER_JS = """(section, right) => {
  const list = section.querySelector(".tk-check__order");
  const groups = section.dataset.order.split(" ").map(Number);
  const items = [...list.children].sort((a, b) =>
    groups[Number(a.dataset.item)] - groups[Number(b.dataset.item)]);
  if (!right) items.reverse();
  list.append(...items);
}"""

# A number the question explains as a mistake (its first), or one beside the answer.
WRONG_NUMBER_JS = """(section) => {
  const terms = [...section.querySelectorAll(".tk-check__answer dt")];
  const mistake = terms.slice(1).map((t) => parseFloat(t.textContent)).find(Number.isFinite);
  return String(mistake ?? Number(section.dataset.answer) + 1);
}"""


def give(question: Locator, right: bool) -> None:
    """Give a right or a wrong answer, not yet checked."""
    kind = kind_of(question)
    if kind == "choice":
        index = int(question.get_attribute("data-right") or 0)
        options = question.locator(".tk-check__options input")
        options.nth(index if right else (index + 1) % options.count()).check()
    elif kind == "number":
        if right:
            value = question.get_attribute("data-answer") or ""
        else:
            value = question.evaluate(WRONG_NUMBER_JS)
        question.locator(".tk-check__value").fill(value)
    else:
        question.evaluate(ORDER_JS, right)


def check(question: Locator) -> None:
    question.get_by_role("button", name="Check").click()
    expect(question.locator(".tk-check__verdict")).to_be_visible()


def show_run(question: Locator) -> None:
    """Press "Show the run" (when the question has one) and wait for the deciding row."""
    button = question.get_by_role("button", name="Show the run")
    if button.count():
        button.click()
    if question.get_attribute("data-run") is not None:
        run_shown(question)


def run_shown(question: Locator) -> None:
    """Wait for the run the build baked (a question whose answer turns on no single step marks
    no row of it)."""
    expect(question.locator(".tk-check__run-box .tk-run").first).to_be_visible(timeout=RUN_MS)


def bring_to(question: Locator, state: str) -> None:
    """Bring a question on a freshly loaded page to `state` (one of STATES)."""
    ready(question)
    if state == "before":
        return
    give(question, right=state == "right")
    if state == "sure-but-wrong":
        question.get_by_label("Sure", exact=True).check()
    check(question)
    if state == "sure-but-wrong" and question.get_attribute("data-run") is not None:
        run_shown(question)
    if state == "run shown":
        show_run(question)
