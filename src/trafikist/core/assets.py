"""The site's own files besides its pages: everything in widgets/, the duty widget's parts, and
one bundled stylesheet.

An engine adapter adds these to its build (MkDocs as generated files, Zensical by writing them
into the built site); which files, their addresses and their bytes are decided here.
"""

from __future__ import annotations

from pathlib import Path

from trafikist.core.files import SiteFile
from trafikist.core.minify import minify_css, minify_js

# What of widgets/ the site serves (sources such as README files stay out).
WIDGET_SUFFIXES = {".css", ".js", ".mjs", ".svg", ".woff2", ".json", ".whl"}
STYLESHEET = "trafikist.css"
# Files of widgets/ that load with the page, served lighter (module 04's weight budget,
# trafikist.core.minify): the duty widget's, and the offline worker's registration.
PAGE_LOAD_FILES = {
    "duty/duty.js": minify_js,
    "duty/duty.css": minify_css,
    "duty/widget.mjs": minify_js,
    "offline/register.js": minify_js,
}


def stylesheet_uri(assets_path: str) -> str:
    """One stylesheet for all of widgets/: one render-blocking request instead of several."""
    return f"{assets_path}/{STYLESHEET}"


def widget_assets(
    widgets_dir: Path, assets_path: str, widget_files: list[SiteFile]
) -> list[SiteFile]:
    """Every file the site serves besides its pages: widgets/, its page-load files lighter, the
    duty widget's own parts (`widget_files`), and the bundled stylesheet."""
    files = [
        _served(path.relative_to(widgets_dir).as_posix(), path, assets_path)
        for path in sorted(widgets_dir.rglob("*"))
        if path.is_file() and path.suffix in WIDGET_SUFFIXES
    ]
    files += widget_files
    files.append(SiteFile(stylesheet_uri(assets_path), content=_stylesheet(widgets_dir)))
    return files


def _served(name: str, path: Path, assets_path: str) -> SiteFile:
    uri = f"{assets_path}/{name}"
    minify = PAGE_LOAD_FILES.get(name)
    if minify is None:
        return SiteFile(uri, source=path)
    return SiteFile(uri, content=minify(path.read_text(encoding="utf-8")).encode("utf-8"))


def _stylesheet(widgets_dir: Path) -> bytes:
    """widgets/**/*.css in path order, each lightened."""
    parts = [
        minify_css(path.read_text(encoding="utf-8")) for path in sorted(widgets_dir.rglob("*.css"))
    ]
    return "\n".join(parts).encode("utf-8")
