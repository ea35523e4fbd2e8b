// The widget's pure parts in Node (node:test), on what the built page carries: its controls'
// data block, its form's fields and each duty's defaults. tests/widget/test_widget_node.py
// reads those from module 04's built page and runs this file:
//
//   TRAFIKIST_WIDGET_PAGE=page.json node --test tests/widget/controls.test.mjs
//
// page.json: {spec, form: [{name, type, value, checked}, …] in the page's order, defaults:
// {duty id: data-defaults}, timeLimit: data-time-limit}. The assertions are what a reader sees:
// the note under the controls, the shared URL's query, the status line's words.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  changes,
  describe,
  dutyOf,
  fieldsFor,
  fromQuery,
  readFields,
  readQuery,
  sharesRun,
  toQuery,
  valuesFrom,
  writeFields,
} from "../../widgets/duty/controls.mjs";
import { LOAD_LIMIT_S, Runner, progressText } from "../../widgets/duty/runner.mjs";

const page = JSON.parse(readFileSync(process.env.TRAFIKIST_WIDGET_PAGE, "utf8"));
const { spec } = page;

// The page's form as plain objects (what `form.elements` has), and the glue's two moves on it.
function form() {
  const elements = page.form.map((field) => ({ ...field }));
  return {
    elements,
    field: (name, value) => elements.find((field) => field.name === name && (value === undefined || field.value === value)),
    read: () => valuesFrom(spec, readFields(elements)),
    write(values, defaults) {
      const { fields, options } = fieldsFor(spec, values, defaults);
      for (const [name, list] of Object.entries(options)) this.field(name).options = list;
      writeFields(elements, fields);
    },
  };
}

// A duty picked: its defaults written into the form, as widget.mjs's place() does.
function picked(duty, values = null) {
  const defaults = page.defaults[duty];
  const shown = form();
  shown.write(values || defaults, defaults);
  return { shown, defaults };
}

const query = (duty, values, defaults) => toQuery(spec, duty, values, defaults).toString();
const asIs = (defaults) => Object.fromEntries(Object.entries(defaults).filter(([key]) => key !== "clients"));

test("the page's untouched form reads as the first duty's defaults, with nothing to say", () => {
  const shown = form();
  const defaults = page.defaults.promote;
  assert.deepEqual(shown.read(), asIs(defaults));
  assert.equal(describe(spec, shown.read(), defaults), "");
  assert.equal(query("promote", shown.read(), defaults), "duty=promote");
});

test("every duty's defaults go into the form and come back out unchanged", () => {
  for (const duty of Object.keys(page.defaults)) {
    const { shown, defaults } = picked(duty);
    assert.deepEqual(shown.read(), asIs(defaults), duty);
    assert.deepEqual(changes(spec, shown.read(), defaults), [], duty);
  }
});

test("switching the wire says so and puts it in the shared URL", () => {
  const { shown, defaults } = picked("recover");
  shown.field("wire", "6").checked = true;
  shown.field("wire", "4").checked = false;
  assert.equal(describe(spec, shown.read(), defaults), "Changed from the default: wire: 6.");
  assert.equal(query("recover", shown.read(), defaults), "duty=recover&wire=6");
});

test("a shared URL sets the controls, and the note and the URL say what differs", () => {
  const { defaults } = picked("recover");
  const shared = new URLSearchParams("duty=recover&wire=6&limit=1&send=Stalled,Pump");
  const { shown } = picked("recover", fromQuery(spec, shared, defaults));
  assert.equal(shown.field("wire", "6").checked, true);
  assert.equal(shown.field("limit").value, "1");
  assert.equal(shown.field("send", "Pump").checked, true);
  const values = shown.read();
  assert.equal(
    describe(spec, values, defaults),
    "Changed from the default: processes Pump and Stalled; wire: 6; limit 1.",
  );
  assert.equal(query("recover", values, defaults), "duty=recover&send=Pump%2CStalled&wire=6&limit=1");
});

test("every kind of control has its words and its URL form", () => {
  const { shown, defaults } = picked("promote");
  for (const box of shown.elements.filter((field) => field.name === "send")) box.checked = false;
  shown.field("reaper").checked = false;
  shown.field("beat").value = "2.5";
  shown.field("batch").value = "10";
  shown.field("crash-client").value = "consumer";
  shown.field("crash-after").value = "3";
  const values = shown.read();
  assert.equal(
    describe(spec, values, defaults),
    "Changed from the default: no process sends; reaper off; beat 2.5 s; batch 10; consumer crashes after command 3.",
  );
  const shared = query("promote", values, defaults);
  assert.equal(shared, "duty=promote&send=none&reaper=off&beat=2.5&batch=10&crash=consumer%403");
  // Opened, that URL gives the same controls back.
  assert.deepEqual(fromQuery(spec, new URLSearchParams(shared), defaults), values);
});

test("a duty with a crash: its client is offered, and no crash is a change", () => {
  const { shown, defaults } = picked("reclaim");
  assert.deepEqual(shown.field("crash-client").options, [["no crash", ""], ["reader-a", "reader-a"], ["reader-b", "reader-b"]]);
  assert.equal(shown.field("crash-client").value, "reader-a");
  assert.equal(shown.field("crash-after").value, "2");
  shown.field("crash-client").value = "";
  assert.equal(describe(spec, shown.read(), defaults), "Changed from the default: no crash.");
  assert.equal(query("reclaim", shown.read(), defaults), "duty=reclaim&crash=none");
});

test("what a shared URL gets wrong stays the default", () => {
  const defaults = page.defaults.promote;
  const values = fromQuery(spec, new URLSearchParams("duty=promote&wire=5&beat=soon&crash=nobody@2"), defaults);
  assert.deepEqual(values, asIs(defaults));
  assert.equal(describe(spec, values, defaults), "");
});

test("a shared URL's wrong values are each named, and stay the default", () => {
  const promote = page.defaults.promote;
  const said = (text, defaults = promote) => readQuery(spec, new URLSearchParams(text), defaults);
  let read = said("duty=promote&beat=-1&batch=99999999");
  assert.deepEqual(read.values, asIs(promote));
  assert.deepEqual(read.problems, [
    "beat \u22121 s is outside 0.1\u201360 s; the default 1 s is used.",
    "batch 99999999 is outside 1\u20131000; the default 100 is used.",
  ]);
  assert.deepEqual(said("duty=promote&beat=").problems, ["beat has no value; the default 1 s is used."]);
  assert.deepEqual(said("duty=promote&beat=soon&limit=2.5").problems, [
    "beat 'soon' is not a number; the default 1 s is used.",
    "limit 2.5 is not a whole number; the default 100 is used.",
  ]);
  assert.deepEqual(said("duty=promote&beat=0.15").problems, [
    "beat 0.15 s is not in steps of 0.1 s from 0.1 s; the default 1 s is used.",
  ]);
  read = said("duty=promote&send=pump");
  assert.deepEqual(read.values.send, promote.send);
  assert.deepEqual(read.problems, [
    `send 'pump' is not a process kind (Consumer, Metronome, Pump, Stalled, StreamConsumer); the default (processes ${promote.send.join(" and ")}) is used.`,
  ]);
  read = said("duty=promote&send=pump,Pump&wire=5&reaper=maybe");
  assert.deepEqual(read.values.send, ["Pump"]);
  assert.deepEqual(read.problems, [
    "send 'pump' is not a process kind (Consumer, Metronome, Pump, Stalled, StreamConsumer); it is left out.",
    "wire '5' is not a wire the model speaks (4, 6); the default 4 is used.",
    `reaper 'maybe' is neither on nor off; the default (reaper ${promote.reaper ? "on" : "off"}) is used.`,
  ]);
  const reclaim = page.defaults.reclaim;
  assert.deepEqual(said("duty=reclaim&crash=nobody@2&batch=5", reclaim).problems, [
    "crash client 'nobody' is not a client of this duty (reader-a, reader-b); the default (reader-a crashes after command 2) is used.",
  ]);
  assert.deepEqual(said("duty=reclaim&crash=reader-b@5000", reclaim).problems, [
    "crash command 5000 is outside 0\u20131000; the default (reader-a crashes after command 2) is used.",
  ]);
  assert.deepEqual(said("duty=reclaim&crash=reader-b", reclaim).problems, [
    "crash 'reader-b' is neither none nor CLIENT@COMMAND; the default (reader-a crashes after command 2) is used.",
  ]);
  // Good values say nothing, whatever the control.
  read = said("duty=reclaim&crash=reader-b@0&beat=60&batch=1&limit=1000&send=none&reaper=off&wire=6", reclaim);
  assert.deepEqual(read.problems, []);
  assert.deepEqual(read.values.crash, { client: "reader-b", after: 0 });
});

test("a shared URL's keys that no control has are named, with the control meant", () => {
  const promote = page.defaults.promote;
  const said = (text) => readQuery(spec, new URLSearchParams(text), promote).problems;
  const keys = ["duty", ...spec.map((control) => control.key)].join(", ");
  assert.deepEqual(said("duty=promote&baet=2&Wire=6&zzz=1"), [
    "'baet' is not one of the controls (did you mean beat?); it is left out.",
    "'Wire' is not one of the controls (did you mean wire?); it is left out.",
    `'zzz' is not one of the controls (${keys}); it is left out.`,
  ]);
  // A long list is cut short: three named, the rest counted.
  const many = said("duty=promote&" + Array.from({ length: 40 }, (_, i) => `k${i}=1`).join("&"));
  assert.equal(many.length, 4);
  assert.equal(many.at(-1), "37 more keys are not controls either.");
  assert.deepEqual(readQuery(spec, new URLSearchParams("duty=promote&baet=2"), promote).values, asIs(promote));
});

test("a URL is a shared run's when it names a duty or sets a control", () => {
  assert.equal(sharesRun(spec, new URLSearchParams("duty=promote")), true);
  assert.equal(sharesRun(spec, new URLSearchParams("beat=-1")), true);
  // The theme's search highlights its terms with ?h=…: that is not a shared run.
  assert.equal(sharesRun(spec, new URLSearchParams("h=promote")), false);
  assert.equal(sharesRun(spec, new URLSearchParams("")), false);
});

test("a shared URL's duty that the page does not have is named", () => {
  const duties = Object.keys(page.defaults);
  assert.deepEqual(dutyOf(new URLSearchParams("duty=recover"), duties), { duty: "recover", problem: "" });
  assert.deepEqual(dutyOf(new URLSearchParams("duty=nope"), duties), {
    duty: null,
    problem: "duty 'nope' is not a duty of this page; the first duty is shown.",
  });
  const long = "x".repeat(300);
  assert.ok(dutyOf(new URLSearchParams(`duty=${long}`), duties).problem.length < 120, "a long value is cut short");
});

// -- the runner ------------------------------------------------------------------------------------

// A stand-in for the module worker: it records what the page sends, and answers as told.
class FakeWorker {
  constructor(url, answer) {
    this.url = url;
    this.sent = [];
    this.answer = answer;
    this.terminated = false;
  }
  postMessage(message) {
    this.sent.push(message);
    if (message.type !== "boot") queueMicrotask(() => this.answer(this, message));
  }
  reply(message) {
    this.onmessage({ data: message });
  }
  terminate() {
    this.terminated = true;
  }
}

function runner(answer, { runLimit = Number(page.timeLimit), loadLimit } = {}) {
  const told = { phases: [], progress: [], stopped: 0 };
  const workers = [];
  const instance = new Runner({
    workerUrl: "https://example.invalid/duty/worker.mjs",
    bootUrls: () => ({ sizes: "run-files.json" }),
    runLimit: () => runLimit,
    ...(loadLimit ? { loadLimit: () => loadLimit } : {}),
    makeWorker: (url) => workers[workers.push(new FakeWorker(url, answer)) - 1],
    onPhase: (phase, kind) => told.phases.push(`${phase} ${kind}`),
    onProgress: (loaded, total) => told.progress.push(progressText(loaded, total).text),
    onStop: () => told.stopped++,
  });
  return { instance, told, workers };
}

test("the page carries the build's run limit, and the load has its own", () => {
  assert.equal(page.timeLimit, "10");
  assert.equal(LOAD_LIMIT_S, 120);
});

test("a run reports its phases and progress, then its result", async () => {
  const { instance, told, workers } = runner((worker, message) => {
    worker.reply({ type: "status", id: message.id, phase: "loading" });
    worker.reply({ type: "progress", loaded: 6.0e6, total: 20.4e6 });
    worker.reply({ type: "progress", loaded: 20.4e6, total: 20.4e6 });
    worker.reply({ type: "status", id: message.id, phase: "running" });
    worker.reply({ type: "result", id: message.id, result: "{}" });
  });
  instance.start();
  const reply = await instance.request({ type: "run", scenario: "s.json", controls: "{}" });
  assert.equal(reply.type, "result");
  assert.equal(workers.length, 1);
  assert.deepEqual(workers[0].sent.map((message) => message.type), ["boot", "run"]);
  assert.deepEqual(told.phases, ["loading run", "running run"]);
  assert.deepEqual(told.progress, ["Loading Python and the model · 6.0 of 20.4 MB", "Starting Python…"]);
  assert.equal(instance.busy, false);
});

test("the progress bar's words without the files' sizes", () => {
  assert.deepEqual(progressText(1.25e6, null), { text: "Loading Python and the model · 1.3 of ? MB", starting: false });
});

test("a run past its time limit is stopped, and the reader told", async () => {
  const { instance, told, workers } = runner(
    (worker, message) => worker.reply({ type: "status", id: message.id, phase: "running" }),
    { runLimit: 0.001 },
  );
  await assert.rejects(
    instance.request({ type: "run", scenario: "s.json", controls: "{}" }),
    { message: "The run went past its time limit of 0.001 s and was stopped." },
  );
  assert.equal(workers[0].terminated, true);
  assert.equal(told.stopped, 1);
  assert.equal(instance.busy, false);
});

test("a console line past the load's limit, a second request, a failed worker", async () => {
  const { instance, workers } = runner(() => {}, { loadLimit: 0.001 });
  const line = instance.request({ type: "console", line: "PING" });
  await assert.rejects(instance.request({ type: "run" }), { message: "A run is still going; wait for it to finish." });
  await assert.rejects(line, {
    message: "Python did not start within its time limit of 0.001 s and was stopped. A new Run tries again.",
    stopped: true,
  });
  const again = instance.request({ type: "console", line: "PING" });
  assert.equal(workers.length, 2); // a new worker: the first one was stopped
  workers[1].onerror({ message: "" });
  await assert.rejects(again, {
    message: "Python could not start: its worker (worker.mjs) could not be loaded (offline?). A new Run tries again.",
  });
});

test("a console command that runs past the run's limit is stopped, and the next one starts anew", async () => {
  let answered = 0;
  const { instance, told, workers } = runner(
    (worker, message) => {
      worker.reply({ type: "status", id: message.id, phase: "running" });
      if (answered++ > 0) worker.reply({ type: "reply", id: message.id, text: "PONG" });
    },
    { runLimit: 0.001 },
  );
  await assert.rejects(instance.request({ type: "console", line: "LRANGE big 0 -1" }), {
    message: "The command went past its time limit of 0.001 s and was stopped.",
    stopped: true,
  });
  assert.equal(workers[0].terminated, true);
  assert.equal(told.stopped, 1);
  const reply = await instance.request({ type: "console", line: "PING", scenario: "s.json", controls: "{}" });
  assert.equal(reply.text, "PONG");
  assert.equal(workers.length, 2);
  assert.equal(workers[1].sent.at(-1).scenario, "s.json"); // the new worker runs the last Run first
});

test("a boot that fails is told at once, and the next request starts a new worker", async () => {
  let boots = 0;
  const { instance, told, workers } = runner((worker, message) => {
    if (boots++ === 0) {
      worker.reply({ type: "error", id: message.id, boot: true, message: "the file pyodide.asm.wasm could not be fetched (offline?)" });
    } else worker.reply({ type: "result", id: message.id, result: "{}" });
  });
  await assert.rejects(instance.request({ type: "run" }), {
    message: "Python could not start: the file pyodide.asm.wasm could not be fetched (offline?). A new Run tries again.",
    stopped: true,
  });
  assert.equal(workers[0].terminated, true);
  assert.equal(told.stopped, 1);
  assert.equal((await instance.request({ type: "run" })).type, "result");
  assert.equal(workers.length, 2);
});

test("a time limit longer than setTimeout can wait does not fire at once", async () => {
  const { instance, told } = runner((worker, message) => {
    worker.reply({ type: "status", id: message.id, phase: "running" });
    setTimeout(() => worker.reply({ type: "result", id: message.id, result: "{}" }), 50);
  }, { runLimit: 3000000 });
  assert.equal((await instance.request({ type: "run" })).type, "result");
  assert.equal(told.stopped, 0);
});
