//! The operators' store code: operators and their scopes (`operators`), and the audit log of
//! their writes (`audit_log`).

mod audit;
mod indexes;
mod operators;
