"""The duty widget's build side: the wheel, the lock file, Pyodide's runtime, the baked runs,
the controls' overrides and the drawing (no browser)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from support import MODULE_04, ROOT, add_plugin_options, copy_project, site_build, soup
from trafikist.base.errors import CourseError
from trafikist.core.minify import minify_css, minify_js
from trafikist.core.widget.lock import lock_with_wheel
from trafikist.core.widget.runtime import RUNTIME_FILES, find_pyodide_runtime
from trafikist.core.widget.wheel import BuiltWheel, build_model_wheel
from trafikist.model import run_scenario
from trafikist.model_view.controls import controls_of, overrides_from_controls
from trafikist.model_view.draw import render_result_html, render_timeline_svg, render_trace_html
from trafikist.model_view.live import canonical_json, console, last_trace, rehearse, run
from trafikist.registry import export_command_table, load_registry, resolve_registry_path

PACKAGE = ROOT / "src" / "trafikist"
MODULE = ROOT / "modules" / "04-blocking-timers-and-the-bus"
SCENARIOS = sorted((MODULE / "scenarios").glob("*.yml"))
ASSETS = "assets/trafikist"
TABLE = export_command_table(load_registry(resolve_registry_path(None, ROOT)))
HOSTILE = "<img src=x onerror=alert(1)>"


def scenario_data(name: str) -> dict:
    return yaml.safe_load((MODULE / "scenarios" / f"{name}.yml").read_text(encoding="utf-8"))


# -- the wheel and the lock ---------------------------------------------------------------------


def test_the_wheel_holds_the_model_and_its_drawing_code_only_and_is_reproducible() -> None:
    table = export_command_table(load_registry(resolve_registry_path(None, ROOT)))
    first, second = build_model_wheel(PACKAGE, table), build_model_wheel(PACKAGE, table)
    assert first.data == second.data
    assert first.name == "trafikist_model-0.1.0-py3-none-any.whl"
    archive = zipfile.ZipFile(io.BytesIO(first.data))
    code = [name for name in archive.namelist() if not name.startswith("trafikist_model-")]
    assert "trafikist/__init__.py" in code
    assert {name.split("/")[1] for name in code} == {"__init__.py", "model", "model_view"}
    # The registry's rows of the EMQ verbs, for the model in the page (no registry there).
    assert json.loads(archive.read("trafikist/model/registry_table.json")) == json.loads(
        json.dumps(table)
    )
    assert all(name.endswith(".py") for name in code if not name.endswith("registry_table.json"))
    # RECORD lists every other file with its sha256 (PEP 376 form).
    record = archive.read("trafikist_model-0.1.0.dist-info/RECORD").decode().splitlines()
    for line in record:
        name, digest, size = line.rsplit(",", 2)
        if name.endswith("RECORD"):
            continue
        data = archive.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == f"sha256={expected}" and int(size) == len(data), name


def test_the_lock_file_names_the_wheel_with_its_hash(tmp_path: Path) -> None:
    runtime = find_pyodide_runtime(ROOT / "node_modules")
    wheel = build_model_wheel(PACKAGE, TABLE)
    lock = json.loads(lock_with_wheel(runtime.lock_file, wheel, tmp_path))  # made, not cached
    entry = lock["packages"]["trafikist-model"]
    assert entry["file_name"] == wheel.name
    assert entry["imports"] == ["trafikist"]
    assert entry["sha256"] == hashlib.sha256(wheel.data).hexdigest()
    assert lock["info"]["python"].startswith("3.14")
    # Pyodide's own packages stay listed, unchanged.
    original = json.loads(runtime.lock_file.read_text(encoding="utf-8"))
    assert set(original["packages"]) < set(lock["packages"])


def test_a_missing_runtime_names_the_set_up_command(tmp_path: Path) -> None:
    with pytest.raises(CourseError) as raised:
        find_pyodide_runtime(tmp_path / "node_modules")
    assert "scripts/setup" in str(raised.value)
    assert "pyodide.asm.wasm" in str(raised.value)


def test_a_runtime_other_than_the_pinned_one_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "node_modules" / "pyodide"
    folder.mkdir(parents=True)
    for name in RUNTIME_FILES:
        (folder / name).write_text("{}")
    (folder / "package.json").write_text('{"version": "0.1.0"}')
    (tmp_path / "package.json").write_text('{"dependencies": {"pyodide": "314.0.7"}}')
    with pytest.raises(CourseError, match=r"has Pyodide 0\.1\.0, but package.json pins 314\.0\.7"):
        find_pyodide_runtime(tmp_path / "node_modules")


def test_minified_page_files_keep_their_code() -> None:
    js = "// a comment\nconst a = 1;\n\n  if (a) {\n    go(a); // trailing stays\n  }\n"
    assert minify_js(js) == "const a = 1;\nif (a) {\ngo(a); // trailing stays\n}\n"
    css = (
        "/* why */\n.a .b > c { color: red;  margin: 0 1px; }\n@media (max-width: 4em) { .a{x:y} }"
    )
    assert minify_css(css) == ".a .b>c{color:red;margin:0 1px}@media (max-width:4em){.a{x:y}}\n"


# -- the controls ---------------------------------------------------------------------------------


def test_untouched_controls_make_no_overrides_so_the_run_is_the_baked_one() -> None:
    for path in SCENARIOS:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        defaults = controls_of(data)
        as_sent = {key: value for key, value in defaults.items() if key != "clients"}
        assert overrides_from_controls(data, as_sent) == {}, path.name


def test_changed_controls_become_model_overrides() -> None:
    data = scenario_data("promote-due")
    defaults = controls_of(data)
    assert defaults["send"] == ["Consumer"] and defaults["wire"] == 4 and defaults["beat"] == 1
    changed = {
        **defaults,
        "send": ["Consumer", "Pump"],
        "wire": 6,
        "beat": 2.5,
        "crash": {"client": "consumer", "after": 3},
    }
    assert overrides_from_controls(data, changed) == {
        "processes": ["Consumer", "Pump"],
        "wire": 6,
        "beat": 2.5,
        "faults": [{"client": "consumer", "after": 3}],
    }
    # A scenario with a fault, and the reader choosing no crash: the faults are cleared.
    assert overrides_from_controls(data | {"faults": []}, {**defaults, "crash": None}) == {}


# -- the drawing ----------------------------------------------------------------------------------


def test_every_text_from_a_trace_is_escaped() -> None:
    trace = run_scenario(
        {
            "name": "hostile",
            "duration": 2,
            "streams": [{"name": "s"}],
            "processes": [
                {
                    "kind": "Client",
                    "name": "cli",
                    "commands": [{"at": 0, "argv": ["SET", HOSTILE, HOSTILE]}],
                }
            ],
        }
    )
    trace["jobs"] = [HOSTILE]
    trace["initial"] = {"pending": [HOSTILE]}
    markup = render_result_html(trace)
    assert HOSTILE not in markup
    assert "&lt;img src=x onerror=alert(1)&gt;" in markup
    assert "<img" not in render_timeline_svg(trace) + render_trace_html(trace)


def test_the_same_trace_gives_the_same_markup() -> None:
    data = scenario_data("wake-parked")
    assert render_result_html(run_scenario(data)) == render_result_html(run_scenario(data))


def test_the_live_entry_point_reports_a_bad_scenario_as_a_message() -> None:
    site_file = json.dumps({"scenario": scenario_data("promote-due"), "trace": None})
    result = json.loads(run(site_file, json.dumps({"send": ["StreamConsumer"]})))
    assert "needs a stream" in result["error"]
    ok = json.loads(run(site_file, ""))
    assert set(ok) == {"markup", "summary"}
    assert last_trace() == canonical_json(run_scenario(scenario_data("promote-due")))
    assert console("ZCARD q:schedule") == "(integer) 0"
    assert console(f'SET k "{HOSTILE}"') == "OK"
    assert console("GET k") == f'"{HOSTILE}"'


def test_a_rehearsal_leaves_the_readers_run_and_its_server_alone() -> None:
    """The worker rehearses another scenario after a restore from the snapshot; the console
    must still talk to the reader's run, and the trace stay the reader's."""
    reader = json.dumps({"scenario": scenario_data("promote-due"), "trace": None})
    other = json.dumps({"scenario": scenario_data("publish-append"), "trace": None})
    run(reader, "")
    trace = last_trace()
    assert console('SET mine "reader"') == "OK"
    rehearse(other)
    assert last_trace() == trace
    assert console("GET mine") == '"reader"'


# A second build, in a fresh interpreter: argv is the lock file, the wheel file and the cache.
SECOND_BUILD = """
import sys
from pathlib import Path
from trafikist.core.widget.lock import lock_with_wheel
from trafikist.core.widget.wheel import BuiltWheel
lock, wheel, cache = map(Path, sys.argv[1:])
sys.stdout.buffer.write(lock_with_wheel(lock, BuiltWheel(wheel.name, wheel.read_bytes()), cache))
print("pyodide_lock" in sys.modules, file=sys.stderr)
"""


def test_the_lock_is_made_once_per_wheel_then_read_from_the_cache(tmp_path: Path) -> None:
    """A build that has seen the wheel before does not even import pyodide-lock (pydantic)."""
    runtime = find_pyodide_runtime(ROOT / "node_modules")
    wheel = build_model_wheel(PACKAGE, TABLE)
    cache = tmp_path / "cache"
    made = lock_with_wheel(runtime.lock_file, wheel, cache)
    wheel_file = wheel.write(tmp_path)
    command = [sys.executable, "-c", SECOND_BUILD, str(runtime.lock_file), str(wheel_file)]
    again = subprocess.run([*command, str(cache)], capture_output=True, timeout=60, check=False)
    assert again.returncode == 0, again.stderr
    assert again.stdout == made
    assert again.stderr.decode().strip() == "False"
    changed = BuiltWheel(wheel.name, wheel.data + b" ")
    lock = json.loads(lock_with_wheel(runtime.lock_file, changed, cache))
    assert lock["packages"]["trafikist-model"]["sha256"] == hashlib.sha256(changed.data).hexdigest()
    assert len(list(cache.glob("*.json"))) == 2


# -- the built site ------------------------------------------------------------------------------


def test_each_duty_carries_its_baked_run_and_the_site_carries_the_runtime(built_site: Path) -> None:
    page = soup(built_site / MODULE_04)
    duties = yaml.safe_load((MODULE / "duties.yml").read_text(encoding="utf-8"))["duties"]
    for duty in duties:
        run_block = page.select_one(f"#tk-duty-panel-{duty['id']} .tk-run")
        assert run_block is not None, duty["id"]
        name = duty["scenarios"][0]
        assert run_block["data-scenario"] == name
        assert run_block.select_one("svg.tk-tl[role=img][aria-label]") is not None
        assert run_block.select("table.tk-trace__table tbody tr"), duty["id"]
        baked = json.loads((built_site / ASSETS / "model/scenarios" / f"{name}.json").read_text())
        expected = json.loads(canonical_json(run_scenario(scenario_data(name))))
        assert baked["trace"] == expected
        assert baked["scenario"] == scenario_data(name)
    for name in RUNTIME_FILES:
        assert (built_site / ASSETS / "pyodide" / name).is_file(), name
    wheel = built_site / ASSETS / "model/trafikist_model-0.1.0-py3-none-any.whl"
    lock = json.loads((built_site / ASSETS / "model/pyodide-lock.json").read_text())
    assert (
        lock["packages"]["trafikist-model"]["sha256"]
        == hashlib.sha256(wheel.read_bytes()).hexdigest()
    )
    # The controls are in the HTML with the first duty's defaults, hidden until duty.js runs.
    live = page.select_one("#tk-duty-panel-promote .tk-live[hidden]")
    assert live is not None
    assert live.select_one("input[name=wire][value='4']").has_attr("checked")
    assert live.select_one("label[for=tk-console-input]") is not None


@pytest.mark.slow
def test_pyodide_url_loads_pyodide_from_elsewhere_and_copies_no_runtime(
    engine: str, tmp_path: Path
) -> None:
    project = copy_project(tmp_path / "project")
    add_plugin_options(project, pyodide_url="/pyodide/v314.0.7/")
    result = site_build(engine, project, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    site = tmp_path / "site"
    assert not (site / ASSETS / "pyodide").exists()
    assert (site / ASSETS / "model/pyodide-lock.json").is_file()
    section = soup(site / MODULE_04).select_one(".tk-duties[data-live]")
    assert section["data-pyodide-url"] == "/pyodide/v314.0.7/"
    # A snapshot belongs to the exact Pyodide it was made with: none for another one.
    assert not section.has_attr("data-snapshot")
    assert not list((site / ASSETS / "model").glob("*.snapshot"))
