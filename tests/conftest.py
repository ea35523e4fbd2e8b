from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import CHROMIUM, CHROMIUM_ARGS, ENGINES, ROOT, site_build


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
