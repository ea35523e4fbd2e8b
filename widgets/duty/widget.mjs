// Pick a duty, live: the page's part, which wires the form, the shared URL, Run and the console
// to the page. duty.js imports this on the reader's first move in the widget. What the controls
// mean is controls.mjs (plain data, read from the page's #tk-controls-spec); the worker, its
// time limits and the progress are runner.mjs; Pyodide loads in a module worker (worker.mjs)
// on the first Run only. The drawing is done in Python (trafikist.model_view), the same code
// that baked the static form, and arrives here as markup whose every text is escaped.

import { describe, dutyOf, fieldsFor, readFields, readQuery, sharesRun, toQuery, valuesFrom, writeFields } from "./controls.mjs";
import { LOAD_LIMIT_S, Runner, progressText } from "./runner.mjs";

let enhanced = false;
let pressRun = () => {};
// What the console's box keeps of a session: its last characters (ten cut replies' worth).
const CONSOLE_KEEP = 200000;
// The query key of a question's "run it in the widget" link: the question whose run to show.
const QUESTION_KEY = "question";

// duty.js calls this when the reader's first move in the widget was a press on Run.
export function pressedRun() {
  pressRun();
}

export function enhance(section) {
  if (enhanced) return;
  enhanced = true;
  const live = section.querySelector(".tk-live");
  const spec = JSON.parse(live.querySelector("#tk-controls-spec").textContent);
  const controls = live.querySelector(".tk-controls");
  const status = live.querySelector(".tk-live__status");
  const changed = live.querySelector(".tk-live__changed");
  const share = live.querySelector(".tk-live__share");
  const consoleForm = live.querySelector(".tk-console");
  const consoleInput = consoleForm.querySelector("input");
  const consoleOut = consoleForm.querySelector(".tk-console__out");
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
  let booted = false; // this worker has answered a run: Python is in
  let lastRun = null; // {scenario, controls} of the run the page shows, for the console's server

  const radios = [...section.querySelectorAll(".tk-duty__radio")];
  const chosen = () => radios.find((radio) => radio.checked);
  const runOf = (radio) => document.getElementById(radio.getAttribute("aria-controls"))?.querySelector(".tk-run");
  const defaultsOf = (run) => JSON.parse(run.dataset.defaults);

  // -- controls <-> values <-> URL -------------------------------------------------------------

  const readControls = () => valuesFrom(spec, readFields(controls.elements));

  function writeControls(values, defaults) {
    const { fields, options } = fieldsFor(spec, values, defaults);
    // A select's options first (a fault's: the duty's clients), then every field's value.
    for (const [name, list] of Object.entries(options)) {
      controls.elements[name].replaceChildren(...list.map(([label, value]) => new Option(label, value)));
    }
    writeFields(controls.elements, fields);
  }

  function syncURL() {
    const radio = chosen();
    const run = radio && runOf(radio);
    if (!run) return;
    const defaults = defaultsOf(run);
    const values = readControls();
    const url = new URL(location.href);
    url.search = toQuery(spec, radio.value, values, defaults).toString();
    history.replaceState(history.state, "", url);
    share.href = url.href;
    changed.textContent = describe(spec, values, defaults);
  }

  // -- picking a duty ---------------------------------------------------------------------------

  // A duty picked again shows the controls of the run it shows (a live run's, a question's),
  // not the defaults under a changed run's drawing.
  function place(values) {
    const radio = chosen();
    const run = radio && runOf(radio);
    live.hidden = !run;
    if (!run) return;
    run.append(live); // the controls and the console sit under the chosen duty's timeline
    const defaults = defaultsOf(run);
    const shown = run.dataset.values ? JSON.parse(run.dataset.values) : null;
    writeControls(values || shown || defaults, defaults);
    syncURL();
  }

  // A new duty: the status line spoke of the last one's run, which is no longer in view.
  for (const radio of radios) {
    radio.addEventListener("change", () => {
      say("");
      place(null);
    });
  }
  controls.addEventListener("input", syncURL);
  controls.addEventListener("change", syncURL);
  live.querySelector("[data-action=reset]").addEventListener("click", () => {
    const run = runOf(chosen());
    if (run) place(defaultsOf(run));
  });

  // A link that changes the controls: the drawing under them must not be the default run as
  // if it were the link's. A question's link ("run it in the widget", ?question=ID) shows the
  // question's run as the build made it; any other link says that Run shows its run.
  async function showLinkedRun(run, question) {
    const state = run.querySelector(".tk-run__state");
    state.textContent = "default run, not this link's: press Run for it";
    if (!question || !/^[\w-]+$/.test(question)) return;
    const url = new URL(`../checks/runs/${question}.html`, here);
    try {
      const answer = await fetch(url);
      if (!answer.ok) return;
      const target = run.querySelector(".tk-run__result");
      target.innerHTML = await answer.text(); // made by the build's Python renderer, every text escaped
      // The fragment's links are relative to its own address, not to this page's.
      for (const link of target.querySelectorAll("a[href]")) link.href = new URL(link.getAttribute("href"), url).href;
      state.textContent = "the question's run, as the build made it";
      run.dataset.values = JSON.stringify(readControls());
    } catch {
      // Offline without the fragment kept: the line above already says what the drawing is.
    }
  }

  // -- the status line and the first Run's progress bar ----------------------------------------

  function say(text, isError = false) {
    status.textContent = text;
    status.classList.toggle("tk-live__status--error", isError);
  }

  // A shared URL: its duty and its values, each checked against the controls' spec; the run
  // note names each value that is wrong, which stays the default, and the URL is written again
  // with what the form holds. A URL with a control's key but no duty is one too, for the
  // first duty. (Any other query, such as the theme's search's, is not the widget's.)
  const query = new URLSearchParams(location.search);
  if (sharesRun(spec, query)) {
    const running = radios.filter((radio) => runOf(radio));
    const { duty, problem } = dutyOf(query, running.map((radio) => radio.value));
    const shared = running.find((radio) => radio.value === duty) || chosen();
    if (shared && runOf(shared)) {
      shared.checked = true;
      const run = runOf(shared);
      const question = query.get(QUESTION_KEY);
      query.delete(QUESTION_KEY);
      const { values, problems } = readQuery(spec, query, defaultsOf(run));
      place(values);
      const said = [problem, ...problems].filter(Boolean);
      if (said.length) say(`From this link: ${said.join(" ")}`);
      else if (describe(spec, values, defaultsOf(run))) showLinkedRun(run, question);
    }
  } else if (!runOf(chosen())?.contains(live)) {
    place(null);
  } // else the page's HTML already shows the chosen duty's defaults, and the reader may be typing

  // A <progress> of the bytes fetched against the total of the files that Run needs, then
  // "Starting Python…" until the result is drawn; then it goes.
  let bar = null;

  function showProgress(loaded, total) {
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
    const { text, starting } = progressText(loaded, total);
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

  // -- the worker -------------------------------------------------------------------------------

  const runner = new Runner({
    // A Save-Data reader's worker is marked, so the site's offline copy keeps none of its
    // files (widgets/duty/worker.mjs says how).
    workerUrl: new URL(saveData ? "worker.mjs?save-data" : "worker.mjs", here),
    // data-progress="off" leaves the progress bar out, and with it the counting of the bytes
    // (the benchmark that prices the bar sets it).
    bootUrls: () => ({ ...urls, sizes: section.dataset.progress === "off" ? null : urls.sizes }),
    // Seconds: the build's run_time_limit, and the load's (data-load-limit, when set, for a test).
    runLimit: () => Number(section.dataset.timeLimit),
    loadLimit: () => Number(section.dataset.loadLimit || LOAD_LIMIT_S),
    onProgress: showProgress,
    onPhase(phase, kind) {
      if (phase === "loading") say("Loading Python and the model into the page (first run only)…");
      else if (kind === "run") say("Running the scenario…");
    },
    onStop() {
      hideProgress();
      booted = false; // Python went with the worker; the console's next command starts a new one
    },
  });

  // -- Run --------------------------------------------------------------------------------------

  const runButton = controls.querySelector("button[type=submit]");
  // Nothing of Pyodide is fetched for a form that cannot run: the press shows the form's own
  // message instead (the browser's, on the field, and the status line's, below).
  const startWorker = () => {
    if (controls.checkValidity()) runner.start();
  };
  controls.addEventListener(
    "invalid",
    (event) => {
      const field = event.target;
      const label = field.labels?.[0]?.textContent.trim() || field.name;
      say(`Not run: ${label}: ${field.validationMessage}`, true);
      section.removeAttribute("aria-busy");
    },
    true,
  );
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
    if (!run || runner.busy || !controls.reportValidity()) {
      if (!runner.busy) section.removeAttribute("aria-busy");
      return;
    }
    const values = readControls();
    // Not `disabled`: the button keeps the focus, and a second press is only ignored (the
    // check above), so it starts no second download.
    runButton.setAttribute("aria-disabled", "true");
    section.setAttribute("aria-busy", "true");
    if (!booted) say("Loading Python and the model into the page (first run only)…");
    try {
      const scenario = new URL(`../model/scenarios/${run.dataset.scenario}.json`, here).href;
      const reply = await runner.request({ type: "run", scenario, controls: JSON.stringify(values) });
      const result = JSON.parse(reply.result);
      if (result.error) {
        say(`The model stopped with an error: ${result.error}`, true);
        return;
      }
      const target = run.querySelector(".tk-run__result");
      hideProgress();
      target.innerHTML = result.markup; // built by the Python renderer, every text escaped
      run.querySelector(".tk-run__state").textContent = describe(spec, values, defaultsOf(run)) ? "live run, changed" : "live run";
      run.dataset.trace = reply.trace; // the run's trace, for whoever compares (the tests)
      run.dataset.values = JSON.stringify(values); // the controls of the run it shows
      const ms = performance.now() - clicked;
      booted = true;
      lastRun = { scenario, controls: JSON.stringify(values) };
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
    if (!line || !lastRun) return;
    let text;
    try {
      // The last Run's scenario and controls go along: a new worker (the last one was stopped)
      // runs them first, so the command finds the server that Run left.
      text = (await runner.request({ type: "console", line, ...lastRun })).text;
      booted = true;
    } catch (error) {
      text = `(error) ${error.message}`;
      if (error.stopped) text += " The next command starts Python again, on the server as the last Run left it.";
    }
    // textContent: whatever the reader typed, and whatever came back, stays text. One reply is
    // cut by the model (trafikist.model.console.MAX_REPLY_CHARS, with a line that says so); the
    // session keeps its last CONSOLE_KEEP characters, so each reply appears at once.
    const session = consoleOut.textContent + `> ${line}\n${text}\n`;
    consoleOut.textContent = session.length > CONSOLE_KEEP ? session.slice(-CONSOLE_KEEP) : session;
    consoleOut.scrollTop = consoleOut.scrollHeight;
    consoleInput.value = "";
  });
}
