//! The layering rules of ARCHITECTURE.md, checked on the source: a change that breaks one
//! fails here, not in review.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, with its path relative to the crate and its code (comments
/// removed, so a doc comment may name what the code may not use).
pub(crate) fn sources() -> Vec<(String, String)> {
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
pub(crate) fn names(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = &code[at + path.len()..];
        let starts = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':'));
        starts && (after.starts_with("::") || after.starts_with(';') || after.starts_with(','))
    })
}

/// The feature folders: `src/<feature>/` with pure rules (`rules.rs` or `rules/`) or store code
/// (`store/`) of its own. Each is laid out the same way: `rules` (pure), use cases beside it,
/// `store/`, `graphql/`, each part there only when the feature has one.
pub(crate) fn features() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found: Vec<String> = std::fs::read_dir(src)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            ["store", "rules", "graphql"]
                .iter()
                .any(|part| path.join(part).is_dir())
                || path.join("rules.rs").is_file()
        })
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    found.sort();
    for feature in ["webhooks", "admissions", "inventory", "holds", "checkout"] {
        assert!(found.contains(&feature.to_owned()), "{found:?}");
    }
    found
}

/// Whether `file` is store code: the shared database plumbing (`src/store/`) or a feature's
/// `store/`.
fn is_store_part(file: &str) -> bool {
    file.starts_with("src/store/") || file.contains("/store/")
}

/// Whether `file` is a feature's GraphQL part (`src/<feature>/graphql/`).
fn is_graphql_part(file: &str) -> bool {
    file.starts_with("src/graphql/") || file.contains("/graphql/")
}

/// Whether `file` holds a feature's pure rules (`src/<feature>/rules.rs` or `rules/`).
fn is_rules_part(file: &str) -> bool {
    file.ends_with("/rules.rs") || file.contains("/rules/")
}

#[test]
fn only_the_store_talks_to_mongodb() {
    let outside: Vec<String> = sources()
        .into_iter()
        .filter(|(file, _)| !is_store_part(file))
        .flat_map(|(file, code)| {
            ["bson", "mongodb"]
                .into_iter()
                .filter(|path| names(&code, path))
                .map(move |path| format!("{file} uses {path}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(outside.is_empty(), "outside the store parts: {outside:#?}");
}

/// Each feature's parts keep to their tier: its rules know nothing of MongoDB, GraphQL, axum
/// or the store; its use cases and store code nothing of GraphQL or HTTP; its GraphQL part
/// nothing of HTTP or the configuration (as `src/graphql/`).
#[test]
fn each_part_of_a_feature_keeps_to_its_tier() {
    let ui = ["async_graphql", "axum", "crate::graphql", "crate::http"].map(String::from);
    let mut found = Vec::new();
    for feature in features() {
        let folder = format!("src/{feature}/");
        for (file, code) in sources() {
            if !file.starts_with(&folder) {
                continue;
            }
            let forbidden: Vec<String> = if is_rules_part(&file) {
                let io = ["crate::store", "tokio", "reqwest"].map(String::from);
                let own_store = format!("crate::{feature}::store");
                ui.iter().cloned().chain(io).chain([own_store]).collect()
            } else if is_graphql_part(&file) {
                ["axum", "crate::http", "crate::config"]
                    .map(String::from)
                    .to_vec()
            } else {
                ui.to_vec()
            };
            found.extend(
                forbidden
                    .iter()
                    .filter(|path| names(&code, path))
                    .map(|path| format!("{file} uses {path}")),
            );
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// A feature's store code is its own: another feature calls its use cases. (Its methods on
/// `Store` are `pub(in crate::<feature>)`, so the compiler holds the same line.)
#[test]
fn no_feature_reaches_into_another_features_store() {
    let mut found = Vec::new();
    for feature in features() {
        let own = format!("src/{feature}/");
        let store = format!("crate::{feature}::store");
        found.extend(
            sources()
                .into_iter()
                .filter(|(file, code)| !file.starts_with(&own) && names(code, &store))
                .map(|(file, _)| format!("{file} uses {store}")),
        );
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// The seat inventory, the document every seat invariant lives in, is changed by one module:
/// no file outside `src/inventory/` names its collection, so no other code can build a filter
/// or an update on it. (`src/store/names.rs` and `src/store/shard_keys.rs`, the registries of
/// every collection's name and of its place on a sharded cluster, declare it.)
#[test]
fn only_the_inventory_names_the_seat_inventory_collection() {
    let registries = ["src/store/names.rs", "src/store/shard_keys.rs"];
    let found: Vec<String> = sources()
        .into_iter()
        .filter(|(file, _)| {
            !file.starts_with("src/inventory/") && !registries.contains(&file.as_str())
        })
        .filter(|(_, code)| code.contains("SEAT_INVENTORY") || code.contains("\"seat_inventory\""))
        .map(|(file, _)| file)
        .collect();
    assert!(found.is_empty(), "name seat_inventory: {found:#?}");
}

/// The shared plumbing below the features (`src/store/`, `src/domain/`) may read a feature's
/// pure rules (its event types, say), never its use cases, store code or GraphQL part.
#[test]
fn plumbing_uses_only_the_rules_of_a_feature() {
    let mut found = Vec::new();
    for feature in features() {
        let whole = format!("crate::{feature}");
        let rules = format!("crate::{feature}::rules");
        for (file, code) in sources() {
            if !(file.starts_with("src/store/") || file.starts_with("src/domain/")) {
                continue;
            }
            // Every mention of the feature must be of its rules.
            let all = code.matches(&whole).count();
            let of_rules = code.matches(&rules).count();
            if all > of_rules {
                found.push(format!("{file} uses {whole} beyond its rules"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_parts_are_told_apart_by_path() {
    assert!(is_store_part("src/webhooks/store/endpoints.rs"));
    assert!(is_store_part("src/store/codec.rs"));
    assert!(!is_store_part("src/webhooks/delivery.rs"));
    assert!(is_graphql_part("src/webhooks/graphql/types.rs"));
    assert!(!is_graphql_part("src/webhooks/endpoints.rs"));
    assert!(is_rules_part("src/webhooks/rules.rs"));
    assert!(!is_rules_part("src/webhooks/sender.rs"));
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
            "crate::background",
        ],
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn no_layer_calls_one_above_it() {
    // The features' own parts are held by `each_part_of_a_feature_keeps_to_its_tier`; these
    // are the shared layers.
    let rules: [(&str, &[&str]); 4] = [
        (
            "src/store/",
            &[
                "async_graphql",
                "axum",
                "crate::graphql",
                "crate::http",
                "crate::background",
            ],
        ),
        // `config` builds the graphql layer's limits; the graphql layer never reads `config`,
        // nor the schema assembled above it.
        (
            "src/graphql/",
            &["axum", "crate::http", "crate::config", "crate::schema"],
        ),
        ("src/schema/", &["axum", "crate::http", "crate::config"]),
        // Overload control is plumbing every layer reads: it calls none of them.
        (
            "src/overload/",
            &[
                "async_graphql",
                "axum",
                "crate::graphql",
                "crate::http",
                "crate::store",
                "crate::holds",
                "crate::orders",
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
        if !path.contains("/graphql/types") {
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

/// Every source file the guides name (`` `holds/batch.rs` ``) exists: from `src/` or the
/// repository's root; in `ARCHITECTURE.md` also from the folder of the feature whose section
/// names it. A move that leaves a guide pointing at nothing fails here.
#[test]
fn the_files_the_guides_name_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let features: Vec<PathBuf> = (std::fs::read_dir(root.join("src")).expect("src"))
        .map(|entry| entry.expect("an entry of src").path())
        .filter(|path| path.is_dir())
        .collect();
    let mut missing = Vec::new();
    for (guide, by_feature) in [("ARCHITECTURE.md", true), ("docs/deployment.md", false)] {
        let folders: Vec<PathBuf> = [root.join("src"), root.to_path_buf()]
            .into_iter()
            .chain(features.iter().filter(|_| by_feature).cloned())
            .collect();
        let text = std::fs::read_to_string(root.join(guide)).expect("the guide");
        for named in text.split('`').skip(1).step_by(2) {
            let is_path = named.ends_with(".rs")
                && named.contains('/')
                && (named.chars()).all(|c| c.is_ascii_lowercase() || "_/.".contains(c));
            if is_path && !folders.iter().any(|folder| folder.join(named).exists()) {
                missing.push(format!("{guide}: {named}"));
            }
        }
    }
    assert!(missing.is_empty(), "named but not there: {missing:#?}");
}
