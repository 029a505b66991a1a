//! The HTTP side of webhooks: one POST of a signed event, bounded in time and in what is read
//! back, never following a redirect, and never to an internal address: names are resolved by
//! [`PublicOnly`], which drops private, loopback and link-local addresses (so a name that
//! resolves, or is rebound, to one is refused at connect time), and addresses in the URL are
//! checked before the request.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::rules::{self, WebhookSecret, EVENT_ID_HEADER, SIGNATURE_HEADER};

/// How long one POST may take, connecting included.
pub const POST_TIMEOUT: Duration = Duration::from_secs(10);
/// The most of an answer's body read (and dropped).
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Sends webhooks; cheap to clone.
#[derive(Clone)]
pub struct Sender {
    client: reqwest::Client,
    allow_private: bool,
}

/// How one POST went.
#[derive(Debug, Clone)]
pub struct Sent {
    /// The endpoint's HTTP status, if it answered.
    pub status: Option<u16>,
    /// Why there was no answer.
    pub error: Option<String>,
    pub took: Duration,
}

impl Sent {
    /// Whether the endpoint took the event (2xx).
    pub fn delivered(&self) -> bool {
        self.status
            .is_some_and(|status| (200..300).contains(&status))
    }
}

impl Sender {
    /// A sender; with `allow_private`, `http` URLs and internal addresses are allowed too
    /// (tests and the demo).
    pub fn new(allow_private: bool) -> Self {
        let client = reqwest::Client::builder()
            .timeout(POST_TIMEOUT)
            .connect_timeout(POST_TIMEOUT / 2)
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(PublicOnly { allow_private }))
            .user_agent(concat!("Boxoffice-Webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("a webhook client");
        Sender {
            client,
            allow_private,
        }
    }

    /// POSTs `body` (event `event_id`'s JSON) to `url`, signed with `secret` at `timestamp`.
    pub async fn post(
        &self,
        url: &str,
        event_id: &str,
        body: Vec<u8>,
        secret: &WebhookSecret,
        timestamp: i64,
    ) -> Sent {
        let started = Instant::now();
        let failed = |error: String| Sent {
            status: None,
            error: Some(error),
            took: started.elapsed(),
        };
        if let Err(error) = rules::check_url(url, self.allow_private) {
            return failed(error.to_string());
        }
        let request = self
            .client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(SIGNATURE_HEADER, secret.sign(timestamp, &body))
            .header(EVENT_ID_HEADER, event_id)
            .body(body);
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(error) => return failed(describe(&error)),
        };
        let status = response.status().as_u16();
        // Read (and drop) a bounded part of the answer, so the connection can be reused.
        let mut read = 0;
        while read < MAX_ANSWER_BYTES {
            match response.chunk().await {
                Ok(Some(chunk)) => read += chunk.len(),
                _ => break,
            }
        }
        Sent {
            status: Some(status),
            error: None,
            took: started.elapsed(),
        }
    }
}

/// The error's own words, without the URL (which the delivery records anyway).
fn describe(error: &reqwest::Error) -> String {
    let kind = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "failed"
    };
    let mut cause = std::error::Error::source(error);
    let mut last = None;
    while let Some(inner) = cause {
        last = Some(inner.to_string());
        cause = inner.source();
    }
    match last {
        Some(cause) => format!("{kind}: {cause}"),
        None => kind.to_owned(),
    }
}

/// Resolves names, keeping only public addresses (unless private targets are allowed).
struct PublicOnly {
    allow_private: bool,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let kept: Vec<SocketAddr> = found
                .filter(|address| allow_private || rules::is_public(address.ip()))
                .collect();
            if kept.is_empty() {
                let refused = format!("{} resolves to no public address", name.as_str());
                return Err(refused.into());
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}
