//! Operators in the schema: the audit log of their writes, for the platform operator.

mod audit_entry;
mod audit_log;

pub use audit_entry::AuditEntry;
pub use audit_log::AuditQuery;
