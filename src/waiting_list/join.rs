//! Joining and leaving a showtime's waiting list, and reading an entry.

use super::offers::settle_offer;
use super::rules::Party;
use super::store::documents::{EntryStateDoc, WaitingEntryDoc};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{ShowtimeId, WaitingEntryId};
use crate::error::ApiError;
use crate::holds::{self, HoldEndings};
use crate::idempotency::Attempt;
use crate::store::documents::{ShowtimeStatus, SCHEMA_VERSION};
use crate::store::{self, Store};

/// Puts `customer` of `channel` in line for seats of `showtime` that fit `party`, after
/// every party already there, and returns the entry. A customer already in line keeps its
/// place (the entry as it is); one whose last turn ended joins at the end again. NOT_FOUND
/// for no such showtime, FORBIDDEN for one the channel does not sell, BAD_USER_INPUT for one
/// that has started or was cancelled.
#[tracing::instrument(skip(store))]
pub async fn join(
    store: &Store,
    channel: &str,
    showtime_id: ShowtimeId,
    customer: &str,
    party: Party,
) -> Result<WaitingEntryDoc, ApiError> {
    let showtime = store
        .showtimes_by_ids(&[showtime_id])
        .await?
        .pop()
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "showtime {} does not exist",
                GlobalId::Showtime(showtime_id).encode()
            ))
        })?;
    if !showtime.sold_on(channel) {
        return Err(ApiError::forbidden(format!(
            "channel {channel} does not sell this showtime"
        )));
    }
    if showtime.status != ShowtimeStatus::Scheduled || showtime.starts_at <= store::now() {
        return Err(ApiError::bad_input(
            "this showtime has started or was cancelled: there is nothing to wait for",
        ));
    }
    let existing = store
        .waiting_entry_of(showtime_id, channel, customer)
        .await?;
    if let Some(entry) = &existing {
        if matches!(entry.state, EntryStateDoc::Waiting | EntryStateDoc::Offered) {
            return Ok(entry.clone());
        }
    }
    let entry = WaitingEntryDoc {
        id: existing
            .as_ref()
            .map_or_else(store::new_id, |entry| entry.id),
        schema_version: SCHEMA_VERSION,
        showtime: showtime_id,
        channel: channel.to_owned(),
        customer: customer.to_owned(),
        party_size: party.size as i64,
        kind: party.kind,
        together: party.together,
        seq: store.next_waiting_seq(showtime_id).await?,
        state: EntryStateDoc::Waiting,
        // A fresh id for this turn's offer: an earlier turn's hold can never be taken for it.
        hold: Attempt::unkeyed().own_id(),
        joined_at: store::now(),
        offered_at: None,
        offer_expires_at: None,
    };
    let written = match existing {
        None => store.insert_waiting_entry(&entry).await?,
        Some(_) => store.rejoin_waiting_entry(&entry).await?,
    };
    // Offers of seats this process frees look at this line from now on (`lines`).
    store.note_party_joined(showtime_id);
    if written {
        return Ok(entry);
    }
    // The same customer joined at the same moment through another request: its entry.
    store
        .waiting_entry_of(showtime_id, channel, customer)
        .await?
        .ok_or_else(|| ApiError::internal("a waiting list entry vanished"))
}

/// Takes `channel`'s entry `id` off its list: a waiting one is LEFT; an offered one is
/// DECLINED and its hold released (its seats go to the next party), unless the offer was
/// confirmed (ACCEPTED) or lapsed first. NOT_FOUND for another channel's entry or none; an
/// entry that ended already is returned as it is.
#[tracing::instrument(skip(store, endings))]
pub async fn leave(
    store: &Store,
    endings: &HoldEndings,
    channel: &str,
    id: WaitingEntryId,
) -> Result<WaitingEntryDoc, ApiError> {
    let entry = entry_of(store, endings, channel, id).await?;
    let moved = match entry.state {
        EntryStateDoc::Waiting => {
            let left = EntryStateDoc::Left;
            let from = [EntryStateDoc::Waiting];
            store
                .move_waiting_entry(id, entry.hold, &from, left, None)
                .await?
        }
        EntryStateDoc::Offered => {
            // Released as its channel would (`releaseHold`), which marks the entry DECLINED;
            // an offer no longer there was confirmed or lapsed, and is settled as such.
            let attempt = Attempt::unkeyed();
            let release =
                holds::release_hold(store, endings, channel, entry.showtime, entry.hold, attempt);
            match release.await {
                Ok(_) => declined(store, id, entry.hold).await?,
                Err(ApiError::NotFound(_)) => {
                    Box::pin(settle_offer(store, endings, &entry)).await?
                }
                Err(error) => return Err(error),
            }
        }
        _ => false,
    };
    if moved {
        tracing::debug!(entry = %id, "left the waiting list");
    }
    entry_of(store, endings, channel, id).await
}

/// Marks entry `id`, whose offer is hold `hold`, DECLINED (its channel released the offer).
pub(super) async fn declined(
    store: &Store,
    id: WaitingEntryId,
    hold: crate::domain::ids::HoldId,
) -> Result<bool, ApiError> {
    let from = [EntryStateDoc::Waiting, EntryStateDoc::Offered];
    store
        .move_waiting_entry(id, hold, &from, EntryStateDoc::Declined, None)
        .await
}

/// `channel`'s entry `id`, its offer settled first (accepted, or lapsed) when it was made.
/// NOT_FOUND for another channel's entry or none.
#[tracing::instrument(skip(store, endings))]
pub async fn entry_of(
    store: &Store,
    endings: &HoldEndings,
    channel: &str,
    id: WaitingEntryId,
) -> Result<WaitingEntryDoc, ApiError> {
    let not_found = || {
        ApiError::not_found(format!(
            "no waiting list entry {} of this channel",
            GlobalId::WaitingListEntry(id).encode()
        ))
    };
    let entry = store
        .waiting_entry(id)
        .await?
        .filter(|entry| entry.channel == channel)
        .ok_or_else(not_found)?;
    if entry.state != EntryStateDoc::Offered {
        return Ok(entry);
    }
    if Box::pin(settle_offer(store, endings, &entry)).await? {
        return store.waiting_entry(id).await?.ok_or_else(not_found);
    }
    Ok(entry)
}

/// The lengths of `showtimes`' waiting lists, in the order asked: parties and people still
/// WAITING (an offered party is no longer in line). One read whatever the number.
pub async fn waiting_lengths(
    store: &Store,
    showtimes: &[ShowtimeId],
) -> Result<Vec<(ShowtimeId, i64, i64)>, ApiError> {
    let found = store.waiting_lengths(showtimes).await?;
    Ok(showtimes
        .iter()
        .map(|showtime| {
            let (parties, people) = (found.iter())
                .find(|(id, _, _)| id == showtime)
                .map_or((0, 0), |(_, parties, people)| (*parties, *people));
            (*showtime, parties, people)
        })
        .collect())
}
