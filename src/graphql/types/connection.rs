//! Relay connections from store pages, and their cost for the complexity limit.

use async_graphql::connection::{Connection, Edge, EmptyFields};
use async_graphql::OutputType;

use crate::domain::paging::{Page, DEFAULT_FIRST};

/// A connection whose nodes are made from the page's documents.
pub fn connection<D, N: OutputType>(page: Page<D>, node: impl Fn(D) -> N) -> Connection<String, N> {
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
    let first = first.map_or(DEFAULT_FIRST, |n| n.max(0) as usize);
    1 + first.saturating_mul(child_complexity)
}
