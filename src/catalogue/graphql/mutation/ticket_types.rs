//! Operators defining ticket types of their own.

use async_graphql::{Context, InputObject, Object};

use crate::catalogue;
use crate::catalogue::graphql::types::TicketType;
use crate::domain::pricing;
use crate::domain::text;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::operators::graphql::OperatorsContext;

#[derive(Default)]
pub struct TicketTypeMutation;

/// A ticket type to define.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct DefineTicketTypeInput {
    /// Its code: an upper-case letter, then up to 31 upper-case letters, digits or
    /// underscores ("MEMBER"); not a built-in type's, not taken.
    pub code: String,
    /// What buyers are shown, e.g. "会员票".
    pub name: String,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

#[Object]
impl TicketTypeMutation {
    /// Defines a ticket type (a chain's member price, say) that showtimes' price matrices
    /// may then price and holds may ask for. Needs an operator's API key.
    #[tracing::instrument(skip(self, ctx))]
    async fn define_ticket_type(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Its code and name.")] input: DefineTicketTypeInput,
    ) -> Result<TicketType, ApiError> {
        let operator = ctx.calling_operator("defining a ticket type")?;
        let code = pricing::TicketType::parse("code", &input.code)?;
        let name = text::required("name", &input.name)?;
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let defined = catalogue::define_ticket_type(keyed, code, name).await?;
        Ok(defined.into())
    }
}
