"""Module 04's page, built from modules/, carries every part of the published page (the seed),
in the seed's order and wording."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import MODULE_04, SEED, article, soup

SECTION_LABELS = [
    "The module answers and returns",
    "Who moves time today",
    "The bus, from built-ins",
    "The dives",
    "References",
]
DUTY_PREFIXES = {"the library: ": "library", "trafikey: ": "trafikey"}


def text_of(element) -> str:
    """What a reader reads: badges are decoration beside links, so they are left out."""
    copy = soup_fragment(str(element))
    for badge in copy.select(".tk-badge, .headerlink, .tk-visually-hidden"):
        badge.decompose()
    return normalise(copy.get_text(" "))


def soup_fragment(markup: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(markup, "html.parser")


def normalise(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r" ([,.;:)])", r"\1", text).replace("( ", "(")


@pytest.fixture(scope="module")
def page(built_site: Path):
    return article(soup(built_site / MODULE_04))


@pytest.fixture(scope="module")
def seed_lines() -> list[str]:
    if not SEED.is_file():
        pytest.skip(f"the seed is not beside the repository ({SEED})")
    return [line.strip() for line in SEED.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_header_kicker_title_and_lede(page, seed_lines) -> None:
    assert page.select_one("header .tk-kicker").get_text() == seed_lines[0]
    assert page.select_one("header h1").get_text() == seed_lines[1]
    lede = [normalise(text_of(p)) for p in page.select(".tk-lede > p")]
    assert lede == [seed_lines[2], seed_lines[3]]


def test_section_nav_lists_the_sections_in_order(page) -> None:
    nav = page.select_one("nav.tk-sections")
    labels = [a.get_text() for a in nav.select("a")]
    assert labels == SECTION_LABELS
    for link in nav.select("a"):
        target = page.select_one(link["href"])
        assert target is not None and target.name == "h2", link["href"]
    # The nav comes after the lede and before the first section.
    order = [el for el in page.find_all(True) if el in (nav, page.select_one(".tk-lede"))]
    assert order[0].get("class") == ["tk-lede"]
    assert page.select("section.tk-section")[0].find_previous("nav", class_="tk-sections")


def test_every_seed_paragraph_is_on_the_page(page, seed_lines) -> None:
    """Each sentence-length line of the published page appears word for word."""
    text = normalise(text_of(page))
    prose = [
        line
        for line in seed_lines[2:]
        if len(line) > 60
        and not line.startswith(("//", "emq_", "flags:", "summary:", "complexity:"))
    ]
    assert len(prose) > 20
    missing = []
    for line in prose:
        for prefix in DUTY_PREFIXES:
            if line.startswith(prefix):
                line = line[len(prefix) :]
        if normalise(line) not in text:
            missing.append(line)
    assert missing == []


def test_registry_excerpt_has_caption_rows_and_elision(page) -> None:
    figure = page.select_one("figure.tk-excerpt")
    caption = figure.select_one("figcaption").get_text()
    assert caption.startswith("trafikey — registry::TABLE, two rows:")
    code = figure.select_one("code").get_text()
    assert "language-rust" in figure.select_one(".highlight")["class"]
    assert 'name: c"EMQ.PROMOTE"' in code and 'name: c"EMQ.STALLED.CHECK"' in code
    assert code.index("EMQ.PROMOTE") < code.index("// …") < code.index("EMQ.STALLED.CHECK")
    # Highlighted as Rust: tokens carry Pygments classes.
    assert figure.select("code span.k") and figure.select("code span.s")


def test_takeaways_close_their_sections(page, seed_lines) -> None:
    takeaways = page.select(".tk-takeaway")
    texts = [normalise(t.select("p")[-1].get_text()) for t in takeaways]
    assert texts == [
        "A module command runs when a client sends it and ends with its reply; between calls, "
        "nothing in the module runs.",
        "Every sweep today has a client process behind it and a beat or an interval in that "
        "process; the server contributes one clock reading per call.",
        "The bus runs on Valkey's own commands; where an operation needs two of them, the gap "
        "between the two is the client's.",
    ]
    for takeaway in takeaways:
        assert takeaway.find_parent("section", class_="tk-section") is not None
        assert all(t in seed_lines for t in texts)


def test_forward_blocks_follow_the_lesson_they_extend(page) -> None:
    forwards = page.select("aside.tk-forward")
    # The seed marks where the specifications take each of the three kinds of work, and gives
    # none of their steps: each block marks its place as planned and states nothing more.
    labels = [f.select_one(".tk-forward__label").contents[0].strip() for f in forwards]
    assert labels == [
        "Where the specifications take waiting and time",
        "Where the specifications take broadcast",
    ]
    for forward in forwards:
        assert "tk-forward--planned" in forward["class"]
        assert forward.select_one(".tk-forward__label .tk-badge--planned") is not None
        assert text_of(forward.select_one(".tk-forward__planned")).startswith("Not written yet.")
        # Placed after present-tense prose in the same section, never first.
        previous = forward.find_previous_sibling()
        assert previous is not None and previous.name in {"p", "figure", "section"}
        assert forward.find_parent("section", class_="tk-section") is not None


def test_duty_widget_static_form(page, seed_lines) -> None:
    widget = page.select_one("section.tk-duties")
    assert widget.select_one("h3").get_text() == "Who carries each duty today · pick a duty"
    duties = widget.select(".tk-duty")
    labels = [d.select_one(".tk-duty__name").get_text() for d in duties]
    assert len(labels) == 9
    for expected in [
        "promote due jobs · schedule → pending",
        "recover expired leases",
        "wake a parked worker",
        "claim work from the lanes",
        "publish and append on the bus",
        "batch append",
        "count failures",
        "park to the dead-letter stream",
        "reclaim stalled bus entries",
    ]:
        assert any(label.startswith(expected) for label in labels), expected
    for duty in duties:
        radio = duty.select_one("input[type=radio]")
        assert duty.select_one(f"label[for={radio['id']}]") is not None
        rows = [dt.get_text() for dt in duty.select("dt")]
        assert rows == ["the library", "trafikey", "between calls"]
        assert all(normalise(text_of(dd)) for dd in duty.select("dd"))
    promote = duties[0]
    index = seed_lines.index("promote due jobs · schedule → pending")
    library, trafikey, between = seed_lines[index + 1 : index + 4]
    dds = [normalise(text_of(dd)) for dd in promote.select("dd")]
    assert dds == [
        library.removeprefix("the library: "),
        trafikey.removeprefix("trafikey: "),
        between,
    ]


def test_dive_cards(page) -> None:
    cards = page.select(".tk-dive-card")
    assert [c.select_one(".tk-dive-card__number").get_text() for c in cards] == ["01", "02", "03"]
    assert [c.select_one(".tk-dive-card__title").get_text() for c in cards] == [
        "Who moves time today",
        "The blocking claim",
        "The native bus",
    ]
    for card in cards:
        assert card.select_one(".tk-badge").get_text() == "built"
        assert card.select_one(".tk-dive-card__summary").get_text()
        href = card.select_one("a")["href"]
        assert re.fullmatch(r"0[1-3]-[a-z-]+/", href), href
    assert "page ready to read" in page.select_one(".tk-dive-cards .tk-legend").get_text()


def test_pattern_panel_reading_order_and_up_next(page) -> None:
    pattern = page.select_one("section.tk-pattern")
    labels = [text_of(p) for p in pattern.select(".tk-pattern__label")]
    assert labels == [
        "the pattern (Redis Patterns Applied)",
        "the implementation (EchoMQ and trafikey)",
    ]
    hint = page.select_one(".tk-reading-order").get_text()
    assert hint == "Take the dives in order: time first, then waiting, then the bus."
    up_next = page.select_one("nav.tk-up-next")
    items = up_next.select(".tk-up-next__item")
    # The seed's two cards ("→built Who moves time today", then "←built Failures and
    # recovery"), previous first: ← on the left, → on the right (test_reading_order).
    assert [i.select_one(".tk-up-next__arrow").get_text() for i in items] == ["←", "→"]
    assert [i.select_one(".tk-up-next__page").get_text() for i in items] == [
        "Failures and recovery",
        "Who moves time today",
    ]
    # The next dive is a link, and so is the previous lesson: built in the published course
    # only (the seed's "←built"; its source says `published_status: built`), planned here, so
    # its badge says planned, and a line says the published course has it.
    assert items[0].select_one(".tk-up-next__page a") is not None
    assert items[1].select_one(".tk-up-next__page a") is not None
    assert items[0].select_one(".tk-badge").get_text() == "planned"
    assert items[1].select_one(".tk-badge").get_text() == "built"
    assert text_of(items[0].select_one(".tk-up-next__absent")) == (
        "The published course has this lesson; this site does not hold it yet."
    )
    assert items[1].select_one(".tk-up-next__summary").get_text().startswith("Start the module")
    after = up_next.select_one(".tk-up-next__after")
    assert text_of(after).startswith("After this module, TRA and native values reads")
    # Parts come in the seed's order within "The dives".
    dives_section = page.select_one("#the-dives").parent
    names = [
        el["class"][0]
        for el in dives_section.find_all(
            class_=["tk-dive-cards", "tk-pattern", "tk-reading-order", "tk-up-next"]
        )
    ]
    assert names == ["tk-dive-cards", "tk-pattern", "tk-reading-order", "tk-up-next"]


def test_references(page) -> None:
    references = page.select_one("#references").parent
    sources = references.select_one("#sources").find_next_sibling("ul").select("li")
    assert len(sources) == 5
    for item in sources:
        link = item.select_one("a")
        assert link["href"].startswith("https://valkey.io/")
        assert link.get_text().startswith("Valkey — ")
        assert " — " in text_of(item)
    related = references.select_one("#related-in-this-course").find_next_sibling("ul").select("li")
    assert len(related) == 6
    for item in related:
        link = item.select_one("a")
        assert not link["href"].startswith(("http", "id:")), link["href"]
        assert link.select_one(".tk-badge") is not None  # the linked page's status
