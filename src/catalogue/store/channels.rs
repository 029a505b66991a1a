//! `channels`: the third-party sales apps.

use bson::doc;
use serde::{Deserialize, Serialize};

use crate::domain::paging::{Page, PageRequest};
use crate::domain::rate_limit::RateLimit;
use crate::error::ApiError;
use crate::store::command_metrics::Call;
use crate::store::documents::{ChannelDoc, RateLimitDoc, SCHEMA_VERSION};
use crate::store::{filters, names, Store};

#[derive(Serialize, Deserialize)]
struct CodeKey(String);

impl Store {
    /// Channels by code.
    #[tracing::instrument(skip(self))]
    pub async fn list_channels(&self, page: &PageRequest) -> Result<Page<ChannelDoc>, ApiError> {
        self.find_page(
            names::CHANNELS,
            "channels",
            doc! {},
            doc! { "_id": 1 },
            None,
            page,
            |CodeKey(code)| filters::after_ascending(&["_id"], &[code.into()]),
            |channel: &ChannelDoc| CodeKey(channel.code.clone()),
        )
        .await
    }

    /// Which of `codes` are channels (one `find` on `_id`).
    #[tracing::instrument(skip(self))]
    pub async fn existing_channel_codes(&self, codes: &[String]) -> Result<Vec<String>, ApiError> {
        let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
        self.existing_codes(names::CHANNELS, &codes).await
    }

    /// A channel by code.
    #[tracing::instrument(skip(self))]
    pub async fn channel_by_code(&self, code: &str) -> Result<Option<ChannelDoc>, ApiError> {
        self.bounded(
            Call::new(names::CHANNELS, "find"),
            self.collection::<ChannelDoc>(names::CHANNELS)
                .find_one(doc! { "_id": code }),
        )
        .await
    }

    /// The channel whose API key hashes to `key_hash`, if any (unique index `api_key`).
    #[tracing::instrument(skip_all)]
    pub async fn channel_by_key_hash(
        &self,
        key_hash: &str,
    ) -> Result<Option<ChannelDoc>, ApiError> {
        self.bounded(
            Call::new(names::CHANNELS, "find"),
            self.collection::<ChannelDoc>(names::CHANNELS)
                .find_one(doc! { "apiKeyHash": key_hash }),
        )
        .await
    }

    /// Creates a channel; BAD_USER_INPUT when the code is taken.
    #[tracing::instrument(skip(self, key_hash))]
    pub async fn create_channel(
        &self,
        code: &str,
        name: &str,
        key_hash: String,
        rate_limit: Option<RateLimit>,
    ) -> Result<ChannelDoc, ApiError> {
        let channel = ChannelDoc {
            code: code.to_owned(),
            schema_version: SCHEMA_VERSION,
            name: name.to_owned(),
            api_key_hash: key_hash,
            rate_limit: rate_limit.map(RateLimitDoc::from),
        };
        match self
            .bounded_raw(
                Call::new(names::CHANNELS, "insert"),
                self.collection::<ChannelDoc>(names::CHANNELS)
                    .insert_one(&channel),
            )
            .await?
        {
            Ok(_) => Ok(channel),
            Err(error) if crate::store::is_duplicate_key(&error) => Err(ApiError::bad_input(
                format!("a channel with code `{code}` exists already"),
            )),
            Err(error) => Err(error.into()),
        }
    }
}
