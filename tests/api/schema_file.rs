//! `schema.graphql` is generated from the code; review sees every API change in it.

use serde_json::Value;

#[test]
fn checked_in_schema_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema.graphql");
    let generated = boxoffice::schema::sdl();
    if updating() {
        std::fs::write(path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "schema.graphql differs from the schema the code builds; regenerate it with \
         `BOXOFFICE_UPDATE_SCHEMA=1 scripts/test schema` and review the diff"
    );
}

#[test]
fn checked_in_subgraph_schema_matches_the_code() {
    // What `--federation` serves at `_service { sdl }`: the same API, with its entity keys.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema.federation.graphql");
    let generated = boxoffice::schema::federation_sdl();
    if updating() {
        std::fs::write(path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "schema.federation.graphql differs from the subgraph schema the code builds; \
         regenerate it with `BOXOFFICE_UPDATE_SCHEMA=1 scripts/test schema` and review the diff"
    );
}

const INTROSPECTION: &str = "{ __schema { types {
    name kind description
    fields { name description args { name description } }
    inputFields { name description }
    enumValues { name description } } } }";

/// Generic connection and edge types come from async-graphql without a type description;
/// their fields are documented all the same.
fn is_generated_wrapper(name: &str) -> bool {
    name.ends_with("Connection") || name.ends_with("Edge")
}

#[tokio::test]
async fn every_type_field_and_argument_is_documented() {
    let schema = boxoffice::schema::schema(boxoffice::config::Limits::default().query());
    let response = schema.execute(INTROSPECTION).await;
    assert!(response.errors.is_empty(), "{:?}", response.errors);
    let data = response.data.into_json().unwrap();
    let undocumented_if_empty = |value: &Value| value.as_str().is_none_or(str::is_empty);
    let mut missing = Vec::new();
    let ours = |ty: &&Value| !ty["name"].as_str().unwrap().starts_with("__");
    for ty in data["__schema"]["types"]
        .as_array()
        .unwrap()
        .iter()
        .filter(ours)
    {
        let name = ty["name"].as_str().unwrap();
        if name.starts_with("__") || ty["kind"] == "SCALAR" {
            continue;
        }
        if undocumented_if_empty(&ty["description"]) && !is_generated_wrapper(name) {
            missing.push(name.to_owned());
        }
        for member in ["fields", "inputFields", "enumValues"] {
            for field in ty[member].as_array().into_iter().flatten() {
                let field_name = format!("{name}.{}", field["name"].as_str().unwrap());
                if undocumented_if_empty(&field["description"]) {
                    missing.push(field_name.clone());
                }
                for arg in field["args"].as_array().into_iter().flatten() {
                    if undocumented_if_empty(&arg["description"]) {
                        missing.push(format!("{field_name}({})", arg["name"].as_str().unwrap()));
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "undocumented: {missing:#?}");
}

/// `graphql::omitted_variables` sends an omitted variable that stands for a whole argument as
/// `null`, which means the same only while no argument of ours has a default (the
/// introspection types' `includeDeprecated` has one, which async-graphql does not apply to an
/// omitted variable either way).
#[tokio::test]
async fn no_argument_has_a_default_so_omitted_and_null_agree() {
    let schema = boxoffice::schema::schema(boxoffice::config::Limits::default().query());
    let response = schema
        .execute("{ __schema { types { name fields { name args { name defaultValue } } } } }")
        .await;
    assert!(response.errors.is_empty(), "{:?}", response.errors);
    let data = response.data.into_json().unwrap();
    let mut arguments = 0;
    let mut with_default = Vec::new();
    let ours = |ty: &&Value| !ty["name"].as_str().unwrap().starts_with("__");
    for ty in data["__schema"]["types"]
        .as_array()
        .unwrap()
        .iter()
        .filter(ours)
    {
        for field in ty["fields"].as_array().into_iter().flatten() {
            for arg in field["args"].as_array().into_iter().flatten() {
                arguments += 1;
                if !arg["defaultValue"].is_null() {
                    with_default.push(format!("{}.{}({})", ty["name"], field["name"], arg["name"]));
                }
            }
        }
    }
    assert!(
        arguments > 20,
        "the introspection read the arguments: {arguments}"
    );
    assert!(
        with_default.is_empty(),
        "arguments with a default: {with_default:?}"
    );
}

/// Whether this run rewrites the checked-in files: `BOXOFFICE_UPDATE_SCHEMA=1` only, so that
/// `=0` (or an empty value) checks them as any other run does.
fn updating() -> bool {
    std::env::var("BOXOFFICE_UPDATE_SCHEMA").as_deref() == Ok("1")
}
