"""What mkdocs-material's search indexes of a page: its prose, not the runs' trace tables
(trafikist.mkdocs_plugin.search). A trace leaves out its cells' end tags, which made the search
plugin's parser cost grow with the square of its rows (a run of 3600 s never finished
building); without the tables, a page's indexing is linear in the page."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from mkdocs.config import load_config

from support import ROOT, copy_project
from trafikist.mkdocs_plugin.search import index_without_traces, without_traces
from trafikist.model import Simulation
from trafikist.model_view.draw import render_trace_html

SCENARIO = ROOT / "modules/04-blocking-timers-and-the-bus/scenarios/promote-due.yml"


def _trace_html(duration: int) -> str:
    data = yaml.safe_load(SCENARIO.read_text(encoding="utf-8"))
    data["duration"] = duration
    return render_trace_html(Simulation(data, None, source=str(SCENARIO)).run())


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # -> MkDocsConfig
    project = copy_project(tmp_path / "project", ("mkdocs.yml", "overrides", "docs"))
    (project / "modules").mkdir()
    monkeypatch.chdir(project)
    loaded = load_config(config_file=str(project / "mkdocs.yml"))
    loaded.plugins["material/search"].on_config(loaded)  # the build's new index
    return loaded


def test_the_index_reads_a_page_without_its_trace_tables(config) -> None:
    trace = _trace_html(400)  # some 1,600 rows
    assert trace.count("<td") > 5_000
    content = (
        '<h2 id="the-run">The run</h2><p>The consumer promotes each due job.</p>'
        f"{trace}<p>After the run, every job is done.</p>"
    )
    page = SimpleNamespace(content=content, toc=[], url="trafikist/04/", title="Module 04", meta={})
    index_without_traces(config)
    index_without_traces(config)  # once is enough: a second call changes nothing
    index = config.plugins["material/search"].search_index
    index.add_entry_from_context(page)
    text = " ".join(entry["text"] for entry in index.entries)
    assert "The consumer promotes each due job." in text
    assert "After the run, every job is done." in text
    assert "BLPOP" not in text and "EVALSHA" not in text  # the trace's commands
    assert page.content == content  # the page itself keeps its trace


def test_without_traces_drops_each_trace_table_and_nothing_else() -> None:
    trace = _trace_html(10)
    html = f"<p>before</p>{trace}<p>between</p>{trace}<p>after</p>"
    kept = without_traces(html)
    assert "<table" not in kept and "<td" not in kept
    assert kept.count("<details") == 2  # the disclosure and its summary stay, empty
    for word in ("before", "between", "after"):
        assert f"<p>{word}</p>" in kept
    assert without_traces("<p>no trace</p>") == "<p>no trace</p>"
