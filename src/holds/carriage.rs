//! What a hold carries beside its seats (a voucher's redemption, products' units): asked for
//! with the seats, reserved before the hold is placed, settled after. The features that own
//! them make it (`checkout`, above them all); holds names none of them, and gives back what
//! an ended hold carried through the handlers of ended holds (`endings`).

use chrono::{DateTime, Utc};

use super::HoldEndings;
use crate::domain::ids::HoldId;
use crate::domain::pricing::TicketType;
use crate::error::ApiError;
use crate::store::documents::{HoldDoc, HoldItemDoc, ShowtimeDoc, VoucherUseDoc};
use crate::store::Store;

/// What a carriage reserved for one hold, as the hold's document keeps it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Carried {
    /// A voucher's redemption (the hold sets its discount once the seats are priced).
    pub voucher: Option<VoucherUseDoc>,
    /// Products' lines, at their prices now.
    pub items: Vec<HoldItemDoc>,
}

/// What one hold request carries beside its seats.
#[async_trait::async_trait]
pub trait Carriage: Send + Sync + std::fmt::Debug {
    /// Reserves it for hold `hold` of `showtime`, whose seats are bought as `ticket_types`,
    /// its checks due at `check_at` (when the hold would expire); refused, with nothing left
    /// reserved, when it may not be had.
    async fn reserve(
        &self,
        store: &Store,
        endings: &HoldEndings,
        showtime: &ShowtimeDoc,
        ticket_types: &[TicketType],
        hold: HoldId,
        check_at: DateTime<Utc>,
    ) -> Result<Carried, ApiError>;

    /// A ticket type it lets the seats have beyond the channel's own (a voucher's effect).
    fn unlocks(&self) -> Option<&TicketType>;

    /// The seats' prices with it, from their list prices, seat by seat.
    fn prices(&self, list: &[i64]) -> Vec<i64>;

    /// After the hold's placement (`placed`): gives back what `carried` reserved that the
    /// hold does not carry (it was surely not placed, or was placed earlier with its own).
    async fn settle(
        &self,
        store: &Store,
        carried: &Carried,
        hold: HoldId,
        placed: Result<&HoldDoc, &ApiError>,
    );
}
