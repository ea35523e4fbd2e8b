"""What a preview rebuild keeps from the last build, whatever the engine.

Under a preview (`mkdocs serve`, `trafikist serve --engine zensical`) every save rebuilds the
site. With one module changed, the other pages' course Markdown is the same, so this keeps it:
each page's Markdown is keyed by everything the renderer reads for it, and rendered again only
when that key changes. The engines' own caches sit on top (the MkDocs adapter's page caches,
Zensical's cache of rendered Markdown), and both key on the Markdown this writes, so a page
whose Markdown is unchanged costs them little too.

TRAFIKIST_RENDER_CACHE=0 turns every page cache off, for the before/after benchmark.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.course.examples import example_path
from trafikist.course.structure import Page, Status

SWITCH = "TRAFIKIST_RENDER_CACHE"
MAX_ENTRIES = 2048


def caches_enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


def digest(*parts: object) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(_stable(part).encode("utf-8", "surrogatepass"))
        hasher.update(b"\0")
    return hasher.hexdigest()


def _stable(value: object) -> str:
    """A text for a value that is the same from one build to the next (no object addresses)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return hashlib.sha256(value).hexdigest()
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_stable(k)}:{_stable(v)}" for k, v in sorted(
            value.items(), key=lambda item: str(item[0]))) + "}"  # fmt: skip
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        return "[" + ",".join(_stable(item) for item in items) + "]"
    if isinstance(value, int | float | bool) or value is None:
        return repr(value)
    get_configs = getattr(value, "getConfigs", None)
    if callable(get_configs):  # a Markdown extension instance: its class and its options
        kind = type(value)
        return f"{kind.__module__}.{kind.__qualname__}({_stable(get_configs())})"
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
    return f"{type(value).__qualname__}:{value}"


def files_signature(paths: Iterable[Path]) -> str:
    """Names, sizes and modification times of every file under the given folders."""
    parts = []
    for root in paths:
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts:
                    stat = path.stat()
                    parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
        elif root.is_file():
            stat = root.stat()
            parts.append(f"{root}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(parts)


def put[T](store: dict[str, tuple[str, T]], name: str, key: str, value: T) -> None:
    """Keep one keyed entry; a store that grows past MAX_ENTRIES starts again."""
    if len(store) > MAX_ENTRIES:
        store.clear()
    store[name] = (key, value)


class MemoryBytecodeCache(jinja2.BytecodeCache):
    """Compiled Jinja templates kept in memory across rebuilds (the course's and a theme's)."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.store.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


class DiskBytecodeCache(jinja2.BytecodeCache):
    """Compiled Jinja templates kept on disk from one build to the next (the course's and
    the MkDocs theme's), as Python keeps a module's bytecode: compiling the theme's forty
    templates costs a build about half a second of CPU time.

    It is the machine's cache of derived files (trafikist.base.diskcache, `templates/`).
    Jinja checks an entry against its template's source and against its own version and
    Python's; the key here adds the template's name and file and whatever of the environment
    its compiled code depends on (delimiters, whitespace rules, autoescaping, extensions),
    so another environment's or a changed template's entry is never read.
    """

    KEEP = 512  # entries: a few checkouts' and themes' templates

    def __init__(self) -> None:
        self.folder = cache_folder("templates")
        self.written = False

    def get_bucket(
        self, environment: jinja2.Environment, name: str, filename: str | None, source: str
    ) -> jinja2.bccache.Bucket:
        key = digest(name, filename or "", _compiled_by(environment, name))
        bucket = jinja2.bccache.Bucket(environment, key, self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = read_entry(self.folder / bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        write_entry(self.folder / bucket.key, bucket.bytecode_to_string())
        if not self.written:  # once a build: the most recently used entries stay
            self.written = True
            prune(self.folder, "*", self.KEEP)


def _compiled_by(environment: jinja2.Environment, name: str) -> str:
    """What of `environment` a template's compiled code depends on."""
    autoescape = environment.autoescape
    return digest(
        jinja2.__version__,
        [
            environment.block_start_string, environment.block_end_string,
            environment.variable_start_string, environment.variable_end_string,
            environment.comment_start_string, environment.comment_end_string,
            environment.line_statement_prefix or "", environment.line_comment_prefix or "",
            environment.trim_blocks, environment.lstrip_blocks, environment.newline_sequence,
            environment.keep_trailing_newline, environment.optimized, environment.is_async,
            environment.finalize is not None,
        ],
        autoescape(name) if callable(autoescape) else bool(autoescape),
        sorted(environment.extensions),
    )  # fmt: skip


@dataclass
class MarkdownCache:
    """Each course page's Markdown across preview rebuilds, by what the renderer reads."""

    kept: dict[str, tuple[str, object]] = field(default_factory=dict)
    finished: dict[str, tuple[str, object]] = field(default_factory=dict)  # finalize_html's
    evidence: dict[str, tuple[str, object]] = field(default_factory=dict)  # the pages' data
    keys: dict[str, str] = field(default_factory=dict)  # this build's key of each page
    bytecode: MemoryBytecodeCache = field(default_factory=MemoryBytecodeCache)
    course_key: str = ""

    def start(self, pages: list[Page], inputs: str) -> None:
        """This build's key shared by every page: the course's titles, summaries, statuses and
        order (headers, cards, "Up next", the home page), and `inputs`, the signature of the
        files outside modules/ that generated parts read (registry, model, widgets)."""
        self.keys = {}
        self.course_key = digest(
            [(p.id, p.kind, p.title, p.summary, p.status, p.path, p.number,
              p.parent.id if p.parent else "", p.meta.get("up_next")) for p in pages],
            inputs,
        )  # fmt: skip

    def page_markdown(self, page: Page, pages: list[Page], render: Callable[[], str]) -> str:
        """The page's Markdown, kept when its own text, duties and scenarios, worked example
        and (for a planned page, whose "Linked from" list reads them) the other pages' text
        are unchanged."""
        if not caches_enabled():
            return render()
        if page.source is None:
            return self._generated_page(page, pages, render)
        parts: list[object] = [self.course_key, page.id, page.body, page.meta, repr(page.duties)]
        if page.duties and page.scenarios_folder is not None:
            parts.append(files_signature([page.scenarios_folder]))
        example = example_path(page)
        if example is not None and example.is_file():
            parts.append(example.read_bytes())
        if page.status is Status.PLANNED:
            parts.append([p.body for p in pages])
        key = self.keys[page.id] = digest(*parts)
        kept = self.kept.get(page.id)
        if kept is not None and kept[0] == key:
            return str(kept[1])
        markdown = render()
        put(self.kept, page.id, key, markdown)
        return markdown

    def _generated_page(self, page: Page, pages: list[Page], render: Callable[[], str]) -> str:
        """A page the build writes for a module (its How we know), kept while no file of the
        module's folder changed: its sentences, their checks' sources (duties, scenarios,
        transcripts) and so its evidence all lie there, or among this build's inputs."""
        module = next((p for p in pages if p.id == page.meta.get("module")), None)
        if module is None or module.source is None:
            return render()
        folder = module.source.parent
        key = digest(self.course_key, page.id, page.body, page.meta, files_signature([folder]))
        kept = self.kept.get(page.id)
        if kept is not None and kept[0] == key:
            return str(kept[1])
        markdown = render()
        put(self.kept, page.id, key, markdown)
        return markdown

    def evidence_text(self, page: Page, make: Callable[[], str | None]) -> str | None:
        """The page's evidence data (what "How we know" loads), kept with its Markdown: the
        same marks and foot list, read from the same checks, under the same key."""
        key = self.keys.get(page.id) if caches_enabled() else None
        if key is None:
            return make()
        kept = self.evidence.get(page.id)
        if kept is not None and kept[0] == key:
            return None if kept[1] is None else str(kept[1])
        text = make()
        put(self.evidence, page.id, key, text)
        return text

    def finalized(self, name: str, html: str, finalize: Callable[[], str]) -> str:
        """A page's HTML with its id: links resolved and its badges (Renderer.finalize_html):
        the same for the same HTML in a course whose pages' addresses, titles and statuses
        (course_key) are the same."""
        if not caches_enabled():
            return finalize()
        key = digest(self.course_key, html)
        kept = self.finished.get(name)
        if kept is not None and kept[0] == key:
            return str(kept[1])
        finished = finalize()
        put(self.finished, name, key, finished)
        return finished
