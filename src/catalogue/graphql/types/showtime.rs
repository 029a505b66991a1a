//! `Showtime` and `Channel`.

use std::sync::Arc;

use async_graphql::{Context, Enum, Lookahead, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use super::TicketRule;
use super::{Cinema, Hall, Movie};
use crate::catalogue::ShowtimeParts;
use crate::counters::graphql::CountersContext;
use crate::counters::Counted;
use crate::domain;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::ShowtimeId;
use crate::domain::list_caps::{MAX_PRICE_ENTRIES, MAX_PRICE_REVISIONS, MAX_TICKET_RULES};
use crate::domain::pricing::{self, TicketType};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::loaders::SeatMapPart;
use crate::graphql::types::list_cost;
use crate::graphql::types::money::{ChannelPrice, Money};
use crate::graphql::types::SeatKind;
use crate::live::graphql::seat_map::{SeatMap, Viewer};
use crate::store::documents::{self, ChannelDoc, ChannelPriceDoc, PriceRevisionDoc, ShowtimeDoc};

/// One screening of a movie in a hall at a time.
///
/// `cinema { name city }`, `movie { title runtimeMinutes }` and `hall { name format }` are copied
/// into the showtime (extended reference) and cost no query; other fields of those objects are
/// loaded in one batch per collection for the whole request.
pub struct Showtime(Arc<ShowtimeDoc>);

impl Showtime {
    pub fn from_doc(doc: ShowtimeDoc) -> Self {
        Showtime(Arc::new(doc))
    }

    pub fn from_arc(doc: Arc<ShowtimeDoc>) -> Self {
        Showtime(doc)
    }

    /// What to read of the showtimes of a connection whose selection is `connection`: their
    /// prices only when a node asks `price` or `prices` (look-ahead sees through fragments,
    /// and counts a field under `@skip` as asked, which only reads more).
    pub fn parts_asked(connection: &Lookahead<'_>) -> ShowtimeParts {
        let asks = |field: &str| {
            connection
                .field("edges")
                .field("node")
                .field(field)
                .exists()
                || connection.field("nodes").field(field).exists()
        };
        ShowtimeParts {
            prices: asks("price") || asks("prices"),
        }
    }

    fn showtime_id(&self) -> ShowtimeId {
        self.0.id
    }

    fn money(&self, amount: i64) -> Money {
        Money::of(amount, &self.0.currency)
    }
}

/// One screening of a movie in a hall at a time.
///
/// `cinema { name city }`, `movie { title runtimeMinutes }` and `hall { name format }` are copied
/// into the showtime (extended reference) and cost no query; other fields of those objects are
/// loaded in one batch per collection for the whole request.
#[Object(cache_control(max_age = 60))]
impl Showtime {
    /// Global id, for `node(id:)`.
    pub async fn id(&self) -> ID {
        GlobalId::Showtime(self.showtime_id()).encode().into()
    }

    /// How many times its page (`showtime(id:)`) was read: each view counted once, written by
    /// each gateway once a second (so up to a second late); a gateway killed without a
    /// graceful stop loses the views of its last second.
    async fn view_count(&self, ctx: &Context<'_>) -> Result<i64, ApiError> {
        let counted = Counted::Views(self.showtime_id());
        let count = ctx.tallies().load_one(counted).await?;
        Ok(count.unwrap_or(0))
    }

    /// When the film starts.
    async fn starts_at(&self) -> DateTime<Utc> {
        self.0.starts_at
    }

    /// When the film ends.
    async fn ends_at(&self) -> DateTime<Utc> {
        self.0.ends_at
    }

    /// SCHEDULED, or cancelled by its cinema's operator (CANCELLING while its holds and orders
    /// are being undone, then CANCELLED). A cancelled showtime stays listed; its seats are all
    /// AVAILABLE (or BLOCKED) and can never be held.
    async fn status(&self) -> ShowtimeStatus {
        match self.0.status {
            documents::ShowtimeStatus::Scheduled => ShowtimeStatus::Scheduled,
            documents::ShowtimeStatus::Cancelling => ShowtimeStatus::Cancelling,
            documents::ShowtimeStatus::Cancelled => ShowtimeStatus::Cancelled,
        }
    }

    /// The language the film is shown in, e.g. "国语", "英语".
    async fn language(&self) -> &str {
        &self.0.language
    }

    /// The cinema.
    async fn cinema(&self) -> Cinema {
        Cinema::from_ref(&self.0.cinema)
    }

    /// The movie.
    async fn movie(&self) -> Movie {
        Movie::from_ref(&self.0.movie)
    }

    /// The hall.
    async fn hall(&self) -> Hall {
        Hall::from_ref(&self.0.theater)
    }

    /// The price of one seat on a sales channel (by default the calling channel's), of a
    /// seat kind (STANDARD when absent) as a ticket type (ADULT when absent): the matrix's
    /// price naming the kind, else its price for every kind. Null when the channel does not
    /// sell that kind as that type here.
    async fn price(
        &self,
        ctx: &Context<'_>,
        #[graphql(
            desc = "The sales channel's code, e.g. \"maoyan\"; the caller's own channel when absent."
        )]
        channel: Option<String>,
        #[graphql(desc = "The seat kind; STANDARD when absent.")] seat_kind: Option<SeatKind>,
        #[graphql(desc = "The ticket type, e.g. \"CHILD\"; ADULT when absent.")]
        ticket_type: Option<String>,
    ) -> Result<Option<Money>, ApiError> {
        let channel = match (&channel, &ctx.caller().channel) {
            (Some(asked), _) => asked,
            (None, Some(own)) => own,
            (None, None) => {
                return Err(ApiError::bad_input(
                    "name a `channel`, or call with a channel's API key to get its price",
                ))
            }
        };
        let ticket_type = match ticket_type {
            Some(code) => TicketType::parse("ticketType", &code)?,
            None => TicketType::adult(),
        };
        let kind = seat_kind.map_or(domain::seat::SeatKind::Standard, Into::into);
        let refused = self
            .0
            .ticket_rules
            .iter()
            .any(|rule| rule.ticket_type == ticket_type);
        let matrix = self.0.prices.iter().map(ChannelPriceDoc::borrowed);
        Ok((!refused)
            .then(|| pricing::price_among(matrix, channel, kind, &ticket_type))
            .flatten()
            .map(|amount| self.money(amount)))
    }

    /// Its whole price matrix: every channel's price of each seat kind and ticket type it
    /// names (at most 64).
    #[graphql(complexity = "list_cost(MAX_PRICE_ENTRIES, child_complexity)")]
    async fn prices(&self) -> Vec<ChannelPrice> {
        self.0
            .prices
            .iter()
            .take(MAX_PRICE_ENTRIES)
            .map(|price| ChannelPrice::of(price, &self.0.currency))
            .collect()
    }

    /// Ticket types it does not sell, each with the rule buyers are shown.
    #[graphql(complexity = "list_cost(MAX_TICKET_RULES, child_complexity)")]
    async fn refused_ticket_types(&self) -> Vec<TicketRule> {
        self.0
            .ticket_rules
            .iter()
            .take(MAX_TICKET_RULES)
            .map(TicketRule::from)
            .collect()
    }

    /// How many times its prices were changed (0: never).
    async fn price_revision(&self) -> i64 {
        self.0.price_revision
    }

    /// When its hall is free again: the end of the film plus the cleaning gap that applied
    /// when it was scheduled. No other showtime of the hall runs between `startsAt` and this.
    async fn free_at(&self) -> DateTime<Utc> {
        self.0.free_at
    }

    /// The changes of its prices, newest first (at most 20): who changed them, when, and the
    /// prices before and after. Loaded in one batch for every showtime of the request.
    #[graphql(
        cache_control(no_cache),
        complexity = "list_cost(MAX_PRICE_REVISIONS, child_complexity)"
    )]
    async fn price_history(&self, ctx: &Context<'_>) -> Result<Vec<PriceRevision>, ApiError> {
        let revisions = ctx
            .loaders()
            .price_history
            .load_one(self.showtime_id())
            .await?
            .unwrap_or_default();
        Ok(revisions
            .iter()
            .take(MAX_PRICE_REVISIONS)
            .map(|revision| PriceRevision {
                revision: revision.clone(),
                currency: self.0.currency.clone(),
            })
            .collect())
    }

    /// Every seat and its state, with the counts per state. Loaded in one batch for every
    /// showtime of the request, and only as much of it as the query asks for: counts alone
    /// read no seats.
    #[graphql(cache_control(no_cache))]
    async fn seat_map(&self, ctx: &Context<'_>) -> Result<SeatMap, ApiError> {
        let part = if SeatMap::needs_seats(&ctx.look_ahead()) {
            SeatMapPart::Seats
        } else {
            SeatMapPart::Counts
        };
        let seat_map = ctx
            .loaders()
            .seat_maps
            .load_one((self.showtime_id(), part))
            .await?
            .ok_or_else(|| {
                ApiError::internal(format!(
                    "showtime {} has no seat inventory",
                    self.showtime_id()
                ))
            })?;
        let caller = ctx.caller();
        let cinema = self.0.cinema.id;
        let viewer = match (&caller.door, &caller.operator) {
            (Some(door), _) if door.cinema == cinema => Viewer::Door,
            (None, Some(_)) => Viewer::Operator(cinema),
            _ => Viewer::Public,
        };
        Ok(SeatMap::new(seat_map, viewer))
    }
}

/// Whether a showtime still runs.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShowtimeStatus {
    /// It runs; its seats are for sale.
    Scheduled,
    /// Cancelled: its holds are being released and its orders cancelled.
    Cancelling,
    /// Cancelled: every hold released, every order cancelled (reason SHOWTIME_CANCELLED).
    Cancelled,
}

/// A third-party sales app that sells tickets through Boxoffice.
#[derive(SimpleObject)]
pub struct Channel {
    /// The channel's code, used in prices and filters, e.g. "maoyan".
    pub code: String,
    /// Its display name, e.g. "猫眼电影".
    pub name: String,
}

impl From<ChannelDoc> for Channel {
    fn from(doc: ChannelDoc) -> Self {
        Channel {
            code: doc.code,
            name: doc.name,
        }
    }
}

/// One change of a showtime's channel prices (document versioning: the showtime holds the
/// current prices, each revision one change).
pub struct PriceRevision {
    revision: PriceRevisionDoc,
    currency: String,
}

impl PriceRevision {
    fn prices(&self, prices: &[crate::store::documents::ChannelPriceDoc]) -> Vec<ChannelPrice> {
        prices
            .iter()
            .take(MAX_PRICE_ENTRIES)
            .map(|price| ChannelPrice::of(price, &self.currency))
            .collect()
    }
}

/// One change of a showtime's channel prices: who, when, before and after.
#[Object]
impl PriceRevision {
    /// 1 for the first change, then one more with each.
    async fn revision(&self) -> i64 {
        self.revision.revision
    }

    /// When the prices changed.
    async fn at(&self) -> DateTime<Utc> {
        self.revision.at
    }

    /// The code of the operator who changed them.
    async fn operator(&self) -> &str {
        &self.revision.operator
    }

    /// The prices before the change.
    #[graphql(complexity = "list_cost(MAX_PRICE_ENTRIES, child_complexity)")]
    async fn before(&self) -> Vec<ChannelPrice> {
        self.prices(&self.revision.before)
    }

    /// The prices after it.
    #[graphql(complexity = "list_cost(MAX_PRICE_ENTRIES, child_complexity)")]
    async fn after(&self) -> Vec<ChannelPrice> {
        self.prices(&self.revision.after)
    }
}
