"""The finishing touches every page of the theme gets, whichever engine rendered it.

mkdocs-material (under MkDocs) and Zensical's port of it (under Zensical) write nearly the same
markup. This adds the site's Content-Security-Policy and fixes what the reader-facing gates
(tests/gates) found invalid or inaccessible in that markup. Nothing of the theme is copied:
each fix edits the theme's own output, and only where the markup it fixes is there, so a theme
that already has it right is left alone. If a theme upgrade changes the markup, a fix stops
matching and the gates say so.

The theme's inline scripts are not here: the template overrides in overrides/partials/ load
them from files, which the policy allows (both engines read those overrides).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

# Only the site's own origin. A page that carries the duty widget also allows
# 'wasm-unsafe-eval': Pyodide compiles its WebAssembly there.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'{wasm}; worker-src 'self'; connect-src 'self'; "
    "style-src 'self'{styles}; img-src 'self' data:; font-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'"
)
WASM = " 'wasm-unsafe-eval'"
WIDGET = re.compile(r'<section class="tk-duties[\s"]')
CHARSET = '<meta charset="utf-8">'
SEARCH_DIALOG = 'data-md-component="search" role="dialog"'
NAV_TITLE = re.compile(r'<label class="md-nav__title" for="__nav_(?P<id>[^"]+)"')
OVERLAY = '<label class="md-overlay" for="__drawer" aria-hidden="true">'
PALETTE_FORM = re.compile(
    r'<form class="md-header__option" data-md-component="palette">(?P<inside>.*?)</form>', re.S
)
# Zensical's search dialog lives in a shadow root that its script gives a <style> element, whose
# text is a string constant of the theme's bundle: `…attachShadow({mode:"open"});
# o.appendChild(C("style",{},Tc.toString()))…var Tc='…'` (bundle.77dd0ce9.min.js, 0.0.73).
SHADOW_STYLE = re.compile(
    r'attachShadow\(\{mode:"(?:open|closed)"\}\);[\w$]+\.appendChild\([\w$]+\("style",\{\},'
    r"(?P<name>[\w$]+)\.toString\(\)\)\)"
)


# A run's trace (trafikist.model_view.draw) is written with whole cells and rows, so each
# engine's search sees where it ends when it leaves it out of the index (Zensical's exclusion
# otherwise runs on to the page's end, and mkdocs-material's parser keeps every open cell on
# its stack: seconds a page). The page the reader gets drops those end tags, which HTML allows:
# a long trace stays light.
TRACE_TABLE = re.compile(r'<table class="tk-trace__table">.*?</table>', re.S)
OPTIONAL_END_TAG = re.compile(r"</t[dhr]>")


def finish_page(html: str, style_hashes: tuple[str, ...] = (), search_label: str = "Search") -> str:
    """One page of the theme, with the policy and the fixes. `style_hashes`: the policy's hash
    sources for the styles the theme's script injects (`injected_style_hashes`)."""
    html = _add_policy(html, style_hashes)
    html = _drop_lone_palette(_fix_overlay(_fix_nav(_name_search(html, search_label))))
    return light_traces(html)


def light_traces(html: str) -> str:
    """The page's trace tables without the end tags of their cells and rows."""
    if "tk-trace__table" not in html:
        return html
    return TRACE_TABLE.sub(lambda table: OPTIONAL_END_TAG.sub("", table[0]), html)


def _add_policy(html: str, style_hashes: tuple[str, ...]) -> str:
    """A static site can only deliver its policy in a <meta>, placed right after the charset and
    before every stylesheet and script (a policy covers only what follows it)."""
    if 'http-equiv="Content-Security-Policy"' in html:
        return html
    policy = CONTENT_SECURITY_POLICY.format(
        wasm=WASM if WIDGET.search(html) else "",
        styles="".join(f" '{source}'" for source in style_hashes),
    )
    meta = f'\n    <meta http-equiv="Content-Security-Policy" content="{policy}">'
    return html.replace(CHARSET, CHARSET + meta, 1)


def injected_style_hashes(site_dir: Path) -> tuple[str, ...]:
    """The hash source ('sha256-…') of each style the theme's bundle injects as a <style>
    element: the policy allows exactly those texts, and no other inline style. mkdocs-material
    injects none; Zensical's search dialog injects one."""
    sources = []
    for bundle in sorted((site_dir / "assets" / "javascripts").glob("bundle.*.js")):
        code = bundle.read_text(encoding="utf-8")
        for match in SHADOW_STYLE.finditer(code):
            text = _string_constant(code, match["name"])
            if text is not None:
                digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest())
                sources.append(f"sha256-{digest.decode()}")
    return tuple(dict.fromkeys(sources))


def _string_constant(code: str, name: str) -> str | None:
    """The value of `var NAME='…'` (or "…") in minified JavaScript, or None."""
    match = re.search(rf"""\b(?:var|let|const)\s+{re.escape(name)}\s*=\s*(['"])""", code)
    if match is None:
        return None
    quote, index = match[1], match.end()
    as_json = []  # the same string written as a JSON string, whose escapes are JavaScript's
    while index < len(code) and code[index] != quote:
        char = code[index]
        if char == "\\":
            escaped = code[index + 1 : index + 2]
            if escaped == "x":
                as_json.append("\\u00" + code[index + 2 : index + 4])
                index += 4
                continue
            as_json.append(escaped if escaped in "'" else "\\" + escaped)
            index += 2
            continue
        as_json.append('\\"' if char == '"' else char)
        index += 1
    try:
        return str(json.loads('"' + "".join(as_json) + '"'))
    except ValueError:
        return None


def _name_search(html: str, label: str) -> str:
    """mkdocs-material's search overlay is a role="dialog" with no name (axe:
    aria-dialog-name); Zensical's already has one."""
    start = html.find(SEARCH_DIALOG)
    if start < 0 or "aria-label=" in html[start : html.find(">", start)]:
        return html
    return html.replace(SEARCH_DIALOG, f'{SEARCH_DIALOG} aria-label="{label}"', 1)


def _fix_nav(html: str) -> str:
    """The navigation sidebars.

    1. Section labels carry tabindex="", which is not an integer (vnu). Dropped: an empty
       tabindex makes nothing focusable.
    2. A nested <nav> is named by its toggle label, which holds only an icon when the section
       has an index page, so two navs end up with the same empty name (axe: landmark-unique).
       Each nested nav's visible title gets an id, and the nav is named by that title.
    3. The table of contents' title is a label for the "__toc" toggle, which the theme leaves
       out on section index pages (vnu: label for a missing control). The dangling for= goes.
    """
    html = html.replace(' tabindex=""', "")
    html = NAV_TITLE.sub(
        lambda match: (
            f'<label class="md-nav__title" id="__nav_{match["id"]}_title" for="__nav_{match["id"]}"'
        ),
        html,
    )
    html = html.replace('_label" aria-expanded=', '_title" aria-expanded=')
    if 'id="__toc"' not in html:
        html = html.replace(' for="__toc"', "")
    return html


def _drop_lone_palette(html: str) -> str:
    """With one colour scheme there is nothing to choose: mkdocs-material then writes no palette
    form, but Zensical (which makes the palette a list) writes one with a single radio, hidden
    from assistive technology and still focusable (Lighthouse: aria-hidden-focus). That form
    goes; a palette of two or more schemes, with its toggles, stays."""

    def drop(match: re.Match[str]) -> str:
        inside = match["inside"]
        lone = inside.count('name="__palette"') == 1 and "<label" not in inside
        return "" if lone else match[0]

    return PALETTE_FORM.sub(drop, html, count=1)


def _fix_overlay(html: str) -> str:
    """Zensical hides the drawer's overlay label with aria-hidden, which a label of a control
    may not carry (vnu); the overlay is a click target with no text, as in mkdocs-material."""
    return html.replace(OVERLAY, '<label class="md-overlay" for="__drawer">', 1)
