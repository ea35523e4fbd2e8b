// Pick a duty, live: the page-load part. It shows the controls (hidden while JavaScript is off)
// and imports the widget's code (widget.mjs) on the reader's first move in the widget, or at
// once when the URL carries a shared run. Until then the page holds all it shows in HTML: the
// radio form, each duty's baked run and the first duty's controls with their default values.
const section = document.querySelector(".tk-duties[data-live]");
if (section) {
  let loading = null;
  let ready = false;
  const load = (event) => {
    loading ??= import("./widget.mjs").then(
      (widget) => {
        widget.enhance(section);
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
  // A shared run (a duty, or a control's key, in the query: controls.mjs, sharesRun) loads at once.
  const query = new URLSearchParams(location.search);
  const keys = JSON.parse(section.querySelector("#tk-controls-spec")?.textContent || "[]").map((control) => control.key);
  if (["duty", ...keys].some((key) => query.has(key))) load().catch(() => {});
}
