// Check yourself: the reader's record, kept in this browser's localStorage (nothing leaves the
// page), and each module's "K of N answered right". Bundled into checks.js and grade.mjs.
//
// The record keeps every attempt at each question: when, what was answered, whether it was
// right, and how sure the reader said they were. It is a Map (an id such as `__proto__` is an
// id like any other), stored as
//   {"version": 2, "questions": {id: [{at, answer, right, sure}, …]}}
// and read back attempt by attempt: what does not fit is dropped, the rest kept. The format the
// site wrote before (one entry per question, {id: {right, at, seen}}) is read as one attempt
// each. The pure part (read, write, add, order) runs in Node too: tests/reader/record.test.mjs.

export const STORE = "trafikist-checks";
const VERSION = 2;
export const SURE = ["sure", "think", "guess"]; // the values of "How sure are you?"

const isTime = (value) => typeof value === "number" && Number.isFinite(value) && value > 0;
const isAnswer = (value) =>
  value === null ||
  (typeof value === "number" && Number.isFinite(value)) ||
  (Array.isArray(value) && value.every((item) => Number.isInteger(item) && item >= 0));

// One attempt as stored, or null when it does not fit ({"right": "false"} is not right).
function attemptOf(raw) {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const { at, right } = raw;
  const answer = raw.answer ?? null;
  const sure = raw.sure ?? null;
  if (!isTime(at) || typeof right !== "boolean" || !isAnswer(answer)) return null;
  if (sure !== null && !SURE.includes(sure)) return null;
  return { at, answer, right, sure };
}

const entriesOf = (object) =>
  object && typeof object === "object" && !Array.isArray(object) ? Object.entries(object) : [];

// The record in a stored text: a Map from question id to its attempts, oldest first.
export function readRecord(text) {
  const record = new Map();
  let parsed;
  try {
    parsed = JSON.parse(text || "{}");
  } catch {
    return record; // a damaged record: start a new one
  }
  if (parsed && parsed.version === VERSION) {
    for (const [id, attempts] of entriesOf(parsed.questions)) {
      const kept = (Array.isArray(attempts) ? attempts : []).map(attemptOf).filter(Boolean);
      if (kept.length) record.set(id, kept.sort((a, b) => a.at - b.at));
    }
    return record;
  }
  // The format before: {id: {right, at, seen}}, the last answer of each question.
  for (const [id, entry] of entriesOf(parsed)) {
    const attempt = attemptOf({ at: entry?.seen ?? entry?.at, right: entry?.right });
    if (attempt) record.set(id, [attempt]);
  }
  return record;
}

export function writeRecord(record) {
  return JSON.stringify({ version: VERSION, questions: Object.fromEntries(record) });
}

export function addAttempt(record, id, attempt) {
  const kept = attemptOf(attempt);
  if (!kept) throw new TypeError(`not an attempt: ${JSON.stringify(attempt)}`);
  record.set(id, [...(record.get(id) ?? []), kept]);
  return record;
}

export const lastAttempt = (record, id) => record.get(id)?.at(-1) ?? null;

// The reader's calendar day of a moment (local time), as a number that sorts.
export function dayOf(at) {
  const date = new Date(at);
  return date.getFullYear() * 10000 + (date.getMonth() + 1) * 100 + date.getDate();
}

// Where a question stands in the review: 0, answered wrong last time; 1, answered wrong once
// and not yet answered right on a later day than that; 2, every other (never answered, or
// right on a day after its last mistake).
export function standing(attempts) {
  if (!attempts?.length) return 2;
  if (!attempts.at(-1).right) return 0;
  const wrong = attempts.filter((attempt) => !attempt.right).at(-1);
  if (!wrong) return 2;
  const later = attempts.some((attempt) => attempt.right && dayOf(attempt.at) > dayOf(wrong.at));
  return later ? 2 : 1;
}

// The review's order of `ids`: by standing, then the one not seen for longest first (never
// seen before all); equal ones keep the course's order.
export function reviewOrder(ids, record) {
  const rank = (id) => [standing(record.get(id)), lastAttempt(record, id)?.at ?? 0];
  return ids
    .map((id, index) => [id, index, ...rank(id)])
    .sort((a, b) => a[2] - b[2] || a[3] - b[3] || a[1] - b[1])
    .map(([id]) => id);
}

// -- in the page ------------------------------------------------------------------------------

export function loadRecord() {
  try {
    return readRecord(localStorage.getItem(STORE));
  } catch {
    return new Map(); // storage off: there is no record
  }
}

export function saveRecord(record) {
  try {
    localStorage.setItem(STORE, writeRecord(record));
  } catch {
    // storage off (a private window may refuse it): the page still grades
  }
}

export function showProgress(record) {
  for (const progress of document.querySelectorAll(".tk-checks-progress[data-checks]")) {
    const ids = progress.dataset.checks.split(" ").filter(Boolean);
    const right = ids.filter((id) => lastAttempt(record, id)?.right).length;
    progress.textContent = `${right} of ${ids.length} answered right`;
    progress.parentElement.hidden = false;
  }
}
