//! The gateways' side of `channel_events::handoff`: each channel's events are appended by one
//! live gateway (`gateways::Peers::appender_elsewhere`, rendezvous hashing as for showtimes),
//! and the others' live relays send it theirs over HTTP (`POST /internal/events`, a BSON body
//! signed with the deployment's secret), answered once they are in the log. A gateway that
//! cannot be reached is passed over for a while, and the relay appends its events itself.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, StatusCode};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::AppState;
use crate::channel_events::handoff::{self, Appenders, Handed};
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::gateways::Peers;

/// The header of handed events: the MAC of the body.
static HANDED: HeaderName = HeaderName::from_static("x-boxoffice-handed");

/// The largest body of handed events (a relay with more appends them itself; the route reads
/// no more: 413).
pub(super) const MOST_BYTES: usize = 1 << 20;

/// How long a hand-off may take before the relay appends the events itself.
const TIMEOUT: Duration = Duration::from_secs(2);

/// How long a gateway that could not be reached is passed over.
const AVOID_FOR: Duration = Duration::from_secs(3);

/// The live gateways, as appenders of the channels' logs.
pub struct PeerAppenders {
    pub peers: Arc<Peers>,
    pub secret: Arc<TicketSecret>,
}

/// The MAC of a hand-off's body under the deployment's secret (its own purpose: a forwarded
/// request's MAC never passes for one).
fn mac_of(secret: &TicketSecret, body: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(secret.derive(b"boxoffice handed events v1", body))
}

#[async_trait::async_trait]
impl Appenders for PeerAppenders {
    fn elsewhere(&self, channel: &str) -> Option<String> {
        (self.peers.appender_elsewhere(channel)).map(|peer| peer.id)
    }

    fn one_per_log(&self) -> bool {
        // A gateway that others reach takes part in the rendezvous (`gateways::Peers`).
        self.peers.url().is_some()
    }

    fn sharing(&self) -> usize {
        if self.one_per_log() {
            self.peers.taking_work()
        } else {
            1
        }
    }

    async fn hand(&self, to: &str, logs: &Handed) -> Result<(), ApiError> {
        let peer = (self.peers.peer(to))
            .ok_or_else(|| ApiError::internal(format!("gateway {to} left")))?;
        let body = handoff::encode(logs)?;
        if body.len() > MOST_BYTES {
            return Err(ApiError::internal("too many events to hand over at once"));
        }
        let sent = (self.peers.client())
            .post(format!("{}/internal/events", peer.url))
            .timeout(TIMEOUT)
            .header(axum::http::header::CONTENT_TYPE, "application/bson")
            .header(&HANDED, mac_of(&self.secret, &body))
            .body(body)
            .send()
            .await;
        match sent {
            Ok(answer) if answer.status() == reqwest::StatusCode::NO_CONTENT => Ok(()),
            // Refused (a secret that differs, its database away): passed over as well, rather
            // than asked again at every round.
            Ok(answer) => {
                self.peers.avoid(&peer, AVOID_FOR);
                Err(ApiError::internal(format!(
                    "gateway {to} answered {} to handed events",
                    answer.status()
                )))
            }
            Err(error) => {
                self.peers.avoid(&peer, AVOID_FOR);
                Err(ApiError::internal_caused("handing events over", error))
            }
        }
    }
}

/// `POST /internal/events`: events another gateway's relay hands to this one, appended
/// before the answer (204). A body without this deployment's MAC is 403 and read no further.
pub async fn handed_events(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let expected = mac_of(&state.ticket_secret, &body);
    let given = headers.get(&HANDED).map_or(&[][..], |mac| mac.as_bytes());
    if !super::forward::same_mac(given, expected.as_bytes()) {
        return StatusCode::FORBIDDEN;
    }
    let Ok(logs) = handoff::decode(&body) else {
        return StatusCode::BAD_REQUEST;
    };
    match state.relay.append_handed(&logs).await {
        Ok(_) => StatusCode::NO_CONTENT,
        Err(error) => {
            tracing::warn!(%error, "appending handed events failed: their gateway appends them");
            StatusCode::SERVICE_UNAVAILABLE
        }
    }
}
