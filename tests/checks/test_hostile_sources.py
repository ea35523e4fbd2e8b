"""The attack of issue 28 on the sources, each input as an author (or a hostile copy) would give
it, on a copy of the real course, in-process with no engine (support.building: the core's
load, checks, pages and site files): raw HTML, invisible and look-alike characters, block
syntax inside code fences and near-miss openers, a written page marked planned, YAML that
turns into another type, transcripts the runner cannot replay. Each ends with exactly one
`FILE:LINE: what. Fix: how.` line, asserted here word for word, as a CourseError and never
another exception; or, where the input is fine, the course builds and reads as the author
meant. Each failed on the code before the fix."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import markdown
import pytest
from bs4 import BeautifulSoup

from support import copy_project, edit, line_of, markdown_extensions
from support.authoring import DIVE_01, DUTIES, MODULE
from support.building import core_build
from trafikist.course.loader import load_course
from trafikist.course.markup import SafeHtmlExtension, code_span, markdown_text, unsafe_url
from trafikist.course.questions import blocks as questions_blocks
from trafikist.course.questions import page_questions
from trafikist.course.render import Renderer
from trafikist.course.review import module_questions
from trafikist.registry.valkey import ValkeyCommand, ValkeyTable

ONE_LINE = re.compile(r"^[\w./-]+(?::\d+)?: [^\n]+[.?!] Fix: [^\n]+$")
HTML_GUIDE = '(docs/authoring.md, "No raw HTML")'
WHY = (
    "    why: That reader moved j1 the moment it fell due. A due job stays in schedule until a "
    "client sends the promote call; the run moves j1 only at a beat.\n"
)
OPTION = "  - text: Still in schedule.\n"
PROMPT = "Does its beat move j1 to pending?\n"
SECTION = "## Two sweeps, each one call"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


def assert_fails_with(project: Path, expected: str) -> None:
    """The core's build of `project` ends with a CourseError whose message is `expected`: one
    line, one Fix. Any other exception fails the test with its traceback."""
    message = core_build(project)
    assert message == expected
    assert ONE_LINE.match(message), message
    assert message.count("Fix:") == 1, message


# -- no raw HTML from the sources ------------------------------------------------------------


def raw_html(tag: str) -> str:
    return (
        f"'{tag}' is raw HTML, which the course never passes from its sources to a page. "
        "Fix: Write Markdown; to show the characters themselves, put them in a code span "
        f"(`{tag}`) {HTML_GUIDE}."
    )


SCRIPT_LINK = (
    "the link's target 'javascript:…' would run a script or load data in the reader's browser. "
    f"Fix: Link to a course page by its id (id:PAGE) or to an http(s) address {HTML_GUIDE}."
)
IMG = "<img src=x onerror=alert()>"


@pytest.mark.build
@pytest.mark.parametrize(
    ("file", "old", "new", "at", "expected"),
    [
        # A why ending `</dd><dd>` opened a new entry in the answer's list.
        (MODULE, WHY, WHY.rstrip("\n") + "</dd><dd>x\n", WHY[:30], raw_html("</dd>")),
        (MODULE, WHY, WHY.replace("A due job", f"A due job {IMG}"), WHY[:30], raw_html(IMG)),
        # The prompt is a fair question's no more: its check fails too, in the same line.
        (MODULE, PROMPT, PROMPT.rstrip("\n") + " <script>alert(1)</script>\n", PROMPT[:20],
         raw_html("<script>").replace(" Fix:", " This line has 1 more problem too. Fix:")),
        (MODULE, OPTION, "  - text: Still in [schedule](javascript:alert(1)).\n", OPTION[:18],
         SCRIPT_LINK),
        (MODULE, OPTION, "  - text: Still in [schedule](&#106;aVa&#x09;ScRiPt:alert()).\n",
         OPTION[:18], SCRIPT_LINK),
        (MODULE, "unit: s\n", f"unit: s {IMG}\n", "unit: s", raw_html(IMG)),
        # The summary is the seed's own words no more: the sentence's checks fail too, and say
        # so in the same line.
        (DIVE_01, 'summary: "EMQ.PROMOTE', f'summary: "{IMG} EMQ.PROMOTE', "summary:",
         raw_html(IMG).replace(" Fix:", " This line has 3 more problems too. Fix:")),
        (DIVE_01, SECTION, f"Read <b>this</b>.\n\n{SECTION}", "Read <b>", raw_html("<b>")),
        (DIVE_01, SECTION, f"See [this](javascript:alert(1)).\n\n{SECTION}", "See [this]",
         SCRIPT_LINK),
        (DIVE_01, SECTION, f"See [this][x].\n\n[x]: data:text/html,hi\n\n{SECTION}", "[x]: data",
         SCRIPT_LINK.replace("javascript", "data")),
        (DIVE_01, SECTION, f"![a picture](javascript:alert(1))\n\n{SECTION}", "![a picture]",
         SCRIPT_LINK),
        (DIVE_01, "/// excerpt | trafikey — registry::TABLE",
         f"/// excerpt | {IMG} trafikey — registry::TABLE", "/// excerpt | <img", raw_html(IMG)),
        (DUTIES, "    between_calls: >-\n", f"    between_calls: >-\n      {IMG}\n",
         "    between_calls: >-", raw_html(IMG)),
    ],
    ids=[
        "a why ending </dd><dd>",
        "an <img onerror> in a why",
        "a <script> in a prompt",
        "a javascript: link in an option",
        "a javascript: link written with entities and capitals",
        "raw HTML in a unit",
        "raw HTML in a summary (the dive cards)",
        "raw HTML in prose",
        "a javascript: link in prose",
        "a data: reference definition",
        "a javascript: image",
        "raw HTML in an excerpt's caption",
        "raw HTML in a duty's row",
    ],
)  # fmt: skip
def test_raw_html_from_the_sources(
    project: Path, file: Path, old: str, new: str, at: str, expected: str
) -> None:
    """Each reached the page as raw HTML (the CSP blocked the scripts; the markup stood)."""
    edit(project / file, old, new)
    line = line_of(project / file, at)
    assert_fails_with(project, f"{file}:{line}: {expected}")


@pytest.mark.build
def test_an_event_handler_in_an_attribute_list(project: Path) -> None:
    line = edit(project / DIVE_01, f"{SECTION} {{ data-toc", f'{SECTION} {{ onclick="x()" data-toc')
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: the attribute list gives the attribute 'onclick', which an author "
        "may not set: it would reach the page as HTML. Fix: Keep to #id, .class and "
        f"data-toc-label inside {{ … }} {HTML_GUIDE}.",
    )


@pytest.mark.build
def test_an_html_comment_in_a_why(project: Path) -> None:
    """A text field is no place for a source comment: it would show as `<!-- … -->`."""
    edit(project / MODULE, WHY, WHY.rstrip("\n") + " <!-- a note -->\n")
    line = line_of(project / MODULE, WHY[:30])
    assert_fails_with(
        project,
        f"{MODULE}:{line}: this text holds an HTML comment '<!--', which a text field shows as "
        "it is. Fix: Delete it; a source comment goes above the field, as '# seed: \"…\"' "
        f"{HTML_GUIDE}.",
    )


@pytest.mark.build
@pytest.mark.parametrize("mark", ["<!-- trafikist:generated -->", "<!--/trafikist:generated-->"])
def test_the_renderers_own_mark_in_prose(project: Path, mark: str) -> None:
    """Between the renderer's two marks the engine passes the text as it is
    (trafikist.course.markdown.generated_html): an author's page may hold neither."""
    line = edit(project / DIVE_01, SECTION, f"{mark}\n\n{SECTION}")
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: '{mark}' is the renderer's own mark around the HTML it writes, "
        "and a page's text may not hold it: what follows would reach the page as it is. "
        f"Fix: Delete the comment {HTML_GUIDE}.",
    )


@pytest.mark.build
def test_the_renderers_own_mark_in_code_is_the_authors_example(project: Path) -> None:
    fence = "```html\n<!-- trafikist:generated -->\n```\n\n"
    span = "The renderer writes `<!-- trafikist:generated -->` before its HTML.\n\n"
    edit(project / DIVE_01, SECTION, f"{fence}{span}{SECTION}")
    assert core_build(project) is None


@pytest.mark.build
def test_markup_the_course_writes_is_not_raw_html(project: Path) -> None:
    """What looks like a tag inside code, a marked span's expression or an autolink is the
    author's text, and builds: `<consumer>` in a Valkey quote, `<b>` in a code span."""
    edit(
        project / DIVE_01,
        SECTION,
        f"A code span shows `<b>` and <https://valkey.io/>.\n\n{SECTION}",
    )
    assert core_build(project) is None


COURSE_YML = "title: T\nsummary: S\nbooks:\n  - {id: b, title: B, summary: S, numbered: true}\n"
ATTACKS = [
    "a <script>alert(1)</script> b",
    "why</dd><dd>x",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "[x](java\tscript:alert(1))",
    "![x](vbscript:msgbox)",
    '*a*{ onclick="alert(1)" style="x" }',
    "<div>\nblock\n</div>",
]


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "modules"
        (root / "01-one").mkdir(parents=True)
        (root / "course.yml").write_text(COURSE_YML, encoding="utf-8")
        (root / "01-one" / "module.md").write_text(
            "---\nid: one\ntitle: One\nsummary: S\nstatus: built\n---\nText.\n", "utf-8"
        )
        return Renderer(load_course(root))


@pytest.mark.parametrize("text", ATTACKS)
def test_the_md_filter_passes_no_html(renderer: Renderer, text: str) -> None:
    """The templates' `md` filter (a question's prompt, options and whys, a duty's rows, a
    summary): whatever the checks let through, no tag, handler or script link reaches a page."""
    out = str(renderer.inline_markdown(text))
    elements = BeautifulSoup(f"<p>{out}</p>", "html.parser").find_all(True)
    assert not [e.name for e in elements if e.name in ("script", "div", "dd", "dt")], out
    for element in elements:
        assert not [name for name in element.attrs if name.startswith("on") or name == "style"]
        for name in ("href", "src"):
            assert not unsafe_url(str(element.get(name, ""))), out


def test_the_md_filter_keeps_the_course_s_own_markup(renderer: Renderer) -> None:
    out = str(renderer.inline_markdown("*a* `<b>` [x](https://valkey.io/) [y](id:one#z) {.k}"))
    assert out == (
        '<em>a</em> <code>&lt;b&gt;</code> <a href="https://valkey.io/">x</a> '
        '<a href="id:one#z">y</a> {.k}'
    )


def test_a_deprecation_note_from_the_command_table_is_text(renderer: Renderer) -> None:
    """The command table is data: a `replaced_by` holding a tag is shown as its characters."""
    renderer.valkey = ValkeyTable(
        Path("commands.json"),
        "9.1.2",
        {
            "ZRANGEBYSCORE": ValkeyCommand(
                "ZRANGEBYSCORE",
                {
                    "deprecated_since": "6.2.0",
                    "replaced_by": "<img src=x onerror=alert(1)> [x](javascript:y)",
                },
            )
        },
    )
    course = renderer.course
    page = course.pages["one"]
    page.body = "- [Valkey — ZRANGEBYSCORE](https://valkey.io/commands/zrangebyscore/) — a range.\n"
    page_markdown = renderer.page_markdown(page)
    html = markdown.Markdown(extensions=["attr_list", "md_in_html"]).convert(page_markdown)
    assert "<img" not in html and 'href="javascript' not in html
    assert "&lt;img src=x onerror=alert(1)&gt; [x](javascript:y) in its place." in html


@pytest.mark.parametrize(
    ("url", "unsafe"),
    [
        ("javascript:alert(1)", True),
        (" JAVASCRIPT:alert(1)", True),
        ("java\nscript:x", True),
        ("&#106;avascript:x", True),
        ("data:text/html,x", True),
        ("vbscript:x", True),
        ("https://valkey.io/", False),
        ("id:review#top", False),
        ("mailto:a@b.c", False),
        ("../page/", False),
        ("#anchor", False),
    ],
)
def test_unsafe_schemes(url: str, unsafe: bool) -> None:
    assert unsafe_url(url) is unsafe


def test_plain_text_in_markdown_reads_as_itself() -> None:
    md = markdown.Markdown(extensions=[SafeHtmlExtension()])
    for text in ("<b>x</b> & [a](javascript:b) *c* `d`", "pipe | and # hash sweep_stalled_now"):
        assert (
            md.reset().convert(markdown_text(text))
            == "<p>"
            + (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
            + "</p>"
        )
    assert md.reset().convert(code_span("a ` b")) == "<p><code>a ` b</code></p>"


# -- invisible and look-alike characters ---------------------------------------------------------

TIMER = "trafikey arms a timer that fires every 100 ms inside the server."
DELETE_IT = "Fix: Delete it: a source of the course is plain UTF-8 text."
LATIN_AGAIN = "Fix: Type the word again in Latin letters."


@pytest.mark.build
def test_a_soft_hyphen_hides_a_sentence_from_its_checks(project: Path) -> None:
    """The issue's sentence: with a soft hyphen in the name it was published; without it, it is
    refused as an unchecked fact. Both are refused now, the first at its character."""
    hidden = TIMER.replace("trafikey", "traf\u00adikey")
    line = edit(project / DIVE_01, SECTION, f"{hidden}\n\n{SECTION}")
    assert_fails_with(
        project,
        f"{DIVE_01}:{line}: this line holds an invisible character, U+00AD SOFT HYPHEN, at "
        "column 5: the reader sees 'trafikey', and every check reads another word. "
        f"{DELETE_IT}",
    )
    edit(project / DIVE_01, hidden, TIMER)
    message = core_build(project)
    assert message is not None and message.startswith(f"{DIVE_01}:{line}: "), message
    assert "100" in message and "seed" in message, message


@pytest.mark.build
@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        (DIVE_01, SECTION, f"{TIMER.replace('ik', 'i\u200dk')}\n\n{SECTION}",
         "this line holds an invisible character, U+200D ZERO WIDTH JOINER, at column 6: the "
         f"reader sees 'trafikey', and every check reads another word. {DELETE_IT}"),
        (DIVE_01, SECTION, f"{TIMER.replace('every 100', 'every \u202e001\u202c')}\n\n{SECTION}",
         "this line holds an invisible character, U+202E RIGHT-TO-LEFT OVERRIDE, at column 40: "
         f"the reader sees '001' in another order than every check reads it. {DELETE_IT}"),
        (DIVE_01, SECTION, f"{TIMER.replace('trafikey', 'tr\u0430fikey')}\n\n{SECTION}",
         "the word 'tr\u0430fikey' mixes Latin and Cyrillic letters: '\u0430' (U+0430 CYRILLIC "
         "SMALL LETTER A, at column 3) looks Latin and is another letter to every check. "
         f"{LATIN_AGAIN}"),
        (DIVE_01, SECTION, f"{TIMER.replace('trafikey', '\uff54rafikey')}\n\n{SECTION}",
         "'\uff54' (U+FF54 FULLWIDTH LATIN SMALL LETTER T) at column 1 looks like 't' and is "
         "another character to every check. Fix: Type 't' instead."),
        (DIVE_01, SECTION, f"{TIMER.replace('trafikey', 'tr\u00e1fikey')}\n\n{SECTION}",
         "the word 'tr\u00e1fikey' at column 1 is 'trafikey' with accents: the checks that look "
         "for that name would not see it. Fix: Write the name without accents, as the course "
         "spells it."),
        # A title (front matter), an id, a question's option (YAML in a block).
        (DIVE_01, 'title: "Who moves time today"', 'title: "Who m\u043eves time today"',
         "the word 'm\u043eves' mixes Latin and Cyrillic letters: '\u043e' (U+043E CYRILLIC "
         f"SMALL LETTER O, at column 14) looks Latin and is another letter to every check. "
         f"{LATIN_AGAIN}"),
        (MODULE, "id: a-beat-on-wire-6", "id: a-beat\u200b-on-wire-6",
         "this line holds an invisible character, U+200B ZERO WIDTH SPACE, at column 11: the "
         f"reader sees 'a-beat-on-wire-6', and every check reads another word. {DELETE_IT}"),
        (MODULE, OPTION, "  - text: Still in \u0455chedule.\n",
         "the word '\u0455chedule' mixes Latin and Cyrillic letters: '\u0455' (U+0455 CYRILLIC "
         "SMALL LETTER DZE, at column 20) looks Latin and is another letter to every check. "
         f"{LATIN_AGAIN}"),
        (DUTIES, "    between_calls: >-\n", "    between_calls: >-\n      \u0440\u043e\u0440\n",
         "the word '\u0440\u043e\u0440' at column 7 is written in Cyrillic letters that all "
         "look Latin: it reads as a Latin word, and is another word to every check. "
         f"{LATIN_AGAIN}"),
    ],
    ids=[
        "a zero-width joiner in a name",
        "a bidi override turning a number",
        "a Cyrillic letter in a name",
        "a fullwidth letter",
        "an accent on a name the checks look for",
        "a Cyrillic letter in a title",
        "a zero-width space in an id",
        "a Cyrillic letter in a question's option",
        "a Cyrillic word that looks Latin in a duty's row",
    ],
)  # fmt: skip
def test_invisible_and_look_alike_characters(
    project: Path, file: Path, old: str, new: str, expected: str
) -> None:
    """Each was published, unseen by the checks that read the word it hides in."""
    edit(project / file, old, new)
    at = next(line for line in new.splitlines() if not line.isascii())
    line = line_of(project / file, at)
    assert_fails_with(project, f"{file}:{line}: {expected}")


@pytest.mark.build
def test_a_decomposed_accent_is_one_character(project: Path) -> None:
    """NFC: `e` and a combining acute are read as `é`, the same as the author's other keyboard:
    a word with an accent that no check looks for builds."""
    edit(project / DIVE_01, SECTION, f"A cafe\u0301 is not a queue.\n\n{SECTION}")
    assert core_build(project) is None


# -- syntax inside a code fence is literal; near-miss openers -----------------------------------

FENCED_EXAMPLE = (
    "A question, as an author writes it:\n\n"
    "````markdown\n"
    "## Not a section\n\n"
    "/// check | What is two?\n"
    "kind: number\n"
    "answer: 2\n"
    "///\n\n"
    "/// dive-cards\n"
    "///\n"
    "````\n\n"
    "Text after the example.\n"
)


def test_a_question_inside_a_fence_is_the_author_s_example() -> None:
    """It was parsed and replaced (the code block showed the question's HTML) and counted in
    the progress and on the review page; a `## ` inside it split the page's lede, and a
    generated block inside it was filled in."""
    extensions, options = markdown_extensions()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "modules"
        (root / "01-one").mkdir(parents=True)
        (root / "course.yml").write_text(COURSE_YML, encoding="utf-8")
        (root / "01-one" / "module.md").write_text(
            "---\nid: one\ntitle: One\nsummary: S\nstatus: built\n---\n" + FENCED_EXAMPLE,
            "utf-8",
        )
        course = load_course(root)
        page = course.pages["one"]
        assert page_questions(page) == [] and module_questions(page) == []
        renderer = Renderer(course)
        html = markdown.Markdown(extensions=extensions, extension_configs=options).convert(
            renderer.page_markdown(page)
        )
    soup = BeautifulSoup(html, "html.parser")
    codes = [code.get_text() for code in soup.find_all("code")]
    assert [code for code in codes if "/// check | What is two?\nkind: number" in code], html
    assert "## Not a section\n" in codes[0] and "/// dive-cards\n///" in codes[0], codes
    assert not soup.select(".tk-check, .tk-cards, h2"), html
    lede = soup.select_one(".tk-lede")
    assert lede is not None and "Text after the example." in lede.get_text(), html


@pytest.mark.build
def test_the_checks_read_no_block_inside_a_fence(project: Path) -> None:
    edit(project / DIVE_01, SECTION, f"{FENCED_EXAMPLE}\n{SECTION}")
    assert core_build(project) is None


@pytest.mark.build
@pytest.mark.parametrize(
    ("opener", "expected"),
    [
        ("//// check | What is two?",
         "'//// check | What is two?' is almost a question's opener: a question opens with "
         "exactly '/// check' at the line's start, so this one would print as text, its answer "
         "included, and no check would read it. Fix: Write '/// check | …' with three slashes, "
         'not indented (docs/authoring.md, "The blocks").'),
        ("  /// check | What is two?",
         "'  /// check | What is two?' is almost a question's opener: a question opens with "
         "exactly '/// check' at the line's start, so this one would print as text, its answer "
         "included, and no check would read it. Fix: Write '/// check | …' with three slashes, "
         'not indented (docs/authoring.md, "The blocks").'),
        ("// check | What is two?",
         "'// check | What is two?' is almost a block's opener: with two slashes it would print "
         "as text, and no check would read the block. Fix: Open the block with three slashes: "
         "'/// check' (docs/authoring.md, \"The blocks\")."),
        ("/ takeaway",
         "'/ takeaway' is almost a block's opener: with one slash it would print as text, and no "
         "check would read the block. Fix: Open the block with three slashes: '/// takeaway' "
         '(docs/authoring.md, "The blocks").'),
    ],
    ids=["four slashes", "indented", "two slashes", "one slash"],
)  # fmt: skip
def test_a_near_miss_opener_is_named_at_its_line(project: Path, opener: str, expected: str) -> None:
    """Each rendered its YAML as prose (`right: true` included), and no check read it."""
    block = f"{opener}\nkind: number\nanswer: 2\nwhy: Two.\n///\n\n"
    line = edit(project / DIVE_01, SECTION, f"{block}{SECTION}")
    assert_fails_with(project, f"{DIVE_01}:{line}: {expected}")


@pytest.mark.build
@pytest.mark.parametrize(
    ("page", "block", "opener"),
    [
        (DIVE_01, "worked-example", "//// worked-example"),
        (MODULE, "duties", "    /// duties"),
        (MODULE, "duties", "///duties"),
    ],
    ids=["a slash more", "indented", "no space"],
)
def test_a_generated_block_the_renderer_would_not_find_is_named_at_its_line(
    project: Path, page: str, block: str, opener: str
) -> None:
    """Each passed every check and printed its two lines as text, with no worked example or
    duties under them (scripts/bench_fuzz.py, seed 20: 3 of 2,000 mutations)."""
    line = edit(project / page, f"\n/// {block}\n///\n", f"\n{opener}\n///\n") + 1
    assert_fails_with(
        project,
        f"{page}:{line}: '{opener.strip()}' and the '///' under it would print as text: the "
        f"build fills in '/// {block}' only where it stands at the line's start with three "
        "slashes and one space, and its closing '///' at the start of the next line. "
        f"Fix: Write '/// {block}' and, on the next line, '///', both at the line's start.",
    )


@pytest.mark.build
def test_the_question_reader_and_the_checker_end_a_question_at_the_same_line(
    project: Path,
) -> None:
    """A `  ////` line inside a question is its YAML's, for both: the checker used to end the
    question there (and refuse its closing `///` as closing nothing), the reader at the `///`."""
    edit(
        project / MODULE,
        "why: A due job stays in schedule until a client sends the promote call, and",
        "why: >-\n  ////\n  A due job stays in schedule until a client sends the promote call, and",
    )
    assert core_build(project) is None
    body = "/// check | Q?\nkind: number\nwhy: |\n  ////\nanswer: 2\n///\nAfter.\n"
    [(start, prompt, yaml_body, _)] = questions_blocks(body)
    assert (start, prompt) == (0, "Q?") and yaml_body.endswith("answer: 2")


# -- a written page marked planned -------------------------------------------------------------


@pytest.mark.build
def test_a_written_page_marked_planned(project: Path) -> None:
    """It printed its raw body under "not written yet": its `///` lines, a question's
    `right: true` and its `# seed:` comments."""
    edit(project / MODULE, "status: built", "status: planned")
    text = (project / MODULE).read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1]
    first = next(line for line in body.split("\n") if line.startswith(("///", "```", "#")))
    line = line_of(project / MODULE, "\n" + first) + 1
    assert_fails_with(
        project,
        f"{MODULE}:{line}: this page is marked 'status: planned', which shows readers its "
        "title, its summary and a short note only, and it holds a written lesson here "
        f"('{first.strip()[:40]}'): its lines would print as raw text. Fix: Set 'status: "
        "built' to publish the lesson, or keep it inside the draft comment ('<!-- "
        "trafikist:draft' … 'trafikist:draft -->'), which stays out of the page "
        '(docs/authoring.md, "Statuses").',
    )


@pytest.mark.build
def test_a_planned_page_with_a_note_and_a_draft_builds(project: Path) -> None:
    """A note in prose, and the lesson kept in the scaffold's draft, are what a planned page
    is for."""
    page = project / "modules/05-tra-and-native-values/module.md"
    page.write_text(
        page.read_text(encoding="utf-8")
        + "\nA note on what this module will read.\n\n<!-- trafikist:draft\n## A section\n\n"
        "/// takeaway\nA takeaway.\n///\ntrafikist:draft -->\n",
        encoding="utf-8",
    )
    assert core_build(project) is None


# -- YAML that becomes something else ---------------------------------------------------------

NUMBER_FIX = (
    'Fix: Write it as the reader would, like 3, 2.5 or 3.00 (docs/authoring.md, "Check yourself").'
)
NOT_A_NUMBER = (
    "is not a number the page can read: a reader types ASCII digits, with a point for decimals."
)
SLUG_FIX = "Fix: Write lowercase letters, digits and hyphens, up to 80: id: where-is-a-due-job."
ORDER_ITEM = "  - text: j1 is done\n    step: j1 reaches done\n"


def bad_number(written: str) -> str:
    return re.escape(f"'{written}' {NOT_A_NUMBER} {NUMBER_FIX}")


def retyped(field: str, written: str, kind: str) -> str:
    return re.escape(f"YAML reads '{field}: {written}' as {kind}, not as the text written.")


ANSWER = "answer: 4.0\n"
QUESTION_ID = "id: a-longer-beat\n"
RIGHT = "  - text: Still in schedule.\n    right: true\n"
NOT_A_SLUG = "the question id '{}' is not a slug: the reader's record and the run's address keep "


@pytest.mark.build
@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (ANSWER, "answer: 4.00\n",
         r"the answer 4\.00 of 'a-longer-beat' is not the run's: the model gives 4\.0\d* "
         r"\(4\.0\d at the precision written\)"),
        (ANSWER, 'answer: "0_3.0"\n', bad_number("answer: 0_3.0")),
        (ANSWER, 'answer: "\u0663.\u0660"\n', bad_number("answer: \u0663.\u0660")),
        (ANSWER, "answer: sNaN\n", bad_number("answer: sNaN")),
        (ANSWER, "answer: yes\n", bad_number("answer: yes")),
        ("  - value: 2.5\n", "  - value: 2,5\n", bad_number("mistakes.value: 2,5")),
        (QUESTION_ID, "id: __proto__\n",
         re.escape(NOT_A_SLUG.format("__proto__") + f"answers by it. {SLUG_FIX}")),
        (QUESTION_ID, "id: when a due job moves\n",
         re.escape(NOT_A_SLUG.format("when a due job moves"))),
        (QUESTION_ID, f"id: {'a' * 300}\n", re.escape(NOT_A_SLUG.format("a" * 60))),
        (QUESTION_ID, "id: 012\n",
         retyped("id", "012", "a whole number") + re.escape(' Fix: Quote it: id: "012".')),
        ("  - text: Still in schedule.\n", "  - text: yes\n",
         retyped("options.text", "yes", "true or false")),
        (RIGHT, RIGHT.replace("true", '"true"'),
         re.escape("'options.right: true' is not true or false. ")
         + re.escape("Fix: Write 'options.right: true'.")),
        (RIGHT, "  - Still in schedule.\n" + RIGHT,
         re.escape("this entry of 'options' is 'Still in schedule.', not a mapping of fields: it "
                   "would be left out of the question.")),
        (ORDER_ITEM, ORDER_ITEM + ORDER_ITEM,
         re.escape("the item 'j1 is done' is listed twice (first at line")),
    ],
    ids=["answer 3.00 read as written", "an underscore in a number", "Arabic-Indic digits",
         "a signalling NaN", "yes as an answer", "a decimal comma in a mistake", "id __proto__",
         "an id with spaces", "a 300-character id", "an id YAML reads as octal",
         "yes as an option's text", "right as a string", "an option that is a string",
         "an order item twice"],
)  # fmt: skip
def test_yaml_that_becomes_something_else(project: Path, old: str, new: str, expected: str) -> None:
    """Each built, graded or recorded as something the author did not write (3.00 graded at one
    decimal; 0_3.0 and ٣.٠ answers no reader could match; __proto__ lost on reload; an option
    left out of the question; an item with two right places)."""
    edit(project / MODULE, old, new)
    changed = [line for line in new.splitlines() if line not in old.splitlines()]
    at = changed[0] if changed else new.splitlines()[0]
    text = (project / MODULE).read_text(encoding="utf-8")
    line = text[: text.rindex(at) if old == ORDER_ITEM else text.index(at)].count("\n") + 1
    message = core_build(project)
    assert message is not None and ONE_LINE.match(message), message
    assert message.startswith(f"{MODULE}:{line}: "), message
    assert re.search(expected, message), message


# -- transcripts the runner cannot replay -----------------------------------------------------

WAKE = Path("modules/04-blocking-timers-and-the-bus/transcripts/02-a-wake-carries-no-work.txt")


@pytest.mark.build
@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("B> RPUSH pending job:1\n", "B> GET pending &\n",
         "'GET pending' is sent with ' &', but GET never blocks (its flags in commands.json have "
         "no 'blocking'): the runner would wait for a blocked client that never comes. Fix: Drop "
         "the ' &', or send a command that blocks (BLPOP, XREAD … BLOCK)."),
        ("B> RPUSH pending job:1\n", "B<\n",
         "'B<' reads a reply that no command of client B awaits (none was sent with ' &'): the "
         "runner would wait for it forever. Fix: Send a blocking command on client B with ' &' "
         "first, or delete this line."),
        ("B> RPUSH pending job:1\n", "A> RPUSH pending job:1\n",
         "'RPUSH pending job:1' is sent on client A while its 'BLPOP wake 5' awaits its reply: "
         "the runner would read that reply as this command's. Fix: Read the blocked reply first "
         "('A<'), or send this command from another client ('B> …')."),
        ("B> RPUSH pending job:1\n", "B> RPUSHX2 pending job:1\n",
         "'RPUSHX2' is not a command of Valkey 9.1.2 (commands.json, the pinned command table): "
         "the runner's server would refuse it. Fix: Use a command of the pinned table, spelled "
         "as Valkey spells it."),
    ],
    ids=["a & that never blocks", "a reply no command awaits", "a command on a blocked client",
         "a command the pinned table does not have"],
)  # fmt: skip
def test_a_transcript_the_runner_cannot_replay(
    project: Path, old: str, new: str, expected: str
) -> None:
    """Each built, and the test that replays transcripts on Valkey hung (or failed later)."""
    line = edit(project / WAKE, old, new)
    assert_fails_with(project, f"{WAKE}:{line}: {expected}")
