// How we know, the page-load part: the switch near a course page's title, off by default and
// remembered in this browser. The rest (show.mjs: the marks, the popover, the page's evidence
// and its stylesheet) comes when the switch is first on: module 04's page has a weight budget.

const STORE = "tk-evidence";
const box = document.querySelector(".tk-evswitch");
const button = box?.querySelector("button");
let part = null;

// What the switch says beside it: the page's counts, or why there is no evidence to show.
function say(text) {
  let status = box.querySelector(".tk-evswitch__status");
  if (!status) {
    status = document.createElement("span");
    status.className = "tk-evswitch__status";
    status.setAttribute("role", "status");
    box.append(status);
  }
  status.textContent = text;
}

function turn(on, remember) {
  document.documentElement.dataset.tkEvidence = on ? "on" : "off";
  button.setAttribute("aria-pressed", String(on));
  if (remember) {
    try {
      localStorage.setItem(STORE, on ? "on" : "off");
    } catch {
      // storage off: the switch holds for this page only
    }
  }
  if (on) {
    part ??= import("./show.mjs");
    part.catch(() => (part = null)); // offline before a first visit: try again next time
    part
      .then((shown) => shown.start(box, say))
      .catch((error) => say(`The evidence could not be loaded (${error.message}). The link "How we know" at the foot of the page leads to it.`));
  } else part?.then((shown) => shown.stop(say));
}

if (box && button) {
  box.hidden = false;
  button.addEventListener("click", () => turn(button.getAttribute("aria-pressed") !== "true", true));
  try {
    if (localStorage.getItem(STORE) === "on") turn(true, false);
  } catch {
    // storage off: the switch starts off
  }
}
