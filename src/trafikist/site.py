"""The site as the core sees it: course, registry checks and renderer, with no engine in it.

An engine adapter (the MkDocs plugin today) asks this module for the pages to write, their
Markdown, the navigation tree and the HTML finishing step.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trafikist.course.loader import check_links, load_course
from trafikist.course.render import Renderer
from trafikist.course.structure import Course, Kind, Page


@dataclass
class Site:
    course: Course
    renderer: Renderer

    def pages(self) -> list[Page]:
        """Every page to write, home first, then course order."""
        return list(self.course.pages.values())

    def nav(self, directory_urls: bool = True) -> list[dict[str, object]]:
        """The navigation tree, derived from the course; titles keep the course's labels."""
        tree: list[dict[str, object]] = [{"Home": self.course.home.src_uri(directory_urls)}]
        for book in self.course.books:
            entries: list[object] = []
            for page in book.pages:
                if page.dives:
                    entries.append(
                        {
                            f"{page.number_label} · {page.title}": [
                                page.src_uri(directory_urls),
                                *(
                                    {f"{dive.number_label} · {dive.title}": dive.src_uri()}
                                    for dive in page.dives
                                ),
                            ]
                        }
                    )
                elif page.kind is Kind.MODULE:
                    entries.append({f"{page.number_label} · {page.title}": page.src_uri()})
                else:
                    entries.append({page.title: page.src_uri()})
            if entries:
                tree.append({book.title: entries})
        return tree


def load_site(modules_dir: Path, *, directory_urls: bool = True) -> Site:
    """Load and check everything the site is built from; raise CourseError on bad input."""
    course = load_course(Path(modules_dir))
    check_links(course)
    return Site(course=course, renderer=Renderer(course, directory_urls=directory_urls))
