//! Seats: their kinds, their states and the per-state counts of a showtime.

use serde::{Deserialize, Serialize};

/// What a seat position is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SeatKind {
    Standard,
    Vip,
    Wheelchair,
    /// One half of a two-person love seat.
    Couple,
}

/// Where a seat of one showtime is in the state machine
/// (AVAILABLE → HELD → SOLD, HELD → AVAILABLE, SOLD → AVAILABLE; BLOCKED is never for sale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SeatState {
    Available,
    Held,
    Sold,
    Blocked,
}

/// Read from its name as a plain string, not through serde's enum access: an inventory of 900
/// seats holds 1,800 of these, and the BSON decoder's enum path cost several hundred
/// instructions each. The names are those `Serialize` writes.
macro_rules! deserialize_by_name {
    ($name:ident, $expecting:literal, $($text:literal => $variant:ident),+) => {
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct ByName;
                impl serde::de::Visitor<'_> for ByName {
                    type Value = $name;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($expecting)
                    }

                    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<$name, E> {
                        match name {
                            $($text => Ok($name::$variant),)+
                            _ => Err(E::unknown_variant(name, &[$($text),+])),
                        }
                    }
                }
                deserializer.deserialize_str(ByName)
            }
        }
    };
}

deserialize_by_name!(SeatKind, "a seat kind",
    "STANDARD" => Standard, "VIP" => Vip, "WHEELCHAIR" => Wheelchair, "COUPLE" => Couple);
deserialize_by_name!(SeatState, "a seat state",
    "AVAILABLE" => Available, "HELD" => Held, "SOLD" => Sold, "BLOCKED" => Blocked);

impl SeatKind {
    /// The kind's letter in a compact seat map: `s`, `v`, `w`, `c` (`_` is no seat).
    pub fn letter(self) -> char {
        match self {
            SeatKind::Standard => 's',
            SeatKind::Vip => 'v',
            SeatKind::Wheelchair => 'w',
            SeatKind::Couple => 'c',
        }
    }
}

impl SeatState {
    /// The state's letter in a compact seat map: `a`, `h`, `s`, `b` (`_` is no seat).
    pub fn letter(self) -> char {
        match self {
            SeatState::Available => 'a',
            SeatState::Held => 'h',
            SeatState::Sold => 's',
            SeatState::Blocked => 'b',
        }
    }
}

/// How many seats of a showtime are in each state (kept exact in the same update as the seats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCounts {
    pub available: u32,
    pub held: u32,
    pub sold: u32,
    pub blocked: u32,
}

impl SeatCounts {
    /// All seats in one state: a fresh showtime has every seat available.
    pub fn all_available(capacity: u32) -> Self {
        SeatCounts {
            available: capacity,
            ..SeatCounts::default()
        }
    }

    /// Counts seats by state.
    pub fn tally(states: impl IntoIterator<Item = SeatState>) -> Self {
        let mut counts = SeatCounts::default();
        for state in states {
            match state {
                SeatState::Available => counts.available += 1,
                SeatState::Held => counts.held += 1,
                SeatState::Sold => counts.sold += 1,
                SeatState::Blocked => counts.blocked += 1,
            }
        }
        counts
    }

    /// available + held + sold + blocked: equals the hall's capacity (invariant 5).
    pub fn total(&self) -> u32 {
        self.available + self.held + self.sold + self.blocked
    }
}

/// Which way a block or an unblock moves seats (only AVAILABLE seats are blocked, only
/// BLOCKED ones unblocked: a held or sold seat belongs to a customer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockMove {
    /// AVAILABLE → BLOCKED.
    Block,
    /// BLOCKED → AVAILABLE.
    Unblock,
}

impl BlockMove {
    /// The state every named seat must be in.
    pub fn from(self) -> SeatState {
        match self {
            BlockMove::Block => SeatState::Available,
            BlockMove::Unblock => SeatState::Blocked,
        }
    }

    /// The state they end in.
    pub fn to(self) -> SeatState {
        match self {
            BlockMove::Block => SeatState::Blocked,
            BlockMove::Unblock => SeatState::Available,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value reads back from the name it is written with.
    fn read_back<T>(values: &[T])
    where
        T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        for value in values {
            let text = serde_json::to_string(value).unwrap();
            assert_eq!(&serde_json::from_str::<T>(&text).unwrap(), value, "{text}");
        }
    }

    #[test]
    fn kinds_and_states_read_back_the_names_they_are_written_with() {
        use SeatKind::*;
        use SeatState::*;
        read_back(&[Standard, Vip, Wheelchair, Couple]);
        read_back(&[Available, Held, Sold, Blocked]);
        let error = serde_json::from_str::<SeatState>("\"RESERVED\"").unwrap_err();
        assert!(
            error.to_string().contains("unknown variant `RESERVED`"),
            "{error}"
        );
        assert!(serde_json::from_str::<SeatKind>("3").is_err());
    }

    #[test]
    fn compact_letters_tell_every_kind_and_state_apart_from_each_other_and_from_a_gap() {
        use std::collections::HashSet;
        let kinds = [
            SeatKind::Standard,
            SeatKind::Vip,
            SeatKind::Wheelchair,
            SeatKind::Couple,
        ];
        let states = [
            SeatState::Available,
            SeatState::Held,
            SeatState::Sold,
            SeatState::Blocked,
        ];
        let kind_letters: HashSet<char> = kinds.iter().map(|k| k.letter()).collect();
        let state_letters: HashSet<char> = states.iter().map(|s| s.letter()).collect();
        assert_eq!((kind_letters.len(), state_letters.len()), (4, 4));
        assert!(!kind_letters.contains(&'_') && !state_letters.contains(&'_'));
    }

    #[test]
    fn tally_adds_up_to_the_number_of_seats() {
        use SeatState::*;
        let counts = SeatCounts::tally([Available, Held, Sold, Sold, Blocked, Available]);
        assert_eq!(
            counts,
            SeatCounts {
                available: 2,
                held: 1,
                sold: 2,
                blocked: 1
            }
        );
        assert_eq!(counts.total(), 6);
        assert_eq!(SeatCounts::all_available(7).total(), 7);
    }

    #[test]
    fn states_and_kinds_serialize_as_screaming_snake_case() {
        assert_eq!(
            serde_json::to_string(&SeatState::Available).unwrap(),
            "\"AVAILABLE\""
        );
        assert_eq!(
            serde_json::to_string(&SeatKind::Wheelchair).unwrap(),
            "\"WHEELCHAIR\""
        );
    }
}
