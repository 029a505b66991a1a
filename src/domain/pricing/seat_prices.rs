//! A hold's seat prices: the matrix's price of each seat's kind and ticket type, unless a
//! rule of the showtime refuses the type (a voucher may waive it); and the check of the rules.

use std::collections::HashSet;

use super::{price_of, PriceEntry, TicketType};
use crate::domain::seat::SeatKind;
use crate::error::ApiError;

/// A ticket type a showtime does not sell, and the rule that says so (shown to the buyer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRule {
    pub ticket_type: TicketType,
    /// e.g. "no children's tickets after 21:00".
    pub rule: String,
}

/// Checks the rules a showtime is given: known types, each refused once, a rule text a person
/// can read.
pub fn validate_rules(
    rules: &[TicketRule],
    is_known: impl Fn(&TicketType) -> bool,
) -> Result<(), ApiError> {
    let mut seen = HashSet::new();
    for rule in rules {
        if !is_known(&rule.ticket_type) {
            return Err(ApiError::bad_input(format!(
                "a rule refuses unknown ticket type {}",
                rule.ticket_type
            )));
        }
        if !seen.insert(&rule.ticket_type) {
            return Err(ApiError::bad_input(format!(
                "ticket type {} is refused by two rules",
                rule.ticket_type
            )));
        }
        crate::domain::text::required("rule", &rule.rule)?;
    }
    Ok(())
}

/// The price of each seat of a hold: for seat i of kind `kinds[i]`, ticket type `types[i]`.
/// BAD_USER_INPUT naming the rule when a type is refused for the showtime, or naming the seat
/// when the matrix has no price for it (the caller tells an unknown type from an unsold one).
pub fn seat_prices(
    matrix: &[PriceEntry],
    rules: &[TicketRule],
    channel: &str,
    seats: &[(String, SeatKind)],
    types: &[TicketType],
) -> Result<Vec<i64>, Unpriced> {
    seat_prices_unlocking(matrix, rules, channel, seats, types, None)
}

/// [`seat_prices`], with the showtime's rules waived for ticket type `unlocked` (a voucher
/// unlocks it): it costs the matrix's price for it, and still needs one.
pub fn seat_prices_unlocking(
    matrix: &[PriceEntry],
    rules: &[TicketRule],
    channel: &str,
    seats: &[(String, SeatKind)],
    types: &[TicketType],
    unlocked: Option<&TicketType>,
) -> Result<Vec<i64>, Unpriced> {
    seats
        .iter()
        .zip(types)
        .map(|((label, kind), ticket_type)| {
            let refused = rules
                .iter()
                .filter(|_| unlocked != Some(ticket_type))
                .find(|rule| &rule.ticket_type == ticket_type);
            if let Some(rule) = refused {
                return Err(Unpriced::Refused(rule.clone()));
            }
            price_of(matrix, channel, *kind, ticket_type).ok_or_else(|| Unpriced::NotSold {
                seat: label.clone(),
                kind: *kind,
                ticket_type: ticket_type.clone(),
            })
        })
        .collect()
}

/// Why a seat has no price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpriced {
    /// A rule of the showtime refuses the type.
    Refused(TicketRule),
    /// The matrix has no price for the seat's kind and type on the channel.
    NotSold {
        seat: String,
        kind: SeatKind,
        ticket_type: TicketType,
    },
}

impl Unpriced {
    /// BAD_USER_INPUT saying why; `known` tells whether the type exists at all.
    pub fn into_error(self, known: bool) -> ApiError {
        match self {
            Unpriced::Refused(rule) => ApiError::bad_input(format!(
                "{} tickets are not sold for this showtime: {}",
                rule.ticket_type, rule.rule
            )),
            Unpriced::NotSold { ticket_type, .. } if !known => {
                ApiError::bad_input(format!("unknown ticket type {ticket_type}"))
            }
            Unpriced::NotSold {
                seat,
                kind,
                ticket_type,
            } => ApiError::bad_input(format!(
                "seat {seat} ({kind:?}) has no {ticket_type} price on this channel"
            )),
        }
    }

    pub fn ticket_type(&self) -> &TicketType {
        match self {
            Unpriced::Refused(rule) => &rule.ticket_type,
            Unpriced::NotSold { ticket_type, .. } => ticket_type,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::pricing::examples::{entry, t};
    use SeatKind::*;

    #[test]
    fn seats_are_priced_by_kind_and_type_and_refused_types_name_their_rule() {
        let matrix = [
            entry("maoyan", None, "ADULT", 4500),
            entry("maoyan", Some(Vip), "ADULT", 8000),
            entry("maoyan", None, "CHILD", 2500),
        ];
        let seats = [("A1".to_owned(), Standard), ("A2".to_owned(), Vip)];
        let prices = seat_prices(&matrix, &[], "maoyan", &seats, &[t("ADULT"), t("ADULT")]);
        assert_eq!(prices, Ok(vec![4500, 8000]));
        let prices = seat_prices(&matrix, &[], "maoyan", &seats, &[t("CHILD"), t("ADULT")]);
        assert_eq!(prices, Ok(vec![2500, 8000]));
        let rule = TicketRule {
            ticket_type: t("CHILD"),
            rule: "no children's tickets after 21:00".into(),
        };
        let refused = seat_prices(
            &matrix,
            std::slice::from_ref(&rule),
            "maoyan",
            &seats,
            &[t("CHILD"), t("ADULT")],
        );
        let error = refused.unwrap_err().into_error(true).to_string();
        assert!(error.contains("after 21:00"), "{error}");
        // A voucher that unlocks CHILD waives the rule for CHILD only.
        let types = [t("CHILD"), t("ADULT")];
        let rules = [rule];
        let unlocked =
            seat_prices_unlocking(&matrix, &rules, "maoyan", &seats, &types, Some(&t("CHILD")));
        assert_eq!(unlocked, Ok(vec![2500, 8000]));
        let other =
            seat_prices_unlocking(&matrix, &rules, "maoyan", &seats, &types, Some(&t("ADULT")));
        assert!(other.is_err());
        let unsold = seat_prices(&matrix, &[], "maoyan", &seats, &[t("SENIOR"), t("ADULT")]);
        let unsold = unsold.unwrap_err();
        assert!(unsold.clone().into_error(true).to_string().contains("A1"));
        assert!(unsold
            .into_error(false)
            .to_string()
            .contains("unknown ticket type SENIOR"));
    }

    #[test]
    fn rules_need_known_types_once_and_readable_text() {
        let known = |ty: &TicketType| ty.is_built_in();
        let rule = |ty: &str, text: &str| TicketRule {
            ticket_type: t(ty),
            rule: text.into(),
        };
        validate_rules(&[rule("CHILD", "after 21:00")], known).unwrap();
        assert!(validate_rules(&[rule("MEMBER", "x")], known).is_err());
        assert!(validate_rules(&[rule("CHILD", "x"), rule("CHILD", "y")], known).is_err());
        assert!(validate_rules(&[rule("CHILD", " ")], known).is_err());
    }
}
