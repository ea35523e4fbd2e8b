"""How we know, in process: each checked sentence's evidence renders as the popover shows it
(the page's evidence file, `Renderer.evidence_data`), every kind of it; the page holds a mark
for each marked sentence and no evidence of its own; a proof that changes changes the file;
the counts on the switch and on the module's "How we know" page are the census of its checked
sentences. (That each item holds what its fact holds is tests/checks/test_evidence.py.)"""

from __future__ import annotations

import html
import re
from pathlib import Path

import markdown
import pytest
from bs4 import BeautifulSoup

from support import ROOT
from support.registry import MODULE, copy_tree
from trafikist.core.site import Site, load_site
from trafikist.course.evidence import (
    CommandTableField,
    DocsQuote,
    ModelChoice,
    ModelStep,
    RegistryField,
    SeedQuote,
    TranscriptStep,
)
from trafikist.course.shown_evidence import census, counts_text, kind_of, own_words
from trafikist.course.structure import Page

# Loads and checks the whole course in this process (the `site` fixture): the full suite's.
pytestmark = pytest.mark.build

MODULE_04_ID = "blocking-timers-and-the-bus"


@pytest.fixture(scope="module")
def site() -> Site:
    return load_site(ROOT / "modules", base_dir=ROOT)


def module_04_pages(site: Site) -> list[Page]:
    module = site.course.pages[MODULE_04_ID]
    return [module, *module.dives]


def page_html(site: Site, page: Page) -> BeautifulSoup:
    """The page's Markdown rendered by Python-Markdown with the site's extensions, as an
    engine renders it, its links resolved."""
    text = site.renderer.page_markdown(page).split("---\n", 2)[2]
    md = markdown.Markdown(extensions=["attr_list", "md_in_html", *site.markdown_extensions()])
    return BeautifulSoup(site.renderer.finalize_html(md.convert(text), page), "html.parser")


def marks_of(site: Site, page: Page) -> dict[str, BeautifulSoup]:
    data = site.renderer.evidence_data(page)
    assert data is not None
    marks = data["marks"]
    assert isinstance(marks, dict)
    return {number: BeautifulSoup(markup, "html.parser") for number, markup in marks.items()}


def test_every_kind_renders_from_a_checks_result(site: Site) -> None:
    """Each item of each marked sentence is one line of its evidence, with what it holds; the
    page marks each marked sentence once, after it, and carries none of its evidence."""
    seen = set()
    for page in module_04_pages(site):
        numbered = site.renderer.numbered(page)
        marks = marks_of(site, page)
        soup = page_html(site, page)
        marked = [entry for entry in numbered if entry.marked]
        assert sorted(marks, key=int) == [str(entry.number) for entry in marked]
        assert [entry.number for entry in marked] == list(range(1, len(marked) + 1))
        in_page = [mark["id"] for mark in soup.select("i[id^=tk-m]")]
        assert sorted(in_page) == sorted(entry.mark_id for entry in marked)
        assert all(not mark.contents for mark in soup.select("i[id^=tk-m]"))
        assert not soup.select(".tk-evidence__lines")  # the evidence is the file's
        for entry in marked:
            lines = marks[str(entry.number)].select("ul.tk-evidence__lines > li")
            assert [line["data-kind"] for line in lines] == [
                kind_of(item) for item in entry.sentence.evidence
            ]
            for line, item in zip(lines, entry.sentence.evidence, strict=True):
                text = " ".join(line.get_text(" ").split())
                seen.add(type(item))
                for value in _shown_values(item):
                    assert " ".join(value.split()) in text, (value, text)
                if isinstance(item, SeedQuote) and own_words(entry.sentence):
                    assert text.startswith("word for word:"), text
    assert {SeedQuote, RegistryField, TranscriptStep, ModelStep, ModelChoice} <= seen


def _shown_values(item: object) -> list[str]:
    match item:
        case SeedQuote(quote=quote):
            return [quote]
        case RegistryField(command=command, field=field, value=value):
            return [value, field] + ([command] if command else [])
        case TranscriptStep(command=command, reply=reply, step=step):
            return [command, reply.splitlines()[0] if reply else "", f"step {step}"]
        case CommandTableField(command=command, field=field, value=value):
            return [command, field, value]
        case DocsQuote(quote=quote, path=path):
            return [quote, path]
        case ModelStep(predicate=predicate, command=command, reply=reply):
            return [predicate, command or "", reply or ""]
        case ModelChoice(id=choice_id, sentence=words):
            return [choice_id, words]
    return []


def test_a_model_step_links_to_its_row_of_the_pages_trace(site: Site) -> None:
    """An expectation's line links to the run that holds its trace, at its row's place."""
    page = site.course.pages[MODULE_04_ID]
    soup = page_html(site, page)
    links = [
        link
        for lines in marks_of(site, page).values()
        for link in lines.select(".tk-evidence__row")
    ]
    assert links
    for link in links:
        holder = soup.find(id=link["href"].removeprefix("#"))
        assert holder is not None, link
        assert 0 <= int(link["data-row"]) < int(link["data-rows"])


def test_the_counts_on_the_switch_are_the_census(site: Site) -> None:
    page = site.course.pages[MODULE_04_ID]
    numbered = site.renderer.numbered(page)
    data = site.renderer.evidence_data(page)
    assert data is not None
    counts = census(entry.sentence for entry in numbered)
    expected = counts_text(counts, site.renderer.valkey.version)  # type: ignore[union-attr]
    assert data["counts"] == expected
    assert expected.startswith(f"{len(numbered)} checked sentences: ")
    for kind, count in counts.items():
        if kind != "all":
            assert count == sum(
                1 for entry in numbered if any(kind_of(e) == kind for e in entry.sentence.evidence)
            )
    switch = page_html(site, page).select_one(".tk-evswitch")
    assert switch is not None and switch["data-page"] == page.id


def test_a_proof_that_changes_changes_the_evidence(tmp_path: Path) -> None:
    """The fixture course's claim `*.flags lacks blocking` reads every row's flags: a row's
    flags changed in the registry (still not blocking) show in the sentence's evidence."""
    modules, registry = copy_tree(tmp_path)
    site = load_site(modules, base_dir=tmp_path, strict=False)
    page = next(page for page in site.pages() if page.source == modules / MODULE)
    before = _evidence_of(site, page, "*.flags lacks blocking")
    assert "EMQ.APPEND · flags = write" in before, before
    text = (registry / "src/registry.rs").read_text()
    row = text[text.index('name: c"EMQ.APPEND"') :]
    flags = re.search(r'flags: "([^"]*)"', row)
    assert flags is not None
    start = text.index('name: c"EMQ.APPEND"') + flags.start(1)
    changed = text[:start] + flags[1] + " fast" + text[start + len(flags[1]) :]
    (registry / "src/registry.rs").write_text(changed)
    site = load_site(modules, base_dir=tmp_path, strict=False)
    page = next(page for page in site.pages() if page.source == modules / MODULE)
    after = _evidence_of(site, page, "*.flags lacks blocking")
    assert f"EMQ.APPEND · flags = {flags[1]} fast" in after, after


def _evidence_of(site: Site, page: Page, expression: str) -> str:
    marks = marks_of(site, page)
    for entry in site.renderer.numbered(page):
        if expression in entry.sentence.text and entry.marked:
            return html.unescape(" ".join(marks[str(entry.number)].get_text(" ").split()))
    raise AssertionError(f"no marked sentence holds {expression}")


def test_the_how_we_know_page_counts_the_census(site: Site) -> None:
    """The module's "How we know" page: its counts are the census of every checked sentence
    of the module and its dives (titles and summaries included), and each group lists as
    many sentences as its heading says, each linked to its mark on its page."""
    page = site.course.pages[f"how-we-know-{MODULE_04_ID}"]
    assert not site.listed(page)  # out of the navigation
    assert "search:\n  exclude: true" in site.renderer.page_markdown(page)
    soup = page_html(site, page)
    assert site.renderer.evidence is not None
    everything = [s for each in module_04_pages(site) for s in site.renderer.evidence(each)]
    counts = census(everything)
    expected = counts_text(counts, site.renderer.valkey.version)  # type: ignore[union-attr]
    assert soup.select_one(".tk-how__counts").get_text() == expected + "."  # type: ignore[union-attr]
    groups = {heading["id"]: heading for heading in soup.select("h3[id]")}
    for kind, count in counts.items():
        if kind == "all":
            continue
        heading = groups[kind]
        assert heading.get_text().endswith(f"· {count} sentence{'' if count == 1 else 's'}")
        listed = heading.find_next_sibling("ol")
        assert listed is not None and len(listed.select(":scope > li")) == count
    own = groups["own"].find_next_sibling("ol")
    assert own is not None and 0 < len(own.select(":scope > li")) < counts["seed"]
    marked = sum(
        1
        for each in module_04_pages(site)
        for entry in site.renderer.numbered(each)
        if entry.marked
    )
    # Each marked sentence links back to its mark, or, in a question's explanation (which the
    # feedback copies), to its question.
    back = {
        (link["href"].split("#")[0], link.get_text())
        for link in soup.select("a.tk-how__where")
        if "#tk-m" in link["href"] or "#check-" in link["href"]
    }
    assert len(back) == marked
    assert any("#check-" in link["href"] for link in soup.select("a.tk-how__where"))


def test_a_pages_title_and_summary_are_marked_in_its_header(site: Site) -> None:
    """A written page's summary is a checked sentence of it (module 04's and dive 01's follow
    from the seed): its header holds the summary with its mark, hidden until the switch is
    on; the mark is numbered first, and its evidence quotes the seed."""
    summaries = 0
    for page in module_04_pages(site):
        numbered = site.renderer.numbered(page)
        header = page_html(site, page).select_one("header.tk-header")
        assert header is not None
        shown = header.select_one(".tk-header__summary")
        checked = [e for e in numbered if e.sentence.anchor.startswith("meta:summary:")]
        if not checked:
            assert shown is None, page.id
            continue
        summaries += 1
        assert shown is not None and shown.has_attr("hidden"), page.id
        assert " ".join(shown.get_text().split()) == " ".join(
            BeautifulSoup(site.renderer.inline_markdown(page.summary), "html.parser")
            .get_text()
            .split()
        )
        assert [i["id"] for i in shown.select("i[id]")] == [e.mark_id for e in checked]
        assert checked[0].number == 1
        evidence = marks_of(site, page)[str(checked[0].number)]
        assert evidence.select('li[data-kind="seed"] q'), page.id
    assert summaries == 2  # module 04's and dive 01's


def test_the_switches_counts_add_up_to_the_how_we_know_census(site: Site) -> None:
    """Each page's switch counts every checked sentence of it, its title and summary
    included, so the pages' counts add up to the module's "How we know" census, kind by
    kind."""
    assert site.renderer.evidence is not None
    pages = module_04_pages(site)
    everything = census(s for each in pages for s in site.renderer.evidence(each))
    added: dict[str, int] = {}
    for page in pages:
        numbered = site.renderer.numbered(page)
        if not numbered:
            continue
        counts = census(entry.sentence for entry in numbered)
        data = site.renderer.evidence_data(page)
        assert data is not None
        assert data["counts"] == counts_text(counts, site.renderer.valkey.version)  # type: ignore[union-attr]
        for kind, count in counts.items():
            added[kind] = added.get(kind, 0) + count
    assert added == everything
    assert any(
        entry.sentence.anchor.startswith("meta:summary:")
        for page in pages
        for entry in site.renderer.numbered(page)
    )


TITLE_CLAIM = "[EMQ.PROMOTE is a write command]{claim: EMQ.PROMOTE.flags = write}"


def test_a_title_whose_proof_changes_shows_the_new_evidence(tmp_path: Path) -> None:
    """A title that carries a claim shows its words, its mark at its end (sentence 1), and the
    claim's evidence; the claim changed, the mark shows the new evidence."""
    modules, _ = copy_tree(tmp_path)
    source = modules / MODULE
    text = source.read_text()
    source.write_text(text.replace("title: The sweeps", f'title: "{TITLE_CLAIM}"', 1))

    def title_and_evidence() -> tuple[str, list[str], str]:
        site = load_site(modules, base_dir=tmp_path, strict=False)
        page = next(page for page in site.pages() if page.source == source)
        title = page_html(site, page).select_one("h1.tk-title")
        assert title is not None
        return (
            title.get_text(),
            [i["id"] for i in title.select("i[id]")],
            html.unescape(" ".join(marks_of(site, page)["1"].get_text(" ").split())),
        )

    words, marks, evidence = title_and_evidence()
    assert words == "EMQ.PROMOTE is a write command"
    assert marks == ["tk-m1"]
    assert "EMQ.PROMOTE · flags = write" in evidence, evidence
    source.write_text(source.read_text().replace("PROMOTE.flags = write}", "PROMOTE.arity = 6}"))
    words, marks, evidence = title_and_evidence()
    assert marks == ["tk-m1"]
    assert "EMQ.PROMOTE · arity = 6" in evidence, evidence
    assert "flags" not in evidence
