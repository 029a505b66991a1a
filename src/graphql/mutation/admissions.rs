//! Admission at the door: door staff admitting tickets, operators making door staff keys.

use std::sync::Arc;

use async_graphql::{Context, InputObject, Object, ID};

use crate::booking::{self, DoorAt};
use crate::catalogue;
use crate::domain::admission::AdmissionWindow;
use crate::domain::global_id;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{Admission, DoorKey};

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

/// A door staff key to make.
#[derive(InputObject, Debug)]
pub struct CreateDoorKeyInput {
    /// The cinema whose tickets it admits.
    pub cinema_id: ID,
    /// The door's name, shown with every admission made there ("North gate"): 1 to 40
    /// characters.
    pub door: String,
}

/// A door staff key to revoke.
#[derive(InputObject, Debug)]
pub struct RevokeDoorKeyInput {
    /// The cinema it admits at.
    pub cinema_id: ID,
    /// Its code, as `createDoorKey` gave it.
    pub code: String,
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
        let door = ctx.calling_door("admitting a ticket")?;
        let key = ctx
            .caller()
            .operator
            .as_deref()
            .ok_or_else(|| ApiError::internal("a door staff caller without its key's code"))?;
        let admitted = booking::admit_ticket(
            ctx.store(),
            ctx.key_policy(),
            ctx.data_unchecked::<Arc<TicketSecret>>(),
            *ctx.data_unchecked::<AdmissionWindow>(),
            DoorAt {
                key,
                cinema: door.cinema,
                name: &door.name,
            },
            &input.code,
            input.idempotency_key.as_deref(),
        )
        .await?;
        Ok(Admission(admitted))
    }

    /// Makes a door staff key for a door of a cinema the calling operator writes. The key is
    /// in the answer's `apiKey`, this once: it is stored as a hash. Takes no idempotency key
    /// (its answer would be the secret); a lost answer is mended with `revokeDoorKey` and a
    /// new key.
    #[tracing::instrument(skip(self, ctx))]
    async fn create_door_key(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The cinema and the door.")] input: CreateDoorKeyInput,
    ) -> Result<DoorKey, ApiError> {
        let operator = ctx.calling_operator("making a door staff key")?;
        let cinema = global_id::cinema_id(&input.cinema_id)?;
        let made = catalogue::create_door_key(ctx.store(), operator, cinema, &input.door).await?;
        Ok(DoorKey {
            record: made.record,
            api_key: Some(made.key.as_str().to_owned()),
        })
    }

    /// Revokes a door staff key of a cinema the calling operator writes: NOT_FOUND when the
    /// cinema has no such key. Gateways refuse it within 30 seconds (their key cache).
    #[tracing::instrument(skip(self, ctx))]
    async fn revoke_door_key(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The cinema and the key's code.")] input: RevokeDoorKeyInput,
    ) -> Result<DoorKey, ApiError> {
        let operator = ctx.calling_operator("revoking a door staff key")?;
        let cinema = global_id::cinema_id(&input.cinema_id)?;
        let revoked =
            catalogue::revoke_door_key(ctx.store(), operator, cinema, input.code.trim()).await?;
        Ok(DoorKey {
            record: revoked,
            api_key: None,
        })
    }
}
