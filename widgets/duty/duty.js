// Pick a duty, live: the page-load part. It shows the controls (hidden while JavaScript is off)
// and imports the widget's code (widget.mjs) on the reader's first move in the widget, or at
// once when the URL carries a shared run. Until then the page holds all it shows in HTML: the
// radio form, each duty's baked run and the first duty's controls with their default values.
const section = document.querySelector(".tk-duties[data-live]");
if (section) {
  let loading = null;
  let ready = false;
  const load = (event) => {
    loading ??= import("./widget.mjs").then((widget) => {
      widget.enhance(section);
      ready = true;
      // The first move was a press on Run: widget.mjs came too late to see it; pass it on.
      const press = event?.type === "pointerdown" || event?.key === "Enter" || event?.key === " ";
      if (press && event.target.closest?.(".tk-live__run")) widget.pressedRun();
    });
    return loading;
  };
  section.querySelector(".tk-live").hidden = false;
  for (const type of ["pointerdown", "focusin", "keydown"]) {
    section.addEventListener(type, load, { once: true, passive: true });
  }
  // A Run pressed before the code arrived is held, then sent again once the code is there.
  section.querySelector(".tk-controls").addEventListener("submit", (event) => {
    if (ready) return;
    event.preventDefault();
    section.setAttribute("aria-busy", "true"); // the run has begun; widget.mjs clears it
    load().then(() => event.target.requestSubmit());
  });
  if (new URLSearchParams(location.search).has("duty")) load();
}
