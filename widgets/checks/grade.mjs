// Check yourself, the grading: the verdict, the why of the answer given (the build proved
// each on the model: trafikist.checks.questions), the right answer, and "Show the run", which
// fetches the question's run as the build baked it, the step that decides the answer marked.
// The record (every attempt: when, what, right or wrong, how sure) stays in this browser's
// localStorage (record.mjs).

import {
  addAttempt,
  loadRecord,
  readRecord,
  reviewOrder,
  saveRecord as save,
  showProgress,
  standing,
  writeRecord,
} from "./record.mjs";

const here = new URL(import.meta.url);

// What the markup says of a question (check.html.j2): its id, after "check-" in its element's,
// and its kind, `data-kind`, the key of KINDS.
const idOf = (section) => section.id.slice("check-".length);

// A number as a reader writes it: a decimal point or a decimal comma ("3.0", "3,0"), spaces
// around it; null for anything else (thousands separators included: no answer needs them).
export function readNumber(value) {
  const text = value.trim().replace(/^([-+]?\d*),(\d+)$/, "$1.$2");
  return text === "" || !Number.isFinite(Number(text)) ? null : Number(text);
}

const rounded = (value, section) => value.toFixed(Number(section.dataset.decimals || 0));

// One entry per kind of question, keyed by the `data-kind` the page writes (a kind's Python
// side is its class in trafikist.course.questions): the reader's answer (null: none yet, and
// `empty` says so), whether it is right, and which of the answer's whys (`dd`, in order) to
// show for it.
export const KINDS = {
  choice: {
    empty: "Pick an answer first.",
    reply: (section) => {
      const picked = section.querySelector(".tk-check__options input:checked");
      return picked ? Number(picked.value) : null;
    },
    isRight: (section, answer) => answer === Number(section.dataset.right),
    why: (section, answer) => answer,
  },
  number: {
    empty: "Write a number first.",
    reply: (section) => readNumber(section.querySelector(".tk-check__value").value),
    // Any value that rounds to the key at the precision the prompt asks for.
    isRight: (section, answer) => rounded(answer, section) === rounded(Number(section.dataset.answer), section),
    // The mistake the reader made, if the question explains it; else the answer's why.
    why: (section, answer) => {
      const terms = [...section.querySelectorAll(".tk-check__answer dt")];
      const mistake = terms.findIndex(
        (term, index) => index > 0 && rounded(parseFloat(term.textContent), section) === rounded(answer, section),
      );
      return mistake > 0 ? mistake : 0;
    },
  },
  order: {
    empty: "Pick an answer first.",
    reply: (section) => [...section.querySelectorAll(".tk-check__order > li")].map((item) => Number(item.dataset.item)),
    // The items' groups (equal times share one) never go back.
    isRight: (section, answer) => {
      const groups = section.dataset.order.split(" ").map(Number);
      return answer.every((item, index) => index === 0 || groups[item] >= groups[answer[index - 1]]);
    },
    why: () => 0,
  },
};

const kindOf = (section) => KINDS[section.dataset.kind];

async function showRun(section, box, button) {
  button.disabled = true;
  const url = new URL(`runs/${idOf(section)}.html`, here);
  try {
    const answer = await fetch(url);
    if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
    box.innerHTML = await answer.text(); // made by the build's Python renderer, every text escaped
    // The fragment's links are relative to its own address, not to this page's.
    for (const link of box.querySelectorAll("a[href]")) {
      link.href = new URL(link.getAttribute("href"), url).href;
    }
    button.remove();
    box.querySelector(".tk-trace__decides")?.scrollIntoView({ block: "nearest" });
  } catch (error) {
    box.textContent = `The run could not be loaded (${error.message}).`;
    button.disabled = false;
  }
}

// A copy of the page's own markup for the feedback: its ids left out, so that the page's stay
// unique; each element keeps what it copies in `data-copy` (a checked sentence's mark, "How we
// know": widgets/evidence/show.mjs opens its evidence from the copy too).
function copy(node) {
  const clone = node.cloneNode(true);
  for (const element of clone.querySelectorAll("[id]")) {
    element.dataset.copy = element.id;
    element.removeAttribute("id");
  }
  return clone;
}

export function grade(section) {
  const feedback = section.querySelector(".tk-check__feedback");
  const kind = kindOf(section);
  const answer = kind.reply(section);
  if (answer === null) {
    feedback.textContent = kind.empty;
    return;
  }
  const right = kind.isRight(section, answer);
  const sure = section.querySelector(".tk-check__sure input:checked")?.value;
  feedback.replaceChildren();
  const verdict = document.createElement("p");
  verdict.className = `tk-check__verdict tk-check__verdict--${right ? "right" : "wrong"}`;
  const label = document.createElement("strong");
  label.textContent = right ? "Right." : "Not this one.";
  verdict.append(label);
  const why = section.querySelectorAll(".tk-check__answer dd")[kind.why(section, answer)];
  if (why) verdict.append(" ", ...[...copy(why).childNodes]);
  feedback.append(verdict);
  if (!right) feedback.append(copy(section.querySelector(".tk-check__right")));
  // The step of the run that decides the answer, as the build took it from the trace.
  const step = section.querySelector(".tk-check__step");
  if (step) feedback.append(copy(step));
  if (section.hasAttribute("data-run")) {
    const box = document.createElement("div");
    box.className = "tk-check__run-box";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "md-button tk-check__show";
    button.textContent = "Show the run";
    button.addEventListener("click", () => showRun(section, box, button));
    feedback.append(button, box);
    // A sure answer that is wrong is the one to look at now: confident errors are corrected
    // best right after the feedback.
    if (!right && sure === "sure") showRun(section, box, button);
  }
  const record = loadRecord(); // another tab may have answered meanwhile
  addAttempt(record, idOf(section), { at: Date.now(), answer, right, sure: sure ?? null });
  save(record);
  showProgress(record);
  // On the review page, a first answer makes a record to clear (unless it is asking or
  // offering undo), and the line of actions shows it.
  const clear = document.querySelector(".tk-review__clear");
  const busy = document.querySelector(".tk-review__confirm:not([hidden]), .tk-review__undo:not([hidden])");
  if (clear && !busy) clear.hidden = clear.parentElement.hidden = false;
}

// The review page: the questions answered wrong last time first, then those answered wrong
// and not yet right on a later day, then those not seen for longest (never seen first). Each
// says how the reader answered it last, and how sure they were. "Clear my record" asks first,
// and offers to undo until the page is left.
const SURE_WORDS = { sure: "you were sure", think: "you thought so", guess: "you were guessing" };

function lastWords(attempts) {
  if (!attempts?.length) return "Not answered yet.";
  const last = attempts.at(-1);
  const when = new Date(last.at).toLocaleDateString(undefined, { day: "numeric", month: "short" });
  const how = last.sure ? `, and ${SURE_WORDS[last.sure]}` : "";
  const tries = attempts.length === 1 ? "" : ` · ${attempts.length} attempts, ${attempts.filter((a) => !a.right).length} wrong`;
  return `Last answer (${when}): ${last.right ? "right" : "wrong"}${how}${tries}.`;
}

function make(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

function showOrder(record) {
  const list = document.querySelector(".tk-review__list");
  const byId = new Map([...list.children].map((entry) => [entry.dataset.review, entry]));
  const order = reviewOrder([...byId.keys()], record);
  list.append(...order.map((id) => byId.get(id)));
  for (const [id, entry] of byId) {
    let line = entry.querySelector(".tk-review__last");
    if (!line) {
      line = make("p", { class: "tk-review__last" });
      entry.querySelector(".tk-check__from")?.after(line);
    }
    line.textContent = lastWords(record.get(id));
    entry.dataset.standing = String(standing(record.get(id)));
  }
  const wrong = order.filter((id) => standing(record.get(id)) === 0).length;
  const again = order.filter((id) => standing(record.get(id)) === 1).length;
  const parts = [];
  if (wrong) parts.push(`${wrong} answered wrong last time`);
  if (again) parts.push(`${again} answered wrong before and not yet right on a later day`);
  return parts.length ? `First: ${parts.join(", then ")}.` : "";
}

export function orderReview() {
  const actions = document.querySelector(".tk-review__actions");
  const clear = actions.querySelector(".tk-review__clear");
  const status = actions.querySelector(".tk-review__status");
  const confirm = make("span", { class: "tk-review__confirm", hidden: "" });
  const yes = make("button", { type: "button", class: "md-button md-button--primary" }, "Clear it");
  const no = make("button", { type: "button", class: "md-button" }, "Keep it");
  confirm.append("Clear every answer in your record? ", yes, " ", no);
  const undo = make("button", { type: "button", class: "md-button tk-review__undo", hidden: "" }, "Undo");
  clear.after(confirm, undo);
  let cleared = null; // the record as it was before "Clear it", until the page is left
  const record = loadRecord();
  status.textContent = showOrder(record);
  // Nothing to clear yet and no order to tell: the line takes no room (the page's HTML hides it).
  actions.hidden = clear.hidden = record.size === 0;
  const ask = (asking) => {
    confirm.hidden = !asking;
    clear.hidden = asking;
  };
  clear.addEventListener("click", () => {
    ask(true);
    status.textContent = "";
    yes.focus();
  });
  no.addEventListener("click", () => {
    ask(false);
    clear.focus();
  });
  yes.addEventListener("click", () => {
    cleared = writeRecord(loadRecord());
    save(new Map());
    showProgress(new Map());
    showOrder(new Map());
    confirm.hidden = true;
    undo.hidden = false;
    status.textContent = "Your record is cleared.";
    undo.focus();
  });
  undo.addEventListener("click", () => {
    const record = readRecord(cleared);
    // Answers given since the clear are kept too, after those it brought back.
    for (const [id, attempts] of loadRecord()) record.set(id, [...(record.get(id) ?? []), ...attempts]);
    save(record);
    showProgress(record);
    undo.hidden = true;
    clear.hidden = false;
    status.textContent = `Your record is back. ${showOrder(record)}`;
    clear.focus();
  });
}
