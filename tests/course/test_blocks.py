"""The prose blocks as plain Python-Markdown extensions: Markdown in, HTML out, no MkDocs."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import markdown
import pytest

from trafikist.course.markdown.generated_html import GENERATED_OPEN, generated_html

EXTENSIONS = [
    "attr_list",
    "md_in_html",
    "toc",
    "pymdownx.superfences",
    "pymdownx.highlight",
    "trafikist.course.markdown.blocks",
    "trafikist.course.markdown.sections",
]


def render(source: str) -> str:
    return markdown.markdown(textwrap.dedent(source).strip(), extensions=EXTENSIONS)


def test_takeaway() -> None:
    html = render(
        """
        /// takeaway
        A module command runs when a client sends it and ends with its reply.
        ///
        """
    )
    assert html == (
        '<div class="tk-takeaway" role="note">\n'
        '<p class="tk-takeaway__label">Takeaway</p>\n'
        "<p>A module command runs when a client sends it and ends with its reply.</p>\n"
        "</div>"
    )


def test_forward_with_default_and_custom_label() -> None:
    default = render("/// forward\nThe sweep will move.\n///")
    assert default.startswith('<aside class="tk-forward">\n<p class="tk-forward__label">')
    assert "Where the specifications take it</p>" in default
    assert "<p>The sweep will move.</p>" in default
    custom = render("/// forward | Where waiting goes\nIt will park.\n///")
    assert '<p class="tk-forward__label">Where waiting goes</p>' in custom


def test_excerpt_keeps_caption_then_highlighted_code() -> None:
    html = render(
        """
        /// excerpt | trafikey — registry::TABLE, one row
            quotes: registry

        ```rust
        emq_promote => crate::emq::scheduling::promote, Row { arity: 6 };
        // …
        ```
        ///
        """
    )
    assert html.startswith(
        '<figure class="tk-excerpt" data-quotes="registry">\n'
        '<figcaption class="tk-excerpt__caption">trafikey — registry::TABLE, one row</figcaption>'
    )
    assert html.index("figcaption") < html.index('<div class="highlight">')
    assert '<span class="c1">// …</span>' in html


def test_excerpt_rejects_an_unknown_quotes_value() -> None:
    html = render("/// excerpt | caption\n    quotes: elsewhere\n\n```text\nx\n```\n///")
    assert "tk-excerpt" not in html  # an invalid block is left as text, visibly


def test_pattern_splits_sides_at_level_4_headings() -> None:
    html = render(
        """
        /// pattern | Pattern & implementation
        #### the pattern

        Park, don't poll.

        #### the implementation

        Elixir processes park.
        ///
        """
    )
    assert html.count('<div class="tk-pattern__side">') == 2
    assert '<p class="tk-pattern__label">the pattern</p>\n<p>Park, don' in html
    assert "<h4" not in html


def test_sections_wrap_each_level_2_heading() -> None:
    html = render(
        """
        Lede.

        ## One

        First.

        ## Two

        Second.
        """
    )
    assert html.startswith("<p>Lede.</p>\n<section")
    assert html.count('<section aria-labelledby="one" class="tk-section">') == 1
    assert '<section aria-labelledby="two" class="tk-section"><h2 id="two">Two</h2>' in html
    assert html.index("First.") < html.index('aria-labelledby="two"')


@pytest.mark.parametrize(
    "package",
    [
        "trafikist.course.render",
        "trafikist.core.site",
        "trafikist.course.markdown.blocks",
        "trafikist.core.offline",
        "trafikist.core.session",
        "trafikist.zensical_adapter.finish",
        "trafikist.core.preview",
    ],
)
def test_the_core_imports_no_engine(package: str) -> None:
    """Both engines sit on one core: it runs with neither MkDocs nor Zensical loaded."""
    code = f"import sys, {package}; print('mkdocs' in sys.modules, 'zensical' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False False"


# -- the renderer's own HTML (trafikist.course.markdown.generated_html) ----------------------

GENERATED_RUNS = [
    '<header class="tk-header">\n<p class="tk-kicker">Module 04</p>\n'
    '<h1 class="tk-title" id="m">Blocking &amp; timers</h1>\n</header>',
    '<ol class="tk-how__list"><li><a href="#x">one</a> *not emphasis*</li><li>two</li></ol>',
    '<nav class="tk-sections">\n<ol>\n<li><a href="#a">A</a></li>\n</ol>\n</nav>\n'
    '<div class="tk-check" data-kind="choice"><p>Which?</p></div>',
]


@pytest.mark.parametrize("html", GENERATED_RUNS)
def test_the_renderers_html_reaches_the_page_as_the_html_parser_would_pass_it(html: str) -> None:
    """Marked, the HTML skips the engine's HTML block parser, and the page is the same."""
    before, after = "Some *prose* first.", "## Then a section\n\nAnd more."
    plain = render(f"{before}\n\n{html}\n\n{after}")
    marked = render(f"{before}\n\n{generated_html(html)}\n\n{after}")
    assert marked == plain
    assert "trafikist:generated" not in marked


def test_an_unclosed_mark_leaves_the_html_to_the_parser() -> None:
    html = '<div class="tk-x"><p>kept</p></div>'
    assert render(f"{GENERATED_OPEN}\n{html}") == f"{GENERATED_OPEN}\n{html}"


def test_a_mark_inside_a_fence_is_code() -> None:
    shown = generated_html("<b>x</b>")
    html = render(f"```text\n{shown}\n```")
    assert "&lt;!-- trafikist:generated --&gt;" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
