"""Gate: module 04's page transfers, before any interaction (HTML, plus the CSS, JS and fonts it
loads), at most 1.15 times what the same page weighs as the engine's plain theme
(mkdocs-material under MkDocs, Zensical's under Zensical), raw and gzipped. The plain side is
built in the same run: every page of the course as plain Markdown, the same theme settings,
the search plugin (gatelib.build_plain_baseline)."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from support import MODULE_04, serve
from support.gates import (
    GZIP_LEVEL,
    Weight,
    build_plain_baseline,
    format_weight,
    link_tree,
    measure_weight,
)

pytestmark = pytest.mark.browser

LIMIT = 1.15


def over_budget(ours: Weight, plain: Weight, limit: float = LIMIT) -> list[str]:
    return [
        f"{measure}: {mine:,} bytes is {mine / theirs:.3f}x the plain page's {theirs:,}"
        for measure, mine, theirs in (
            ("raw", ours.raw, plain.raw),
            (f"gzip -{GZIP_LEVEL}", ours.gzip, plain.gzip),
        )
        if mine > limit * theirs
    ]


@pytest.fixture(scope="module")
def plain_site(built_site: Path, engine: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same pages as the engine's plain theme (mkdocs-material, or Zensical's)."""
    return build_plain_baseline(built_site, tmp_path_factory.mktemp("plain"), engine)


@pytest.fixture(scope="module")
def plain_weight(plain_site: Path, browser) -> Weight:
    with serve(plain_site) as base:
        return measure_weight(browser, base, MODULE_04)


def test_module_04_is_within_budget_of_plain_material(
    site_url: str, plain_weight: Weight, browser
) -> None:
    ours = measure_weight(browser, site_url, MODULE_04)
    print(f"\nmodule 04, before any interaction (gzip -{GZIP_LEVEL}):")
    print(format_weight(ours, plain_weight))
    assert plain_weight.raw > 100_000, "the plain page loaded less than its theme"
    assert over_budget(ours, plain_weight) == []
    # Check yourself costs the page its loader only: the questions' script and their grading
    # come when a question nears the screen, and on the reader's first move.
    loaded = [r.url for r in ours.resources]
    assert any(url.endswith("/checks/checks.js") for url in loaded), loaded
    assert not [url for url in loaded if url.endswith(("/enhance.mjs", "/grade.mjs"))]
    # The duties' runs and the first one's trace rows come on the reader's move (a duty
    # picked, the trace opened): their own pages are not fetched with the page.
    assert not [url for url in loaded if "/model/runs/" in url]


def test_the_weight_gate_flags_a_heavier_page(
    built_site: Path, plain_weight: Weight, tmp_path: Path, browser
) -> None:
    """Module 04 plus one script of half the plain page's weight, incompressible: over."""
    heavy = link_tree(built_site, tmp_path / "heavy")
    page = heavy / MODULE_04
    html = page.read_text(encoding="utf-8")
    page.unlink()  # a hard link: write a new file, not through the link
    page.write_text(
        html.replace("</head>", '<script src="../../heavy.js"></script></head>', 1), "utf-8"
    )
    rng = random.Random(4)
    size = plain_weight.raw // 2
    filler = "".join(rng.choices(string.ascii_letters + string.digits, k=size))
    (heavy / "heavy.js").write_text(f'window.heavy = "{filler}";\n', encoding="utf-8")
    with serve(heavy) as base:
        ours = measure_weight(browser, base, MODULE_04)
    assert any(r.url == "heavy.js" for r in ours.resources)
    problems = over_budget(ours, plain_weight)
    assert [p.split(":")[0] for p in problems] == ["raw", f"gzip -{GZIP_LEVEL}"], problems
