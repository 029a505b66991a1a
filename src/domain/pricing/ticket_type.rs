//! Ticket types: a type's code, and the type of each seat a request asks for.

use std::fmt;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::domain::list_caps::MAX_SEATS_PER_HOLD;
use crate::error::ApiError;

/// A ticket type's code: `ADULT`, `CHILD`, `STUDENT`, `SENIOR`, or a type an operator defined
/// (`MEMBER`): an upper-case letter, then up to 31 upper-case letters, digits or underscores.
///
/// Held inline (a code is at most 32 bytes, and mostly under 24, which `CompactString` keeps
/// without allocating): a showtime's price matrix holds one per entry, and reading a page of
/// showtimes allocated two strings per entry before.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TicketType(CompactString);

/// The ticket types every showtime may price without defining them.
pub const BUILT_IN_TICKET_TYPES: [&str; 4] = ["ADULT", "CHILD", "STUDENT", "SENIOR"];

/// The longest ticket type code.
const MAX_CODE_CHARS: usize = 32;

impl TicketType {
    /// Parses a code, BAD_USER_INPUT naming `argument` when malformed.
    pub fn parse(argument: &str, code: &str) -> Result<Self, ApiError> {
        let mut chars = code.chars();
        let well_formed = chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && code.len() <= MAX_CODE_CHARS;
        if !well_formed {
            return Err(ApiError::bad_input(format!(
                "{argument}: {code:?} is not a ticket type code (an upper-case letter, then up \
                 to {} upper-case letters, digits or underscores)",
                MAX_CODE_CHARS - 1
            )));
        }
        Ok(TicketType(CompactString::new(code)))
    }

    /// ADULT: the type of a price or a seat that names none.
    pub fn adult() -> Self {
        TicketType(CompactString::const_new("ADULT"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether every showtime knows it without an operator defining it.
    pub fn is_built_in(&self) -> bool {
        BUILT_IN_TICKET_TYPES.contains(&self.0.as_str())
    }
}

impl Default for TicketType {
    fn default() -> Self {
        TicketType::adult()
    }
}

impl fmt::Display for TicketType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// [`ticket_types_for`] from the arguments as sent: `ticketType` (one code for every seat) and
/// `ticketTypes` (one code per seat), each code checked.
pub fn ticket_types_from_codes(
    count: usize,
    for_all: Option<&str>,
    per_seat: Option<&[String]>,
) -> Result<Vec<TicketType>, ApiError> {
    // The list's length first: no code of a list of the wrong length is parsed.
    if let Some(codes) = per_seat {
        check_length(codes.len(), count)?;
    }
    let for_all = for_all
        .map(|code| TicketType::parse("ticketType", code))
        .transpose()?;
    let per_seat = per_seat
        .map(|codes| {
            codes
                .iter()
                .map(|code| TicketType::parse("ticketTypes", code))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    ticket_types_for(count, for_all, per_seat)
}

/// The ticket type of each of `count` seats: `per_seat` (exactly one per seat) or `for_all`
/// (ADULT when neither is given). BAD_USER_INPUT when both are given or the list is the wrong
/// length, or `count` is over [`MAX_SEATS_PER_HOLD`] (the callers check their own, lower, cap
/// first; this one keeps the vector below from ever being sized by an unchecked count).
pub fn ticket_types_for(
    count: usize,
    for_all: Option<TicketType>,
    per_seat: Option<Vec<TicketType>>,
) -> Result<Vec<TicketType>, ApiError> {
    if count > MAX_SEATS_PER_HOLD {
        return Err(ApiError::bad_input(format!(
            "a hold takes at most {MAX_SEATS_PER_HOLD} seats, not {count}"
        )));
    }
    match (for_all, per_seat) {
        (Some(_), Some(_)) => Err(ApiError::bad_input(
            "give `ticketType` (one for every seat) or `ticketTypes` (one per seat), not both",
        )),
        (None, Some(types)) => {
            check_length(types.len(), count)?;
            Ok(types)
        }
        (for_all, None) => Ok(vec![for_all.unwrap_or_default(); count]),
    }
}

fn check_length(types: usize, count: usize) -> Result<(), ApiError> {
    if types != count {
        return Err(ApiError::bad_input(format!(
            "`ticketTypes` has {types} types for {count} seats: give one per seat"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::pricing::examples::t;

    #[test]
    fn ticket_type_codes_are_upper_case_words() {
        for good in ["ADULT", "MEMBER_2", "A"] {
            assert_eq!(t(good).as_str(), good);
        }
        for bad in ["", "adult", "2X", "A-B", "A B", &"A".repeat(33), "ÄDULT"] {
            assert!(TicketType::parse("t", bad).is_err(), "{bad:?}");
        }
        assert!(t("SENIOR").is_built_in());
        assert!(!t("MEMBER").is_built_in());
    }

    #[test]
    fn ticket_types_are_one_for_all_or_one_per_seat() {
        assert_eq!(
            ticket_types_for(2, None, None).unwrap(),
            [t("ADULT"), t("ADULT")]
        );
        assert_eq!(
            ticket_types_for(2, Some(t("CHILD")), None).unwrap(),
            [t("CHILD"), t("CHILD")]
        );
        assert_eq!(
            ticket_types_for(2, None, Some(vec![t("CHILD"), t("ADULT")])).unwrap(),
            [t("CHILD"), t("ADULT")]
        );
        assert!(ticket_types_for(2, None, Some(vec![t("CHILD")])).is_err());
        assert!(ticket_types_for(1, Some(t("CHILD")), Some(vec![t("CHILD")])).is_err());
    }
}
