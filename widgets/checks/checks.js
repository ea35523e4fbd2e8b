// Check yourself, the page-load part: as little as a page pays for before its reader asks for
// anything (module 04's page has a weight budget). The questions' script, enhance.mjs, comes
// when a question nears the screen, at once on the review page, and at once where this browser
// holds a record of answers (each module's "K of N answered right" reads it).

import { STORE } from "./record.mjs";

const start = () => import("./enhance.mjs");
let answered = false;
try {
  answered = localStorage.getItem(STORE) !== null;
} catch {
  // storage off: there is no record to show
}
const questions = document.querySelectorAll(".tk-check");
if (document.querySelector(".tk-review") || (answered && document.querySelector(".tk-checks-progress"))) {
  start();
} else if (questions.length) {
  const near = new IntersectionObserver(
    (entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      near.disconnect();
      start();
    },
    { rootMargin: "300px 0px" },
  );
  for (const question of questions) near.observe(question);
}
