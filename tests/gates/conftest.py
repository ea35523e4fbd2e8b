"""Fixtures for the reader-facing gates: the built site's pages, and the site served once per
test process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support import serve
from support.gates import site_pages


@pytest.fixture(scope="session")
def pages(built_site: Path) -> list[str]:
    found = site_pages(built_site)
    assert "index.html" in found and len(found) > 5, found
    return found


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The built site on 127.0.0.1 (a free port), shared by the browser gates."""
    with serve(built_site) as base:
        yield base
