//! Who an outbox entry that names no channel is told to: the channel of the order it is about
//! (an admission), or every channel that sells its showtime (a cancellation). Projected reads
//! of `orders` and `showtimes`, made by the relay.

use std::collections::{BTreeSet, HashMap};

use bson::doc;
use futures::TryStreamExt;
use serde::Deserialize;

use crate::domain::ids::{OrderId, ShowtimeId};
use crate::error::ApiError;
use crate::store::codec::{self, oids};
use crate::store::command_metrics::Call;
use crate::store::{names, Store, BACKGROUND};

impl Store {
    /// The channel of each of orders `ids` (one projected `find`): who an admission is told to.
    #[tracing::instrument(skip(self))]
    pub(in crate::channel_events) async fn channels_of_orders(
        &self,
        ids: &[OrderId],
    ) -> Result<HashMap<OrderId, String>, ApiError> {
        #[derive(Deserialize)]
        struct Channel {
            #[serde(rename = "_id", with = "codec::id")]
            id: OrderId,
            channel: String,
        }
        let found: Vec<Channel> = self
            .bounded(Call::new(names::ORDERS, "find"), async {
                self.collection::<Channel>(names::ORDERS)
                    .find(doc! { "_id": { "$in": oids(ids) } })
                    .projection(doc! { "channel": 1 })
                    .comment(BACKGROUND)
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(found
            .into_iter()
            .map(|found| (found.id, found.channel))
            .collect())
    }

    /// The channels that sell each of showtimes `ids` (have a price for it; one projected
    /// `find`): who a showtime's cancellation is told to.
    #[tracing::instrument(skip(self))]
    pub(in crate::channel_events) async fn channels_selling(
        &self,
        ids: &[ShowtimeId],
    ) -> Result<HashMap<ShowtimeId, BTreeSet<String>>, ApiError> {
        #[derive(Deserialize)]
        struct Price {
            channel: String,
        }
        #[derive(Deserialize)]
        struct Prices {
            #[serde(rename = "_id", with = "codec::id")]
            id: ShowtimeId,
            #[serde(default)]
            prices: Vec<Price>,
        }
        let found: Vec<Prices> = self
            .bounded(Call::new(names::SHOWTIMES, "find"), async {
                self.collection::<Prices>(names::SHOWTIMES)
                    .find(doc! { "_id": { "$in": oids(ids) } })
                    .projection(doc! { "prices.channel": 1 })
                    .comment(BACKGROUND)
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(found
            .into_iter()
            .map(|found| {
                let channels = found.prices.into_iter().map(|price| price.channel);
                (found.id, channels.collect())
            })
            .collect())
    }
}
