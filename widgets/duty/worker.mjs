// The duty widget's module worker: Pyodide and the model run here, off the page's main thread.
//
// Protocol (plain objects; `id` pairs a request with its answer):
//   page -> worker  {type: "boot", id: 0, urls: {pyodide, lock}}  (start loading; no answer)
//                   {type: "run", id, urls, scenario: URL, controls: JSON text}
//                   {type: "console", id, urls, line}
//   worker -> page  {type: "status", id, phase: "loading" | "running"}
//                   {type: "result", id, result: JSON text {markup, summary} or {error},
//                                   trace: canonical JSON text, loadMs, runMs}
//                   {type: "reply", id, text}
//                   {type: "error", id, message}
// The Python side is trafikist.model_view.live, in the model's wheel. It takes and returns JSON
// text, so no Python object crosses into JavaScript and nothing needs destroying.

let booting = null; // the promise of the Python module, made on the first message
const scenarios = new Map(); // URL -> promise of the scenario file's text

async function boot(urls) {
  // Imported here, not at the top: a worker is only made on the first Run, and only then
  // does the page fetch any of Pyodide.
  const { loadPyodide } = await import(urls.pyodide + "pyodide.mjs");
  // The model's wheel is named in the site's lock file (written with pyodide-lock); `packages`
  // fetches it while Pyodide boots. No micropip.
  const pyodide = await loadPyodide({
    indexURL: urls.pyodide,
    lockFileURL: urls.lock,
    packages: ["trafikist-model"],
  });
  return pyodide.pyimport("trafikist.model_view.live");
}

function scenarioText(url) {
  if (!scenarios.has(url)) {
    scenarios.set(
      url,
      fetch(url).then((response) =>
        response.ok ? response.text() : Promise.reject(new Error(`${url}: HTTP ${response.status}`)),
      ),
    );
  }
  return scenarios.get(url);
}

self.onmessage = async (event) => {
  const request = event.data;
  const id = request.id;
  try {
    // The scenario is fetched while Pyodide loads, not after.
    const text = request.type === "run" ? scenarioText(request.scenario) : null;
    if (!booting) {
      self.postMessage({ type: "status", id, phase: "loading" });
      booting = boot(request.urls);
      booting.catch(() => {}); // handled by whichever request awaits it
    }
    if (request.type === "boot") return; // a failed boot is reported to the request that waits
    const waiting = performance.now();
    const live = await booting;
    const loadMs = performance.now() - waiting;
    if (request.type === "run") {
      const scenario = await text;
      self.postMessage({ type: "status", id, phase: "running" });
      const started = performance.now();
      const result = live.run(scenario, request.controls);
      const trace = live.last_trace();
      const runMs = performance.now() - started;
      self.postMessage({ type: "result", id, result, trace, loadMs, runMs });
    } else {
      self.postMessage({ type: "reply", id, text: live.console(request.line) });
    }
  } catch (error) {
    // A Python exception arrives as a PythonError whose message is the whole traceback; its
    // last line names the error, which is what the reader needs.
    const text = String((error && error.message) || error).trim();
    self.postMessage({ type: "error", id, message: text.split("\n").pop() });
  }
};
