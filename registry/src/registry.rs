//! registry::TABLE: a snapshot of trafikey's command registry, in trafikey's own syntax.
//!
//! trafikey is not public. Everything here comes from the published module 04 page (the seed)
//! or is marked as the model's own choice:
//!
//! - The rows EMQ.PROMOTE and EMQ.STALLED.CHECK are the seed's, word for word.
//! - The seed names the three bus verbs (EMQ.APPEND, EMQ.PUBLISH, EMQ.FAILURES.INCR) and says
//!   what each does, but gives none of their fields. A `// model's own choice: …` line right
//!   before each of those rows lists the fields whose value the model chose. The course quotes
//!   none of them as trafikey's.
//! - The `table!` wrapper and the `TABLE` item's type are the model's own choice; the seed shows
//!   the rows only, under the caption "trafikey — registry::TABLE".
//!
//! Trafikist reads this file with tree-sitter (src/trafikist/registry/rust.py): each row is
//! `key => handler, Row { field: value, … };` inside the macro body.

pub static TABLE: &[Entry] = table! {
    emq_promote => crate::emq::scheduling::promote, Row { name: c"EMQ.PROMOTE", family: Family::Emq, arity: 6,
        flags: "write", keys: EVAL_KEYS, acl: c"write slow", caps: &["promote"],
        summary: Some("Move due scheduled flat jobs to pending, bounded by batch (emq6.8 G8, @promote)"),
        complexity: Some("O(M log N) for M due jobs"), since: Some("0.1.0") };
    emq_stalled_check => crate::emq::recovery::stalled_check, Row { name: c"EMQ.STALLED.CHECK", family: Family::Emq, arity: 8,
        flags: "write", keys: EVAL_KEYS, acl: c"write slow", caps: &["stalled.check"],
        summary: Some("Counted stall sweep: recover or dead-letter expired leases; restart expiries exempt (emq6.8 G15, @sweep_stalled)"),
        complexity: Some("O(M log N) for M expired leases"), since: Some("0.1.0") };

    // The bus verbs. The seed: "EMQ.APPEND writes a batch whole or not at all, EMQ.PUBLISH
    // appends one envelope after checking its fields, and EMQ.FAILURES.INCR sets a count and
    // its TTL together." It gives no field of these rows beyond the name; the seed's other
    // statements hold for them too (no row carries the blocking flag).
    // model's own choice: key, handler, family, arity, flags, keys, acl, caps, summary, complexity, since
    emq_append => crate::emq::bus::append, Row { name: c"EMQ.APPEND", family: Family::Emq, arity: -4,
        flags: "write", keys: EVAL_KEYS, acl: c"write stream", caps: &["append"],
        summary: Some("Append a batch of envelopes to a stream, whole or not at all"),
        complexity: None, since: None };
    // model's own choice: key, handler, family, arity, flags, keys, acl, caps, summary, complexity, since
    emq_publish => crate::emq::bus::publish, Row { name: c"EMQ.PUBLISH", family: Family::Emq, arity: -4,
        flags: "write", keys: EVAL_KEYS, acl: c"write stream", caps: &["publish"],
        summary: Some("Append one envelope to a stream after checking its fields"),
        complexity: None, since: None };
    // model's own choice: key, handler, family, arity, flags, keys, acl, caps, summary, complexity, since
    emq_failures_incr => crate::emq::bus::failures_incr, Row { name: c"EMQ.FAILURES.INCR", family: Family::Emq, arity: 4,
        flags: "write", keys: EVAL_KEYS, acl: c"write string", caps: &["failures.incr"],
        summary: Some("Increment a dead-letter failure count and set its TTL in one turn"),
        complexity: None, since: None };
};
