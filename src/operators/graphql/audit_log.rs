//! The audit log of operator writes, for the platform operator.

use async_graphql::connection::Connection;
use async_graphql::{Context, Object};

use super::AuditEntry;
use crate::domain::cursor::Cursor;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};

#[derive(Default)]
pub struct AuditQuery;

#[Object]
impl AuditQuery {
    /// Every operator write, newest first, or those of one operator. Only the platform
    /// operator (created with `--all`) may read it: FORBIDDEN for anyone else.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn audit_log(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Only this operator's writes (its code).")] operator: Option<String>,
        #[graphql(desc = "How many entries (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last entry of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, AuditEntry>, ApiError> {
        let caller = ctx.calling_operator("reading the audit log")?;
        let store = ctx.store();
        if !store.operator_is_platform(caller).await? {
            return Err(ApiError::forbidden(
                "only the platform operator may read the audit log",
            ));
        }
        let page = ctx.page(first, after)?;
        let entries = store.list_audit(operator.as_deref(), &page).await?;
        Ok(connection(entries, AuditEntry::from_doc))
    }
}
