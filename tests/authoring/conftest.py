"""The fixtures of the end-to-end failing builds: the session's good site and a copy of the
project with that site in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.authoring import GoodSite, digest, project_with_site


@pytest.fixture(scope="session")
def good_site(engine: str, built_site: Path) -> GoodSite:
    """The course's strict build (the session's, read only: each test copies it)."""
    return GoodSite(site=built_site, files=digest(built_site), engine=engine)


@pytest.fixture
def project(tmp_path: Path, good_site: GoodSite) -> Path:
    return project_with_site(tmp_path / "project", good_site)
