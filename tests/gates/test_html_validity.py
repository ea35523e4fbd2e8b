"""Gate: every built page is valid HTML for the Nu HTML checker (npm vnu-jar, system Java), in
one call for all pages, under each engine. The theme's own markup is fixed in every page by
trafikist.core.theme; what no small fix can reach is a known exception, matched by exact
message and markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.gates import BROKEN, KNOWN_VNU_EXCEPTIONS, VnuMessage, run_vnu, site_pages, split_known


@pytest.fixture(scope="module")
def vnu(built_site: Path) -> dict[Path, list[VnuMessage]]:
    """The checker's errors by file, for the site's pages and the broken pages (one JVM)."""
    files = [built_site / page for page in site_pages(built_site)]
    files += sorted(BROKEN.glob("*.html"))
    by_file: dict[Path, list[VnuMessage]] = {file.resolve(): [] for file in files}
    for message in run_vnu(files):
        by_file.setdefault(Path(message.file).resolve(), []).append(message)
    return by_file


def site_messages(vnu: dict[Path, list[VnuMessage]], site: Path) -> list[VnuMessage]:
    root = site.resolve()
    return [m for file, found in vnu.items() if file.is_relative_to(root) for m in found]


def test_every_page_is_valid_html(vnu, built_site: Path) -> None:
    errors, _ = split_known(site_messages(vnu, built_site))
    assert errors == [], "\n".join(map(str, errors))


def test_each_known_exception_is_still_needed(vnu, built_site: Path) -> None:
    """An exception that no longer matches anything goes (a theme upgrade may fix it)."""
    messages = site_messages(vnu, built_site)
    for exception in KNOWN_VNU_EXCEPTIONS:
        assert any(exception.matches(m) for m in messages), exception.message


def test_the_checker_flags_the_broken_page(vnu) -> None:
    messages = vnu[(BROKEN / "index.html").resolve()]
    errors, excused = split_known(messages)
    texts = [m.message for m in errors]
    assert excused == []
    assert any(text.startswith("Duplicate ID “twice”") for text in texts), texts
    assert any("“img” element must have an “alt” attribute" in text for text in texts), texts
