//! Newtype ids, one per kind of object, so a cinema id can never be passed where a movie id is
//! expected. Each wraps the 12 raw bytes of a MongoDB ObjectId without depending on MongoDB.

use std::fmt;

use crate::error::ApiError;

macro_rules! object_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub [u8; 12]);

        /// `ShowtimeId(c07537dbbb563ce3471f2d5a)`: the hex form, as logs and spans show it.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({self})", stringify!($name))
            }
        }

        impl $name {
            /// Parses the 24-character hexadecimal form.
            pub fn parse_hex(hex: &str) -> Result<Self, ApiError> {
                parse_hex12(hex).map($name).ok_or_else(|| {
                    ApiError::bad_input(format!(
                        "`{hex}` is not a valid {} id (24 hexadecimal digits)",
                        stringify!($name).trim_end_matches("Id")
                    ))
                })
            }

            pub fn bytes(self) -> [u8; 12] {
                self.0
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let hex = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                $name::parse_hex(&hex).map_err(serde::de::Error::custom)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(hex24(&self.0, &mut [0; 24]))
            }
        }
    };
}

object_id!(
    /// A cinema.
    CinemaId
);
object_id!(
    /// A hall (screening room) of a cinema; stored in `theaters`.
    HallId
);
object_id!(
    /// A movie; its details and reviews share the id.
    MovieId
);
object_id!(
    /// A review of a movie.
    ReviewId
);
object_id!(
    /// A showtime; its seat inventory document shares the id.
    ShowtimeId
);
object_id!(
    /// A hold of seats, kept in its showtime's inventory.
    HoldId
);
object_id!(
    /// An order: a confirmed hold.
    OrderId
);
object_id!(
    /// A region of the country: a province, a city or a district.
    RegionId
);
object_id!(
    /// A channel event as its change made it (one per change; an event told to several
    /// channels is one entry in each of their logs).
    EventId
);
object_id!(
    /// A channel's webhook endpoint.
    WebhookId
);
object_id!(
    /// One mark or unmark of a want-to-see list: written on both sides, so a write assumes
    /// the attempt it belongs to.
    MarkId
);
object_id!(
    /// A batch of voucher codes an operator made.
    VoucherBatchId
);
object_id!(
    /// A party's place on a showtime's waiting list.
    WaitingEntryId
);
object_id!(
    /// A product a cinema sells beside seats (a popcorn combo, a drink).
    ProductId
);
object_id!(
    /// One of the redemptions a voucher allows (a slot, numbered below its cap): reserved by
    /// a hold, redeemed by its order, or free.
    RedemptionId
);
object_id!(
    /// What an idempotency key's operation creates or stamps (a hold, an order, a
    /// cancellation, a release), the same for every attempt at the key.
    ResourceId
);

/// The 24 lowercase hex digits of an id, written into `out`. A table, not `{:02x}` per byte:
/// a page of 100 showtimes formats a few hundred ids, and the formatter spent ~250
/// instructions on each byte.
fn hex24<'a>(bytes: &[u8; 12], out: &'a mut [u8; 24]) -> &'a str {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (pair, byte) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0x0f)];
    }
    std::str::from_utf8(out).expect("hex digits are ASCII")
}

fn parse_hex12(hex: &str) -> Option<[u8; 12]> {
    if hex.len() != 24 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 12];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_the_hex_form() {
        let id = HoldId([0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0xff]);
        assert_eq!(format!("{id:?}"), "HoldId(ab0102030405060708090aff)");
    }

    #[test]
    fn hex_round_trips() {
        let id = CinemaId([0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0xff]);
        let hex = id.to_string();
        assert_eq!(hex, "ab0102030405060708090aff");
        assert_eq!(CinemaId::parse_hex(&hex).unwrap(), id);
    }

    #[test]
    fn rejects_malformed_hex() {
        for bad in [
            "",
            "abc",
            "zz0102030405060708090aff",
            "ab0102030405060708090aff00",
            "é1234567890123456789012",
        ] {
            let error = MovieId::parse_hex(bad).unwrap_err();
            assert!(
                error.to_string().contains("not a valid Movie id"),
                "{error}"
            );
        }
    }
}
