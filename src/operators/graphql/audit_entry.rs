//! `AuditEntry`: one operator write, as the audit log keeps it.

use async_graphql::{Object, ID};
use chrono::{DateTime, Utc};

use crate::store::documents::AuditDoc;

/// One write an operator made.
pub struct AuditEntry(AuditDoc);

impl AuditEntry {
    pub fn from_doc(doc: AuditDoc) -> Self {
        AuditEntry(doc)
    }
}

/// One write an operator made: who, what, when, and the written fields before and after.
#[Object]
impl AuditEntry {
    /// The operator's code.
    async fn operator(&self) -> &str {
        &self.0.operator
    }

    /// The mutation, e.g. "scheduleShowtime".
    async fn operation(&self) -> &str {
        &self.0.operation
    }

    /// When it was written.
    async fn at(&self) -> DateTime<Utc> {
        self.0.at
    }

    /// The global id of what was written (a cinema, hall, movie or showtime).
    async fn subject(&self) -> ID {
        self.0.subject.clone().into()
    }

    /// The global id of the cinema written, when the write is within one.
    async fn cinema_id(&self) -> Option<ID> {
        self.0.cinema_id.map(|id| {
            crate::domain::global_id::GlobalId::Cinema(id)
                .encode()
                .into()
        })
    }

    /// The written fields before the write, as JSON text; null when it created something.
    async fn before(&self) -> Option<&str> {
        self.0.before.as_deref()
    }

    /// The written fields after the write, as JSON text.
    async fn after(&self) -> Option<&str> {
        self.0.after.as_deref()
    }
}
