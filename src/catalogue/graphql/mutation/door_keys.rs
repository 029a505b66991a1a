//! Door staff keys: operators making and revoking the keys a cinema's door scanners use.

use async_graphql::{Context, InputObject, Object, ID};

use crate::catalogue;
use crate::catalogue::graphql::types::DoorKey;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;

#[derive(Default)]
pub struct DoorKeyMutation;

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
impl DoorKeyMutation {
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
