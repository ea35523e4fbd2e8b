"""How we know, as a reader sees it (support.seen), under both engines: the switch near module
04's title is off by default (no mark seen), turns on and off from the keyboard, and then shows
a numbered mark after each checked sentence and the page's counts; a mark opens its evidence in
a popover with Enter (inside the screen, 12 px and 4.5:1), Escape closes it and gives the focus
back; a transcript step's evidence is that step as the page's transcript prints it; a model
step's link opens the trace at its row, highlighted, and the row lists the sentence; without
JavaScript the foot of the page links to the module's "How we know" page, which lists every
marked sentence (out of the navigation and the search); a site whose evidence file is missing
says so beside the switch. A question's explanation holds its marks, and the feedback's copy
of it opens the same evidence (its copies keep no id: every id on the page stays unique). At
390 and 1366 px, in both palettes; axe finds nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support import MODULE_04, copy_project, serve, site_build
from support.gates import describe_violations, link_tree, run_axe
from support.reader_states import bring_to, check, give
from support.seen import (
    View,
    assert_focus_visible,
    assert_no_sideways_scroll,
    assert_quiet,
    assert_tab_order,
    assert_unseen,
    seen,
    text_problems,
)
from trafikist.course.transcripts import shown_steps

pytestmark = pytest.mark.browser

SWITCH = ".tk-evswitch button"
STATUS = ".tk-evswitch__status"
MARK = "button.tk-mark"
POPOVER = "#tk-evpop"
DIVE_02 = "trafikist/04-blocking-timers-and-the-bus/02-the-blocking-claim/index.html"
HOW = "how-we-know/blocking-timers-and-the-bus/index.html"
PAGES = [
    MODULE_04,
    "trafikist/04-blocking-timers-and-the-bus/01-who-moves-time-today/index.html",
    DIVE_02,
    "trafikist/04-blocking-timers-and-the-bus/03-the-native-bus/index.html",
]


def evidence_file(site: Path, page_id: str) -> dict[str, object]:
    found = next(site.rglob(f"evidence/pages/{page_id}.json"))
    data: dict[str, object] = json.loads(found.read_text(encoding="utf-8"))
    return data


def turn_on(view: View) -> None:
    switch = view.page.locator(SWITCH)
    switch.focus()
    view.page.keyboard.press("Enter")
    assert switch.get_attribute("aria-pressed") == "true"
    view.page.locator(MARK).first.wait_for()


def test_the_switch_shows_the_marks_and_a_mark_its_evidence(
    reader: Callable[..., View], site_url: str, built_site: Path, viewport: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    data = evidence_file(built_site, "blocking-timers-and-the-bus")
    marks = data["marks"]
    assert isinstance(marks, dict)
    # Off by default: the marks hold their places only.
    switch = page.locator(SWITCH)
    assert switch.get_attribute("aria-pressed") == "false"
    assert page.locator("i[id^=tk-m]").count() == len(marks) > 50
    assert page.locator(MARK).count() == 0
    # A mark's place is an empty inline element: nothing to see, no width, no focus stop.
    places = page.locator("i[id^=tk-m]").evaluate_all(
        "(marks) => marks.map((m) => [m.textContent, m.getBoundingClientRect().width, m.tabIndex])"
    )
    assert all(place == ["", 0, -1] for place in places), places[:3]
    assert_focus_visible(page, switch, "the switch")
    turn_on(view)
    # On: every mark is a button, and the switch says the counts.
    assert page.locator(MARK).count() == len(marks)
    assert page.locator("i[id^=tk-m]").count() == 0
    status = page.locator(STATUS).inner_text()
    assert status.startswith(f"{data['counts']}. {len(marks)} marked here"), status
    first = page.locator(f"{MARK}#tk-m1")
    assert seen(first) == [True]
    assert first.inner_text() == "1"
    assert_focus_visible(page, first, "a mark")
    # Remembered: the page loaded again shows the marks, and Tab reaches the switch and them.
    view.goto(site_url + MODULE_04)
    page.locator(MARK).first.wait_for()
    assert_tab_order(page, ".tk-evswitch, .md-typeset > p")
    # Enter opens the popover, focus inside it; Escape closes it and gives the focus back.
    first.focus()
    page.keyboard.press("Enter")
    popover = page.locator(POPOVER)
    popover.wait_for()
    assert page.evaluate("document.activeElement.id") == "tk-evpop"
    assert first.get_attribute("aria-expanded") == "true"
    box = popover.bounding_box()
    width = page.evaluate("document.documentElement.clientWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert "How we know · sentence 1" in popover.inner_text()
    problems = text_problems(page, ".tk-evswitch, #tk-evpop")
    assert not problems, "\n".join(problems)
    assert_no_sideways_scroll(page, "a popover open")
    page.keyboard.press("Escape")
    assert popover.count() == 0
    assert page.evaluate("document.activeElement.id") == "tk-m1"
    # Off again from the keyboard: no mark seen.
    switch.focus()
    page.keyboard.press("Enter")
    assert switch.get_attribute("aria-pressed") == "false"
    assert_unseen(page.locator(MARK), "a mark with the switch off again")
    assert page.locator(STATUS).inner_text() == ""
    assert_quiet(view)


QUESTION = "#check-a-beat-on-wire-6"
DUPLICATE_IDS = """() => {
  const ids = [...document.querySelectorAll("[id]")].map((element) => element.id);
  return ids.filter((id, index) => ids.indexOf(id) !== index);
}"""


def test_a_mark_in_an_explanation_opens_its_evidence_from_the_feedback(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    question = page.locator(QUESTION)
    # Answered before the switch is on: the feedback's copy of the explanation holds the
    # mark's place without its id.
    bring_to(question, "wrong")
    feedback = question.locator(".tk-check__feedback")
    assert feedback.locator("i[data-copy^=tk-m]").count() >= 1
    assert page.evaluate(DUPLICATE_IDS) == []
    turn_on(view)
    mark = feedback.locator(MARK).first
    number = mark.get_attribute("data-n")
    assert mark.get_attribute("id") is None
    # The explanation under "Show the answer" holds the mark itself, with its id.
    assert question.locator(f".tk-check__answer dd {MARK}#tk-m{number}").count() == 1
    mark.scroll_into_view_if_needed()
    assert seen(mark) == [True]
    assert mark.inner_text() == number
    assert_focus_visible(page, mark, "a mark in the feedback")
    mark.focus()
    page.keyboard.press("Enter")
    popover = page.locator(POPOVER)
    popover.wait_for()
    assert page.evaluate("document.activeElement.id") == "tk-evpop"
    assert f"How we know · sentence {number}" in popover.inner_text()
    assert popover.locator(".tk-evidence__lines > li").count() >= 1
    box = popover.bounding_box()
    width = page.evaluate("document.documentElement.clientWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    problems = text_problems(page, "#tk-evpop, .tk-check__feedback")
    assert not problems, "\n".join(problems)
    assert_no_sideways_scroll(page, "a popover open from the feedback")
    if viewport == "desktop":
        violations = run_axe(page)
        assert not violations, "\n".join(describe_violations(violations))
    page.keyboard.press("Escape")
    assert popover.count() == 0
    focused = "(e) => [e.dataset.n, !!e.closest('.tk-check__feedback')]"
    assert page.evaluate(f"({focused})(document.activeElement)") == [number, True]
    assert mark.get_attribute("aria-expanded") == "false"
    # Answered again with the switch on: the new copy is a mark that opens the evidence too.
    give(question, right=True)
    check(question)
    again = feedback.locator(MARK).first
    again.wait_for()
    assert again.get_attribute("id") is None
    assert page.evaluate(DUPLICATE_IDS) == []
    again.focus()
    page.keyboard.press("Enter")
    popover.wait_for()
    assert f"sentence {again.get_attribute('data-n')}" in popover.inner_text()
    page.keyboard.press("Escape")
    assert_quiet(view)


def test_the_switch_is_remembered_from_page_to_page(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04)
    turn_on(view)
    view.goto(site_url + PAGES[1])
    view.page.locator(MARK).first.wait_for()
    assert view.page.locator(SWITCH).get_attribute("aria-pressed") == "true"
    assert_quiet(view)


def test_every_mark_opens_its_evidence(
    reader: Callable[..., View], site_url: str, built_site: Path
) -> None:
    """Each mark of each page of module 04 opens a popover holding its lines of evidence,
    of the kinds its evidence has, inside the screen, and links each row of a trace once (dive
    02's sentence on the pump's promote linked "the row in the trace" five times, three times
    to one row)."""
    kinds: dict[str, int] = {}
    for path in PAGES:
        view = reader(site_url + path, viewport="phone")
        page = view.page
        turn_on(view)
        page_id = page.locator(".tk-evswitch").get_attribute("data-page")
        marks = evidence_file(built_site, str(page_id))["marks"]
        assert isinstance(marks, dict)
        for number in sorted(marks, key=int):
            shown = page.evaluate(
                """(n) => {
                  const mark = document.getElementById(`tk-m${n}`);
                  mark.closest(".tk-duty")?.querySelector(".tk-duty__radio")?.click();
                  mark.scrollIntoView({ block: "center" });
                  mark.click();
                  const pop = document.getElementById("tk-evpop");
                  const box = pop?.getBoundingClientRect();
                  return pop && {
                    kinds: [...pop.querySelectorAll(".tk-evidence__lines > li")]
                      .map((li) => li.dataset.kind),
                    inside: box.left >= 0 && box.right <= document.documentElement.clientWidth,
                    title: pop.querySelector(".tk-evpop__title").textContent,
                    rows: [...pop.querySelectorAll("a.tk-evidence__row")]
                      .map((link) => `${link.hash} row ${link.dataset.row}`),
                  };
                }""",
                number,
            )
            assert shown is not None, f"{path}: mark {number} opened nothing"
            assert shown["kinds"], f"{path}: mark {number} shows no evidence"
            assert shown["inside"], f"{path}: mark {number}'s popover leaves the screen"
            assert shown["title"] == f"How we know · sentence {number}"
            # Each row of the trace is linked once: several steps may turn on the same row.
            rows = shown["rows"]
            assert len(set(rows)) == len(rows), f"{path}: mark {number} links {rows}"
            for kind in shown["kinds"]:
                kinds[kind] = kinds.get(kind, 0) + 1
        assert_quiet(view)
    assert set(kinds) == {"seed", "registry", "valkey", "model", "choice"}, kinds


def test_a_transcript_step_is_that_step_of_the_pages_transcript(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + DIVE_02, viewport="desktop")
    page = view.page
    turn_on(view)
    checked = 0
    for mark in page.locator(MARK).all():
        mark.focus()
        page.keyboard.press("Enter")
        lines = page.locator(f"{POPOVER} .tk-evidence__lines > li[data-kind=valkey]")
        for line in lines.all():
            link = line.locator("a[href*='#tk-transcript-']")
            if not link.count() or "step " not in line.inner_text():
                continue
            name = link.get_attribute("href").split("#tk-transcript-")[1]  # type: ignore[union-attr]
            number = int(line.inner_text().split("step ", 1)[1].split(" ", 1)[0])
            command, reply = [code.inner_text() for code in line.locator("code").all()][:2]
            figure = page.locator(f"figure#tk-transcript-{name} pre")
            step = shown_steps("\n".join(figure.all_inner_texts()))[number - 1]
            assert command == step.prompt.strip(), (name, number)
            assert reply == (step.reply or "(no reply yet)"), (name, number)
            checked += 1
        page.keyboard.press("Escape")
    assert checked >= 5
    assert_quiet(view)


def test_a_model_steps_link_opens_its_row_which_lists_the_sentence(
    reader: Callable[..., View], site_url: str, viewport: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport)
    page = view.page
    turn_on(view)
    link = None
    for mark in page.locator(MARK).all():
        mark.scroll_into_view_if_needed()
        mark.focus()
        page.keyboard.press("Enter")
        found = page.locator(f"{POPOVER} a.tk-evidence__row")
        if found.count():
            link, number = found.first, mark.get_attribute("data-n")
            break
        page.keyboard.press("Escape")
    assert link is not None, "no expectation's evidence links to a row"
    link.click()
    row = page.locator("tr.tk-trace__shown")
    row.wait_for()  # the duty's trace rows may come from a page of their own (widgets/duty)
    assert row.count() == 1
    assert seen(row) == [True]
    assert page.evaluate("document.activeElement.matches('tr.tk-trace__shown')")
    back = row.locator(f".tk-trace__proves a[href='#tk-m{number}']")
    assert back.inner_text() == f"sentence {number}"
    back.click()
    assert page.evaluate("document.activeElement.id") == f"tk-m{number}"
    assert_quiet(view)


def test_without_javascript_the_foot_leads_to_every_checked_sentence(
    reader: Callable[..., View], site_url: str, built_site: Path, viewport: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport, javascript=False)
    page = view.page
    assert_unseen(page.locator(".tk-evswitch"), "the switch without JavaScript")
    foot = page.locator(".tk-howlink a")
    foot.scroll_into_view_if_needed()
    assert seen(foot) == [True]
    problems = text_problems(page, ".tk-howlink")
    assert not problems, "\n".join(problems)
    foot.click()
    page.wait_for_load_state()
    assert page.url.endswith(HOW.removesuffix("index.html"))
    assert_no_sideways_scroll(page, "How we know without JavaScript")
    back = {
        link.split("#")[1]
        for link in page.locator("a.tk-how__where").evaluate_all(
            "(links) => links.map((a) => a.href)"
        )
        if "#tk-m" in link
    }
    marked = 0
    for path in PAGES:
        text = (built_site / path).read_text(encoding="utf-8")
        marked += text.count('<i id="tk-m')
    # A sentence of a question's explanation links to the question (the feedback copies it).
    entries = page.locator("a.tk-how__where").evaluate_all(
        "(links) => links.map((a) => [a.href, a.textContent])"
    )
    numbered = {(href.split("#")[0], text) for href, text in entries if ", sentence " in text}
    assert len(numbered) == marked
    assert any("#check-" in href and "explanation" in text for href, text in entries)
    assert back


def test_without_javascript_the_summarys_entry_leads_to_its_mark(
    reader: Callable[..., View], site_url: str, built_site: Path
) -> None:
    """The module's summary is a checked sentence of its page: its entry on the "How we know"
    page names its number and leads to its mark, in the page's header."""
    view = reader(site_url + HOW, viewport="phone", javascript=False)
    page = view.page
    # Under "The published module" (and under "The seed's own words" when it is).
    words = "Trafikist · module 04, sentence 1, its summary"
    entries = page.locator("a.tk-how__where").filter(has_text=re.compile(f"^{words}$"))
    assert entries.count() >= 1
    entry = entries.first
    entry.scroll_into_view_if_needed()
    assert seen(entry) == [True]
    entry.click()
    page.wait_for_load_state()
    assert page.url.endswith(MODULE_04.removesuffix("index.html") + "#tk-m1"), page.url
    assert page.locator("header.tk-header .tk-header__summary i#tk-m1").count() == 1
    # The summary, hidden until the switch is on, shows where the link leads.
    assert seen(page.locator("header.tk-header .tk-header__summary")) == [True]
    assert_no_sideways_scroll(page, "module 04 at its summary's mark, without JavaScript")
    back = page.locator(".tk-howlink a")
    back.click()
    page.wait_for_load_state()
    assert page.url.endswith(HOW.removesuffix("index.html"))


SUMMARY = "header.tk-header .tk-header__summary"
SUMMARY_WORDS = """(summary) => {
  const copy = summary.cloneNode(true);
  for (const mark of copy.querySelectorAll(".tk-mark")) mark.remove();
  return copy.textContent;
}"""


def test_the_summary_shows_under_the_title_with_its_mark(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    """Module 04's summary (what the course's lists show for it) follows from the seed: with
    the switch on it stands under the title with its mark, sentence 1, whose popover quotes
    the seed; off, it is gone again."""
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    summary = page.locator(SUMMARY)
    assert_unseen(summary, "the summary with the switch off")
    turn_on(view)
    assert seen(summary) == [True]
    described = page.locator('meta[name="description"]').get_attribute("content")
    assert summary.evaluate(SUMMARY_WORDS) == described
    mark = summary.locator(MARK)
    assert mark.count() == 1 and mark.get_attribute("id") == "tk-m1"
    assert seen(mark) == [True]
    assert_focus_visible(page, mark, "the summary's mark")
    mark.focus()
    page.keyboard.press("Enter")
    popover = page.locator(POPOVER)
    popover.wait_for()
    assert "How we know · sentence 1" in popover.inner_text()
    quotes = popover.locator(".tk-evidence__lines > li[data-kind=seed] q").all_inner_texts()
    assert quotes and described is not None and described.rstrip(".") in quotes[0], quotes
    box = popover.bounding_box()
    width = page.evaluate("document.documentElement.clientWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    problems = text_problems(page, ".tk-header, #tk-evpop")
    assert not problems, "\n".join(problems)
    assert_no_sideways_scroll(page, "the summary's popover open")
    if viewport == "desktop":
        violations = run_axe(page)
        assert not violations, "\n".join(describe_violations(violations))
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") == "tk-m1"
    page.locator(SWITCH).focus()
    page.keyboard.press("Enter")
    assert_unseen(summary, "the summary with the switch off again")
    assert_quiet(view)


# Module 04's title, with a claim: a title is checked as the page's text is.
TITLE_WORDS = "The sweeps are write commands"
TITLE = f"[{TITLE_WORDS}]{{claim: EMQ.PROMOTE.flags = write; EMQ.STALLED.CHECK.flags = write}}"


@pytest.fixture(scope="module")
def titled_site(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The course with module 04's title holding a claim, built by the engine under test."""
    project = copy_project(tmp_path_factory.mktemp("titled") / "project")
    source = next((project / "modules").glob("04-*/module.md"))
    text = source.read_text(encoding="utf-8")
    old = "title: Blocking, timers and the bus\n"
    assert old in text
    source.write_text(text.replace(old, f'title: "{TITLE}"\n', 1), encoding="utf-8")
    result = site_build(engine, project, project / "site")
    assert result.returncode == 0, result.stderr
    with serve(project / "site") as base:
        yield base


def test_a_titles_mark_opens_its_evidence(
    reader: Callable[..., View], titled_site: str, viewport: str, palette: str
) -> None:
    """A title with a claim shows its words, and with the switch on its mark (sentence 1,
    before the summary's) opens the claim's rows; no sideways scroll at 390 px."""
    view = reader(titled_site + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    title = page.locator("h1.tk-title")
    assert title.inner_text() == TITLE_WORDS
    assert title.locator("i#tk-m1").count() == 1
    turn_on(view)
    mark = title.locator(MARK)
    assert mark.count() == 1 and mark.get_attribute("id") == "tk-m1"
    assert seen(mark) == [True]
    assert page.locator(f"{SUMMARY} {MARK}").get_attribute("id") == "tk-m2"
    assert_focus_visible(page, mark, "the title's mark")
    mark.focus()
    page.keyboard.press("Enter")
    popover = page.locator(POPOVER)
    popover.wait_for()
    assert "How we know · sentence 1" in popover.inner_text()
    lines = popover.locator(".tk-evidence__lines > li[data-kind=registry]").all_inner_texts()
    assert [" ".join(line.split()) for line in lines] == [
        "EMQ.PROMOTE · flags = write",
        "EMQ.STALLED.CHECK · flags = write",
    ], lines
    box = popover.bounding_box()
    width = page.evaluate("document.documentElement.clientWidth")
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    problems = text_problems(page, ".tk-header, #tk-evpop")
    assert not problems, "\n".join(problems)
    assert_no_sideways_scroll(page, "the title's popover open")
    if viewport == "desktop":
        violations = run_axe(page)
        assert not violations, "\n".join(describe_violations(violations))
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") == "tk-m1"
    assert_quiet(view)


def test_without_javascript_the_titles_entry_leads_to_its_mark(
    reader: Callable[..., View], titled_site: str
) -> None:
    view = reader(titled_site + HOW, viewport="phone", javascript=False)
    page = view.page
    entry = page.locator("a.tk-how__where", has_text="its title")
    assert entry.all_inner_texts() == ["Trafikist · module 04, sentence 1, its title"]
    sentence = entry.locator("xpath=..")
    assert TITLE_WORDS in sentence.inner_text()
    entry.click()
    page.wait_for_load_state()
    assert page.url.endswith("#tk-m1"), page.url
    assert page.locator("h1.tk-title i#tk-m1").count() == 1
    assert_no_sideways_scroll(page, "module 04 at its title's mark, without JavaScript")


def test_how_we_know_is_out_of_the_navigation_and_the_search(built_site: Path) -> None:
    assert (built_site / HOW).is_file()
    module = (built_site / MODULE_04).read_text(encoding="utf-8")
    nav = module.split('<nav class="md-nav md-nav--primary"', 1)[1].split("</nav>", 1)[0]
    assert "how-we-know" not in nav
    index = next(built_site.rglob("search*.json"))
    assert "how-we-know" not in index.read_text(encoding="utf-8")
    assert "Today a client drives every sweep" in index.read_text(encoding="utf-8")


def test_axe_finds_nothing_with_the_switch_on_and_a_popover_open(
    reader: Callable[..., View], site_url: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport="desktop", palette=palette)
    page = view.page
    turn_on(view)
    page.locator(f"{MARK}#tk-m1").focus()
    page.keyboard.press("Enter")
    page.locator(POPOVER).wait_for()
    violations = run_axe(page)
    assert not violations, "\n".join(describe_violations(violations))
    how = reader(site_url + HOW, viewport="desktop", palette=palette)
    violations = run_axe(how.page)
    assert not violations, "\n".join(describe_violations(violations))
    assert_quiet(view)


def test_a_missing_evidence_file_is_said_beside_the_switch(
    reader: Callable[..., View], built_site: Path, tmp_path: Path
) -> None:
    broken = link_tree(built_site, tmp_path / "broken")
    next(broken.rglob("evidence/pages/blocking-timers-and-the-bus.json")).unlink()
    with serve(broken) as base:
        view = reader(base + MODULE_04)
        page = view.page
        switch = page.locator(SWITCH)
        switch.focus()
        page.keyboard.press("Enter")
        status = page.locator(STATUS)
        status.wait_for()
        words = status.inner_text()
        assert words.startswith("The evidence could not be loaded (HTTP 404)."), words
        assert '"How we know" at the foot of the page' in words
        assert seen(status) == [True]
        assert page.locator(MARK).count() == 0
        assert page.locator(".md-content h1").is_visible()
        assert not view.errors  # no uncaught error: the page stays whole
