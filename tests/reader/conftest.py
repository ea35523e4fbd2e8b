"""The reader's view of the questions and the review page: the fixtures of support.seen (each
size, each palette, the site of each engine served, a reader's page)."""

from support.seen import palette, reader, site_url, viewport  # noqa: F401
