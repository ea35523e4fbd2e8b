"""The site's own files besides its pages: everything in widgets/, the duty widget's parts, and
one bundled stylesheet.

An engine adapter adds these to its build (MkDocs as generated files, Zensical by writing them
into the built site); which files, their addresses and their bytes are decided here.
"""

from __future__ import annotations

from pathlib import Path

from trafikist.build.files import SiteFile
from trafikist.minify import minify_css, minify_js

# What of widgets/ the site serves (sources such as README files stay out).
WIDGET_SUFFIXES = {".css", ".js", ".mjs", ".svg", ".woff2", ".json", ".whl"}
STYLESHEET = "trafikist.css"
# Scripts of widgets/ that every page loads, served lighter (the page's weight budget): the
# offline worker's registration. The duty widget's own come with its parts.
EVERY_PAGE_SCRIPTS = ("offline/register.js",)


def stylesheet_uri(assets_path: str) -> str:
    """One stylesheet for all of widgets/: one render-blocking request instead of several."""
    return f"{assets_path}/{STYLESHEET}"


def widget_assets(
    widgets_dir: Path, assets_path: str, widget_files: list[SiteFile]
) -> list[SiteFile]:
    """Every file the site serves besides its pages: widgets/ as it is, except where the duty
    widget serves a lighter copy (`widget_files`, which come with the widget's own parts), and
    the bundled stylesheet."""
    provided = {site_file.uri for site_file in widget_files}
    files = [
        _lighter(uri, path) if name in EVERY_PAGE_SCRIPTS else SiteFile(uri, source=path)
        for path in sorted(widgets_dir.rglob("*"))
        if path.is_file() and path.suffix in WIDGET_SUFFIXES
        if (name := path.relative_to(widgets_dir).as_posix())
        if (uri := f"{assets_path}/{name}") not in provided
    ]
    files += widget_files
    files.append(
        SiteFile(stylesheet_uri(assets_path), content=_stylesheet(widgets_dir, assets_path, files))
    )
    return files


def _lighter(uri: str, path: Path) -> SiteFile:
    return SiteFile(uri, content=minify_js(path.read_text(encoding="utf-8")).encode("utf-8"))


def _stylesheet(widgets_dir: Path, assets_path: str, files: list[SiteFile]) -> bytes:
    """widgets/**/*.css in path order, each as the site serves it (lightened or as is)."""
    served = {site_file.uri: site_file for site_file in files}
    parts = []
    for path in sorted(widgets_dir.rglob("*.css")):
        site_file = served[f"{assets_path}/{path.relative_to(widgets_dir).as_posix()}"]
        content = site_file.content if site_file.content is not None else path.read_bytes()
        parts.append(minify_css(content.decode("utf-8")))
    return "\n".join(parts).encode("utf-8")
