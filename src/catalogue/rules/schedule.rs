//! The rules of a hall's schedule and of a showtime's prices: when a showtime may start, how
//! long it keeps its hall busy, which prices it may have. Pure: the store and the use cases
//! apply them.

use std::collections::HashSet;

use chrono::{DateTime, TimeDelta, Timelike, Utc};

use crate::domain::list_caps::{MAX_CHANNEL_PRICES, MAX_PRICE_ENTRIES};
use crate::domain::pricing::PriceEntry;
use crate::error::ApiError;

/// How far ahead a showtime may be scheduled.
pub const HORIZON: TimeDelta = TimeDelta::days(90);

/// The longest a showtime may keep its hall busy (runtime plus cleaning). The overlap check
/// looks for earlier showtimes only this far back, so no showtime may be longer.
pub const MAX_BUSY: TimeDelta = TimeDelta::hours(24);

/// The cleaning gap that applied to showtimes written before the gap was stored with them
/// (schema version 1): the demo's shortest gap and the documented default.
pub const V1_CLEANING_GAP: TimeDelta = TimeDelta::minutes(15);

/// The highest price of a seat, in minor units (10,000 CNY).
pub const MAX_PRICE: i64 = 1_000_000;

/// The only currency showtimes are sold in.
pub const CURRENCY: &str = "CNY";

/// The time a hall is busy with one showtime: from its start until it is clean again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub starts_at: DateTime<Utc>,
    /// The end of the film plus the cleaning gap: the next showtime may start then.
    pub free_at: DateTime<Utc>,
}

impl Slot {
    /// Whether the two keep the hall busy at some common instant (half-open intervals: a
    /// showtime may start exactly when the hall is free again).
    pub fn overlaps(&self, other: &Slot) -> bool {
        self.starts_at < other.free_at && other.starts_at < self.free_at
    }
}

/// BAD_USER_INPUT unless `starts_at` is after `now`, within [`HORIZON`], and on a whole minute.
pub fn validate_start(starts_at: DateTime<Utc>, now: DateTime<Utc>) -> Result<(), ApiError> {
    if starts_at.second() != 0 || starts_at.nanosecond() != 0 {
        return Err(ApiError::bad_input(format!(
            "startsAt {} is not on a whole minute",
            starts_at.to_rfc3339()
        )));
    }
    if starts_at <= now {
        return Err(ApiError::bad_input(format!(
            "startsAt {} is not in the future",
            starts_at.to_rfc3339()
        )));
    }
    if starts_at > now + HORIZON {
        return Err(ApiError::bad_input(format!(
            "startsAt {} is more than {} days ahead",
            starts_at.to_rfc3339(),
            HORIZON.num_days()
        )));
    }
    Ok(())
}

/// The hall's busy time for a film of `runtime_minutes` starting at `starts_at` with
/// `cleaning_gap` after it; BAD_USER_INPUT when it is longer than [`MAX_BUSY`] or the runtime
/// is not positive.
pub fn slot(
    starts_at: DateTime<Utc>,
    runtime_minutes: i32,
    cleaning_gap: TimeDelta,
) -> Result<(DateTime<Utc>, Slot), ApiError> {
    let runtime = TimeDelta::minutes(i64::from(runtime_minutes));
    if runtime_minutes <= 0 || runtime + cleaning_gap > MAX_BUSY {
        return Err(ApiError::bad_input(format!(
            "a runtime of {runtime_minutes} minutes plus {} minutes of cleaning cannot be scheduled (at most {} hours in all)",
            cleaning_gap.num_minutes(),
            MAX_BUSY.num_hours()
        )));
    }
    let ends_at = starts_at + runtime;
    Ok((
        ends_at,
        Slot {
            starts_at,
            free_at: ends_at + cleaning_gap,
        },
    ))
}

/// BAD_USER_INPUT unless the language is named.
pub fn validate_language(language: &str) -> Result<String, ApiError> {
    let language = language.trim();
    if language.is_empty() || language.chars().count() > 40 {
        return Err(ApiError::bad_input("language must be 1 to 40 characters"));
    }
    Ok(language.to_owned())
}

/// Checks a price matrix's entries, each with its currency: at least one, at most
/// [`MAX_PRICE_ENTRIES`] over at most [`MAX_CHANNEL_PRICES`] channels, one amount per channel,
/// seat kind and ticket type, every amount 1 to [`MAX_PRICE`] fen in CNY. (Whether the hall has
/// a named kind and a ticket type exists is checked against the database:
/// `pricing::validate_matrix`.)
pub fn validate_prices(prices: &[(PriceEntry, String)]) -> Result<(), ApiError> {
    if prices.is_empty() {
        return Err(ApiError::bad_input(
            "a showtime needs a price on at least one channel",
        ));
    }
    if prices.len() > MAX_PRICE_ENTRIES {
        return Err(ApiError::bad_input(format!(
            "a showtime has at most {MAX_PRICE_ENTRIES} prices, not {}",
            prices.len()
        )));
    }
    let channels: HashSet<&str> = prices.iter().map(|(p, _)| p.channel.as_str()).collect();
    if channels.len() > MAX_CHANNEL_PRICES {
        return Err(ApiError::bad_input(format!(
            "a showtime is sold on at most {MAX_CHANNEL_PRICES} channels, not {}",
            channels.len()
        )));
    }
    let mut seen = HashSet::new();
    for (price, currency) in prices {
        let channel = &price.channel;
        if !seen.insert((channel.as_str(), price.seat_kind, &price.ticket_type)) {
            let kind = price
                .seat_kind
                .map_or_else(|| "every kind".to_owned(), |kind| format!("{kind:?}"));
            return Err(ApiError::bad_input(format!(
                "channel `{channel}` has more than one {} price for {kind}",
                price.ticket_type
            )));
        }
        if !(1..=MAX_PRICE).contains(&price.amount) {
            return Err(ApiError::bad_input(format!(
                "the price on channel `{channel}` must be 1 to {MAX_PRICE} fen, not {}",
                price.amount
            )));
        }
        if currency != CURRENCY {
            return Err(ApiError::bad_input(format!(
                "the price on channel `{channel}` is in {currency}: showtimes are sold in {CURRENCY}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;
    use crate::domain::pricing::TicketType;
    use crate::domain::seat::SeatKind;

    fn at(hour: u32, minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 5, 1, hour, minute, 0).unwrap()
    }

    fn message(result: Result<(), ApiError>) -> String {
        result.unwrap_err().client_message()
    }

    #[test]
    fn a_start_is_future_within_the_horizon_and_on_a_minute() {
        let now = at(10, 0);
        assert!(validate_start(at(10, 1), now).is_ok());
        assert!(message(validate_start(at(10, 0), now)).contains("not in the future"));
        assert!(message(validate_start(now + TimeDelta::days(91), now)).contains("90 days"));
        let odd = at(12, 0) + TimeDelta::seconds(30);
        assert!(message(validate_start(odd, now)).contains("whole minute"));
    }

    #[test]
    fn slots_touching_do_not_overlap() {
        let (ends, first) = slot(at(14, 0), 120, TimeDelta::minutes(15)).unwrap();
        assert_eq!(ends, at(16, 0));
        assert_eq!(first.free_at, at(16, 15));
        let (_, next) = slot(at(16, 15), 90, TimeDelta::minutes(15)).unwrap();
        assert!(!first.overlaps(&next) && !next.overlaps(&first));
        let (_, early) = slot(at(16, 14), 90, TimeDelta::minutes(15)).unwrap();
        assert!(first.overlaps(&early) && early.overlaps(&first));
        let (_, inside) = slot(at(14, 30), 10, TimeDelta::zero()).unwrap();
        assert!(first.overlaps(&inside) && inside.overlaps(&first));
    }

    #[test]
    fn a_slot_is_at_most_a_day() {
        assert!(slot(at(1, 0), 0, TimeDelta::zero()).is_err());
        assert!(slot(at(1, 0), 24 * 60 - 15, TimeDelta::minutes(15)).is_ok());
        assert!(slot(at(1, 0), 24 * 60, TimeDelta::minutes(15)).is_err());
    }

    #[test]
    fn prices_are_one_per_channel_kind_and_type_positive_and_bounded() {
        let entry = |c: &str, kind, ty: &str, a: i64| PriceEntry {
            channel: c.to_owned(),
            seat_kind: kind,
            ticket_type: TicketType::parse("t", ty).unwrap(),
            amount: a,
        };
        let price = |c: &str, a: i64| (entry(c, None, "ADULT", a), "CNY".to_owned());
        assert!(validate_prices(&[price("maoyan", 4500), price("taopiaopiao", 4200)]).is_ok());
        let matrix = [
            price("maoyan", 4500),
            (
                entry("maoyan", Some(SeatKind::Vip), "ADULT", 8000),
                "CNY".to_owned(),
            ),
            (entry("maoyan", None, "CHILD", 2500), "CNY".to_owned()),
        ];
        assert!(validate_prices(&matrix).is_ok());
        assert!(message(validate_prices(&[])).contains("at least one"));
        let twice = [price("maoyan", 4500), price("maoyan", 4000)];
        assert!(message(validate_prices(&twice)).contains("more than one ADULT price"));
        assert!(message(validate_prices(&[price("maoyan", 0)])).contains("1 to 1000000"));
        assert!(message(validate_prices(&[price("maoyan", MAX_PRICE + 1)])).contains("not"));
        let usd = [(entry("maoyan", None, "ADULT", 4500), "USD".to_owned())];
        assert!(message(validate_prices(&usd)).contains("sold in CNY"));
        let many: Vec<_> = (0..33).map(|i| price(&format!("c{i}"), 100)).collect();
        assert!(message(validate_prices(&many)).contains("at most 32 channels"));
        let types = [
            "ADULT", "CHILD", "STUDENT", "SENIOR", "M1", "M2", "M3", "M4", "M5",
        ];
        let crowded: Vec<_> = [None, Some(SeatKind::Vip), Some(SeatKind::Couple)]
            .into_iter()
            .flat_map(|kind| types.map(|ty| (entry("maoyan", kind, ty, 100), "CNY".to_owned())))
            .chain((0..40).map(|i| price(&format!("c{i}"), 100)))
            .collect();
        assert!(message(validate_prices(&crowded)).contains("at most 64 prices"));
    }

    #[test]
    fn a_language_is_named() {
        assert_eq!(validate_language(" 国语 ").unwrap(), "国语");
        assert!(validate_language("  ").is_err());
    }
}
