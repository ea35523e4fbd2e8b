"""A page's verdicts ("How we know" and its problems), kept on disk from the build that checked
the page.

A one-shot build checks the course in a child (trafikist.core.checks_child) while the engine
renders in the build's own process, whose memo holds no verdict: the page's evidence would be
the same checks run again there, page by page (about 1.4 s of CPU time for module 04's course).
So the process that runs the checks keeps each page's verdicts, as the checks' memo holds them
(one `Checked` a check of PAGE_CHECKS: its problems and the sentences it proved), in the
machine's cache of derived files (trafikist.base.diskcache, `evidence/`), keyed by everything
those verdicts are keyed by in the memo (the page, the facts' signatures, the files each check
reads) and by trafikist's own code. The build's process reads a page's evidence there and runs
its checks only for a page it does not find (the child has not reached it yet, or the cache
cannot be written); the next build's checks find each unchanged page's verdicts there too
(`recall`), and check only what changed, as a preview's rebuild does from its memo.

TRAFIKIST_EVIDENCE_CACHE=0 leaves the cache out (the "before" of scripts/bench_evidence.py).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.checks import PAGE_CHECKS, Facts, PageCheck, page_evidence, page_syntax_problems
from trafikist.checks.inputs import Checked, Fact, page_text
from trafikist.checks.memo import CHECKS, remembered
from trafikist.core.cache import digest
from trafikist.course.evidence import CheckedSentence
from trafikist.course.structure import Page

SWITCH = "TRAFIKIST_EVIDENCE_CACHE"
KIND = "evidence"
KEEP = 1024  # entries: a few checkouts' courses, with their recent edits


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


def key(page: Page, signatures: dict[Fact, str]) -> str:
    """Everything the page's checks read (each check's memo key: PageCheck.key), with the page's
    own text and each other file's signature read once, though every check reads the text and
    several read the same files."""
    files: dict[Callable[[Page], str], str] = {}
    parts: list[object] = [KIND, code_version(), *page_text(page)]
    for check in PAGE_CHECKS:
        parts += [check.name, *(signatures[fact] for fact in check.facts)]
        for read in check.files:
            if read not in files:
                files[read] = read(page)
            parts.append(files[read])
    return digest(*parts)


def recall(page: Page, signatures: dict[Fact, str]) -> bool:
    """Put the page's verdicts kept on disk into the checks' memo, where its checks and its
    evidence find them. True when the memo holds them now (kept, or already there)."""
    if not enabled() or page.source is None:
        return False
    keys = [check.key(page, signatures) for check in PAGE_CHECKS]
    if all(memo_key in CHECKS for memo_key in keys):
        return True
    found = read_entry(cache_folder(KIND) / key(page, signatures))
    if found is None:
        return False
    # The entry is sealed with its content's hash, and its key holds the code's: it holds one
    # verdict a check, in PAGE_CHECKS' order.
    verdicts: tuple[Checked, ...] = pickle.loads(found)
    for memo_key, verdict in zip(keys, verdicts, strict=True):
        CHECKS.put(memo_key, verdict)
    return True


def evidence_of(page: Page, facts: Facts, signatures: dict[Fact, str]) -> list[CheckedSentence]:
    """The page's evidence: from the verdicts of a build with the same page, facts and code;
    else from its checks (their verdicts kept for the next build)."""
    if enabled() and page.source is not None and not recall(page, signatures):
        evidence = page_evidence(page, facts, signatures)
        _keep(page, facts, signatures)
        return evidence
    return page_evidence(page, facts, signatures)


def _keep(page: Page, facts: Facts, signatures: dict[Fact, str]) -> None:
    """The page's verdicts, from the memo (this process checked it), onto the disk. A page whose
    syntax is broken has none: its checks do not run."""
    if page_syntax_problems(page):
        return

    def verdict(check: PageCheck) -> Checked:
        return remembered(check.key(page, signatures), lambda: check.run(page, facts))

    verdicts = tuple(verdict(check) for check in PAGE_CHECKS)
    path = cache_folder(KIND) / key(page, signatures)
    write_entry(path, pickle.dumps(verdicts, protocol=pickle.HIGHEST_PROTOCOL))


def recall_all(pages: list[Page], signatures: dict[Fact, str]) -> None:
    """Before the checks run: every unchanged page's verdicts from the disk."""
    for page in pages:
        recall(page, signatures)


def keep_all(pages: list[Page], facts: Facts, signatures: dict[Fact, str]) -> None:
    """Once the checks ran in this process: every page's verdicts kept (they are in the memo,
    so this costs no check), for a build's process that renders without them, and for the
    next build's checks."""
    if not enabled():
        return
    for page in pages:
        if page.source is not None and not (cache_folder(KIND) / key(page, signatures)).is_file():
            _keep(page, facts, signatures)
    prune(cache_folder(KIND), "*", KEEP)
