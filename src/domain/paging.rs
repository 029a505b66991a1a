//! Page requests of Relay connections: `first` (capped) and `after`. There is no `skip`.

use crate::domain::cursor::Cursor;
use crate::error::ApiError;

/// How many items a page has when `first` is not given.
pub const DEFAULT_FIRST: usize = 20;

/// The validated size and start of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    /// How many items to return.
    pub first: usize,
    /// The cursor of the last item of the previous page.
    pub after: Option<String>,
}

/// The largest `first` of every connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimits {
    pub max_first: usize,
}

impl PageRequest {
    /// Validates `first` against the cap: BAD_USER_INPUT when negative or above it.
    pub fn new(
        first: Option<i32>,
        after: Option<String>,
        limits: PageLimits,
    ) -> Result<Self, ApiError> {
        let first = match first {
            None => DEFAULT_FIRST.min(limits.max_first),
            Some(n) if n >= 0 && (n as usize) <= limits.max_first => n as usize,
            Some(n) => {
                return Err(ApiError::bad_input(format!(
                    "first must be between 0 and {}, got {n}",
                    limits.max_first
                )))
            }
        };
        Ok(PageRequest { first, after })
    }
}

/// One page of items with their cursors, and whether more follow.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub items: Vec<(Cursor, T)>,
    pub has_next_page: bool,
    pub has_previous_page: bool,
}

impl<T> Page<T> {
    /// Builds a page from up to `first + 1` fetched items: the extra one only says more follow.
    pub fn from_fetched(
        mut fetched: Vec<T>,
        request: &PageRequest,
        cursor_of: impl Fn(&T) -> Cursor,
    ) -> Self {
        let has_next_page = fetched.len() > request.first;
        fetched.truncate(request.first);
        Page {
            items: fetched
                .into_iter()
                .map(|item| (cursor_of(&item), item))
                .collect(),
            has_next_page,
            has_previous_page: request.after.is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: PageLimits = PageLimits { max_first: 100 };

    #[test]
    fn first_defaults_and_is_capped() {
        assert_eq!(PageRequest::new(None, None, LIMITS).unwrap().first, 20);
        assert_eq!(PageRequest::new(Some(0), None, LIMITS).unwrap().first, 0);
        assert_eq!(
            PageRequest::new(Some(100), None, LIMITS).unwrap().first,
            100
        );
        let error = PageRequest::new(Some(101), None, LIMITS).unwrap_err();
        assert!(
            error.to_string().contains("between 0 and 100, got 101"),
            "{error}"
        );
        assert!(PageRequest::new(Some(-1), None, LIMITS).is_err());
    }

    #[test]
    fn the_extra_item_only_signals_a_next_page() {
        let request = PageRequest::new(Some(2), None, LIMITS).unwrap();
        let cursor = |n: &i32| Cursor::new("numbers", *n);
        let page = Page::from_fetched(vec![1, 2, 3], &request, cursor);
        let items: Vec<_> = page.items.iter().map(|(c, n)| (c.encode(), *n)).collect();
        assert_eq!(items, [(cursor(&1).encode(), 1), (cursor(&2).encode(), 2)]);
        assert!(page.has_next_page);
        let last = Page::from_fetched(vec![1], &request, cursor);
        assert!(!last.has_next_page);
        assert!(!last.has_previous_page);
    }
}
