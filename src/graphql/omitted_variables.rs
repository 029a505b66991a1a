//! Omitted variables that stand for a whole argument are sent on as `null`.
//!
//! async-graphql 8 keeps an omitted variable undefined, as the specification says (so the
//! default of an input field it stands for applies), but 8.0.0-rc.5's validation-time
//! argument reader (`VisitorContext::param_value`, through which a connection's complexity
//! reads `first`) refuses an omitted variable that has no default: "Variable first is not
//! defined." For an argument that has no default, an omitted variable and `null` mean the
//! same, and no argument of this schema has a default (a test reads every argument through
//! introspection); so those variables become `null` before validation. Variables inside input
//! objects and lists stay omitted: input fields do have defaults. (The introspection types'
//! `includeDeprecated: Boolean = false` does too, but neither 7.2 nor 8.0 applies an argument's
//! default to an omitted variable: both refuse it as null, with or without this pass.)

use std::collections::HashSet;

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{Name, Value, Variables};

/// The nullable variables without a default that the operation passes as a whole argument.
#[derive(Debug, Default)]
pub struct OmittedAsNull {
    names: Vec<Name>,
}

impl OmittedAsNull {
    /// Those of operation `operation_name` (or the document's one operation).
    pub fn of(document: &ExecutableDocument, operation_name: Option<&str>) -> Self {
        let operation = match operation_name {
            Some(name) => document
                .operations
                .iter()
                .find(|(candidate, _)| candidate.map(Name::as_str) == Some(name)),
            None => document.operations.iter().next(),
        };
        let Some((_, operation)) = operation else {
            return OmittedAsNull::default();
        };
        let mut arguments = HashSet::new();
        let mut fragments_seen = HashSet::new();
        whole_arguments(
            document,
            &operation.node.selection_set.node,
            &mut fragments_seen,
            &mut arguments,
        );
        let names = operation
            .node
            .variable_definitions
            .iter()
            .map(|definition| &definition.node)
            .filter(|definition| {
                definition.var_type.node.nullable
                    && definition.default_value.is_none()
                    && arguments.contains(&definition.name.node)
            })
            .map(|definition| definition.name.node.clone())
            .collect();
        OmittedAsNull { names }
    }

    /// Sets each of those variables that `variables` lacks to `null`.
    pub fn fill(&self, variables: &mut Variables) {
        for name in &self.names {
            if !variables.contains_key(name) {
                variables.insert(name.clone(), Value::Null);
            }
        }
    }
}

/// Adds to `into` the variables given as a whole field argument in `set`, following
/// fragments (each once).
fn whole_arguments<'a>(
    document: &'a ExecutableDocument,
    set: &'a SelectionSet,
    fragments_seen: &mut HashSet<&'a Name>,
    into: &mut HashSet<Name>,
) {
    for selection in &set.items {
        match &selection.node {
            Selection::Field(field) => {
                for (_, value) in &field.node.arguments {
                    if let async_graphql_value::Value::Variable(name) = &value.node {
                        into.insert(name.clone());
                    }
                }
                whole_arguments(
                    document,
                    &field.node.selection_set.node,
                    fragments_seen,
                    into,
                );
            }
            Selection::InlineFragment(inline) => {
                whole_arguments(
                    document,
                    &inline.node.selection_set.node,
                    fragments_seen,
                    into,
                );
            }
            Selection::FragmentSpread(spread) => {
                let name = &spread.node.fragment_name.node;
                if let Some(fragment) = document.fragments.get(name) {
                    if fragments_seen.insert(name) {
                        whole_arguments(
                            document,
                            &fragment.node.selection_set.node,
                            fragments_seen,
                            into,
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    fn filled(query: &str, given: serde_json::Value) -> serde_json::Value {
        let document = parse_query(query).unwrap();
        let mut variables = Variables::from_json(given);
        OmittedAsNull::of(&document, None).fill(&mut variables);
        variables.into_value().into_json().unwrap()
    }

    #[test]
    fn omitted_whole_arguments_become_null_and_given_ones_stay() {
        let query = "query ($first: Int, $after: String) { a(first: $first, after: $after) }";
        assert_eq!(
            filled(query, serde_json::json!({ "after": "x" })),
            serde_json::json!({ "first": null, "after": "x" })
        );
    }

    #[test]
    fn variables_in_input_objects_with_defaults_or_non_null_stay_omitted() {
        let query = "query ($kind: Kind, $n: Int = 2, $m: Int!) {
            a(input: { kind: $kind }, n: $n, m: $m) }";
        assert_eq!(filled(query, serde_json::json!({})), serde_json::json!({}));
    }

    #[test]
    fn follows_fragments_and_nested_fields() {
        let query = "query ($first: Int) { ...F } fragment F on Q { a { b(first: $first) } }";
        assert_eq!(
            filled(query, serde_json::json!({})),
            serde_json::json!({ "first": null })
        );
    }
}
