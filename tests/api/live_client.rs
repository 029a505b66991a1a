//! A `graphql-transport-ws` client for the live tests (a real WebSocket over TCP), and a
//! mirror of a seat map that applies the events a subscriber gets, as a seat picker would.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::helpers::TestApp;

/// How long a test waits for any one message.
const WAIT: Duration = Duration::from_secs(10);

/// The subscription the seat-map tests use: compact rows on a SNAPSHOT, seats on CHANGES.
pub const SEAT_MAP: &str = "subscription ($id: ID!) { seatMapChanged(showtimeId: $id) {
    showtimeId kind version counts { available held sold blocked capacity }
    seatMap { width rows { label states kinds } }
    changes { label row column state kind } } }";

pub struct LiveClient {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl LiveClient {
    /// Opens a connection offering `protocol` (none when `None`), without `connection_init`.
    pub async fn open(app: &TestApp, protocol: Option<&str>) -> LiveClient {
        LiveClient::try_open(app, protocol, None)
            .await
            .expect("the upgrade is accepted")
    }

    /// Opens a connection, or the HTTP status of the refused upgrade.
    pub async fn try_open(
        app: &TestApp,
        protocol: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<LiveClient, u16> {
        LiveClient::try_open_url(&app.url("/graphql"), protocol, authorization).await
    }

    /// Opens a connection to the gateway whose GraphQL endpoint is `http_url`.
    pub async fn try_open_url(
        http_url: &str,
        protocol: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<LiveClient, u16> {
        let url = http_url.replacen("http://", "ws://", 1);
        let mut request = url.into_client_request().unwrap();
        if let Some(protocol) = protocol {
            request
                .headers_mut()
                .insert("sec-websocket-protocol", protocol.parse().unwrap());
        }
        if let Some(authorization) = authorization {
            request
                .headers_mut()
                .insert("authorization", authorization.parse().unwrap());
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((socket, _)) => Ok(LiveClient { socket }),
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                Err(response.status().as_u16())
            }
            Err(error) => panic!("connecting: {error}"),
        }
    }

    /// A connection acknowledged after `connection_init` (with `key` in its payload).
    pub async fn connect(app: &TestApp, key: Option<&str>) -> LiveClient {
        LiveClient::connect_url(&app.url("/graphql"), key).await
    }

    /// [`LiveClient::connect`] to the gateway whose GraphQL endpoint is `http_url`.
    pub async fn connect_url(http_url: &str, key: Option<&str>) -> LiveClient {
        let opened = LiveClient::try_open_url(http_url, Some("graphql-transport-ws"), None).await;
        let mut client = opened.expect("the upgrade is accepted");
        let payload = key.map_or(
            json!({}),
            |key| json!({ "Authorization": format!("Bearer {key}") }),
        );
        client
            .send(json!({ "type": "connection_init", "payload": payload }))
            .await;
        let ack = client.recv().await;
        assert_eq!(ack["type"], "connection_ack", "{ack}");
        client
    }

    pub async fn send(&mut self, message: Value) {
        self.socket
            .send(Message::text(message.to_string()))
            .await
            .unwrap();
    }

    /// The next protocol message (pings from the server's WebSocket layer skipped).
    pub async fn recv(&mut self) -> Value {
        match self.next_frame().await {
            Message::Text(text) => serde_json::from_str(&text).unwrap(),
            Message::Close(frame) => panic!("the connection closed: {frame:?}"),
            other => panic!("unexpected frame {other:?}"),
        }
    }

    /// The next protocol message, or None when none comes within `within`.
    pub async fn recv_within(&mut self, within: Duration) -> Option<Value> {
        match tokio::time::timeout(within, self.socket.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => Some(serde_json::from_str(&text).unwrap()),
            Ok(other) => panic!("unexpected frame {other:?}"),
            Err(_) => None,
        }
    }

    /// The next message (Ok) or the close (Err: code and reason), or None when nothing comes
    /// within `within`.
    pub async fn recv_frame_within(
        &mut self,
        within: Duration,
    ) -> Option<Result<Value, (u16, String)>> {
        match tokio::time::timeout(within, self.socket.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => Some(Ok(serde_json::from_str(&text).unwrap())),
            Ok(Some(Ok(Message::Close(Some(frame))))) => {
                Some(Err((frame.code.into(), frame.reason.to_string())))
            }
            Ok(other) => panic!("unexpected frame {other:?}"),
            Err(_) => None,
        }
    }

    /// Waits for the server to close the connection: its close code and reason.
    pub async fn closed(&mut self) -> (u16, String) {
        loop {
            match self.next_frame().await {
                Message::Close(Some(frame)) => {
                    return (frame.code.into(), frame.reason.to_string())
                }
                Message::Close(None) => return (1005, String::new()),
                Message::Text(text) => panic!("expected the connection to close, got {text}"),
                _ => {}
            }
        }
    }

    async fn next_frame(&mut self) -> Message {
        loop {
            let frame = tokio::time::timeout(WAIT, self.socket.next())
                .await
                .expect("a message within 10 s")
                .expect("the connection is open")
                .expect("a frame");
            if !matches!(frame, Message::Ping(_) | Message::Pong(_)) {
                return frame;
            }
        }
    }

    pub async fn subscribe(&mut self, id: &str, query: &str, variables: Value) {
        let payload = json!({ "query": query, "variables": variables });
        self.send(json!({ "type": "subscribe", "id": id, "payload": payload }))
            .await;
    }

    /// Subscribes to `showtime`'s seat map and returns its SNAPSHOT event.
    pub async fn watch_seat_map(&mut self, id: &str, showtime: &str) -> Value {
        self.subscribe(id, SEAT_MAP, json!({ "id": showtime }))
            .await;
        let event = self.event(id).await;
        assert_eq!(event["kind"], "SNAPSHOT", "{event}");
        event
    }

    /// The next `seatMapChanged` (or other) event of operation `id`; panics on an error.
    pub async fn event(&mut self, id: &str) -> Value {
        let message = self.recv().await;
        assert_eq!(message["id"], id, "{message}");
        assert_eq!(message["type"], "next", "{message}");
        let data = &message["payload"]["data"];
        data.as_object()
            .and_then(|fields| fields.values().next())
            .cloned()
            .unwrap_or_else(|| panic!("no data in {message}"))
    }
}

/// A seat map rebuilt from live events, as a seat picker keeps it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Mirror {
    pub version: i64,
    /// Row label → states, one letter per position (as `SeatRow.states`).
    pub rows: BTreeMap<String, Vec<char>>,
    pub counts: Value,
}

impl Mirror {
    /// Applies one event; panics on a CHANGES whose version does not follow.
    pub fn apply(&mut self, event: &Value) {
        match event["kind"].as_str() {
            Some("SNAPSHOT") => {
                self.rows = event["seatMap"]["rows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|row| {
                        let label = row["label"].as_str().unwrap().to_owned();
                        (label, row["states"].as_str().unwrap().chars().collect())
                    })
                    .collect();
            }
            Some("CHANGES") => {
                assert_eq!(
                    event["version"].as_i64().unwrap(),
                    self.version + 1,
                    "{event}"
                );
                for seat in event["changes"].as_array().unwrap() {
                    let row = self.rows.get_mut(seat["row"].as_str().unwrap()).unwrap();
                    let column = seat["column"].as_u64().unwrap() as usize;
                    row[column] = letter(seat["state"].as_str().unwrap());
                }
            }
            other => panic!("unknown event kind {other:?}"),
        }
        self.version = event["version"].as_i64().unwrap();
        self.counts = event["counts"].clone();
    }

    /// The map as a fresh `seatMap` query gives it now (the version left as this mirror's).
    pub async fn fresh(&self, app: &TestApp, showtime: &str) -> Mirror {
        let query = "query ($id: ID!) { showtime(id: $id) { seatMap {
            counts { available held sold blocked capacity } rows { label states } } } }";
        let response = app.graphql(query, json!({ "id": showtime })).await;
        let map = &response.data()["showtime"]["seatMap"];
        let event = json!({ "kind": "SNAPSHOT", "version": self.version, "seatMap": map, "counts": map["counts"] });
        let mut fresh = Mirror::default();
        fresh.apply(&event);
        fresh
    }
}

fn letter(state: &str) -> char {
    match state {
        "AVAILABLE" => 'a',
        "HELD" => 'h',
        "SOLD" => 's',
        "BLOCKED" => 'b',
        other => panic!("unknown state {other}"),
    }
}

impl LiveClient {
    /// The next `next` message of operation `id`, skipping those of other operations.
    pub async fn event_of(&mut self, id: &str) -> Value {
        loop {
            let message = self.recv().await;
            if message["id"] == id {
                assert_eq!(message["type"], "next", "{message}");
                return message["payload"]["data"].clone();
            }
        }
    }
}
