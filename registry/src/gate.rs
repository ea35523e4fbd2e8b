//! The load gate: trafikey refuses the load when a host function on its list is missing.
//!
//! The seed states the gate and one fact about its list: "the list names no blocked-client,
//! ready-signal or timer function". It does not give the list's entries, its name or its type:
//! the entries below are the model's own choice, a plausible set for a module that registers
//! commands with ACL categories, replies, and reads the server's cached clock.

// model's own choice: entries, name
pub const REQUIRED_HOST_FUNCTIONS: &[&CStr] = &[
    c"ValkeyModule_CreateCommand",
    c"ValkeyModule_GetCommand",
    c"ValkeyModule_SetCommandInfo",
    c"ValkeyModule_SetCommandACLCategories",
    c"ValkeyModule_AddACLCategory",
    c"ValkeyModule_OpenKey",
    c"ValkeyModule_CloseKey",
    c"ValkeyModule_Call",
    c"ValkeyModule_CachedMicroseconds",
    c"ValkeyModule_ReplyWithArray",
    c"ValkeyModule_ReplyWithLongLong",
    c"ValkeyModule_ReplyWithError",
];
