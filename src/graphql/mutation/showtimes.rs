//! Operator writes of showtimes: scheduling one, changing its channel prices.

use async_graphql::{Context, InputObject, Object, ID};
use chrono::{DateTime, Utc};

use crate::catalogue::{self, NewShowtime};
use crate::domain::global_id;
use crate::domain::schedule::{self, CURRENCY};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::Showtime;
use crate::store::{self, documents::ChannelPriceDoc};

#[derive(Default)]
pub struct ShowtimeMutation;

/// A showtime's price on one sales channel.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct ChannelPriceInput {
    /// The sales channel's code, e.g. "maoyan"; the channel must exist.
    pub channel: String,
    /// The price of one standard seat in minor units (fen): 1 to 1,000,000.
    pub amount: i64,
    /// ISO 4217 currency code; showtimes are sold in CNY.
    #[graphql(default_with = "CURRENCY.to_owned()")]
    pub currency: String,
}

/// A showtime to schedule.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct ScheduleShowtimeInput {
    /// The hall it runs in (its cinema must be one the operator writes).
    pub hall_id: ID,
    /// The movie: the showtime ends its runtime after it starts.
    pub movie_id: ID,
    /// When the film starts: in the future, within 90 days, on a whole minute.
    pub starts_at: DateTime<Utc>,
    /// The language it is shown in, e.g. "国语", "英语".
    pub language: String,
    /// Its price on each channel that sells it: at least one, one per channel.
    pub prices: Vec<ChannelPriceInput>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// New channel prices for a showtime.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct ChangeShowtimePricesInput {
    /// The showtime (not started, not cancelled).
    pub showtime_id: ID,
    /// Its prices from now on, replacing all of them: at least one, one per channel.
    pub prices: Vec<ChannelPriceInput>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// The prices as stored, once every rule on them holds (BAD_USER_INPUT otherwise).
fn validated_prices(prices: &[ChannelPriceInput]) -> Result<Vec<ChannelPriceDoc>, ApiError> {
    let checked: Vec<(String, i64, String)> = prices
        .iter()
        .map(|p| (p.channel.trim().to_owned(), p.amount, p.currency.clone()))
        .collect();
    schedule::validate_prices(&checked)?;
    Ok(checked
        .into_iter()
        .map(|(channel, amount, _)| ChannelPriceDoc { channel, amount })
        .collect())
}

#[Object]
impl ShowtimeMutation {
    /// Schedules a showtime in a hall, with its seat inventory (every seat of the hall's
    /// layout for sale). The hall is busy from `startsAt` until the film ends plus the
    /// cleaning gap (`freeAt`); a showtime overlapping another of the hall is BAD_USER_INPUT
    /// naming it. Needs an operator's API key that writes the hall's cinema.
    #[tracing::instrument(skip(self, ctx))]
    async fn schedule_showtime(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hall, the movie, the start, the language and the prices.")]
        input: ScheduleShowtimeInput,
    ) -> Result<Showtime, ApiError> {
        let operator = ctx.calling_operator("scheduling a showtime")?;
        let new = NewShowtime {
            hall: global_id::hall_id(&input.hall_id)?,
            movie: global_id::movie_id(&input.movie_id)?,
            starts_at: input.starts_at,
            language: schedule::validate_language(&input.language)?,
            prices: validated_prices(&input.prices)?,
        };
        schedule::validate_start(new.starts_at, store::now())?;
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let showtime = catalogue::schedule_showtime(keyed, ctx.catalogue_rules(), &new).await?;
        Ok(Showtime::from_doc(showtime))
    }

    /// Replaces a showtime's channel prices, keeping the change as a revision
    /// (`Showtime.priceHistory`). Holds placed before keep the price they were given; holds
    /// placed after take the new one. Refused for a showtime that has started or is
    /// cancelled. Needs an operator's API key that writes the showtime's cinema.
    #[tracing::instrument(skip(self, ctx))]
    async fn change_showtime_prices(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtime and its new prices.")] input: ChangeShowtimePricesInput,
    ) -> Result<Showtime, ApiError> {
        let operator = ctx.calling_operator("changing a showtime's prices")?;
        let showtime = global_id::showtime_id(&input.showtime_id)?;
        let prices = validated_prices(&input.prices)?;
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let changed = catalogue::change_showtime_prices(keyed, showtime, &prices).await?;
        Ok(Showtime::from_doc(changed))
    }
}
