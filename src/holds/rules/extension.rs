//! How far `extendHold` moves a hold's expiry: once, by the policy's extension, never past
//! the showtime's start (a seat held after the film began could never be sold).

use chrono::{DateTime, Utc};

use crate::error::ApiError;

/// The expiry of a hold that expires at `expires_at` once it is extended by `extension`, for
/// a showtime starting at `starts_at`. BAD_USER_INPUT when that would not move it (it already
/// lasts until the start).
pub fn extended_expiry(
    expires_at: DateTime<Utc>,
    extension: std::time::Duration,
    starts_at: DateTime<Utc>,
) -> Result<DateTime<Utc>, ApiError> {
    let extension = chrono::Duration::from_std(extension)
        .map_err(|error| ApiError::internal_caused("the hold extension", error))?;
    let until = expires_at
        .checked_add_signed(extension)
        .unwrap_or(starts_at)
        .min(starts_at);
    if until <= expires_at {
        return Err(ApiError::bad_input(format!(
            "the hold already lasts until the showtime starts ({starts_at}): it cannot be extended"
        )));
    }
    Ok(until)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use std::time::Duration;

    fn at(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 19, minute, 0).unwrap()
    }

    #[test]
    fn extends_by_the_extension() {
        let until = extended_expiry(at(10), Duration::from_secs(300), at(50)).unwrap();
        assert_eq!(until, at(15));
    }

    #[test]
    fn never_past_the_start() {
        let until = extended_expiry(at(10), Duration::from_secs(3600), at(30)).unwrap();
        assert_eq!(until, at(30));
    }

    #[test]
    fn a_hold_that_lasts_until_the_start_is_not_extended() {
        let error = extended_expiry(at(30), Duration::from_secs(300), at(30)).unwrap_err();
        assert!(error.to_string().contains("cannot be extended"), "{error}");
    }
}
