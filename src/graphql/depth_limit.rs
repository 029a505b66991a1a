//! The query depth, as the depth limit counts it (`shape_limits` checks it right after
//! parsing, before validation and any resolver).
//!
//! async-graphql's own depth limit counts introspection too, and the playground's introspection
//! query (nested `ofType`s) is deeper than any sensible limit for data queries. This one skips
//! introspection fields (`__schema`, `__type`), so the limit can stay tight for data.

use std::collections::HashSet;

use async_graphql::parser::types::Selection;
use async_graphql::parser::types::{ExecutableDocument, SelectionSet};

/// The deepest chain of fields of any operation, fragments expanded, introspection left out.
pub fn document_depth(document: &ExecutableDocument) -> usize {
    document
        .operations
        .iter()
        .map(|(_, operation)| {
            selection_depth(
                document,
                &operation.node.selection_set.node,
                &mut HashSet::new(),
            )
        })
        .max()
        .unwrap_or(0)
}

/// `visiting` holds the fragments on the current path: a cycle (refused later by validation)
/// stops here instead of recursing forever.
fn selection_depth<'a>(
    document: &'a ExecutableDocument,
    set: &'a SelectionSet,
    visiting: &mut HashSet<&'a str>,
) -> usize {
    set.items
        .iter()
        .map(|selection| match &selection.node {
            Selection::Field(field) if field.node.name.node.starts_with("__") => 0,
            Selection::Field(field) => {
                1 + selection_depth(document, &field.node.selection_set.node, visiting)
            }
            Selection::InlineFragment(fragment) => {
                selection_depth(document, &fragment.node.selection_set.node, visiting)
            }
            Selection::FragmentSpread(spread) => {
                let name = spread.node.fragment_name.node.as_str();
                let Some(fragment) = document.fragments.get(name) else {
                    return 0;
                };
                if !visiting.insert(name) {
                    return 0;
                }
                let depth = selection_depth(document, &fragment.node.selection_set.node, visiting);
                visiting.remove(name);
                depth
            }
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    fn depth(query: &str) -> usize {
        document_depth(&parse_query(query).unwrap())
    }

    #[test]
    fn counts_nested_fields_through_fragments() {
        assert_eq!(depth("{ a }"), 1);
        assert_eq!(depth("{ a { b { c } } d }"), 3);
        assert_eq!(depth("{ a { ...F } } fragment F on T { b { c } }"), 3);
        assert_eq!(depth("{ a { ... on T { b } } }"), 2);
    }

    #[test]
    fn leaves_introspection_out() {
        assert_eq!(
            depth("{ __schema { types { fields { type { ofType { ofType { name } } } } } } }"),
            0
        );
        assert_eq!(depth("{ a { __typename b } }"), 2);
    }

    #[test]
    fn survives_fragment_cycles() {
        assert_eq!(depth("{ a { ...F } } fragment F on T { b { ...F } }"), 2);
    }
}
