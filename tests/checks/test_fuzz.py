"""Generated input for the course loader and the Markdown extensions: whatever an author types,
the result is a course, a page, or one clear CourseError; never another exception."""

from __future__ import annotations

import tempfile
from pathlib import Path

import markdown
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import markdown_extensions
from trafikist.base.errors import CourseError
from trafikist.checks.links import check_id_links
from trafikist.course.loader import load_course
from trafikist.course.render import Renderer
from trafikist.course.sources import load_yaml, read_front_matter

# Generated cases (150 each), some loading a course: the full suite's.
pytestmark = pytest.mark.slow

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Pieces an author's Markdown is made of, including broken ones: blocks opened and not closed,
# options in the wrong place, claims and verbs, fences, headings with attributes, id links.
MARKDOWN_PIECES = [
    "/// takeaway\n",
    "/// forward\n",
    "/// forward | Later\n",
    "/// excerpt | trafikey — registry::TABLE, one row\n",
    "    quotes: registry\n",
    "    quotes: nowhere\n",
    "    source: x\n",
    "/// pattern | Pattern & implementation\n",
    "/// duties\n",
    "/// dive-cards\n",
    "/// up-next\n",
    "/// nosuchblock\n",
    "///\n",
    "#### the pattern\n",
    '## A section { data-toc-label="Short" }\n',
    "## Another { #explicit }\n",
    "## Broken { \n",
    "```rust\n",
    "```\n",
    "    indented code\n",
    "[a sentence]{claim: EMQ.PROMOTE.arity = 6}",
    "[broken claim]{claim: }",
    "[nested [claim]{claim: EMQ.X = 1}]{claim: EMQ.Y.arity = 2}",
    "EMQ.PROMOTE",
    "EMQ.NOPE",
    "`EMQ.PROMOTE`",
    "[a link](id:home)",
    "[a link](id:)",
    "[a link](id:no-such-page#frag)",
    '<div markdown="1">\n',
    "</div>\n",
    "<!-- trafikist:draft\n",
    "trafikist:draft -->\n",
    "{ .tk-reading-order }\n",
    "\\",
    "\n",
    "\n\n",
    "- item\n",
    "> quote\n",
]
markdown_text = st.lists(
    st.one_of(st.sampled_from(MARKDOWN_PIECES), st.text(max_size=20)), max_size=30
).map("".join)

YAML_PIECES = [
    "id: x\n", "title: T\n", "- a\n", "  b: c\n", "key: [1, 2\n", "'\n", ": :\n", "&a x\n",
    "*a\n", "!!python/object:os.system x\n", "---\n", "\t\n", "{{}}\n", "summary: >-\n  folded\n",
    "status: built\n", "duties:\n", "  - id: d\n",
]  # fmt: skip
yaml_text = st.lists(
    st.one_of(
        st.sampled_from(YAML_PIECES),
        st.text(max_size=15),
    ),
    max_size=20,
).map("".join)


EXTENSIONS, EXTENSION_OPTIONS = markdown_extensions()  # as mkdocs.yml gives every page


@SETTINGS
@given(text=yaml_text)
def test_yaml_gives_data_or_a_course_error(text: str) -> None:
    try:
        load_yaml(text, Path("modules/x.yml"))
    except CourseError as error:
        assert str(error).startswith("modules/x.yml")
        assert " Fix: " in str(error)


@SETTINGS
@given(text=st.one_of(yaml_text, markdown_text).map(lambda body: "---\n" + body))
def test_front_matter_gives_a_document_or_a_course_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "page.md"
        path.write_text(text, encoding="utf-8")
        try:
            read_front_matter(path)
        except CourseError as error:
            assert " Fix: " in str(error)


COURSE_YML = """title: T
summary: S
books:
  - id: trafikist
    title: Trafikist
    summary: The modules.
    numbered: true
"""

field_value = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["built", "planned", "x-y", '"quoted"', "[a, b]", "{a: 1}", "''", "|"]),
)


@st.composite
def front_matter(draw: st.DrawFn, page_id: str) -> str:
    fields = {
        "id": draw(st.one_of(st.just(page_id), field_value)),
        "title": draw(field_value),
        "summary": draw(field_value),
        "status": draw(st.one_of(st.sampled_from(["built", "planned"]), field_value)),
    }
    keep = draw(st.lists(st.sampled_from(sorted(fields)), unique=True, min_size=2))
    return "---\n" + "".join(f"{key}: {fields[key]}\n" for key in sorted(keep)) + "---\n"


@SETTINGS
@given(data=st.data())
def test_course_loader_gives_a_course_or_a_course_error(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "modules"
        (root / "01-one" / "dives").mkdir(parents=True)
        (root / "course.yml").write_text(COURSE_YML, encoding="utf-8")
        module = data.draw(front_matter("one")) + data.draw(markdown_text)
        (root / "01-one" / "module.md").write_text(module, encoding="utf-8")
        for number in data.draw(st.lists(st.integers(1, 4), max_size=3)):
            dive = data.draw(front_matter(f"dive-{number}")) + data.draw(markdown_text)
            name = data.draw(st.sampled_from([f"{number:02d}-dive", f"{number}-dive", "dive"]))
            (root / "01-one" / "dives" / f"{name}.md").write_text(dive, encoding="utf-8")
        if data.draw(st.booleans()):
            (root / "01-one" / "duties.yml").write_text(data.draw(yaml_text), encoding="utf-8")
        try:
            course = load_course(root)
            problems = check_id_links(course)
            if problems:
                raise CourseError(problems)
        except CourseError as error:
            assert " Fix: " in str(error)
            return
        renderer = Renderer(course)
        for page in course.pages.values():
            renderer.page_markdown(page)


@SETTINGS
@given(text=markdown_text)
def test_markdown_extensions_never_crash(text: str) -> None:
    md = markdown.Markdown(
        extensions=[*EXTENSIONS, "trafikist.course.markdown.registry_inline"],
        extension_configs=EXTENSION_OPTIONS,
    )
    md.convert(text)


@SETTINGS
@given(body=markdown_text)
def test_renderer_takes_any_body(body: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "modules"
        (root / "01-one").mkdir(parents=True)
        (root / "course.yml").write_text(COURSE_YML, encoding="utf-8")
        (root / "01-one" / "module.md").write_text(
            "---\nid: one\ntitle: One\nsummary: S\nstatus: built\n---\n" + body, encoding="utf-8"
        )
        try:
            course = load_course(root)
        except CourseError as error:  # a character no source may hold, named at its line
            assert " Fix: " in str(error)
            return
        page = Renderer(course).page_markdown(course.pages["one"])
        markdown.Markdown(extensions=EXTENSIONS, extension_configs=EXTENSION_OPTIONS).convert(page)


@SETTINGS
@given(body=markdown_text)
def test_registry_checks_take_any_body(body: str) -> None:
    """Excerpts, claims and verbs in any body: checked, or refused with one clear message."""
    from support import ROOT
    from trafikist.core.site import load_site

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "modules"
        (root / "01-one").mkdir(parents=True)
        (root / "course.yml").write_text(COURSE_YML, encoding="utf-8")
        (root / "01-one" / "module.md").write_text(
            "---\nid: one\ntitle: One\nsummary: S\nstatus: built\n---\n" + body, encoding="utf-8"
        )
        try:
            site = load_site(root, base_dir=ROOT)
        except CourseError as error:
            assert all(" Fix: " in str(problem) for problem in error.problems)
            return
        for page in site.pages():
            site.renderer.page_markdown(page)
