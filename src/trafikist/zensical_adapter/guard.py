"""The build guard inside Zensical's rendering: which page's Markdown failed, and with what.

Zensical renders each page's Markdown with Python-Markdown, called from its Rust core, and
reports a failure as one RuntimeError whose text is the Python traceback, with no page named.
This extension (the adapter lists it in the work folder's configuration) wraps each page's
`convert`: a failure is kept, with the page's path in the docs folder Zensical reads, before it
goes on to Zensical, so the adapter can name the author's file and say what was raised, in one
line (trafikist.zensical_adapter.build), and raise a CourseError of the course's own as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markdown import Extension, Markdown

NAME = "trafikist.zensical_adapter.guard"


@dataclass(frozen=True)
class PageFailure:
    src_uri: str  # the page's path in the docs folder Zensical builds ("" when unknown)
    error: BaseException


# This build's failures, in the order they were raised (pages may render on several threads).
FAILURES: list[PageFailure] = []


class PageGuardExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        convert = md.convert

        def guarded(source: str) -> str:
            try:
                return convert(source)
            except Exception as error:
                FAILURES.append(PageFailure(_page_path(md), error))
                raise

        md.convert = guarded  # type: ignore[method-assign]  # this instance's, wrapped


def _page_path(md: Markdown) -> str:
    """The page Zensical renders, from the context its own extension registers (a
    preprocessor with a `page` that has a `path`)."""
    for processor in md.preprocessors:
        path = getattr(getattr(processor, "page", None), "path", None)
        if isinstance(path, str):
            return path
    return ""


def makeExtension(**kwargs: Any) -> PageGuardExtension:
    return PageGuardExtension(**kwargs)
