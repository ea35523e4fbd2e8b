"""How we know: one generated page per written module that lists every checked sentence of the
module and its dives, grouped by the kind of its evidence, with the counts, and the sentences
that are the seed's own words. It is the audit a reviewer would otherwise make by hand; what it
shows is what the checks proved (trafikist.course.shown_evidence), as on each page. It is out of
the navigation and the search (every sentence again): each module's and dive's page links to
it at its foot, and it links back to each sentence's mark.

The page's text is the build's; its list is the generated block `/// how-we-know`
(course.render.GENERATED_BLOCKS), which the renderer fills in from the course's evidence.
"""

from __future__ import annotations

from trafikist.course.structure import Book, Course, Kind, Page, Status

HOW_WE_KNOW_BOOK_ID = "how-we-know"
HOW_WE_KNOW_BLOCK = "/// how-we-know\n///"
PAGE_ID = "how-we-know-{module}"


def how_we_know_page_id(module: Page) -> str:
    return PAGE_ID.format(module=module.id)


def how_we_know_pages(course: Course) -> list[Page]:
    """One page per written module (none for a course with none), in a book of their own
    that the course does not list: out of the navigation and the home page."""
    modules = [
        page
        for page in course.pages.values()
        if page.kind is Kind.MODULE and page.status is Status.BUILT and page.source is not None
    ]
    if not modules:
        return []
    book = Book(
        id=HOW_WE_KNOW_BOOK_ID,
        title="How we know",
        summary=(
            "For each written module, every sentence the build checked, with what it was "
            "checked against: the published module, the registry, Valkey, or the model."
        ),
        folder="how-we-know",
        numbered=False,
    )
    for module in modules:
        page = Page(
            id=how_we_know_page_id(module),
            kind=Kind.REFERENCE,
            title=f"How we know · module {module.number_label}",
            summary=f"Every checked sentence of {module.title} and its dives, by its evidence.",
            status=Status.BUILT,
            book=book,
            source=None,
            body=(
                f"Every sentence of [{module.title}](id:{module.id}) and its dives that the "
                "build checks, grouped by what it is checked against, with what the check "
                "read. A sentence checked in two ways is listed under each. The list is "
                "made by the build from its checks: a proof that changes changes it.\n\n"
                "## Every checked sentence { #every-checked-sentence }\n\n"
                + HOW_WE_KNOW_BLOCK
                + "\n"
            ),
            path=f"how-we-know/{module.id}",
            meta={"module": module.id},
        )
        book.pages.append(page)
    return list(book.pages)
