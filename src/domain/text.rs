//! Free-text arguments (city names, search words, channel codes): trimmed, non-empty, short.

use crate::error::ApiError;

/// The longest text argument accepted, in characters.
pub const MAX_TEXT_CHARS: usize = 100;

/// Validates an optional text argument named `argument`.
pub fn optional(argument: &str, value: Option<String>) -> Result<Option<String>, ApiError> {
    value.map(|value| required(argument, &value)).transpose()
}

/// Validates a text argument named `argument`.
pub fn required(argument: &str, value: &str) -> Result<String, ApiError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ApiError::bad_input(format!("{argument} must not be empty")));
    }
    let chars = trimmed.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(ApiError::bad_input(format!(
            "{argument} has {chars} characters; at most {MAX_TEXT_CHARS}"
        )));
    }
    Ok(trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_bounds_text() {
        assert_eq!(required("city", " 上海 ").unwrap(), "上海");
        assert!(required("city", "   ")
            .unwrap_err()
            .to_string()
            .contains("city must not be empty"));
        let long = "影".repeat(MAX_TEXT_CHARS + 1);
        assert!(required("titleContains", &long)
            .unwrap_err()
            .to_string()
            .contains("at most 100"));
        assert_eq!(optional("city", None).unwrap(), None);
    }
}
