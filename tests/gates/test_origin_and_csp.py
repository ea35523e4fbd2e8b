"""Gate: no page refers to another origin for scripts, styles, fonts, images or wasm; every page
carries the site's Content-Security-Policy ('self' only, plus 'wasm-unsafe-eval' where the duty
widget is); and in Debian's Chromium no request leaves 127.0.0.1 and nothing violates the
policy, on load and through a run of the duty widget."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import MODULE_04, serve, soup
from support.gates import (
    BROKEN,
    WASM,
    WIDGET_MARKER,
    describe_violations,
    load_and_watch,
    parse_csp,
    report,
    run_axe,
    static_problems,
    watch_page,
    watching_context,
)


def test_every_page_carries_the_policy_and_refers_only_to_its_own_origin(
    built_site: Path, pages: list[str]
) -> None:
    failures = {path: found for path in pages if (found := static_problems(built_site, path))}
    assert not failures, report(failures)


def test_only_pages_with_the_widget_allow_wasm(built_site: Path) -> None:
    def script_src(path: str) -> list[str]:
        meta = soup(built_site / path).select_one('meta[http-equiv="Content-Security-Policy"]')
        return parse_csp(meta["content"])["script-src"]

    assert WASM in script_src(MODULE_04)
    assert script_src("index.html") == ["'self'"]


def test_the_static_check_flags_the_broken_pages() -> None:
    broken = static_problems(BROKEN, "index.html")
    assert any(p.startswith("remote script https://cdn.example.com/") for p in broken), broken
    assert any(p.startswith("inline script") for p in broken), broken
    unguarded = static_problems(BROKEN, "no-csp.html")
    assert any("Content-Security-Policy <meta>" in p for p in unguarded), unguarded
    assert any(p.startswith("remote <link rel=stylesheet>") for p in unguarded), unguarded


@pytest.mark.browser
def test_loading_every_page_stays_on_origin_with_no_csp_violation(
    site_url: str, pages: list[str], browser
) -> None:
    with watching_context(browser, site_url) as context:
        watches = load_and_watch(context, site_url, [site_url + path for path in pages])
    failures = {
        url.removeprefix(site_url): found
        for url, watch in watches.items()
        if (found := watch.problems())
    }
    assert not failures, report(failures)


@pytest.mark.browser
def test_the_browser_watch_flags_the_broken_pages(browser) -> None:
    with serve(BROKEN) as base, watching_context(browser, base) as context:
        watches = load_and_watch(context, base, [base + "index.html", base + "no-csp.html"])
    broken, unguarded = watches[base + "index.html"], watches[base + "no-csp.html"]
    # The policy stops both scripts before they run; the remote one never leaves.
    assert any("script-src-elem blocked https://cdn.example.com/" in v for v in broken.violations)
    assert any("script-src-elem blocked inline" in v for v in broken.violations), broken.violations
    assert broken.console, "Chromium reports CSP violations in the console too"
    assert unguarded.remote == ["https://fonts.example.com/css?family=Roboto"]


@pytest.mark.browser
def test_a_run_of_the_duty_widget_stays_on_origin(
    site_url: str, pages: list[str], built_site: Path, browser
) -> None:
    """Run the model once in the page: Pyodide's runtime, the model and the scenario all come
    from the site, under the policy; the widget, open with a result, has no axe violation."""
    live = [p for p in pages if soup(built_site / p).select_one(f".{WIDGET_MARKER}[data-live]")]
    if not live:
        pytest.skip("no page carries the live duty widget")
    path = live[0]
    with watching_context(browser, site_url) as context:
        page = context.new_page()
        watch = watch_page(page, site_url)
        page.goto(site_url + path, wait_until="load")
        section = page.locator(f".{WIDGET_MARKER}[data-live]").first
        run = section.locator("button[type=submit]:visible").first
        run.click()
        page.wait_for_function(
            "(s) => !document.querySelector(s).hasAttribute('aria-busy')",
            arg=f".{WIDGET_MARKER}[data-live]",
            timeout=120_000,
        )
        watch.violations.extend(page.evaluate("window.__tkCspViolations || []"))
        status = section.locator("[role=status]").first.inner_text()
        violations = describe_violations(run_axe(page, f".{WIDGET_MARKER}"))
    assert watch.problems() == []
    assert "error" not in status.lower() and "failed" not in status.lower(), status
    assert violations == []
