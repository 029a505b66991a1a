//! The sizes a request sets (a count, a list's length) checked against their caps where the
//! input is parsed, before anything is allocated, looped over or sent to the database by them:
//! BAD_USER_INPUT naming the cap, and nothing changed. A count of 2147483647 seats once built a
//! vector of that many ticket types before the hold's cap was looked at, and took the gateway
//! down; these checks come first so that cannot happen again.

use crate::error::ApiError;

/// A count the request sets (`count`, `partySize`) as a `usize` from 1 to `max`.
pub fn count(argument: &str, value: i32, max: usize) -> Result<usize, ApiError> {
    match usize::try_from(value) {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(ApiError::bad_input(format!(
            "{argument} must be between 1 and {max}, got {value}"
        ))),
    }
}

/// A list the request sets: at most `max` items.
pub fn list<T>(argument: &str, items: &[T], max: usize) -> Result<(), ApiError> {
    if items.len() > max {
        return Err(ApiError::bad_input(format!(
            "{argument} has {} items; at most {max}",
            items.len()
        )));
    }
    Ok(())
}

/// [`list`] of an optional list.
pub fn optional_list<T>(argument: &str, items: Option<&[T]>, max: usize) -> Result<(), ApiError> {
    items.map_or(Ok(()), |items| list(argument, items, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_is_within_one_and_its_cap() {
        assert_eq!(count("count", 1, 6).unwrap(), 1);
        assert_eq!(count("count", 6, 6).unwrap(), 6);
        for bad in [i32::MIN, -1, 0, 7, i32::MAX] {
            let message = count("count", bad, 6).unwrap_err().to_string();
            assert!(message.contains("between 1 and 6"), "{message}");
            assert!(message.contains(&bad.to_string()), "{message}");
        }
    }

    #[test]
    fn a_list_is_at_most_its_cap() {
        assert!(list("seats", &[1; 6], 6).is_ok());
        let message = list("seats", &[1; 7], 6).unwrap_err().to_string();
        assert!(message.contains("7 items; at most 6"), "{message}");
        assert!(optional_list::<u8>("seats", None, 0).is_ok());
    }
}
