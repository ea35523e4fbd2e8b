"""A page's verdicts ("How we know" and its problems), kept on disk from the build that checked
the page.

A one-shot build checks the course in a child (trafikist.core.checks_child) while the engine
renders in the build's own process, whose memo holds no verdict: the page's evidence would be
the same checks run again there, page by page (about 1.4 s of CPU time for module 04's course).
So the process that runs the checks keeps each page's verdicts as soon as it has checked the
page, as the checks' memo holds them (one `Checked` a check of PAGE_CHECKS: its problems and
the sentences it proved), in the machine's cache of derived files (trafikist.base.diskcache,
`evidence/`), keyed by everything those verdicts are keyed by in the memo (the page, the facts'
signatures, the files each check reads) and by trafikist's own code. The build's process reads
a page's evidence there; while the child is still checking, it waits for the page's entry
rather than run the same checks on its own core, and it runs them itself only when the child
ended without keeping the page (a page whose syntax is broken, a cache that cannot be
written). The next build's checks find each unchanged page's verdicts there too, and check only
what changed, as a preview's rebuild does from its memo.

TRAFIKIST_EVIDENCE_CACHE=0 leaves the cache out (the "before" of scripts/bench_evidence.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.checks import (
    PAGE_CHECKS,
    Facts,
    merged_evidence,
    page_evidence,
    page_syntax_problems,
)
from trafikist.checks.inputs import Checked, Fact, PageReads
from trafikist.checks.memo import CHECKS
from trafikist.core.cache import digest
from trafikist.course.evidence import CheckedSentence
from trafikist.course.structure import Page

SWITCH = "TRAFIKIST_EVIDENCE_CACHE"
KIND = "evidence"
KEEP = 1024  # entries: a few checkouts' courses, with their recent edits
POLL = 0.005  # seconds between looks for a page's entry while the child checks


def enabled() -> bool:
    return os.environ.get(SWITCH, "1") != "0"


@functools.cache
def code_version() -> str:
    """trafikist's code, as a hash of its source files (the checks, the model they run, how
    evidence is made): an edited check never reads another code's evidence."""
    package = Path(__file__).resolve().parents[1]
    hasher = hashlib.sha256(sys.version.encode())
    for path in sorted(package.rglob("*.py")):
        hasher.update(str(path.relative_to(package)).encode())
        hasher.update(path.read_bytes())
    return hasher.hexdigest()


@dataclass
class PageKeys:
    """A page's keys, worked out once a build: each check's in the memo, and the entry's on disk
    (everything its checks read, with the page's text and each other file read once, and
    trafikist's code)."""

    memo: list[tuple[object, ...]]
    entry: Path

    @classmethod
    def of(cls, page: Page, signatures: dict[Fact, str]) -> PageKeys:
        reads = PageReads(page)
        parts: list[object] = [KIND, code_version(), *reads.text]
        for check in PAGE_CHECKS:
            parts += [check.name, *(signatures[fact] for fact in check.facts)]
            parts += [reads.file(files) for files in check.files]
        memo = [check.key(page, signatures, reads) for check in PAGE_CHECKS]
        return cls(memo, cache_folder(KIND) / digest(*parts))


@dataclass
class EvidenceStore:
    """One build's verdicts of its pages, on disk and in the checks' memo.

    `elsewhere` is true while another process (the build's checks' child) checks the pages and
    keeps each one's verdicts here: the page's evidence waits for them."""

    facts: Facts
    signatures: dict[Fact, str]
    elsewhere: Callable[[], bool] | None = None
    # Pages whose verdicts the disk holds (found there, or kept by this build).
    _on_disk: set[str] = field(default_factory=set)
    _kept: int = 0  # entries this build wrote
    _keys: dict[str, tuple[Page, PageKeys]] = field(default_factory=dict)

    def _keys_of(self, page: Page) -> PageKeys:
        known = self._keys.get(page.id)
        if known is None or known[0] is not page:
            known = self._keys[page.id] = (page, PageKeys.of(page, self.signatures))
        return known[1]

    def recall(self, page: Page) -> tuple[Checked, ...] | None:
        """The page's verdicts, one a check of PAGE_CHECKS: the memo's (this process checked
        it), else those kept on disk, put into the memo, where its checks find them. None when
        neither holds them."""
        if not enabled() or page.source is None:
            return None
        keys = self._keys_of(page)
        held = [CHECKS.get(memo_key) for memo_key in keys.memo]
        if all(verdict is not None for verdict in held):
            # Under a "page" key the memo holds a check's Checked (trafikist.checks.memo).
            return tuple(cast(Checked, verdict) for verdict in held)
        found = read_entry(keys.entry)
        if found is None:
            return None
        # The entry is sealed with its content's hash, and its key holds the code's: it holds
        # one verdict a check, in PAGE_CHECKS' order, of a page whose syntax holds.
        verdicts: tuple[Checked, ...] = pickle.loads(found)
        for memo_key, verdict in zip(keys.memo, verdicts, strict=True):
            CHECKS.put(memo_key, verdict)
        self._on_disk.add(page.id)
        return verdicts

    def recall_all(self, pages: list[Page]) -> None:
        """Before the checks run: every unchanged page's verdicts, from the disk."""
        for page in pages:
            self.recall(page)

    def keep(self, page: Page) -> None:
        """Once the page's checks ran in this process: its verdicts onto the disk (they are in
        the memo, so this costs no check), for the build's process that renders without them,
        and for the next build's checks. A page whose syntax is broken has none: its checks do
        not run."""
        if not enabled() or page.source is None or page.id in self._on_disk:
            return
        if page_syntax_problems(page):
            return
        keys = self._keys_of(page)
        if keys.entry.is_file():  # kept by an earlier build (the memo held the verdicts)
            self._on_disk.add(page.id)
            return
        verdicts = [CHECKS.get(memo_key) for memo_key in keys.memo]
        if any(verdict is None for verdict in verdicts):
            return  # not checked here (a check broke): nothing to keep
        write_entry(keys.entry, pickle.dumps(tuple(verdicts), protocol=pickle.HIGHEST_PROTOCOL))
        self._on_disk.add(page.id)
        self._kept += 1

    def prune(self) -> None:
        """At most KEEP entries, the most recently used, once this build kept some: listing a
        thousand entries costs more than a preview's rebuild spends on its checks."""
        if enabled() and self._kept:
            prune(cache_folder(KIND), "*", KEEP)

    def evidence(self, page: Page) -> list[CheckedSentence]:
        """The page's evidence, from its verdicts: this process's, or those another process
        kept (waited for while it checks), else its checks run here (and kept)."""
        if not enabled() or page.source is None:
            return page_evidence(page, self.facts, self.signatures)
        verdicts = self.recall(page)
        while verdicts is None and self.elsewhere is not None and self.elsewhere():
            time.sleep(POLL)
            verdicts = self.recall(page)
        if verdicts is not None:
            return merged_evidence(verdicts)
        evidence = page_evidence(page, self.facts, self.signatures)
        self.keep(page)
        return evidence
