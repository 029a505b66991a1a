//! One rule for a customer id (`domain::customer`): every field that takes one accepts and
//! refuses the same values, counts characters (64 Chinese characters are an id) and refuses
//! control characters; a refused hold holds nothing.

use serde_json::{json, Value};

use crate::sale::{sale, Sale, HOLD};

const JOIN: &str = "mutation ($input: JoinWaitingListInput!) {
    joinWaitingList(input: $input) { id customerId } }";
const MARK: &str = "mutation ($input: WantToSeeInput!) { markWantToSee(input: $input) { title } }";
const UNMARK: &str = "mutation ($input: WantToSeeInput!) { unmarkWantToSee(input: $input) }";
const LIST: &str = "query ($customer: String!) {
    wantToSee(customerId: $customer, first: 2) { edges { node { title } } } }";
const MOVIE: &str = "query ($id: ID!) { showtime(id: $id) { movie { id } } }";

/// What every field that takes a customer id answers for `customer`: the error code of each
/// (or "" for an answer without errors), in the order hold, join, mark, unmark, list.
async fn answers(sale: &Sale, movie: &Value, customer: &str, seat: &str) -> Vec<String> {
    let app = &sale.app;
    let code = |answer: crate::helpers::GqlResponse| match answer.0.get("errors") {
        Some(_) => answer.error_code().to_owned(),
        None => String::new(),
    };
    let hold = json!({ "input": {
        "showtimeId": sale.showtime, "seats": [seat], "customerId": customer } });
    let join = json!({ "input": { "showtimeId": sale.showtime, "partySize": 2,
        "kind": "STANDARD", "together": false, "customerId": customer } });
    let mark = json!({ "input": { "movieId": movie, "customerId": customer } });
    vec![
        code(app.graphql_as(&sale.maoyan, HOLD, hold).await),
        code(app.graphql_as(&sale.maoyan, JOIN, join).await),
        code(app.graphql_as(&sale.maoyan, MARK, mark.clone()).await),
        code(app.graphql_as(&sale.maoyan, UNMARK, mark).await),
        code(
            app.graphql_as(&sale.maoyan, LIST, json!({ "customer": customer }))
                .await,
        ),
    ]
}

#[tokio::test]
async fn every_field_that_takes_a_customer_id_accepts_and_refuses_the_same_values() {
    let sale = sale().await;
    let movie = sale
        .app
        .graphql_as(&sale.maoyan, MOVIE, json!({ "id": sale.showtime }))
        .await
        .data()["showtime"]["movie"]["id"]
        .clone();
    let chinese = "影".repeat(64);
    for (customer, seat) in [("c-42", "A1"), ("用户123", "A2"), (chinese.as_str(), "A3")] {
        assert_eq!(
            answers(&sale, &movie, customer, seat).await,
            ["", "", "", "", ""],
            "{customer:?} is an id everywhere"
        );
    }
    let too_long = "影".repeat(65);
    let huge = "x".repeat(100_000);
    for customer in ["", "a\u{0}b", "a b", " c-42", "line\n", &too_long, &huge] {
        assert_eq!(
            answers(&sale, &movie, customer, "B1").await,
            ["BAD_USER_INPUT"; 5],
            "{customer:?} is an id nowhere"
        );
    }
    // The refused holds held nothing: B1 is free.
    let hold = json!({ "input": { "showtimeId": sale.showtime, "seats": ["B1"] } });
    sale.app.graphql_as(&sale.maoyan, HOLD, hold).await.data();
}
