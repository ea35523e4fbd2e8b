"""Every check of the course, in one package, behind one entry point:

    check_site(course, renderer, registry, manifest, seed) -> list[Problem]

It runs, in order:

- the library manifest against the seed (`manifest`);
- every `id:` link names a page (`links.check_id_links`);
- each page written by an author (`page.check_page`): its registry excerpts, verbs, claims
  (`claims`) and library names, and the provenance of every sentence about trafikey or
  EchoMQ (`provenance`, against the seed: `seed`, numbers read by `quantity`); then the
  expectations and choice markers of what the model's runs show (`expectations`);
- every link's anchor, and no relative path (`links.check_link_targets`).

A page's problems are kept in the one memo of the checks (`memo.CHECKS`) by everything they
read, so a preview that rebuilds after one module's edit checks that module again only.
The built site's links, which only an engine with no link validation of its own needs
(Zensical), are checked by `links.dead_links_in` on the finished HTML.

A new check goes here: a module of its own, called from `check_site` (or from `check_page` when
it reads one page), with a `Problem` for each finding (file, line, what, fix).
"""

from __future__ import annotations

from trafikist.base.errors import Problem
from trafikist.base.files import file_signature
from trafikist.checks.expectations import check_page_runs
from trafikist.checks.links import check_id_links, check_link_targets
from trafikist.checks.manifest import Manifest, entries
from trafikist.checks.memo import CHECKS
from trafikist.checks.page import check_page
from trafikist.checks.seed import Seed
from trafikist.course.examples import example_path
from trafikist.course.render import Renderer
from trafikist.course.runs import model_signature
from trafikist.course.structure import Course, Page
from trafikist.registry import Registry

__all__ = ["check_site"]


def check_site(
    course: Course, renderer: Renderer, registry: Registry, manifest: Manifest, seed: Seed
) -> list[Problem]:
    """Every problem of the course, each once, in the order above; an empty list when the
    course holds."""
    problems = _manifest_against_seed(manifest, seed)
    problems += check_id_links(course)
    inputs = file_signature([registry.root, manifest.file, seed.file])
    for page in course.pages.values():
        if page.source is not None:
            problems += _page_problems(page, registry, manifest, seed, inputs)
    problems += check_link_targets(course, renderer)
    unique: dict[tuple[str, int | None, str], Problem] = {}
    for problem in problems:
        unique.setdefault((str(problem.file), problem.line, problem.what), problem)
    return list(unique.values())


def _manifest_against_seed(manifest: Manifest, seed: Seed) -> list[Problem]:
    """Every entry of the library manifest quotes a sentence the seed really has."""
    return [
        Problem(
            manifest.file,
            entry.line,
            f"the seed sentence of '{entry.name}' is not in the seed ({seed.file.name}).",
            "Quote the seed word for word; a name no seed sentence gives does not belong here.",
        )
        for entry in entries(manifest)
        if not seed.contains(entry.seed)
    ]


def _page_problems(
    page: Page, registry: Registry, manifest: Manifest, seed: Seed, inputs: str
) -> list[Problem]:
    """The page's registry checks, provenance and runs, kept while nothing they read changes:
    the page's text, its front matter and duties, its scenarios, the model and the registry."""
    key = (
        "page",
        inputs,
        str(page.source),
        page.body_line,
        page.body,
        repr(sorted(page.meta.items(), key=lambda item: str(item[0]))),
        repr(page.duties),
        _runs_signature(page),
    )
    found = CHECKS.get_or_make(
        key, lambda: check_page(page, registry, manifest, seed) + check_page_runs(page)
    )
    return list(found)  # type: ignore[call-overload]


def _runs_signature(page: Page) -> str:
    """What a page's expectations read besides its text: its scenarios and the model's code."""
    if not page.duties and "{expect:" not in page.body:
        return ""
    assert page.source is not None
    return (
        model_signature()
        + "\n"
        + file_signature(
            [page.source.parent / "scenarios", *filter(None, [example_path(page)])], "*.yml"
        )
    )
