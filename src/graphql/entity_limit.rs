//! A cap on the representations the `_entities` calls of one request carry (`--federation`).
//! The router asks for every entity of a plan step at once; the complexity limit counts the
//! selection once, whatever the number of representations, so without a cap one request of a
//! few hundred kilobytes could make the gateway load thousands of seat maps. The cap is on the
//! sum over the request's calls: a cap per call was passed sixteen times over by aliases of one
//! variable.

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};
use async_graphql::{Name, ServerResult, Value, Variables};

use super::errors::error_with_code;
use crate::error::ErrorCode;

/// The most representations the `_entities` calls of one request may carry in all: more than a
/// router asks for in one plan step of any page we serve.
pub const MAX_REPRESENTATIONS: usize = 500;

/// Where the representations of a document's `_entities` calls come from.
#[derive(Debug, Default)]
pub struct Representations {
    /// Lists written in the query.
    literal: usize,
    /// Variables holding lists.
    variables: Vec<Name>,
}

impl Representations {
    /// The `_entities` calls at the root of the document's operations (through inline
    /// fragments and fragment spreads).
    pub fn of(document: &ExecutableDocument) -> Self {
        let mut found = Representations::default();
        for (_, operation) in document.operations.iter() {
            found.selection_set(&operation.node.selection_set.node, document, 0);
        }
        found
    }

    /// QUERY_TOO_COMPLEX when the `_entities` calls of this request carry more than
    /// [`MAX_REPRESENTATIONS`] in all.
    pub fn check(&self, variables: &Variables) -> ServerResult<()> {
        let given = self.variables.iter().map(|name| match variables.get(name) {
            Some(Value::List(items)) => items.len(),
            _ => 0,
        });
        let all = given.fold(self.literal, usize::saturating_add);
        if all > MAX_REPRESENTATIONS {
            return Err(error_with_code(
                format!(
                    "_entities was given {all} representations; at most \
                     {MAX_REPRESENTATIONS} are allowed in one request"
                ),
                ErrorCode::QueryTooComplex,
            ));
        }
        Ok(())
    }

    fn selection_set(&mut self, set: &SelectionSet, document: &ExecutableDocument, depth: usize) {
        // Fragments spreading each other are refused by the shape limits before this runs;
        // the depth only keeps this walk finite whatever it is given.
        if depth > 32 {
            return;
        }
        for selection in &set.items {
            match &selection.node {
                Selection::Field(field) if field.node.name.node == "_entities" => {
                    match field.node.get_argument("representations").map(|a| &a.node) {
                        Some(async_graphql_value::Value::List(items)) => {
                            self.literal = self.literal.saturating_add(items.len());
                        }
                        Some(async_graphql_value::Value::Variable(name)) => {
                            self.variables.push(name.clone());
                        }
                        _ => {}
                    }
                }
                Selection::Field(_) => {}
                Selection::InlineFragment(inline) => {
                    self.selection_set(&inline.node.selection_set.node, document, depth + 1);
                }
                Selection::FragmentSpread(spread) => {
                    if let Some(fragment) = document.fragments.get(&spread.node.fragment_name.node)
                    {
                        self.selection_set(&fragment.node.selection_set.node, document, depth + 1);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn representations(query: &str) -> Representations {
        Representations::of(&async_graphql::parser::parse_query(query).unwrap())
    }

    fn list(n: usize) -> String {
        vec!["{ __typename: \"Movie\", id: \"x\" }"; n].join(", ")
    }

    fn variables(n: usize) -> Variables {
        let items = vec![Value::Null; n];
        Variables::from_json(serde_json::json!({ "r": items }))
    }

    #[test]
    fn a_list_written_in_the_query_counts_its_items() {
        let at_cap = format!(
            "{{ _entities(representations: [{}]) {{ __typename }} }}",
            list(500)
        );
        assert!(representations(&at_cap)
            .check(&Variables::default())
            .is_ok());
        let over = format!(
            "{{ _entities(representations: [{}]) {{ __typename }} }}",
            list(501)
        );
        let refused = representations(&over).check(&Variables::default());
        assert!(refused.unwrap_err().message.contains("501 representations"));
    }

    #[test]
    fn a_variable_counts_the_list_each_request_gives() {
        let query = "query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }";
        let found = representations(query);
        assert!(found.check(&variables(500)).is_ok());
        assert!(found.check(&variables(501)).is_err());
        assert!(found.check(&Variables::default()).is_ok());
    }

    #[test]
    fn calls_inside_fragments_and_under_aliases_are_counted() {
        let query = "query ($r: [_Any!]!) { ...F ... on Query { e: _entities(representations: [])
            { __typename } } } fragment F on Query { _entities(representations: $r) { __typename } }";
        let found = representations(query);
        assert!(found.check(&variables(501)).is_err());
        assert!(found.check(&variables(3)).is_ok());
    }

    #[test]
    fn the_calls_of_a_request_are_counted_together() {
        let query = "query ($r: [_Any!]!) { a: _entities(representations: $r) { __typename }
            b: _entities(representations: $r) { __typename } }";
        let found = representations(query);
        assert!(found.check(&variables(250)).is_ok());
        let refused = found.check(&variables(251)).unwrap_err();
        assert!(
            refused.message.contains("502 representations"),
            "{}",
            refused.message
        );
        let literal = format!(
            "{{ a: _entities(representations: [{0}]) {{ __typename }}
                b: _entities(representations: [{0}]) {{ __typename }} }}",
            list(251)
        );
        assert!(representations(&literal)
            .check(&Variables::default())
            .is_err());
    }

    #[test]
    fn other_fields_are_not_counted() {
        let query = "query ($r: [ID!]!) { movies(ids: $r) { id } }";
        assert!(representations(query).check(&variables(10_000)).is_ok());
    }
}
