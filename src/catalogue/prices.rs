//! Changing a showtime's channel prices (`changeShowtimePrices`), keeping every revision
//! (document versioning pattern, see `catalogue::store::price_revisions`). A hold keeps the
//! unit price it was given; a hold placed after the change reads the new prices (holds read
//! the showtime fresh from the database, never a cached copy).

use serde::Serialize;

use super::showtimes::check_channels;
use super::ticket_types::check_matrix;
use crate::catalogue::{PriceChange, PriceChanged};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::idempotency::Attempt;
use crate::operators::{authorize, record, Audited, Keyed};
use crate::store::documents::{
    ChannelPriceDoc, PriceRevisionDoc, ShowtimeDoc, ShowtimeStatus, TicketRuleDoc,
};
use crate::store::{self, Store};

/// How many times a change reads again after another change (or a cancellation) won.
const ATTEMPTS: u32 = 16;

/// Sets the prices of `showtime` to `prices` for `operator`, once per idempotency key.
/// NOT_FOUND for a missing showtime, FORBIDDEN outside the operator's cinemas, BAD_USER_INPUT
/// for an unknown channel or a showtime that has started or is cancelled.
pub async fn change_showtime_prices(
    keyed: Keyed<'_, impl Serialize>,
    showtime_id: ShowtimeId,
    prices: &[ChannelPriceDoc],
    rules: &[TicketRuleDoc],
) -> Result<ShowtimeDoc, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    let showtime = read(store, showtime_id).await?;
    authorize(store, operator, showtime.cinema.id).await?;
    check_channels(store, prices).await?;
    // A showtime keeps its hall: the layout read now is the one its seats were copied from,
    // or a later one with the same kinds (a hall's layout changes only while it has no
    // future showtimes).
    let hall = store
        .halls_by_ids(&[showtime.theater.id])
        .await?
        .pop()
        .ok_or_else(|| ApiError::internal(format!("the hall of showtime {showtime_id} is gone")))?;
    check_matrix(store, &hall, prices, rules).await?;
    keyed
        .once("changeShowtimePrices", |attempt| async move {
            if attempt.taken_over() {
                if let Some(made) = store
                    .price_revision_by_request(showtime_id, attempt.resource_id())
                    .await?
                {
                    // An earlier attempt of this key made the change: this one records it (the
                    // earlier one may have died before) and answers with the showtime.
                    let current = read(store, showtime_id).await?;
                    record_change(store, attempt, operator, &current, &made).await?;
                    return Ok(current);
                }
            }
            for _ in 0..ATTEMPTS {
                let current = read(store, showtime_id).await?;
                refuse_unchangeable(&current)?;
                let change = PriceChange {
                    showtime: showtime_id,
                    read_revision: current.price_revision,
                    free_at: current.free_at,
                    before: current.prices.clone(),
                    after: prices.to_vec(),
                    rules_before: current.ticket_rules.clone(),
                    rules_after: rules.to_vec(),
                    operator: operator.to_owned(),
                    request: attempt.resource_id(),
                    at: store::now(),
                };
                match store.change_showtime_prices(&change).await? {
                    PriceChanged::Moved => continue,
                    PriceChanged::Changed(made) => {
                        record_change(store, attempt, operator, &current, &made).await?;
                        return Ok(ShowtimeDoc {
                            prices: change.after,
                            ticket_rules: change.rules_after,
                            price_revision: made.revision,
                            ..current
                        });
                    }
                    // A retry took this attempt's key over and made the change meanwhile (this
                    // attempt stalled): nothing more to write; the retry's answer counts.
                    PriceChanged::MadeAlready(made) => {
                        record_change(store, attempt, operator, &current, &made).await?;
                        return read(store, showtime_id).await;
                    }
                }
            }
            Err(ApiError::unavailable(format!(
                "the prices of showtime {} kept changing: try again",
                GlobalId::Showtime(showtime_id).encode()
            )))
        })
        .await
}

/// Records revision `made` of `showtime` in the audit log (once per key: see `record`).
async fn record_change(
    store: &Store,
    attempt: Attempt,
    operator: &str,
    showtime: &ShowtimeDoc,
    made: &PriceRevisionDoc,
) -> Result<(), ApiError> {
    let state = |prices: &[ChannelPriceDoc], rules: &[TicketRuleDoc], revision: i64| {
        Audited::json(&serde_json::json!({
            "prices": prices,
            "refusedTicketTypes": rules,
            "priceRevision": revision,
        }))
    };
    record(
        store,
        attempt,
        Audited {
            operator,
            operation: "changeShowtimePrices",
            cinema: Some(showtime.cinema.id),
            subject: GlobalId::Showtime(made.showtime_id),
            before: state(&made.before, &made.rules_before, made.revision - 1),
            after: state(&made.after, &made.rules_after, made.revision),
        },
    )
    .await
}

async fn read(store: &Store, showtime: ShowtimeId) -> Result<ShowtimeDoc, ApiError> {
    store
        .showtimes_by_ids(&[showtime])
        .await?
        .pop()
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "showtime {} does not exist",
                GlobalId::Showtime(showtime).encode()
            ))
        })
}

/// BAD_USER_INPUT when the showtime's prices can no longer change: it has started, or it is
/// cancelled (or being cancelled).
fn refuse_unchangeable(showtime: &ShowtimeDoc) -> Result<(), ApiError> {
    let id = GlobalId::Showtime(showtime.id).encode();
    if showtime.status != ShowtimeStatus::Scheduled {
        return Err(ApiError::bad_input(format!(
            "showtime {id} is cancelled: its prices can no longer change"
        )));
    }
    if showtime.starts_at <= store::now() {
        return Err(ApiError::bad_input(format!(
            "showtime {id} has started: its prices can no longer change"
        )));
    }
    Ok(())
}
