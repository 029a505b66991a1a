//! Limits on a query's shape, checked when it is parsed, before validation and any resolver
//! (OWASP's GraphQL cheat sheet; graphql-armor's defaults as a reference): how many tokens it
//! has (counted before parsing, so a huge document costs no parse), how deep it nests
//! (`depth_limit`), how many aliases and directives, and how many seat-changing mutation
//! fields an operation has (one: a request cannot multiply holds past the per-hold cap and the
//! rate limit with aliases).

use std::collections::HashSet;
use std::sync::Arc;

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextParseQuery};
use async_graphql::parser::types::{ExecutableDocument, OperationType, Selection, SelectionSet};
use async_graphql::{ServerResult, Variables};

use super::depth_limit::document_depth;
use super::errors::error_with_code;
use crate::error::ErrorCode;

/// The mutations that change seats: at most one of them per operation.
const SEAT_CHANGING: [&str; 4] = ["holdSeats", "releaseHold", "confirmHold", "cancelOrder"];

/// The caps, per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShapeLimits {
    pub max_depth: usize,
    pub max_tokens: usize,
    pub max_aliases: usize,
    pub max_directives: usize,
}

impl ExtensionFactory for ShapeLimits {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(*self)
    }
}

#[async_trait::async_trait]
impl Extension for ShapeLimits {
    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        let too_complex = |message: String| error_with_code(message, ErrorCode::QueryTooComplex);
        if count_tokens(query, self.max_tokens + 1) > self.max_tokens {
            return Err(too_complex(format!(
                "the query has more than {} tokens",
                self.max_tokens
            )));
        }
        let document = next.run(ctx, query, variables).await?;
        let depth = document_depth(&document);
        if depth > self.max_depth {
            return Err(too_complex(format!(
                "the query is nested {depth} fields deep; at most {} are allowed",
                self.max_depth
            )));
        }
        let mut counts = Counts::default();
        for (_, operation) in document.operations.iter() {
            counts.selection_set(&operation.node.selection_set.node);
        }
        for fragment in document.fragments.values() {
            counts.selection_set(&fragment.node.selection_set.node);
        }
        if counts.aliases > self.max_aliases {
            return Err(too_complex(format!(
                "the query has {} aliases; at most {} are allowed",
                counts.aliases, self.max_aliases
            )));
        }
        if counts.directives > self.max_directives {
            return Err(too_complex(format!(
                "the query has {} directives; at most {} are allowed",
                counts.directives, self.max_directives
            )));
        }
        for (name, operation) in document.operations.iter() {
            if operation.node.ty != OperationType::Mutation {
                continue;
            }
            let mut seen = HashSet::new();
            let changes = seat_changes(&operation.node.selection_set.node, &document, &mut seen);
            if changes > 1 {
                let name = name.map_or("the mutation".to_owned(), |n| format!("mutation {n}"));
                return Err(error_with_code(
                    format!(
                        "{name} changes seats {changes} times; send each of holdSeats, \
                         releaseHold, confirmHold and cancelOrder as an operation of its own"
                    ),
                    ErrorCode::BadUserInput,
                ));
            }
        }
        Ok(document)
    }
}

#[derive(Default)]
struct Counts {
    aliases: usize,
    directives: usize,
}

impl Counts {
    fn selection_set(&mut self, set: &SelectionSet) {
        for selection in &set.items {
            match &selection.node {
                Selection::Field(field) => {
                    self.aliases += usize::from(field.node.alias.is_some());
                    self.directives += field.node.directives.len();
                    self.selection_set(&field.node.selection_set.node);
                }
                Selection::FragmentSpread(spread) => {
                    self.directives += spread.node.directives.len();
                }
                Selection::InlineFragment(inline) => {
                    self.directives += inline.node.directives.len();
                    self.selection_set(&inline.node.selection_set.node);
                }
            }
        }
    }
}

/// How many seat-changing fields a mutation's root selection holds, through its fragments.
fn seat_changes<'a>(
    set: &'a SelectionSet,
    document: &'a ExecutableDocument,
    seen: &mut HashSet<&'a str>,
) -> usize {
    set.items
        .iter()
        .map(|selection| match &selection.node {
            Selection::Field(field) => {
                usize::from(SEAT_CHANGING.contains(&field.node.name.node.as_str()))
            }
            Selection::InlineFragment(inline) => {
                seat_changes(&inline.node.selection_set.node, document, seen)
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                // A fragment counted once (validation refuses cycles later anyway).
                if !seen.insert(name) {
                    return 0;
                }
                document.fragments.get(name).map_or(0, |f| {
                    seat_changes(&f.node.selection_set.node, document, seen)
                })
            }
        })
        .sum()
}

/// Counts a GraphQL document's lexical tokens (names, numbers, strings, punctuators; commas,
/// white space and comments are not tokens), stopping at `stop`.
fn count_tokens(query: &str, stop: usize) -> usize {
    let bytes = query.as_bytes();
    let (mut i, mut tokens) = (0, 0);
    while i < bytes.len() && tokens < stop {
        let byte = bytes[i];
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                i += 3;
                while i < bytes.len() && !bytes[i..].starts_with(b"\"\"\"") {
                    i += if bytes[i..].starts_with(b"\\\"\"\"") {
                        4
                    } else {
                        1
                    };
                }
                i += 3;
                tokens += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                tokens += 1;
            }
            b'.' if bytes[i..].starts_with(b"...") => {
                i += 3;
                tokens += 1;
            }
            b'_' | b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' => {
                i += 1;
                while i < bytes.len()
                    && matches!(bytes[i], b'_' | b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'+' | b'-')
                {
                    i += 1;
                }
                tokens += 1;
            }
            _ => {
                // A punctuator, or a character the parser will refuse: one token either way.
                i += query[i..].chars().next().map_or(1, char::len_utf8);
                tokens += 1;
            }
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_tokens_as_the_grammar_does() {
        assert_eq!(count_tokens("{ a }", 100), 3);
        let query = "query Q($x: Int = -1.5e3) { a: b(x: $x) @skip(if: true) }";
        assert_eq!(count_tokens(query, 100), 28);
        assert_eq!(
            count_tokens("{ a(s: \"x, \\\"y\\\" z\") ...F } # a comment", 100),
            10
        );
        assert_eq!(
            count_tokens("{ a(s: \"\"\"block \"\" string\"\"\") }", 100),
            8
        );
        assert_eq!(count_tokens("{ 影 }", 100), 3);
        assert_eq!(count_tokens(&"{ a }".repeat(1000), 50), 50, "stops early");
    }
}
