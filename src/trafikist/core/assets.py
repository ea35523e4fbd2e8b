"""The site's own files besides its pages: everything in widgets/, the duty widget's parts, and
one bundled stylesheet.

An engine adapter adds these to its build (MkDocs as generated files, Zensical by writing them
into the built site); which files, their addresses and their bytes are decided here. The
scripts and styles of widgets/ are served as esbuild bundles and minifies them
(trafikist.core.bundle): module 04's page has a weight budget (at most 1.15 times the same page
as plain mkdocs-material), and the sources stay readable in widgets/.
"""

from __future__ import annotations

from pathlib import Path

from trafikist.core.bundle import STYLE_SUFFIXES, bundle_widgets
from trafikist.core.files import SiteFile

# What of widgets/ the site serves (sources such as README files stay out).
WIDGET_SUFFIXES = {".css", ".js", ".mjs", ".svg", ".woff2", ".json", ".whl"}
STYLESHEET = "trafikist.css"
# Styles a script loads when it needs them, served on their own and not in the stylesheet:
# "How we know"'s marks and popover come with the page's evidence (module 04's page has a
# weight budget).
STYLES_LOADED_LATER = frozenset({"evidence/shown.css"})


def stylesheet_uri(assets_path: str) -> str:
    """One stylesheet for all of widgets/: one render-blocking request instead of several."""
    return f"{assets_path}/{STYLESHEET}"


def widget_assets(
    widgets_dir: Path, assets_path: str, widget_files: list[SiteFile], node_modules: Path
) -> list[SiteFile]:
    """Every file the site serves besides its pages: widgets/ (its scripts bundled and its
    styles minified by esbuild, `node_modules` holding it; a file bundled into a module is not
    served on its own), the duty widget's own parts (`widget_files`), and the stylesheet.
    Raises CourseError with the fix when esbuild is missing or refuses a source."""
    bundle = bundle_widgets(widgets_dir, node_modules)
    files = []
    for path in sorted(widgets_dir.rglob("*")):
        name = path.relative_to(widgets_dir).as_posix()
        if not path.is_file() or path.suffix not in WIDGET_SUFFIXES or name in bundle.bundled:
            continue
        uri = f"{assets_path}/{name}"
        made = bundle.files.get(name)
        files.append(SiteFile(uri, source=path) if made is None else SiteFile(uri, content=made))
    files += widget_files
    # widgets/**/*.css in path order, each minified on its own.
    names = sorted(bundle.files, key=lambda name: name.split("/"))  # as Paths sort
    styles = [
        bundle.files[name]
        for name in names
        if name.endswith(STYLE_SUFFIXES) and name not in STYLES_LOADED_LATER
    ]
    files.append(SiteFile(stylesheet_uri(assets_path), content=b"".join(styles)))
    return files
