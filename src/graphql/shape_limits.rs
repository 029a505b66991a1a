//! Limits on a query's shape, checked before validation and any resolver (OWASP's GraphQL
//! cheat sheet; graphql-armor's defaults as a reference). Before parsing: how many tokens the
//! text has and how deep its brackets nest (`query_text`), and how deep its variables nest.
//! After parsing: how deep it nests and how big it is with its fragments expanded
//! (`document_shape`, measured without expanding them), how many aliases and directives it
//! has, and how many seat-changing mutation fields an operation has (one: a request cannot
//! multiply holds past the per-hold cap and the rate limit with aliases). Every refusal has
//! its code, given here. (The complexity, which needs the schema's figures, is checked by
//! async-graphql's validation.)

use std::collections::HashSet;

use async_graphql::parser::types::{ExecutableDocument, OperationType, Selection, SelectionSet};
use async_graphql::{Request, ServerError, ServerResult, Value};

use super::document_shape::{measure, FragmentCycle};
use super::errors::{error_with_code, with_code};
use super::query_text::scan;
use super::QueryLimits;
use crate::error::ErrorCode;

/// The mutations that change seats: at most one of them per operation.
const SEAT_CHANGING: [&str; 7] = [
    "holdSeats",
    "releaseHold",
    "confirmHold",
    "cancelOrder",
    "blockSeats",
    "unblockSeats",
    "cancelShowtime",
];

fn too_complex(message: String) -> ServerError {
    error_with_code(message, ErrorCode::QueryTooComplex)
}

/// QUERY_TOO_COMPLEX when `found` is over `max`: what `says` of `found`, then the cap.
fn at_most(found: usize, max: usize, says: impl FnOnce(usize) -> String) -> ServerResult<()> {
    if found > max {
        let message = format!("{}; at most {max} are allowed", says(found));
        return Err(too_complex(message));
    }
    Ok(())
}

/// The longest list a request's variables may hold: longer than any argument takes (the
/// `_entities` calls of a request take 500 representations in all, no other list more than
/// 200), so a longer one is refused before async-graphql turns it into a resolver's input,
/// whatever the body limit. Each argument's own cap is checked by its resolver.
pub const MAX_VARIABLE_LIST: usize = 1_000;

/// How deep the request's variables nest, and how long their lists are: checked for every
/// request, as they change from one request to the next while the query text stays the same.
pub fn check_variables(request: &Request, limits: &QueryLimits) -> ServerResult<()> {
    let variables = request
        .variables
        .values()
        .map(value_nesting)
        .max()
        .unwrap_or(0);
    at_most(variables, limits.max_nesting, |n| {
        format!("the variables nest {n} deep")
    })?;
    let longest = request
        .variables
        .values()
        .map(longest_list)
        .max()
        .unwrap_or(0);
    if longest > MAX_VARIABLE_LIST {
        return Err(error_with_code(
            format!("a list in the variables has {longest} items; at most {MAX_VARIABLE_LIST}"),
            ErrorCode::BadUserInput,
        ));
    }
    Ok(())
}

fn longest_list(value: &Value) -> usize {
    match value {
        Value::List(items) => items
            .iter()
            .map(longest_list)
            .max()
            .unwrap_or(0)
            .max(items.len()),
        Value::Object(fields) => fields.values().map(longest_list).max().unwrap_or(0),
        _ => 0,
    }
}

/// The checks of the text and of the parsed document, before the request reaches the schema.
/// Gives the parsed document, which stays in `request`: async-graphql does not parse it again.
pub fn check_query<'a>(
    request: &'a mut Request,
    limits: &QueryLimits,
) -> ServerResult<&'a ExecutableDocument> {
    let text = scan(&request.query, limits.max_tokens + 1);
    if text.tokens > limits.max_tokens {
        let message = format!("the query has more than {} tokens", limits.max_tokens);
        return Err(too_complex(message));
    }
    at_most(text.nesting, limits.max_nesting, |n| {
        format!("the query's brackets nest {n} deep")
    })?;
    let document = request
        .parsed_query()
        .map_err(|error| with_code(error, ErrorCode::BadUserInput))?;
    check_document(document, limits)?;
    Ok(document)
}

fn check_document(document: &ExecutableDocument, limits: &QueryLimits) -> ServerResult<()> {
    let shape = measure(document).map_err(|FragmentCycle(name)| {
        error_with_code(
            format!("fragment `{name}` spreads itself"),
            ErrorCode::BadUserInput,
        )
    })?;
    at_most(shape.depth, limits.max_depth, |n| {
        format!("the query is nested {n} fields deep")
    })?;
    at_most(shape.recursion, limits.max_nesting, |n| {
        format!("the query's selections nest {n} deep with its fragments")
    })?;
    // Every selection costs at least 1, so a query with more of them than the complexity
    // limit is over it: refused here, before anything expands its fragments to find out.
    if shape.selections > limits.max_complexity {
        return Err(too_complex(format!(
            "the query has more than {} selections with its fragments expanded",
            limits.max_complexity
        )));
    }
    let mut counts = Counts::default();
    for (_, operation) in document.operations.iter() {
        counts.selection_set(&operation.node.selection_set.node);
    }
    for fragment in document.fragments.values() {
        counts.selection_set(&fragment.node.selection_set.node);
    }
    at_most(counts.aliases, limits.max_aliases, |n| {
        format!("the query has {n} aliases")
    })?;
    at_most(counts.directives, limits.max_directives, |n| {
        format!("the query has {n} directives")
    })?;
    for (name, operation) in document.operations.iter() {
        if operation.node.ty != OperationType::Mutation {
            continue;
        }
        let mut seen = HashSet::new();
        let changes = seat_changes(&operation.node.selection_set.node, document, &mut seen);
        if changes > 1 {
            let name = name.map_or("the mutation".to_owned(), |n| format!("mutation {n}"));
            return Err(error_with_code(
                format!(
                    "{name} changes seats {changes} times; send each of holdSeats, \
                     releaseHold, confirmHold, cancelOrder, blockSeats, unblockSeats and \
                     cancelShowtime as an operation of its own"
                ),
                ErrorCode::BadUserInput,
            ));
        }
    }
    Ok(())
}

/// How deep a variable's value nests (a scalar: 0).
fn value_nesting(value: &Value) -> usize {
    match value {
        Value::List(items) => 1 + items.iter().map(value_nesting).max().unwrap_or(0),
        Value::Object(fields) => 1 + fields.values().map(value_nesting).max().unwrap_or(0),
        _ => 0,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_how_deep_variables_nest() {
        let value = |json| Value::from_json(json).unwrap();
        assert_eq!(value_nesting(&value(serde_json::json!("A1"))), 0);
        assert_eq!(
            value_nesting(&value(serde_json::json!({ "seats": ["A1"] }))),
            2
        );
        let deep = (0..40).fold(serde_json::json!(1), |inner, _| serde_json::json!([inner]));
        assert_eq!(value_nesting(&value(deep)), 40);
    }

    #[test]
    fn finds_the_longest_list_at_any_depth() {
        let value = |json| Value::from_json(json).unwrap();
        assert_eq!(longest_list(&value(serde_json::json!("A1"))), 0);
        let inner = serde_json::json!({ "rows": [{ "positions": vec![1; 70] }, {}] });
        assert_eq!(longest_list(&value(inner)), 70);
        let outer = serde_json::json!([[1, 2], [3]]);
        assert_eq!(longest_list(&value(outer)), 2);
    }
}
