//! The matrix: its entries, the price of a seat by channel, kind and type, and the check of a
//! matrix against the hall and the known ticket types.

use std::collections::HashSet;

use super::TicketType;
use crate::domain::seat::SeatKind;
use crate::error::ApiError;

/// One entry of a price matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceEntry {
    pub channel: String,
    /// None: every kind no entry of the same channel and type names.
    pub seat_kind: Option<SeatKind>,
    pub ticket_type: TicketType,
    /// Minor units of the showtime's currency.
    pub amount: i64,
}

/// One entry of a price matrix, borrowed from wherever it is kept (a page of showtimes looks
/// prices up in its documents without copying their matrices).
#[derive(Debug, Clone, Copy)]
pub struct PriceRef<'a> {
    pub channel: &'a str,
    pub seat_kind: Option<SeatKind>,
    pub ticket_type: &'a TicketType,
    pub amount: i64,
}

impl PriceEntry {
    pub fn borrowed(&self) -> PriceRef<'_> {
        PriceRef {
            channel: &self.channel,
            seat_kind: self.seat_kind,
            ticket_type: &self.ticket_type,
            amount: self.amount,
        }
    }
}

/// The amount of one seat of `kind` as `ticket_type` on `channel`: the entry naming the kind,
/// else the entry for every kind. None when the matrix has neither.
pub fn price_of(
    matrix: &[PriceEntry],
    channel: &str,
    kind: SeatKind,
    ticket_type: &TicketType,
) -> Option<i64> {
    price_among(
        matrix.iter().map(PriceEntry::borrowed),
        channel,
        kind,
        ticket_type,
    )
}

/// [`price_of`] among borrowed entries.
pub fn price_among<'a>(
    matrix: impl IntoIterator<Item = PriceRef<'a>>,
    channel: &str,
    kind: SeatKind,
    ticket_type: &TicketType,
) -> Option<i64> {
    let mut for_every_kind = None;
    for entry in matrix {
        if entry.channel != channel || entry.ticket_type != ticket_type {
            continue;
        }
        match entry.seat_kind {
            Some(named) if named == kind => return Some(entry.amount),
            Some(_) => {}
            None => for_every_kind = Some(entry.amount),
        }
    }
    for_every_kind
}

/// Checks a matrix against what only the database knows: every named kind one the hall has,
/// and every type known (`is_known`). (Amounts, currency and repeats: `schedule::validate_prices`.)
/// BAD_USER_INPUT names the first entry at fault.
pub fn validate_matrix(
    matrix: &[PriceEntry],
    hall_kinds: &HashSet<SeatKind>,
    is_known: impl Fn(&TicketType) -> bool,
) -> Result<(), ApiError> {
    for entry in matrix {
        if let Some(kind) = entry.seat_kind {
            if !hall_kinds.contains(&kind) {
                return Err(ApiError::bad_input(format!(
                    "the price {}: the hall has no {kind:?} seats",
                    describe(entry)
                )));
            }
        }
        if !is_known(&entry.ticket_type) {
            return Err(ApiError::bad_input(format!(
                "the price {}: unknown ticket type {}",
                describe(entry),
                entry.ticket_type
            )));
        }
    }
    Ok(())
}

fn describe(entry: &PriceEntry) -> String {
    let kind = entry
        .seat_kind
        .map_or_else(|| "every kind".to_owned(), |kind| format!("{kind:?}"));
    format!(
        "for channel {}, {kind}, {}",
        entry.channel, entry.ticket_type
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::pricing::examples::{entry, t};
    use SeatKind::*;

    #[test]
    fn a_named_kind_wins_over_every_kind_whatever_the_order() {
        let matrix = [
            entry("maoyan", Some(Vip), "ADULT", 8000),
            entry("maoyan", None, "ADULT", 4500),
            entry("maoyan", None, "CHILD", 2500),
            entry("taobao", None, "ADULT", 4000),
        ];
        assert_eq!(price_of(&matrix, "maoyan", Vip, &t("ADULT")), Some(8000));
        assert_eq!(
            price_of(&matrix, "maoyan", Standard, &t("ADULT")),
            Some(4500)
        );
        assert_eq!(price_of(&matrix, "maoyan", Vip, &t("CHILD")), Some(2500));
        assert_eq!(price_of(&matrix, "taobao", Vip, &t("ADULT")), Some(4000));
        assert_eq!(price_of(&matrix, "taobao", Vip, &t("CHILD")), None);
        assert_eq!(price_of(&matrix, "douyin", Vip, &t("ADULT")), None);
    }

    #[test]
    fn a_matrix_is_refused_for_kinds_the_hall_lacks_and_unknown_types() {
        let kinds: HashSet<_> = [Standard, Couple].into();
        let known = |ty: &TicketType| ty.is_built_in();
        let ok = [
            entry("maoyan", None, "ADULT", 4500),
            entry("maoyan", Some(Couple), "ADULT", 9000),
        ];
        validate_matrix(&ok, &kinds, known).unwrap();
        for (bad, says) in [
            (vec![entry("m", Some(Vip), "ADULT", 1)], "no Vip seats"),
            (
                vec![entry("m", None, "MEMBER", 1)],
                "unknown ticket type MEMBER",
            ),
        ] {
            let error = validate_matrix(&bad, &kinds, known).unwrap_err();
            assert!(error.to_string().contains(says), "{bad:?}: {error}");
        }
    }
}
