// The duty widget's controls as plain data: no DOM here, so Node tests all of it
// (tests/widget/controls.test.mjs).
//
// `spec` is the page's JSON data block #tk-controls-spec, made from the controls' one
// definition (trafikist.model_view.controls, page_spec): each control's key, kind ("set",
// "choice", "switch", "number", "fault"), options and wording, in the form's order. `values`
// are the controls as the model reads them ({send: ["Consumer"], wire: 4, …, crash: null});
// `defaults` are a duty's (a run's data-defaults: the same, plus the scenario's `clients`).
// `fields` are the form's fields as name -> list of strings, what the form holds: a
// checkbox's or a radio's name lists the values ticked, any other field's its one value.

// -- the form's fields <-> values --------------------------------------------------------------

// The [name, value] pairs of a form's fields (`form.elements`, or objects with the same name,
// type, value, checked and disabled), as a form submits them: ticked boxes and chosen radios
// only, and no button.
export function readFields(elements) {
  const entries = [];
  for (const field of elements) {
    if (!field.name || field.disabled || ["submit", "button", "reset", "fieldset"].includes(field.type)) continue;
    if ((field.type === "checkbox" || field.type === "radio") && !field.checked) continue;
    entries.push([field.name, field.value]);
  }
  return entries;
}

// Set a form's fields to `fields` (fieldsFor's): a box or a radio is ticked when its value is
// listed, any other field takes its name's one value; a field not named keeps its own.
export function writeFields(elements, fields) {
  for (const field of elements) {
    const wanted = field.name ? fields[field.name] : undefined;
    if (!wanted) continue;
    if (field.type === "checkbox" || field.type === "radio") field.checked = wanted.includes(field.value);
    else field.value = wanted[0];
  }
}

// The values of the form's fields: `entries` are [name, value] pairs, as readFields (or
// `new FormData(form)`) gives them (a box without a value attribute gives "on").
export function valuesFrom(spec, entries) {
  const fields = new Map();
  for (const [name, value] of entries) fields.set(name, [...(fields.get(name) || []), String(value)]);
  const one = (name) => (fields.get(name) || [""])[0];
  const values = {};
  for (const control of spec) {
    const { key } = control;
    if (control.kind === "set") values[key] = fields.get(key) || [];
    else if (control.kind === "choice") values[key] = typed(control, one(key));
    else if (control.kind === "switch") values[key] = fields.has(key);
    else if (control.kind === "number") values[key] = Number(one(key));
    else if (control.kind === "fault") {
      const [client, after] = control.fields;
      values[key] = one(client) ? { client: one(client), after: Number(one(after)) } : null;
    }
  }
  return values;
}

// The form's fields for `values`, and the options of each select (a fault's clients are the
// duty's): {fields: {name: [strings]}, options: {name: [[label, value], …]}}.
export function fieldsFor(spec, values, defaults) {
  const fields = {};
  const options = {};
  for (const control of spec) {
    const { key } = control;
    const value = values[key];
    if (control.kind === "set") fields[key] = value.map(String);
    else if (control.kind === "switch") fields[key] = value ? ["on"] : [];
    else if (control.kind === "fault") {
      const [client, after] = control.fields;
      options[client] = [[control.none, ""], ...defaults.clients.map(({ name }) => [name, name])];
      fields[client] = [value ? value.client : ""];
      fields[after] = [String(value ? value.after : control.start)];
    } else fields[key] = [String(value)];
  }
  return { fields, options };
}

// A choice's value has its options' type (wire: the numbers 4 and 6).
function typed(control, text) {
  return typeof control.options[0] === "number" ? Number(text) : text;
}

// -- changes against the defaults --------------------------------------------------------------

// Equal as values: objects compare by sorted keys (the build's JSON sorts them; the form not).
const canon = (v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v).sort().map((k) => [k, v[k]]) : v);
const same = (a, b) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));

// The keys of the controls whose value differs from the default, in the form's order.
export function changes(spec, values, defaults) {
  return spec
    .map((control) => control.key)
    .filter((key) => key in values && !same(values[key], defaults[key] ?? null));
}

// -- the shared URL ------------------------------------------------------------------------------

// The query of a shared run: the duty, then each changed control (?duty=recover&wire=6).
export function toQuery(spec, duty, values, defaults) {
  const query = new URLSearchParams({ duty });
  const byKey = new Map(spec.map((control) => [control.key, control]));
  for (const key of changes(spec, values, defaults)) {
    const value = values[key];
    const { kind } = byKey.get(key);
    if (kind === "set") query.set(key, value.length ? value.join(",") : "none");
    else if (kind === "switch") query.set(key, value ? "on" : "off");
    else if (kind === "fault") query.set(key, value ? `${value.client}@${value.after}` : "none");
    else query.set(key, String(value));
  }
  return query;
}

// The values a shared URL's query sets; what it leaves out stays the default.
export function fromQuery(spec, query, defaults) {
  return readQuery(spec, query, defaults).values;
}

// The values a shared URL's query sets, each checked against the controls' spec (a choice's
// and a set's options, a number's range and step, the duty's clients), and what the run note
// says of each value that is wrong: that value stays the default (a set's wrong option is left
// out), and a sentence names it ("beat −1 s is outside 0.1–60 s; the default 1 s is used.").
export function readQuery(spec, query, defaults) {
  const values = {};
  const problems = [];
  for (const control of spec) {
    const { key } = control;
    const given = query.get(key);
    const fallback = defaults[key] ?? null;
    values[key] = fallback;
    if (given === null) continue;
    const wrong = (what) => problems.push(`${what}; the default ${defaultWords(control, fallback)} is used.`);
    if (given.trim() === "") {
      wrong(`${key} has no value`);
      continue;
    }
    if (control.kind === "set") {
      if (given === "none") {
        values[key] = [];
        continue;
      }
      // An option the set does not have is left out; when none is left, the default stays.
      const kept = [];
      const unknown = [];
      for (const item of given.split(",")) {
        if (!control.options.includes(item)) unknown.push(`${key} ${quoted(item)} is not ${control.wording.what}`);
        else if (!kept.includes(item)) kept.push(item);
      }
      const options = ` (${control.options.join(", ")})`;
      if (!kept.length) wrong(unknown.join("; ") + options);
      else {
        values[key] = kept;
        for (const what of unknown) problems.push(`${what}${options}; it is left out.`);
      }
    } else if (control.kind === "choice") {
      const value = typed(control, given);
      if (control.options.includes(value)) values[key] = value;
      else wrong(`${key} ${quoted(given)} is not ${control.wording.what} (${control.options.join(", ")})`);
    } else if (control.kind === "switch") {
      if (given === "on" || given === "off") values[key] = given === "on";
      else wrong(`${key} ${quoted(given)} is neither on nor off`);
    } else if (control.kind === "number") {
      const value = Number(given);
      const off = offRange(control.range, value);
      if (!off) values[key] = value;
      else if (off === "nan") wrong(`${key} ${quoted(given)} is not a number`);
      else wrong(`${fill(control.wording.some, shown(value))} ${offWords(off, control.range, control.wording.value)}`);
    } else if (control.kind === "fault") {
      if (given === "none") {
        values[key] = null;
        continue;
      }
      const at = given.lastIndexOf("@");
      const client = given.slice(0, at);
      const after = Number(given.slice(at + 1));
      const off = offRange(control.range, after);
      const clients = defaults.clients.map(({ name }) => name);
      if (at < 1 || at === given.length - 1 || off === "nan") {
        wrong(`${key} ${quoted(given)} is neither none nor CLIENT@COMMAND`);
      } else if (!clients.includes(client)) {
        wrong(`${key} client ${quoted(client)} is not ${control.wording.what} (${clients.join(", ") || "none"})`);
      } else if (off) {
        wrong(`${key} ${fill(control.wording.after, shown(after))} ${offWords(off, control.range, "{}")}`);
      } else {
        values[key] = { client, after };
      }
    }
  }
  // A key no control has (a typo, or a link from another version of the page) is named too:
  // the URL is written again without it.
  const known = ["duty", ...spec.map((control) => control.key)];
  const unknown = [...new Set(query.keys())].filter((key) => !known.includes(key));
  for (const key of unknown.slice(0, UNKNOWN_KEYS_SAID)) {
    const near = closest(key, known);
    const which = near ? `did you mean ${near}?` : known.join(", ");
    problems.push(`${quoted(key)} is not one of the controls (${which}); it is left out.`);
  }
  if (unknown.length > UNKNOWN_KEYS_SAID) problems.push(`${unknown.length - UNKNOWN_KEYS_SAID} more keys are not controls either.`);
  return { values, problems };
}

// The unknown keys of a URL the run note names, one by one (the rest are counted).
const UNKNOWN_KEYS_SAID = 3;

// The one of `names` that `text` is a slip of (two edits at most, and fewer than its length),
// or "".
function closest(text, names) {
  let best = "";
  let fewest = Math.min(3, text.length);
  for (const name of names) {
    const edits = distance(text.toLowerCase(), name.toLowerCase());
    if (edits < fewest) [best, fewest] = [name, edits];
  }
  return best;
}

// Levenshtein's distance between two short strings.
function distance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

// True when `query` is a shared run's: it names a duty, or sets one of the controls.
export function sharesRun(spec, query) {
  return query.has("duty") || spec.some((control) => query.has(control.key));
}

// The duty a shared URL names, among the page's duties that run (`duties`, their ids), and
// what the run note says when it names none of them: {duty: id or null, problem}.
export function dutyOf(query, duties) {
  const given = query.get("duty");
  if (given === null || duties.includes(given)) return { duty: given, problem: "" };
  return { duty: null, problem: `duty ${quoted(given)} is not a duty of this page; the first duty is shown.` };
}

// Why a number is not a value of `range` ({low, high, step}, as the form's own check reads its
// min, max and step): "nan", "outside", "step", or "" when it is one.
function offRange({ low, high, step }, value) {
  if (!Number.isFinite(value)) return "nan";
  if (value < low || value > high) return "outside";
  const steps = (value - low) / step;
  return Math.abs(steps - Math.round(steps)) > 1e-7 ? "step" : "";
}

function offWords(off, { low, high, step }, words) {
  if (off === "outside") return `is outside ${fill(words, `${shown(low)}\u2013${shown(high)}`)}`;
  if (step === 1 && Number.isInteger(low)) return "is not a whole number";
  return `is not in steps of ${fill(words, shown(step))} from ${fill(words, shown(low))}`;
}

// A control's default as the run note says it: "1 s", "4", "(reaper on)", "(no crash)".
function defaultWords(control, value) {
  if (control.kind === "number") return fill(control.wording.value, shown(value));
  if (control.kind === "choice") return String(value);
  return `(${wording(control, value)})`;
}

// A number as the reader reads it (a minus sign, not a hyphen), and a URL's text in quotes,
// cut short when it is long.
const shown = (number) => String(number).replace(/^-/, "\u2212");
const quoted = (text) => `'${text.length > 40 ? `${text.slice(0, 40)}…` : text}'`;

// -- the reader's words ------------------------------------------------------------------------

// A control's value in the reader's words: its wording, `{}` filled with the value (a fault's
// `{client}` and `{after}` with its parts).
export function wording(control, value) {
  const words = control.wording;
  if (control.kind === "set") return value.length ? fill(words.some, value.join(words.and)) : words.none;
  if (control.kind === "switch") return value ? words.on : words.off;
  if (control.kind === "fault") return value ? fill(words.some, value) : words.none;
  return fill(words.some, value);
}

// `template` with `{}` filled with `filler`, and `{part}` with that part of it.
function fill(template, filler) {
  return template.replace(/\{(\w*)\}/g, (_, part) => String(part ? filler[part] : filler));
}

// The note under the controls: "Changed from the default: wire: 6; limit 1.", or "".
export function describe(spec, values, defaults) {
  const keys = new Set(changes(spec, values, defaults));
  if (!keys.size) return "";
  const said = spec.filter((control) => keys.has(control.key)).map((control) => wording(control, values[control.key]));
  return `Changed from the default: ${said.join("; ")}.`;
}
