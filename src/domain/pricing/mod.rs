//! A showtime's price matrix: channel × seat kind × ticket type (attribute pattern, seed 000),
//! the ticket types themselves, and the rules that refuse a ticket type for a showtime.
//!
//! An entry without a seat kind prices every kind the hall has that no entry of the same
//! channel and ticket type names; an entry without a ticket type is an ADULT price. So the
//! prices of before the matrix (`{channel, amount}`) still mean what they meant: every seat of
//! the showtime, ADULT, at that amount.
//!
//! One file per part: the ticket types (`ticket_type`: a code, and the type of each seat a
//! request asks for), the matrix and its look-ups (`matrix`), and a hold's seat prices under
//! the showtime's rules (`seat_prices`).

mod matrix;
mod seat_prices;
mod ticket_type;

pub use matrix::{price_among, price_of, validate_matrix, PriceEntry, PriceRef};
pub use seat_prices::{seat_prices, seat_prices_unlocking, validate_rules, TicketRule, Unpriced};
pub use ticket_type::{
    ticket_types_for, ticket_types_from_codes, TicketType, BUILT_IN_TICKET_TYPES,
};

/// What the parts' unit tests share.
#[cfg(test)]
mod examples {
    use super::{PriceEntry, TicketType};
    use crate::domain::seat::SeatKind;

    pub(super) fn t(code: &str) -> TicketType {
        TicketType::parse("t", code).unwrap()
    }

    pub(super) fn entry(
        channel: &str,
        kind: Option<SeatKind>,
        ty: &str,
        amount: i64,
    ) -> PriceEntry {
        PriceEntry {
            channel: channel.into(),
            seat_kind: kind,
            ticket_type: t(ty),
            amount,
        }
    }
}
