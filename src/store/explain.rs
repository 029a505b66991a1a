//! Query plans of recorded commands, for tests that prove every booking command is served by
//! an index and examines one document, on MongoDB and on SecantusDB alike (which plans some
//! filter shapes, such as `$expr` beside `_id`, as a collection scan where MongoDB does not).

use mongodb::bson::{doc, Bson, Document};

use super::{SentCommand, Store};
use crate::error::ApiError;

/// How the server ran a command, as `explain` (verbosity `executionStats`) reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// `find`, `update`, ...
    pub command: String,
    pub collection: String,
    /// Documents the server read.
    pub docs_examined: i64,
    /// Index keys it read.
    pub keys_examined: i64,
    /// Whether any stage scans the whole collection.
    pub collection_scan: bool,
    /// The winning plan, for a failing test's message.
    pub winning_plan: String,
}

/// Commands `explain` can run: those that choose documents with a filter.
const EXPLAINABLE: [&str; 5] = ["find", "update", "delete", "findAndModify", "aggregate"];

/// Fields of a sent command that are the session's or the driver's, not the query's.
const SESSION_FIELDS: [&str; 11] = [
    "$db",
    "lsid",
    "$clusterTime",
    "txnNumber",
    "autocommit",
    "startTransaction",
    "readConcern",
    "writeConcern",
    "$readPreference",
    "maxTimeMS",
    "apiVersion",
];

impl Store {
    /// The plan of a recorded command, run again as `explain` (which changes nothing); `None`
    /// for a command that chooses no documents (an insert, a commit).
    pub async fn plan_of(&self, sent: &SentCommand) -> Result<Option<Plan>, ApiError> {
        if !EXPLAINABLE.contains(&sent.name.as_str()) {
            return Ok(None);
        }
        let mut command: Document = sent.command.clone();
        for field in SESSION_FIELDS {
            command.remove(field);
        }
        let explained = self
            .db
            .run_command(doc! { "explain": command, "verbosity": "executionStats" })
            .await?;
        let explained = first_stage_cursor(&explained).unwrap_or(&explained);
        let stats = explained.get_document("executionStats").ok();
        let count = |name: &str| {
            stats
                .and_then(|stats| stats.get(name))
                .and_then(super::codec::count)
                .unwrap_or(0)
        };
        let winning_plan = explained
            .get_document("queryPlanner")
            .and_then(|planner| planner.get_document("winningPlan"))
            .cloned()
            .unwrap_or_default();
        Ok(Some(Plan {
            command: sent.name.clone(),
            collection: sent.collection.clone().unwrap_or_default(),
            docs_examined: count("totalDocsExamined"),
            keys_examined: count("totalKeysExamined"),
            collection_scan: has_stage(&winning_plan, "COLLSCAN"),
            winning_plan: winning_plan.to_string(),
        }))
    }
}

/// An aggregation's explanation keeps the plan of its first stage, the one that reads the
/// collection, under `stages[0].$cursor` (when the server did not plan the pipeline whole).
fn first_stage_cursor(explained: &Document) -> Option<&Document> {
    match explained.get_array("stages").ok()?.first()? {
        Bson::Document(stage) => stage.get_document("$cursor").ok(),
        _ => None,
    }
}

/// Whether `plan` or any stage under it is `stage`.
fn has_stage(plan: &Document, stage: &str) -> bool {
    plan.iter().any(|(key, value)| match value {
        Bson::String(name) if key == "stage" => name == stage,
        Bson::Document(inner) => has_stage(inner, stage),
        Bson::Array(items) => items.iter().any(|item| match item {
            Bson::Document(inner) => has_stage(inner, stage),
            _ => false,
        }),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aggregation_is_read_through_its_first_stage() {
        let plan = doc! { "queryPlanner": { "winningPlan": { "stage": "EXPRESS_IXSCAN" } },
        "executionStats": { "totalDocsExamined": 1 } };
        let explained = doc! { "stages": [{ "$cursor": plan.clone() }, { "$lookup": {} }] };
        assert_eq!(first_stage_cursor(&explained), Some(&plan));
        assert_eq!(first_stage_cursor(&plan), None);
    }

    #[test]
    fn finds_a_collection_scan_at_any_depth() {
        let scan = doc! { "stage": "UPDATE", "inputStage": { "stage": "COLLSCAN" } };
        assert!(has_stage(&scan, "COLLSCAN"));
        let indexed = doc! { "stage": "FETCH", "inputStage": { "stage": "IXSCAN" } };
        assert!(!has_stage(&indexed, "COLLSCAN"));
        let branches =
            doc! { "stage": "OR", "inputStages": [{ "stage": "IXSCAN" }, { "stage": "COLLSCAN" }] };
        assert!(has_stage(&branches, "COLLSCAN"));
    }
}
