//! Finding seats across showtimes: "two seats together for this film, tonight, near me".
//!
//! A search looks at the cinemas of an area (the [`SEARCH_CINEMAS`] nearest a point, or at most
//! [`REGION_CINEMAS`] of a region), at the first [`SEARCH_SHOWTIMES`] of their showtimes in the
//! window (earliest first), and in each of those at the best block of adjacent seats for the
//! party, by the same rules as best-available holds (`best_seats`). Each showtime with such a
//! block is an option, scored by [`Score`]; options are listed best (lowest) score first.
//!
//! Pure: the bounds, the validation of a search and the score. `seat_search::search` reads.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::best_seats::BestBlock;
use crate::domain::cursor::{self, Cursor};
use crate::domain::geo::GeoPoint;
use crate::domain::ids::{RegionId, ShowtimeId};
use crate::domain::seat::SeatKind;
use crate::error::ApiError;

/// The largest radius of a search near a point: a moviegoer travels across a city, not a
/// province.
pub const MAX_RADIUS_METERS: f64 = 50_000.0;
/// The longest window of start times a search looks at, and the window of a search that
/// gives no end.
pub const MAX_WINDOW_HOURS: i64 = 24;
/// The most people one option seats: the most seats one hold may take is the real cap, so a
/// search never offers what `holdSeats` would refuse (see [`validate_party`]).
pub const MAX_PARTY: usize = 10;
/// Cinemas a search near a point looks at: the nearest this many within the radius.
pub const SEARCH_CINEMAS: usize = 50;
/// Cinemas a search in a region may look at; a region with more is refused (search near a
/// point, or in a district, instead).
pub const REGION_CINEMAS: usize = 500;
/// Showtimes a search looks at: the earliest this many of the area's cinemas in the window
/// (of the movie, when one is asked); those the channel does not sell, or cancelled, are then
/// passed over. Each costs one seat map read (about 10 KiB), so this bounds the bytes a search
/// reads: about 1 MB on the national demo.
pub const SEARCH_SHOWTIMES: usize = 100;

/// A search's score points, in tenths of a point: one point is one seat off the hall's sweet
/// spot (a row off counts two, as `best_seats::ROW_WEIGHT` says).
pub const ORPHAN_TENTHS: u64 = 100;
/// Metres farther that cost one point.
pub const METERS_PER_POINT: u64 = 250;
/// Minutes later in the window that cost one point.
pub const MINUTES_PER_POINT: i64 = 6;

/// Where to look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SearchArea {
    /// Cinemas within `radius_meters` of `point`.
    Near { point: GeoPoint, radius_meters: f64 },
    /// Cinemas of a region (a province, city or district).
    Region(RegionId),
}

impl SearchArea {
    /// Exactly one of the two, checked: BAD_USER_INPUT otherwise.
    pub fn new(
        near: Option<(f64, f64, f64)>,
        region: Option<RegionId>,
    ) -> Result<SearchArea, ApiError> {
        match (near, region) {
            (Some((latitude, longitude, radius_meters)), None) => {
                let point = GeoPoint::new(latitude, longitude)?;
                if !(radius_meters.is_finite()
                    && radius_meters > 0.0
                    && radius_meters <= MAX_RADIUS_METERS)
                {
                    return Err(ApiError::bad_input(format!(
                        "radiusMeters {radius_meters} must be greater than 0 and at most \
                         {MAX_RADIUS_METERS}"
                    )));
                }
                Ok(SearchArea::Near {
                    point,
                    radius_meters,
                })
            }
            (None, Some(region)) => Ok(SearchArea::Region(region)),
            _ => Err(ApiError::bad_input(
                "give `near` (a point and a radius) or `regionId`, exactly one",
            )),
        }
    }
}

/// The start times a search looks at: `[from, before)`, `from` not before now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchWindow {
    pub from: DateTime<Utc>,
    pub before: DateTime<Utc>,
}

impl SearchWindow {
    /// From `from` (now when absent or past: a started showtime sells no seats) to `before`
    /// ([`MAX_WINDOW_HOURS`] after `from` when absent), at most [`MAX_WINDOW_HOURS`] long and
    /// ending after now; BAD_USER_INPUT otherwise.
    pub fn new(
        from: Option<DateTime<Utc>>,
        before: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<SearchWindow, ApiError> {
        let asked_from = from.unwrap_or(now);
        let before = match before {
            Some(before) => before,
            None => asked_from
                .checked_add_signed(Duration::hours(MAX_WINDOW_HOURS))
                .ok_or_else(|| ApiError::bad_input("startsFrom is too late"))?,
        };
        if before <= asked_from {
            return Err(ApiError::bad_input(format!(
                "startsBefore ({before}) must be later than startsFrom ({asked_from})"
            )));
        }
        if before - asked_from > Duration::hours(MAX_WINDOW_HOURS) {
            return Err(ApiError::bad_input(format!(
                "the window from startsFrom to startsBefore is at most {MAX_WINDOW_HOURS} hours"
            )));
        }
        if before <= now {
            return Err(ApiError::bad_input(format!(
                "startsBefore ({before}) has passed: a search looks at showtimes to come"
            )));
        }
        Ok(SearchWindow {
            from: asked_from.max(now),
            before,
        })
    }
}

/// A party size: 1 to [`MAX_PARTY`], at most what one hold may take, and even for couple
/// seats (sold as whole love seats).
pub fn validate_party(size: i32, max_hold_seats: usize, kind: SeatKind) -> Result<usize, ApiError> {
    let cap = MAX_PARTY.min(max_hold_seats);
    match usize::try_from(size) {
        Ok(size) if kind == SeatKind::Couple && !size.is_multiple_of(2) => {
            Err(ApiError::bad_input(format!(
                "couple seats are sold in pairs: partySize {size} is odd"
            )))
        }
        Ok(size) if (1..=cap).contains(&size) => Ok(size),
        _ => Err(ApiError::bad_input(format!(
            "partySize is 1 to {cap}, not {size}"
        ))),
    }
}

/// An option's score, in tenths of a point; lower is better. The sum of:
/// - the seats: the block's weighted distance from its hall's sweet spot (`best_seats`), plus
///   [`ORPHAN_TENTHS`] for each single seat it leaves beside it;
/// - the distance: one point per [`METERS_PER_POINT`] from the searched point (none in a
///   region search);
/// - the start: one point per [`MINUTES_PER_POINT`] after the window opens.
///
/// So a seat one place nearer the centre is worth 250 m, or 6 minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Score(pub u64);

impl Score {
    pub fn of(
        block: &BestBlock,
        distance_meters: Option<f64>,
        starts_at: DateTime<Utc>,
        window: &SearchWindow,
    ) -> Score {
        let seats = block.distance_tenths + ORPHAN_TENTHS * block.orphans as u64;
        // Whole metres: the server's distance is a float; the score must be exact.
        let meters = distance_meters.map_or(0, |m| m.max(0.0).round() as u64);
        let distance = meters * 10 / METERS_PER_POINT;
        let minutes = (starts_at - window.from).num_minutes().max(0);
        let start = (minutes * 10 / MINUTES_PER_POINT) as u64;
        Score(seats + distance + start)
    }
}

/// Where an option stands in the list: by score, then start, then showtime id, so the order
/// is total and a page's cursor names the last option's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct OptionKey {
    pub score: u64,
    pub starts_at_millis: i64,
    pub showtime: ShowtimeId,
}

const CURSOR_KIND: &str = "findSeats";

impl OptionKey {
    pub fn cursor(&self) -> Cursor {
        Cursor::new(CURSOR_KIND, *self)
    }

    /// The key a cursor of this list names; BAD_USER_INPUT for any other cursor.
    pub fn from_cursor(cursor: &str) -> Result<OptionKey, ApiError> {
        cursor::decode(CURSOR_KIND, cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::layout::SeatPosition;
    use chrono::TimeZone;

    fn at(hour: u32, minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 26, hour, minute, 0).unwrap()
    }

    fn block(distance_tenths: u64, orphans: usize) -> BestBlock {
        BestBlock {
            seats: vec![SeatPosition { row: 0, column: 0 }],
            orphans,
            distance_tenths,
        }
    }

    #[test]
    fn an_area_is_a_point_with_a_bounded_radius_or_a_region() {
        assert!(SearchArea::new(Some((39.9, 116.4, 5_000.0)), None).is_ok());
        assert!(SearchArea::new(None, Some(RegionId([1; 12]))).is_ok());
        for radius in [0.0, -1.0, 50_001.0, f64::NAN, f64::INFINITY] {
            let error = SearchArea::new(Some((39.9, 116.4, radius)), None).unwrap_err();
            assert!(error.to_string().contains("radiusMeters"), "{error}");
        }
        assert!(SearchArea::new(Some((91.0, 0.0, 10.0)), None).is_err());
        let both = SearchArea::new(Some((39.9, 116.4, 5_000.0)), Some(RegionId([1; 12])));
        assert!(both.unwrap_err().to_string().contains("exactly one"));
        assert!(SearchArea::new(None, None).is_err());
    }

    #[test]
    fn a_window_is_at_most_a_day_ends_in_the_future_and_starts_no_earlier_than_now() {
        let now = at(10, 0);
        let window = SearchWindow::new(Some(at(8, 0)), Some(at(12, 0)), now).unwrap();
        assert_eq!((window.from, window.before), (now, at(12, 0)));
        assert_eq!(
            SearchWindow::new(None, Some(at(11, 0)), now).unwrap().from,
            now
        );
        assert!(SearchWindow::new(Some(at(12, 0)), Some(at(12, 0)), now).is_err());
        assert!(SearchWindow::new(Some(at(7, 0)), Some(at(9, 0)), now)
            .unwrap_err()
            .to_string()
            .contains("has passed"));
        let day = SearchWindow::new(Some(at(10, 0)), Some(at(10, 0) + Duration::hours(24)), now);
        assert_eq!(
            day.unwrap(),
            SearchWindow::new(Some(at(10, 0)), None, now).unwrap()
        );
        let longer = SearchWindow::new(Some(at(10, 0)), Some(at(10, 1) + Duration::hours(24)), now);
        assert!(longer.unwrap_err().to_string().contains("at most 24 hours"));
    }

    #[test]
    fn a_party_fits_one_hold() {
        let standard = SeatKind::Standard;
        assert_eq!(validate_party(2, 10, standard).unwrap(), 2);
        assert_eq!(validate_party(10, 10, standard).unwrap(), 10);
        assert!(validate_party(7, 6, standard).is_err());
        for bad in [0, -1, 11] {
            assert!(validate_party(bad, 10, standard).is_err(), "{bad}");
        }
        assert_eq!(validate_party(4, 10, SeatKind::Couple).unwrap(), 4);
        let odd = validate_party(3, 10, SeatKind::Couple).unwrap_err();
        assert!(odd.to_string().contains("pairs"), "{odd}");
    }

    #[test]
    fn the_score_adds_seats_distance_and_start_in_exact_tenths() {
        let window = SearchWindow {
            from: at(19, 0),
            before: at(21, 0),
        };
        // Centred seats, at the point, at the window's start: nothing.
        assert_eq!(Score::of(&block(0, 0), Some(0.0), at(19, 0), &window).0, 0);
        // One seat off centre = 250 m farther = 6 minutes later = 10 tenths.
        assert_eq!(Score::of(&block(10, 0), None, at(19, 0), &window).0, 10);
        assert_eq!(
            Score::of(&block(0, 0), Some(250.0), at(19, 0), &window).0,
            10
        );
        assert_eq!(Score::of(&block(0, 0), None, at(19, 6), &window).0, 10);
        // A single seat left beside the block costs ten seats off centre.
        assert_eq!(Score::of(&block(0, 1), None, at(19, 0), &window).0, 100);
        let all = Score::of(&block(40, 2), Some(5_000.0), at(20, 30), &window);
        assert_eq!(all.0, 40 + 200 + 200 + 150);
    }

    #[test]
    fn option_keys_order_by_score_then_start_then_id_and_round_trip_through_cursors() {
        let key = |score, minute, id| OptionKey {
            score,
            starts_at_millis: at(19, minute).timestamp_millis(),
            showtime: ShowtimeId([id; 12]),
        };
        let mut keys = vec![key(5, 0, 2), key(3, 30, 1), key(5, 0, 1), key(3, 10, 9)];
        keys.sort();
        assert_eq!(
            keys,
            vec![key(3, 10, 9), key(3, 30, 1), key(5, 0, 1), key(5, 0, 2)]
        );
        let back = OptionKey::from_cursor(&keys[2].cursor().encode()).unwrap();
        assert_eq!(back, keys[2]);
        assert!(OptionKey::from_cursor("bm90IGEgY3Vyc29y").is_err());
    }
}
