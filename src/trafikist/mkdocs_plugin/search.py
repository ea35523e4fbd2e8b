"""What mkdocs-material's search plugin indexes of a page: its content without the runs' trace
tables.

A trace table lists every command of a run, one row each. The page a reader gets leaves out the
end tags of its cells and rows (trafikist.core.theme.light_traces: a long trace stays light);
with them left out, the search plugin's HTML parser kept every unclosed cell on its stack and
checked that whole stack for each piece of text, so a trace of n rows cost n² (module 04's
page: 2.9 s of a build on a busy machine; a run of 200 s, 1,000 rows: 37 s; of 3600 s, hours).
The search reads the page before that step, with whole cells, and a trace carries
data-search-exclude; still, a trace is the run's data, not prose a reader searches for, so the
index gets the page without it, in time linear in the page, and the page itself keeps it.
Zensical's search, in Rust, honours data-search-exclude (on whole cells).
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

# trafikist.model_view.draw.render_trace_html writes each trace as one such table.
TRACE_TABLE = re.compile(r'<table class="tk-trace__table">.*?</table>', re.S)


def without_traces(html: str) -> str:
    return TRACE_TABLE.sub("", html) if "tk-trace__table" in html else html


def index_without_traces(config: MkDocsConfig) -> None:
    """Have this build's search index read each page without its trace tables. The search
    plugin makes a new index for each build (in its on_config), so this runs in on_env."""
    search = config.plugins.get("material/search") or config.plugins.get("search")
    index = getattr(search, "search_index", None)
    real = getattr(index, "add_entry_from_context", None)
    if index is None or real is None or getattr(real, "without_traces", False):
        return

    def add_entry_from_context(page: Page) -> None:
        content = page.content
        page.content = without_traces(content) if content is not None else None
        try:
            real(page)
        finally:
            page.content = content

    add_entry_from_context.without_traces = True  # type: ignore[attr-defined]  # a mark
    index.add_entry_from_context = add_entry_from_context
