// Run the model under real Pyodide, in Node, from the same npm package the site serves.
//
//   node tests/widget/pyodide_node.mjs run WHEEL JOBS.json
//       JOBS.json: [{"name", "scenario": {...}, "overrides": {...} | null}, ...]
//       prints one JSON line per job: {"name", "trace": canonical JSON text, "markup": text}
//       (or {"name", "error"}), computed by the wheel's own code in Pyodide.
//   node tests/widget/pyodide_node.mjs snapshot SNAPSHOT WHEEL SCENARIO.json...
//       restores Pyodide from the build's gzipped memory snapshot as the page's worker does,
//       runs each site scenario file with trafikist.model_view.live and prints one JSON line
//       per file: {"file", "trace"}; first a line {"imported": bool}, whether the model was
//       already imported when the restore ended.
//   node tests/widget/pyodide_node.mjs pytest WHEEL ROOT SITE_PACKAGES -- PYTEST_ARGS...
//       mounts ROOT (the repository) and the virtual environment's pure-Python site-packages,
//       and runs pytest inside Pyodide on the given test files; exits with pytest's status.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { loadPyodide } from "pyodide";

const [mode, wheel, ...rest] = process.argv.slice(2);

async function pyodideWithWheel() {
  const pyodide = await loadPyodide({ stdout: (line) => console.error(line), stderr: (line) => console.error(line) });
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  // In Node a Buffer must be wrapped before unpackArchive (measured; see BUILD-MACHINE-NOTES).
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: sitePackages });
  return pyodide;
}

async function runJobs(jobsFile) {
  const pyodide = await pyodideWithWheel();
  pyodide.globals.set("jobs_text", readFileSync(jobsFile, "utf8"));
  const out = pyodide.runPython(`
import json, sys
from trafikist.model import Simulation, ScenarioError
from trafikist.model_view.live import canonical_json, result_of
lines = []
for job in json.loads(jobs_text):
    try:
        trace = Simulation(job["scenario"], job.get("overrides") or None, source=job["name"]).run()
        trace = json.loads(canonical_json(trace))
        result = result_of(trace)
        lines.append(json.dumps({"name": job["name"], "trace": result["trace"],
                                 "markup": result["markup"], "python": sys.version.split()[0]}))
    except ScenarioError as error:
        lines.append(json.dumps({"name": job["name"], "error": str(error)}))
"\\n".join(lines)
`);
  process.stdout.write(out + "\n");
}

async function runPytest(root, sitePackages, args) {
  const pyodide = await pyodideWithWheel();
  pyodide.mountNodeFS("/repo", root);
  pyodide.mountNodeFS("/venv-site", sitePackages);
  pyodide.globals.set("pytest_args", pyodide.toPy(args));
  const status = pyodide.runPython(`
import os, sys
os.chdir("/repo")
# The repository's tests and helpers; the wheel's trafikist comes first, so the model under
# test is the one the page loads. The venv gives pytest and its pure-Python dependencies.
sys.path[:0] = ["/repo/tests"]
sys.path.append("/venv-site")
os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # xdist, timeout …: not for one process
try:
    import hypothesis  # noqa: F401
except ImportError:
    # Hypothesis has a compiled part Pyodide cannot load. The model's conftest only registers
    # settings profiles with it, and the scenario tests run here draw no generated cases.
    import types

    class _Settings:
        register_profile = load_profile = staticmethod(lambda *args, **kwargs: None)

    sys.modules["hypothesis"] = types.SimpleNamespace(settings=_Settings)
import errno
import pytest


class NoProcesses:
    """A test that starts a process (the CLI, a fresh interpreter) cannot run in Pyodide: it is
    reported as skipped, with the reason, never as passed."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        error = call.excinfo.value if call.excinfo else None
        if isinstance(error, OSError) and error.errno == errno.ENOTSUP:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1], "Pyodide starts no process")


int(pytest.main(list(pytest_args), plugins=[NoProcesses()]))
`);
  process.exit(status);
}

async function runFromSnapshot(snapshot, wheelFile, scenarioFiles) {
  const pyodide = await loadPyodide({ _loadSnapshot: gunzipSync(readFileSync(snapshot)) });
  const imported = pyodide.runPython("import sys; 'trafikist.model_view.live' in sys.modules");
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheelFile)), "wheel", { extractDir: sitePackages });
  const live = pyodide.pyimport("trafikist.model_view.live");
  const lines = [JSON.stringify({ imported })];
  for (const file of scenarioFiles) {
    const result = JSON.parse(live.run(readFileSync(file, "utf8"), ""));
    lines.push(JSON.stringify({ file, trace: live.last_trace(), error: result.error ?? null }));
  }
  process.stdout.write(lines.join("\n") + "\n");
}

if (mode === "run") await runJobs(rest[0]);
else if (mode === "snapshot") {
  const [snapshot, wheelFile, ...files] = process.argv.slice(3);
  await runFromSnapshot(snapshot, wheelFile, files);
}
else if (mode === "pytest") await runPytest(rest[0], rest[1], rest.slice(rest.indexOf("--") + 1));
else {
  console.error("usage: pyodide_node.mjs run WHEEL JOBS.json | snapshot SNAPSHOT WHEEL SCENARIO.json... | pytest WHEEL ROOT SITE_PACKAGES -- ARGS");
  process.exit(2);
}
