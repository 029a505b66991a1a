//! Features depend on each other in one direction (issue 49): the feature-to-feature graph,
//! computed from the sources, has no cycle; and ARCHITECTURE.md shows the graph as the code
//! has it.

use std::collections::{BTreeMap, BTreeSet};

use super::architecture::{features, names, sources};

/// Features as they depend on each other: `graph[a]` holds every `b` whose path
/// (`crate::b::…`, or `b` in `use crate::{…}`) code of `a` names outside its unit tests.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn graph_of(sources: &[(String, String)], features: &[String]) -> Graph {
    let mut graph = Graph::new();
    for feature in features {
        let folder = format!("src/{feature}/");
        let used = graph.entry(feature.clone()).or_default();
        for (_, code) in sources.iter().filter(|(file, _)| file.starts_with(&folder)) {
            // Unit tests may use what they like.
            let code = code.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
            let named = named_features(code, features);
            used.extend(named.into_iter().filter(|other| other != feature));
        }
    }
    graph
}

/// The features whose path `code` names (`crate::b::…`, or `b` in `use crate::{…}`).
fn named_features(code: &str, features: &[String]) -> BTreeSet<String> {
    let grouped = grouped_imports(code);
    (features.iter())
        .filter(|feature| names(code, &format!("crate::{feature}")) || grouped.contains(*feature))
        .cloned()
        .collect()
}

/// Each file under `layer` (a path prefix like `src/graphql/`) that names a feature, with the
/// features it names; its unit tests count.
fn naming_features(
    sources: &[(String, String)],
    features: &[String],
    layer: &str,
) -> Vec<(String, BTreeSet<String>)> {
    (sources.iter())
        .filter(|(file, _)| file.starts_with(layer))
        .map(|(file, code)| (file.clone(), named_features(code, features)))
        .filter(|(_, named)| !named.is_empty())
        .collect()
}

/// The first name of each path in `use crate::{a, b::c, d::{e, f}}` (here a, b, d).
fn grouped_imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::{") {
        let mut depth = 0;
        let mut segment = String::new();
        for c in code[at + "crate::{".len()..].chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    found.insert(std::mem::take(&mut segment));
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                segment.push(c);
            }
        }
        found.insert(segment);
    }
    (found.iter())
        .map(|segment| {
            (segment.trim().chars())
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .filter(|name: &String| !name.is_empty())
        .collect()
}

/// The strongly connected groups of more than one feature (Tarjan's algorithm).
fn knots(graph: &Graph) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(walk: &mut Walk<'a>, node: &'a str) {
        let index = walk.index.len();
        walk.index.insert(node, index);
        walk.low.insert(node, index);
        walk.stack.push(node);
        for next in &walk.graph[node] {
            let next = next.as_str();
            if !walk.index.contains_key(next) {
                visit(walk, next);
                let low = walk.low[node].min(walk.low[next]);
                walk.low.insert(node, low);
            } else if walk.stack.contains(&next) {
                let low = walk.low[node].min(walk.index[next]);
                walk.low.insert(node, low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut group = BTreeSet::new();
            while let Some(member) = walk.stack.pop() {
                group.insert(member.to_owned());
                if member == node {
                    break;
                }
            }
            if group.len() > 1 {
                walk.found.push(group);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            visit(&mut walk, node);
        }
    }
    walk.found
}

#[test]
fn features_depend_on_each_other_in_one_direction() {
    let graph = graph_of(&sources(), &features());
    let found = knots(&graph);
    assert!(
        found.is_empty(),
        "features in a cycle: {found:#?} ({graph:#?})"
    );
}

#[test]
fn an_edge_undone_by_issue_49_coming_back_is_a_cycle() {
    // Holds reserved a hold's voucher redemption itself, and vouchers ask holds what became of
    // a hold: the knot the test above now refuses.
    let mut graph = graph_of(&sources(), &features());
    assert!(graph["vouchers"].contains("holds"));
    graph
        .get_mut("holds")
        .unwrap()
        .insert("vouchers".to_owned());
    let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(knots(&graph), vec![set(&["holds", "vouchers"])]);
}

#[test]
fn architecture_md_shows_the_graph_the_code_has() {
    let graph = graph_of(&sources(), &features());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let shown: Vec<&str> = (text.lines())
        .filter(|line| line.starts_with("    ") && line.contains(" → "))
        .map(str::trim)
        .collect();
    let expected: Vec<String> = (graph.iter())
        .filter(|(_, used)| !used.is_empty())
        .map(|(feature, used)| {
            let used: Vec<&str> = used.iter().map(String::as_str).collect();
            format!("{feature} → {}", used.join(", "))
        })
        .collect();
    assert_eq!(shown, expected, "ARCHITECTURE.md's feature graph");
}

#[test]
fn the_graph_sees_every_way_of_naming_a_feature_and_finds_a_cycle() {
    let features: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
    let file = |name: &str, code: &str| (format!("src/{name}/x.rs"), code.to_owned());
    let sources = [
        file("a", "use crate::b::thing;"),
        file(
            "b",
            "use crate::{c, d::Other};\nfn f() { crate::d::call(); }",
        ),
        file("c", "#[cfg(test)]\nmod tests {\n use crate::a::x;\n}"),
        file("d", "fn g() { crate::a::call(); }"),
    ];
    let graph = graph_of(&sources, &features);
    let set = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(graph["a"], set(&["b"]));
    assert_eq!(graph["b"], set(&["c", "d"]));
    assert_eq!(graph["c"], set(&[]), "unit tests are left out");
    assert_eq!(knots(&graph), vec![set(&["a", "b", "d"])]);
}

/// `src/graphql/` is the plumbing the features' GraphQL parts stand on (connections, errors,
/// limits, the loaders' machinery): it names no feature, so none reaches another through it.
/// The schema, which names them all, is assembled above them in `src/schema/`.
#[test]
fn the_graphql_plumbing_names_no_feature() {
    let found = naming_features(&sources(), &features(), "src/graphql/");
    assert!(found.is_empty(), "src/graphql/ names features: {found:#?}");
}

#[test]
fn the_plumbing_rule_sees_a_feature_named_in_any_way() {
    let features: Vec<String> = ["holds", "orders", "live"].map(String::from).to_vec();
    let file = |path: &str, code: &str| (path.to_owned(), code.to_owned());
    let sources = [
        file("src/graphql/a.rs", "use crate::holds::Hold;"),
        file("src/graphql/b.rs", "use crate::{orders::Order, store};"),
        file(
            "src/graphql/c.rs",
            "#[cfg(test)]\nmod tests {\n use crate::live::Live;\n}",
        ),
        file(
            "src/graphql/d.rs",
            "use crate::store::Store;\nfn holds(holds: u8) {}",
        ),
        file("src/holds/e.rs", "use crate::orders::Order;"),
    ];
    let found = naming_features(&sources, &features, "src/graphql/");
    let files: Vec<&str> = found.iter().map(|(file, _)| file.as_str()).collect();
    assert_eq!(
        files,
        ["src/graphql/a.rs", "src/graphql/b.rs", "src/graphql/c.rs"]
    );
}

/// The schema sits above the features: a feature names it only through `schema::upward`, the
/// few GraphQL types a feature's part takes from one that depends on it (its module says why).
#[test]
fn features_name_the_schema_only_through_upward() {
    let features = features();
    let found: Vec<String> = (sources().into_iter())
        .filter(|(file, _)| {
            features
                .iter()
                .any(|f| file.starts_with(&format!("src/{f}/")))
        })
        .filter(|(_, code)| {
            code.matches("crate::schema").count() > code.matches("crate::schema::upward::").count()
        })
        .map(|(file, _)| file)
        .collect();
    assert!(
        found.is_empty(),
        "features naming the schema beyond `upward`: {found:#?}"
    );
}
