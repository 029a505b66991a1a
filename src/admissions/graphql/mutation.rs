//! `admitTicket`: door staff admitting tickets.

use std::sync::Arc;

use async_graphql::{Context, InputObject, Object};

use super::calling_door_at;
use super::types::Admission;
use crate::admissions::{self, AdmissionWindow};
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::idempotency::graphql::IdempotencyContext;

#[derive(Default)]
pub struct AdmissionMutation;

/// A ticket scanned at the door.
#[derive(InputObject, Debug)]
pub struct AdmitTicketInput {
    /// The ticket's code, as its QR code carries it (`Order.tickets`): `BO1.…`.
    pub code: String,
    /// Makes retries safe: a retry with the same key gets the first answer (ADMITTED, not
    /// ALREADY_ADMITTED, when the first attempt let the ticket in). Kept 48 hours.
    pub idempotency_key: Option<String>,
}

#[Object]
impl AdmissionMutation {
    /// Admits the ticket a code names: once per ticket, from 60 minutes before its start to
    /// 30 minutes after (configurable). Needs a door staff key of the ticket's cinema.
    /// Refusals, each changing nothing: BAD_USER_INPUT for a malformed or forged code,
    /// FORBIDDEN for another cinema's ticket, ALREADY_ADMITTED (with `admittedAt` and
    /// `door` in the error's extensions), TICKET_CANCELLED for a seat given back or a
    /// showtime cancelled, ADMISSION_CLOSED before or after the window.
    #[tracing::instrument(skip(self, ctx, input))]
    async fn admit_ticket(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The code scanned.")] input: AdmitTicketInput,
    ) -> Result<Admission, ApiError> {
        let door = calling_door_at(ctx, "admitting a ticket")?;
        let admitted = admissions::admit_ticket(
            ctx.store(),
            ctx.key_policy(),
            ctx.data_unchecked::<Arc<TicketSecret>>(),
            *ctx.data_unchecked::<AdmissionWindow>(),
            door,
            &input.code,
            input.idempotency_key.as_deref(),
        )
        .await?;
        Ok(Admission(admitted))
    }
}
