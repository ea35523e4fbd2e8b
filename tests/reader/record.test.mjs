// The reader's record in Node (node:test): what a reload reads back of what the page wrote,
// of today's and the former format, and of a damaged record; and the review's order.
// tests/reader/test_record_node.py runs it:   node --test tests/reader/record.test.mjs
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  addAttempt,
  dayOf,
  lastAttempt,
  readRecord,
  reviewOrder,
  standing,
  writeRecord,
} from "../../widgets/checks/record.mjs";

const DAY = 24 * 3600 * 1000;
const MONDAY = new Date(2026, 11, 7, 10, 0).getTime(); // local time: the reader's days
const at = (days, hours = 0) => MONDAY + days * DAY + hours * 3600 * 1000;

test("every attempt is kept: when, what was answered, right or wrong, how sure", () => {
  const record = new Map();
  addAttempt(record, "where-is-a-due-job", { at: at(0), answer: 1, right: false, sure: "sure" });
  addAttempt(record, "where-is-a-due-job", { at: at(0, 1), answer: 2, right: true, sure: null });
  addAttempt(record, "one-beat-in-order", { at: at(0, 2), answer: [2, 0, 1], right: false, sure: "guess" });
  const read = readRecord(writeRecord(record));
  assert.deepEqual(read.get("where-is-a-due-job"), [
    { at: at(0), answer: 1, right: false, sure: "sure" },
    { at: at(0, 1), answer: 2, right: true, sure: null },
  ]);
  assert.deepEqual(lastAttempt(read, "one-beat-in-order").answer, [2, 0, 1]);
});

test("an id such as __proto__ is a question like any other, across a reload", () => {
  const record = new Map();
  for (const id of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
    addAttempt(record, id, { at: at(0), answer: 3, right: true, sure: "think" });
  }
  const read = readRecord(writeRecord(record));
  assert.deepEqual([...read.keys()], ["__proto__", "constructor", "toString", "hasOwnProperty"]);
  assert.equal(lastAttempt(read, "__proto__").right, true);
  assert.equal(Object.getPrototypeOf({}), Object.prototype); // nothing leaked
});

test("a record of the former format is read, not lost", () => {
  // As the page wrote it, text (an object literal's "__proto__" would set the prototype).
  const before =
    `{"where-is-a-due-job": {"right": false, "at": ${at(-2)}, "seen": ${at(-2)}},` +
    ` "when-a-due-job-moves": {"right": true, "at": ${at(-1)}, "seen": ${at(-1)}},` +
    ` "__proto__": {"right": true, "at": ${at(-1)}, "seen": ${at(-1)}}}`;
  const read = readRecord(before);
  assert.deepEqual(read.get("where-is-a-due-job"), [{ at: at(-2), answer: null, right: false, sure: null }]);
  assert.equal(lastAttempt(read, "when-a-due-job-moves").right, true);
  assert.equal(lastAttempt(read, "__proto__").right, true);
});

test("a damaged record: what does not fit is dropped, the rest kept", () => {
  const stored = JSON.stringify({
    version: 2,
    questions: {
      "right-as-text": [{ at: at(0), answer: 1, right: "false", sure: null }],
      "no-time": [{ answer: 1, right: true }],
      "odd-sure": [{ at: at(0), answer: 1, right: true, sure: "very" }],
      "odd-answer": [{ at: at(0), answer: "<img>", right: true }],
      "not-a-list": { at: at(0), right: true },
      "half-good": [null, 7, { at: at(0), answer: 2.5, right: false, sure: "guess" }],
    },
  });
  const read = readRecord(stored);
  assert.deepEqual([...read.keys()], ["half-good"]);
  assert.deepEqual(read.get("half-good"), [{ at: at(0), answer: 2.5, right: false, sure: "guess" }]);
  // The former format: {"right": "false"} is not right, and dropped.
  const former = readRecord(JSON.stringify({ a: { right: "false", at: at(0) }, b: { right: true, at: at(0) } }));
  assert.deepEqual([...former.keys()], ["b"]);
  for (const text of ["", "{", "null", "[]", "42", '"text"', '{"version": 2, "questions": []}']) {
    assert.equal(readRecord(text).size, 0, text);
  }
  assert.throws(() => addAttempt(new Map(), "x", { at: at(0), right: "yes" }), TypeError);
});

test("the review asks wrong last time first, then wrong and not yet right on a later day, then not seen for longest", () => {
  const record = new Map();
  const add = (id, day, right, hours = 0) => addAttempt(record, id, { at: at(day, hours), answer: 1, right, sure: null });
  add("seen-long-ago", -9, true);
  add("right-since", -3, false);
  add("right-since", -2, true); // right on a later day: no longer a mistake to review
  add("right-same-day", -1, false);
  add("right-same-day", -1, true, 2); // right the same day: still asked
  add("wrong-last", -5, true);
  add("wrong-last", -4, false);
  add("wrong-today", 0, false);
  add("seen-yesterday", -1, true);
  assert.equal(standing(record.get("wrong-last")), 0);
  assert.equal(standing(record.get("right-same-day")), 1);
  assert.equal(standing(record.get("right-since")), 2);
  assert.equal(standing(undefined), 2);
  const ids = ["never-seen", "seen-yesterday", "right-since", "wrong-today", "right-same-day", "seen-long-ago", "wrong-last", "never-too"];
  assert.deepEqual(reviewOrder(ids, record), [
    "wrong-last", // wrong last time, the older first
    "wrong-today",
    "right-same-day",
    "never-seen", // never seen, in the course's order
    "never-too",
    "seen-long-ago",
    "right-since",
    "seen-yesterday",
  ]);
});

test("a day is the reader's calendar day", () => {
  assert.equal(dayOf(new Date(2026, 11, 7, 23, 59).getTime()) < dayOf(new Date(2026, 11, 8, 0, 1).getTime()), true);
  assert.equal(dayOf(new Date(2026, 11, 7, 0, 1).getTime()), dayOf(new Date(2026, 11, 7, 23, 59).getTime()));
});
