//! `SeatKind`: the kinds of seat, as every part of the schema that names one says them (a
//! hall's layout, a seat map, a hold's or an order's seats, a price, a party's seats).

use async_graphql::Enum;

/// What kind of seat a position is.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[graphql(remote = "crate::domain::seat::SeatKind")]
pub enum SeatKind {
    /// An ordinary seat.
    Standard,
    /// A premium seat.
    Vip,
    /// A space for a wheelchair user.
    Wheelchair,
    /// One half of a two-person love seat.
    Couple,
}
