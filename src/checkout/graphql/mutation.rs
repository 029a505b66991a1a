//! Holding seats with what they carry: `holdSeats`.

use std::sync::Arc;

use async_graphql::{Context, InputObject, Object, ID};

use crate::checkout::{HoldVoucher, VoucherAndProducts};
use crate::concessions::rules::{self as concession_rules, ItemAsk};
use crate::domain::customer::CustomerId;
use crate::domain::global_id;
use crate::domain::ticket_codes::TicketSecret;
use crate::domain::{input_caps, pricing};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::SeatKind;
use crate::holds::graphql::Hold;
use crate::holds::rules::{self, HoldPolicy};
use crate::holds::{self, HoldRequest, SeatChoice, ShowtimeLocks};
use crate::idempotency;
use crate::idempotency::graphql::IdempotencyContext;
use crate::overload::{deadline, Class};
use crate::vouchers;
use crate::vouchers::rules::{self as voucher_rules, VoucherCode};

#[derive(Default)]
pub struct HoldSeatsMutation;

/// The best adjacent seats of a kind, chosen by the gateway.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct BestSeatsInput {
    /// How many seats, side by side in one row.
    pub count: i32,
    /// Their kind.
    #[graphql(default_with = "SeatKind::Standard")]
    pub kind: SeatKind,
}

/// A product to hold beside the seats.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct HoldItemInput {
    /// The product (`Cinema.products`), of the showtime's cinema and on sale now.
    pub product_id: ID,
    /// How many (1 to 20).
    pub quantity: i32,
}

/// What to hold: name `seats`, or ask for the `best` ones; exactly one of the two.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct HoldSeatsInput {
    /// The showtime.
    pub showtime_id: ID,
    /// These seats, e.g. ["D7", "D8"]: all of them or none.
    pub seats: Option<Vec<String>>,
    /// The best adjacent seats: same row, nearest the centre of the hall, leaving no single
    /// empty seat when another choice exists.
    pub best: Option<BestSeatsInput>,
    /// The ticket type of every seat (ADULT when neither this nor `ticketTypes` is given),
    /// e.g. "CHILD". Each seat costs the showtime's price for its kind and type on the channel.
    pub ticket_type: Option<String>,
    /// One ticket type per seat, in the order of `seats` (for `best`: of the chosen seats,
    /// left to right), e.g. ["ADULT", "CHILD"]. Not with `ticketType`.
    pub ticket_types: Option<Vec<String>>,
    /// A voucher code: the seats cost what it says (case, spaces and dashes do not matter).
    /// VOUCHER_REFUSED, with `extensions.reason`, when it may not be used for these seats.
    // Never part of the key's fingerprint as typed: the keyed hash of the code stands in for
    // it (see `hold_seats`), so the key's record holds nothing redeemable.
    #[serde(skip_serializing)]
    pub voucher: Option<String>,
    /// The channel's opaque id of its customer (1 to 64 characters, no spaces or control
    /// characters): needed with a voucher that caps redemptions per customer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub customer_id: Option<String>,
    /// Products to hold beside the seats (at most 10 lines, each product once), at their
    /// prices now; a product with a stock has its units reserved with the seats (SOLD_OUT,
    /// with `extensions.product`, when too few are left). Not touched by a voucher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<HoldItemInput>>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// What a hold's idempotency key remembers of its request: the input, with the voucher's
/// keyed hash in place of its code (the same as the input alone without a voucher).
#[derive(serde::Serialize)]
struct Fingerprint<'a> {
    #[serde(flatten)]
    input: &'a HoldSeatsInput,
    #[serde(skip_serializing_if = "Option::is_none")]
    voucher: Option<&'a str>,
}

/// The products a hold asks for, every size checked before anything is made of them.
fn item_asks(items: Option<&[HoldItemInput]>) -> Result<Vec<ItemAsk>, ApiError> {
    let items = items.unwrap_or_default();
    input_caps::list("items", items, concession_rules::MAX_ITEM_LINES)?;
    let asks = items
        .iter()
        .map(|item| {
            Ok(ItemAsk {
                product: global_id::product_id(&item.product_id)?,
                quantity: i64::from(item.quantity),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    concession_rules::check_asks(&asks)?;
    Ok(asks)
}

#[Object]
impl HoldSeatsMutation {
    /// Holds seats of a showtime for the calling channel until the hold expires: every seat
    /// or none. SEAT_UNAVAILABLE names the seats that were taken.
    #[tracing::instrument(skip_all, fields(showtime = %input.showtime_id.as_str()))]
    async fn hold_seats(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Which showtime and which seats.")] input: HoldSeatsInput,
    ) -> Result<Hold, ApiError> {
        ctx.store().panic_point();
        let policy = ctx.data_unchecked::<HoldPolicy>();
        // Every size first: nothing below may allocate or loop by a size not yet checked.
        if let Some(seats) = &input.seats {
            rules::validate_count(seats.len(), policy)?;
        }
        input_caps::optional_list(
            "ticketTypes",
            input.ticket_types.as_deref(),
            policy.max_seats,
        )?;
        let items = item_asks(input.items.as_deref())?;
        let channel = ctx.calling_channel("holding seats")?;
        let code = input
            .voucher
            .as_deref()
            .map(VoucherCode::parse)
            .transpose()?;
        let customer = (input.customer_id.as_deref())
            .map(CustomerId::parse)
            .transpose()?
            .map(|customer| voucher_rules::customer_of(channel, &customer));
        let showtime = global_id::showtime_id(&input.showtime_id)?;
        let choice = match (&input.seats, &input.best) {
            (Some(seats), None) => SeatChoice::Named(seats.clone()),
            (None, Some(best)) => SeatChoice::Best {
                count: input_caps::count("count", best.count, policy.max_seats)?,
                kind: best.kind.into(),
            },
            _ => {
                return Err(ApiError::bad_input(
                    "give exactly one of `seats` and `best`",
                ))
            }
        };
        let mut carriage = VoucherAndProducts {
            voucher: None,
            items,
        };
        let mut request = HoldRequest {
            showtime,
            ticket_types: pricing::ticket_types_from_codes(
                choice.count(),
                input.ticket_type.as_deref(),
                input.ticket_types.as_deref(),
            )?,
            choice,
            carriage: None,
            offer: None,
        };
        // A hold starts a purchase: it waits at the door behind those that finish one.
        deadline::classify(Class::Start);
        let store = ctx.store();
        if let Some(code) = &code {
            let secret = ctx.data_unchecked::<Arc<TicketSecret>>();
            let found = Box::pin(vouchers::look_up(store, secret, code)).await?;
            carriage.voucher = Some(HoldVoucher { found, customer });
        }
        let voucher_hash = carriage.voucher.as_ref().map(|v| v.found.hash.clone());
        if carriage.voucher.is_some() || !carriage.items.is_empty() {
            request.carriage = Some(Arc::new(carriage));
        }
        let locks = ctx.data_unchecked::<Arc<ShowtimeLocks>>();
        let endings = ctx.data_unchecked::<holds::HoldEndings>();
        let key = input.idempotency_key.as_deref();
        let keys = ctx.key_policy();
        // Seats this gateway just saw taken are refused with no read (`holds::SeenSeats`);
        // named seats already taken are refused from one read. Both before the key is claimed.
        let seen = locks.seen.refusal(store, channel, &request, policy);
        let first_read = match seen {
            Some(_) => None,
            None => Box::pin(holds::read_named_seats(store, &request, policy)).await?,
        };
        let refusal = seen.or_else(|| first_read.as_ref().and_then(|read| read.refusal.clone()));
        // Boxed, as every large future this resolver awaits: the resolver's own future is
        // copied whole each time async-graphql moves it (`schema::boxed_member`).
        let held = Box::pin(idempotency::once_unless_refused(
            store,
            keys,
            channel,
            key,
            "holdSeats",
            &Fingerprint {
                input: &input,
                voucher: voucher_hash.as_deref(),
            },
            refusal,
            |attempt| {
                let first_read = first_read.clone();
                let request = &request;
                holds::hold_seats(
                    store, endings, locks, channel, request, policy, attempt, first_read,
                )
            },
        ))
        .await?;
        Ok(Hold::from(held))
    }
}
