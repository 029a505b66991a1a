//! The waiting list's rules: what a party may ask for. Pure.

use crate::domain::seat::SeatKind;
use crate::error::ApiError;

/// What a waiting party needs: how many seats, of which kind, and whether side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Party {
    pub size: usize,
    pub kind: SeatKind,
    pub together: bool,
}

impl Party {
    /// BAD_USER_INPUT for a size out of 1 to `max_seats` (the most one hold takes), or couple
    /// seats for an odd party or one that need not sit together (they are sold in pairs).
    pub fn checked(
        size: i64,
        kind: SeatKind,
        together: bool,
        max_seats: usize,
    ) -> Result<Self, ApiError> {
        let size = usize::try_from(size)
            .ok()
            .filter(|size| (1..=max_seats).contains(size))
            .ok_or_else(|| {
                ApiError::bad_input(format!("partySize is 1 to {max_seats}, not {size}"))
            })?;
        if kind == SeatKind::Couple && (!together || !size.is_multiple_of(2)) {
            return Err(ApiError::bad_input(
                "couple seats are sold in pairs: a party of them is even and sits together",
            ));
        }
        Ok(Party {
            size,
            kind,
            together,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_party_is_checked_against_the_hold_cap_and_couple_pairs() {
        assert!(Party::checked(2, SeatKind::Standard, false, 6).is_ok());
        assert!(Party::checked(0, SeatKind::Standard, true, 6).is_err());
        assert!(Party::checked(7, SeatKind::Standard, true, 6).is_err());
        assert!(Party::checked(-1, SeatKind::Standard, true, 6).is_err());
        assert!(Party::checked(2, SeatKind::Couple, true, 6).is_ok());
        assert!(Party::checked(3, SeatKind::Couple, true, 6).is_err());
        assert!(Party::checked(2, SeatKind::Couple, false, 6).is_err());
    }
}
