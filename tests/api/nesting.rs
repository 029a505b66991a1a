//! Fragments and nesting: a query that is small as text but huge or deep once its fragments
//! are expanded, or whose brackets or variables nest deep, is refused with a code before it is
//! parsed, validated or run, and changes nothing.

use boxoffice::config::Limits;
use serde_json::{json, Value};

use crate::helpers::{nested_list, TestApp};
use crate::sale::{sale, HOLD};

/// `{ ...F0 }` where each fragment spreads the next `fan_out` times, `levels` deep: a few
/// hundred bytes that expand to `fan_out`^`levels` selections.
fn fragment_bomb(levels: usize, fan_out: usize) -> String {
    let mut query = "{ ...F0 }".to_owned();
    for level in 0..levels {
        let spreads = format!("...F{} ", level + 1).repeat(fan_out);
        query += &format!(" fragment F{level} on Query {{ {spreads}}}");
    }
    query + &format!(" fragment F{levels} on Query {{ __typename }}")
}

fn assert_refused(response: &crate::helpers::GqlResponse, code: &str, says: &str) {
    assert_eq!(response.error_code(), code, "{:#}", response.0);
    assert!(
        response.error_message().contains(says),
        "`{says}` not in {:#}",
        response.0
    );
    assert!(
        response.0.get("data").is_none(),
        "nothing ran: {:#}",
        response.0
    );
}

#[tokio::test]
async fn a_fragment_bomb_is_refused_before_anything_expands_it() {
    let app = TestApp::spawn().await;
    // 4^40 selections: expanding it would never end. Its text is 2 KB.
    let bomb = fragment_bomb(40, 4);
    assert!(bomb.len() < 2_500, "{}", bomb.len());
    let response = app.graphql(&bomb, json!({})).await;
    assert_refused(&response, "QUERY_TOO_COMPLEX", "nest 41 deep");

    // Shallow enough, but 4^8 = 65,536 selections: over the complexity limit (50,000).
    let response = app.graphql(&fragment_bomb(8, 4), json!({})).await;
    assert_refused(&response, "QUERY_TOO_COMPLEX", "selections");

    // 4^5 = 1,024 selections of one field: within every limit, and answered.
    let response = app.graphql(&fragment_bomb(5, 4), json!({})).await;
    assert_eq!(response.data()["__typename"], "Query");
}

#[tokio::test]
async fn brackets_variables_and_fragment_chains_nest_at_most_the_limit() {
    let app = TestApp::spawn().await;
    // Brackets in the text: refused before parsing.
    let value = format!("{}\"x\"{}", "[".repeat(40), "]".repeat(40));
    let text = format!("{{ __type(name: {value}) {{ name }} }}");
    let response = app.graphql(&text, json!({})).await;
    assert_refused(&response, "QUERY_TOO_COMPLEX", "brackets nest 42 deep");

    // Values in the variables.
    let query = "query ($name: String!) { __type(name: $name) { name } }";
    let response = app.graphql(query, json!({ "name": nested_list(40) })).await;
    assert_refused(&response, "QUERY_TOO_COMPLEX", "variables nest 40 deep");

    // A chain of 40 fragments, each spreading the next: shallow text, deep recursion.
    let response = app.graphql(&fragment_bomb(40, 1), json!({})).await;
    assert_refused(
        &response,
        "QUERY_TOO_COMPLEX",
        "nest 41 deep with its fragments",
    );

    // The limit is a setting: with 64 the same chain runs.
    let roomy = TestApp::spawn_with(Limits {
        max_nesting: 64,
        ..Limits::default()
    })
    .await;
    let response = roomy.graphql(&fragment_bomb(40, 1), json!({})).await;
    assert_eq!(response.data()["__typename"], "Query");
}

#[tokio::test]
async fn a_fragment_that_spreads_itself_is_bad_input_naming_it() {
    let app = TestApp::spawn().await;
    let cycle = "{ ...A } fragment A on Query { __typename ...B } fragment B on Query { ...A }";
    let response = app.graphql(cycle, json!({})).await;
    assert_refused(&response, "BAD_USER_INPUT", "fragment `A` spreads itself");
}

#[tokio::test]
async fn a_hold_with_deeply_nested_input_is_refused_and_holds_nothing() {
    let sale = sale().await;
    let input = json!({ "showtimeId": sale.showtime, "seats": nested_list(40) });
    let response = sale
        .app
        .graphql_as(&sale.maoyan, HOLD, json!({ "input": input }))
        .await;
    assert_refused(&response, "QUERY_TOO_COMPLEX", "variables nest 41 deep");
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing was held");
}

#[tokio::test]
async fn a_get_over_the_text_limits_is_refused_before_anything_parses_it() {
    let sale = sale().await;
    // A mutation nested past the limit, sent over GET: refused for its nesting (the GET
    // handler does not parse it to find that it is a mutation), and nothing is held.
    let seats = format!("{}\"A1\"{}", "[".repeat(40), "]".repeat(40));
    let mutation = format!(
        "mutation {{ holdSeats(input: {{ showtimeId: \"{}\", seats: {seats} }}) {{ id }} }}",
        sale.showtime
    );
    let response = sale
        .app
        .client
        .get(sale.app.url("/graphql"))
        .query(&[("query", mutation.as_str())])
        .bearer_auth(&sale.maoyan)
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["errors"][0]["extensions"]["code"], "QUERY_TOO_COMPLEX",
        "{body}"
    );
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing was held");
}
