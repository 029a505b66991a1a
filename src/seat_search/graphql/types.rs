//! `SeatOption`: one answer of `findSeats`.

use async_graphql::Object;

use crate::catalogue::graphql::types::Showtime;
use crate::graphql::types::Money;
use crate::seat_search;

/// One answer of `findSeats` (see `SeatOption` in the schema).
pub struct SeatOption(seat_search::SeatOption);

impl From<seat_search::SeatOption> for SeatOption {
    fn from(option: seat_search::SeatOption) -> Self {
        SeatOption(option)
    }
}

/// A showtime and the best adjacent seats in it for the party. Hold them with `holdSeats`
/// (`seats`): another buyer may have taken them since.
#[Object]
impl SeatOption {
    /// The showtime: its cinema, movie, hall and start.
    async fn showtime(&self) -> Showtime {
        Showtime::from_doc(self.0.showtime.clone())
    }

    /// Metres from the searched point to the cinema; null for a search in a region.
    async fn distance_meters(&self) -> Option<f64> {
        self.0.distance_meters
    }

    /// The seats, side by side in one row, left to right, e.g. ["F7", "F8"]: chosen as
    /// `holdSeats(best:)` would choose them.
    async fn seats(&self) -> &[String] {
        &self.0.seats
    }

    /// Whether taking them leaves a single free seat beside them (only when every block of
    /// the hall would).
    async fn leaves_single_seat(&self) -> bool {
        self.0.orphans > 0
    }

    /// What the seats cost together on the searched channel, as the ticket types asked.
    async fn total_price(&self) -> Money {
        Money::of(self.0.total, &self.0.showtime.currency)
    }

    /// The option's score, lower is better, in tenths of a point. One point is one seat off
    /// the hall's best spot (a row off: two), 250 m farther from the searched point, or 6
    /// minutes later than `startsFrom`; a single seat left beside the seats costs 10 points.
    async fn score(&self) -> i64 {
        i64::try_from(self.0.key.score).unwrap_or(i64::MAX)
    }
}
