// The duty widget's runner: the module worker (worker.mjs) that runs the model, one request at
// a time, each under a time limit, and the first Run's progress. No DOM here: the page's part
// (widget.mjs) says what it reports, and Node tests it with a stand-in worker
// (tests/widget/controls.test.mjs).

// Seconds Pyodide may take to load before the page stops it (a run has its own limit, the
// build's run_time_limit, which the page carries in data-time-limit).
export const LOAD_LIMIT_S = 120;

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
    this.pending = null; // {id, kind, resolve, reject, timer}
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
    this.worker.onerror = (event) => this.stop(`The worker failed: ${event.message || "it could not start"}.`);
    this.worker.postMessage({ type: "boot", id: 0, urls: this.bootUrls() });
  }

  // Ask the worker ({type: "run", …} or {type: "console", …}); the promise of its answer.
  request(message) {
    if (this.pending) return Promise.reject(new Error("A run is still going; wait for it to finish."));
    this.start();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending = { id, kind: message.type, resolve, reject, timer: 0 };
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
      pending.reject(new Error(reason));
    }
  }

  arm(seconds) {
    const what = this.pending.kind === "run" ? "run" : "command";
    clearTimeout(this.pending.timer);
    this.pending.timer = setTimeout(
      () => this.stop(`The ${what} went past its time limit of ${seconds} s and was stopped.`),
      seconds * 1000,
    );
  }

  received(reply) {
    const pending = this.pending;
    if (reply.type === "progress") {
      if (pending && pending.kind === "run") this.on.onProgress?.(reply.loaded, reply.total);
      return;
    }
    if (!pending || reply.id !== pending.id) return;
    if (reply.type === "status") {
      this.on.onPhase?.(reply.phase, pending.kind);
      this.arm(reply.phase === "loading" ? this.loadLimit() : this.runLimit());
      return;
    }
    this.pending = null;
    clearTimeout(pending.timer);
    if (reply.type === "error") pending.reject(new Error(reply.message));
    else pending.resolve(reply);
  }
}
