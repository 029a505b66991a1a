//! `Admission` (a ticket let in at the door) and `DoorKey` (the key a door's scanners use).

use async_graphql::{Context, Object, ID};
use chrono::{DateTime, Utc};

use super::{Cinema, Showtime};
use crate::booking::Admission as Admitted;
use crate::domain::global_id::GlobalId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::store::documents::OperatorDoc;

/// A ticket admitted at the door.
pub struct Admission(pub Admitted);

/// A ticket admitted at the door.
#[Object]
impl Admission {
    /// The seat the ticket is for: "D7".
    async fn seat(&self) -> &str {
        &self.0.seat
    }

    /// The order the ticket belongs to.
    async fn order_id(&self) -> ID {
        GlobalId::Order(self.0.order).encode().into()
    }

    /// When it was admitted (by the gateway that admitted it).
    async fn admitted_at(&self) -> DateTime<Utc> {
        self.0.at
    }

    /// The door it was admitted at.
    async fn door(&self) -> &str {
        &self.0.door
    }

    /// The showtime it admits to.
    async fn showtime(&self, ctx: &Context<'_>) -> Result<Showtime, ApiError> {
        let showtime = ctx.loaders().showtimes.load_one(self.0.showtime).await?;
        showtime
            .map(Showtime::from_arc)
            .ok_or_else(|| ApiError::internal(format!("showtime {} is gone", self.0.showtime)))
    }
}

/// A door staff key: it admits tickets at one door of one cinema and does nothing else.
pub struct DoorKey {
    pub record: OperatorDoc,
    /// The key itself: only right after it was made (it is stored as a hash).
    pub api_key: Option<String>,
}

/// A door staff key: it admits tickets at one door of one cinema and does nothing else.
#[Object]
impl DoorKey {
    /// Its code, for revoking it.
    async fn code(&self) -> &str {
        &self.record.code
    }

    /// The door it admits at.
    async fn door(&self) -> &str {
        self.record
            .door
            .as_ref()
            .map_or("", |door| door.name.as_str())
    }

    /// The cinema it admits at.
    async fn cinema(&self) -> Option<Cinema> {
        (self.record.door.as_ref()).map(|door| Cinema::from_id(door.cinema_id))
    }

    /// The operator who made it.
    async fn created_by(&self) -> Option<&str> {
        self.record
            .door
            .as_ref()
            .map(|door| door.created_by.as_str())
    }

    /// When it was made.
    async fn created_at(&self) -> Option<DateTime<Utc>> {
        self.record.door.as_ref().and_then(|door| door.created_at)
    }

    /// The API key, shown this once when the key is made (null afterwards): send it as
    /// `Authorization: Bearer <key>` from the door's scanners. Only its hash is stored.
    async fn api_key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }
}
