//! A channel's id for one of its customers, one rule for every field that takes one
//! (`holdSeats`' voucher customer, the waiting list, want-to-see): opaque to us, 1 to
//! [`MAX_CUSTOMER_ID_CHARS`] characters (not bytes: 64 Chinese characters are an id), none of
//! them a control character or a space. Not trimmed: an id is compared as given, and two that
//! differ by a space are refused rather than merged.

use crate::error::ApiError;

/// The longest customer id, in characters.
pub const MAX_CUSTOMER_ID_CHARS: usize = 64;

/// A customer id that passed [`CustomerId::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CustomerId(String);

impl CustomerId {
    pub fn parse(id: &str) -> Result<CustomerId, ApiError> {
        // A character is at most 4 bytes: a longer text is refused before it is scanned.
        if id.len() > MAX_CUSTOMER_ID_CHARS * 4 {
            return Err(too_long(MAX_CUSTOMER_ID_CHARS + 1));
        }
        let chars = id.chars().count();
        if chars == 0 {
            return Err(ApiError::bad_input("customerId must not be empty"));
        }
        if chars > MAX_CUSTOMER_ID_CHARS {
            return Err(too_long(chars));
        }
        if let Some(bad) = id.chars().find(|c| c.is_control() || c.is_whitespace()) {
            return Err(ApiError::bad_input(format!(
                "customerId contains U+{:04X}: an opaque id has no spaces or control \
                 characters",
                u32::from(bad)
            )));
        }
        Ok(CustomerId(id.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

fn too_long(chars: usize) -> ApiError {
    ApiError::bad_input(format!(
        "customerId has {chars} characters or more: at most {MAX_CUSTOMER_ID_CHARS}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn customer_ids_are_opaque_printable_and_short_in_characters() {
        let chinese = "影".repeat(MAX_CUSTOMER_ID_CHARS);
        for good in [
            "c-42",
            "9f86d081884c7d65",
            "用户123",
            &"x".repeat(64),
            &chinese,
        ] {
            assert_eq!(CustomerId::parse(good).unwrap().as_str(), good);
        }
        let long = "影".repeat(MAX_CUSTOMER_ID_CHARS + 1);
        let huge = "x".repeat(10_000);
        for bad in [
            "",
            "a b",
            " c-1",
            "a\u{0}b",
            "tab\there",
            "line\n",
            "\u{1b}[31m",
            &long,
            &huge,
        ] {
            let error = CustomerId::parse(bad).unwrap_err();
            assert!(
                matches!(error, ApiError::BadUserInput(_)),
                "{bad:?}: {error:?}"
            );
        }
    }
}
