//! Every size a request sets is checked before the gateway allocates or works by it. The
//! schema is walked by introspection, so a field added later is covered without a case of its
//! own: every `Int` argument or input field, wherever it is nested, is sent -2147483648, -1, 0
//! and 2147483647, and every list 100,000 elements, as each kind of caller (anonymous, a
//! channel, an operator, a door), over HTTP, in batches and over the WebSocket transport, to a
//! gateway process whose address space is capped at 1 GiB. Every answer comes within 2 s with
//! a code on each of its errors, the process lives on, its peak resident memory stays under the
//! cap, and no seat, order or key changed.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bson::Document;
use futures::TryStreamExt;
use serde_json::{json, Value};

use crate::helpers::{mongodb_uri, GqlResponse};
use crate::live_client::LiveClient;
use crate::processes::GatewayProcess;
use crate::sale::{sale, Sale};

/// The gateway's address space: an allocation past it fails and the process aborts.
const MEMORY_CAP: u64 = 1 << 30;
/// How long any one answer may take.
const ANSWER_WITHIN: Duration = Duration::from_secs(2);
/// The values every `Int` is sent.
const INTS: [i64; 4] = [-2_147_483_648, -1, 0, 2_147_483_647];
/// The lengths every list is sent: far past any cap, and the longest the gateway lets through
/// to the resolvers (so that each argument's own cap is reached too).
const LISTS: [usize; 2] = [100_000, boxoffice::graphql::MAX_VARIABLE_LIST];
/// The length every string is sent.
const LONG_TEXT: usize = 100_000;
/// The body limit of the gateway under test: large enough that a 100,000-element list reaches
/// the resolvers (at the default 64 KiB it would be refused as a body, and the caps behind it
/// would go untested).
const BODY_LIMIT: usize = 16 << 20;

/// A GraphQL type as introspection gives it.
#[derive(Clone, Debug)]
enum Ty {
    NonNull(Box<Ty>),
    List(Box<Ty>),
    Named(String),
}

impl Ty {
    fn of(value: &Value) -> Ty {
        match value["kind"].as_str() {
            Some("NON_NULL") => Ty::NonNull(Box::new(Ty::of(&value["ofType"]))),
            Some("LIST") => Ty::List(Box::new(Ty::of(&value["ofType"]))),
            _ => Ty::Named(value["name"].as_str().expect("a named type").to_owned()),
        }
    }

    /// The type as a variable declares it.
    fn sdl(&self) -> String {
        match self {
            Ty::NonNull(inner) => format!("{}!", inner.sdl()),
            Ty::List(inner) => format!("[{}]", inner.sdl()),
            Ty::Named(name) => name.clone(),
        }
    }

    fn name(&self) -> &str {
        match self {
            Ty::NonNull(inner) | Ty::List(inner) => inner.name(),
            Ty::Named(name) => name,
        }
    }
}

/// An argument or an input field.
#[derive(Debug)]
struct InputValue {
    name: String,
    ty: Ty,
    required: bool,
}

impl InputValue {
    fn of(value: &Value) -> InputValue {
        let ty = Ty::of(&value["type"]);
        InputValue {
            name: value["name"].as_str().unwrap().to_owned(),
            required: matches!(ty, Ty::NonNull(_)) && value["defaultValue"].is_null(),
            ty,
        }
    }
}

struct Field {
    name: String,
    args: Vec<InputValue>,
    ty: Ty,
}

#[derive(Default)]
struct TypeDef {
    kind: String,
    fields: Vec<Field>,
    input_fields: Vec<InputValue>,
    enum_values: Vec<String>,
}

const TYPE_REF: &str = "kind name ofType { kind name ofType { kind name ofType { kind name } } }";

/// The schema the gateway serves, by introspection.
struct Schema {
    types: HashMap<String, TypeDef>,
    /// (operation, root type) for query, mutation and subscription.
    roots: Vec<(&'static str, String)>,
}

impl Schema {
    async fn introspect(url: &str) -> Schema {
        let query = format!(
            "{{ __schema {{ queryType {{ name }} mutationType {{ name }} subscriptionType {{ name }}
               types {{ kind name
                 fields(includeDeprecated: true) {{ name type {{ {TYPE_REF} }}
                   args {{ name defaultValue type {{ {TYPE_REF} }} }} }}
                 inputFields {{ name defaultValue type {{ {TYPE_REF} }} }}
                 enumValues(includeDeprecated: true) {{ name }} }} }} }}"
        );
        let body: Value = reqwest::Client::new()
            .post(url)
            .json(&json!({ "query": query }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let answer = GqlResponse(body);
        let schema = &answer.data()["__schema"];
        let list = |value: &Value| value.as_array().cloned().unwrap_or_default();
        let types = list(&schema["types"])
            .iter()
            .map(|t| {
                let def = TypeDef {
                    kind: t["kind"].as_str().unwrap().to_owned(),
                    fields: list(&t["fields"])
                        .iter()
                        .map(|f| Field {
                            name: f["name"].as_str().unwrap().to_owned(),
                            args: list(&f["args"]).iter().map(InputValue::of).collect(),
                            ty: Ty::of(&f["type"]),
                        })
                        .collect(),
                    input_fields: list(&t["inputFields"]).iter().map(InputValue::of).collect(),
                    enum_values: list(&t["enumValues"])
                        .iter()
                        .map(|v| v["name"].as_str().unwrap().to_owned())
                        .collect(),
                };
                (t["name"].as_str().unwrap().to_owned(), def)
            })
            .collect();
        let roots = [
            ("query", "queryType"),
            ("mutation", "mutationType"),
            ("subscription", "subscriptionType"),
        ]
        .into_iter()
        .filter_map(|(operation, root)| {
            let name = schema[root]["name"].as_str()?;
            Some((operation, name.to_owned()))
        })
        .collect();
        Schema { types, roots }
    }

    fn def(&self, name: &str) -> &TypeDef {
        self.types
            .get(name)
            .unwrap_or_else(|| panic!("no type {name}"))
    }
}

/// A step from an argument to the value under test.
#[derive(Clone, Debug)]
enum Step {
    Field(String),
    Element,
}

/// What is sent at the end of a path.
#[derive(Clone, Copy, Debug)]
enum Probe {
    Int(i64),
    /// A list of this many elements.
    List(usize),
    /// A string of this many characters.
    Text(usize),
}

/// Every place under `ty` where an `Int` or a list may be sent (`seen`: the input objects on
/// the way, so a recursive input type is walked once).
fn places(schema: &Schema, ty: &Ty, path: Vec<Step>, seen: &mut Vec<String>, out: &mut Places) {
    match ty {
        Ty::NonNull(inner) => places(schema, inner, path, seen, out),
        Ty::List(inner) => {
            out.lists.push(path.clone());
            let mut element = path;
            element.push(Step::Element);
            places(schema, inner, element, seen, out);
        }
        Ty::Named(name) if name == "Int" => out.ints.push(path),
        Ty::Named(name) if name == "String" => out.strings.push(path),
        Ty::Named(name) => {
            let def = schema.def(name);
            if def.kind != "INPUT_OBJECT" || seen.contains(name) {
                return;
            }
            seen.push(name.clone());
            for field in &def.input_fields {
                let mut inner = path.clone();
                inner.push(Step::Field(field.name.clone()));
                places(schema, &field.ty, inner, seen, out);
            }
            seen.pop();
        }
    }
}

#[derive(Default)]
struct Places {
    ints: Vec<Vec<Step>>,
    lists: Vec<Vec<Step>>,
    strings: Vec<Vec<Step>>,
}

/// The ids and names a request needs to get past its first checks to the value under test.
struct Known {
    showtime: String,
    cinema: String,
    movie: String,
    hall: String,
    hold: String,
    order: String,
    tomorrow: String,
}

impl Known {
    /// An id for an argument or field named `name` of a field returning `returns`.
    fn id(&self, name: &str, returns: &str) -> String {
        let kind = match name {
            "id" => returns,
            _ => name.trim_end_matches("Id"),
        };
        match kind.to_ascii_lowercase().as_str() {
            "cinema" => &self.cinema,
            "movie" => &self.movie,
            "hall" | "theater" => &self.hall,
            "hold" => &self.hold,
            "order" => &self.order,
            _ => &self.showtime,
        }
        .clone()
    }
}

/// One request: an operation naming one field, its variables, and what is under test.
struct Case {
    label: String,
    /// Whether it holds a list longer than the gateway reads at all.
    alone: bool,
    operation: &'static str,
    query: String,
    variables: Value,
}

struct Builder<'a> {
    schema: &'a Schema,
    known: &'a Known,
    /// The named type the field under test returns.
    returns: String,
}

impl Builder<'_> {
    /// A value of `ty` for a place named `name`: the probe where `target` ends, the least a
    /// valid request holds elsewhere (required fields only; one element per list).
    fn value(&self, ty: &Ty, name: &str, target: Option<(&[Step], Probe)>) -> Value {
        match (ty, target) {
            (_, Some(([], Probe::Int(n)))) => json!(n),
            (_, Some(([], Probe::Text(n)))) => json!("A".repeat(n)),
            (Ty::NonNull(inner), _) => self.value(inner, name, target),
            (Ty::List(inner), Some(([], Probe::List(n)))) => {
                let element = self.value(inner, name, None);
                Value::Array(vec![element; n])
            }
            (Ty::List(inner), Some(([Step::Element, rest @ ..], probe))) => {
                json!([self.value(inner, name, Some((rest, probe)))])
            }
            (Ty::List(inner), _) => json!([self.value(inner, name, None)]),
            (Ty::Named(type_name), _) => self.named(type_name, name, target),
        }
    }

    fn named(&self, type_name: &str, name: &str, target: Option<(&[Step], Probe)>) -> Value {
        let def = self.schema.def(type_name);
        match def.kind.as_str() {
            "ENUM" => json!(def.enum_values[0]),
            "INPUT_OBJECT" => {
                let mut object = serde_json::Map::new();
                for field in &def.input_fields {
                    let inner = match target {
                        Some(([Step::Field(next), rest @ ..], probe)) if *next == field.name => {
                            Some((rest, probe))
                        }
                        _ => None,
                    };
                    if inner.is_some() || field.required {
                        object.insert(
                            field.name.clone(),
                            self.value(&field.ty, &field.name, inner),
                        );
                    }
                }
                Value::Object(object)
            }
            _ => self.scalar(type_name, name),
        }
    }

    fn scalar(&self, type_name: &str, name: &str) -> Value {
        match (type_name, name) {
            ("ID", _) => json!(self.known.id(name, &self.returns)),
            ("Int", _) => json!(1),
            ("Float", "latitude") => json!(31.2),
            ("Float", "longitude") => json!(121.4),
            ("Float", _) => json!(1.0),
            ("Boolean", _) => json!(false),
            ("DateTime", _) => json!(self.known.tomorrow),
            (_, "channel") => json!("maoyan"),
            (_, "ticketType" | "ticketTypes") => json!("ADULT"),
            (_, "seats" | "seat" | "label") => json!("A1"),
            (_, "url") => json!("https://example.com/hook"),
            _ => json!("x"),
        }
    }

    /// The arguments of `field` at `level`: the required ones, and the one `path` starts at
    /// with `probe` at its end; their declarations, the arguments as passed, and the variables.
    fn arguments(
        &self,
        level: usize,
        field: &Field,
        target: Option<(&[Step], Probe)>,
        declared: &mut Vec<String>,
        variables: &mut serde_json::Map<String, Value>,
    ) -> String {
        let mut passed = Vec::new();
        for (i, arg) in field.args.iter().enumerate() {
            let inner = match target {
                Some(([Step::Field(name), rest @ ..], probe)) if *name == arg.name => {
                    Some((rest, probe))
                }
                _ => None,
            };
            if inner.is_none() && !arg.required {
                continue;
            }
            let variable = format!("v{level}_{i}");
            declared.push(format!("${variable}: {}", arg.ty.sdl()));
            passed.push(format!("{}: ${variable}", arg.name));
            variables.insert(variable, self.value(&arg.ty, &arg.name, inner));
        }
        if passed.is_empty() {
            String::new()
        } else {
            format!("({})", passed.join(", "))
        }
    }

    /// The request reaching `field` through the fields of `chain` (from the root of
    /// `operation`), with `probe` at `path` (its first step is the argument).
    fn case(
        &self,
        operation: &'static str,
        chain: &[&Field],
        field: &Field,
        path: &[Step],
        probe: Probe,
    ) -> Case {
        let mut declared = Vec::new();
        let mut variables = serde_json::Map::new();
        let mut opened = String::new();
        let mut names = Vec::new();
        for (level, step) in chain.iter().enumerate() {
            let builder = Builder {
                returns: step.ty.name().to_owned(),
                ..*self
            };
            let args = builder.arguments(level, step, None, &mut declared, &mut variables);
            opened.push_str(&format!("{}{args} {{ ", step.name));
            names.push(step.name.clone());
        }
        let args = self.arguments(
            chain.len(),
            field,
            Some((path, probe)),
            &mut declared,
            &mut variables,
        );
        let selection = match self.schema.def(field.ty.name()).kind.as_str() {
            "OBJECT" | "INTERFACE" | "UNION" => " { __typename }",
            _ => "",
        };
        let probe_text = match probe {
            Probe::Int(n) => n.to_string(),
            Probe::List(n) => format!("{n} elements"),
            Probe::Text(n) => format!("{n} characters"),
        };
        let steps: Vec<String> = path
            .iter()
            .map(|step| match step {
                Step::Field(name) => name.clone(),
                Step::Element => "[0]".into(),
            })
            .collect();
        names.push(field.name.clone());
        let declared = if declared.is_empty() {
            String::new()
        } else {
            format!("({})", declared.join(", "))
        };
        Case {
            alone: matches!(probe, Probe::List(n) if n > boxoffice::graphql::MAX_VARIABLE_LIST),
            label: format!(
                "{operation} {}({}) = {probe_text}",
                names.join("."),
                steps.join(".")
            ),
            operation,
            query: format!(
                "{operation} {declared} {{ {opened}{}{args}{selection}{} }}",
                field.name,
                " }".repeat(chain.len())
            ),
            variables: Value::Object(variables),
        }
    }
}

/// Every object type a query reaches, with the shortest chain of fields from the query root
/// to it; the mutation and subscription roots with none (a mutation is never run to reach a
/// field of what it returns).
fn reachable(schema: &Schema) -> Vec<(&'static str, String, Vec<&Field>)> {
    let mut out = Vec::new();
    let mut seen: Vec<String> = schema.roots.iter().map(|(_, root)| root.clone()).collect();
    for (operation, root) in &schema.roots {
        out.push((*operation, root.clone(), Vec::new()));
    }
    let mut next = 0;
    while next < out.len() {
        let (operation, type_name, chain) = out[next].clone();
        next += 1;
        if operation != "query" {
            continue;
        }
        for field in &schema.def(&type_name).fields {
            let returns = field.ty.name();
            let kind = schema.def(returns).kind.as_str();
            if field.name.starts_with("__")
                || !matches!(kind, "OBJECT" | "INTERFACE")
                || seen.iter().any(|s| s == returns)
            {
                continue;
            }
            seen.push(returns.to_owned());
            let mut longer = chain.clone();
            longer.push(field);
            out.push(("query", returns.to_owned(), longer));
        }
    }
    out
}

/// How many places of each kind the walk found.
#[derive(Debug, Default)]
struct Found {
    ints: usize,
    lists: usize,
    strings: usize,
}

/// Every case of the schema: each `Int` place with each of [`INTS`], each list place with
/// [`LISTS`] elements, each `String` place [`LONG_TEXT`] characters long.
fn cases(schema: &Schema, known: &Known) -> (Vec<Case>, Found) {
    let mut all = Vec::new();
    let mut counted = Found::default();
    for (operation, type_name, chain) in reachable(schema) {
        for field in &schema.def(&type_name).fields {
            let builder = Builder {
                schema,
                known,
                returns: field.ty.name().to_owned(),
            };
            for arg in &field.args {
                let mut found = Places::default();
                let path = vec![Step::Field(arg.name.clone())];
                places(schema, &arg.ty, path, &mut Vec::new(), &mut found);
                counted.ints += found.ints.len();
                counted.lists += found.lists.len();
                counted.strings += found.strings.len();
                let probes = (found
                    .ints
                    .iter()
                    .flat_map(|path| INTS.map(|n| (path, Probe::Int(n)))))
                .chain(
                    found
                        .lists
                        .iter()
                        .flat_map(|path| LISTS.map(|n| (path, Probe::List(n)))),
                )
                .chain(
                    found
                        .strings
                        .iter()
                        .map(|path| (path, Probe::Text(LONG_TEXT))),
                );
                for (path, probe) in probes {
                    all.push(builder.case(operation, &chain, field, path, probe));
                }
            }
        }
    }
    (all, counted)
}

/// Checks one GraphQL response (of a single request, a batch's item or a WebSocket
/// message): every error has a code.
fn check_codes(label: &str, response: &Value) {
    if let Some(errors) = response.get("errors").and_then(Value::as_array) {
        for error in errors {
            let code = error["extensions"]["code"].as_str();
            assert!(
                code.is_some_and(|code| code != "INTERNAL"),
                "{label}: an error without a code, or an internal one: {response}"
            );
        }
    } else {
        assert!(
            response.get("data").is_some(),
            "{label}: neither data nor errors: {response}"
        );
    }
}

/// The slowest answer of the run, and to what.
static SLOWEST: std::sync::Mutex<(Duration, String)> =
    std::sync::Mutex::new((Duration::ZERO, String::new()));

/// How many requests and messages the run sent.
static SENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn note_slowest(took: Duration, label: &str) {
    SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut slowest = SLOWEST.lock().unwrap();
    if took > slowest.0 {
        *slowest = (took, label.to_owned());
    }
}

/// Sends `body` as `caller`; the answer's JSON, having checked it came in time.
async fn post(
    client: &reqwest::Client,
    url: &str,
    caller: Option<&str>,
    label: &str,
    body: &Value,
) -> Value {
    // A gateway that never answers fails the case rather than hanging the test.
    let mut request = client.post(url).json(body).timeout(Duration::from_secs(30));
    if let Some(key) = caller {
        request = request.bearer_auth(key);
    }
    let started = Instant::now();
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("{label}: no answer: {e}"));
    let status = response.status();
    let answer: Value = response
        .json()
        .await
        .unwrap_or_else(|e| panic!("{label}: the answer ({status}) is not JSON: {e}"));
    let took = started.elapsed();
    assert!(took < ANSWER_WITHIN, "{label}: answered in {took:?}");
    note_slowest(took, label);
    answer
}

/// The documents that say who may sell and what was sold: every seat, order and key.
async fn sold_and_keys(db: &mongodb::Database) -> Vec<(String, Vec<Document>)> {
    let mut all = Vec::new();
    for collection in [
        "seat_inventory",
        "orders",
        "channels",
        "operators",
        "idempotency_keys",
    ] {
        let mut found: Vec<Document> = db
            .collection::<Document>(collection)
            .find(bson::doc! {})
            .sort(bson::doc! { "_id": 1 })
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        for document in &mut found {
            // Background passes move these whenever they get to them: the event relay clears
            // the outbox, the sales projection counts the order. Plumbing, not a sale's state.
            document.remove("outbox");
            document.remove("salesCounted");
        }
        all.push((collection.to_owned(), found));
    }
    all
}

/// The sale, a live hold and a confirmed order on it, an operator and a door.
async fn scene() -> (Sale, Known, Vec<(&'static str, Option<String>)>) {
    let sale = sale().await;
    let held = sale.hold(&sale.maoyan, &["A1", "A2"]).await;
    let first = held.data()["holdSeats"]["id"].as_str().unwrap().to_owned();
    let confirmed = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
                customer: { name: \"张三\", contact: \"13800000000\" } }) { id } }",
            json!({ "hold": first }),
        )
        .await;
    let order = confirmed.data()["confirmHold"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let held = sale.hold(&sale.maoyan, &["B1"]).await;
    let hold = held.data()["holdSeats"]["id"].as_str().unwrap().to_owned();
    let found = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { movie { id } hall { id } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    let showtime = &found.data()["showtime"];
    let operator = sale.app.operator_key("platform", None).await;
    let door = crate::admissions::door(&sale, &operator, "北门").await;
    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1))
        .format("%Y-%m-%dT12:00:00Z")
        .to_string();
    let known = Known {
        showtime: sale.showtime.clone(),
        cinema: sale.cinema.clone(),
        movie: showtime["movie"]["id"].as_str().unwrap().to_owned(),
        hall: showtime["hall"]["id"].as_str().unwrap().to_owned(),
        hold,
        order,
        tomorrow,
    };
    let callers = vec![
        ("anonymous", None),
        ("channel", Some(sale.maoyan.clone())),
        ("operator", Some(operator)),
        ("door", Some(door.key)),
    ];
    (sale, known, callers)
}

/// Runs every case as `caller` one at a time over HTTP, then in batches, then over one
/// WebSocket connection.
async fn run_as(url: String, caller: Option<String>, who: &'static str, cases: &[Case]) {
    let client = reqwest::Client::new();
    let caller = caller.as_deref();
    for case in cases {
        let label = format!("{who}: {}", case.label);
        let body = json!({ "query": case.query, "variables": case.variables });
        let answer = post(&client, &url, caller, &label, &body).await;
        check_codes(&label, &answer);
    }
    // Batches of up to ten. A case with a list longer than the gateway reads goes alone: the
    // whole batch is refused for it, with a code.
    let mut batches: Vec<Vec<&Case>> = Vec::new();
    for case in cases {
        match batches.last_mut() {
            Some(batch) if batch.len() < 10 && !case.alone && !batch[0].alone => batch.push(case),
            _ => batches.push(vec![case]),
        }
    }
    for batch in batches {
        let label = format!("{who}: a batch from {}", batch[0].label);
        let bodies: Vec<Value> = batch
            .iter()
            .map(|case| json!({ "query": case.query, "variables": case.variables }))
            .collect();
        let answer = post(&client, &url, caller, &label, &Value::Array(bodies)).await;
        match answer.as_array() {
            Some(answers) => {
                assert_eq!(answers.len(), batch.len(), "{label}");
                for (case, answer) in batch.iter().zip(answers) {
                    check_codes(&format!("{who} in a batch: {}", case.label), answer);
                }
            }
            None => {
                assert!(batch[0].alone, "{label}: not a batch's answer: {answer}");
                assert!(answer["errors"].is_array(), "{label}: {answer}");
                check_codes(&label, &answer);
            }
        }
    }
    let mut live = LiveClient::connect_url(&url, caller).await;
    for (i, case) in cases.iter().enumerate() {
        let label = format!("{who} over WebSocket: {}", case.label);
        let id = i.to_string();
        let started = Instant::now();
        live.subscribe(&id, &case.query, case.variables.clone())
            .await;
        let message = live
            .recv_within(ANSWER_WITHIN)
            .await
            .unwrap_or_else(|| panic!("{label}: no answer within {ANSWER_WITHIN:?}"));
        let took = started.elapsed();
        assert!(took < ANSWER_WITHIN, "{label}: answered in {took:?}");
        note_slowest(took, &label);
        assert_eq!(message["id"], id.as_str(), "{label}: {message}");
        match message["type"].as_str() {
            Some("next") => {
                check_codes(&label, &message["payload"]);
                if case.operation == "subscription" {
                    // A stream that started: stop it.
                    live.send(json!({ "type": "complete", "id": id })).await;
                } else {
                    let done = live.recv_within(ANSWER_WITHIN).await;
                    let done = done.unwrap_or_else(|| panic!("{label}: no complete"));
                    assert_eq!(done["type"], "complete", "{label}: {done}");
                }
            }
            Some("error") => {
                let errors = message["payload"].as_array().expect("an error's list");
                check_codes(&label, &json!({ "errors": errors }));
            }
            _ => panic!("{label}: unexpected {message}"),
        }
    }
}

#[tokio::test]
async fn every_int_and_list_of_the_schema_is_capped_before_the_gateway_works_by_it() {
    let (sale, known, callers) = scene().await;
    let database = sale.app.store.database_name().to_owned();
    let body_limit = BODY_LIMIT.to_string();
    let mut gateway = GatewayProcess::start_capped(
        &mongodb_uri(),
        &database,
        &[
            "--max-body-bytes",
            &body_limit,
            "--channel-requests-per-second",
            "1000000",
            "--channel-burst",
            "1000000",
            "--anonymous-requests-per-second",
            "1000000",
            "--anonymous-burst",
            "1000000",
        ],
        MEMORY_CAP,
    );
    let db = crate::catalogue_faults::database(&mongodb_uri(), &sale.app).await;
    let before = sold_and_keys(&db).await;

    let schema = Schema::introspect(&gateway.url()).await;
    let (cases, found) = cases(&schema, &known);
    // The walk found the schema's places, nested ones among them.
    assert!(
        found.ints >= 30 && found.lists >= 15 && found.strings >= 50,
        "{found:?}"
    );
    for expected in [
        "mutation holdSeats(input.best.count) = 2147483647",
        "mutation holdSeats(input.seats) = 100000 elements",
        "mutation createHall(input.layout.rows.[0].positions) = 1000 elements",
        "query findSeats(input.partySize) = 2147483647",
        "query cinema.showtimes(first) = 2147483647",
    ] {
        assert!(
            cases.iter().any(|case| case.label == expected),
            "no case {expected}"
        );
    }

    // One caller after another: each answer's time is its own, not a share of its neighbours'.
    let started = Instant::now();
    for (who, key) in callers {
        run_as(gateway.url(), key, who, &cases).await;
    }
    let took = started.elapsed();

    assert!(gateway.running(), "the gateway died");
    let peak = gateway.peak_resident_bytes();
    assert!(peak < MEMORY_CAP, "peak resident memory {peak} bytes");
    let after = sold_and_keys(&db).await;
    for ((collection, was), (_, is)) in before.iter().zip(&after) {
        assert_eq!(was, is, "{collection} changed");
    }
    let slowest = SLOWEST.lock().unwrap().clone();
    println!(
        "sizes: {} Int places x {} values, {} lists x {} lengths, {} strings of {LONG_TEXT} \
         characters: {} cases, each as 4 callers over HTTP, in batches and over WebSocket \
         ({} requests), in {:.1} s; peak resident memory {} MiB; slowest answer {:?} ({})",
        found.ints,
        INTS.len(),
        found.lists,
        LISTS.len(),
        found.strings,
        cases.len(),
        SENT.load(std::sync::atomic::Ordering::Relaxed),
        took.as_secs_f64(),
        peak >> 20,
        slowest.0,
        slowest.1,
    );
    gateway.stop();
}

#[tokio::test]
async fn a_hold_of_2147483647_seats_is_refused_naming_the_cap_and_keeps_no_key() {
    let sale = sale().await;
    let hold = |count: i64| {
        json!({ "input": { "showtimeId": sale.showtime, "best": { "count": count },
            "idempotencyKey": "k1" } })
    };
    let started = Instant::now();
    let refused = sale
        .app
        .graphql_as(&sale.maoyan, crate::sale::HOLD, hold(2_147_483_647))
        .await;
    let took = started.elapsed();
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(
        refused.error_message().contains("between 1 and 6"),
        "{}",
        refused.error_message()
    );
    assert_eq!(sale.inventory().await.counts.held, 0);
    // The key was not claimed: the same key with a count within the cap holds.
    let held = sale
        .app
        .graphql_as(&sale.maoyan, crate::sale::HOLD, hold(2))
        .await;
    assert_eq!(
        held.data()["holdSeats"]["seats"].as_array().unwrap().len(),
        2
    );
    println!("holdSeats(count: 2147483647) refused in {took:?}");
}
