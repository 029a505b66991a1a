//! When and how often a voucher may be redeemed: its validity and its caps.

use chrono::{DateTime, Utc};

use crate::error::ApiError;

/// The most redemptions a voucher may allow in total.
pub const MAX_REDEMPTIONS: u32 = 1_000_000;
/// The longest a voucher may be valid.
pub const MAX_VALIDITY_DAYS: i64 = 366;

/// When a voucher may be redeemed: from `from` (inclusive) until `until` (exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity {
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

impl Validity {
    /// A window that starts before it ends and lasts at most `MAX_VALIDITY_DAYS`.
    pub fn new(from: DateTime<Utc>, until: DateTime<Utc>) -> Result<Self, ApiError> {
        if from >= until {
            return Err(ApiError::bad_input("validFrom must be before validUntil"));
        }
        if until - from > chrono::Duration::days(MAX_VALIDITY_DAYS) {
            return Err(ApiError::bad_input(format!(
                "a voucher is valid for at most {MAX_VALIDITY_DAYS} days"
            )));
        }
        Ok(Validity { from, until })
    }

    pub fn contains(&self, at: DateTime<Utc>) -> bool {
        self.from <= at && at < self.until
    }
}

/// The most redemptions a voucher may allow one customer (a customer's own slots are found
/// with one look-up of this many keys).
pub const MAX_PER_CUSTOMER: u32 = 20;

/// How often a voucher may be redeemed: in total, and by one customer when capped so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Caps {
    pub total: u32,
    pub per_customer: Option<u32>,
}

impl Caps {
    /// `total` 1 to `MAX_REDEMPTIONS`; `per_customer` 1 to `MAX_PER_CUSTOMER` and at most
    /// `total` (none when not given: then a hold need not name its customer).
    pub fn new(total: i64, per_customer: Option<i64>) -> Result<Self, ApiError> {
        let total = u32::try_from(total)
            .ok()
            .filter(|total| (1..=MAX_REDEMPTIONS).contains(total))
            .ok_or_else(|| {
                ApiError::bad_input(format!("maxRedemptions must be 1 to {MAX_REDEMPTIONS}"))
            })?;
        let per_customer = match per_customer {
            None => None,
            Some(cap) => Some(
                u32::try_from(cap)
                    .ok()
                    .filter(|cap| (1..=total.min(MAX_PER_CUSTOMER)).contains(cap))
                    .ok_or_else(|| {
                        ApiError::bad_input(format!(
                            "maxPerCustomer must be 1 to {MAX_PER_CUSTOMER}, and at most \
                             maxRedemptions"
                        ))
                    })?,
            ),
        };
        Ok(Caps {
            total,
            per_customer,
        })
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn validity_is_half_open_and_bounded() {
        let at = |day: u32| Utc.with_ymd_and_hms(2026, 12, day, 0, 0, 0).unwrap();
        let window = Validity::new(at(1), at(8)).unwrap();
        assert!(window.contains(at(1)));
        assert!(window.contains(at(7)));
        assert!(!window.contains(at(8)));
        assert!(Validity::new(at(8), at(1)).is_err());
        assert!(Validity::new(at(1), at(1)).is_err());
        assert!(Validity::new(at(1), at(1) + chrono::Duration::days(367)).is_err());
    }

    #[test]
    fn caps_are_bounded_and_per_customer_is_optional_and_small() {
        assert_eq!(
            Caps::new(10, None).unwrap(),
            Caps {
                total: 10,
                per_customer: None
            }
        );
        assert_eq!(Caps::new(10, Some(2)).unwrap().per_customer, Some(2));
        assert_eq!(
            Caps::new(1_000, Some(20)).unwrap().per_customer,
            Some(MAX_PER_CUSTOMER)
        );
        for (total, per_customer) in [
            (0, None),
            (-1, None),
            (1_000_001, None),
            (10, Some(11)),
            (1_000, Some(21)),
            (10, Some(0)),
        ] {
            assert!(
                Caps::new(total, per_customer).is_err(),
                "{total} {per_customer:?}"
            );
        }
    }
}
