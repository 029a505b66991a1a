//! The layering rules of ARCHITECTURE.md, checked on the source: a change that breaks one
//! fails here, not in review.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, with its path relative to the crate and its code (comments
/// removed, so a doc comment may name what the code may not use).
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    assert!(files.len() > 50, "found the sources: {}", files.len());
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let code: Vec<&str> = text
                .lines()
                .map(|line| line.split("//").next().unwrap_or(""))
                .collect();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (relative, code.join("\n"))
        })
        .collect()
}

/// Files under `layer` (a path prefix like `src/domain/`) whose code names any of `paths`.
fn offenders(layer: &str, paths: &[&str]) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(file, _)| file.starts_with(layer))
        .flat_map(|(file, code)| {
            paths
                .iter()
                .filter(|path| names(&code, path))
                .map(|path| format!("{file} uses {path}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether `code` names the crate or module path `path` (`bson` in `use bson::…`,
/// `bson::doc!`, `{bson, …}`), not merely a word containing it (`mongodb_uri`).
fn names(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = &code[at + path.len()..];
        let starts = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
        starts && (after.starts_with("::") || after.starts_with(';') || after.starts_with(','))
    })
}

#[test]
fn only_the_store_talks_to_mongodb() {
    let outside: Vec<String> = sources()
        .into_iter()
        .filter(|(file, _)| !file.starts_with("src/store/"))
        .flat_map(|(file, code)| {
            ["bson", "mongodb"]
                .into_iter()
                .filter(|path| names(&code, path))
                .map(move |path| format!("{file} uses {path}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(outside.is_empty(), "outside src/store: {outside:#?}");
}

#[test]
fn the_domain_knows_no_database_graphql_or_http() {
    let found = offenders(
        "src/domain/",
        &[
            "async_graphql",
            "axum",
            "crate::store",
            "crate::graphql",
            "crate::http",
            "crate::booking",
            "crate::catalogue",
            "crate::live",
        ],
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn no_layer_calls_one_above_it() {
    let rules: [(&str, &[&str]); 6] = [
        (
            "src/store/",
            &[
                "async_graphql",
                "axum",
                "crate::graphql",
                "crate::http",
                "crate::booking",
                "crate::catalogue",
                "crate::live",
            ],
        ),
        // `catalogue` uses `booking`'s idempotency keys; `booking` never calls `catalogue`
        // (their periodic tasks are run by `background`, above both).
        (
            "src/booking/",
            &[
                "async_graphql",
                "axum",
                "crate::graphql",
                "crate::http",
                "crate::live",
                "crate::catalogue",
                "crate::background",
            ],
        ),
        (
            "src/catalogue/",
            &[
                "async_graphql",
                "axum",
                "crate::graphql",
                "crate::http",
                "crate::live",
                "crate::background",
            ],
        ),
        (
            "src/live/",
            &["async_graphql", "axum", "crate::graphql", "crate::http"],
        ),
        // `config` builds the graphql layer's limits; the graphql layer never reads `config`.
        ("src/graphql/", &["axum", "crate::http", "crate::config"]),
        // Overload control is plumbing every layer reads: it calls none of them.
        (
            "src/overload/",
            &[
                "async_graphql",
                "axum",
                "crate::graphql",
                "crate::http",
                "crate::store",
                "crate::booking",
                "crate::catalogue",
                "crate::live",
            ],
        ),
    ];
    let found: Vec<String> = rules
        .iter()
        .flat_map(|(layer, paths)| offenders(layer, paths))
        .collect();
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_rule_sees_what_it_forbids() {
    assert!(names("use bson::oid::ObjectId;", "bson"));
    assert!(names("let d = bson::doc! {};", "bson"));
    assert!(names("use {bson, serde};", "bson"));
    assert!(names("crate::config::Limits::default()", "crate::config"));
    assert!(!names("pub mongodb_uri: String,", "mongodb"));
    assert!(!names("fn stored_bson_bytes()", "bson"));
    assert!(!names("let x = my::bson::thing;", "bson"));
}

/// A GraphQL type's field that awaits the store (or a layer that calls it) awaits it boxed
/// (see `graphql::types`): otherwise every field of the type is as large as that call's future.
#[test]
fn graphql_types_await_store_calls_boxed() {
    let mut unboxed = Vec::new();
    let mut calls = 0;
    for (path, code) in sources() {
        if !path.starts_with("src/graphql/types/") {
            continue;
        }
        for statement in code.split([';', '{', '}']) {
            if statement.contains(".store()") && statement.contains(".await") {
                calls += 1;
                if !statement.contains("Box::pin(") {
                    unboxed.push(format!("{path}: {}", statement.trim()));
                }
            }
        }
    }
    assert!(calls >= 5, "found the store calls: {calls}");
    assert!(unboxed.is_empty(), "unboxed store calls: {unboxed:#?}");
}
