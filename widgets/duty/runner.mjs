// The duty widget's runner: the module worker (worker.mjs) that runs the model, one request at
// a time, each under a time limit, and the first Run's progress. No DOM here: the page's part
// (widget.mjs) says what it reports, and Node tests it with a stand-in worker
// (tests/widget/controls.test.mjs).

// Seconds Pyodide may take to load before the page stops it (a run has its own limit, the
// build's run_time_limit, which the page carries in data-time-limit).
export const LOAD_LIMIT_S = 120;
// setTimeout's longest wait (a longer one fires at once); the build keeps run_time_limit far
// below it (1 to 600 s, trafikist.core.options).
const LONGEST_MS = 2 ** 31 - 1;

const megabytes = (bytes) => (bytes / 1e6).toFixed(1);

// The progress bar's words for `loaded` bytes of `total` (null: the sizes are not known), and
// whether all files are in (Python is starting).
export function progressText(loaded, total) {
  const starting = Boolean(total && loaded >= total);
  const text = starting
    ? "Starting Python…"
    : `Loading Python and the model · ${megabytes(loaded)} of ${total ? `${megabytes(total)} MB` : "? MB"}`;
  return { text, starting };
}

// What the runner tells the page, each optional:
//   onProgress(loaded, total)  bytes of the first Run's files, while a run waits for them
//   onPhase(phase, kind)       "loading" (Pyodide) or "running", for a "run" or a "console" request
//   onStop()                   the worker is gone (stopped, or it failed): so is the console's server
//
// A request that fails rejects with an Error whose message is the reader's sentence; `stopped`
// is true on it when the worker was ended (a time limit, a boot that failed), so the next
// request starts a new one.
export class Runner {
  // workerUrl: the module worker's URL; bootUrls(): the files it loads (read at each message);
  // runLimit(), loadLimit(): seconds, read when a limit is armed (the page's data attributes
  // may change them: the tests do); makeWorker(url): the worker (a stand-in in Node).
  constructor({ workerUrl, bootUrls, runLimit, loadLimit = () => LOAD_LIMIT_S, makeWorker, ...on }) {
    this.workerUrl = workerUrl;
    this.bootUrls = bootUrls;
    this.runLimit = runLimit;
    this.loadLimit = loadLimit;
    this.makeWorker = makeWorker || ((url) => new Worker(url, { type: "module" }));
    this.on = on;
    this.worker = null;
    this.nextId = 0;
    this.pending = null; // {id, kind, phase, resolve, reject, timer}
  }

  get busy() {
    return this.pending !== null;
  }

  // Start the worker, which starts loading Pyodide (no answer comes back). A press on Run
  // calls this, a few tens of milliseconds before the click or the key's release.
  start() {
    if (this.worker) return;
    this.worker = this.makeWorker(this.workerUrl);
    this.worker.onmessage = (event) => this.received(event.data);
    // An error event without a message: the worker's script could not be loaded.
    this.worker.onerror = (event) =>
      this.stop(
        event.message
          ? `The worker failed: ${event.message}.`
          : "Python could not start: its worker (worker.mjs) could not be loaded (offline?). A new Run tries again.",
      );
    this.worker.postMessage({ type: "boot", id: 0, urls: this.bootUrls() });
  }

  // Ask the worker ({type: "run", …} or {type: "console", …}); the promise of its answer.
  request(message) {
    if (this.pending) return Promise.reject(new Error("A run is still going; wait for it to finish."));
    this.start();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending = { id, kind: message.type, phase: "loading", resolve, reject, timer: 0 };
      this.arm(this.loadLimit());
      this.worker.postMessage({ ...message, id, urls: this.bootUrls() });
    });
  }

  // End the worker; a request still waiting fails with `reason`.
  stop(reason) {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.on.onStop?.();
    const pending = this.pending;
    if (pending) {
      clearTimeout(pending.timer);
      this.pending = null;
      pending.reject(Object.assign(new Error(reason), { stopped: true }));
    }
  }

  // The pending request's time limit, `seconds` from now: the load's while Pyodide loads, then
  // the run's (a Run's and a console command's alike).
  arm(seconds) {
    const pending = this.pending;
    const what = pending.kind === "run" ? "run" : "command";
    const reason =
      pending.phase === "loading"
        ? `Python did not start within its time limit of ${seconds} s and was stopped. A new Run tries again.`
        : `The ${what} went past its time limit of ${seconds} s and was stopped.`;
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => this.stop(reason), Math.min(seconds * 1000, LONGEST_MS));
  }

  received(reply) {
    const pending = this.pending;
    if (reply.type === "progress") {
      if (pending && pending.kind === "run") this.on.onProgress?.(reply.loaded, reply.total);
      return;
    }
    if (!pending || reply.id !== pending.id) return;
    if (reply.type === "status") {
      pending.phase = reply.phase;
      this.on.onPhase?.(reply.phase, pending.kind);
      this.arm(reply.phase === "loading" ? this.loadLimit() : this.runLimit());
      return;
    }
    if (reply.type === "error" && reply.boot) {
      // Python could not start (a file of its runtime could not be fetched): this worker is
      // no use now, and the next request starts a new one, which tries again.
      this.stop(`Python could not start: ${reply.message}. A new Run tries again.`);
      return;
    }
    this.pending = null;
    clearTimeout(pending.timer);
    if (reply.type === "error") pending.reject(new Error(reply.message));
    else pending.resolve(reply);
  }
}
