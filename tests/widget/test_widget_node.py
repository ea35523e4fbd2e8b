"""The widget's pure parts in Node, on what module 04's built page carries.

widgets/duty/controls.mjs (the controls as plain data: the form's fields, changes against the
defaults, the shared URL, the note under the form) and widgets/duty/runner.mjs (the worker's
requests, their time limits, the progress bar's words) have no DOM access, so Node's own test
runner (`node --test`) runs them: tests/widget/controls.test.mjs, given the page's controls
data block, its form's fields and each duty's defaults, as the page's script reads them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlencode

import pytest

from support import MODULE_04, ROOT, soup
from trafikist.model_view.controls import (
    CONTROLS,
    overrides_from_controls,
    page_spec,
    shared_query,
)

NODE_TESTS = Path(__file__).with_name("controls.test.mjs")

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")


def page_data(site: Path) -> dict:
    """What the page's script reads of module 04's page: the controls' data block, the form's
    fields in the page's order, each duty's defaults and the run's time limit."""
    page = soup(site / MODULE_04)
    section = page.select_one(".tk-duties[data-live]")
    assert section is not None
    block = section.select_one("script#tk-controls-spec[type='application/json']")
    assert block is not None and block.string
    form = []
    for field in section.select(".tk-controls input, .tk-controls select"):
        if field.name == "select":
            options = [[option.get_text(), option["value"]] for option in field.select("option")]
            chosen = field.select_one("option[selected]") or field.select_one("option")
            value = chosen["value"] if chosen else ""
            form.append({"name": field["name"], "type": "select-one", "value": value})
            form[-1]["options"] = options
            continue
        kind = field.get("type", "text")
        default = "on" if kind in ("checkbox", "radio") else ""
        form.append(
            {
                "name": field["name"],
                "type": kind,
                "value": field.get("value", default),
                "checked": field.has_attr("checked"),
            }
        )
    defaults = {
        run.find_parent(class_="tk-duty")["data-duty"]: json.loads(run["data-defaults"])
        for run in section.select(".tk-run")
    }
    return {
        "spec": json.loads(block.string),
        "form": form,
        "defaults": defaults,
        "timeLimit": section["data-time-limit"],
    }


def node_tests(data: dict, folder: Path) -> subprocess.CompletedProcess[str]:
    fixture = folder / "page.json"
    fixture.write_text(json.dumps(data), encoding="utf-8")
    env = dict(os.environ, TRAFIKIST_WIDGET_PAGE=str(fixture))
    return subprocess.run(
        ["node", "--test", "--test-reporter=tap", str(NODE_TESTS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def counts(output: str) -> dict[str, int]:
    return {name: int(n) for name, n in re.findall(r"^# (pass|fail) (\d+)$", output, re.M)}


def test_the_page_carries_the_controls_definition_as_data(built_site: Path) -> None:
    data = page_data(built_site)
    assert data["spec"] == page_spec()
    # The form the template rendered from the same definition: every field, in its order.
    names = list(dict.fromkeys(field["name"] for field in data["form"]))
    assert names == [name for control in CONTROLS for name in control.fields]


def test_the_widgets_pure_parts_pass_in_node(built_site: Path, tmp_path: Path) -> None:
    result = node_tests(page_data(built_site), tmp_path)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    found = counts(result.stdout)
    assert found.get("fail") == 0 and found.get("pass", 0) >= 12, found


def test_the_node_tests_fail_when_the_page_says_something_else(
    built_site: Path, tmp_path: Path
) -> None:
    """The Node assertions check what the page says: other wording fails them, and so does
    another order of the form's boxes."""
    data = page_data(built_site)
    for control in data["spec"]:
        if control["key"] == "wire":
            control["wording"]["some"] = "wire = {}"
    result = node_tests(data, tmp_path)
    assert result.returncode != 0
    assert "Changed from the default: wire = 6." in result.stdout, result.stdout[-3000:]
    assert counts(result.stdout).get("fail", 0) >= 1
    # The processes' boxes in another order: the shared URL's note would name them so.
    data = page_data(built_site)
    boxes = [i for i, field in enumerate(data["form"]) if field["name"] == "send"]
    for i, field in zip(boxes, [data["form"][i] for i in reversed(boxes)], strict=True):
        data["form"][i] = field
    result = node_tests(data, tmp_path)
    assert result.returncode != 0
    assert "processes Stalled and Pump" in result.stdout, result.stdout[-3000:]


# Controls changed from a duty's defaults, one case each: the build's link to a live run and
# the page's shared URL must say them in the same words.
QUERY_CASES = [
    {"wire": 6},
    {"reaper": False},
    {"beat": 2.5, "batch": 7, "limit": 3},
    {"crash": {"client": "consumer", "after": 4}},
    {"send": ["Pump", "Stalled"]},
    {"send": []},
]


def test_the_shared_url_is_written_the_same_by_the_build_and_the_page(tmp_path: Path) -> None:
    """The build writes a question's link to its live run (course.questions.live_query) with
    model_view.controls.shared_query; the page writes a shared run's URL with controls.mjs'
    toQuery: for the same changed controls, the same query."""
    spec = page_spec()
    defaults = {
        "send": ["Consumer"],
        "wire": 4,
        "reaper": True,
        "beat": 1.0,
        "batch": 100,
        "limit": 100,
        "crash": None,
        "clients": [{"name": "consumer", "kind": "Consumer"}],
    }
    cases = [defaults | case for case in QUERY_CASES]
    script = tmp_path / "queries.mjs"
    script.write_text(
        f"import {{ toQuery }} from {json.dumps((ROOT / 'widgets/duty/controls.mjs').as_uri())};\n"
        f"const spec = {json.dumps(spec)}, defaults = {json.dumps(defaults)};\n"
        f"for (const values of {json.dumps(cases)})\n"
        "  console.log(toQuery(spec, 'promote', values, defaults).toString());\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        ["node", str(script)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr
    from_page = result.stdout.split()
    from_build = []
    for values in cases:
        overrides = overrides_from_controls({}, values, defaults)
        query = shared_query("promote", overrides)
        assert query is not None, overrides
        from_build.append(urlencode(query))
    assert from_build == from_page
    assert from_page[0] == "duty=promote&wire=6"
    assert from_page[3] == "duty=promote&crash=consumer%404"
    # A change no control makes has no shared URL.
    assert shared_query("promote", {"duration": 5}) is None
