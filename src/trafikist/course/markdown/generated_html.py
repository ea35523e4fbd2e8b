"""The renderer's own HTML (a question, a header, a How we know list) goes to the page as it is.

Python-Markdown finds where a raw HTML block ends by reading it tag by tag (md_in_html's HTML
parser), about half of a How we know page's render and a fifth of module 04's. The renderer
knows where its HTML starts and ends, so it says so: between a `GENERATED_OPEN` line and a
`GENERATED_CLOSE` line, the HTML is stashed whole, before that parser runs, and the page gets
the same bytes the parser would have passed through. The two lines are HTML comments, so an
engine without this extension passes the HTML on as before. Only the renderer writes them:
an author's page that holds one is refused (trafikist.checks.markup).
"""

from __future__ import annotations

import re

from markdown import Markdown
from markdown.preprocessors import Preprocessor

GENERATED_OPEN = "<!-- trafikist:generated -->"
GENERATED_CLOSE = "<!-- /trafikist:generated -->"
# Either mark, however spaced: what an author's text may not hold.
MARK = re.compile(r"<!--\s*/?\s*trafikist:generated\s*-->")


def generated_html(html: str) -> str:
    """`html`, a run of whole block-level elements, marked as the renderer's own ("" stays "")."""
    if not html.strip():
        return html
    return f"{GENERATED_OPEN}\n{html.strip(chr(10))}\n{GENERATED_CLOSE}"


class GeneratedHtmlPreprocessor(Preprocessor):
    """Stashes each marked run of the renderer's HTML, as the HTML block parser would."""

    def run(self, lines: list[str]) -> list[str]:
        if GENERATED_OPEN not in lines:
            return lines
        found: list[str] = []
        index = 0
        while True:
            try:
                opened = lines.index(GENERATED_OPEN, index)
                closed = lines.index(GENERATED_CLOSE, opened + 1)
            except ValueError:
                break  # the rest is the HTML block parser's to read
            # With the line's end, as the HTML block parser stashes a block.
            stashed = self.md.htmlStash.store("\n".join(lines[opened + 1 : closed]) + "\n")
            found += [*lines[index:opened], "", stashed, ""]
            index = closed + 1
        return found + lines[index:]


def register(md: Markdown) -> None:
    """After fenced code is stashed (25) and source comments dropped (22), before the HTML
    block parser (20)."""
    md.preprocessors.register(GeneratedHtmlPreprocessor(md), "trafikist-generated-html", 21)
