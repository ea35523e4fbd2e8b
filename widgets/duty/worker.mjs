// The duty widget's module worker: Pyodide and the model run here, off the page's main thread.
//
// Protocol (plain objects; `id` pairs a request with its answer):
//   page -> worker  {type: "boot", id: 0, urls: {pyodide, lock, snapshot, wheel, sizes}}
//                   (start loading; no answer; snapshot and wheel are null without a snapshot)
//                   {type: "run", id, urls, scenario: URL, controls: JSON text}
//                   {type: "console", id, urls, line, scenario, controls}
//                                   (scenario and controls: the last Run's, which a new worker
//                                   runs first, so the console finds the server as it was left)
//   worker -> page  {type: "status", id, phase: "loading" | "running"}
//                   {type: "progress", loaded, total} (bytes of the files this boot fetches;
//                                   total is null when their sizes are not known)
//                   {type: "result", id, result: JSON text {markup, summary} or {error},
//                                   trace: canonical JSON text, loadMs, runMs,
//                                   boot: "snapshot" | "lock",
//                                   from: "cache" | "network" | "cache and network"}
//                   {type: "reply", id, text}
//                   {type: "error", id, message, boot}
//                                   (boot: true when Python could not start, e.g. a file of its
//                                   runtime could not be fetched; the page then ends this worker)
// The Python side is trafikist.model_view.live, in the model's wheel. It takes and returns JSON
// text, so no Python object crosses into JavaScript and nothing needs destroying.
//
// A reader whose browser asks to save data gets this worker as `worker.mjs?save-data`: it then
// imports Pyodide as `pyodide.mjs?save-data`, so every request of the Run names one of those two
// URLs as its referrer, and the site's service worker keeps none of its files
// (trafikist.core.offline).

let booting = null; // the promise of the Python module, made on the first message
let requests = 0; // messages received; a rehearsal stops when a new one comes
let rehearsed = false; // rehearsals happen once, after the first run
let served = false; // true once this worker has run a scenario (the console's server)
const REHEARSAL_MS = 1500; // after a restore from the snapshot (see rehearse below)
const scenarios = new Map(); // URL -> promise of the scenario file's text
const saveData = new URL(import.meta.url).searchParams.has("save-data");

// -- progress: the bytes of the files this boot fetches, against their total ------------------

const PROGRESS_EVERY_MS = 100;
const expected = new Map(); // URL -> size in bytes (0: not known), of this boot's files
const received = new Map(); // URL -> bytes received so far
let reported = 0; // when the last progress message went
let reportTimer = 0;
let counted = false; // true once the boot is done: no more progress messages

async function expectFiles(urls, names) {
  if (!urls.sizes) return; // the page shows no progress bar: nothing to count
  let sizes = {};
  try {
    sizes = urls.sizes ? await (await fetchOk(urls.sizes)).json() : {};
  } catch {
    // Without the sizes the bar shows activity, not a fraction; the Run itself is unaffected.
  }
  const known = new Map(Object.entries(sizes).map(([name, size]) => [new URL(name, urls.sizes).href, size]));
  expected.clear();
  for (const url of names) expected.set(url, known.get(url.split("?")[0]) || 0);
  report(true);
}

function report(now = false) {
  clearTimeout(reportTimer);
  if (counted || !expected.size) return; // done, or nothing to count (no bar)
  const wait = reported + PROGRESS_EVERY_MS - performance.now();
  if (!now && wait > 0) {
    reportTimer = setTimeout(report, wait, true);
    return;
  }
  reported = performance.now();
  let loaded = 0;
  let total = 0;
  for (const [url, size] of expected) {
    loaded += size ? Math.min(received.get(url) || 0, size) : 0;
    total = size && total !== null ? total + size : null;
  }
  self.postMessage({ type: "progress", loaded, total });
}

// -- a boot that cannot finish: say so at once -------------------------------------------------

// The files the boot cannot do without (Pyodide's runtime, the model's wheel and, for the plain
// boot, its lock file): when one cannot be had, the boot ends at once with its name and why,
// rather than wait for Pyodide, which never settles after a failed fetch (or compile) of its
// WebAssembly and carries on past a failed package. The memory snapshot is not one of them:
// without it the plain boot starts instead.
const needed = new Set();
let breakBoot = () => {};
const broken = new Promise((_, reject) => {
  breakBoot = reject;
});
broken.catch(() => {}); // handled by the boot that races it
let failure = null; // the promise of the first BootError, once a needed file has failed

class BootError extends Error {}

const fileName = (url) => new URL(url).pathname.split("/").pop();
const bare = (url) => String(url).split("?")[0];

// A needed file failed: the boot ends with `words` about it (or the promise of them).
function fail(url, words) {
  if (failure || !needed.has(bare(url))) return;
  failure = Promise.resolve(words).then((said) => new BootError(`the file ${fileName(url)} ${said}`));
  failure.then(breakBoot);
}

// Why a file could not be had, asked again once, without the browser's checks: offline (the
// ask fails too), an HTTP error, or an answer that is not the file (another type, as a
// captive portal's page is, or other bytes than the ones the site built). Only a boot that has
// failed asks.
async function diagnose(url, check = "") {
  let response;
  try {
    response = await plainFetch(url);
  } catch {
    return "could not be fetched (offline?)";
  }
  if (!response.ok) return `could not be fetched (HTTP ${response.status})`;
  const type = (response.headers.get("content-type") || "no type").split(";")[0];
  if (check === "script" && !/javascript|ecmascript/.test(type)) return `is not the site's file (it came as ${type}, not a script)`;
  if (check === "wheel") return `is not the site's file (it is not a wheel; it came as ${type})`;
  if (check === "integrity") return "is not the one the site built (its checksum differs from the lock file's)";
  return `is not the site's file (it came as ${type})`;
}

// Pyodide fetches its files itself: each response of an expected file is counted as it streams
// in, from a copy, so Pyodide gets the browser's own response (and its compiled-code cache).
const plainFetch = self.fetch.bind(self);
self.fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), self.location).href;
  let response;
  try {
    response = await plainFetch(input, init);
  } catch (error) {
    // A fetch with a checksum (Pyodide's of a package) also fails when the bytes differ.
    fail(url, init?.integrity ? diagnose(url, "integrity") : "could not be fetched (offline?)");
    throw error;
  }
  if (!response.ok) fail(url, `could not be fetched (HTTP ${response.status})`);
  // No file Python needs is a web page: one that comes as one is another page (a captive
  // portal's, a proxy's), which Pyodide would take for the file and fail on later.
  else if (/^text\/html/.test(response.headers.get("content-type") || "")) fail(url, "is not the site's file (it came as text/html)");
  if (expected.has(url) && response.ok && response.body) count(url, response.clone().body);
  return response;
};

// Pyodide compiles its WebAssembly from the response as it streams in; when that fails (an
// answer that is not WebAssembly, or is labelled as something else), it only logs a warning.
const plainInstantiate = WebAssembly.instantiateStreaming?.bind(WebAssembly);
if (plainInstantiate) {
  WebAssembly.instantiateStreaming = async (source, imports) => {
    try {
      return await plainInstantiate(source, imports);
    } catch (error) {
      const url = (await Promise.resolve(source).catch(() => null))?.url;
      const why = String(error?.message || error).replace(/^.*?WebAssembly[^:]*:\s*/, "").replace(/\.$/, "");
      if (url) fail(url, `could not be used (${why})`);
      throw error;
    }
  };
}

// Why the boot failed, in the reader's words: the first needed file that failed, or an import
// that failed (its message names the URL: "Failed to fetch dynamically imported module: …",
// whatever the cause, so the file is asked for again to tell), or else the error as it is.
async function bootFailure(error) {
  if (failure) return (await failure).message;
  const text = String((error && error.message) || error).trim();
  const imported = /imported module:?\s*(\S+)/.exec(text);
  if (imported) return `the file ${fileName(imported[1])} ${await diagnose(imported[1], "script")}`;
  return text.split("\n").pop();
}

async function count(url, body) {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received.set(url, (received.get(url) || 0) + value.byteLength);
    report();
  }
}

// A file is in whole once its resource entry exists. Scripts (pyodide.mjs, pyodide.asm.mjs) are
// imported, not fetched, so they count then; and once Pyodide has booted, every file it needed
// is in, whether or not the copy being counted has caught up.
function settle(entries) {
  for (const entry of entries) {
    if (expected.has(entry.name)) {
      received.set(entry.name, Math.max(received.get(entry.name) || 0, expected.get(entry.name)));
    }
  }
  report();
}
new PerformanceObserver((found) => settle(found.getEntries())).observe({ type: "resource", buffered: true });

// Where this boot's files came from: the site's offline copy ("cache": the service worker
// served them from its Cache Storage), or the network ("network": anything else, the browser's
// own HTTP cache included; Chromium labels even the worker's network fetches "cache"). A
// browser that does not say (Resource Timing's deliveryType) counts as network.
function source() {
  const kinds = new Set();
  for (const entry of performance.getEntriesByType("resource")) {
    if (expected.has(entry.name)) kinds.add(entry.deliveryType === "cache-storage" ? "cache" : "network");
  }
  return kinds.size === 1 ? [...kinds][0] : kinds.size ? "cache and network" : "network";
}

async function boot(urls) {
  // Imported here, not at the top: a worker is only made on the first Run, and only then
  // does the page fetch any of Pyodide.
  const loader = urls.pyodide + (saveData ? "pyodide.mjs?save-data" : "pyodide.mjs");
  const runtime = ["pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"].map((name) => urls.pyodide + name);
  for (const url of [loader, ...runtime, urls.wheel]) if (url) needed.add(bare(url));
  if (urls.snapshot) {
    await expectFiles(urls, [loader, ...runtime, urls.pyodide + "pyodide-lock.json", urls.snapshot, urls.wheel]);
    const { loadPyodide } = await import(loader);
    try {
      return { live: await bootFromSnapshot(loadPyodide, urls), how: "snapshot" };
    } catch (error) {
      // The plain boot below gives the same model, only slower; the reader need not know.
      console.warn(`The model's memory snapshot did not restore (${error.message}); starting Pyodide from its lock file.`);
    }
  }
  needed.add(urls.lock);
  await expectFiles(urls, [loader, ...runtime, urls.lock, urls.wheel]);
  const { loadPyodide } = await import(loader);
  // The model's wheel is named in the site's lock file (written with pyodide-lock); `packages`
  // fetches it while Pyodide boots. No micropip.
  const pyodide = await loadPyodide({
    indexURL: urls.pyodide,
    lockFileURL: urls.lock,
    packages: ["trafikist-model"],
  });
  return { live: pyodide.pyimport("trafikist.model_view.live"), how: "lock" };
}

// Pyodide restored from the memory the build saved after importing the model
// (trafikist.core.widget.snapshot): no CPython start-up, no imports. `_loadSnapshot` is an
// underscore option of the pinned Pyodide, hence the fallback above.
async function bootFromSnapshot(loadPyodide, urls) {
  const wheel = fetchBytes(urls.wheel);
  const snapshot = fetchBytes(urls.snapshot).then(gunzip);
  // Both are awaited later (Pyodide awaits the snapshot after its own first steps); a failure
  // before then must not count as unhandled. The awaits still see it.
  for (const promise of [wheel, snapshot]) promise.catch(() => {});
  const pyodide = await loadPyodide({ indexURL: urls.pyodide, _loadSnapshot: snapshot });
  // The memory holds the imported modules, not the files; the wheel puts them back, so a
  // file the model reads later is there, as in the plain boot.
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  try {
    pyodide.unpackArchive(await wheel, "wheel", { extractDir: sitePackages });
  } catch (error) {
    // Bytes that are no wheel would fail the plain boot too, only later: the boot ends now.
    fail(urls.wheel, diagnose(urls.wheel, "wheel"));
    throw error;
  }
  return pyodide.pyimport("trafikist.model_view.live");
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

const fetchBytes = async (url) => (await fetchOk(url)).arrayBuffer();

// The snapshot is gzipped at build time. A server that labels it Content-Encoding: gzip has
// had the browser unzip it already, so look at the first two bytes (gzip's magic number).
async function gunzip(buffer) {
  const head = new Uint8Array(buffer, 0, 2);
  if (head[0] !== 0x1f || head[1] !== 0x8b) return buffer;
  const stream = new Blob([buffer]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer();
}

function scenarioText(url) {
  if (!scenarios.has(url)) {
    scenarios.set(url, fetchOk(url).then((response) => response.text()));
  }
  return scenarios.get(url);
}

// After a restore from the memory snapshot the browser's WebAssembly engine has not yet
// optimised CPython's hot paths (the plain boot runs enough Python to get there): a second Run
// right away takes 60 to 80 ms instead of 25. So the worker runs the reader's scenario again,
// keeping nothing, for up to REHEARSAL_MS while they look at the first result. Each rehearsal
// is its own task, and any new request stops them.
async function rehearse(live, scenario) {
  const asked = requests;
  const until = performance.now() + REHEARSAL_MS;
  while (performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (requests !== asked) return;
    live.rehearse(scenario);
  }
}

self.onmessage = async (event) => {
  const request = event.data;
  requests++;
  const id = request.id;
  try {
    // The scenario is fetched while Pyodide loads, not after.
    const text = request.type === "run" ? scenarioText(request.scenario) : null;
    if (!booting) {
      self.postMessage({ type: "status", id, phase: "loading" });
      booting = Promise.race([boot(request.urls), broken]).then((booted) => {
        settle(performance.getEntriesByType("resource"));
        report(true); // the last count: every file is in
        counted = true;
        return booted;
      });
      booting.catch(() => {}); // handled by whichever request awaits it
    }
    if (request.type === "boot") return; // a failed boot is reported to the request that waits
    const waiting = performance.now();
    let booted;
    try {
      booted = await booting;
    } catch (error) {
      self.postMessage({ type: "error", id, message: await bootFailure(error), boot: true });
      return;
    }
    const { live, how } = booted;
    const loadMs = performance.now() - waiting;
    if (request.type === "run") {
      const scenario = await text;
      self.postMessage({ type: "status", id, phase: "running" });
      const started = performance.now();
      const result = live.run(scenario, request.controls);
      served = true;
      const trace = live.last_trace();
      const runMs = performance.now() - started;
      self.postMessage({ type: "result", id, result, trace, loadMs, runMs, boot: how, from: source() });
      if (how === "snapshot" && !rehearsed) {
        rehearsed = true;
        rehearse(live, scenario).catch(() => {}); // a rehearsal's failure is no reader's concern
      }
    } else {
      // A console command has the run's time limit too: the page stops a long one (LRANGE of
      // a list of millions) as it stops a long Run.
      const scenario = !served && request.scenario ? await scenarioText(request.scenario) : null;
      self.postMessage({ type: "status", id, phase: "running" });
      if (scenario !== null) {
        // A new worker (the last one was stopped): the last Run again, for its server.
        live.run(scenario, request.controls);
        served = true;
      }
      self.postMessage({ type: "reply", id, text: live.console(request.line) });
    }
  } catch (error) {
    // A Python exception arrives as a PythonError whose message is the whole traceback; its
    // last line names the error, which is what the reader needs.
    const text = String((error && error.message) || error).trim();
    self.postMessage({ type: "error", id, message: text.split("\n").pop() });
  }
};
