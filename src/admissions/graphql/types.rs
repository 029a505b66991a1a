//! `Admission`: a ticket let in at the door.

use async_graphql::{Context, Object, ID};
use chrono::{DateTime, Utc};

use crate::admissions::Admission as Admitted;
use crate::domain::global_id::GlobalId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::schema::upward::Showtime;

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
        GlobalId::Order(Some(self.0.showtime), self.0.order)
            .encode()
            .into()
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
