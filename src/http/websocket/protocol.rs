//! The messages of `graphql-transport-ws`, and writing to the socket.

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures::stream::SplitSink;
use futures::SinkExt;
use serde::Deserialize;
use serde_json::Value;

/// A message from the client.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum ClientMessage {
    ConnectionInit {
        #[serde(default)]
        payload: Option<Value>,
    },
    Ping {},
    Pong {},
    Subscribe {
        id: String,
        payload: Box<async_graphql::Request>,
    },
    Complete {
        id: String,
    },
}

/// Whether a response is a failure with nothing else: sent as the protocol's `error`.
pub(super) fn failed(response: &async_graphql::Response) -> bool {
    !response.errors.is_empty() && matches!(response.data, async_graphql::Value::Null)
}

pub(super) async fn send(
    sink: &mut SplitSink<WebSocket, Message>,
    message: &Value,
) -> Result<(), axum::Error> {
    send_text(sink, message.to_string()).await
}

pub(super) async fn send_text(
    sink: &mut SplitSink<WebSocket, Message>,
    text: String,
) -> Result<(), axum::Error> {
    sink.send(Message::Text(text.into())).await
}

/// Closes with `code`; the reason is cut to the 123 bytes a close frame can carry.
pub(super) async fn close(sink: &mut SplitSink<WebSocket, Message>, code: u16, reason: &str) {
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    let frame = CloseFrame {
        code,
        reason: reason[..end].into(),
    };
    let _ = sink.send(Message::Close(Some(frame))).await;
}
