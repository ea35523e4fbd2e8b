// How we know, once the switch is first on (evidence.js imports this): the page's evidence
// (a file the build writes per page, trafikist.course.shown_evidence) and its stylesheet are
// loaded; each checked sentence's mark (an empty <i id="tk-mN"> the page holds) becomes a
// button that opens the sentence's evidence in a popover; each trace row that decides an
// expectation lists the sentences it proves. Without JavaScript, the page's link "How we know"
// leads to the same evidence.

const here = new URL(import.meta.url);
const root = document.documentElement;
let loaded = null; // the page's evidence (a promise), once asked for
let evidence = null; // and once here
let popover = null; // the open popover, and the mark it belongs to
let opener = null;
let timer = 0;
let watching = null; // the duties' block, watched for trace rows put in place

const isOn = () => root.dataset.tkEvidence === "on";

function stylesheet() {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("shown.css", here).href;
  const ready = new Promise((resolve) => {
    link.onload = resolve;
    link.onerror = resolve; // the marks still work, plainly drawn
  });
  document.head.append(link);
  return ready;
}

async function load(page) {
  const url = new URL(`pages/${encodeURIComponent(page)}.json`, here);
  const [answer] = await Promise.all([fetch(url), stylesheet()]);
  if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
  return answer.json();
}

// The page's marks become buttons (each keeps its id: the "How we know" page links to it), and
// so do their copies in a question's feedback (widgets/checks/grade.mjs: `data-copy`, no id).
function upgrade(marks) {
  for (const place of document.querySelectorAll('i[id^="tk-m"], i[data-copy^="tk-m"]')) {
    const number = (place.id || place.dataset.copy).slice(4);
    if (!(number in marks)) continue;
    const mark = document.createElement("button");
    mark.type = "button";
    if (place.id) mark.id = place.id;
    else mark.dataset.copy = place.dataset.copy;
    mark.className = "tk-mark";
    mark.dataset.n = number;
    mark.textContent = number;
    mark.setAttribute("aria-label", `How we know: sentence ${number}`);
    mark.setAttribute("aria-haspopup", "dialog");
    mark.setAttribute("aria-expanded", "false");
    place.replaceWith(mark);
  }
}

function fragment(markup) {
  const template = document.createElement("template");
  template.innerHTML = markup; // made by the build's Python renderer, every text escaped
  return template.content;
}

// Throws when the evidence cannot be loaded (evidence.js says so beside the switch).
export async function start(box, say) {
  loaded ??= load(box.dataset.page);
  loaded.catch(() => (loaded = null)); // evidence.js says why; the next "on" tries again
  evidence = await loaded;
  if (!isOn()) return;
  upgrade(evidence.marks);
  summaries(true);
  annotate();
  // A duty's trace rows come when the reader opens the trace or picks the duty (widgets/duty):
  // each deciding row lists its sentences once it is there.
  const duties = document.querySelector(".tk-duties");
  if (duties && !watching) {
    watching = new MutationObserver(() => annotate());
    watching.observe(duties, { childList: true, subtree: true });
  }
  const shown = document.querySelectorAll("button.tk-mark").length;
  say(`${evidence.counts}. ${shown} marked here: each number opens its evidence.`);
}

export function stop(say) {
  close(false);
  summaries(false);
  say("");
}

// The page's summary (header.html.j2) stands under its title, with its marks, while the switch
// is on: the course's lists show it, the page nowhere else.
function summaries(shown) {
  for (const summary of document.querySelectorAll(".tk-header__summary")) summary.hidden = !shown;
}

function place(mark) {
  const view = root.clientWidth;
  const rect = mark.getBoundingClientRect();
  const width = popover.offsetWidth;
  const height = popover.offsetHeight;
  const left = Math.min(Math.max(rect.left, 8), Math.max(view - width - 8, 8));
  const below = rect.bottom + height + 8 <= window.innerHeight || rect.top < height + 8;
  const top = below ? rect.bottom + 6 : rect.top - height - 6;
  popover.style.left = `${left + window.scrollX}px`;
  popover.style.top = `${top + window.scrollY}px`;
}

function open(mark, focus) {
  if (popover && opener === mark) {
    if (focus) popover.focus();
    return;
  }
  close(false);
  const number = mark.dataset.n;
  const markup = evidence?.marks[number];
  if (!markup) return;
  popover = document.createElement("div");
  popover.className = "tk-evpop md-typeset";
  popover.id = "tk-evpop";
  popover.tabIndex = -1;
  popover.setAttribute("role", "dialog");
  popover.setAttribute("aria-label", `How we know, sentence ${number}`);
  const title = document.createElement("p");
  title.className = "tk-evpop__title";
  title.textContent = `How we know · sentence ${number}`;
  popover.append(title, fragment(markup));
  if (evidence.how) {
    const more = document.createElement("p");
    more.className = "tk-evpop__more";
    const link = document.createElement("a");
    link.href = `${evidence.how}`;
    link.textContent = "Every checked sentence of the module";
    more.append(link);
    popover.append(more);
  }
  document.body.append(popover);
  opener = mark;
  mark.setAttribute("aria-expanded", "true");
  mark.setAttribute("aria-controls", popover.id);
  place(mark);
  popover.addEventListener("pointerenter", () => clearTimeout(timer));
  popover.addEventListener("pointerleave", later);
  if (focus) popover.focus();
}

function close(refocus) {
  clearTimeout(timer);
  if (!popover) return;
  // Both cleared first: removing the popover moves focus, and focusout comes back here.
  const [gone, mark] = [popover, opener];
  popover = null;
  opener = null;
  gone.remove();
  // The mark, and a copy the feedback made of it while open (widgets/checks/grade.mjs).
  for (const each of [mark, ...document.querySelectorAll('.tk-mark[aria-expanded="true"]')]) {
    each.setAttribute("aria-expanded", "false");
    each.removeAttribute("aria-controls");
  }
  if (refocus) mark.focus();
}

function later() {
  clearTimeout(timer);
  timer = setTimeout(() => close(false), 400);
}

// A row inside a duty that is not picked: pick it first, and open the trace.
function reveal(target) {
  const duty = target.closest(".tk-duty");
  const radio = duty?.querySelector(".tk-duty__radio");
  if (radio && !radio.checked) radio.click();
  const details = target.closest("details");
  if (details) details.open = true;
}

// The row of the run's trace that a line of evidence names (its place in the table), while the
// table is the page's baked run (a reader's own run draws another table).
function rowOf(link) {
  const run = document.getElementById(new URL(link.href).hash.slice(1));
  const rows = run?.querySelectorAll(".tk-trace tbody tr");
  if (!rows || rows.length !== Number(link.dataset.rows)) return null;
  return rows[Number(link.dataset.row)] ?? null;
}

// Each row that decides an expectation lists the sentences it proves, linked back to them.
function annotate() {
  for (const [number, markup] of Object.entries(evidence.marks)) {
    if (!markup.includes("tk-evidence__row")) continue;
    for (const link of fragment(markup).querySelectorAll("a.tk-evidence__row")) {
      const row = rowOf(link);
      if (!row) continue;
      let note = row.querySelector(".tk-trace__proves");
      if (!note) {
        note = document.createElement("span");
        note.className = "tk-trace__proves";
        note.textContent = " proves ";
        row.lastElementChild.append(note);
      }
      if (note.querySelector(`a[href="#tk-m${number}"]`)) continue;
      if (note.querySelector("a")) note.append(", ");
      const back = document.createElement("a");
      back.href = `#tk-m${number}`;
      back.textContent = `sentence ${number}`;
      note.append(back);
    }
  }
}

// The row, once in place: a duty's trace rows may come from a page of their own (widgets/duty),
// which picking the duty and opening its trace fetch.
async function rowIn(link) {
  const holder = document.getElementById(new URL(link.href).hash.slice(1));
  if (!holder) return null;
  reveal(holder);
  for (let waited = 0; waited < 8000; waited += 100) {
    const row = rowOf(link);
    if (row) return row;
    // The duty's run put in place: its trace opened, which brings its rows.
    const trace = holder.querySelector("details.tk-trace");
    if (trace && !trace.open) trace.open = true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

async function showRow(link) {
  const row = await rowIn(link);
  if (!row) {
    location.hash = new URL(link.href).hash; // the run, at least
    return;
  }
  annotate();
  reveal(row);
  for (const shown of document.querySelectorAll(".tk-trace__shown")) shown.classList.remove("tk-trace__shown");
  row.classList.add("tk-trace__shown");
  row.tabIndex = -1;
  row.scrollIntoView({ block: "center" });
  row.focus({ preventScroll: true });
}

// A link back to a sentence (from a trace row): its duty picked, the mark focused (in a
// question's explanation, its copy in the feedback, or else the question).
function back(link, event) {
  const id = link.hash.slice(1);
  let target = /^tk-m\d+$/.test(id) && document.getElementById(id);
  const question = target && target.closest("details.tk-check__answer")?.closest(".tk-check");
  if (question) target = question.querySelector(`[data-copy="${id}"]`) ?? question;
  if (target === question) question.tabIndex = -1;
  if (!target || link.origin !== location.origin || link.pathname !== location.pathname) return;
  event.preventDefault();
  close(false);
  reveal(target);
  target.scrollIntoView({ block: "center" });
  target.focus();
}

// The marks, the links and the keys, page-wide (one listener each).
document.addEventListener("click", (event) => {
  const mark = event.target.closest?.("button.tk-mark");
  if (mark && isOn()) {
    if (popover && opener === mark && !event.detail) return close(true);
    open(mark, event.detail === 0); // Enter or Space (no pointer): focus goes into the popover
    return;
  }
  const link = event.target.closest?.("a");
  if (link?.classList.contains("tk-evidence__row")) {
    event.preventDefault();
    close(false);
    showRow(link);
  } else if (link?.hash) back(link, event);
  if (popover && !popover.contains(event.target)) close(false);
});
document.addEventListener("pointerover", (event) => {
  const mark = event.target.closest?.("button.tk-mark");
  if (!mark || !isOn() || event.pointerType === "touch") return;
  clearTimeout(timer);
  open(mark, false);
});
document.addEventListener("pointerout", (event) => {
  if (popover && event.target.closest?.("button.tk-mark") === opener) later();
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && popover) {
    event.preventDefault();
    close(true);
  }
});
document.addEventListener("focusout", (event) => {
  if (popover && popover.contains(event.target) && !popover.contains(event.relatedTarget)) {
    if (event.relatedTarget !== opener) close(false);
  }
});
window.addEventListener("resize", () => popover && place(opener));
