//! Free-text arguments (city names, search words, customer names and contacts): trimmed,
//! non-empty, short, and free of control characters (NUL, BEL, escapes: nothing a person types
//! into a name, and trouble in logs, terminals and receipts).

use crate::error::ApiError;

/// The longest text argument accepted, in characters.
pub const MAX_TEXT_CHARS: usize = 100;

/// Validates an optional text argument named `argument`.
pub fn optional(argument: &str, value: Option<String>) -> Result<Option<String>, ApiError> {
    value.map(|value| required(argument, &value)).transpose()
}

/// Validates a text argument named `argument`.
pub fn required(argument: &str, value: &str) -> Result<String, ApiError> {
    required_within(argument, value, MAX_TEXT_CHARS)
}

/// Validates a text argument named `argument` of at most `max_chars` characters.
pub fn required_within(argument: &str, value: &str, max_chars: usize) -> Result<String, ApiError> {
    // A character is at most 4 bytes: a longer text is refused before it is scanned.
    if value.len() > max_chars.saturating_mul(4) {
        return Err(ApiError::bad_input(format!(
            "{argument} has more than {max_chars} characters; at most {max_chars}"
        )));
    }
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(ApiError::bad_input(format!("{argument} must not be empty")));
    }
    if let Some(control) = trimmed.chars().find(|c| c.is_control()) {
        return Err(ApiError::bad_input(format!(
            "{argument} contains the control character U+{:04X}",
            u32::from(control)
        )));
    }
    let chars = trimmed.chars().count();
    if chars > max_chars {
        return Err(ApiError::bad_input(format!(
            "{argument} has {chars} characters; at most {max_chars}"
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

    #[test]
    fn refuses_control_characters() {
        for bad in ["张\u{0}三", "张三\u{7}", "a\nb", "\u{1b}[31mred"] {
            let error = required("customer.name", bad).unwrap_err().to_string();
            assert!(error.contains("control character"), "{bad:?}: {error}");
        }
        assert_eq!(required("customer.name", " 张三 ").unwrap(), "张三");
    }
}
