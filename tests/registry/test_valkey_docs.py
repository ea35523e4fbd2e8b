"""The pinned quotes of Valkey's documentation (registry/valkey/docs.yml): read once, each
page at its line, and a slip in the file named at its line in one sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import ROOT
from trafikist.base.errors import CourseError
from trafikist.registry.valkey import DOCS_FILE, load_valkey_docs

pytestmark = pytest.mark.fast


def test_the_pinned_docs_are_read() -> None:
    docs = load_valkey_docs(ROOT / "registry" / "valkey")
    assert docs.repository
    assert len(docs.pages) >= 10


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("repository: x\npages:\n  a: b: c\n", 3, "mapping values are not allowed in this context"),
        ("repository: x\npages: [\n", 3, "did not find expected node content"),
    ],
)
def test_malformed_yaml_is_named_at_its_line(
    tmp_path: Path, text: str, line: int, what: str
) -> None:
    (tmp_path / DOCS_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(CourseError) as raised:
        load_valkey_docs(tmp_path)
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / DOCS_FILE}:{line}: malformed YAML: {what}."), message
    assert "\n" not in message and "<unicode string>" not in message
