"""What MkDocs' preview keeps across rebuilds (trafikist.mkdocs_plugin.cache.RenderCache)."""

from __future__ import annotations

from types import SimpleNamespace

from trafikist.mkdocs_plugin.cache import RenderCache


def test_a_kept_pages_output_is_finished_once() -> None:
    """MkDocs' preview finishes every page's output (the policy, the theme's fixes); a page
    whose output is the same as last time is finished as last time."""
    cache = RenderCache()
    page = SimpleNamespace(file=SimpleNamespace(src_uri="trafikist/04/index.md"))
    calls: list[str] = []

    def finish(output: str) -> str:
        calls.append(output)
        return output + "<!-- finished -->"

    for output in ("<html>a</html>", "<html>a</html>", "<html>b</html>"):
        # A page as MkDocs gives it: its file's src_uri is all that finish reads.
        finished = cache.finish(page, output, finish)  # type: ignore[arg-type]
        assert finished == output + "<!-- finished -->"
    assert calls == ["<html>a</html>", "<html>b</html>"]
