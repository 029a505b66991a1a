//! Time ranges of searches: a start (inclusive) and an end (exclusive), either open.

use chrono::{DateTime, Utc};

use crate::error::ApiError;

/// `[from, before)`; `None` leaves that side open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeRange {
    pub from: Option<DateTime<Utc>>,
    pub before: Option<DateTime<Utc>>,
}

impl TimeRange {
    /// A range, or BAD_USER_INPUT when it ends before it starts.
    pub fn new(
        from: Option<DateTime<Utc>>,
        before: Option<DateTime<Utc>>,
    ) -> Result<Self, ApiError> {
        if let (Some(from), Some(before)) = (from, before) {
            if before <= from {
                return Err(ApiError::bad_input(format!(
                    "startsBefore ({before}) must be later than startsFrom ({from})"
                )));
            }
        }
        Ok(TimeRange { from, before })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn rejects_empty_and_inverted_ranges() {
        let noon = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap();
        let one = Utc.with_ymd_and_hms(2026, 11, 22, 13, 0, 0).unwrap();
        assert!(TimeRange::new(Some(noon), Some(one)).is_ok());
        assert!(TimeRange::new(Some(one), Some(noon)).is_err());
        assert!(TimeRange::new(Some(noon), Some(noon)).is_err());
        assert!(TimeRange::new(None, Some(noon)).is_ok());
    }
}
