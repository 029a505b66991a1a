//! Relay connections from store pages, and their cost for the complexity limit.

use async_graphql::connection::{Connection, CursorType, Edge, EmptyFields};
use async_graphql::OutputType;

use crate::domain::cursor::Cursor;
use crate::domain::paging::{Page, DEFAULT_FIRST};

/// A connection's cursors are encoded when a client reads `cursor`, `startCursor` or
/// `endCursor`, not before.
impl CursorType for Cursor {
    type Error = &'static str;

    /// Never called: a connection's `after` is a `String` argument that each list decodes
    /// with its own kind (`domain::cursor::decode`).
    fn decode_cursor(_: &str) -> Result<Self, Self::Error> {
        Err("cursors are decoded by the list they belong to")
    }

    fn encode_cursor(&self) -> String {
        self.encode()
    }
}

/// A connection whose nodes are made from the page's documents.
pub fn connection<D, N: OutputType>(page: Page<D>, node: impl Fn(D) -> N) -> Connection<Cursor, N> {
    let mut connection = Connection::new(page.has_previous_page, page.has_next_page);
    connection.edges.extend(
        page.items
            .into_iter()
            .map(|(cursor, doc)| Edge::with_additional_fields(cursor, node(doc), EmptyFields)),
    );
    connection
}

/// The complexity of a connection field: its nodes' cost times the number of nodes asked for,
/// so a nested connection multiplies. A negative `first` is rejected later, by the resolver.
pub fn page_cost(first: Option<i32>, child_complexity: usize) -> usize {
    let first = first.map_or(DEFAULT_FIRST, |n| usize::try_from(n).unwrap_or(0));
    list_cost(first, child_complexity)
}

/// The most one field may cost: far above any complexity limit, and low enough that
/// async-graphql's sum of sibling costs (a plain `+`, which overflows) stays far from
/// `usize::MAX` for any query the token limit lets through. Without it, `first: 2147483647`
/// on a connection nested in another overflowed: a panic in a debug build, and in a release
/// build a cost that wraps round to a small one.
const MOST_COST: usize = 1 << 32;

/// The complexity of a field that lists up to `len` objects of `child_complexity` each.
pub fn list_cost(len: usize, child_complexity: usize) -> usize {
    len.saturating_mul(child_complexity)
        .saturating_add(1)
        .min(MOST_COST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_saturate_below_a_sum_that_could_overflow() {
        assert_eq!(page_cost(None, 3), 1 + DEFAULT_FIRST * 3);
        assert_eq!(page_cost(Some(-1), 3), 1);
        assert_eq!(page_cost(Some(i32::MAX), usize::MAX), MOST_COST);
        assert_eq!(list_cost(usize::MAX, 2), MOST_COST);
        // Two thousand such fields side by side still sum without overflow.
        assert!(MOST_COST.checked_mul(2_000).is_some());
    }
}
