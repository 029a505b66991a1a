//! Handed events as they travel between gateways (`handoff`): a BSON document, so that the
//! entries arrive exactly as their documents store them (dates, ids).

use serde::{Deserialize, Serialize};

use crate::channel_events::handoff::Handed;
use crate::error::ApiError;
use crate::store::documents::OutboxEntryDoc;

#[derive(Serialize, Deserialize)]
struct Body {
    logs: Vec<Log>,
}

#[derive(Serialize, Deserialize)]
struct Log {
    channel: String,
    entries: Vec<OutboxEntryDoc>,
}

/// `logs` as bytes to send.
pub fn encode(logs: &Handed) -> Result<Vec<u8>, ApiError> {
    let body = Body {
        logs: (logs.iter())
            .map(|(channel, entries)| Log {
                channel: channel.clone(),
                entries: entries.clone(),
            })
            .collect(),
    };
    Ok(bson::to_vec(&body)?)
}

/// The logs `bytes` hold; BAD_USER_INPUT when they hold none.
pub fn decode(bytes: &[u8]) -> Result<Handed, ApiError> {
    let body: Body = bson::from_slice(bytes)
        .map_err(|error| ApiError::bad_input(format!("not handed events: {error}")))?;
    Ok((body.logs.into_iter())
        .map(|log| (log.channel, log.entries))
        .collect())
}
