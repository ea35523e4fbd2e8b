"""The live "pick a duty" widget's build side, with no engine in it (no MkDocs import).

`DutyWidget.prepare` does everything the build needs once: it finds Pyodide's runtime in
node_modules (unless the site loads Pyodide from `pyodide_url`), builds the model's wheel, writes
the lock file that names it, bakes each duty's default scenario, and starts the memory snapshot
(trafikist.core.widget.snapshot), which Node may still be making while the pages render. The adapter
then asks for the duties block of a page (`render_block`), for the files to add to the site
(`site_files`), and, once the pages are written, for the snapshot (`late_site_files`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import markupsafe

import trafikist
from trafikist.core.assets import stylesheet_uri
from trafikist.core.files import SiteFile
from trafikist.core.options import DEFAULTS, BuildOptions
from trafikist.core.widget.bake import BakedRun, bake_duty
from trafikist.core.widget.lock import lock_with_wheel
from trafikist.core.widget.runtime import PyodideRuntime, find_pyodide_runtime
from trafikist.core.widget.snapshot import MemorySnapshot
from trafikist.core.widget.wheel import BuiltWheel, build_model_wheel
from trafikist.course.render import Renderer
from trafikist.course.structure import Page, relative_link
from trafikist.model import MODEL_CHOICES
from trafikist.model_view.controls import CONTROL_GROUPS, page_spec_json
from trafikist.model_view.draw import run_link_html, run_page
from trafikist.registry import Registry, export_command_table

PACKAGE_DIR = Path(trafikist.__file__).resolve().parent  # src/trafikist: the wheel takes its model
# Where each part goes in the site, under the plugin's assets path (assets/trafikist):
PYODIDE_FOLDER = "pyodide"  # Pyodide's runtime files
MODEL_FOLDER = "model"  # the wheel, the lock file and the scenarios as JSON
# Each baked run as a page of its own (model_view.draw.run_page), under MODEL_FOLDER: a duty's
# panel links to it, and the page's script takes the drawing and the trace from it when the
# reader picks the duty, or opens the trace of the duty shown first.
RUNS_FOLDER = "runs"
# The theme's palette scripts (widgets/theme/, which overrides/ loads on every page).
THEME_FOLDER = "theme"
# The size of every file a first Run may fetch, for the page's progress bar; written with the
# snapshot, whose size is known only once Node has made it.
RUN_SIZES_FILE = "run-files.json"


@dataclass
class DutyWidget:
    modules_dir: Path
    node_modules: Path
    assets_path: str = "assets/trafikist"
    pyodide_url: str = ""  # empty: Pyodide is served from the site itself
    time_limit: int = DEFAULTS.run_time_limit  # seconds a live run may take (data-time-limit)
    # The mkdocs.yml that sets the options, which a message about one names (None: the first
    # one found from the modules' folder up).
    config_file: Path | None = None
    # Restore Pyodide from a memory snapshot with the model imported (only with the site's own
    # runtime: the snapshot belongs to that exact pyodide.asm.wasm).
    memory_snapshot: bool = True
    runtime: PyodideRuntime | None = None
    wheel: BuiltWheel | None = None
    snapshot: MemorySnapshot | None = None
    lock: bytes = b""
    runs: dict[str, BakedRun] = field(default_factory=dict)  # "module id/duty id" -> run
    directory_urls: bool = True  # the site's pages' addresses: "a/b/" or "a/b.html"
    # The first page that shows each scenario's run: its trace's page links back to it.
    shown_on: dict[str, Page] = field(default_factory=dict)

    def prepare(self, pages: list[Page], registry: Registry) -> DutyWidget:
        """Check the runtime, build the wheel and the lock, bake every duty with a scenario.
        `registry` gives the EMQ verbs' rows the wheel carries for the page's model.
        Raises CourseError with the fix (for instance: run scripts/setup, or a time limit the
        page cannot keep)."""
        # The engines check the options' types only: a time limit the page cannot keep (0, or
        # more than setTimeout can wait) is refused here, under either engine.
        BuildOptions(run_time_limit=self.time_limit).check(self._config_file())
        for page in pages:
            if page.source is None:
                continue
            for duty in page.duties:
                run = bake_duty(duty)
                if run is not None:
                    self.runs[f"{page.id}/{duty.id}"] = run
                    self.shown_on.setdefault(run.scenario_name, page)
        if self.runs:  # no scenario anywhere: the static form needs no runtime
            self.runtime = find_pyodide_runtime(self.node_modules)
            self.wheel = build_model_wheel(PACKAGE_DIR, export_command_table(registry))
            self.lock = lock_with_wheel(self.runtime.lock_file, self.wheel)
            if self.memory_snapshot and not self.pyodide_url:
                self.snapshot = MemorySnapshot.start(self.runtime, self.wheel)
        return self

    def _config_file(self) -> Path:
        if self.config_file is not None:
            return self.config_file
        folder = Path(self.modules_dir).resolve()
        found = (path / "mkdocs.yml" for path in (folder, *folder.parents))
        return next((path for path in found if path.is_file()), folder.parent / "mkdocs.yml")

    @property
    def live(self) -> bool:
        """True when some duty has a scenario, so pages get the live widget."""
        return bool(self.runs)

    def register(self, renderer: Renderer) -> None:
        renderer.extra_blocks["duties"] = lambda page: self.render_block(renderer, page)

    def render_block(self, renderer: Renderer, page: Page) -> str:
        runs = {
            duty.id: self.runs[f"{page.id}/{duty.id}"]
            for duty in page.duties
            if f"{page.id}/{duty.id}" in self.runs
        }
        live = {
            "runs": {
                duty_id: {
                    "scenario": run.scenario_name,
                    # JSON in a single-quoted attribute: only & and ' need escaping.
                    "defaults": markupsafe.Markup(
                        run.controls_json.replace("&", "&amp;").replace("'", "&#39;")
                    ),
                    "markup": markupsafe.Markup(
                        self._panel_markup(run, page, renderer, first=index == 0)
                    ),
                    "controls": run.controls,
                }
                for index, (duty_id, run) in enumerate(runs.items())
            },
            # The controls sit in this duty's panel in the HTML; widget.mjs moves them.
            "first": next(iter(runs), None),
            "pyodide_url": self.pyodide_url,
            "snapshot": self.snapshot.file_name if self.snapshot else "",
            "wheel": self.wheel.name if self.wheel else "",
            "time_limit": self.time_limit,
            # The controls' one definition: the template renders the form from it, and the
            # page carries what its script needs of it as a JSON data block.
            "groups": CONTROL_GROUPS,
            "spec": markupsafe.Markup(page_spec_json()),
            "choices": MODEL_CHOICES,
        }
        template = renderer.templates.get_template("duties.html.j2")
        duties = renderer.shown_duties(page)  # their checked sentences marked: "How we know"
        return template.render(page=page, duties=duties, live=live if runs else None)

    def _panel_markup(self, run: BakedRun, page: Page, renderer: Renderer, first: bool) -> str:
        """The run a duty's panel carries in the page: the duty shown first, its drawing and a
        link to its trace's rows; any other, a link to its run (model_view.draw)."""
        at = relative_link(page.url(renderer.directory_urls), self.run_url(run.scenario_name))
        return run.markup_with_rows_at(at) if first else run_link_html(run.trace, at)

    def run_url(self, scenario_name: str) -> str:
        """Where the scenario's run is in the site, as a page of its own (run_page)."""
        return f"{self.assets_path}/{MODEL_FOLDER}/{RUNS_FOLDER}/{scenario_name}.html"

    def site_files(self) -> list[SiteFile]:
        if self.wheel is None:
            return []
        model = f"{self.assets_path}/{MODEL_FOLDER}"
        files = [
            SiteFile(f"{model}/{self.wheel.name}", content=self.wheel.data),
            SiteFile(f"{model}/pyodide-lock.json", content=self.lock),
        ]
        seen: set[str] = set()
        for run in self.runs.values():
            if run.scenario_name not in seen:
                seen.add(run.scenario_name)
                uri = f"{model}/scenarios/{run.scenario_name}.json"
                files.append(SiteFile(uri, content=run.site_json()))
                files.append(self._run_page(run))
        if not self.pyodide_url and self.runtime is not None:
            files += [
                SiteFile(f"{self.assets_path}/{PYODIDE_FOLDER}/{path.name}", source=path)
                for path in self.runtime.files
            ]
        return files

    def _run_page(self, run: BakedRun) -> SiteFile:
        """The run as a page of its own (run_page); the model's choices it relies on link to
        their list in the first page that shows the run (the script makes them the page's own
        anchors, as a live run writes them)."""
        url = self.run_url(run.scenario_name)
        page = self.shown_on[run.scenario_name]
        back = relative_link(url, page.url(self.directory_urls))
        text = run_page(
            run.markup_with_choices_at(f"{back}#tk-choice-"),
            run.trace,
            stylesheet=relative_link(url, stylesheet_uri(self.assets_path)),
            back=back,
            back_text=f"Back to {page.title}",
            theme=relative_link(url, f"{self.assets_path}/{THEME_FOLDER}/").rstrip("/"),
            scope=relative_link(url, ""),
        )
        return SiteFile(url, content=text.encode())

    def late_site_files(self) -> list[SiteFile]:
        """The memory snapshot, after the pages: Node makes it while they render, and the sizes
        of the files a first Run fetches (the page's progress bar counts against them). Raises
        CourseError with the fix if Node failed."""
        if self.wheel is None:
            return []
        model = f"{self.assets_path}/{MODEL_FOLDER}"
        files = []
        # Keys are URLs relative to the sizes file, as the page's worker resolves them.
        sizes = {self.wheel.name: len(self.wheel.data), "pyodide-lock.json": len(self.lock)}
        if self.snapshot is not None:
            data = self.snapshot.data()
            files.append(SiteFile(f"{model}/{self.snapshot.file_name}", content=data))
            sizes[self.snapshot.file_name] = len(data)
        if not self.pyodide_url and self.runtime is not None:
            for path in self.runtime.files:
                sizes[f"../{PYODIDE_FOLDER}/{path.name}"] = path.stat().st_size
        content = json.dumps(sizes, sort_keys=True, indent=0).encode()
        files.append(SiteFile(f"{model}/{RUN_SIZES_FILE}", content=content))
        return files

    def cancel(self) -> None:
        """The build failed: stop making the snapshot."""
        if self.snapshot is not None:
            self.snapshot.cancel()

    def manifest(self) -> str:
        """What the widget added, for logs and tests."""
        return json.dumps(
            {
                "pyodide": self.runtime.version if self.runtime else None,
                "wheel": self.wheel.name if self.wheel else None,
                "snapshot": self.snapshot.file_name if self.snapshot else None,
                "runs": sorted(self.runs),
            }
        )
