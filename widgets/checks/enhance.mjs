// Check yourself, the page's part (checks.js imports it when a question nears the screen, on the
// review page, or where this browser holds a record): add what needs JavaScript (the
// sure/guessing choice, the Check button, the feedback region, an order's move buttons), and
// show each module's "K of N answered right" from the reader's record. The grading (grade.mjs)
// is imported on the reader's first move in a question, or at once on the review page, which
// orders its questions by the record. Without JavaScript each question shows its options and
// "Show the answer" (every why).

import { loadRecord, showProgress } from "./record.mjs";

function move(item, by) {
  const list = item.parentElement;
  const items = [...list.children];
  const target = items[items.indexOf(item) + by];
  if (!target) return;
  if (by < 0) list.insertBefore(item, target);
  else list.insertBefore(target, item);
}

// An element with its class, attributes and children.
function make(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

const SURE = [
  ["sure", "Sure"],
  ["think", "I think so"],
  ["guess", "Guessing"],
];

let grading = null;
const grader = () => (grading ??= import("./grade.mjs"));

// What needs JavaScript, added to the question's fieldset: the order's move buttons, the
// sure/guessing choice, the Check button and the feedback region (polite: it is read out
// after Check).
function enhance(section) {
  const form = section.querySelector("fieldset"); // the question's own, its first
  const name = `${section.id}-sure`;
  for (const item of form.querySelectorAll(".tk-check__order > li")) {
    const text = item.textContent.trim();
    for (const [by, arrow, word] of [[-1, "↑", "up"], [1, "↓", "down"]]) {
      const button = make("button", { type: "button", class: "tk-check__move", "aria-label": `Move ${word}: ${text}` }, arrow);
      button.addEventListener("click", () => {
        move(item, by);
        button.focus(); // the reader keeps moving the same item
      });
      item.append(" ", button);
    }
  }
  const sure = make("fieldset", { class: "tk-check__sure" }, make("legend", {}, "How sure are you?"));
  for (const [value, label] of SURE) {
    sure.append(make("label", {}, make("input", { type: "radio", name, value }), ` ${label}`));
  }
  const check = make("button", { type: "button", class: "md-button md-button--primary" }, "Check");
  check.addEventListener("click", () => grader().then((module) => module.grade(section)));
  // Enter in a number answer checks it, as Enter in a form's field submits it.
  form.querySelector(".tk-check__value")?.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.isComposing) return;
    event.preventDefault();
    check.click();
  });
  form.append(sure, make("p", {}, check), make("div", { class: "tk-check__feedback", "aria-live": "polite" }));
  section.querySelector(".tk-check__answer").hidden = true; // the feedback says it, after Check
  for (const type of ["pointerdown", "focusin"]) {
    section.addEventListener(type, grader, { once: true, passive: true });
  }
}

for (const section of document.querySelectorAll(".tk-check")) enhance(section);
showProgress(loadRecord());
if (document.querySelector(".tk-review")) grader().then((module) => module.orderReview());
