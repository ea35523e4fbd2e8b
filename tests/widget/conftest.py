"""The built site served on localhost, once per test module, for the widget's browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support import serve


@pytest.fixture(scope="module")
def site_url(built_site: Path) -> Iterator[str]:
    with serve(built_site) as base:
        yield base
