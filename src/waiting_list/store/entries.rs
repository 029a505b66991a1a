//! `waiting_list` and `waiting_list_seq`: joining (a place in line from the showtime's
//! sequence), reading a showtime's line in order, and moving an entry from state to state,
//! each write with the state it assumes (and the offer's hold) in its filter.

use bson::{doc, Document};
use chrono::{DateTime, Utc};
use futures::TryStreamExt;

use super::documents::{EntryStateDoc, WaitingEntryDoc};
use crate::domain::ids::{HoldId, ShowtimeId, WaitingEntryId};
use crate::error::ApiError;
use crate::store::codec::{self, date, id_of, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::{is_duplicate_key, names, Store};

fn state(state: EntryStateDoc) -> Result<bson::Bson, ApiError> {
    Ok(bson::to_bson(&state)?)
}

/// The states of an entry no longer on the list.
const ENDED: [EntryStateDoc; 5] = [
    EntryStateDoc::Accepted,
    EntryStateDoc::Declined,
    EntryStateDoc::Lapsed,
    EntryStateDoc::Left,
    EntryStateDoc::Closed,
];

impl Store {
    /// How many parties, and people, wait in each of `showtimes`' lines: one aggregation
    /// (index `showtime_state_seq`); showtimes nobody waits for are left out.
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn waiting_lengths(
        &self,
        showtimes: &[ShowtimeId],
    ) -> Result<Vec<(ShowtimeId, i64, i64)>, ApiError> {
        let ids: Vec<_> = showtimes.iter().map(|id| id.oid()).collect();
        let pipeline = [
            doc! { "$match": { "showtime": { "$in": ids }, "state": state(EntryStateDoc::Waiting)? } },
            doc! { "$group": {
                "_id": "$showtime",
                "parties": { "$sum": 1 },
                "people": { "$sum": "$partySize" },
            } },
        ];
        let entries = self.collection::<Document>(names::WAITING_LIST);
        let groups: Vec<Document> = self
            .bounded(Call::new(names::WAITING_LIST, "aggregate"), async {
                entries.aggregate(pipeline).await?.try_collect().await
            })
            .await?;
        let count = |group: &Document, field: &str| group.get(field).and_then(codec::count);
        Ok(groups
            .iter()
            .filter_map(|group| {
                let showtime = group.get_object_id("_id").ok()?;
                Some((
                    id_of(showtime),
                    count(group, "parties").unwrap_or(0),
                    count(group, "people").unwrap_or(0),
                ))
            })
            .collect())
    }

    /// The next place in line of `showtime`'s waiting list (1, 2, …): one atomic increment.
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn next_waiting_seq(
        &self,
        showtime: ShowtimeId,
    ) -> Result<i64, ApiError> {
        let counter = self
            .bounded(
                Call::new(names::WAITING_LIST_SEQ, "findAndModify"),
                self.collection::<Document>(names::WAITING_LIST_SEQ)
                    .find_one_and_update(
                        doc! { "_id": showtime.oid() },
                        doc! { "$inc": { "next": 1_i64 } },
                    )
                    .upsert(true)
                    .return_document(mongodb::options::ReturnDocument::After),
            )
            .await?
            .ok_or_else(|| ApiError::internal("the waiting list's sequence vanished on upsert"))?;
        counter
            .get_i64("next")
            .map_err(|error| ApiError::internal_caused("the waiting list's sequence", error))
    }

    /// Writes a new entry; false when the customer has one for this showtime already.
    #[tracing::instrument(skip(self, entry), fields(entry = %entry.id))]
    pub(in crate::waiting_list) async fn insert_waiting_entry(
        &self,
        entry: &WaitingEntryDoc,
    ) -> Result<bool, ApiError> {
        let entries = self.collection::<WaitingEntryDoc>(names::WAITING_LIST);
        match self
            .bounded_raw(
                Call::new(names::WAITING_LIST, "insert"),
                entries.insert_one(entry),
            )
            .await?
        {
            Ok(_) => Ok(true),
            Err(error) if is_duplicate_key(&error) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }

    /// Puts an ended entry back in line as `entry` says (a new place, a new offer id); false
    /// when it is on the list already.
    #[tracing::instrument(skip(self, entry), fields(entry = %entry.id))]
    pub(in crate::waiting_list) async fn rejoin_waiting_entry(
        &self,
        entry: &WaitingEntryDoc,
    ) -> Result<bool, ApiError> {
        let ended: Vec<bson::Bson> = ENDED.iter().map(|s| state(*s)).collect::<Result<_, _>>()?;
        let result = self
            .bounded(
                Call::new(names::WAITING_LIST, "update"),
                self.collection::<Document>(names::WAITING_LIST).update_one(
                    doc! { "_id": entry.id.oid(), "state": { "$in": ended } },
                    doc! {
                        "$set": {
                            "partySize": entry.party_size,
                            "kind": bson::to_bson(&entry.kind)?,
                            "together": entry.together,
                            "seq": entry.seq,
                            "state": state(EntryStateDoc::Waiting)?,
                            "hold": entry.hold.oid(),
                            "joinedAt": date(entry.joined_at),
                        },
                        "$unset": { "offeredAt": "", "offerExpiresAt": "" },
                    },
                ),
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// The entry of `customer` of `channel` for `showtime`, if any (unique index `customer`).
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn waiting_entry_of(
        &self,
        showtime: ShowtimeId,
        channel: &str,
        customer: &str,
    ) -> Result<Option<WaitingEntryDoc>, ApiError> {
        let filter = doc! { "showtime": showtime.oid(), "channel": channel, "customer": customer };
        Ok(self
            .find_limited(names::WAITING_LIST, filter, None, None, 1)
            .await?
            .pop())
    }

    /// Entry `id`.
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn waiting_entry(
        &self,
        id: WaitingEntryId,
    ) -> Result<Option<WaitingEntryDoc>, ApiError> {
        Ok(self.find_by_ids(names::WAITING_LIST, &[id]).await?.pop())
    }

    /// The first `limit` entries of `showtime` in state `of`, in line order (index
    /// `showtime_state_seq`).
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn waiting_entries(
        &self,
        showtime: ShowtimeId,
        of: EntryStateDoc,
        limit: usize,
    ) -> Result<Vec<WaitingEntryDoc>, ApiError> {
        self.find_limited(
            names::WAITING_LIST,
            doc! { "showtime": showtime.oid(), "state": state(of)? },
            Some(doc! { "showtime": 1, "state": 1, "seq": 1 }),
            None,
            limit,
        )
        .await
    }

    /// The showtimes with a party waiting, at most `limit` (index `state_showtime`).
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn showtimes_with_parties(
        &self,
        limit: usize,
    ) -> Result<Vec<ShowtimeId>, ApiError> {
        let limit = i64::try_from(limit)
            .map_err(|error| ApiError::internal_caused("a showtimes limit", error))?;
        let pipeline = [
            doc! { "$match": { "state": { "$in": [
                state(EntryStateDoc::Waiting)?, state(EntryStateDoc::Offered)?,
            ] } } },
            doc! { "$group": { "_id": "$showtime" } },
            doc! { "$limit": limit },
        ];
        let entries = self.collection::<Document>(names::WAITING_LIST);
        let groups: Vec<Document> = self
            .bounded(Call::new(names::WAITING_LIST, "aggregate"), async {
                entries.aggregate(pipeline).await?.try_collect().await
            })
            .await?;
        Ok(groups
            .iter()
            .filter_map(|group| group.get_object_id("_id").ok())
            .map(id_of)
            .collect())
    }

    /// Closes every entry of `showtime` still waiting (it started or was cancelled); how many.
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn close_waiting_entries(
        &self,
        showtime: ShowtimeId,
    ) -> Result<u64, ApiError> {
        let result = self
            .bounded(
                Call::new(names::WAITING_LIST, "update"),
                self.collection::<Document>(names::WAITING_LIST).update_many(
                    doc! { "showtime": showtime.oid(), "state": state(EntryStateDoc::Waiting)? },
                    doc! { "$set": { "state": state(EntryStateDoc::Closed)? } },
                ),
            )
            .await?;
        Ok(result.modified_count)
    }

    /// Moves entry `id`, whose offer is hold `hold`, from one of `from` to `to` (with the
    /// offer's placing and expiry, for OFFERED); false when it was in none of them (another
    /// gateway moved it).
    #[tracing::instrument(skip(self))]
    pub(in crate::waiting_list) async fn move_waiting_entry(
        &self,
        id: WaitingEntryId,
        hold: HoldId,
        from: &[EntryStateDoc],
        to: EntryStateDoc,
        offer: Option<(DateTime<Utc>, DateTime<Utc>)>,
    ) -> Result<bool, ApiError> {
        let from: Vec<bson::Bson> = from.iter().map(|s| state(*s)).collect::<Result<_, _>>()?;
        let mut set = doc! { "state": state(to)? };
        if let Some((at, expires_at)) = offer {
            set.insert("offeredAt", date(at));
            set.insert("offerExpiresAt", date(expires_at));
        }
        let result = self
            .bounded(
                Call::new(names::WAITING_LIST, "update"),
                self.collection::<Document>(names::WAITING_LIST).update_one(
                    doc! { "_id": id.oid(), "hold": hold.oid(), "state": { "$in": from } },
                    doc! { "$set": set },
                ),
            )
            .await?;
        Ok(result.modified_count == 1)
    }
}
