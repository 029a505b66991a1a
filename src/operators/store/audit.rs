//! `audit_log`: what operators wrote, newest first.

use bson::doc;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::ResourceId;
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::AuditDoc;
use crate::store::is_duplicate_key;
use crate::store::{filters, names, Store};

/// The sort key of an audit page: newest first.
#[derive(Serialize, Deserialize)]
struct AuditKey(
    #[serde(with = "codec::time")] DateTime<Utc>,
    #[serde(with = "codec::id")] ResourceId,
);

impl Store {
    /// Records an operator's write. An entry with the same id (the write's idempotency
    /// resource id: a retry that took the key over) is recorded once.
    #[tracing::instrument(skip_all, fields(operator = %entry.operator, operation = %entry.operation))]
    pub async fn record_audit(&self, entry: &AuditDoc) -> Result<(), ApiError> {
        match self
            .bounded_raw(
                Call::new(names::AUDIT_LOG, "insert"),
                self.collection::<AuditDoc>(names::AUDIT_LOG)
                    .insert_one(entry),
            )
            .await?
        {
            Ok(_) => Ok(()),
            Err(error) if is_duplicate_key(&error) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    /// The audit log, newest first; of one operator when `operator` is given.
    #[tracing::instrument(skip(self))]
    pub async fn list_audit(
        &self,
        operator: Option<&str>,
        page: &PageRequest,
    ) -> Result<Page<AuditDoc>, ApiError> {
        let filter = match operator {
            Some(code) => doc! { "operator": code },
            None => doc! {},
        };
        self.find_page(
            names::AUDIT_LOG,
            "audit",
            filter,
            doc! { "at": -1, "_id": -1 },
            None,
            page,
            |AuditKey(at, id)| {
                filters::after_descending(
                    &["at", "_id"],
                    &[codec::date(at).into(), id.oid().into()],
                )
            },
            |entry: &AuditDoc| AuditKey(entry.at, entry.id),
        )
        .await
    }
}
