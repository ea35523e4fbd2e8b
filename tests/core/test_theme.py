"""The policy and the theme's fixes that every page gets, whichever engine wrote it
(trafikist.core.theme), on the markup mkdocs-material and Zensical each write."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from support.gates import parse_csp
from trafikist.core.theme import finish_page, injected_style_hashes

HEAD = '<html><head>\n<meta charset="utf-8">\n<link rel="stylesheet" href="a.css"></head>'
MATERIAL = (
    HEAD + "<body>"
    '<label class="md-overlay" for="__drawer"></label>'
    '<div class="md-search" data-md-component="search" role="dialog">'
    '<nav class="md-nav" aria-labelledby="__nav_2_label" aria-expanded="false">'
    '<label class="md-nav__title" for="__nav_2"><span class="md-nav__icon"></span></label>'
    '<label class="md-nav__link" for="__nav_3" tabindex="">Books</label>'
    '<label class="md-nav__title" for="__toc">On this page</label>'
    "</nav></body></html>"
)
ZENSICAL = (
    HEAD + "<body>"
    '<label class="md-overlay" for="__drawer" aria-hidden="true"></label>'
    '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search">'
    '<form class="md-header__option" data-md-component="palette"><input class="md-option" '
    'aria-hidden="true" type="radio" name="__palette" id="__palette_0"></form>'
    '<input class="md-toggle" type="checkbox" id="__toc">'
    '<label class="md-nav__title" for="__toc">On this page</label>'
    "</body></html>"
)
WIDGET = '<section class="tk-duties" aria-labelledby="t"></section>'


def policy_of(html: str) -> dict[str, list[str]]:
    start = html.index('content="', html.index('http-equiv="Content-Security-Policy"')) + 9
    return parse_csp(html[start : html.index('"', start)])


def test_the_policy_comes_right_after_the_charset_and_allows_wasm_only_with_the_widget() -> None:
    page = finish_page(MATERIAL)
    assert page.index("Content-Security-Policy") < page.index("<link")
    assert page.index('<meta charset="utf-8">') < page.index("Content-Security-Policy")
    assert policy_of(page)["script-src"] == ["'self'"]
    assert policy_of(page)["style-src"] == ["'self'"]
    with_widget = finish_page(MATERIAL.replace("</body>", WIDGET + "</body>"))
    assert policy_of(with_widget)["script-src"] == ["'self'", "'wasm-unsafe-eval'"]


def test_style_hashes_join_style_src_and_nothing_else() -> None:
    page = finish_page(ZENSICAL, ("sha256-abc=",))
    assert policy_of(page)["style-src"] == ["'self'", "'sha256-abc='"]
    assert "unsafe-inline" not in page


def test_material_markup_gets_its_fixes() -> None:
    page = finish_page(MATERIAL)
    assert 'role="dialog" aria-label="Search"' in page
    assert ' tabindex=""' not in page
    # The nested nav is named by its visible title, which now has that id.
    assert 'aria-labelledby="__nav_2_title" aria-expanded' in page
    assert '<label class="md-nav__title" id="__nav_2_title" for="__nav_2"' in page
    # No __toc control on this page: the label's dangling for= goes.
    assert 'for="__toc"' not in page


def test_zensical_markup_gets_its_own_and_keeps_what_it_has_right() -> None:
    page = finish_page(ZENSICAL)
    assert page.count("aria-label=") == 1  # its dialog was named already
    assert '<label class="md-overlay" for="__drawer">' in page
    assert 'aria-hidden="true"' not in page
    assert 'for="__toc"' in page  # the control is there
    assert 'data-md-component="palette"' not in page  # one scheme: nothing to choose


def test_a_palette_with_a_choice_stays() -> None:
    form = (
        '<form class="md-header__option" data-md-component="palette">'
        '<input class="md-option" aria-label="Dark" type="radio" name="__palette" '
        'id="__palette_0">'
        '<label class="md-header__button" for="__palette_1"></label>'
        '<input class="md-option" aria-label="Light" type="radio" name="__palette" '
        'id="__palette_1">'
        "</form>"
    )
    assert form in finish_page(ZENSICAL.replace("<body>", "<body>" + form))


def test_finishing_twice_changes_nothing() -> None:
    for page in (MATERIAL, ZENSICAL, MATERIAL.replace("</body>", WIDGET + "</body>")):
        once = finish_page(page, ("sha256-abc=",))
        assert finish_page(once, ("sha256-abc=",)) == once


def test_the_hash_of_a_style_the_bundle_injects_is_the_hash_of_its_text(tmp_path: Path) -> None:
    text = '.a{content:"\'"}\\n.b{color:red}\n'  # a quote of each kind, an escape, a newline
    literal = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    bundle = tmp_path / "assets" / "javascripts" / "bundle.1234.min.js"
    bundle.parent.mkdir(parents=True)
    bundle.write_text(
        f"var Ab='{literal}';function f(e){{let o=e.attachShadow({{mode:\"open\"}});"
        'o.appendChild(C("style",{},Ab.toString()))}',
        encoding="utf-8",
    )
    expected = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
    assert injected_style_hashes(tmp_path) == (f"sha256-{expected}",)
    bundle.write_text("function f(){}", encoding="utf-8")
    assert injected_style_hashes(tmp_path) == ()
