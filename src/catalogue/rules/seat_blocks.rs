//! Blocking seats (broken seats, staff seats): which labels a request may name, and what a
//! block or unblock that did not match tells its caller. Only AVAILABLE seats are blocked and
//! only BLOCKED ones unblocked: a held or sold seat belongs to a customer.

use std::collections::HashSet;

use crate::domain::layout::parse_seat_label;
pub use crate::domain::seat::BlockMove;
use crate::domain::seat::SeatState;
use crate::error::ApiError;

/// The most seats one block or unblock names (a few rows of a large hall): the update names
/// each seat twice, and a bounded request keeps it small.
pub const MAX_SEATS_PER_BLOCK: usize = 200;

/// BAD_USER_INPUT unless `labels` are 1 to [`MAX_SEATS_PER_BLOCK`] well-formed seat labels,
/// none named twice.
pub fn validate_labels(labels: &[String]) -> Result<(), ApiError> {
    if labels.is_empty() {
        return Err(ApiError::bad_input("name at least one seat"));
    }
    if labels.len() > MAX_SEATS_PER_BLOCK {
        return Err(ApiError::bad_input(format!(
            "{} seats named: at most {MAX_SEATS_PER_BLOCK} per request",
            labels.len()
        )));
    }
    let mut seen = HashSet::new();
    for label in labels {
        parse_seat_label(label)?;
        if !seen.insert(label.as_str()) {
            return Err(ApiError::bad_input(format!("seat {label} is named twice")));
        }
    }
    Ok(())
}

/// Why a move of seats whose states are `found` (None: no such seat in the hall) cannot be
/// made; None when every seat is in the state the move starts from (the update lost a race
/// with a change that has since been undone: try again).
/// - a seat not in the hall: BAD_USER_INPUT naming it;
/// - blocking a HELD or SOLD seat: SEAT_UNAVAILABLE naming those seats;
/// - blocking a seat BLOCKED already, unblocking one that is not BLOCKED: BAD_USER_INPUT naming
///   them with their states.
pub fn refusal(direction: BlockMove, found: &[(String, Option<SeatState>)]) -> Option<ApiError> {
    let unknown: Vec<&str> = found
        .iter()
        .filter(|(_, state)| state.is_none())
        .map(|(label, _)| label.as_str())
        .collect();
    if !unknown.is_empty() {
        return Some(ApiError::bad_input(format!(
            "{} not a seat of this hall",
            listed(&unknown, "is", "are")
        )));
    }
    let wrong = |keep: &dyn Fn(SeatState) -> bool| -> Vec<(String, SeatState)> {
        found
            .iter()
            .filter_map(|(label, state)| state.map(|s| (label.clone(), s)))
            .filter(|(_, state)| keep(*state))
            .collect()
    };
    let with_states = |seats: &[(String, SeatState)]| -> String {
        seats
            .iter()
            .map(|(label, state)| format!("{label} ({state:?})").to_uppercase())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match direction {
        BlockMove::Block => {
            let taken = wrong(&|s| matches!(s, SeatState::Held | SeatState::Sold));
            if !taken.is_empty() {
                return Some(ApiError::SeatUnavailable {
                    message: format!(
                        "seats {} are held or sold: only AVAILABLE seats can be blocked",
                        with_states(&taken)
                    ),
                    seats: taken.into_iter().map(|(label, _)| label).collect(),
                });
            }
            let blocked = wrong(&|s| s == SeatState::Blocked);
            if !blocked.is_empty() {
                let labels: Vec<&str> = blocked.iter().map(|(l, _)| l.as_str()).collect();
                return Some(ApiError::bad_input(format!(
                    "{} blocked already",
                    listed(&labels, "is", "are")
                )));
            }
            None
        }
        BlockMove::Unblock => {
            let unblocked = wrong(&|s| s != SeatState::Blocked);
            if unblocked.is_empty() {
                return None;
            }
            Some(ApiError::bad_input(format!(
                "seats {} are not blocked: only BLOCKED seats can be unblocked",
                with_states(&unblocked)
            )))
        }
    }
}

/// "seat D7 is" / "seats D7, D8 are".
fn listed(labels: &[&str], one: &str, many: &str) -> String {
    match labels {
        [label] => format!("seat {label} {one}"),
        _ => format!("seats {} {many}", labels.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn labels(labels: &[&str]) -> Vec<String> {
        labels.iter().map(|l| l.to_string()).collect()
    }

    fn found(seats: &[(&str, Option<SeatState>)]) -> Vec<(String, Option<SeatState>)> {
        seats.iter().map(|(l, s)| (l.to_string(), *s)).collect()
    }

    #[test]
    fn a_request_names_one_to_the_cap_of_distinct_well_formed_seats() {
        assert!(validate_labels(&labels(&["A1", "B12"])).is_ok());
        let message = |l: &[&str]| validate_labels(&labels(l)).unwrap_err().client_message();
        assert!(message(&[]).contains("at least one"));
        assert!(message(&["A1", "A1"]).contains("A1 is named twice"));
        assert!(message(&["a1"]).contains("not a seat label"));
        assert!(message(&["A0"]).contains("not a seat label"));
        let many: Vec<String> = (1..=MAX_SEATS_PER_BLOCK + 1)
            .map(|n| format!("A{n}"))
            .collect();
        let error = validate_labels(&many).unwrap_err();
        assert!(error.client_message().contains("at most 200"));
        assert!(validate_labels(&many[..MAX_SEATS_PER_BLOCK]).is_ok());
    }

    #[test]
    fn blocking_names_held_and_sold_seats_and_refuses_unknown_or_blocked_ones() {
        use SeatState::*;
        let taken = refusal(
            BlockMove::Block,
            &found(&[
                ("A1", Some(Available)),
                ("A2", Some(Held)),
                ("A3", Some(Sold)),
            ]),
        )
        .unwrap();
        assert_eq!(taken.code(), ErrorCode::SeatUnavailable);
        assert_eq!(taken.seats(), ["A2", "A3"]);
        assert!(taken.client_message().contains("A2 (HELD), A3 (SOLD)"));
        let unknown = refusal(
            BlockMove::Block,
            &found(&[("Z9", None), ("A2", Some(Held))]),
        );
        let unknown = unknown.unwrap();
        assert_eq!(unknown.code(), ErrorCode::BadUserInput);
        assert!(unknown
            .client_message()
            .contains("seat Z9 is not a seat of this hall"));
        let blocked = refusal(BlockMove::Block, &found(&[("A1", Some(Blocked))])).unwrap();
        assert!(blocked
            .client_message()
            .contains("seat A1 is blocked already"));
        assert!(refusal(BlockMove::Block, &found(&[("A1", Some(Available))])).is_none());
    }

    #[test]
    fn unblocking_refuses_seats_that_are_not_blocked_with_their_states() {
        use SeatState::*;
        let error = refusal(
            BlockMove::Unblock,
            &found(&[("A1", Some(Blocked)), ("A2", Some(Available))]),
        )
        .unwrap();
        assert_eq!(error.code(), ErrorCode::BadUserInput);
        assert!(error
            .client_message()
            .contains("A2 (AVAILABLE) are not blocked"));
        assert!(refusal(BlockMove::Unblock, &found(&[("A1", Some(Blocked))])).is_none());
        assert_eq!(
            (BlockMove::Block.from(), BlockMove::Block.to()),
            (Available, Blocked)
        );
    }
}
