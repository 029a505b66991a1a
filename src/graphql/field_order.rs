//! Fields in the order the query asks for them. async-graphql 7 resolves a selection's fields
//! concurrently and writes each as it finishes (async-graphql#612), so a field that waits for
//! a loader comes after one that did not, and the order changes from one request to the next.
//! The GraphQL specification's serialized map ordering asks for the query's order. Once the
//! operation has run, a [`Plan`] puts every object's keys back in that order: a plan of the
//! selection (fragments flattened, first appearance wins) built once per request, then one
//! sort per object that is out of order.

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{Name, Value};
use indexmap::IndexMap;

/// The plan of operation `operation_name` (or the document's one operation), built before
/// the document goes to the schema; [`Plan::apply`] then puts the keys of every object of the
/// response's data in the order the query asked for them.
pub fn plan(document: &ExecutableDocument, operation_name: Option<&str>) -> Option<Plan> {
    let (_, operation) = match operation_name {
        Some(name) => document
            .operations
            .iter()
            .find(|(candidate, _)| candidate.map(Name::as_str) == Some(name)),
        None => document.operations.iter().next(),
    }?;
    Some(Plan::of(document, &[&operation.node.selection_set.node]))
}

/// The response keys of a selection in the query's order, each with the plan of its own
/// selection.
#[derive(Debug, Default)]
pub struct Plan {
    keys: IndexMap<Name, Plan>,
}

impl Plan {
    /// The plan of the selection sets that apply at one place of the response (a field
    /// asked twice, or through fragments, merges its selections).
    fn of(document: &ExecutableDocument, sets: &[&SelectionSet]) -> Plan {
        let mut children: IndexMap<Name, Vec<&SelectionSet>> = IndexMap::new();
        for set in sets {
            collect(document, set, &mut children);
        }
        Plan {
            keys: children
                .into_iter()
                .map(|(key, sets)| {
                    let plan = if sets.iter().all(|set| set.items.is_empty()) {
                        Plan::default()
                    } else {
                        Plan::of(document, &sets)
                    };
                    (key, plan)
                })
                .collect(),
        }
    }

    pub fn apply(&self, value: &mut Value) {
        if self.keys.is_empty() {
            return;
        }
        match value {
            Value::Object(fields) => {
                // Most objects already have the plan's keys in its order: no look-ups then.
                let aligned = fields.len() == self.keys.len()
                    && fields.keys().zip(self.keys.keys()).all(|(a, b)| a == b);
                if aligned {
                    for ((_, field), (_, plan)) in fields.iter_mut().zip(self.keys.iter()) {
                        plan.apply(field);
                    }
                    return;
                }
                let position = |key: &Name| self.keys.get_index_of(key).unwrap_or(usize::MAX);
                let in_order = fields
                    .keys()
                    .zip(fields.keys().skip(1))
                    .all(|(a, b)| position(a) <= position(b));
                if !in_order {
                    fields.sort_by(|a, _, b, _| position(a).cmp(&position(b)));
                }
                for (key, field) in fields.iter_mut() {
                    if let Some(plan) = self.keys.get(key) {
                        plan.apply(field);
                    }
                }
            }
            Value::List(items) => items.iter_mut().for_each(|item| self.apply(item)),
            _ => {}
        }
    }
}

/// Adds the response keys of `set` to `into` in order, flattening fragments.
fn collect<'a>(
    document: &'a ExecutableDocument,
    set: &'a SelectionSet,
    into: &mut IndexMap<Name, Vec<&'a SelectionSet>>,
) {
    for selection in &set.items {
        match &selection.node {
            Selection::Field(field) => {
                let key = field.node.response_key().node.clone();
                into.entry(key)
                    .or_default()
                    .push(&field.node.selection_set.node);
            }
            Selection::InlineFragment(inline) => {
                collect(document, &inline.node.selection_set.node, into);
            }
            Selection::FragmentSpread(spread) => {
                if let Some(fragment) = document.fragments.get(&spread.node.fragment_name.node) {
                    collect(document, &fragment.node.selection_set.node, into);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    /// `data` (JSON text, its keys in the order written) reordered for `query`.
    fn reorder(query: &str, data: &str) -> String {
        let document = parse_query(query).unwrap();
        let (_, operation) = document.operations.iter().next().unwrap();
        let plan = Plan::of(&document, &[&operation.node.selection_set.node]);
        let mut value: Value = serde_json::from_str(data).unwrap();
        plan.apply(&mut value);
        // async-graphql's `Value` keeps its keys' order when written.
        serde_json::to_string(&value).unwrap()
    }

    #[test]
    fn puts_keys_in_query_order_at_every_level_and_in_lists() {
        let query = "{ a { x y } b c: d }";
        let data = r#"{"c":3,"b":2,"a":[{"y":1,"x":0},{"y":2,"x":1}]}"#;
        assert_eq!(
            reorder(query, data),
            r#"{"a":[{"x":0,"y":1},{"x":1,"y":2}],"b":2,"c":3}"#
        );
    }

    #[test]
    fn reorders_below_an_object_already_in_order() {
        let query = "{ a { x y } b }";
        let data = r#"{"a":{"y":1,"x":0},"b":2}"#;
        assert_eq!(reorder(query, data), r#"{"a":{"x":0,"y":1},"b":2}"#);
    }

    #[test]
    fn follows_fragments_and_merges_repeated_fields() {
        let query = "{ ...F a { y } ... on Q { z } } fragment F on Q { a { x } b }";
        let data = r#"{"z":1,"b":2,"a":{"y":1,"x":0}}"#;
        assert_eq!(reorder(query, data), r#"{"a":{"x":0,"y":1},"b":2,"z":1}"#);
    }
}
