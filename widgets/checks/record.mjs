// Check yourself: the reader's record, kept in this browser's localStorage (nothing leaves the
// page), and each module's "K of N answered right". Bundled into checks.js and grade.mjs.

export const STORE = "trafikist-checks";

export function loadRecord() {
  try {
    const record = JSON.parse(localStorage.getItem(STORE) || "{}");
    return record && typeof record === "object" && !Array.isArray(record) ? record : {};
  } catch {
    return {}; // storage off, or a damaged record: start a new one
  }
}

export function showProgress(record) {
  for (const progress of document.querySelectorAll(".tk-checks-progress[data-checks]")) {
    const ids = progress.dataset.checks.split(" ").filter(Boolean);
    const right = ids.filter((id) => record[id]?.right).length;
    progress.textContent = `${right} of ${ids.length} answered right`;
    progress.parentElement.hidden = false;
  }
}

export function saveRecord(record) {
  try {
    localStorage.setItem(STORE, JSON.stringify(record));
  } catch {
    // storage off (a private window may refuse it): the page still grades
  }
}
