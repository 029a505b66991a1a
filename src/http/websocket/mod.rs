//! GraphQL over WebSocket: the `graphql-transport-ws` protocol (the `graphql-ws` npm client's,
//! and GraphiQL's) on `GET /graphql` with an upgrade. Subscriptions run here; queries and
//! mutations may too, through the same limits as over HTTP.
//!
//! Written here rather than taken from async-graphql, whose transport closes a refused
//! `connection_init` with 1002 where the protocol says 4403, and has no idle timeout, no
//! per-connection cap and no rate limit.
//!
//! Limits (all in `config::Limits`): connections per process (503 before the upgrade),
//! `connection_init` within a timeout (4408), operations per connection (SUBSCRIPTION_LIMIT on
//! that operation alone), an idle connection is closed (1000), each `subscribe` costs one
//! token of the caller's rate limit, and a message may be at most `max_body_bytes`. When the
//! gateway stops (SIGTERM, Ctrl-C) every connection is closed with 1001 "going away".

mod fan_out;
mod operation;
mod protocol;

pub use fan_out::FanOut;
use fan_out::{SharedBody, SharedEvent};
use operation::guarded;
use protocol::{close, failed, send, send_text, ClientMessage};

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::stream::{BoxStream, SplitStream};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::time::Instant;
use tokio_stream::StreamMap;

use super::auth::{authenticate, authenticate_credential};
use super::media::Media;
use super::rate_limit::{charge, client_address};
use super::{reply, AppState};
use crate::error::ErrorCode;
use crate::graphql::errors::error_with_code;
use crate::graphql::{Caller, MAX_VARIABLE_LIST};
use crate::schema::prepare;

/// The subprotocol spoken.
pub const PROTOCOL: &str = "graphql-transport-ws";

/// The read buffer of a connection.
const READ_BUFFER_BYTES: usize = 4096;

/// The longest operation id a `subscribe` may carry: it is copied into every message sent for
/// the operation, so an unbounded one would make each event as large as the client liked.
/// Clients send UUIDs (36 bytes) or counters.
const MAX_OPERATION_ID_BYTES: usize = 128;

/// Client messages read ahead of the connection's handling.
const INCOMING_MESSAGES: usize = 4;

/// Whether a request asks to upgrade to WebSocket.
pub(super) fn is_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"websocket"))
}

/// Upgrades `GET /graphql` to a GraphQL WebSocket connection, within the connection cap.
pub(super) async fn upgrade(state: AppState, mut parts: Parts) -> Response {
    let ws = match WebSocketUpgrade::from_request_parts(&mut parts, &state).await {
        Ok(ws) => ws,
        Err(rejection) => return rejection.into_response(),
    };
    if state.shutdown.is_requested() {
        // A keep-alive connection asking while the gateway drains: go to another gateway.
        let message = "this gateway is stopping; connect again".to_owned();
        let status = StatusCode::SERVICE_UNAVAILABLE;
        return reply::refused(Media::Json, status, message, ErrorCode::Unavailable);
    }
    let Ok(permit) = Arc::clone(&state.live_connections).try_acquire_owned() else {
        let message = format!(
            "this gateway has its most WebSocket connections open ({}); retry in a moment",
            state.limits.max_live_connections
        );
        return reply::refused(
            Media::Json,
            StatusCode::SERVICE_UNAVAILABLE,
            message,
            ErrorCode::Unavailable,
        );
    };
    // A non-browser client may send its key as a header; a browser sends it in connection_init.
    let caller = match authenticate(&state.store, &state.known_keys, &parts.headers).await {
        Ok(caller) => caller,
        Err(error) => return reply::authentication_failed(Media::Json, &error),
    };
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    let client = client_address(&parts.headers, state.client_ip_header.as_ref(), peer);
    let offered = ws
        .requested_protocols()
        .any(|protocol| protocol == PROTOCOL);
    // The connection's task runs in a span of the upgrade request's: its lines carry the id.
    let span = tracing::info_span!("live_connection");
    ws.protocols([PROTOCOL])
        .max_message_size(state.limits.max_body_bytes)
        // A frame's whole length is reserved as soon as its header is read, before the message
        // size is checked (tungstenite's default frame cap is 16 MiB): capped alike.
        .max_frame_size(state.limits.max_body_bytes)
        // tungstenite's default read buffer is 128 KiB, zero-filled before every read: 140 KiB
        // of memory per connection, and 30% of the gateway's CPU while events go out
        // (`examples/live_seat_maps`). Client messages are small; 4 KiB holds most in one read.
        .read_buffer_size(READ_BUFFER_BYTES)
        .on_upgrade(move |socket| {
            let connection = async move {
                let _permit = permit;
                let connection = Connection {
                    state,
                    caller,
                    client,
                    acked: false,
                    last_used: Instant::now(),
                };
                if offered {
                    connection.run(socket).await;
                } else {
                    let (mut sink, _) = socket.split();
                    close(&mut sink, 4406, "Subprotocol not acceptable").await;
                }
            };
            tracing::Instrument::instrument(connection, span)
        })
}

/// What an operation run for one subscriber sends: a response, or `None` when the operation
/// is over.
type Outgoing = Option<async_graphql::Response>;

/// What a connection's operations send: their own responses, or a shared subscription's
/// (`fan_out`), serialised once for all its members.
// Moved once per message, as `Outgoing` alone was: boxing it would add an allocation per own
// response for nothing.
#[allow(clippy::large_enum_variant)]
enum Reply {
    Own(Outgoing),
    Shared(Arc<SharedEvent>),
}

/// By operation id; `Arc<str>`, as the map clones its key for every item it yields.
type Operations = StreamMap<Arc<str>, BoxStream<'static, Reply>>;

struct Connection {
    state: AppState,
    caller: Caller,
    /// The client's address, for an anonymous caller's rate limit.
    client: Option<String>,
    acked: bool,
    /// When the client last asked for something (pings do not count: a connection that only
    /// pings is idle).
    last_used: Instant,
}

/// What handling a client message calls for.
enum Then {
    Nothing,
    Send(Value),
    Close(u16, String),
}

impl Connection {
    async fn run(mut self, socket: WebSocket) {
        let (mut sink, source) = socket.split();
        // The socket is read in a task of its own: polled here, beside the operations, it
        // would be read again (a 4 KiB buffer zeroed, a read tried) each time an event goes
        // out, 10% of the gateway's CPU with 1,000 subscribers (`examples/live_seat_maps`).
        let (messages, mut incoming) = tokio::sync::mpsc::channel(INCOMING_MESSAGES);
        let _reader = AbortOnDrop(tokio::spawn(tracing::Instrument::in_current_span(
            read_messages(source, messages),
        )));
        let limits = self.state.limits;
        let init_deadline = Instant::now() + Duration::from_millis(limits.live_init_timeout_ms);
        let idle = Duration::from_millis(limits.live_idle_timeout_ms);
        let mut operations = Operations::new();
        // Made once, not per event: each `requested()` would register with the one watch
        // every connection shares, and each sleep would be a new timer.
        let shutdown = self.state.shutdown.requested_owned();
        tokio::pin!(shutdown);
        let timer = tokio::time::sleep_until(init_deadline);
        tokio::pin!(timer);
        let closing = loop {
            // Only a connection running nothing can be idle (the branch below is off otherwise).
            let deadline = if self.acked {
                self.last_used + idle
            } else {
                init_deadline
            };
            if timer.deadline() != deadline {
                timer.as_mut().reset(deadline);
            }
            tokio::select! {
                message = incoming.recv() => {
                    let text = match message {
                        Some(Ok(Message::Text(text))) => text,
                        Some(Ok(Message::Binary(_))) => {
                            break Some((4400, "binary messages are not part of the protocol".into()));
                        }
                        Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break None,
                    };
                    match self.handle(text.as_str(), &mut operations).await {
                        Then::Nothing => {}
                        Then::Send(message) => {
                            if send(&mut sink, &message).await.is_err() {
                                break None;
                            }
                        }
                        Then::Close(code, reason) => break Some((code, reason)),
                    }
                }
                Some((id, reply)) = operations.next(), if !operations.is_empty() => {
                    let (message, ended) = message_of(&id, reply);
                    if ended {
                        // The operation ends here: no `complete` after an `error`.
                        operations.remove(&id);
                    }
                    if send_text(&mut sink, message).await.is_err() {
                        break None;
                    }
                }
                // The gateway is stopping: the client should reconnect elsewhere.
                () = &mut shutdown => break Some((1001, "going away".into())),
                () = &mut timer, if !self.acked || operations.is_empty() => {
                    break Some(if self.acked {
                        (1000, "idle".into())
                    } else {
                        (4408, "Connection initialisation timeout".into())
                    });
                }
            }
        };
        if let Some((code, reason)) = closing {
            close(&mut sink, code, &reason).await;
        }
    }

    async fn handle(&mut self, text: &str, operations: &mut Operations) -> Then {
        if self.acked {
            if let Some(refusal) = list_too_long(text) {
                return refusal;
            }
        }
        let message = match serde_json::from_str::<ClientMessage>(text) {
            Ok(message) => message,
            Err(error) => return Then::Close(4400, format!("Invalid message: {error}")),
        };
        if !matches!(message, ClientMessage::Ping {} | ClientMessage::Pong {}) {
            self.last_used = Instant::now();
        }
        match message {
            ClientMessage::ConnectionInit { .. } if self.acked => {
                Then::Close(4429, "Too many initialisation requests".into())
            }
            ClientMessage::ConnectionInit { payload } => self.init(payload).await,
            ClientMessage::Ping {} => Then::Send(json!({ "type": "pong" })),
            ClientMessage::Pong {} => Then::Nothing,
            ClientMessage::Subscribe { .. } if !self.acked => {
                Then::Close(4401, "Unauthorized".into())
            }
            ClientMessage::Subscribe { id, .. } if id.len() > MAX_OPERATION_ID_BYTES => {
                Then::Close(
                    4400,
                    format!(
                    "Invalid message: an operation id is at most {MAX_OPERATION_ID_BYTES} bytes"
                ),
                )
            }
            ClientMessage::Subscribe { id, .. } if operations.contains_key(id.as_str()) => {
                Then::Close(4409, format!("Subscriber for {id} already exists"))
            }
            ClientMessage::Subscribe { id, payload } => {
                match self.start(*payload, operations.len()) {
                    Ok(stream) => {
                        operations.insert(id.into(), stream);
                        Then::Nothing
                    }
                    Err(error) => {
                        Then::Send(json!({ "type": "error", "id": id, "payload": [error] }))
                    }
                }
            }
            ClientMessage::Complete { id } => {
                operations.remove(id.as_str());
                Then::Nothing
            }
        }
    }

    /// `connection_init`: the channel's key may come in the payload (`Authorization`).
    async fn init(&mut self, payload: Option<Value>) -> Then {
        let credential = payload.as_ref().and_then(|payload| {
            ["Authorization", "authorization"]
                .iter()
                .find_map(|name| payload.get(name))
        });
        match credential {
            None => {}
            Some(Value::String(credential)) => {
                let state = &self.state;
                match authenticate_credential(&state.store, &state.known_keys, credential).await {
                    Ok(caller) => self.caller = caller,
                    Err(error) if error.effect_unknown() => {
                        tracing::error!(%error, "authenticating a WebSocket connection");
                        return Then::Close(4500, error.client_message());
                    }
                    Err(error) => {
                        return Then::Close(4403, format!("Forbidden: {}", error.client_message()))
                    }
                }
            }
            Some(_) => {
                return Then::Close(4403, "Forbidden: `Authorization` must be a string".into())
            }
        }
        self.acked = true;
        Then::Send(json!({ "type": "connection_ack" }))
    }

    /// Starts an operation, within the connection's cap and the caller's rate limit.
    fn start(
        &self,
        mut request: async_graphql::Request,
        running: usize,
    ) -> Result<BoxStream<'static, Reply>, async_graphql::ServerError> {
        let state = &self.state;
        let cap = state.limits.max_subscriptions_per_connection;
        if running >= cap {
            let message = format!(
                "a connection may run at most {cap} operations at once; complete one first"
            );
            return Err(error_with_code(message, ErrorCode::SubscriptionLimit));
        }
        if let Err((who, wait)) = charge(state, &self.caller, self.client.as_deref(), 1) {
            return Err(reply::rate_limited_error(&who, wait).0);
        }
        if let Err(refusal) = state.persisted_queries.resolve(&mut request) {
            return Err(error_with_code(refusal.message, refusal.code));
        }
        if let Some(fan_out) = &state.fan_out {
            if state.schema.shareable(&mut request) {
                let key = self.group_key(&request);
                let execute = self.execute_again(request);
                let events = fan_out.join(key, execute, state.limits.live_buffer);
                return Ok(events.map(Reply::Shared).boxed());
            }
        }
        let responses = run_operation(state, &self.caller, request);
        Ok(responses.map(Reply::Own).boxed())
    }

    /// What subscribers must share to share an execution: the caller, and the request.
    fn group_key(&self, request: &async_graphql::Request) -> fan_out::GroupKey {
        let variables = serde_json::to_string(&request.variables).unwrap_or_default();
        let caller = &self.caller;
        let who = (&caller.channel, &caller.operator, &caller.door);
        let operation = &request.operation_name;
        format!("{who:?}\0{operation:?}\0{variables}\0{}", request.query).into()
    }

    /// Runs `request` for a group, as often as the group needs it (`fan_out::Execute`).
    fn execute_again(&self, request: async_graphql::Request) -> fan_out::Execute {
        let state = self.state.clone();
        let caller = self.caller.clone();
        let (query, operation_name) = (request.query, request.operation_name);
        let (variables, extensions) = (request.variables, request.extensions);
        Arc::new(move |tap| {
            let mut request = async_graphql::Request::new(query.clone())
                .variables(variables.clone())
                .data(tap);
            request.operation_name = operation_name.clone();
            request.extensions = extensions.clone();
            run_operation(&state, &caller, request)
        })
    }
}

/// Runs one operation for `caller` over WebSocket: its data, the live hub, the request timeout.
fn run_operation(
    state: &AppState,
    caller: &Caller,
    mut request: async_graphql::Request,
) -> BoxStream<'static, Outgoing> {
    // A query or mutation must answer within the request timeout; a subscription's first
    // event waits on a change (an order confirmed) that may come in an hour.
    let first_within = (!state.schema.is_subscription(&mut request))
        .then(|| Duration::from_millis(state.limits.request_timeout_ms));
    let request = prepare(request, &state.store, state.settings(), caller).data(state.live.clone());
    let responses = state.schema.execute_stream(request);
    guarded(responses, first_within)
}

/// The protocol message of an operation's reply, and whether the operation ends with it.
fn message_of(id: &str, reply: Reply) -> (String, bool) {
    let complete = || json!({ "type": "complete", "id": id }).to_string();
    // Serialised straight to text, not through a `serde_json::Value` first.
    match reply {
        Reply::Own(Some(response)) if failed(&response) => {
            (envelope("error", id, &payload_json(&response.errors)), true)
        }
        Reply::Own(Some(response)) => (envelope("next", id, &payload_json(&response)), false),
        Reply::Own(None) => (complete(), true),
        Reply::Shared(event) => match &event.body {
            // Only the envelope is written per member: the payload is the group's.
            SharedBody::Next(payload) => (envelope("next", id, payload), false),
            SharedBody::Error(errors) => (envelope("error", id, errors), true),
            SharedBody::Complete => (complete(), true),
        },
    }
}

/// Passes the client's messages on until the socket or the connection ends.
async fn read_messages(
    mut source: SplitStream<WebSocket>,
    messages: tokio::sync::mpsc::Sender<Result<Message, axum::Error>>,
) {
    while let Some(message) = source.next().await {
        let last = !matches!(
            message,
            Ok(Message::Text(_) | Message::Ping(_) | Message::Pong(_))
        );
        // A full queue waits: the client is then read no faster than it is served.
        if messages.send(message).await.is_err() || last {
            return;
        }
    }
}

/// A task that ends with its owner.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `payload` as JSON text (a GraphQL response or its errors, which always serialise).
fn payload_json(payload: &impl serde::Serialize) -> String {
    serde_json::to_string(payload).expect("a GraphQL response serialises")
}

/// `{"type":kind,"id":id,"payload":payload}` around a payload already serialised.
fn envelope(kind: &str, id: &str, payload: &str) -> String {
    let id = serde_json::to_string(id).expect("a string serialises");
    let mut message = String::with_capacity(payload.len() + id.len() + kind.len() + 32);
    message.push_str(r#"{"type":""#);
    message.push_str(kind);
    message.push_str(r#"","id":"#);
    message.push_str(&id);
    message.push_str(r#","payload":"#);
    message.push_str(payload);
    message.push('}');
    message
}

/// A message holding a list longer than any argument takes, found before it is parsed: an
/// `error` for its operation (whose id and type are read with the rest skipped unbuilt), or,
/// when it names none, a close as an invalid message. None for any other message.
fn list_too_long(text: &str) -> Option<Then> {
    #[derive(serde::Deserialize)]
    struct Envelope<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        id: Option<std::borrow::Cow<'a, str>>,
    }
    let longest = super::json_lists::longest_list(text.as_bytes()).ok()?;
    if longest <= MAX_VARIABLE_LIST {
        return None;
    }
    let message = format!("a list in the message has {longest} items; at most {MAX_VARIABLE_LIST}");
    match serde_json::from_str::<Envelope>(text) {
        Ok(Envelope { kind, id: Some(id) })
            if kind == "subscribe" && id.len() <= MAX_OPERATION_ID_BYTES =>
        {
            let error = error_with_code(message, ErrorCode::BadUserInput);
            Some(Then::Send(
                json!({ "type": "error", "id": id, "payload": [error] }),
            ))
        }
        _ => Some(Then::Close(4400, format!("Invalid message: {message}"))),
    }
}
