//! Operator writes of showtimes: scheduling one, changing its channel prices.

use async_graphql::{Context, InputObject, Object, ID};
use chrono::{DateTime, Utc};

use crate::catalogue::graphql::types::Showtime;
use crate::catalogue::graphql::CatalogueContext;
use crate::catalogue::rules::schedule::{self, CURRENCY};
use crate::catalogue::{self, NewShowtime};
use crate::domain::global_id;
use crate::domain::input_caps;
use crate::domain::list_caps::{MAX_PRICE_ENTRIES, MAX_TICKET_RULES};
use crate::domain::pricing::{PriceEntry, TicketType};
use crate::domain::text;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::SeatKind;
use crate::operators::graphql::OperatorsContext;
use crate::store::documents::{ChannelPriceDoc, TicketRuleDoc};
use crate::store::{self};

#[derive(Default)]
pub struct ShowtimeMutation;

/// One price of a showtime's price matrix: a channel's price of a seat kind as a ticket type.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct ChannelPriceInput {
    /// The sales channel's code, e.g. "maoyan"; the channel must exist.
    pub channel: String,
    /// The seat kind it prices (one the hall has). Absent: every kind that no price of the
    /// same channel and ticket type names.
    pub seat_kind: Option<SeatKind>,
    /// The ticket type it prices: ADULT (when absent), CHILD, STUDENT, SENIOR or a type an
    /// operator defined (`defineTicketType`).
    pub ticket_type: Option<String>,
    /// The price of one seat in minor units (fen): 1 to 1,000,000.
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
    /// Its price matrix: at least one price, at most 64, one per channel, seat kind and
    /// ticket type. A price without kind or type is every kind's ADULT price.
    pub prices: Vec<ChannelPriceInput>,
    /// Ticket types it does not sell, each with the rule buyers are shown.
    pub refused_ticket_types: Option<Vec<TicketRuleInput>>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// New channel prices for a showtime.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct ChangeShowtimePricesInput {
    /// The showtime (not started, not cancelled).
    pub showtime_id: ID,
    /// Its price matrix from now on, replacing the whole matrix: at least one price, at most
    /// 64, one per channel, seat kind and ticket type.
    pub prices: Vec<ChannelPriceInput>,
    /// Ticket types it does not sell from now on, replacing the earlier ones (none when
    /// absent).
    pub refused_ticket_types: Option<Vec<TicketRuleInput>>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// A ticket type a showtime refuses, and why.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct TicketRuleInput {
    /// The type refused, e.g. "CHILD".
    pub ticket_type: String,
    /// The rule, as buyers are shown it: "no children's tickets after 21:00". A hold asking
    /// for the type is BAD_USER_INPUT naming it.
    pub rule: String,
}

/// The prices as stored, once every rule that needs no database holds (BAD_USER_INPUT
/// otherwise).
fn validated_prices(prices: &[ChannelPriceInput]) -> Result<Vec<ChannelPriceDoc>, ApiError> {
    input_caps::list("prices", prices, MAX_PRICE_ENTRIES)?;
    let checked = prices
        .iter()
        .map(|p| {
            text::required("prices.channel", &p.channel)?;
            text::required_within("prices.currency", &p.currency, 3)?;
            let ticket_type = match &p.ticket_type {
                Some(code) => TicketType::parse("prices.ticketType", code)?,
                None => TicketType::adult(),
            };
            let entry = PriceEntry {
                channel: p.channel.trim().to_owned(),
                seat_kind: p.seat_kind.map(Into::into),
                ticket_type,
                amount: p.amount,
            };
            Ok((entry, p.currency.clone()))
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    schedule::validate_prices(&checked)?;
    Ok(checked
        .into_iter()
        .map(|(entry, _)| ChannelPriceDoc {
            channel: entry.channel.into(),
            seat_kind: entry.seat_kind,
            ticket_type: entry.ticket_type,
            amount: entry.amount,
        })
        .collect())
}

/// The refused ticket types as stored (BAD_USER_INPUT for a malformed code or an empty rule).
fn validated_rules(rules: Option<&[TicketRuleInput]>) -> Result<Vec<TicketRuleDoc>, ApiError> {
    let rules = rules.unwrap_or_default();
    if rules.len() > MAX_TICKET_RULES {
        return Err(ApiError::bad_input(format!(
            "a showtime refuses at most {MAX_TICKET_RULES} ticket types, not {}",
            rules.len()
        )));
    }
    rules
        .iter()
        .map(|rule| {
            Ok(TicketRuleDoc {
                ticket_type: TicketType::parse("refusedTicketTypes.ticketType", &rule.ticket_type)?,
                rule: text::required("refusedTicketTypes.rule", &rule.rule)?,
            })
        })
        .collect()
}

#[Object]
impl ShowtimeMutation {
    /// Schedules a showtime in a hall, with its seat inventory (every seat of the hall's
    /// layout for sale). The hall is busy from `startsAt` until the film ends plus the
    /// cleaning gap (`freeAt`); a showtime overlapping another of the hall is BAD_USER_INPUT
    /// naming it. Needs an operator's API key that writes the hall's cinema.
    #[tracing::instrument(skip_all)]
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
            ticket_rules: validated_rules(input.refused_ticket_types.as_deref())?,
        };
        schedule::validate_start(new.starts_at, store::now())?;
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let showtime = catalogue::schedule_showtime(keyed, ctx.catalogue_rules(), &new).await?;
        Ok(Showtime::from_doc(showtime))
    }

    /// Replaces a showtime's price matrix (and refused ticket types), keeping the change as a revision
    /// (`Showtime.priceHistory`). Holds placed before keep the price they were given; holds
    /// placed after take the new one. Refused for a showtime that has started or is
    /// cancelled. Needs an operator's API key that writes the showtime's cinema.
    #[tracing::instrument(skip_all)]
    async fn change_showtime_prices(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtime and its new prices.")] input: ChangeShowtimePricesInput,
    ) -> Result<Showtime, ApiError> {
        let operator = ctx.calling_operator("changing a showtime's prices")?;
        let showtime = global_id::showtime_id(&input.showtime_id)?;
        let prices = validated_prices(&input.prices)?;
        let rules = validated_rules(input.refused_ticket_types.as_deref())?;
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let changed = catalogue::change_showtime_prices(keyed, showtime, &prices, &rules).await?;
        Ok(Showtime::from_doc(changed))
    }
}
