"""The duty widget's baked runs as a reader brings them into view. The duty shown first carries
its drawing, and its trace a link to its rows; every other duty's panel carries a link to its
run, a page of its own (trafikist.model_view.draw.run_link_html, run_page). With JavaScript on,
the page's script (widgets/duty/duty.js) puts the drawing and the trace in the link's place when
the reader picks the duty, and the trace's rows when the reader opens it."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

LOADED_MS = 30_000  # a run's page fetched and put in place, on a busy machine
RUNS = "assets/trafikist/model/runs"  # the runs' own pages, in the site


def duty_ids(page: Page) -> list[str]:
    return list(page.locator(".tk-duty").evaluate_all("(all) => all.map((d) => d.dataset.duty)"))


def pick_duty(page: Page, duty: str, timeout: float = LOADED_MS) -> Locator:
    """Pick the duty as a reader does (its label), and wait for its drawing: its panel."""
    page.locator(f"label[for=tk-duty-{duty}]").click()
    panel = page.locator(f"#tk-duty-panel-{duty}")
    expect(panel.locator(".tk-run__result figure.tk-run__figure")).to_be_visible(timeout=timeout)
    return panel


def open_trace(page: Page, duty: str, timeout: float = LOADED_MS) -> Locator:
    """Pick the duty, open its trace and wait for the rows: the box they scroll in."""
    panel = pick_duty(page, duty, timeout)
    trace = panel.locator("details.tk-trace").first
    if not trace.evaluate("(details) => details.open"):
        trace.locator("summary").click()
    box = trace.locator(".tk-trace__scroll")
    expect(box.locator("tbody tr").first).to_be_visible(timeout=timeout)
    return box


def show_every_run(page: Page, timeout: float = LOADED_MS) -> None:
    """Each duty picked in turn, its drawing and trace put in place; the first picked again."""
    duties = duty_ids(page)
    for duty in duties:
        open_trace(page, duty, timeout)
    pick_duty(page, duties[0], timeout)
