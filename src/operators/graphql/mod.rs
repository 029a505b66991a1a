//! Operators in the schema: the audit log of their writes, for the platform operator, and where
//! an operator's keyed write runs (`OperatorsContext::keyed`).

mod audit_entry;
mod audit_log;
mod keyed;

pub use audit_entry::AuditEntry;
pub use audit_log::AuditQuery;
pub use keyed::OperatorsContext;
