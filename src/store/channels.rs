//! `channels`: the third-party sales apps.

use bson::doc;
use serde::{Deserialize, Serialize};

use super::documents::ChannelDoc;
use super::{filters, names, Store};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;

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
            page,
            |CodeKey(code)| filters::after_ascending(&["_id"], &[code.into()]),
            |channel: &ChannelDoc| CodeKey(channel.code.clone()),
        )
        .await
    }
}
