//! The Grafana board (`deploy/grafana/boxoffice.json`): an importable dashboard whose every
//! expression names only series a running gateway exports. A gateway process of its own
//! (the metrics recorder is process-global) books, errs, refuses, expires a hold and
//! delivers a webhook, so that the lazily written series appear; then every panel's `expr`
//! (and the gateway variable's query) is read, and each metric it names must be a sample
//! name of `/metrics` (`_bucket` only where the metric is a histogram, and so on).

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use crate::helpers::mongodb_uri;
use crate::metrics::scrape;
use crate::processes::GatewayProcess;
use crate::scrape::{present, value};
use crate::webhooks::{endpoint, local_sale, Receiver};

const BOARD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/grafana/boxoffice.json");

const HOLD: &str =
    "mutation HoldSeats($input: HoldSeatsInput!) { holdSeats(input: $input) { id } }";
const CONFIRM: &str = "mutation ConfirmHold($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"Test Buyer\", contact: \"000\" } }) { id status } }";
const RELEASE: &str = "mutation ReleaseHold($hold: ID!) { releaseHold(holdId: $hold) }";
const CANCEL: &str = "mutation CancelOrder($id: ID!) { cancelOrder(orderId: $id) { status } }";

/// PromQL words that are neither functions nor metrics: operators, modifiers, constants.
const KEYWORDS: [&str; 13] = [
    "and",
    "or",
    "unless",
    "bool",
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "offset",
    "inf",
    "nan",
];

/// Words followed by a parenthesised list of label names, not of expressions.
const LABEL_LISTS: [&str; 6] = [
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
];

/// The board, parsed.
fn board() -> Value {
    let text = std::fs::read_to_string(BOARD).unwrap_or_else(|error| panic!("{BOARD}: {error}"));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{BOARD} is not JSON: {error}"))
}

/// Every panel of the board, rows' nested panels included.
fn panels(board: &Value) -> Vec<&Value> {
    let mut all = Vec::new();
    for panel in board["panels"].as_array().expect("a list of panels") {
        all.push(panel);
        all.extend(panel["panels"].as_array().into_iter().flatten());
    }
    all
}

/// The index just past the `close` that ends what `chars[start]` (its `open`) began, strings
/// skipped; the end of `chars` when it is not closed.
fn past_closing(chars: &[char], start: usize, open: char, close: char) -> usize {
    let mut depth = 0;
    let mut i = start;
    while i < chars.len() {
        match chars[i] {
            '"' | '\'' | '`' => i = past_string(chars, i) - 1,
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// The index just past the string literal that starts at `chars[start]`.
fn past_string(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let mut i = start + 1;
    while i < chars.len() && chars[i] != quote {
        i += if chars[i] == '\\' && quote != '`' {
            2
        } else {
            1
        };
    }
    (i + 1).min(chars.len())
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == ':'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

/// The metric names a PromQL expression (with Grafana's `$variables`) selects: identifiers
/// used as series, not functions or aggregations (followed by `(`), keywords, label names
/// (in `{…}` matchers and `by (…)` lists), strings, numbers, durations or variables.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut names = BTreeSet::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' || c == '`' {
            i = past_string(&chars, i);
        } else if c == '{' {
            i = past_closing(&chars, i, '{', '}');
        } else if c == '[' {
            i = past_closing(&chars, i, '[', ']');
        } else if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '$' {
            i += 1;
            if chars.get(i) == Some(&'{') {
                i = past_closing(&chars, i, '{', '}');
            } else {
                while i < chars.len() && is_name_char(chars[i]) {
                    i += 1;
                }
            }
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            // A number or a duration (`0.99`, `1e3`, `5m`, `1h30m`).
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
        } else if is_name_start(c) {
            let start = i;
            while i < chars.len() && is_name_char(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let mut next = i;
            while next < chars.len() && chars[next].is_whitespace() {
                next += 1;
            }
            // A function or aggregation is followed by `(`; an aggregation may put its
            // grouping first (`sum by (le) (…)`).
            let after: String = (chars[next..].iter())
                .take_while(|c| is_name_char(**c))
                .collect();
            let grouped = after == "by" || after == "without";
            let call = chars.get(next) == Some(&'(') || grouped;
            let lower = word.to_ascii_lowercase();
            if call && LABEL_LISTS.contains(&lower.as_str()) {
                i = past_closing(&chars, next, '(', ')');
            } else if !call && !KEYWORDS.contains(&lower.as_str()) {
                names.insert(word);
            }
        } else {
            i += 1;
        }
    }
    names
}

/// The metric names a Grafana Prometheus variable's query selects: `label_values(<selector>,
/// <label>)` names its selector's metrics, any other query is PromQL.
fn variable_metric_names(query: &str) -> BTreeSet<String> {
    let query = query.trim();
    match query
        .strip_prefix("label_values(")
        .and_then(|rest| rest.strip_suffix(')'))
    {
        Some(arguments) => match arguments.rsplit_once(',') {
            Some((selector, _label)) => metric_names(selector),
            None => BTreeSet::new(),
        },
        None => metric_names(query),
    }
}

/// The sample names of an exposition, and the type `# TYPE` gives each metric.
fn exported(text: &str) -> (BTreeSet<String>, HashMap<String, String>) {
    let mut names = BTreeSet::new();
    let mut types = HashMap::new();
    for line in text.lines() {
        if let Some(declared) = line.strip_prefix("# TYPE ") {
            if let Some((name, kind)) = declared.split_once(' ') {
                types.insert(name.to_owned(), kind.trim().to_owned());
            }
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            let end = line.find(['{', ' ']).unwrap_or(line.len());
            names.insert(line[..end].to_owned());
        }
    }
    (names, types)
}

/// Why `name` is not a series of the exposition, in words an editor of the board can act on.
fn why_missing(name: &str, types: &HashMap<String, String>) -> String {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suffix) {
            if let Some(kind) = types.get(base) {
                return format!("{name} ({base} is a {kind}: it has no {suffix} series)");
            }
        }
    }
    match types.get(name) {
        Some(kind) if kind == "histogram" => {
            format!("{name} (a histogram: select {name}_bucket, _sum or _count)")
        }
        _ => format!("{name} (no such metric)"),
    }
}

#[test]
fn metric_names_are_read_from_promql() {
    let names = |expr: &str| metric_names(expr).into_iter().collect::<Vec<_>>();
    assert_eq!(
        names(
            "histogram_quantile(0.99, sum by (le, operation) (rate(\
             boxoffice_graphql_request_duration_seconds_bucket{instance=~\"$instance\", \
             operation!=\"a{b}\"}[$__rate_interval])))"
        ),
        ["boxoffice_graphql_request_duration_seconds_bucket"]
    );
    assert_eq!(
        names("sum(rate(a_total[5m] offset 1h)) by (code) / on (code) group_left b + 1e3"),
        ["a_total", "b"]
    );
    assert_eq!(
        names("max without (instance) (up) > bool 0.5 and ${var} or c:recorded_rule"),
        ["c:recorded_rule", "up"]
    );
    assert_eq!(
        names("sum(foo{job='x'}) # the foo_bucket in a comment"),
        ["foo"]
    );
    assert_eq!(
        variable_metric_names("label_values(boxoffice_requests_in_flight, instance)")
            .into_iter()
            .collect::<Vec<_>>(),
        ["boxoffice_requests_in_flight"]
    );
}

#[test]
fn the_board_is_an_importable_dashboard() {
    let board = board();
    assert_eq!(board["title"], "Boxoffice gateway");
    assert_eq!(board["uid"], "boxoffice-gateway");
    let version = board["schemaVersion"].as_u64().expect("a schemaVersion");
    assert!((36..=41).contains(&version), "schemaVersion {version}");
    // Importing asks for the Prometheus data source, which the datasource variable takes.
    let inputs = board["__inputs"].as_array().expect("__inputs");
    assert!(
        inputs
            .iter()
            .any(|input| input["name"] == "DS_PROMETHEUS" && input["pluginId"] == "prometheus"),
        "{inputs:?}"
    );
    let variables = board["templating"]["list"].as_array().expect("templating");
    let source = variables
        .iter()
        .find(|variable| variable["type"] == "datasource")
        .expect("a datasource variable");
    assert_eq!(source["query"], "prometheus");
    assert_eq!(source["current"]["value"], "${DS_PROMETHEUS}");
    let uses_the_source = |owner: &Value| {
        owner["datasource"]
            == json!({ "type": "prometheus", "uid": format!("${{{}}}", source["name"].as_str().unwrap()) })
    };

    let mut ids = BTreeSet::new();
    let mut rows = 0;
    for panel in panels(&board) {
        let title = panel["title"].as_str().unwrap_or_default();
        assert!(
            !title.trim().is_empty(),
            "a panel without a title: {panel:#}"
        );
        let id = panel["id"].as_u64().expect("a panel id");
        assert!(ids.insert(id), "panel id {id} is used twice");
        for field in ["h", "w", "x", "y"] {
            assert!(panel["gridPos"][field].is_u64(), "{title}: gridPos.{field}");
        }
        if panel["type"] == "row" {
            rows += 1;
            continue;
        }
        assert!(uses_the_source(panel), "{title}: {}", panel["datasource"]);
        let unit = panel["fieldConfig"]["defaults"]["unit"].as_str();
        assert!(
            unit.is_some_and(|unit| !unit.is_empty()),
            "{title}: no unit"
        );
        let targets = panel["targets"].as_array().map_or(&[][..], Vec::as_slice);
        assert!(!targets.is_empty(), "{title}: no target");
        for target in targets {
            let expr = target["expr"].as_str().unwrap_or_default();
            assert!(!expr.trim().is_empty(), "{title}: a target without expr");
            assert!(
                !metric_names(expr).is_empty(),
                "{title}: no metric in {expr}"
            );
            assert!(uses_the_source(target), "{title}: {}", target["datasource"]);
            assert!(
                target["refId"].is_string(),
                "{title}: a target without refId"
            );
        }
    }
    assert!(rows >= 4, "panels are grouped in rows: {rows}");
}

/// Posts `query` with `variables` to `gateway` as the channel with `key` when given.
async fn post(
    gateway: &GatewayProcess,
    key: Option<&str>,
    query: &str,
    variables: Value,
) -> (u16, Value) {
    let body = json!({ "query": query, "variables": variables });
    crate::metrics::post(gateway, key, body).await
}

#[tokio::test]
async fn every_metric_on_the_board_is_exported_by_a_running_gateway() {
    let sale = local_sale().await;
    let receiver = Receiver::start().await;
    endpoint(&sale, &receiver.url()).await;
    let gateway = GatewayProcess::start(
        &mongodb_uri(),
        sale.app.store.database_name(),
        &[
            "--webhooks-allow-private",
            "--hold-ttl-seconds",
            "3",
            "--sweep-interval-seconds",
            "1",
            "--anonymous-requests-per-second",
            "1",
            "--anonymous-burst",
            "1",
            "--max-in-flight",
            "1",
        ],
    );
    let key = Some(sale.maoyan.as_str());
    let hold = |seats: &[&str]| json!({ "input": { "showtimeId": sale.showtime, "seats": seats } });

    // A hold, an error (its seat is taken), a confirmation and a cancellation.
    let (_, held) = post(&gateway, key, HOLD, hold(&["A1", "A2"])).await;
    let hold_id = held["data"]["holdSeats"]["id"].clone();
    assert!(hold_id.is_string(), "{held}");
    let (_, taken) = post(&gateway, key, HOLD, hold(&["A1"])).await;
    assert_eq!(taken["errors"][0]["extensions"]["code"], "SEAT_UNAVAILABLE");
    let (_, confirmed) = post(&gateway, key, CONFIRM, json!({ "hold": hold_id })).await;
    let order = &confirmed["data"]["confirmHold"];
    assert_eq!(order["status"], "CONFIRMED", "{confirmed}");
    let (_, cancelled) = post(&gateway, key, CANCEL, json!({ "id": order["id"] })).await;
    assert_eq!(cancelled["data"]["cancelOrder"]["status"], "CANCELLED");
    // A release, and a hold left to expire (the sweeper returns it within a second of 3 s).
    let (_, held) = post(&gateway, key, HOLD, hold(&["A3"])).await;
    let (_, released) = post(
        &gateway,
        key,
        RELEASE,
        json!({ "hold": held["data"]["holdSeats"]["id"] }),
    )
    .await;
    assert_eq!(released["data"]["releaseHold"], json!(["A3"]), "{released}");
    let (_, left) = post(&gateway, key, HOLD, hold(&["B1"])).await;
    assert!(left["data"]["holdSeats"]["id"].is_string(), "{left}");
    // Rate limited: an anonymous burst of 1.
    let (status, _) = post(&gateway, None, "{ __typename }", json!({})).await;
    assert_eq!(status, 200);
    let (status, _) = post(&gateway, None, "{ __typename }", json!({})).await;
    assert_eq!(status, 429);
    // Over the in-flight cap of 1: a request whose body never comes holds the one place
    // (it is taken before the body is read), so the next is refused.
    let mut stalled = tokio::net::TcpStream::connect(gateway.address)
        .await
        .unwrap();
    let head = format!(
        "POST /graphql HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nContent-Length: 1000\r\n\r\n{{",
        gateway.address
    );
    stalled.write_all(head.as_bytes()).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while value(&scrape(&gateway).await, "boxoffice_requests_in_flight", &[]) < 1.0 {
        assert!(
            Instant::now() < deadline,
            "the stalled request was not admitted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, refused) = post(&gateway, key, "{ __typename }", json!({})).await;
    assert_eq!(status, 503, "{refused}");
    drop(stalled);

    let deadline = Instant::now() + Duration::from_secs(30);
    let text = loop {
        let text = scrape(&gateway).await;
        let expired = value(&text, "boxoffice_holds_expired_total", &[("by", "sweeper")]);
        if expired >= 1.0
            && present(&text, "boxoffice_webhook_deliveries_total")
            && present(&text, "boxoffice_events_appended_total")
        {
            break text;
        }
        assert!(
            Instant::now() < deadline,
            "no expiry, webhook delivery or appended event after 30 s:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let (names, types) = exported(&text);

    let board = board();
    // (where, expression, the metrics it names): every panel target and query variable.
    let mut named = Vec::new();
    for panel in panels(&board) {
        for target in panel["targets"].as_array().into_iter().flatten() {
            let expr = target["expr"].as_str().unwrap_or_default();
            let title = panel["title"].as_str().unwrap_or_default();
            named.push((format!("panel {title:?}"), expr, metric_names(expr)));
        }
    }
    for variable in board["templating"]["list"].as_array().into_iter().flatten() {
        let query = match &variable["query"] {
            Value::Object(query) => query.get("query").and_then(Value::as_str),
            query => query.as_str(),
        };
        if variable["type"] != "query" {
            continue;
        }
        let query = query.unwrap_or_default();
        let name = variable["name"].as_str().unwrap_or_default();
        named.push((
            format!("variable ${name}"),
            query,
            variable_metric_names(query),
        ));
    }
    let mut missing = Vec::new();
    let mut checked = BTreeSet::new();
    for (place, expr, metrics) in named {
        for name in metrics {
            if !names.contains(&name) {
                let why = why_missing(&name, &types);
                missing.push(format!("{place}: {why}\n    in {expr}"));
            }
            checked.insert(name);
        }
    }
    assert!(
        missing.is_empty(),
        "{BOARD} names series the gateway does not export:\n  {}\n\nThe gateway exports: {}",
        missing.join("\n  "),
        names.into_iter().collect::<Vec<_>>().join(", ")
    );
    assert!(checked.len() >= 15, "only {checked:?} checked");
}
