"""Check yourself, across the course: the review page, and which questions each module asks.

The review page is generated: it asks every question of the course again, each with a link to
the page it comes from. The page's script (widgets/checks/) orders them by the reader's
record, which stays in the browser: those answered wrong first, then those not seen for
longest; and it clears the record on request. A module's questions are its own and its
dives'; the module's header and its entry on the home page show how many are answered right.
"""

from __future__ import annotations

from trafikist.course.questions import Question, page_questions
from trafikist.course.structure import Book, Course, Kind, Page, Status

REVIEW_BOOK_ID = "check-yourself"
REVIEW_PAGE_ID = "review"
REVIEW_BLOCK = "/// review\n///"


def asks_questions(course: Course) -> bool:
    return any("/// check" in page.body for page in course.pages.values() if page.source)


def review_page() -> Page:
    """The generated page, in a book of its own."""
    book = Book(
        id=REVIEW_BOOK_ID,
        title="Check yourself",
        summary=(
            "Every question the course asks, on one page: those you answered wrong first, then "
            "those you have not seen for longest. The model works out every answer."
        ),
        folder="review",
        numbered=False,
    )
    page = Page(
        id=REVIEW_PAGE_ID,
        kind=Kind.REVIEW,
        title="Review",
        summary=(
            "Every question of the course again, in the order that helps most: the ones "
            "answered wrong first, then the ones not seen for longest."
        ),
        status=Status.BUILT,
        book=book,
        source=None,
        body=(
            "Each question below comes from a page of the course, and each answer and each "
            "explanation comes from a run of the model that the build checks. Your record "
            "stays in this browser: nothing leaves the page.\n\n"
            "## Every question of the course { #every-question }\n\n" + REVIEW_BLOCK + "\n"
        ),
        path="review",
    )
    book.pages.append(page)
    return page


def module_questions(page: Page) -> list[Question]:
    """A module's questions, its dives' included, in reading order; a dive's are its own."""
    pages = [page, *page.dives] if page.kind is Kind.MODULE else [page]
    return [
        question
        for each in pages
        if each.status is Status.BUILT
        for question in page_questions(each)
    ]


def course_questions(course: Course) -> list[Question]:
    """Every question of the course, in reading order."""
    return [
        question
        for page in course.pages.values()
        if page.source is not None and page.status is Status.BUILT
        for question in page_questions(page)
    ]
