"""Render course pages to Markdown that any Python-Markdown engine turns into the site.

The renderer adds what the structure knows and the author should not type: the page header,
the in-page section nav, the "pick a duty" widget, the dive cards, "Up next" and the home page.
Those parts are written as `/// NAME` + `///` lines in the author's Markdown and replaced here.
Prose blocks (takeaway, forward, excerpt, pattern) are left to the Markdown extensions.

Links are written by id (`id:PAGE`) and resolved by `finalize_html` once the page is HTML, so a
link works the same in prose, in generated parts and in raw HTML.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jinja2
import markdown
import markupsafe
from markdown.extensions.toc import slugify

from trafikist.base.errors import CourseError
from trafikist.course import syntax
from trafikist.course.evidence import CheckedSentence, ModelStep
from trafikist.course.examples import RUN_ID, example_path, render_worked_example, run_stem
from trafikist.course.how_we_know import HOW_WE_KNOW_BOOK_ID, how_we_know_page_id
from trafikist.course.loader import ID_LINK, strings_in
from trafikist.course.markdown.generated_html import generated_html
from trafikist.course.markdown.registry_inline import CHOICES_PAGE_ID
from trafikist.course.markup import SafeHtmlExtension, markdown_text
from trafikist.course.questions import (
    PARTS,
    Question,
    live_query,
    outcome,
    page_context,
    page_questions,
    replace_blocks,
    run_fragment,
)
from trafikist.course.review import REVIEW_PAGE_ID, course_questions, module_questions
from trafikist.course.runs import scenario_trace
from trafikist.course.shown_evidence import (
    ROW_KEY,
    EvidenceHtml,
    Numbered,
    census,
    counts_text,
    kind_of,
    kinds,
    kinds_of,
    marked_body,
    marked_duties,
    marked_header,
    marked_question,
    marked_up_next,
    number,
    own_words,
    page_data,
    reading_order,
)
from trafikist.course.sources import DRAFT
from trafikist.course.structure import (
    PLANNED_HEADING,
    PLANNED_SUMMARY,
    STATUS_LEGEND,
    Course,
    Duty,
    Kind,
    Page,
    Status,
    relative_link,
)
from trafikist.course.syntax import mask_fences, unmask_fences
from trafikist.model.trace import Trace
from trafikist.model_view.draw import trace_rows
from trafikist.registry.valkey import ValkeyTable

DUTY_PANEL = "tk-duty-panel-{id}"  # a duty's panel in the duties' block (duties.html.j2)
TOC_LABEL = re.compile(r'data-toc-label="(?P<label>[^"]*)"')
EXPLICIT_ID = re.compile(r"(?:^|\s)#(?P<id>[\w-]+)")
BLOCK_LINE = re.compile(r"^\s*///")
ATTR_ID = re.compile(r"\{:?[^}\n]*?(?<![\w&])#(?P<id>[\w-]+)[^}\n]*\}")
HTML_ID = re.compile(r"""\sid=["'](?P<id>[^"'\s]+)["']""")
RESOLVED_LINK = re.compile(
    r'<a (?P<before>[^>]*?)href="id:(?P<id>[a-z0-9-]+)(?P<query>\?[^"#]*)?(?P<fragment>#[^"]*)?"'
    r"(?P<after>[^>]*)>"
)
# Pages the site generates only when the course needs them: the review page when it asks
# questions, the model's choices when a page runs the model or the registry chooses a value. A
# link to one is valid in any course (docs/ links the review page), and where the course does
# without the page, the link shows as its bare text.
PAGES_WHEN_NEEDED = frozenset({REVIEW_PAGE_ID, CHOICES_PAGE_ID})
LINK_ELEMENT = re.compile(
    r'<a (?:[^>]*?\s)?href="id:(?P<id>[a-z0-9-]+)(?:[?#][^"]*)?"[^>]*>(?P<text>.*?)</a>', re.S
)

# Extensions for Markdown snippets inside generated HTML (one sentence or a short paragraph).
INLINE_EXTENSIONS = ("attr_list",)
# How many snippets' HTML a renderer keeps (`Renderer.inline_markdown`): more than a course of
# a few hundred pages writes, and a bound for a preview that runs for days.
INLINE_KEPT = 50_000


@dataclass
class Section:
    id: str
    label: str


@dataclass
class Renderer:
    """Turns course pages into engine-ready Markdown, and resolves id links in the HTML."""

    course: Course
    directory_urls: bool = True
    # Extra generated parts an adapter can register (e.g. the live duty widget).
    extra_blocks: dict[str, Callable[[Page], str]] = field(default_factory=dict)
    # Extensions for Markdown inside generated HTML, beyond INLINE_EXTENSIONS (e.g. the
    # registry's claims and verb links).
    inline_extensions: list[markdown.Extension] = field(default_factory=list)
    # Valkey's command table: a reference to a command it marks deprecated says so.
    valkey: ValkeyTable | None = None
    # Where the templates' compiled code is kept between renders (a preview's memory, or
    # the machine's cache of derived files).
    bytecode_cache: jinja2.BytecodeCache | None = None
    # The sentences of a page its checks proved, with their evidence (trafikist.checks'
    # page_evidence; the site sets it once the course is checked): "How we know".
    evidence: Callable[[Page], list[CheckedSentence]] | None = None

    def __post_init__(self) -> None:
        self.templates = jinja2.Environment(
            # A kind of question from outside this package brings its part of the template
            # with it (trafikist.course.questions.register).
            loader=jinja2.ChoiceLoader(
                [jinja2.PackageLoader("trafikist.course", "templates"), jinja2.DictLoader(PARTS)]
            ),
            bytecode_cache=self.bytecode_cache,
            autoescape=jinja2.select_autoescape(["html", "j2"]),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            undefined=jinja2.StrictUndefined,
        )
        self.templates.globals.update(
            legend=STATUS_LEGEND, Status=Status, Kind=Kind, checks_of=self.question_ids
        )
        self.templates.filters["md"] = self.inline_markdown
        # Text inside generated HTML (duty rows, summaries, a question's prompt, options and
        # whys) is Markdown too; raw HTML blocks are not parsed by the engine, so the renderer
        # converts those snippets itself, with no raw HTML (course.markup: one policy).
        self._inline: markdown.Markdown | None = None
        self._inline_count = 0
        # A snippet's HTML by its text, for the Markdown above: the same sentence is written
        # on its page, in its evidence and under each kind on its "How we know" page, and the
        # inline extensions keep no state, so its HTML depends on the text alone.
        self._inline_html: dict[str, markupsafe.Markup] = {}
        # A page's numbered sentences, asked for by its marks, its duties, its evidence file
        # and its module's "How we know" page: made once a page, while the page object and the
        # evidence it was made from are the same.
        self._numbered: dict[str, tuple[Page, object, list[Numbered]]] = {}

    def inline_markdown(self, text: str) -> markupsafe.Markup:
        # Made again when extensions were added since (the site adds the registry's inline
        # syntax after its checks, which may render a snippet first).
        if self._inline is None or self._inline_count != len(self.inline_extensions):
            self._inline = markdown.Markdown(
                extensions=[*INLINE_EXTENSIONS, *self.inline_extensions, SafeHtmlExtension()]
            )
            self._inline_count = len(self.inline_extensions)
            self._inline_html.clear()
        known = self._inline_html.get(text)
        if known is not None:
            return known
        html_text = self._inline.reset().convert(text).strip()
        if (
            html_text.startswith("<p>")
            and html_text.endswith("</p>")
            and html_text.count("<p>") == 1
        ):
            html_text = html_text[3:-4]
        if len(self._inline_html) >= INLINE_KEPT:
            self._inline_html.clear()
        made = self._inline_html[text] = markupsafe.Markup(html_text)
        return made

    # -- Markdown -------------------------------------------------------------------------

    def page_markdown(self, page: Page) -> str:
        """The whole page as Markdown with front matter, ready for the engine."""
        front = self._front_matter(page)
        if page.kind is Kind.HOME:
            written, planned = self.course.listings()
            return front + self._render(
                "home.md.j2",
                page=page,
                course=self.course,
                written=written,
                planned=planned,
                planned_heading=PLANNED_HEADING,
                planned_summary=PLANNED_SUMMARY,
            )
        if page.status is Status.PLANNED:
            # A scaffolded draft stays in the source for its author, out of the published page.
            body = DRAFT.sub("", page.body)
            return front + self._render(
                "planned.md.j2", page=page, backlinks=self.backlinks(page), body=body
            )
        numbered = self.numbered(page)
        # A fence's lines are the author's literal text: no block, heading or reference in one
        # is filled in (put back once the page is whole). A checked sentence's mark is never
        # in one (its offset is the page's, so it goes in first).
        body = marked_body(page, numbered) if numbered else page.body
        body, fences = mask_fences(body)
        body = VALKEY_REFERENCE.sub(self._deprecation, body)
        if "/// check" in body:
            asked = page_questions(page)
            body = replace_blocks(
                body,
                lambda index: generated_html(
                    self.question_html(marked_question(asked[index], numbered))
                ),
            )
        lede, rest = split_lede(body)
        rest, sections = with_heading_ids(rest)
        rest = GENERATED_BLOCK.sub(lambda match: self._generated(match["name"], page), rest)
        how = self._how_we_know_of(page)
        parts = [
            front,
            self._header(page, numbered),
            self._render("lede.md.j2", lede=lede.strip()) if lede.strip() else "",
            # The review page is one list: it needs no nav of its sections.
            self._html("sections.html.j2", sections=sections)
            if sections and page.kind is not Kind.REVIEW
            else "",
            rest.strip() + "\n",
            self._html("how_we_know_link.html.j2", target=how) if how is not None else "",
        ]
        if page.kind is Kind.DIVE:
            previous, following = self.course.neighbours(page)
            parts.append(
                self._html("dive_nav.html.j2", page=page, previous=previous, next=following)
            )
        return unmask_fences("\n".join(part for part in parts if part), fences)

    def _header(self, page: Page, numbered: list[Numbered]) -> str:
        title_marks, summary = marked_header(page, numbered)
        return self._html(
            "header.html.j2",
            page=page,
            evidence=bool(numbered),
            title_marks=title_marks,
            summary=summary,
        )

    def question_html(self, question: Question, on_review: bool = False) -> markupsafe.Markup:
        """A question of "Check yourself", as the reader meets it (check.html.j2); `on_review`,
        on the review page, with a link to the page it comes from."""
        context = page_context(question, outcome(question))
        context.setdefault("run_label", "")
        context.setdefault("right", 0)
        context["run_file"] = question.run is not None and question.run.scenario is not None
        context["on_review"] = on_review
        owner = question.page if question.page.kind is Kind.MODULE else question.page.parent
        query = live_query(question)
        # `question`: the widget shows that question's run as the build made it (widgets/duty).
        context["live_link"] = (
            f"id:{owner.id}?{query}&question={question.id}#tk-duties-title"
            if owner and query
            else ""
        )
        return markupsafe.Markup(self._render("check.html.j2", **context).strip())

    def question_ids(self, page: Page, dives: bool = True) -> str:
        """The ids of a page's questions, space-separated: what its "K of N answered right"
        counts. A module's include its dives' (its entry on the home page) unless `dives` is
        false (its own header counts the questions the page holds)."""
        questions = module_questions(page) if dives else page_questions(page)
        return " ".join(question.id for question in questions)

    def question_runs(self, choices_href: str) -> dict[str, str]:
        """Each question's run as the page fetches it on "Show the run" (the deciding row
        marked), by question id; `choices_href` is where a model choice's link points, from
        the fragment's own URL, the choice's id appended."""
        runs = {}
        for question in course_questions(self.course):
            fragment = run_fragment(question, outcome(question), choices_href)
            if fragment is not None:
                runs[question.id] = fragment
        return runs

    def _deprecation(self, match: re.Match[str]) -> str:
        """A reference to a Valkey command's page, and, where the command table marks the command
        deprecated, the table's words for it."""
        table = self.valkey
        command = table.get(match["name"].replace("-", " ")) if table else None
        if table is None or command is None or not command.deprecated:
            return match[0]
        since = command.fields.get("deprecated_since")
        instead = command.fields.get("replaced_by")
        note = f"Valkey {table.version} marks {command.name} deprecated"
        note += f" since {since}" if since else ""
        note += f"; it names {instead} in its place." if instead else "."
        # The command table's words are data: shown as the text they are, its code spans code.
        return f"{match[0]} *{markdown_text(note, code_spans=True)}*"

    def _front_matter(self, page: Page) -> str:
        # Neither engine's theme escapes a page's title or description where it writes them
        # (<title>, the header, the navigation, <meta>): the values go to it as HTML text.
        title = html.escape(page.title, quote=False)
        lines = ["---", f"title: {_yaml_string(title)}", f"trafikist_id: {page.id}"]
        if page.status is Status.PLANNED:
            lines.append("status: planned")  # mkdocs-material shows it in the navigation
        if page.summary:
            lines.append(f"description: {_yaml_string(html.escape(page.summary))}")
        if page.book is not None and page.book.id == HOW_WE_KNOW_BOOK_ID:
            # Every sentence again: the search finds it on its own page (both engines' search
            # leaves out a page with this front matter).
            lines.append("search:\n  exclude: true")
        lines.append("---\n")
        return "\n".join(lines) + "\n"

    def _generated(self, name: str, page: Page) -> str:
        if name in self.extra_blocks:
            return self.extra_blocks[name](page)
        return GENERATED[name].render(self, page)

    # -- How we know -----------------------------------------------------------------------

    def numbered(self, page: Page) -> list[Numbered]:
        """The page's checked sentences, numbered in reading order ([] with no evidence)."""
        if self.evidence is None or page.source is None:
            return []
        known = self._numbered.get(page.id)
        if known is not None and known[0] is page and known[1] is self.evidence:
            return known[2]
        made = self._numbered_now(page, self.evidence)
        self._numbered[page.id] = (page, self.evidence, made)
        return made

    def _numbered_now(
        self, page: Page, evidence: Callable[[Page], list[CheckedSentence]]
    ) -> list[Numbered]:
        # A written page's title and summary are marked in its header; the home page and a
        # planned page show no switch (their evidence is on no page).
        shown = evidence(page)
        if page.kind is Kind.HOME or page.status is not Status.BUILT:
            shown = [
                sentence
                for sentence in shown
                if not sentence.anchor.startswith(("meta:title:", "meta:summary:"))
            ]
        return number(page, shown)

    def shown_duties(self, page: Page) -> list[Duty]:
        """The page's duties as the widget shows them: their checked sentences marked."""
        numbered = self.numbered(page)
        return marked_duties(page, numbered) if numbered else page.duties

    def evidence_data(self, page: Page) -> dict[str, object] | None:
        """What the page's script loads on the first "How we know" (None: the page has no
        checked sentence): the counts and each mark's evidence, as HTML whose `id:` links are
        resolved from the page."""
        numbered = self.numbered(page)
        if not numbered:
            return None
        shown = self._shown_evidence(page)
        data = page_data(
            [entry for entry in numbered if entry.marked],
            shown.lines,
            self._valkey_version(),
        )
        data["counts"] = counts_text(
            census(entry.sentence for entry in numbered), self._valkey_version()
        )
        marks = data["marks"]
        assert isinstance(marks, dict)
        data["marks"] = {key: self.finalize_html(value, page) for key, value in marks.items()}
        how = self._how_we_know_of(page)
        if how is not None:
            data["how"] = relative_link(page.url(self.directory_urls), how.url(self.directory_urls))
        return data

    def _how_we_know_of(self, page: Page) -> Page | None:
        """The "How we know" page of a written module or dive with checked sentences."""
        if page.kind not in (Kind.MODULE, Kind.DIVE) or page.status is not Status.BUILT:
            return None
        module = page if page.kind is Kind.MODULE else page.parent
        return self.course.pages.get(how_we_know_page_id(module)) if module else None

    def _valkey_version(self) -> str:
        return self.valkey.version if self.valkey is not None else "?"

    def _runs_shown(self, page: Page) -> list[tuple[str, Trace, str]]:
        """The model's runs whose trace the page shows: (scenario stem, trace, the id of
        what holds it: a duty's panel, the worked example)."""
        runs = []
        if "/// duties" in page.body:
            for duty in page.duties:
                if (path := duty.default_scenario) is not None and path.is_file():
                    holder = DUTY_PANEL.format(id=duty.id)
                    runs.append((run_stem(path.name), scenario_trace(path), holder))
        example = example_path(page) if "/// worked-example" in page.body else None
        if example is not None and example.is_file():
            stem = run_stem(example.name)
            runs.append((stem, scenario_trace(example), RUN_ID.format(run=stem)))
        return runs

    def _event_index(self, page: Page) -> Callable[[ModelStep], int | None]:
        traces = {stem: trace for stem, trace, _ in self._runs_shown(page)}

        def index(step: ModelStep) -> int | None:
            trace = traces.get(run_stem(step.run))
            if trace is None or step.event is None:
                return None
            for found, event in enumerate(trace["events"]):
                shown = f"{event['kind']}: {event['text']}"
                if shown == step.event and float(event["t"]) == step.t:
                    return found
            return None

        return index

    def how_we_know_entry(
        self,
        page: Page,
        sentence: CheckedSentence,
        entry: Numbered | None,
        kind: str,
        shown: EvidenceHtml | None = None,
    ) -> str:
        """A sentence on its module's "How we know" page: where it stands, and its evidence
        of one kind. `shown` is the page's `_shown_evidence` when the caller made it already:
        making it reads the page's runs and body, so a page of many sentences makes it once."""
        if shown is None:
            shown = self._shown_evidence(page)
        shown.page = f"id:{page.id}"
        if entry is not None and entry.marked and ":why:" in sentence.anchor:
            # An explanation shows in the question's feedback (a copy, no id): the question.
            question = sentence.anchor.split(":")[1]
            where = f", sentence {entry.number}{_place(sentence)}"
            target = f"id:{page.id}#check-{question}"
        elif entry is not None and entry.marked:
            where = f", sentence {entry.number}{_place(sentence)}"
            target = f"id:{page.id}#{entry.mark_id}"
        else:
            where, target = _place(sentence), f"id:{page.id}"
        where = page.kicker + where
        linked: set[str] = set()  # each trace row linked once (EvidenceHtml._model)
        lines = "".join(
            shown.line(item, linked=linked) for item in sentence.evidence if kind_of(item) == kind
        )
        return (
            f'<li class="tk-how__entry"><p class="tk-how__sentence">'
            f"{self.inline_markdown(sentence.text)} "
            f'<a class="tk-how__where" href="{target}" data-no-badge>{html.escape(where)}</a>'
            f'</p><ul class="tk-evidence__lines">{lines}</ul></li>'
        )

    def _shown_evidence(self, page: Page) -> EvidenceHtml:
        rows = {}
        for stem, trace, holder in self._runs_shown(page):
            order = _row_order(trace)
            for place, (kind, index) in enumerate(order):
                rows[ROW_KEY.format(run=stem, kind=kind, index=index)] = (place, len(order), holder)
        shown = {
            excerpt.options.get("transcript", "").strip().strip("'\"")
            for excerpt in syntax.scan(page.body).excerpts
        }
        return EvidenceHtml(
            self._valkey_version(),
            lambda text: str(self.inline_markdown(text)),
            rows,
            shown - {""},
            self._event_index(page),
        )

    def _render(self, template: str, **context: Any) -> str:
        return self.templates.get_template(template).render(**context)

    def _html(self, template: str, **context: Any) -> str:
        """A template of whole HTML elements, marked as the renderer's own (the engine
        stashes it whole: trafikist.course.markdown.generated_html)."""
        return generated_html(self._render(template, **context))

    # -- Links ----------------------------------------------------------------------------

    def backlinks(self, target: Page) -> list[Page]:
        """Pages whose text links to `target`, in course order."""
        found = []
        for page in self.course.pages.values():
            texts = [page.body, *strings_in(page.meta)]
            texts += [d.library + d.trafikey + d.between_calls for d in page.duties]
            if page is not target and any(
                match["id"] == target.id for text in texts for match in ID_LINK.finditer(text)
            ):
                found.append(page)
        return found

    def finalize_html(self, page_html: str, page: Page | str) -> str:
        """Resolve every `id:` link to a relative URL and mark it with the target's status.

        `page` is a course page, or the site URL of any other page (a hand-written one). A link
        to a page generated only when needed (PAGES_WHEN_NEEDED) that this course does without
        becomes its bare text.
        """
        source = page.url(self.directory_urls) if isinstance(page, Page) else page

        def resolve(match: re.Match[str]) -> str:
            target = self.course.pages.get(match["id"])
            if target is None:  # only a hand-written page can get here: the loader checks ours
                raise CourseError.at(
                    source or "index",
                    None,
                    f"the link names an unknown id '{match['id']}'.",
                    "Link to an id that a page in modules/ declares in its front matter.",
                )
            before, after = match["before"], match["after"]
            url = relative_link(source, target.url(self.directory_urls))
            # The query is HTML-escaped in the attribute; it is escaped once more below.
            url += html.unescape(match["query"] or "") + (match["fragment"] or "")
            if 'class="tk-verb"' in before + after or "tk-choice__mark" in before + after:
                # A verb's command page and the page of the model's choices are always built:
                # their links carry no status (fewer bytes, on every verb of every page).
                attrs = f"{before.strip()} {after.strip()}".strip()
                return f'<a {attrs} href="{html.escape(url)}">'

            status_class = f"tk-link tk-link--{target.status.value}"
            attrs = f"{before.strip()} {after.strip()}".strip()
            if 'class="' in attrs:
                attrs = attrs.replace('class="', f'class="{status_class} ', 1)
            else:
                attrs += f' class="{status_class}"'
            attrs += f' data-status="{target.status.value}"'
            return f'<a {attrs.strip()} href="{html.escape(url)}">'

        absent = PAGES_WHEN_NEEDED - self.course.pages.keys()
        if absent and 'href="id:' in page_html:
            page_html = LINK_ELEMENT.sub(
                lambda link: link["text"] if link["id"] in absent else link[0], page_html
            )
        resolved = RESOLVED_LINK.sub(resolve, page_html)
        return _add_link_badges(resolved)


def _add_link_badges(page_html: str) -> str:
    """Prose links get a status badge after their text; generated parts draw their own, and a
    verb's link to its command page (always built) carries none."""
    pattern = re.compile(
        r'(<a (?:(?!data-no-badge)[^>])*?class="tk-link tk-link--(?P<status>built|planned)'
        r'(?![^"]*tk-verb)[^"]*"(?:(?!data-no-badge)[^>])*>)(?P<text>.*?)</a>',
        re.S,
    )

    def badge(match: re.Match[str]) -> str:
        status = match["status"]
        return (
            f'{match[1]}{match["text"]}<span class="tk-badge tk-badge--{status}">'
            f'<span class="tk-visually-hidden">, </span>{status}</span></a>'
        )

    return pattern.sub(badge, page_html)


def split_lede(body: str) -> tuple[str, str]:
    """The lede is everything before the first level-2 heading."""
    match = re.search(r"^## ", body, re.M)
    if match is None:
        return body, ""
    return body[: match.start()], body[match.start() :]


# A reference to a Valkey command's page: `- [Valkey — BLPOP](https://valkey.io/commands/blpop/) …`
VALKEY_REFERENCE = re.compile(
    r"^[ \t]*[-*] \[Valkey — [^\]]+\]\(https://valkey\.io/commands/(?P<name>[a-z0-9-]+)/?\).*$",
    re.M,
)
HEADING = re.compile(r"^(?P<hashes>#{2,6}) (?P<text>.+?)(?:\s*\{(?P<attrs>[^}]*)\})?\s*$")


def with_heading_ids(body: str) -> tuple[str, list[Section]]:
    """Give every heading an explicit id (so the anchors a link may name are known before any
    engine renders the page), and list the level-2 ones for the section nav."""
    sections: list[Section] = []
    taken: set[str] = set()
    lines = body.split("\n")
    in_fence = False
    blocks = 0  # inside a `///` block a heading is the block's own (a pattern's side)
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_fence and BLOCK_LINE.match(line):
            blocks += -1 if line.strip() == "///" else 1
            blocks = max(blocks, 0)
        match = None if in_fence or blocks else HEADING.match(line)
        if match is None:
            continue
        text, attrs = match["text"], match["attrs"] or ""
        explicit = EXPLICIT_ID.search(attrs)
        # As toc slugifies the rendered text: a link's words, not its target.
        anchor = explicit["id"] if explicit else slugify(syntax.MARKDOWN_LINK.sub(r"\1", text), "-")
        if not explicit:
            # As Python-Markdown's toc numbers a repeated heading: anchor, anchor_1, …
            base, number = anchor, 0
            while anchor in taken:
                number += 1
                anchor = f"{base}_{number}"
            attrs = f"#{anchor} {attrs}".strip()
        taken.add(anchor)
        if len(match["hashes"]) == 2:
            label = TOC_LABEL.search(attrs)
            sections.append(Section(anchor, label["label"] if label else text))
        lines[index] = f"{match['hashes']} {text} {{ {attrs} }}"
    return "\n".join(lines), sections


def anchors_in(markdown_text: str) -> set[str]:
    """The ids a page's Markdown gives its elements: explicit heading and attribute ids, and
    `id="…"` in its raw HTML."""
    found = {match["id"] for match in ATTR_ID.finditer(markdown_text)}
    found |= {match["id"] for match in HTML_ID.finditer(markdown_text)}
    return found


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- the generated blocks ------------------------------------------------------------------------


def _duties(renderer: Renderer, page: Page) -> str:
    duties = renderer.shown_duties(page)
    return renderer._html("duties.html.j2", page=page, duties=duties, live=None)


def _place(sentence: CheckedSentence) -> str:
    """Where a sentence stands on its page when its number alone does not say it, as the "How
    we know" page says it."""
    if ":why:" in sentence.anchor:
        return ", a question's explanation"
    if sentence.anchor.startswith("meta:title:"):
        return ", its title"
    if sentence.anchor.startswith("meta:summary:"):
        return ", its summary"
    return ""


def _row_order(trace: Trace) -> list[tuple[str, int]]:
    """The rows of a trace's table, in order: ("s", step) or ("e", event)."""
    return [("s" if kind == 0 else "e", index) for _, kind, index, _ in trace_rows(trace)]


def _dive_cards(renderer: Renderer, page: Page) -> str:
    return renderer._html("dive_cards.html.j2", page=page)


def _up_next(renderer: Renderer, page: Page) -> str:
    previous, following = renderer.course.neighbours(page)
    texts = marked_up_next(page.meta.get("up_next") or {}, renderer.numbered(page))
    return renderer._html(
        "up_next.html.j2", page=page, previous=previous, next=following, texts=texts
    )


def _worked_example(renderer: Renderer, page: Page) -> str:
    return render_worked_example(page)


def _review(renderer: Renderer, page: Page) -> str:
    entries = [
        (question, renderer.question_html(question, on_review=True))
        for question in course_questions(renderer.course)
    ]
    return renderer._html("review.html.j2", entries=entries)


def _how_we_know(renderer: Renderer, page: Page) -> str:
    """Every checked sentence of a module and its dives, by kind, then the seed's own words."""
    module = renderer.course.pages[str(page.meta["module"])]
    pages = [module, *(dive for dive in module.dives if dive.status is Status.BUILT)]
    found: list[tuple[Page, CheckedSentence, Numbered | None]] = []
    for each in pages:
        numbered = {entry.sentence.anchor: entry for entry in renderer.numbered(each)}
        evidence = renderer.evidence(each) if renderer.evidence is not None else []
        for sentence in reading_order(each, evidence):
            found.append((each, sentence, numbered.get(sentence.anchor)))
    # Once a page, not once a sentence: it reads the page's runs and scans its body.
    shown = {each.id: renderer._shown_evidence(each) for each in pages}
    version = renderer._valkey_version()
    counts = census(sentence for _, sentence, _ in found)
    parts = [
        generated_html(
            f'<p class="tk-how__counts">{html.escape(counts_text(counts, version))}.</p>'
        )
    ]
    groups = [(kind.key, kind.name, kind.key) for kind in kinds(version)]
    groups.append(("own", "The seed's own words", "seed"))
    # Each sentence's kinds once, not once a group.
    sentence_kinds = [kinds_of(sentence) for _, sentence, _ in found]
    for key, name, shown_kind in groups:
        if key == "own":
            chosen = [item for item in found if own_words(item[1])]
        else:
            chosen = [item for item, its in zip(found, sentence_kinds, strict=True) if key in its]
        if not chosen:
            continue
        count = f"{len(chosen)} sentence{'' if len(chosen) == 1 else 's'}"
        parts.append(f"### {name} · {count} {{ #{key} }}")
        items = "".join(
            renderer.how_we_know_entry(each, sentence, entry, shown_kind, shown[each.id])
            for each, sentence, entry in chosen
        )
        parts.append(generated_html(f'<ol class="tk-how__list">{items}</ol>'))
    return "\n\n".join(parts) + "\n"


def _no_duties(page: Page) -> str:
    return "" if page.duties else "stands in a module that has no duties.yml."


def _no_example(page: Page) -> str:
    path = example_path(page)
    if path is None or not path.is_file():
        return f"stands in a dive with no worked example ({path.name if path else 'none'})."
    return ""


def _needs_nothing(page: Page) -> str:
    return ""


@dataclass(frozen=True)
class GeneratedBlock:
    """A block the renderer fills in from the course (`/// NAME`, then `///`, nothing between):
    what it shows, the pages it stands on, and what else it needs to show something. A new one
    is one entry of GENERATED_BLOCKS: the renderer and the page-syntax check
    (trafikist.checks.blocks) read it there."""

    name: str
    render: Callable[[Renderer, Page], str]
    kinds: tuple[Kind, ...]  # the pages it may stand on
    where: str  # those pages, as a message names them: "a module's"
    needs: Callable[[Page], str] = _needs_nothing  # what it misses there, or ""
    fix: str = "Remove the block."
    written: bool = True  # an author writes it (the review page's block is the build's own)


GENERATED_BLOCKS = (
    GeneratedBlock(
        "duties",
        _duties,
        (Kind.MODULE,),
        "a module's",
        _no_duties,
        "Write the module's duties.yml, or remove the block.",
    ),
    GeneratedBlock("dive-cards", _dive_cards, (Kind.MODULE,), "a module's"),  # no dives: says so
    GeneratedBlock("up-next", _up_next, (Kind.MODULE, Kind.DIVE), "a module or a dive"),
    GeneratedBlock(
        "worked-example",
        _worked_example,
        (Kind.DIVE,),
        "a dive",
        _no_example,
        "Write the scenario beside the dive (NN-slug.example.yml), or remove the block.",
    ),
    GeneratedBlock("review", _review, (Kind.REVIEW,), "the review page", written=False),
    GeneratedBlock(
        "how-we-know", _how_we_know, (Kind.REFERENCE,), "a How we know page", written=False
    ),
)
GENERATED = {block.name: block for block in GENERATED_BLOCKS}
# Where a generated block stands in a page's Markdown; anything else between `///` lines is
# prose, which the engine renders (trafikist.course.markdown.blocks).
GENERATED_BLOCK = re.compile(
    rf"^/// (?P<name>{'|'.join(map(re.escape, GENERATED))})\s*\n///\s*$", re.M
)
