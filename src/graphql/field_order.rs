//! Fields in the order the query asks for them. async-graphql 7 resolves a selection's fields
//! concurrently and writes each as it finishes (async-graphql#612), so a field that waits for
//! a loader comes after one that did not, and the order changes from one request to the next.
//! The GraphQL specification's serialized map ordering asks for the query's order. This
//! extension keeps the parsed document and, once the operation has run, puts every object's
//! keys back in that order: a plan of the selection (fragments flattened, first appearance
//! wins) built once per request, then one sort per object that is out of order.

use std::sync::{Arc, Mutex};

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextExecute, NextParseQuery,
};
use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{Name, Response, ServerResult, Value, Variables};
use indexmap::IndexMap;

/// Installs the reordering on every request.
pub struct FieldOrder;

impl ExtensionFactory for FieldOrder {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Reorder::default())
    }
}

#[derive(Default)]
struct Reorder {
    document: Mutex<Option<ExecutableDocument>>,
}

#[async_trait::async_trait]
impl Extension for Reorder {
    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        let document = next.run(ctx, query, variables).await?;
        *self.document.lock().expect("document lock") = Some(document.clone());
        Ok(document)
    }

    async fn execute(
        &self,
        ctx: &ExtensionContext<'_>,
        operation_name: Option<&str>,
        next: NextExecute<'_>,
    ) -> Response {
        let mut response = next.run(ctx, operation_name).await;
        let document = self.document.lock().expect("document lock").take();
        if let Some(document) = document {
            let operation = match operation_name {
                Some(name) => document
                    .operations
                    .iter()
                    .find(|(candidate, _)| candidate.map(Name::as_str) == Some(name)),
                None => document.operations.iter().next(),
            };
            if let Some((_, operation)) = operation {
                let plan = Plan::of(&document, &[&operation.node.selection_set.node]);
                plan.apply(&mut response.data);
            }
        }
        response
    }
}

/// The response keys of a selection in the query's order, each with the plan of its own
/// selection.
#[derive(Debug, Default)]
struct Plan {
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

    fn apply(&self, value: &mut Value) {
        if self.keys.is_empty() {
            return;
        }
        match value {
            Value::Object(fields) => {
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
    fn follows_fragments_and_merges_repeated_fields() {
        let query = "{ ...F a { y } ... on Q { z } } fragment F on Q { a { x } b }";
        let data = r#"{"z":1,"b":2,"a":{"y":1,"x":0}}"#;
        assert_eq!(reorder(query, data), r#"{"a":{"x":0,"y":1},"b":2,"z":1}"#);
    }
}
