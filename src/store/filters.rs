//! Pieces of filters shared by the queries: keyset conditions, safe text search, and the
//! geographic "nearest first".

use bson::{doc, Bson, Document};

use crate::domain::geo::GeoPoint;

/// Items strictly after `values` in ascending order of `fields` (a keyset page start):
/// `a > x OR (a = x AND b > y) OR ...`. The last field must be unique (`_id`).
pub fn after_ascending(fields: &[&str], values: &[Bson]) -> Document {
    keyset(fields, values, "$gt")
}

/// Items strictly after `values` in descending order of `fields`.
pub fn after_descending(fields: &[&str], values: &[Bson]) -> Document {
    keyset(fields, values, "$lt")
}

fn keyset(fields: &[&str], values: &[Bson], operator: &str) -> Document {
    debug_assert_eq!(fields.len(), values.len());
    let branches: Vec<Document> = (0..fields.len())
        .map(|i| {
            let mut branch = Document::new();
            for j in 0..i {
                branch.insert(fields[j], values[j].clone());
            }
            branch.insert(fields[i], doc! { operator: values[i].clone() });
            branch
        })
        .collect();
    // Implied by the branches; said on its own so an index scan starts at the cursor's first
    // field rather than at the start of the list.
    let bound = if operator == "$gt" { "$gte" } else { "$lte" };
    doc! { fields[0]: { bound: values[0].clone() }, "$or": branches }
}

/// A case-insensitive "contains" match on user text, with regex metacharacters escaped.
pub fn contains_text(text: &str) -> Document {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    doc! { "$regex": escaped, "$options": "i" }
}

/// Combines conditions with `$and`, leaving out empty ones.
pub fn all_of(conditions: Vec<Document>) -> Document {
    let mut conditions: Vec<Document> = conditions.into_iter().filter(|c| !c.is_empty()).collect();
    match conditions.len() {
        0 => Document::new(),
        1 => conditions.remove(0),
        _ => doc! { "$and": conditions },
    }
}

/// The cinemas within `radius_meters` of `point` (and at least `from_meters` away), nearest
/// first: `$nearSphere` on the 2dsphere index. A `find` with it takes about 15 ms on the
/// national demo on SecantusDB, where the `$geoNear` aggregation, which also returns the
/// distances, takes 150 ms; so the readers compute distances themselves
/// (`GeoJsonPoint::distance_from`).
pub(crate) fn nearest_first(
    point: GeoPoint,
    radius_meters: f64,
    from_meters: Option<f64>,
) -> Document {
    let mut near = doc! {
        "$geometry": { "type": "Point", "coordinates": [point.longitude, point.latitude] },
        "$maxDistance": radius_meters,
    };
    if let Some(from) = from_meters {
        near.insert("$minDistance", from);
    }
    doc! { "location": { "$nearSphere": near } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyset_condition_expands_lexicographically() {
        let filter = after_ascending(&["name", "_id"], &["b".into(), 7.into()]);
        assert_eq!(
            filter,
            doc! {
                "name": { "$gte": "b" },
                "$or": [ { "name": { "$gt": "b" } }, { "name": "b", "_id": { "$gt": 7 } } ],
            }
        );
    }

    #[test]
    fn text_search_escapes_metacharacters() {
        assert_eq!(
            contains_text("a.b(c)"),
            doc! { "$regex": "a\\.b\\(c\\)", "$options": "i" }
        );
    }

    #[test]
    fn all_of_skips_empty_conditions() {
        assert_eq!(all_of(vec![doc! {}, doc! { "a": 1 }]), doc! { "a": 1 });
        assert_eq!(all_of(vec![]), doc! {});
    }
}
