"""Make the page-load files of widgets/ lighter: comments and indentation out, nothing else.

Module 04's page has a weight budget (at most 1.15 times the same page as plain
mkdocs-material), and duty.js and duty.css load with it. The sources stay readable in
widgets/duty/; the site gets them without comments and indentation. This is deliberately not a
general minifier: it only removes whole comment lines and leading whitespace in JavaScript (the
widget's code keeps its comments on lines of their own, and has no multi-line strings), and
comments and the whitespace around punctuation in CSS.
"""

from __future__ import annotations

import re

CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
CSS_SPACE = re.compile(r"\s*([{};,>])\s*")


def minify_js(source: str) -> str:
    lines = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("//"):
            lines.append(stripped)
    return "\n".join(lines) + "\n"


def minify_css(source: str) -> str:
    text = CSS_COMMENT.sub("", source)
    text = re.sub(r"\s+", " ", text)
    text = CSS_SPACE.sub(r"\1", text)
    # "a: b" -> "a:b" inside declarations only (a selector's ":" is never followed by a space).
    text = re.sub(r":\s+", ":", text)
    return text.replace(";}", "}").strip() + "\n"
