from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support import CHROMIUM, CHROMIUM_ARGS, ROOT, mkdocs_build


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real course, built once per test process with `mkdocs build --strict`."""
    site = tmp_path_factory.mktemp("site") / "site"
    result = mkdocs_build(ROOT, site)
    assert result.returncode == 0, result.stderr
    return site


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's Chromium, driven by Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()
