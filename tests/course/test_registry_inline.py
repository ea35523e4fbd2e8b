"""The Markdown extension: claims render as their sentence, verbs link to their pages."""

from __future__ import annotations

import markdown

from trafikist.course.markdown.registry_inline import RegistryInlineExtension

VERBS = ["EMQ.PROMOTE", "EMQ.STALLED.CHECK"]


def render(text: str, **config: object) -> str:
    extensions = [RegistryInlineExtension(**config), "trafikist.course.markdown.blocks"]
    return markdown.Markdown(extensions=extensions).convert(text)


def test_a_claim_renders_as_its_sentence() -> None:
    html = render("Today [no row carries the `blocking` flag]{claim: *.flags lacks blocking}.")
    assert html == (
        '<p>Today <span class="tk-claim">no row carries the <code>blocking</code> flag</span>.</p>'
    )


def test_a_claim_holds_links_emphasis_and_verbs() -> None:
    html = render(
        "[EMQ.PROMOTE is **plain**, see [the dive](id:dive)]{claim: EMQ.PROMOTE.flags = write}",
        verbs=VERBS,
    )
    assert html == (
        '<p><span class="tk-claim">'
        '<a class="tk-verb" href="id:command-emq-promote"><code>EMQ.PROMOTE</code></a> is '
        '<strong>plain</strong>, see <a href="id:dive">the dive</a></span></p>'
    )


def test_a_claim_may_span_lines_of_one_paragraph() -> None:
    html = render("[one\nsecond]{claim:\n default consumer-beat} by default")
    assert '<span class="tk-claim">one\nsecond</span> by default' in html


def test_code_and_escapes_keep_the_syntax_literal() -> None:
    html = render("`[x]{claim: y}` and \\[z]{claim: w}")
    assert html == "<p><code>[x]{claim: y}</code> and [z]{claim: w}</p>"


def test_verbs_in_prose_link_and_others_do_not() -> None:
    html = render(
        "EMQ.PROMOTE runs; `EMQ.PROMOTE` stays code; [EMQ.STALLED.CHECK](x) stays a link; "
        "EMQ.REAP is not registered; every EMQ.* command.",
        verbs=VERBS,
    )
    assert html == (
        '<p><a class="tk-verb" href="id:command-emq-promote"><code>EMQ.PROMOTE</code></a> runs; '
        "<code>EMQ.PROMOTE</code> stays code; "
        '<a href="x">EMQ.STALLED.CHECK</a> stays a link; '
        "EMQ.REAP is not registered; every EMQ.* command.</p>"
    )


def test_without_a_verb_list_every_verb_links() -> None:
    html = render("EMQ.FAILURES.INCR sets a count.")
    assert html == (
        '<p><a class="tk-verb" href="id:command-emq-failures-incr">'
        "<code>EMQ.FAILURES.INCR</code></a> sets a count.</p>"
    )


def test_code_blocks_and_excerpt_captions() -> None:
    text = (
        "/// excerpt | trafikey — the row of EMQ.PROMOTE\n"
        "    quotes: registry\n\n"
        "```rust\n"
        'emq_promote => f, Row { name: c"EMQ.PROMOTE" };\n'
        "```\n\n"
        "///\n"
    )
    html = render(text, verbs=VERBS)
    assert (
        '<figcaption class="tk-excerpt__caption">trafikey — the row of <a class="tk-verb"' in html
    )
    assert 'name: c"EMQ.PROMOTE"' in html.replace("&quot;", '"')
    assert html.count("tk-verb") == 1
