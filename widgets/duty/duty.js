// Pick a duty, live: the page-load part. It shows the controls (hidden while JavaScript is off)
// and imports the widget's code (widget.mjs) on the reader's first move in the widget, or at
// once when the URL carries a shared run. Until then the page holds in HTML the radio form, the
// first duty's baked run and its controls with their default values, and links to the other
// duties' runs and to the first one's trace, which this script shows in place (below).
// A timeline's lane names stay in view while the reader scrolls the drawing sideways (a phone
// shows about half of it): they move with the scroll, on their own lines above the lanes. On
// every timeline of the page, baked or live, a duty's or a dive's. `scroll` does not bubble:
// it is caught on its way down. (An SVG attribute, not a style: the page's policy.)
document.addEventListener("scroll", (event) => {
  const box = event.target;
  if (!box.classList?.contains("tk-tl__scroll")) return;
  const drawing = box.querySelector("svg.tk-tl");
  const names = drawing?.querySelector(".tk-tl__lane");
  if (!names) return;
  const units = drawing.viewBox.baseVal.width / drawing.getBoundingClientRect().width;
  names.setAttribute("transform", `translate(${(box.scrollLeft * units).toFixed(1)} 0)`);
}, { capture: true, passive: true });

// The runs' pages this page fetched, by URL (runPage below). Declared before the code below
// that may ask for one at once (a trace opened before this script ran).
const runPages = new Map();

const section = document.querySelector(".tk-duties[data-live]");
if (section) {
  let loading = null;
  let ready = false;
  const load = (event) => {
    loading ??= import("./widget.mjs").then(
      (widget) => {
        widget.enhance(section);
        showPicked(section); // a shared link's duty
        ready = true;
        // The first move was a press on Run: widget.mjs came too late to see it; pass it on.
        const press = event?.type === "pointerdown" || event?.key === "Enter" || event?.key === " ";
        if (press && event.target.closest?.(".tk-live__run")) widget.pressedRun();
      },
      (error) => {
        loading = null; // the next Run asks again
        throw error;
      },
    );
    return loading;
  };
  section.querySelector(".tk-live").hidden = false;
  for (const type of ["pointerdown", "focusin", "keydown"]) {
    // A failed load is told on the press on Run (below), which asks again.
    section.addEventListener(type, (event) => load(event).catch(() => {}), { once: true, passive: true });
  }
  // A Run pressed before the code arrived is held, then sent again once the code is there.
  section.querySelector(".tk-controls").addEventListener("submit", (event) => {
    if (ready) return;
    event.preventDefault();
    section.setAttribute("aria-busy", "true"); // the run has begun; widget.mjs clears it
    load().then(
      () => event.target.requestSubmit(),
      () => {
        // Offline before the widget's code was kept (or it is gone): say so, not nothing.
        const status = section.querySelector(".tk-live__status");
        status.textContent = "The widget could not start: its code (widget.mjs) could not be loaded (offline?). A new Run tries again.";
        status.classList.add("tk-live__status--error");
        section.removeAttribute("aria-busy");
      },
    );
  });
  // The duty shown first carries its drawing; every other duty's panel a link to its run, a
  // page of its own (model_view.draw.run_link_html), and the drawing and the trace come from
  // that page when the reader picks the duty. The first duty's trace is a link too, whose rows
  // come on its first opening. `toggle` does not bubble: it is caught on its way down.
  section.addEventListener("change", (event) => {
    if (event.target.matches(".tk-duty__radio")) showPicked(section);
  });
  section.addEventListener("toggle", (event) => {
    const trace = event.target;
    if (trace.matches?.("details.tk-trace[data-rows]") && trace.open) showRows(trace);
  }, true);
  // A trace the reader opened before this script ran (a module runs once the page is parsed):
  // its `toggle` has passed unseen, and the rows would never come.
  for (const trace of section.querySelectorAll("details.tk-trace[data-rows][open]")) showRows(trace);
  showPicked(section); // a duty the browser kept picked from the last visit
  // A shared run (a duty, or a control's key, in the query: controls.mjs, sharesRun) loads at once.
  const query = new URLSearchParams(location.search);
  const keys = JSON.parse(section.querySelector("#tk-controls-spec")?.textContent || "[]").map((control) => control.key);
  if (["duty", ...keys].some((key) => query.has(key))) load().catch(() => {});
}

// A run's page, by its address: fetched once (again after a failure), parsed, not shown.
function runPage(at) {
  const url = new URL(at, location.href).href;
  if (!runPages.has(url)) {
    const loading = fetch(url).then(async (answer) => {
      if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
      return { url, page: new DOMParser().parseFromString(await answer.text(), "text/html") };
    });
    loading.catch(() => runPages.delete(url));
    runPages.set(url, loading);
  }
  return runPages.get(url);
}

// Puts in the place of `link` (a link to the run's page at `at`) the nodes `take` finds in that
// page: the build's own HTML, every text escaped. A live run or a question's run that took the
// link's place first stays.
async function fill(link, at, take) {
  if ("loading" in link.dataset) return;
  link.dataset.loading = "";
  try {
    const { url, page } = await runPage(at);
    if (link.isConnected) link.replaceWith(...take(page, url).map((node) => document.adoptNode(node)));
  } catch (error) {
    delete link.dataset.loading;
    const note = link.querySelector(".tk-run__error") ?? link.appendChild(document.createElement("span"));
    note.className = "tk-run__error";
    note.textContent = ` (it could not be shown here: ${error.message}; the link opens it)`;
  }
}

function showPicked(section) {
  const radio = section.querySelector(".tk-duty__radio:checked");
  const link = radio && document.getElementById(radio.getAttribute("aria-controls"))?.querySelector(".tk-run__file[data-run-at]");
  if (!link) return;
  fill(link, link.dataset.runAt, (page, url) => {
    const result = page.querySelector(".tk-run__result");
    // As a live run writes them: the trace closed, the model's choices this page's anchors.
    result.querySelector("details.tk-trace").removeAttribute("open");
    for (const choice of result.querySelectorAll(".tk-run__choices a")) {
      choice.setAttribute("href", new URL(choice.getAttribute("href"), url).hash);
    }
    return [...result.childNodes];
  });
}

function showRows(trace) {
  const link = trace.querySelector(".tk-trace__file");
  if (!link) return;
  fill(link, trace.dataset.rows, (page) => {
    delete trace.dataset.rows;
    return [page.querySelector(".tk-trace__scroll")];
  });
}
