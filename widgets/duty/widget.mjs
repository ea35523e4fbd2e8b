// Pick a duty, live: the controls, the shared URL, the Run and the console.
// duty.js imports this on the reader's first move in the widget; Pyodide loads in a module
// worker on the first Run only. The drawing is done in Python (trafikist.model_view), the same
// code that baked the static form, and arrives here as markup whose every text is escaped.

let enhanced = false;
let pressRun = () => {};

// duty.js calls this when the reader's first move in the widget was a press on Run.
export function pressedRun() {
  pressRun();
}

export function enhance(section) {
  if (enhanced) return;
  enhanced = true;
  const live = section.querySelector(".tk-live");
  const controls = live.querySelector(".tk-controls");
  const status = live.querySelector(".tk-live__status");
  const changed = live.querySelector(".tk-live__changed");
  const share = live.querySelector(".tk-live__share");
  const consoleForm = live.querySelector(".tk-console");
  const consoleInput = consoleForm.querySelector("input");
  const consoleOut = consoleForm.querySelector(".tk-console__out");
  const crashClient = controls.elements["crash-client"];
  const here = new URL(import.meta.url);
  const model = (name) => (name ? new URL(`../model/${name}`, here).href : null);
  const saveData = Boolean(navigator.connection?.saveData);
  const urls = {
    pyodide: new URL(section.dataset.pyodideUrl || "../pyodide/", here).href,
    lock: model("pyodide-lock.json"),
    // Pyodide's memory with the model imported, made at build time (absent: the plain boot).
    // It saves seconds of start-up for about 7 MB more to fetch: not for a reader who asked
    // their browser to save data.
    snapshot: saveData ? null : model(section.dataset.snapshot),
    wheel: model(section.dataset.wheel),
    sizes: model("run-files.json"), // what the progress bar counts against
  };
  // data-progress="off" leaves the progress bar out, and with it the counting of the bytes
  // (the benchmark that prices the bar sets it). Read when the worker starts.
  const bootUrls = () => ({ ...urls, sizes: section.dataset.progress === "off" ? null : urls.sizes });
  // Read when armed, so the page's data attributes can change them (the tests do).
  const runLimitMs = () => 1000 * Number(section.dataset.timeLimit || 10);
  const loadLimitMs = () => 1000 * Number(section.dataset.loadLimit || 120);
  let worker = null;
  let nextId = 0;
  let pending = null; // {id, kind, resolve, reject, timer}
  let ranOnce = false;

  const radios = [...section.querySelectorAll(".tk-duty__radio")];
  const chosen = () => radios.find((radio) => radio.checked);
  const runOf = (radio) => document.getElementById(radio.getAttribute("aria-controls"))?.querySelector(".tk-run");
  const defaultsOf = (run) => JSON.parse(run.dataset.defaults);

  // -- controls <-> values <-> URL -------------------------------------------------------------

  function readControls() {
    const form = controls.elements;
    return {
      send: [...controls.querySelectorAll("input[name=send]:checked")].map((box) => box.value),
      wire: Number(form.wire.value),
      reaper: form.reaper.checked,
      beat: Number(form.beat.value),
      batch: Number(form.batch.value),
      limit: Number(form.limit.value),
      crash: form["crash-client"].value
        ? { client: form["crash-client"].value, after: Number(form["crash-after"].value) }
        : null,
    };
  }

  function writeControls(values, defaults) {
    const form = controls.elements;
    for (const box of controls.querySelectorAll("input[name=send]")) box.checked = values.send.includes(box.value);
    form.wire.value = String(values.wire);
    form.reaper.checked = values.reaper;
    form.beat.value = values.beat;
    form.batch.value = values.batch;
    form.limit.value = values.limit;
    crashClient.replaceChildren(new Option("no crash", ""));
    for (const client of defaults.clients) crashClient.add(new Option(client.name, client.name));
    crashClient.value = values.crash ? values.crash.client : "";
    form["crash-after"].value = values.crash ? values.crash.after : 1;
  }

  // Equal as values: objects compare by sorted keys (the build's JSON sorts them; the form not).
  const canon = (v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v).sort().map((k) => [k, v[k]]) : v);
  const same = (a, b) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));
  const changes = (values, defaults) =>
    Object.keys(values).filter((key) => key !== "clients" && !same(values[key], defaults[key] ?? null));

  function toQuery(duty, values, defaults) {
    const query = new URLSearchParams({ duty });
    for (const key of changes(values, defaults)) {
      const value = values[key];
      if (key === "send") query.set(key, value.length ? value.join(",") : "none");
      else if (key === "reaper") query.set(key, value ? "on" : "off");
      else if (key === "crash") query.set(key, value ? `${value.client}@${value.after}` : "none");
      else query.set(key, String(value));
    }
    return query;
  }

  function fromQuery(query, defaults) {
    const values = { ...defaults };
    delete values.clients;
    const number = (key) => (query.has(key) && Number.isFinite(Number(query.get(key))) ? Number(query.get(key)) : values[key]);
    if (query.has("send")) values.send = query.get("send") === "none" ? [] : query.get("send").split(",");
    values.wire = [4, 6].includes(number("wire")) ? number("wire") : values.wire;
    if (query.has("reaper")) values.reaper = query.get("reaper") === "on";
    for (const key of ["beat", "batch", "limit"]) values[key] = number(key);
    const crash = /^(.+)@(\d+)$/.exec(query.get("crash") || "");
    if (crash && defaults.clients.some((client) => client.name === crash[1])) values.crash = { client: crash[1], after: Number(crash[2]) };
    else if (query.get("crash") === "none") values.crash = null;
    return values;
  }

  // The reader's words for each changed control, for the note under the controls.
  const wording = {
    send: (v) => (v.length ? `processes ${v.join(" and ")}` : "no process sends"),
    wire: (v) => `wire: ${v}`,
    reaper: (v) => `reaper ${v ? "on" : "off"}`,
    beat: (v) => `beat ${v} s`,
    batch: (v) => `batch ${v}`,
    limit: (v) => `limit ${v}`,
    crash: (v) => (v ? `${v.client} crashes after command ${v.after}` : "no crash"),
  };

  function describe(values, defaults) {
    const keys = changes(values, defaults);
    if (!keys.length) return "";
    return `Changed from the default: ${keys.map((key) => wording[key](values[key])).join("; ")}.`;
  }

  function syncURL() {
    const radio = chosen();
    const run = radio && runOf(radio);
    if (!run) return;
    const defaults = defaultsOf(run);
    const values = readControls();
    const query = toQuery(radio.value, values, defaults);
    const url = new URL(location.href);
    url.search = query.toString();
    history.replaceState(history.state, "", url);
    share.href = url.href;
    changed.textContent = describe(values, defaults);
  }

  // -- picking a duty ---------------------------------------------------------------------------

  function place(values) {
    const radio = chosen();
    const run = radio && runOf(radio);
    live.hidden = !run;
    if (!run) return;
    run.append(live); // the controls and the console sit under the chosen duty's timeline
    const defaults = defaultsOf(run);
    writeControls(values || defaults, defaults);
    syncURL();
  }

  for (const radio of radios) radio.addEventListener("change", () => place(null));
  controls.addEventListener("input", syncURL);
  controls.addEventListener("change", syncURL);
  live.querySelector("[data-action=reset]").addEventListener("click", () => place(null));

  const query = new URLSearchParams(location.search);
  const shared = radios.find((radio) => radio.value === query.get("duty") && runOf(radio));
  if (shared) {
    shared.checked = true;
    place(fromQuery(query, defaultsOf(runOf(shared))));
  } else if (!runOf(chosen())?.contains(live)) {
    place(null);
  } // else the page's HTML already shows the chosen duty's defaults, and the reader may be typing


  // -- the worker -------------------------------------------------------------------------------

  function say(text, isError = false) {
    status.textContent = text;
    status.classList.toggle("tk-live__status--error", isError);
  }

  // The first Run's progress: a <progress> of the bytes fetched against the total of the files
  // that Run needs, then "Starting Python…" until the result is drawn; then it goes.
  let bar = null;
  const megabytes = (bytes) => (bytes / 1e6).toFixed(1);

  function showProgress(loaded, total) {
    if (!pending || pending.kind !== "run") return;
    if (!bar) {
      bar = document.createElement("p");
      bar.className = "tk-live__progress";
      bar.innerHTML = '<label for="tk-live-progress"></label> <progress id="tk-live-progress"></progress>';
      status.before(bar);
    }
    const [label, meter] = bar.querySelectorAll("label, progress");
    if (total) {
      meter.max = total;
      meter.value = Math.min(loaded, total);
    } else {
      meter.removeAttribute("value"); // sizes unknown: a bar that shows activity only
    }
    const starting = total && loaded >= total;
    const text = starting
      ? "Starting Python…"
      : `Loading Python and the model · ${megabytes(loaded)} of ${total ? `${megabytes(total)} MB` : "? MB"}`;
    if (label.textContent !== text) label.textContent = text;
    if (starting && !bar.dataset.starting) {
      bar.dataset.starting = "true";
      say("Starting Python…");
    }
  }

  function hideProgress() {
    bar?.remove();
    bar = null;
  }

  function stopWorker(reason) {
    if (worker) worker.terminate();
    worker = null;
    hideProgress();
    ranOnce = false; // the console's server went with the worker
    consoleForm.hidden = true;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(new Error(reason));
      pending = null;
    }
  }

  function arm(limitMs, what) {
    clearTimeout(pending.timer);
    pending.timer = setTimeout(
      () => stopWorker(`The ${what} went past its time limit of ${limitMs / 1000} s and was stopped.`),
      limitMs,
    );
  }

  function startWorker() {
    if (!worker) {
      // A Save-Data reader's worker is marked, so the site's offline copy keeps none of its
      // files (widgets/duty/worker.mjs says how).
      worker = new Worker(new URL(saveData ? "worker.mjs?save-data" : "worker.mjs", here), { type: "module" });
      worker.onmessage = (event) => {
        const reply = event.data;
        if (reply.type === "progress") {
          showProgress(reply.loaded, reply.total);
          return;
        }
        if (!pending || reply.id !== pending.id) return;
        if (reply.type === "status") {
          if (reply.phase === "loading") say("Loading Python and the model into the page (first run only)…");
          else if (pending.kind === "run") say("Running the scenario…");
          arm(reply.phase === "loading" ? loadLimitMs() : runLimitMs(), pending.kind === "run" ? "run" : "command");
          return;
        }
        const done = pending;
        pending = null;
        clearTimeout(done.timer);
        if (reply.type === "error") done.reject(new Error(reply.message));
        else done.resolve(reply);
      };
      worker.onerror = (event) => stopWorker(`The worker failed: ${event.message || "it could not start"}.`);
      // Pyodide starts loading now, while the press on Run completes (no answer comes back).
      worker.postMessage({ type: "boot", id: 0, urls: bootUrls() });
    }
  }

  function request(message) {
    if (pending) return Promise.reject(new Error("A run is still going; wait for it to finish."));
    startWorker();
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      pending = { id, kind: message.type, resolve, reject, timer: 0 };
      arm(loadLimitMs(), message.type === "run" ? "run" : "command");
      worker.postMessage({ ...message, id, urls: bootUrls() });
    });
  }

  // -- Run --------------------------------------------------------------------------------------

  const runButton = controls.querySelector("button[type=submit]");
  // A press on Run (pointer down, or Enter or Space on the button) is the reader asking: the
  // worker starts then, a few tens of milliseconds before the click or the key's release.
  pressRun = startWorker;
  runButton.addEventListener("pointerdown", startWorker);
  runButton.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") startWorker();
  });
  controls.addEventListener("submit", async (event) => {
    event.preventDefault();
    const clicked = performance.now();
    const radio = chosen();
    const run = radio && runOf(radio);
    if (!run || pending) {
      if (!pending) section.removeAttribute("aria-busy");
      return;
    }
    const values = readControls();
    // Not `disabled`: the button keeps the focus, and a second press is only ignored (the
    // check above), so it starts no second download.
    runButton.setAttribute("aria-disabled", "true");
    section.setAttribute("aria-busy", "true");
    if (!ranOnce) say("Loading Python and the model into the page (first run only)…");
    try {
      const scenario = new URL(`../model/scenarios/${run.dataset.scenario}.json`, here).href;
      const reply = await request({ type: "run", scenario, controls: JSON.stringify(values) });
      const result = JSON.parse(reply.result);
      if (result.error) {
        say(`The model stopped with an error: ${result.error}`, true);
        return;
      }
      const target = run.querySelector(".tk-run__result");
      hideProgress();
      target.innerHTML = result.markup; // built by the Python renderer, every text escaped
      run.querySelector(".tk-run__state").textContent = describe(values, defaultsOf(run)) ? "live run, changed" : "live run";
      run.dataset.trace = reply.trace; // the run's trace, for whoever compares (the tests)
      const ms = performance.now() - clicked;
      ranOnce = true;
      consoleForm.hidden = false;
      say(`${result.summary} Drawn ${Math.round(ms)} ms after Run.`);
      target.focus();
      section.dataset.boot = reply.boot; // how Pyodide started: "snapshot" or "lock"
      section.dataset.bootFrom = reply.from; // where its files came from: "cache" or "network"
      const detail = { ms, loadMs: reply.loadMs, runMs: reply.runMs, boot: reply.boot, from: reply.from };
      section.dispatchEvent(new CustomEvent("tk:drawn", { detail }));
    } catch (error) {
      say(error.message, true);
    } finally {
      hideProgress();
      runButton.removeAttribute("aria-disabled");
      section.removeAttribute("aria-busy");
    }
  });

  // -- the console ------------------------------------------------------------------------------

  consoleForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const line = consoleInput.value.trim();
    if (!line || !ranOnce) return;
    let text;
    try {
      text = (await request({ type: "console", line })).text;
    } catch (error) {
      text = `(error) ${error.message}`;
    }
    // textContent: whatever the reader typed, and whatever came back, stays text.
    consoleOut.textContent += `> ${line}\n${text}\n`;
    consoleOut.scrollTop = consoleOut.scrollHeight;
    consoleInput.value = "";
  });
}
