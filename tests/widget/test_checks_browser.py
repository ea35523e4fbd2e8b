"""Check yourself in Debian's Chromium, on both engines' sites: each option's verdict and why,
the deciding step and the run, the record across a reload, the review page's order, reading
offline after one visit, the page without JavaScript and axe in every state and palette.

What the reader should read is taken from the built page's own "Show the answer" (the build's,
proved on the model by trafikist.checks.questions), never typed here."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from support import MODULE_04, soup
from support.gates import (
    COLOUR_RULES,
    CSP_LISTENER,
    PALETTES,
    describe_violations,
    report,
    run_axe,
    switch_palette,
)

pytestmark = pytest.mark.browser

CHOICE = "#check-a-batch-cut-short"
NUMBER = "#check-a-longer-beat"
ORDER = "#check-a-longer-beat-in-order"
WIRE_6 = "#check-a-beat-on-wire-6"  # its run: the promote duty's, with `wire: 6`
RUNS = "assets/trafikist/checks/runs"
# A cold run loads Pyodide (about 12 MB) and compiles it: generous on a busy 2-core machine.
COLD_MS = 120_000
REVIEW = "review/index.html"
HOME = "index.html"


def text(node) -> str:
    # The words as the browser joins them: inline markup adds no space.
    return re.sub(r"\s+", " ", node.get_text()).strip()


def answer_key(built_site: Path, selector: str) -> dict:
    """What the built page says of a question without JavaScript: its options, each why, the
    right option, the deciding step."""
    section = soup(built_site / MODULE_04).select_one(selector)
    assert section is not None, selector
    step = section.select_one(".tk-check__step")
    return {
        "options": [text(label) for label in section.select(".tk-check__options label")],
        "whys": [text(dd) for dd in section.select(".tk-check__answer dd")],
        "terms": [text(dt) for dt in section.select(".tk-check__answer dt")],
        "right": int(section.get("data-right", 0)),
        "step": text(step) if step else "",
        "answer": text(section.select_one(".tk-check__right strong")),
    }


def module_page(browser, site_url: str, *, workers: str = "block"):
    context = browser.new_context(service_workers=workers)
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site_url + MODULE_04, wait_until="load")
    return context, page, errors


def check(page, selector: str) -> None:
    page.locator(selector).get_by_role("button", name="Check").click()


def check_from_the_keyboard(page, selector: str) -> None:
    page.locator(selector).get_by_role("button", name="Check").focus()
    page.keyboard.press("Enter")


def test_every_option_gives_its_verdict_why_and_deciding_step(
    site_url: str, built_site: Path, browser
) -> None:
    key = answer_key(built_site, CHOICE)
    assert len(key["options"]) >= 3 and key["step"].startswith("In the model's run")
    for index, option in enumerate(key["options"]):
        context, page, errors = module_page(browser, site_url)  # a fresh page each time
        question = page.locator(CHOICE)
        question.get_by_label(option).check()
        check(page, CHOICE)
        feedback = question.locator(".tk-check__feedback")
        assert feedback.get_attribute("aria-live") == "polite"
        right = index == key["right"]
        expect(feedback.locator(".tk-check__verdict")).to_contain_text(
            "Right." if right else "Not this one."
        )
        shown = text_of(feedback)
        assert words(key["whys"][index]) in words(shown), shown
        assert key["step"] in shown, shown
        assert (f"The answer: {key['answer']}" in shown) is not right, shown
        # The run the build drew, the row that decides it marked.
        feedback.get_by_role("button", name="Show the run").click()
        decides = question.locator("tr.tk-trace__decides")
        expect(decides).to_have_count(1)
        # Its time, as the step's sentence says it ("3.013" is "at 3.013 s", "1.000" "at 1 s").
        shown_at = float(decides.locator("td").first.inner_text())
        assert f"at {shown_at:g} s" in key["step"], key["step"]
        assert page.evaluate("window.__tkCspViolations") == [] and errors == []
        context.close()


def words(sentence: str) -> str:
    return " ".join(re.findall(r"\w+", sentence))


def text_of(locator) -> str:
    return re.sub(r"\s+", " ", locator.inner_text()).strip()


def test_a_confident_wrong_answer_shows_the_run_at_once(site_url: str, built_site: Path, browser):
    key = answer_key(built_site, CHOICE)
    wrong = next(i for i in range(len(key["options"])) if i != key["right"])
    context, page, _ = module_page(browser, site_url)
    question = page.locator(CHOICE)
    question.get_by_label(key["options"][wrong]).check()
    question.get_by_label("Sure").check()
    check(page, CHOICE)
    expect(question.locator("tr.tk-trace__decides")).to_have_count(1)
    expect(question.get_by_role("button", name="Show the run")).to_have_count(0)
    context.close()
    # A guess that is wrong gets the same feedback, the run one press away.
    context, page, _ = module_page(browser, site_url)
    question = page.locator(CHOICE)
    question.get_by_label(key["options"][wrong]).check()
    question.get_by_label("Guessing").check()
    check(page, CHOICE)
    expect(question.locator(".tk-check__verdict")).to_contain_text("Not this one.")
    expect(question.get_by_role("button", name="Show the run")).to_be_visible()
    expect(question.locator("tr.tk-trace__decides")).to_have_count(0)
    context.close()


def test_a_number_and_an_order_are_graded_from_the_keyboard(
    site_url: str, built_site: Path, browser
) -> None:
    number = answer_key(built_site, NUMBER)
    context, page, _ = module_page(browser, site_url)
    field = page.locator(NUMBER).get_by_label("Your answer")
    field.fill(number["terms"][1].split()[0])  # a mistake the question explains
    check_from_the_keyboard(page, NUMBER)
    feedback = page.locator(f"{NUMBER} .tk-check__feedback")
    expect(feedback).to_contain_text("Not this one.")
    assert number["whys"][1] in text_of(feedback)
    # Any value that rounds to the key at the precision asked, with a decimal comma too.
    field.fill(number["answer"].split()[0].replace(".", ","))
    check_from_the_keyboard(page, NUMBER)
    expect(feedback).to_contain_text("Right.")
    assert number["whys"][0] in text_of(feedback) and number["step"] in text_of(feedback)

    # The order starts scrambled; the move buttons put it right, one keypress at a time.
    order = page.locator(ORDER)
    items = order.locator(".tk-check__order > li")
    wanted = sorted(int(i) for i in items.evaluate_all("(l) => l.map((e) => e.dataset.item)"))
    check_from_the_keyboard(page, ORDER)
    expect(order.locator(".tk-check__feedback")).to_contain_text("Not this one.")
    for position, item in enumerate(wanted):
        while int(items.nth(position).get_attribute("data-item")) != item:
            current = order.locator(f'.tk-check__order > li[data-item="{item}"]')
            current.get_by_role("button", name=re.compile("^Move up")).focus()
            page.keyboard.press("Enter")
    check_from_the_keyboard(page, ORDER)
    expect(order.locator(".tk-check__feedback")).to_contain_text("Right.")
    context.close()


# A trace's rows, each as its cells' words (a function of the element that holds the table).
ROWS = (
    "(root) => [...root.querySelectorAll('table.tk-trace__table tbody tr')]"
    ".map((row) => [...row.cells].map((cell) => cell.textContent.trim()).join(' | '))"
)


def test_a_question_with_overrides_runs_live_in_the_widget_with_its_controls_set(
    site_url: str, built_site: Path, browser
) -> None:
    """The question's "run it in the widget" opens the duty's widget with the question's
    changes set; Run gives, live, the run the build baked for the question."""
    context, page, errors = module_page(browser, site_url)
    page.locator(WIRE_6).get_by_role("link", name="run it in the widget").click()
    # The link names its question (the widget then shows the question's baked run); the
    # widget may write the controls back to the address, which drops the name.
    expect(page).to_have_url(
        re.compile(r"\?duty=promote&wire=6(&question=a-beat-on-wire-6)?#tk-duties-title$")
    )
    expect(page.locator("#tk-duty-promote")).to_be_checked()
    live = page.locator("#tk-duty-panel-promote .tk-live")
    expect(live).to_be_visible()
    expect(live.locator("input[name=wire][value='6']")).to_be_checked()
    expect(live.locator(".tk-live__changed")).to_have_text("Changed from the default: wire: 6.")
    live.locator(".tk-live__run").click()
    status = page.locator(".tk-duties .tk-live__status")
    expect(status).to_contain_text(re.compile("Drawn|error|stopped|failed"), timeout=COLD_MS)
    assert "Drawn" in status.inner_text(), status.inner_text()
    # Each row's cells, live and as the build baked the question's run (read by the browser's
    # own parser: the trace leaves out its end tags).
    shown = page.locator("#tk-duty-panel-promote .tk-run__result").evaluate(
        f"(result) => ({ROWS})(result)"
    )
    baked = page.evaluate(
        f"async (url) => ({ROWS})("
        "new DOMParser().parseFromString(await (await fetch(url)).text(), 'text/html'))",
        f"{site_url}{RUNS}/a-beat-on-wire-6.html",
    )
    assert baked and shown == baked
    assert page.evaluate("window.__tkCspViolations") == [] and errors == []
    context.close()


def progress(page) -> str:
    return page.locator(".tk-header__checks").inner_text()


def test_the_record_survives_a_reload_and_the_review_page_asks_wrong_answers_first(
    site_url: str, built_site: Path, browser
) -> None:
    choice = answer_key(built_site, CHOICE)
    context, page, _ = module_page(browser, site_url)
    total = len(page.locator(".tk-checks-progress").get_attribute("data-checks").split())
    # A reader with no record yet is shown no count: there is nothing to report.
    expect(page.locator(".tk-header__checks")).to_be_hidden()
    page.locator(CHOICE).get_by_label(choice["options"][choice["right"]]).check()
    check(page, CHOICE)
    page.locator(NUMBER).get_by_label("Your answer").fill("99")
    check(page, NUMBER)
    expect(page.locator(".tk-header__checks")).to_contain_text(f"1 of {total} answered right")
    page.reload()
    expect(page.locator(".tk-header__checks")).to_contain_text(f"1 of {total} answered right")
    page.goto(site_url + HOME)
    entry = page.locator('[data-page="blocking-timers-and-the-bus"] .tk-course-entry__checks')
    # The home page counts the module's questions and its dives'; the header, its page's own.
    in_module = len(entry.locator(".tk-checks-progress").get_attribute("data-checks").split())
    assert in_module > total
    expect(entry).to_contain_text(f"1 of {in_module} answered right")

    page.goto(site_url + REVIEW)
    entries = page.locator(".tk-review__list > li")
    expect(entries.first).to_have_attribute("data-review", "a-longer-beat")
    expect(entries.last).to_have_attribute("data-review", "a-batch-cut-short")
    assert entries.count() >= 16
    expect(page.locator(".tk-review__status")).to_contain_text("1 answered wrong last time")
    # Each entry links back to its page's question.
    href = entries.first.locator(".tk-check__from a").get_attribute("href")
    assert href.endswith("#check-a-longer-beat"), href
    page.get_by_role("button", name="Clear my record").click()
    page.get_by_role("button", name="Clear it").click()
    expect(page.locator(".tk-review__status")).to_have_text("Your record is cleared.")
    page.goto(site_url + MODULE_04)
    expect(page.locator(".tk-header__checks")).to_contain_text(f"0 of {total} answered right")
    context.close()


def test_the_questions_work_offline_after_one_visit(site_url: str, built_site: Path, browser):
    key = answer_key(built_site, CHOICE)
    context, page, errors = module_page(browser, site_url, workers="allow")
    deadline = time.monotonic() + 60
    while not page.evaluate("navigator.serviceWorker.controller !== null"):
        assert time.monotonic() < deadline, "the worker never took the page"
        page.wait_for_timeout(100)
    context.set_offline(True)
    page.reload()
    question = page.locator(CHOICE)
    question.get_by_label(key["options"][key["right"]]).check()
    check(page, CHOICE)  # grade.mjs comes from the worker's cache
    expect(question.locator(".tk-check__verdict")).to_contain_text("Right.")
    question.get_by_role("button", name="Show the run").click()  # so does the run
    expect(question.locator("tr.tk-trace__decides")).to_have_count(1)
    page.goto(site_url + REVIEW)
    expect(page.locator(".tk-review__list > li").first).to_be_visible()
    assert errors == []
    context.close()


def test_without_javascript_every_answer_is_readable(
    site_url: str, built_site: Path, browser
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + MODULE_04)
    questions = page.locator("section.tk-check")
    count = questions.count()
    assert count >= 4
    page_soup = soup(built_site / MODULE_04)
    for index in range(count):
        question = questions.nth(index)
        expect(question.get_by_role("button", name="Check")).to_have_count(0)
        question.locator("summary", has_text="Show the answer").click()
        shown = text_of(question.locator(".tk-check__answer"))
        built = page_soup.select("section.tk-check")[index]
        for dd in built.select(".tk-check__answer dd"):
            # The words, as read: a choice marker's separator is for the screen reader only.
            assert words(text(dd)) in words(shown)
        assert "The answer:" in shown
    context.close()


def test_axe_finds_nothing_before_and_after_an_answer_in_both_palettes(
    site_url: str, built_site: Path, browser
) -> None:
    key = answer_key(built_site, CHOICE)
    wrong = next(i for i in range(len(key["options"])) if i != key["right"])
    failures: dict[str, list[str]] = {}
    for path in (MODULE_04, REVIEW):
        for state in ("before", "wrong", "right"):
            context = browser.new_context(service_workers="block")
            page = context.new_page()
            page.goto(site_url + path, wait_until="load")
            question = page.locator(CHOICE)
            # Every question as the script makes it: the sure/guessing choice, Check, the
            # feedback region (a module page's script comes when a question nears the screen).
            question.scroll_into_view_if_needed()
            expect(question.get_by_role("button", name="Check")).to_be_visible()
            if state != "before":
                index = wrong if state == "wrong" else key["right"]
                question.get_by_label(key["options"][index]).check()
                check(page, CHOICE)
                question.get_by_role("button", name="Show the run").click()
                expect(question.locator("tr.tk-trace__decides")).to_have_count(1)
            first = page.locator("body").get_attribute("data-md-color-scheme")
            for palette in (first, *(p for p in PALETTES if p != first)):
                switch_palette(page, palette)
                rules = () if palette == first else COLOUR_RULES
                found = describe_violations(run_axe(page, ".md-content", rules=rules))
                if found:
                    failures[f"{path} · {state} · {palette}"] = found
            context.close()
    assert not failures, report(failures)
