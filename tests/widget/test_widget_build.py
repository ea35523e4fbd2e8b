"""The duty widget's build side: the wheel, the lock file, Pyodide's runtime, the baked runs,
the controls' overrides and the drawing (no browser)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from support import (
    MODEL_SCENARIOS,
    MODULE_04,
    ROOT,
    add_plugin_options,
    copy_project,
    site_build,
    soup,
)
from trafikist.base.diskcache import CACHE_ENV
from trafikist.base.errors import CourseError
from trafikist.core.assets import widget_assets
from trafikist.core.bundle import bundle_widgets
from trafikist.core.widget import DutyWidget
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
# The drawing's tests run the tests' copy of module 04's scenarios; the built site's, the course's.
SCENARIOS = sorted(MODEL_SCENARIOS.glob("*.yml"))
ASSETS = "assets/trafikist"
WIDGETS = ROOT / "widgets"
TABLE = export_command_table(load_registry(resolve_registry_path(None, ROOT)))
HOSTILE = "<img src=x onerror=alert(1)>"


def scenario_data(name: str, folder: Path = MODEL_SCENARIOS) -> dict:
    return yaml.safe_load((folder / f"{name}.yml").read_text(encoding="utf-8"))


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
    with pytest.raises(CourseError, match=r"has pyodide 0\.1\.0, but package.json pins 314\.0\.7"):
        find_pyodide_runtime(tmp_path / "node_modules")


@pytest.mark.parametrize("limit", [0, -1, 3_000_000, True])
def test_a_time_limit_the_page_cannot_keep_is_refused_at_its_line(
    tmp_path: Path, limit: int
) -> None:
    """MkDocs checks the plugin's options by type only (0, -1 and 3000000 are ints, and so is
    True): the widget's build refuses the value before it bakes a run, under either engine,
    naming the mkdocs.yml beside the modules' folder and the option's line."""
    (tmp_path / "modules").mkdir()
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: T\nplugins:\n  - trafikist:\n      run_time_limit: 0\n", encoding="utf-8"
    )
    widget = DutyWidget(modules_dir=tmp_path / "modules", node_modules=tmp_path, time_limit=limit)
    with pytest.raises(CourseError) as raised:
        widget.prepare([], registry=load_registry(resolve_registry_path(None, ROOT)))
    message = str(raised.value)
    where = r"^\S*mkdocs\.yml:4: the trafikist option 'run_time_limit' is "
    assert re.match(where, message), message
    assert "Fix: Set 'run_time_limit:' under '- trafikist:' to a whole number of" in message
    good = DutyWidget(modules_dir=tmp_path / "modules", node_modules=tmp_path, time_limit=600)
    assert not good.prepare([], registry=load_registry(resolve_registry_path(None, ROOT))).live


# -- the served scripts and styles (esbuild) ------------------------------------------------------


def widgets_folder(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def served(widgets: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """What the site serves of a widgets folder, by path under it (with a cache of its own)."""
    monkeypatch.setenv(CACHE_ENV, str(cache))
    found = widget_assets(widgets, ASSETS, [], node_modules=ROOT / "node_modules")
    return {
        site_file.uri.removeprefix(f"{ASSETS}/"): site_file.content or b"" for site_file in found
    }


def test_minifying_keeps_what_strings_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """esbuild parses what it minifies: a ':' or a '//' inside a string stays as written."""
    widgets = widgets_folder(
        tmp_path / "widgets",
        {
            "a.css": '/* why */\n.a::after {\n  content: "a: b";\n  color: red;\n}\n',
            "theme/b.js": '// a comment\nvar url = "http://example.invalid/a: b"; // trailing\n',
        },
    )
    site = served(widgets, tmp_path / "cache", monkeypatch)
    assert site["trafikist.css"].decode() == '.a:after{content:"a: b";color:red}\n'
    assert site["a.css"] == site["trafikist.css"]
    assert site["theme/b.js"].decode() == 'var url="http://example.invalid/a: b";\n'


def test_a_module_is_bundled_with_what_it_imports_and_keeps_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    widgets = widgets_folder(
        tmp_path / "widgets",
        {
            "duty/duty.js": 'import("./widget.mjs").then((widget) => widget.enhance());\n',
            "duty/widget.mjs": (
                'import { words } from "./words.mjs";\n'
                "export function enhance() {\n  return words();\n}\n"
            ),
            "duty/words.mjs": 'export const words = () => "a // b";\n',
            "duty/worker.mjs": "self.onmessage = (event) => import(event.data + 'pyodide.mjs');\n",
        },
    )
    site = served(widgets, tmp_path / "cache", monkeypatch)
    assert "duty/words.mjs" not in site  # inside widget.mjs, not served on its own
    assert 'import("./widget.mjs")' in site["duty/duty.js"].decode()
    widget = site["duty/widget.mjs"].decode()
    assert '"a // b"' in widget and "words.mjs" not in widget and "enhance" in widget
    assert 'import(e.data+"pyodide.mjs")' in site["duty/worker.mjs"].decode().replace(" ", "")


def test_esbuild_runs_once_for_the_same_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build that has seen the same sources takes esbuild's output from the cache: no Node."""
    widgets = widgets_folder(tmp_path / "widgets", {"a.css": ".a { color: red; }\n"})
    cache = tmp_path / "cache"
    first = bundle_widgets(widgets, ROOT / "node_modules", cache=cache)
    assert first.made
    monkeypatch.setattr("shutil.which", lambda name: None)  # no Node from here on
    again = bundle_widgets(widgets, ROOT / "node_modules", cache=cache)
    assert not again.made and again.files == first.files
    (widgets / "a.css").write_text(".a { color: blue; }\n", encoding="utf-8")
    with pytest.raises(CourseError, match=r"`node` is not on PATH.*Fix: Run scripts/setup"):
        bundle_widgets(widgets, ROOT / "node_modules", cache=cache)


def test_a_missing_esbuild_names_the_set_up_command(tmp_path: Path) -> None:
    widgets = widgets_folder(tmp_path / "widgets", {"a.css": ".a { color: red; }\n"})
    with pytest.raises(CourseError) as raised:
        bundle_widgets(widgets, tmp_path / "node_modules", cache=tmp_path / "cache")
    message = str(raised.value)
    assert f"{tmp_path / 'node_modules' / 'esbuild'}: esbuild (npm) is missing" in message
    assert message.endswith(
        "Fix: Run scripts/setup (it runs `npm ci`, which installs esbuild from package-lock.json)."
    )


def test_a_script_esbuild_cannot_read_is_reported_at_its_line(tmp_path: Path) -> None:
    widgets = widgets_folder(
        tmp_path / "widgets",
        {"duty/widget.mjs": 'import "./ok.mjs";\n', "duty/ok.mjs": "const a = 1;\nconst = 2;\n"},
    )
    with pytest.raises(CourseError) as raised:
        bundle_widgets(widgets, ROOT / "node_modules", cache=tmp_path / "cache")
    problem = raised.value.problems[0]
    assert Path(problem.file) == widgets / "duty/ok.mjs" and problem.line == 2
    assert "esbuild cannot bundle or minify this file" in problem.what


def test_a_bundle_holds_only_the_widgets_own_sources(tmp_path: Path) -> None:
    """The cache's key hashes widgets/' scripts and styles: a module may import nothing else."""
    (tmp_path / "elsewhere.mjs").write_text("export const a = 1;\n", encoding="utf-8")
    widgets = widgets_folder(
        tmp_path / "widgets", {"duty/widget.mjs": 'export { a } from "../../elsewhere.mjs";\n'}
    )
    with pytest.raises(CourseError, match=r"bundles \.\./elsewhere\.mjs, which is not a script"):
        bundle_widgets(widgets, ROOT / "node_modules", cache=tmp_path / "cache")
    # A module that imports a style would make a second file, which no page would load.
    (widgets / "duty/widget.mjs").write_text('import "./widget.css";\n', encoding="utf-8")
    (widgets / "duty/widget.css").write_text(".a { color: red; }\n", encoding="utf-8")
    with pytest.raises(CourseError, match=r"widget\.mjs: esbuild cannot .* more than one file"):
        bundle_widgets(widgets, ROOT / "node_modules", cache=tmp_path / "cache")


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
    trace["initial"] = {**trace["initial"], "pending": [HOSTILE]}
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
    for index, duty in enumerate(duties):
        run_block = page.select_one(f"#tk-duty-panel-{duty['id']} .tk-run")
        assert run_block is not None, duty["id"]
        name = duty["scenarios"][0]
        assert run_block["data-scenario"] == name
        # The duty shown first carries its drawing and a link to its trace; every other duty a
        # link to its run: each a page of its own beside the module's, which holds both.
        link = run_block.select_one(".tk-trace__file a" if index == 0 else ".tk-run__file a")
        assert link is not None, duty["id"]
        assert (run_block.select_one("svg.tk-tl[role=img][aria-label]") is not None) == (
            index == 0
        ), duty["id"]
        assert not run_block.select("table.tk-trace__table"), duty["id"]
        run_page = soup((built_site / MODULE_04).parent / link["href"])
        assert run_page.select_one(".tk-run__result svg.tk-tl[role=img][aria-label]") is not None
        assert run_page.select(".tk-run__result table.tk-trace__table tbody tr"), duty["id"]
        back = run_page.select_one("main > p > a")
        assert back is not None
        assert ((built_site / ASSETS / "model/runs" / back["href"]).resolve() / "index.html") == (
            built_site / MODULE_04
        ).resolve()
        baked = json.loads((built_site / ASSETS / "model/scenarios" / f"{name}.json").read_text())
        data = scenario_data(name, MODULE / "scenarios")
        assert baked["trace"] == json.loads(canonical_json(run_scenario(data)))
        assert baked["scenario"] == data
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


def test_the_site_serves_the_widgets_scripts_and_styles_bundled_and_minified(
    built_site: Path,
) -> None:
    """What the pages load is esbuild's: no comments, no indentation, the widget's modules
    inside widget.mjs, and the imports that must stay imports (the browser tests run them)."""
    assets = built_site / ASSETS
    pages_load = ["duty/duty.js", "offline/register.js", "theme/md-globals.js", "trafikist.css"]
    # Against their sources: widget.mjs is bundled with the two modules it imports, and the
    # stylesheet joins every style.
    sources = {
        "duty/widget.mjs": ["duty/widget.mjs", "duty/controls.mjs", "duty/runner.mjs"],
        "trafikist.css": [path.relative_to(ROOT / "widgets") for path in WIDGETS.rglob("*.css")],
    }
    for name in [*pages_load, "duty/widget.mjs", "duty/worker.mjs", "duty/duty.css"]:
        text = (assets / name).read_text(encoding="utf-8")
        size = sum((WIDGETS / part).stat().st_size for part in sources.get(name, [name]))
        assert len(text) < 0.8 * size, name
        assert not re.search(r"^\s*//|/\*|^\s", text, re.M), name
    assert not (assets / "duty/controls.mjs").exists() and not (assets / "duty/runner.mjs").exists()
    duty = (assets / "duty/duty.js").read_text(encoding="utf-8")
    assert 'import("./widget.mjs")' in duty
    widget = (assets / "duty/widget.mjs").read_text(encoding="utf-8")
    assert "import" not in widget.replace("import.meta", "")  # controls.mjs and runner.mjs are in
    assert "Changed from the default: " in widget and '"worker.mjs"' in widget
    worker = (assets / "duty/worker.mjs").read_text(encoding="utf-8")
    assert '"pyodide.mjs?save-data":"pyodide.mjs"' in worker  # imported at run time, from a URL
    stylesheet = (assets / "trafikist.css").read_text(encoding="utf-8")
    assert (assets / "duty/duty.css").read_text(encoding="utf-8") in stylesheet


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


def test_a_damaged_bundle_in_the_cache_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached entry is checked against the hash of its content (issue 28): an edited one
    used to be shipped as it was."""
    widgets = widgets_folder(tmp_path / "widgets", {"a.css": ".a {\n  color: red;\n}\n"})
    first = served(widgets, tmp_path / "cache", monkeypatch)
    [entry] = (tmp_path / "cache" / "bundles").glob("*.json")
    assert b"red" in entry.read_bytes()
    entry.write_bytes(entry.read_bytes().replace(b"red", b"tan"))
    assert served(widgets, tmp_path / "cache", monkeypatch) == first
