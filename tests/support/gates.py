"""The reader-facing gates' machinery, shared by tests/gates and the benchmark scripts.

- pages: every HTML page of a built site;
- static checks: the Content-Security-Policy meta tag, inline code, references to other origins;
- vnu: the Nu HTML checker on many files in one Java call, with the known exceptions;
- axe: axe-core in a Playwright page, and the duty widget's open states;
- watch: what a page did while it loaded in Chromium (requests to other origins, CSP
  violations, uncaught errors);
- weight: what a page transfers before any interaction, and the plain mkdocs-material baseline.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from bs4 import BeautifulSoup, Tag
from bs4.element import NavigableString
from playwright.sync_api import expect

from support import ROOT, mkdocs_build
from support.duties import LOADED_MS

NODE_MODULES = ROOT / "node_modules"
VNU_JAR = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE_JS = NODE_MODULES / "axe-core" / "axe.min.js"
BROKEN = Path(__file__).resolve().parents[1] / "gates" / "broken"
JAVA = shutil.which("java") or "/usr/bin/java"

# The policy every page carries, directive by directive. Pages with the duty widget add
# 'wasm-unsafe-eval' to script-src (Pyodide compiles WebAssembly on the page's thread when it
# is not in a worker). No 'unsafe-inline' anywhere: the theme's inline scripts are files
# (overrides/partials/javascripts/).
CSP: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "worker-src": ["'self'"],
    "connect-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
}
WASM = "'wasm-unsafe-eval'"
STYLE_HASH = re.compile(r"'sha256-[A-Za-z0-9+/]{43}='")
WIDGET_MARKER = "tk-duties"  # the class of the duty widget's <section>


def report(failures: dict[str, list[str]]) -> str:
    """A failure message that lists every page and every problem (pytest would truncate)."""
    lines = [f"{len(failures)} page(s) fail:"]
    for page, problems in failures.items():
        lines.append(f"  {page}")
        lines.extend(f"    - {problem}" for problem in problems)
    return "\n".join(lines)


def site_pages(site: Path) -> list[str]:
    """Every page of a built site, as paths relative to it. Assets are not pages."""
    return sorted(
        path.relative_to(site).as_posix()
        for path in site.rglob("*.html")
        if path.relative_to(site).parts[0] != "assets"
    )


# -- static checks ----------------------------------------------------------------------------


def parse_csp(policy: str) -> dict[str, list[str]]:
    directives: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            directives[words[0].lower()] = words[1:]
    return directives


def expected_csp(needs_wasm: bool) -> dict[str, list[str]]:
    policy = {name: list(values) for name, values in CSP.items()}
    if needs_wasm:
        policy["script-src"].append(WASM)
    return policy


def is_remote(url: str) -> bool:
    """True for a URL that names another origin (a relative URL stays on the page's own)."""
    url = url.strip()
    return url.startswith("//") or urlsplit(url).scheme.lower() in {"http", "https", "ws", "wss"}


CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""", re.IGNORECASE)
JS_TYPES = {"", "text/javascript", "application/javascript", "module"}
# <link rel=…> values that load something (canonical, prev, next, alternate only point).
LOADING_RELS = {
    "stylesheet",
    "preload",
    "modulepreload",
    "prefetch",
    "preconnect",
    "dns-prefetch",
    "icon",
    "manifest",
}


def static_problems(site: Path, page: str) -> list[str]:
    """What the HTML (and the stylesheets it links) show without running: the CSP meta tag,
    inline scripts, styles and handlers, and references to other origins."""
    path = site / page
    document = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
    problems: list[str] = []
    head = document.head
    metas = document.select('meta[http-equiv="Content-Security-Policy" i]')
    if len(metas) != 1 or head is None or metas[0].parent is not head:
        found = len(metas)
        problems.append(f"expected one Content-Security-Policy <meta> in <head>, found {found}")
    else:
        meta = metas[0]
        needs_wasm = document.select_one(f".{WIDGET_MARKER}") is not None
        policy = parse_csp(str(meta.get("content", "")))
        # A theme whose script injects a <style> (Zensical's search dialog) gets exactly that
        # text allowed, by its hash: a hash source, never 'unsafe-inline'.
        styles = policy.get("style-src", [])
        policy["style-src"] = [value for value in styles if not STYLE_HASH.fullmatch(value)]
        if policy != expected_csp(needs_wasm):
            problems.append(f"Content-Security-Policy is {meta.get('content')!r}")
        # A meta policy covers only what comes after it.
        before = meta.find_all_previous(["script", "link", "style"])
        if before:
            problems.append(f"{len(before)} script/link/style element(s) before the CSP meta")
    for script in document.find_all("script"):
        kind = str(script.get("type", "")).strip().lower()
        if script.get("src"):
            if is_remote(str(script["src"])):
                problems.append(f"remote script {script['src']}")
        elif kind in JS_TYPES:
            problems.append(f"inline script: {script.get_text()[:60]!r}")
    for link in document.find_all("link", href=True):
        rels = {str(rel).lower() for rel in link.get_attribute_list("rel")}
        if rels & LOADING_RELS and is_remote(str(link["href"])):
            problems.append(f"remote <link rel={'/'.join(sorted(rels))}> {link['href']}")
    for tag in document.find_all(["img", "source", "iframe", "embed", "object", "video", "audio"]):
        for attribute in ("src", "data", "srcset"):
            if tag.get(attribute) and is_remote(str(tag[attribute]).split()[0]):
                problems.append(f"remote <{tag.name} {attribute}> {tag[attribute]}")
    if document.find("style"):
        problems.append("inline <style> element (style-src 'self' blocks it)")
    for tag in document.find_all(True):
        handlers = [name for name in tag.attrs if name.lower().startswith("on")]
        if handlers:
            problems.append(f"inline handler {handlers} on <{tag.name}>")
        if tag.has_attr("style"):
            problems.append(f"inline style attribute on <{tag.name}> (style-src 'self' blocks it)")
        for attribute in ("href", "src", "action"):
            if str(tag.get(attribute, "")).strip().lower().startswith("javascript:"):
                problems.append(f"javascript: URL on <{tag.name}>")
    for link in document.select('link[rel~="stylesheet"][href]'):
        href = str(link["href"])
        if is_remote(href):
            continue
        stylesheet = (path.parent / urlsplit(href).path).resolve()
        if stylesheet.is_file():
            css = stylesheet.read_text(encoding="utf-8", errors="replace")
            for match in CSS_URL.finditer(css):
                url = match.group(1) or match.group(2)
                if is_remote(url):
                    problems.append(f"{href} refers to {url}")
    return problems


# -- vnu --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VnuMessage:
    file: str
    line: int
    message: str
    extract: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message} [{self.extract.strip()[:120]}]"


@dataclass(frozen=True)
class KnownException:
    """A vnu error that mkdocs-material's markup causes and no small template override fixes."""

    message: str
    extract: re.Pattern[str]
    why: str

    def matches(self, found: VnuMessage) -> bool:
        return found.message == self.message and bool(self.extract.search(found.extract))


KNOWN_VNU_EXCEPTIONS = (
    KnownException(
        message="Attribute “autocomplete” is only allowed when the input type is “color”, "
        "“date”, “datetime-local”, “email”, “hidden”, “month”, “number”, “password”, “range”, "
        "“search”, “tel”, “text”, “time”, “url”, or “week”.",
        extract=re.compile(
            r'<input class="md-toggle" data-md-toggle="(drawer|search)" type="checkbox" '
            r'id="__(drawer|search)" autocomplete="off">'
        ),
        why="mkdocs-material's base.html writes autocomplete=off on its two checkbox toggles "
        "(the drawer and the search) outside any template block; only a copy of the whole "
        "base template could drop it. Browsers ignore it; readers are not affected.",
    ),
)


def run_vnu(files: list[Path]) -> list[VnuMessage]:
    """The Nu HTML checker's errors for all files, in one Java call (the JVM start dominates)."""
    if not files:
        return []
    command = [JAVA, "-jar", str(VNU_JAR), "--errors-only", "--exit-zero-always", "--format"]
    command += ["json", *map(str, files)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    report = json.loads(result.stderr or result.stdout)
    messages = []
    for found in report["messages"]:
        if found.get("type") in {"error", "non-document-error"}:
            url = str(found.get("url", ""))
            messages.append(
                VnuMessage(
                    file=url.removeprefix("file:"),
                    line=int(found.get("lastLine", found.get("firstLine", 0))),
                    message=str(found["message"]),
                    extract=str(found.get("extract", "")),
                )
            )
    return messages


def split_known(messages: list[VnuMessage]) -> tuple[list[VnuMessage], list[VnuMessage]]:
    """(errors, excused): the excused ones match a known exception exactly."""
    errors: list[VnuMessage] = []
    excused: list[VnuMessage] = []
    for found in messages:
        known = any(exception.matches(found) for exception in KNOWN_VNU_EXCEPTIONS)
        (excused if known else errors).append(found)
    return errors, excused


# -- axe --------------------------------------------------------------------------------------


# The theme's two colour schemes, as `data-md-color-scheme` names them (mkdocs.yml's palette).
PALETTES = ("default", "slate")
# What axe reads of a page's colours: all a switch of palette can change, when the page's DOM
# stays the same (the palette is CSS on the same markup).
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def switch_palette(page: Any, scheme: str) -> None:
    """Use the theme's palette toggle in the header, as a reader does."""
    current = page.locator("body").get_attribute("data-md-color-scheme")
    if current != scheme:
        page.locator("form[data-md-component=palette] label:visible").click()
    assert page.locator("body").get_attribute("data-md-color-scheme") == scheme


def run_axe(
    page: Any, include: str | None = None, rules: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (all rules axe runs by default: WCAG 2.x
    A and AA, and best practices), optionally only inside one CSS selector."""
    if not page.evaluate("typeof window.axe === 'object'"):
        # Evaluated through the DevTools protocol, which the page's CSP does not govern, so
        # axe runs on the page as readers get it (a <script> tag would be blocked).
        page.evaluate(_axe_source() + "\n;undefined")
    violations: list[dict[str, Any]] = page.evaluate(
        """async ([include, rules]) => {
          const context = include ? { include: [include] } : document;
          const options = { resultTypes: ["violations"] };
          if (rules.length) options.runOnly = { type: "rule", values: rules };
          const result = await axe.run(context, options);
          return result.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), html: n.html.slice(0, 160),
                                         summary: n.failureSummary })),
          }));
        }""",
        [include, list(rules)],
    )
    return violations


@functools.cache
def _axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


def describe_violations(violations: list[dict[str, Any]]) -> list[str]:
    lines = []
    for violation in violations:
        for node in violation["nodes"][:3]:
            lines.append(f"{violation['id']} ({violation['impact']}): {node['target']}")
    return lines


def widget_open_states(page: Any) -> Iterator[str]:
    """Open the duty widget one duty at a time: pick the duty (its label), then open what it
    discloses (<details>, collapsed aria-expanded controls). Yields the duty's id each time
    the widget is in an open state. Running the model is not part of it (see the run test)."""
    duties = page.locator(f".{WIDGET_MARKER} .tk-duty")
    for index in range(duties.count()):
        duty = duties.nth(index)
        duty.locator("label").first.click()
        # A duty's run, and the trace's rows, come from the run's own page (support.duties).
        expect(duty.locator(".tk-run__file")).to_have_count(0, timeout=LOADED_MS)
        page.evaluate(
            """(marker) => {
              for (const section of document.querySelectorAll("." + marker)) {
                for (const details of section.querySelectorAll("details")) details.open = true;
                for (const control of section.querySelectorAll('[aria-expanded="false"]')) {
                  if (control.offsetParent !== null) control.click();
                }
              }
            }""",
            WIDGET_MARKER,
        )
        expect(duty.locator("details.tk-trace[data-rows]")).to_have_count(0, timeout=LOADED_MS)
        yield str(duty.get_attribute("data-duty") or index)


# -- watching a page load ---------------------------------------------------------------------

# Recorded in every document before its own scripts run: the browser fires this event for
# each blocked load or inline script, whatever the console shows.
CSP_LISTENER = """
(() => {
  const seen = [];
  Object.defineProperty(window, "__tkCspViolations", { value: seen });
  document.addEventListener("securitypolicyviolation", (event) => {
    seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || "inline code"}` +
              ` (${event.sourceFile || "page"}:${event.lineNumber})`);
  });
})();
"""


@dataclass
class Watch:
    """What one page did while it loaded: requests that left the origin, CSP violations (event
    and console), uncaught errors."""

    origin: str
    remote: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def on_request(self, request: Any) -> None:
        url = request.url
        if not url.startswith(self.origin) and not url.startswith(("data:", "blob:")):
            self.remote.append(url)

    def on_console(self, message: Any) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(message.text[:200])

    def problems(self) -> list[str]:
        return (
            [f"request left {self.origin}: {url}" for url in self.remote]
            + [f"CSP violation: {text}" for text in self.violations]
            + [f"console: {text}" for text in self.console]
            + [f"uncaught error: {text}" for text in self.errors]
        )


@contextlib.contextmanager
def watching_context(browser: Any, origin: str, **options: Any) -> Iterator[Any]:
    """A browser context that aborts (and lets a Watch record) every request to another origin:
    the test never depends on, or waits for, the outside network."""
    context = browser.new_context(service_workers="block", **options)
    context.add_init_script(CSP_LISTENER)
    context.route(lambda url: not url.startswith(origin), lambda route: route.abort())
    try:
        yield context
    finally:
        context.close()


def watch_page(page: Any, origin: str) -> Watch:
    watch = Watch(origin)
    page.on("request", watch.on_request)
    page.on("console", watch.on_console)
    page.on("pageerror", lambda error: watch.errors.append(str(error)[:200]))
    return watch


def load_and_watch(context: Any, origin: str, urls: list[str], tabs: int = 6) -> dict[str, Watch]:
    """Load each URL until the network is idle and return what each did. A few tabs load side
    by side (the idle waits overlap) and are reused: a new tab per page costs more than a load."""
    watches: dict[str, Watch] = {}
    pages = [context.new_page() for _ in range(min(tabs, len(urls)))]
    current: dict[int, Watch] = {}
    for index, page in enumerate(pages):
        # Events go to the watch of the URL the tab is loading now.
        page.on("request", lambda request, i=index: current[i].on_request(request))
        page.on("console", lambda message, i=index: current[i].on_console(message))
        page.on("pageerror", lambda error, i=index: current[i].errors.append(str(error)[:200]))
    for start in range(0, len(urls), len(pages)):
        batch = list(zip(pages, urls[start : start + len(pages)], strict=False))
        for index, (page, url) in enumerate(batch):
            current[index] = watches[url] = Watch(origin)
            page.goto(url, wait_until="commit")
        for page, url in batch:
            page.wait_for_load_state("load")
            page.wait_for_load_state("networkidle")
            watches[url].violations.extend(page.evaluate("window.__tkCspViolations || []"))
    for page in pages:
        page.close()
    return watches


# -- weight -----------------------------------------------------------------------------------

GZIP_LEVEL = 6  # zlib's default, and what a server typically sends (Apache, most CDNs)
COUNTED = ("html", "css", "js", "font")  # what the gate counts; the rest is reported


def kind_of(resource_type: str, url: str) -> str:
    suffix = Path(urlsplit(url).path).suffix.lower()
    if resource_type == "document":
        return "html"
    if resource_type == "stylesheet" or suffix == ".css":
        return "css"
    if resource_type == "script" or suffix in {".js", ".mjs"}:
        return "js"
    if resource_type == "font" or suffix in {".woff2", ".woff", ".ttf", ".otf"}:
        return "font"
    return "other"


@dataclass(frozen=True)
class Resource:
    url: str
    kind: str
    raw: int
    gzip: int


@dataclass
class Weight:
    page: str
    resources: list[Resource]

    def total(self, measure: str, kinds: tuple[str, ...] = COUNTED) -> int:
        return sum(getattr(item, measure) for item in self.resources if item.kind in kinds)

    @property
    def raw(self) -> int:
        return self.total("raw")

    @property
    def gzip(self) -> int:
        return self.total("gzip")


def measure_weight(browser: Any, base_url: str, page_path: str) -> Weight:
    """Load one page in a fresh context (empty cache) and record every response until the
    network is idle: no interaction. Sizes are the response bodies (the test server does not
    compress), gzip sizes are each body compressed at GZIP_LEVEL."""
    context = browser.new_context(service_workers="block")
    context.route(lambda url: not url.startswith(base_url), lambda route: route.abort())
    finished: list[Any] = []
    context.on("requestfinished", lambda request: finished.append(request))
    page = context.new_page()
    try:
        page.goto(base_url + page_path, wait_until="load")
        page.wait_for_load_state("networkidle")
        resources = []
        for request in finished:
            response = request.response()
            if response is None:
                continue
            body = response.body()
            resources.append(
                Resource(
                    url=request.url.removeprefix(base_url),
                    kind=kind_of(request.resource_type, request.url),
                    raw=len(body),
                    gzip=len(gzip.compress(body, compresslevel=GZIP_LEVEL)),
                )
            )
    finally:
        context.close()
    return Weight(page_path, resources)


def weight_table(ours: Weight, plain: Weight) -> list[tuple[str, int, int, float]]:
    """Rows (measure, ours, plain, ratio) for raw and gzip, by kind and in total."""
    rows = []
    for measure in ("raw", "gzip"):
        for kind in (*COUNTED, "other"):
            mine, theirs = ours.total(measure, (kind,)), plain.total(measure, (kind,))
            rows.append((f"{kind} {measure}", mine, theirs, mine / theirs if theirs else 0.0))
        mine, theirs = ours.total(measure), plain.total(measure)
        rows.append((f"TOTAL {measure} (html+css+js+font)", mine, theirs, mine / theirs))
    return rows


def format_weight(ours: Weight, plain: Weight) -> str:
    lines = [f"{'measure':36} {'ours':>10} {'plain':>10} {'ratio':>7}"]
    for name, mine, theirs, ratio in weight_table(ours, plain):
        lines.append(f"{name:36} {mine:>10,} {theirs:>10,} {ratio:>7.3f}")
    return "\n".join(lines)


# -- the plain mkdocs-material baseline -------------------------------------------------------

SKIP_TAGS = {"script", "style", "svg", "input", "button", "select", "textarea", "template"}
BLOCK_TAGS = {
    "p",
    "li",
    "dt",
    "dd",
    "figcaption",
    "legend",
    "label",
    "caption",
    "tr",
    "blockquote",
    "summary",
}


def _inline(node: Tag) -> str:
    text = re.sub(r"\s+", " ", node.get_text(" ")).strip()
    # Plain text must stay plain: no emphasis, links or HTML from stray characters.
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", text)


def _blocks(node: Tag) -> Iterator[str]:
    for child in node.children:
        if isinstance(child, NavigableString):
            text = str(child).strip()
            if text:
                yield re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", re.sub(r"\s+", " ", text))
            continue
        if not isinstance(child, Tag) or child.name in SKIP_TAGS:
            continue
        classes = child.get_attribute_list("class")
        if "headerlink" in classes:
            continue
        if re.fullmatch(r"h[1-6]", child.name):
            yield "#" * int(child.name[1]) + " " + _inline(child)
        elif child.name == "pre" or "highlight" in classes:
            code = child.find("code") or child
            language = next(
                (
                    name.removeprefix("language-")
                    for element in (child, code)
                    for name in element.get("class") or []
                    if name.startswith("language-")
                ),
                "text",
            )
            body = code.get_text().rstrip("\n")
            yield f"```{language}\n{body}\n```"
        elif child.name in BLOCK_TAGS:
            text = _inline(child)
            if text:
                yield text
        else:
            yield from _blocks(child)


def plain_markdown(html_page: Path) -> str:
    """A built page's content as plain Markdown: headings, paragraphs and code blocks only."""
    document = BeautifulSoup(html_page.read_text(encoding="utf-8"), "html.parser")
    body = document.select_one("article.md-content__inner") or document.body
    assert body is not None, f"{html_page} has no body"
    return "\n\n".join(_blocks(body)) + "\n"


class _ConfigLoader(yaml.SafeLoader):
    """mkdocs.yml may hold mkdocs' own tags (!ENV, !relative, python names): read them as
    nothing; the baseline needs only plain keys."""


_ConfigLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def build_plain_baseline(site: Path, project: Path, engine: str = "mkdocs") -> Path:
    """Build the same course as the plain theme of `engine` (mkdocs-material, or Zensical's):
    every page of `site` as plain Markdown at the same path, the same theme settings (without
    our overrides), the theme's own Markdown extensions (no trafikist blocks), the search
    plugin. Mirroring every page keeps the navigation (part of every page's HTML) the same size
    on both sides. Returns the site."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_ConfigLoader)
    theme = dict(config["theme"])
    theme.pop("custom_dir", None)
    extensions = [
        entry
        for entry in config.get("markdown_extensions", [])
        if not str(next(iter(entry)) if isinstance(entry, dict) else entry).startswith("trafikist")
    ]
    docs = project / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for page in site_pages(site):
        if page == "404.html":
            continue  # mkdocs-material writes its own
        target = docs / Path(page).with_suffix(".md")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(plain_markdown(site / page), encoding="utf-8")
    plain = {
        "site_name": config.get("site_name", "Trafikist"),
        "site_description": config.get("site_description", ""),
        "theme": theme,
        "plugins": ["search"],
        "markdown_extensions": extensions,
    }
    (project / "mkdocs.yml").write_text(yaml.safe_dump(plain, sort_keys=False), encoding="utf-8")
    out = project / "site"
    if engine == "mkdocs":
        result = mkdocs_build(project, out, strict=False)
    else:  # Zensical builds the folder's site/, as it is configured to
        command = [sys.executable, "-m", engine, "build"]
        result = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"the plain baseline did not build:\n{result.stderr}")
    return out


def link_tree(source: Path, destination: Path) -> Path:
    """A copy of a built site made of hard links (fast, and the Pyodide runtime is large)."""

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, destination, copy_function=link)
    return destination
