//! Admission at the door: when a showtime's tickets let their holders in, which doors there
//! are, and why a scan that changed nothing was refused.
//!
//! A ticket is admitted once: SOLD → admitted in one conditional update whose filter holds
//! every rule here (the seat sold under the ticket's order, not admitted yet, the database's
//! clock inside the window). Only when it matches nothing is the seat read, and
//! [`refusal`] says why from what was read.

use chrono::{DateTime, Duration, Utc};

use crate::error::ApiError;

/// The longest door name.
pub const MAX_DOOR_NAME: usize = 40;

/// When a showtime's tickets admit: from `opens_before` its start to `closes_after` it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdmissionWindow {
    pub opens_before: Duration,
    pub closes_after: Duration,
}

impl Default for AdmissionWindow {
    /// From an hour before the start to half an hour after it.
    fn default() -> Self {
        AdmissionWindow {
            opens_before: Duration::minutes(60),
            closes_after: Duration::minutes(30),
        }
    }
}

impl AdmissionWindow {
    /// The window of a showtime starting at `starts_at`: first and last instants it admits.
    pub fn around(&self, starts_at: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
        (starts_at - self.opens_before, starts_at + self.closes_after)
    }

    /// ADMISSION_CLOSED when `now` is before or after the window of a showtime starting at
    /// `starts_at` (a ticket's admission, an order's collection at the counter).
    pub fn refusal_at(&self, starts_at: DateTime<Utc>, now: DateTime<Utc>) -> Option<ApiError> {
        outside(self.around(starts_at), now)
    }
}

fn at(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// ADMISSION_CLOSED when `now` is outside `window` (its first and last instants).
fn outside(window: (DateTime<Utc>, DateTime<Utc>), now: DateTime<Utc>) -> Option<ApiError> {
    let (opens, closes) = window;
    if now < opens {
        Some(ApiError::AdmissionClosed(format!(
            "too early: admission opens at {}",
            at(opens)
        )))
    } else if now > closes {
        Some(ApiError::AdmissionClosed(format!(
            "too late: admission closed at {}",
            at(closes)
        )))
    } else {
        None
    }
}

/// The key space of a door staff key's idempotency keys: apart from channels' and operators'.
pub fn door_keys(code: &str) -> String {
    format!("door/{code}")
}

/// A door's name as door staff keys carry it ("North gate", "3号厅入口"): trimmed, 1 to
/// `MAX_DOOR_NAME` characters, no control characters. BAD_USER_INPUT otherwise.
pub fn validate_door_name(name: &str) -> Result<String, ApiError> {
    let name = name.trim();
    let length = name.chars().count();
    if length == 0 || length > MAX_DOOR_NAME {
        return Err(ApiError::bad_input(format!(
            "a door's name has 1 to {MAX_DOOR_NAME} characters, not {length}"
        )));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::bad_input(
            "a door's name may not contain control characters",
        ));
    }
    Ok(name.to_owned())
}

/// An admission already made: when, at which door, by which request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted<R> {
    pub at: DateTime<Utc>,
    pub door: String,
    pub request: R,
}

/// What a seat was found to be after an admission matched nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatFound<R> {
    /// The showtime (or its inventory) does not exist.
    NoShowtime,
    /// Sold under the ticket's order; admitted already, or not.
    SoldToTicket(Option<Admitted<R>>),
    /// Not sold under the ticket's order (given back, or never its).
    NotTheTicket,
}

/// Why an admission that matched nothing was refused, or `Ok(admitted)` when the seat was
/// admitted by this very request (a retry of its key). `now` is the time of the read.
pub fn refusal<R: PartialEq>(
    found: SeatFound<R>,
    request: &R,
    cancelled: bool,
    window: (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
) -> Result<Admitted<R>, ApiError> {
    let admitted = match found {
        SeatFound::NoShowtime => {
            return Err(ApiError::TicketCancelled(
                "this ticket's showtime no longer exists".into(),
            ))
        }
        SeatFound::NotTheTicket if cancelled => {
            return Err(ApiError::TicketCancelled(
                "this ticket's showtime was cancelled".into(),
            ))
        }
        SeatFound::NotTheTicket => {
            return Err(ApiError::TicketCancelled(
                "this ticket was cancelled: its seat is no longer sold to its order".into(),
            ))
        }
        SeatFound::SoldToTicket(admitted) => admitted,
    };
    match admitted {
        Some(admitted) if admitted.request == *request => Ok(admitted),
        Some(admitted) => Err(ApiError::AlreadyAdmitted {
            message: format!(
                "this ticket was admitted already, at {} through door `{}`",
                admitted
                    .at
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                admitted.door
            ),
            at: admitted.at,
            door: admitted.door,
        }),
        None if cancelled => Err(ApiError::TicketCancelled(
            "this ticket's showtime was cancelled".into(),
        )),
        None => Err(outside(window, now).unwrap_or_else(|| {
            // Inside the window by the gateway's clock but not by the database's, which
            // decided: the clocks differ by about the time to the window's edge.
            let (opens, closes) = window;
            ApiError::AdmissionClosed(format!(
                "outside the admission window ({} to {}) by the database's clock",
                at(opens),
                at(closes)
            ))
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn start() -> DateTime<Utc> {
        "2026-11-25T20:00:00Z".parse().unwrap()
    }

    fn window() -> (DateTime<Utc>, DateTime<Utc>) {
        AdmissionWindow::default().around(start())
    }

    fn admitted(request: u8) -> Admitted<u8> {
        Admitted {
            at: start(),
            door: "North".into(),
            request,
        }
    }

    fn code(result: Result<Admitted<u8>, ApiError>) -> ErrorCode {
        result.unwrap_err().code()
    }

    #[test]
    fn the_default_window_is_an_hour_before_to_half_an_hour_after() {
        let (opens, closes) = window();
        assert_eq!(opens.to_rfc3339(), "2026-11-25T19:00:00+00:00");
        assert_eq!(closes.to_rfc3339(), "2026-11-25T20:30:00+00:00");
    }

    #[test]
    fn a_second_scan_names_when_and_where_the_first_was_and_a_retry_is_its_own() {
        let found = || SeatFound::SoldToTicket(Some(admitted(1)));
        let now = start();
        let error = refusal(found(), &2, false, window(), now).unwrap_err();
        assert_eq!(error.code(), ErrorCode::AlreadyAdmitted);
        assert_eq!(
            error.to_string(),
            "this ticket was admitted already, at 2026-11-25T20:00:00Z through door `North`"
        );
        assert_eq!(
            refusal(found(), &1, false, window(), now).unwrap(),
            admitted(1)
        );
    }

    #[test]
    fn cancelled_tickets_and_showtimes_are_refused_as_cancelled() {
        let now = start();
        for (found, cancelled) in [
            (SeatFound::NotTheTicket, false),
            (SeatFound::NotTheTicket, true),
            (SeatFound::NoShowtime, false),
            (SeatFound::SoldToTicket(None), true),
        ] {
            assert_eq!(
                code(refusal(found, &1, cancelled, window(), now)),
                ErrorCode::TicketCancelled
            );
        }
    }

    #[test]
    fn outside_the_window_says_when_it_opens_or_closed() {
        let early = start() - Duration::minutes(61);
        let error = refusal(SeatFound::SoldToTicket(None), &1, false, window(), early);
        let error = error.unwrap_err();
        assert_eq!(error.code(), ErrorCode::AdmissionClosed);
        assert_eq!(
            error.to_string(),
            "too early: admission opens at 2026-11-25T19:00:00Z"
        );
        let late = start() + Duration::minutes(31);
        let error = refusal(SeatFound::SoldToTicket(None), &1, false, window(), late);
        assert!(error.unwrap_err().to_string().starts_with("too late"));
    }

    #[test]
    fn door_names_are_trimmed_bounded_and_printable() {
        assert_eq!(validate_door_name("  North gate ").unwrap(), "North gate");
        assert_eq!(validate_door_name("3号厅入口").unwrap(), "3号厅入口");
        for bad in ["", "   ", "a\u{7}b", &"x".repeat(MAX_DOOR_NAME + 1)] {
            assert!(validate_door_name(bad).is_err(), "{bad:?}");
        }
    }
}
