// Check yourself, the grading: the verdict, the why of the answer given (the build proved
// each on the model: trafikist.checks.questions), the right answer, and "Show the run", which
// fetches the question's run as the build baked it, the step that decides the answer marked.
// The record (right or wrong, and when) stays in this browser's localStorage.

import { loadRecord, saveRecord as save, showProgress } from "./record.mjs";

const here = new URL(import.meta.url);

// What the markup says of a question (check.html.j2): its id, after "check-" in its element's,
// and its kind, by the key it carries.
const idOf = (section) => section.id.slice("check-".length);

function kindOf(section) {
  if ("right" in section.dataset) return "choice";
  return "answer" in section.dataset ? "number" : "order";
}

function reply(section) {
  const kind = kindOf(section);
  if (kind === "choice") {
    const picked = section.querySelector(".tk-check__options input:checked");
    return picked ? Number(picked.value) : null;
  }
  if (kind === "number") {
    const text = section.querySelector(".tk-check__value").value.trim();
    return text === "" || !Number.isFinite(Number(text)) ? null : Number(text);
  }
  return [...section.querySelectorAll(".tk-check__order > li")].map((item) => Number(item.dataset.item));
}

function isRight(section, answer) {
  const kind = kindOf(section);
  if (kind === "choice") return answer === Number(section.dataset.right);
  if (kind === "number") {
    const decimals = Number(section.dataset.decimals || 0);
    return answer.toFixed(decimals) === Number(section.dataset.answer).toFixed(decimals);
  }
  // An order: the items' groups (equal times share one) never go back.
  const groups = section.dataset.order.split(" ").map(Number);
  return answer.every((item, index) => index === 0 || groups[item] >= groups[answer[index - 1]]);
}

// The why the reader reads: the chosen option's, the mistake they made, or the answer's.
function whyOf(section, answer) {
  const whys = [...section.querySelectorAll(".tk-check__answer dd")];
  if (kindOf(section) === "choice") return whys[answer];
  if (kindOf(section) === "number") {
    const terms = [...section.querySelectorAll(".tk-check__answer dt")];
    const decimals = Number(section.dataset.decimals || 0);
    const mistake = terms.findIndex(
      (term, index) => index > 0 && parseFloat(term.textContent).toFixed(decimals) === answer.toFixed(decimals),
    );
    return whys[mistake > 0 ? mistake : 0];
  }
  return whys[0];
}

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

export function grade(section) {
  const feedback = section.querySelector(".tk-check__feedback");
  const answer = reply(section);
  if (answer === null) {
    feedback.textContent = kindOf(section) === "number" ? "Write a number first." : "Pick an answer first.";
    return;
  }
  const right = isRight(section, answer);
  const sure = section.querySelector(".tk-check__sure input:checked")?.value;
  feedback.replaceChildren();
  const verdict = document.createElement("p");
  verdict.className = `tk-check__verdict tk-check__verdict--${right ? "right" : "wrong"}`;
  const label = document.createElement("strong");
  label.textContent = right ? "Right." : "Not this one.";
  verdict.append(label);
  const why = whyOf(section, answer);
  if (why) verdict.append(" ", ...[...why.cloneNode(true).childNodes]);
  feedback.append(verdict);
  if (!right) feedback.append(section.querySelector(".tk-check__right").cloneNode(true));
  // The step of the run that decides the answer, as the build took it from the trace.
  const step = section.querySelector(".tk-check__step");
  if (step) feedback.append(step.cloneNode(true));
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
  const now = Date.now();
  record[idOf(section)] = { right, at: now, seen: now };
  save(record);
  showProgress(record);
}

// The review page: those answered wrong first, then those not seen for longest (never seen
// first), and the button that clears the record.
export function orderReview() {
  const list = document.querySelector(".tk-review__list");
  const record = loadRecord();
  const rank = (entry) => {
    const seen = record[entry.dataset.review];
    return [seen && !seen.right ? 0 : 1, seen ? seen.seen : 0];
  };
  const entries = [...list.children].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1];
  });
  list.append(...entries);
  const clear = document.querySelector(".tk-review__clear");
  const status = document.querySelector(".tk-review__status");
  const wrong = entries.filter((entry) => rank(entry)[0] === 0).length;
  status.textContent = wrong ? `${wrong} answered wrong last time, first.` : "";
  clear.hidden = false;
  clear.addEventListener("click", () => {
    save({});
    showProgress({});
    status.textContent = "Your record is cleared.";
  });
}
