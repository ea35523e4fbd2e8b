"""A page's evidence ("How we know"), kept on disk from the build that checked the page.

A one-shot build checks the course in a child (trafikist.core.checks_child) while the engine
renders in the build's own process, whose memo holds no verdict: the page's evidence would be
the same checks run again there, page by page (about 1.4 s of CPU time for module 04's course).
So the process that runs the checks keeps each page's evidence in the machine's cache of
derived files (trafikist.base.diskcache, `evidence/`), keyed by everything the checks' memo
keys it by (the page, the facts' signatures, the files each check reads) and by trafikist's own
code; the build's process reads it there and runs the checks only for a page it does not find
(the child has not reached it yet, or the cache cannot be written).

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
from trafikist.checks import PAGE_CHECKS, Facts, page_evidence
from trafikist.checks.inputs import Fact, page_text
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


def evidence_of(page: Page, facts: Facts, signatures: dict[Fact, str]) -> list[CheckedSentence]:
    """The page's evidence: from the cache when a build with the same page, facts and code
    checked it; else from its checks (kept in the cache for the next build)."""
    if not enabled() or page.source is None:
        return page_evidence(page, facts, signatures)
    path = cache_folder(KIND) / key(page, signatures)
    found = read_entry(path)
    if found is not None:
        # The entry is sealed with its content's hash, and its key holds the code's.
        kept: list[CheckedSentence] = pickle.loads(found)
        return kept
    made = page_evidence(page, facts, signatures)
    write_entry(path, pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
    return made


def keep_all(pages: list[Page], facts: Facts, signatures: dict[Fact, str]) -> None:
    """Once the checks ran in this process: every page's evidence kept (their verdicts are in
    the memo, so this costs no check), for a build's process that renders without them."""
    if not enabled():
        return
    for page in pages:
        evidence_of(page, facts, signatures)
    prune(cache_folder(KIND), "*", KEEP)
