//! How big and how deep a parsed query is once its fragments are expanded, found without
//! expanding them: each fragment is measured once and its figures reused wherever it is
//! spread. async-graphql's own walks (its recursion check, validation, complexity, execution)
//! expand every spread, so a few hundred bytes of fragments spread four times each, a dozen
//! levels down, would keep them busy for minutes; `shape_limits` refuses such a query from
//! these figures before any of them runs.

use std::collections::HashMap;

use async_graphql::parser::types::{ExecutableDocument, Selection, SelectionSet};

/// A document's figures, fragments expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Shape {
    /// The deepest chain of fields, introspection (`__schema`, `__type`) left out: the
    /// playground's introspection query nests deeper than any sensible limit for data.
    pub depth: usize,
    /// The deepest chain of selection sets entered through fields, fragment spreads and inline
    /// fragments, introspection included, counted as async-graphql's recursion limit counts.
    pub recursion: usize,
    /// Fields, fragment spreads and inline fragments, each counted every time it is reached.
    pub selections: usize,
}

impl Shape {
    /// The shape of `child` one selection set further down, seen from its parent.
    fn nested(child: Shape, counts_depth: bool) -> Shape {
        Shape {
            depth: if counts_depth { 1 + child.depth } else { 0 },
            recursion: 1 + child.recursion,
            selections: child.selections.saturating_add(1),
        }
    }

    fn beside(self, other: Shape) -> Shape {
        Shape {
            depth: self.depth.max(other.depth),
            recursion: self.recursion.max(other.recursion),
            selections: self.selections.saturating_add(other.selections),
        }
    }
}

/// A fragment that spreads itself, directly or through others: validation would refuse it,
/// but expanding it first would never end.
#[derive(Debug, PartialEq, Eq)]
pub struct FragmentCycle(pub String);

/// The figures of the document's deepest and biggest operation.
pub fn measure(document: &ExecutableDocument) -> Result<Shape, FragmentCycle> {
    let mut measurer = Measurer {
        document,
        fragments: HashMap::new(),
    };
    let mut shape = Shape::default();
    for (_, operation) in document.operations.iter() {
        let operation = measurer.set(&operation.node.selection_set.node)?;
        shape = Shape {
            selections: shape.selections.max(operation.selections),
            ..shape.beside(operation)
        };
    }
    Ok(shape)
}

struct Measurer<'a> {
    document: &'a ExecutableDocument,
    /// Each fragment's shape once measured; `None` while it is being measured.
    fragments: HashMap<&'a str, Option<Shape>>,
}

impl<'a> Measurer<'a> {
    fn set(&mut self, set: &'a SelectionSet) -> Result<Shape, FragmentCycle> {
        let mut shape = Shape::default();
        for selection in &set.items {
            let one = match &selection.node {
                Selection::Field(field) if field.node.selection_set.node.items.is_empty() => {
                    Shape {
                        depth: usize::from(!field.node.name.node.starts_with("__")),
                        recursion: 0,
                        selections: 1,
                    }
                }
                Selection::Field(field) => {
                    let introspection = field.node.name.node.starts_with("__");
                    let child = self.set(&field.node.selection_set.node)?;
                    // Below `__schema` and `__type` every field is introspection too.
                    Shape::nested(child, !introspection)
                }
                Selection::InlineFragment(inline) => {
                    let child = self.set(&inline.node.selection_set.node)?;
                    Shape {
                        depth: child.depth,
                        ..Shape::nested(child, true)
                    }
                }
                Selection::FragmentSpread(spread) => {
                    let child = self.fragment(spread.node.fragment_name.node.as_str())?;
                    Shape {
                        depth: child.depth,
                        ..Shape::nested(child, true)
                    }
                }
            };
            shape = shape.beside(one);
        }
        Ok(shape)
    }

    fn fragment(&mut self, name: &'a str) -> Result<Shape, FragmentCycle> {
        match self.fragments.get(name) {
            Some(Some(shape)) => return Ok(*shape),
            Some(None) => return Err(FragmentCycle(name.to_owned())),
            None => {}
        }
        // An unknown fragment is validation's to report.
        let Some(fragment) = self.document.fragments.get(name) else {
            return Ok(Shape::default());
        };
        self.fragments.insert(name, None);
        let shape = self.set(&fragment.node.selection_set.node)?;
        self.fragments.insert(name, Some(shape));
        Ok(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::parser::parse_query;

    fn shape(query: &str) -> Shape {
        measure(&parse_query(query).unwrap()).unwrap()
    }

    #[test]
    fn depth_counts_nested_fields_through_fragments() {
        assert_eq!(shape("{ a }").depth, 1);
        assert_eq!(shape("{ a { b { c } } d }").depth, 3);
        assert_eq!(shape("{ a { ...F } } fragment F on T { b { c } }").depth, 3);
        assert_eq!(shape("{ a { ... on T { b } } }").depth, 2);
    }

    #[test]
    fn depth_leaves_introspection_out_but_recursion_does_not() {
        let introspection =
            shape("{ __schema { types { fields { type { ofType { ofType { name } } } } } } }");
        assert_eq!((introspection.depth, introspection.recursion), (0, 6));
        assert_eq!(shape("{ a { __typename b } }").depth, 2);
    }

    #[test]
    fn recursion_counts_selection_sets_as_async_graphql_does() {
        assert_eq!(shape("{ a }").recursion, 0);
        assert_eq!(shape("{ a { b } }").recursion, 1);
        // A spread and an inline fragment each enter a selection set.
        let query = "{ a { ...F } } fragment F on T { ... on T { b { c } } }";
        assert_eq!(shape(query).recursion, 4);
    }

    #[test]
    fn selections_count_every_expansion() {
        assert_eq!(shape("{ a b { c } }").selections, 3);
        // F is spread twice: its two selections count twice, and each spread once.
        let query = "{ ...F x { ...F } } fragment F on T { a b }";
        assert_eq!(shape(query).selections, 1 + 2 + 1 + 1 + 2);
    }

    #[test]
    fn a_fragment_bomb_is_measured_without_expanding_it() {
        // 4^40 selections once expanded: measured in 41 fragment visits.
        let mut query = "{ ...F0 }".to_owned();
        for i in 0..40 {
            let next = i + 1;
            query +=
                &format!(" fragment F{i} on Q {{ ...F{next} ...F{next} ...F{next} ...F{next} }}");
        }
        query += " fragment F40 on Q { a }";
        let bomb = shape(&query);
        assert_eq!(bomb.selections, usize::MAX, "saturated, not overflowed");
        assert_eq!(bomb.recursion, 41);
    }

    #[test]
    fn fragment_cycles_are_found() {
        let document =
            parse_query("{ a { ...F } } fragment F on T { b { ...G } } fragment G on T { ...F }")
                .unwrap();
        assert_eq!(measure(&document), Err(FragmentCycle("F".into())));
    }
}
