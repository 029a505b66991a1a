//! A write of a showtime that another gateway owns is sent to that gateway (`gateways::Peers`)
//! and its answer passed back as it came: all writes of one showtime then queue in one
//! process's one-writer turns and group commits, where two processes' writes of one inventory
//! document would conflict in the database and batch half as well (issue 48: two gateways
//! served less than one until they did this).
//!
//! What is sent: one operation whose root fields all write one showtime's inventory
//! ([`SHOWTIME_WRITES`]: holds, their confirmation, release and extension, an order's
//! cancellation), after this gateway admitted it, charged the caller's rate limit and resolved
//! its persisted query. Everything else (reads, batches, an order id issued before ids named
//! their showtime) is served here. The owner authenticates the caller itself; the request
//! carries a MAC of its body under the deployment's secret, and only with a valid one does the
//! owner skip the rate limit (charged here) and serve it whatever it believes of the owners
//! (no request goes round). A gateway that cannot be reached is passed over for [`AVOID_FOR`]
//! and the write is served here: every write carries in its filter the state it assumes, so
//! where it runs is a matter of speed, never of correctness.

use std::time::Duration;

use async_graphql::parser::types::{OperationDefinition, OperationType, Selection};
use async_graphql::{Request, Variables};
use async_graphql_value::{ConstValue, Value};
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::media::Media;
use super::reply::unavailable;
use super::request_id::X_REQUEST_ID;
use super::AppState;
use crate::domain::global_id;
use crate::domain::ids::ShowtimeId;
use crate::gateways::Peer;
use crate::schema::ServedSchema;

/// The header of a forwarded request: the MAC of its caller's credential and body.
pub static FORWARDED: HeaderName = HeaderName::from_static("x-boxoffice-forwarded");

/// The root fields that write one showtime's inventory, and the path of the argument that
/// names it (a showtime's id, or a hold's or an order's, which name their showtime).
pub const SHOWTIME_WRITES: &[(&str, &[&str])] = &[
    ("holdSeats", &["input", "showtimeId"]),
    ("confirmHold", &["input", "holdId"]),
    ("releaseHold", &["holdId"]),
    ("extendHold", &["holdId"]),
    // Issue 48: served where they came, the cancellations of two gateways wrote one inventory
    // (16% of its writes came from the gateway that did not own it, racing the owner's
    // batches), and waited in that gateway's line, whose share of the pool was its floor.
    ("cancelOrder", &["orderId"]),
];

/// How long a gateway that could not be reached is passed over.
const AVOID_FOR: Duration = Duration::from_secs(3);

/// The largest answer taken from another gateway (a write's answer is a few kilobytes).
const MOST_ANSWER_BYTES: usize = 1 << 20;

/// Where a request comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hop {
    /// A client: served here, or sent to the showtime's owner.
    Client,
    /// Another gateway of this deployment (its MAC verified): served here, its rate limit
    /// charged there.
    Peer,
    /// Says it was forwarded, with a MAC that does not verify: served here as a client's
    /// (charged), and never sent on.
    Unverified,
}

/// Where the request with these headers and body comes from.
pub fn hop(state: &AppState, headers: &HeaderMap, body: &[u8]) -> Hop {
    let Some(mac) = headers.get(&FORWARDED) else {
        return Hop::Client;
    };
    let expected = URL_SAFE_NO_PAD.encode(mac_of(state, headers, body));
    if same_mac(mac.as_bytes(), expected.as_bytes()) {
        Hop::Peer
    } else {
        Hop::Unverified
    }
}

/// Whether MAC `given` is `expected`, compared in constant time (a MAC is a secret's output:
/// how long a comparison takes must not tell how much of it was right). Also for handed events.
pub(super) fn same_mac(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && (given.iter().zip(expected)).fold(0, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// The MAC of a forwarded request: of its caller's credential and its body, so that neither
/// can be changed under it.
fn mac_of(state: &AppState, headers: &HeaderMap, body: &[u8]) -> [u8; 32] {
    let authorization = (headers.get(header::AUTHORIZATION)).map_or(&[][..], |v| v.as_bytes());
    let signed = [authorization, b"\n", body].concat();
    (state.ticket_secret).derive(b"boxoffice forwarded request v1", &signed)
}

/// Sends `request` to the gateway that owns the showtime it writes, when that is another,
/// and returns its answer; None when it is served here (it writes no one showtime, this
/// gateway owns it, or the owner could not be reached).
pub async fn to_owner(
    state: &AppState,
    headers: &HeaderMap,
    request: &mut Request,
    media: Media,
    timeout: Duration,
) -> Option<Response> {
    if !state.peers.knows_others() {
        return None;
    }
    let showtime = written_showtime(&state.schema, request)?;
    let owner = state.peers.owner_elsewhere(showtime)?;
    send(state, &owner, headers, request, media, timeout).await
}

/// The one showtime whose inventory every root field of `request`'s operation writes (None:
/// another operation, fields of no showtime or of several, or a query the shape limits
/// refuse), from the document as `schema` checked and cached it for the execution.
pub fn written_showtime(schema: &ServedSchema, request: &mut Request) -> Option<ShowtimeId> {
    schema.on_operation(request, showtime_of)
}

fn showtime_of(operation: &OperationDefinition, variables: &Variables) -> Option<ShowtimeId> {
    if operation.ty != OperationType::Mutation {
        return None;
    }
    let mut showtime = None;
    for item in &operation.selection_set.node.items {
        let Selection::Field(field) = &item.node else {
            return None;
        };
        let (_, path) = (SHOWTIME_WRITES.iter()).find(|(name, _)| *name == field.node.name.node)?;
        let (first, rest) = path.split_first()?;
        let (_, value) = (field.node.arguments.iter()).find(|(name, _)| name.node == *first)?;
        let id = id_at(&value.node, rest, variables)?;
        let this = match path.last() {
            Some(&"holdId") => global_id::hold_id(id).ok()?.0,
            Some(&"orderId") => global_id::order_and_showtime(id).ok()?.1?,
            _ => global_id::showtime_id(id).ok()?,
        };
        if showtime.is_some_and(|showtime| showtime != this) {
            return None;
        }
        showtime = Some(this);
    }
    showtime
}

/// The id at `path` in an argument's `value`, through the request's variables (only those on
/// the path: another may be missing, as optional ones are).
fn id_at<'a>(value: &'a Value, path: &[&str], variables: &'a Variables) -> Option<&'a str> {
    match (value, path.split_first()) {
        (Value::String(id), None) => Some(id),
        (Value::Object(fields), Some((key, rest))) => id_at(fields.get(*key)?, rest, variables),
        (Value::Variable(name), _) => {
            let value = variables.get(name)?;
            let value = path.iter().try_fold(value, |value, key| match value {
                ConstValue::Object(fields) => fields.get(*key),
                _ => None,
            })?;
            match value {
                ConstValue::String(id) => Some(id),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Sends `request` to `owner` and returns its answer as it came; None when it could not be
/// reached (nothing was sent: served here); a 503 when it was sent and its answer did not
/// come (it may have written: the client retries with its key). The owner is then passed
/// over for [`AVOID_FOR`] either way.
async fn send(
    state: &AppState,
    owner: &Peer,
    headers: &HeaderMap,
    request: &Request,
    media: Media,
    timeout: Duration,
) -> Option<Response> {
    let body = serde_json::to_vec(request).ok()?;
    let mac = URL_SAFE_NO_PAD.encode(mac_of(state, headers, &body));
    let mut sending = (state.peers.client())
        .post(format!("{}/graphql", owner.url))
        .timeout(timeout)
        .header(header::CONTENT_TYPE, "application/json")
        .header(&FORWARDED, mac);
    for name in [&header::AUTHORIZATION, &header::ACCEPT, &X_REQUEST_ID] {
        if let Some(value) = headers.get(name) {
            sending = sending.header(name, value);
        }
    }
    let answer = match sending.body(body).send().await {
        Ok(answer) => answer,
        Err(error) if error.is_connect() => {
            tracing::warn!(peer = %owner.id, url = %owner.url, %error,
                "the gateway owning a showtime could not be reached: serving its write here");
            state.peers.avoid(owner, AVOID_FOR);
            crate::telemetry::metrics::forwarded("unreached");
            return None;
        }
        Err(error) => {
            state.peers.avoid(owner, AVOID_FOR);
            return Some(lost(media, owner, &error));
        }
    };
    let status = StatusCode::from_u16(answer.status().as_u16()).ok()?;
    let kept: Vec<(HeaderName, HeaderValue)> = [
        header::CONTENT_TYPE,
        header::RETRY_AFTER,
        header::CACHE_CONTROL,
    ]
    .into_iter()
    .filter_map(|name| {
        let value = answer.headers().get(name.as_str())?;
        Some((name, HeaderValue::from_bytes(value.as_bytes()).ok()?))
    })
    .collect();
    let bytes = match read_capped(answer).await {
        Ok(bytes) => bytes,
        Err(error) => {
            state.peers.avoid(owner, AVOID_FOR);
            return Some(lost(media, owner, &error));
        }
    };
    crate::telemetry::metrics::forwarded("answered");
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    response.headers_mut().extend(kept);
    Some(response)
}

/// The owner's answer, refused past [`MOST_ANSWER_BYTES`].
async fn read_capped(mut answer: reqwest::Response) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    while let Some(chunk) = answer.chunk().await? {
        anyhow::ensure!(
            bytes.len() + chunk.len() <= MOST_ANSWER_BYTES,
            "an answer of more than {MOST_ANSWER_BYTES} bytes"
        );
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

fn lost(media: Media, owner: &Peer, error: &dyn std::fmt::Display) -> Response {
    tracing::warn!(peer = %owner.id, url = %owner.url, %error,
        "the gateway owning a showtime took a write and gave no answer");
    crate::telemetry::metrics::forwarded("lost");
    // As when the database goes away under a write: 503, the outcome unknown, to be retried
    // with the same key (by then the owner is passed over, or back).
    unavailable(
        media,
        "the gateway serving this showtime did not answer; a write may or may not have \
         happened: retry it with its idempotency key"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::global_id::GlobalId;
    use crate::domain::ids::{HoldId, OrderId};
    use serde_json::json;

    fn showtime(n: u8) -> ShowtimeId {
        ShowtimeId([n; 12])
    }

    fn written_showtime_of(request: &mut Request) -> Option<ShowtimeId> {
        let schema = ServedSchema::new(crate::config::Limits::default().query(), false);
        written_showtime(&schema, request)
    }

    #[test]
    fn a_query_over_the_limits_is_not_parsed_here() {
        // Valid, of one showtime, and over the token limit: execution refuses it with its
        // code, and this gateway does not parse it (nor send it on) first.
        let id = hold_id(1);
        let fields = crate::config::Limits::default().query().max_tokens / 8 + 1;
        let many: String = (0..fields)
            .map(|n| format!("a{n}: releaseHold(holdId: \"{id}\") "))
            .collect();
        let query = format!("mutation {{ {many}}}");
        assert_eq!(written_showtime_of(&mut request(&query, json!({}))), None);
        let deep = format!(
            "mutation {{ releaseHold(holdId: \"{id}\") {}{} }}",
            "{ a ".repeat(100_000),
            "}".repeat(100_000)
        );
        assert_eq!(written_showtime_of(&mut request(&deep, json!({}))), None);
    }

    fn request(query: &str, variables: serde_json::Value) -> Request {
        Request::new(query).variables(async_graphql::Variables::from_json(variables))
    }

    fn showtime_id(n: u8) -> String {
        GlobalId::Showtime(showtime(n)).encode()
    }

    fn hold_id(n: u8) -> String {
        GlobalId::Hold(showtime(n), HoldId([9; 12])).encode()
    }

    #[test]
    fn a_hold_names_its_showtime_inline_or_in_variables() {
        let inline = format!(
            "mutation {{ holdSeats(input: {{ showtimeId: \"{}\", seats: [\"A1\"] }}) {{ id }} }}",
            showtime_id(1)
        );
        assert_eq!(
            written_showtime_of(&mut request(&inline, json!({}))),
            Some(showtime(1))
        );
        let whole = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) { id } }";
        let variables =
            json!({ "input": { "showtimeId": showtime_id(2), "best": { "count": 2 } } });
        assert_eq!(
            written_showtime_of(&mut request(whole, variables)),
            Some(showtime(2))
        );
        // Only the variables on the path are needed: an optional one may be left out.
        let part = "mutation ($s: ID!, $key: String) { holdSeats(input: { showtimeId: $s, \
            seats: [\"A1\"], idempotencyKey: $key }) { id } }";
        let variables = json!({ "s": showtime_id(3) });
        assert_eq!(
            written_showtime_of(&mut request(part, variables)),
            Some(showtime(3))
        );
    }

    #[test]
    fn a_hold_s_id_names_its_showtime() {
        let release = "mutation ($h: ID!) { releaseHold(holdId: $h) }";
        let found = written_showtime_of(&mut request(release, json!({ "h": hold_id(4) })));
        assert_eq!(found, Some(showtime(4)));
        let confirm = "mutation ($h: ID!) { a: confirmHold(input: { holdId: $h, customer: \
            { name: \"x\", contact: \"y\" } }) { id } b: extendHold(holdId: $h) { id } }";
        let found = written_showtime_of(&mut request(confirm, json!({ "h": hold_id(5) })));
        assert_eq!(found, Some(showtime(5)));
    }

    #[test]
    fn an_order_s_id_names_its_showtime_unless_issued_before_it_did() {
        let order = OrderId([8; 12]);
        let cancel = "mutation ($o: ID!) { cancelOrder(orderId: $o) { id } }";
        let named = GlobalId::Order(Some(showtime(6)), order).encode();
        let found = written_showtime_of(&mut request(cancel, json!({ "o": named })));
        assert_eq!(found, Some(showtime(6)));
        // An id without its showtime is served where it comes (finding it would take a read).
        let older = GlobalId::Order(None, order).encode();
        let found = written_showtime_of(&mut request(cancel, json!({ "o": older })));
        assert_eq!(found, None);
        // With a write of the same showtime beside it, both go; of another, neither.
        let both = "mutation ($o: ID!, $h: ID!) { cancelOrder(orderId: $o) { id } \
            extendHold(holdId: $h) { id } }";
        let same = json!({ "o": named, "h": hold_id(6) });
        assert_eq!(
            written_showtime_of(&mut request(both, same)),
            Some(showtime(6))
        );
        let other = json!({ "o": named, "h": hold_id(7) });
        assert_eq!(written_showtime_of(&mut request(both, other)), None);
    }

    #[test]
    fn anything_else_is_served_where_it_comes() {
        let two = format!(
            "mutation {{ a: releaseHold(holdId: \"{}\") b: releaseHold(holdId: \"{}\") }}",
            hold_id(1),
            hold_id(2)
        );
        let others = [
            (two.as_str(), json!({})),
            ("query { showtimes(first: 1) { totalCount } }", json!({})),
            ("mutation ($o: ID!) { cancelOrder(orderId: $o) { id } }", json!({ "o": "x" })),
            // A write of a showtime beside another mutation.
            ("mutation ($h: ID!) { releaseHold(holdId: $h) cancelOrder(orderId: $h) { id } }",
             json!({ "h": hold_id(1) })),
            // Fragments, bad ids, missing variables, unparsable text.
            ("mutation ($h: ID!) { ...F } fragment F on Mutation { releaseHold(holdId: $h) }",
             json!({ "h": hold_id(1) })),
            ("mutation ($h: ID!) { releaseHold(holdId: $h) }", json!({ "h": "not an id" })),
            ("mutation ($h: ID!) { releaseHold(holdId: $h) }", json!({})),
            ("mutation { releaseHold(", json!({})),
            ("mutation A { releaseHold(holdId: \"x\") } mutation B { releaseHold(holdId: \"y\") }",
             json!({})),
        ];
        for (query, variables) in others {
            assert_eq!(
                written_showtime_of(&mut request(query, variables)),
                None,
                "{query}"
            );
        }
    }

    #[test]
    fn of_named_operations_the_one_asked_for_is_read() {
        let query = format!(
            "query Q {{ showtimes(first: 1) {{ totalCount }} }} \
             mutation M {{ releaseHold(holdId: \"{}\") }}",
            hold_id(7)
        );
        let mut asked = request(&query, json!({}));
        asked.operation_name = Some("M".into());
        assert_eq!(written_showtime_of(&mut asked), Some(showtime(7)));
        asked.operation_name = Some("Q".into());
        assert_eq!(written_showtime_of(&mut asked), None);
    }
}
