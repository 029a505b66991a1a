//! Scheduling showtimes: the one way showtimes and their seat inventories are written, by the
//! `scheduleShowtime` mutation (one showtime) and by the demo loader (a chunk of halls).
//!
//! No two showtimes of a hall overlap, whatever the concurrency: a scheduler reads each hall
//! (its `scheduleVersion`), reads the hall's showtimes that could overlap the new ones, and
//! then, in one transaction, writes each hall with the version it read in the filter
//! (`$inc`) and inserts the showtimes. Every scheduler of a hall writes the hall's version, so
//! of two that read the same schedule only one commits; the other reads again and sees the
//! first one's showtime.
//!
//! The seat inventories (built from the hall it read) go in just before the transaction, in
//! bulk: they are most of the bytes, and inserts inside a transaction cost the test server
//! more than twice as much. An inventory without its showtime is never reached (holds,
//! blocks and seat maps all start from the showtime), so one left by an attempt that then
//! lost, or crashed, is inert; the next attempt rewrites it only while it is unused and was
//! copied from an older read of the hall (`hallScheduleVersion` in the filter).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use bson::{doc, Document};

use crate::catalogue::rules::schedule::MAX_BUSY;
use crate::domain::ids::{HallId, ShowtimeId};
use crate::error::ApiError;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::{HallDoc, SeatInventoryDoc, ShowtimeDoc, ShowtimeStatus};
use crate::store::{names, Store};

/// How many times a scheduler reads again after losing its hall's version to another.
const ATTEMPTS: u32 = 16;

/// Why showtimes were not scheduled (nothing was written).
#[derive(Debug, Clone)]
pub enum ScheduleRefusal {
    /// A hall does not exist.
    NoHall(HallId),
    /// `showtime` (a new one) would overlap `existing` (stored, or another new one).
    Overlaps {
        showtime: ShowtimeId,
        existing: Box<ShowtimeDoc>,
    },
}

/// What scheduling did.
#[derive(Debug, Clone)]
pub enum Scheduled {
    /// Every showtime and its inventory were written.
    Written,
    /// Every showtime was there already (an earlier attempt of the same request wrote them).
    AlreadyThere,
    /// Nothing was written.
    Refused(ScheduleRefusal),
}

impl Store {
    /// Schedules `showtimes` (of any halls, each with its hall's reference filled in) with their
    /// seat inventories, all or none: refused when a hall is missing or a showtime would
    /// overlap a stored one that is not CANCELLED, or another of `showtimes`. UNAVAILABLE when
    /// other schedulers kept changing a hall's schedule through every attempt.
    #[tracing::instrument(skip_all, fields(showtimes = showtimes.len()))]
    pub async fn schedule_showtimes(
        &self,
        showtimes: &[ShowtimeDoc],
    ) -> Result<Scheduled, ApiError> {
        if showtimes.is_empty() {
            return Ok(Scheduled::Written);
        }
        if let Some(refusal) = overlap_among(showtimes) {
            return Ok(Scheduled::Refused(refusal));
        }
        let mut hall_ids: Vec<HallId> = showtimes.iter().map(|s| s.theater.id).collect();
        hall_ids.sort_unstable_by_key(|id| id.0);
        hall_ids.dedup();
        for attempt in 0..ATTEMPTS {
            let halls: HashMap<HallId, HallDoc> = self
                .halls_by_ids(&hall_ids)
                .await?
                .into_iter()
                .map(|hall| (hall.id, hall))
                .collect();
            if let Some(missing) = hall_ids.iter().find(|id| !halls.contains_key(id)) {
                return Ok(Scheduled::Refused(ScheduleRefusal::NoHall(*missing)));
            }
            let existing = self.showtimes_near(&hall_ids, showtimes).await?;
            if showtimes
                .iter()
                .all(|new| existing.iter().any(|old| old.id == new.id))
            {
                return Ok(Scheduled::AlreadyThere);
            }
            if let Some(refusal) = overlap_with(showtimes, &existing) {
                return Ok(Scheduled::Refused(refusal));
            }
            let inventories: Vec<SeatInventoryDoc> = showtimes
                .iter()
                .map(|showtime| {
                    SeatInventoryDoc::for_showtime(showtime, &halls[&showtime.theater.id])
                })
                .collect();
            let versions: Vec<Document> = hall_ids
                .iter()
                .map(|id| doc! { "_id": id.oid(), "scheduleVersion": halls[id].schedule_version })
                .collect();
            self.pause_point(crate::store::PausePoint::BeforeScheduleWrite)
                .await;
            self.write_inventories(&inventories).await?;
            if self.write_schedule(&versions, showtimes).await? {
                return Ok(Scheduled::Written);
            }
            // Another scheduler (or a layout change) moved a hall's version: read again, after
            // a pause that grows with the attempts so racing schedulers spread out.
            let pause = 2_u64.pow(attempt.min(6)) + u64::from(rand::random::<u8>() % 8);
            tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
        }
        Err(ApiError::unavailable(format!(
            "the schedule of hall {} kept changing: try again",
            hall_ids[0]
        )))
    }

    /// The stored showtimes of `halls` that start before the last new showtime frees its hall
    /// and at most [`MAX_BUSY`] before the first new one starts: every one that can overlap
    /// (index `theater_starts`), and the CANCELLED ones among them. The overlap itself is judged on the upgraded
    /// documents, so version 1 showtimes, which store no `freeAt`, count with theirs.
    async fn showtimes_near(
        &self,
        halls: &[HallId],
        showtimes: &[ShowtimeDoc],
    ) -> Result<Vec<ShowtimeDoc>, ApiError> {
        let from = showtimes
            .iter()
            .map(|s| s.starts_at)
            .min()
            .unwrap_or_default()
            - MAX_BUSY;
        let until = showtimes
            .iter()
            .map(|s| s.free_at)
            .max()
            .unwrap_or_default();
        // CANCELLED ones too: they overlap nothing (`overlap_with`), but one with a new
        // showtime's id is that showtime, scheduled by an earlier attempt of the same key and
        // cancelled since, not a slot to fill again.
        let filter = doc! {
            "theater.id": { "$in": codec::oids(halls) },
            "startsAt": { "$gt": codec::date(from), "$lt": codec::date(until) },
        };
        use futures::TryStreamExt;
        self.bounded(Call::new(names::SHOWTIMES, "find"), async {
            self.collection::<ShowtimeDoc>(names::SHOWTIMES)
                .find(filter)
                .projection(doc! { "prices": 0 })
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await
    }

    /// The transaction: every hall at the version read (`$inc`), then the showtimes. False,
    /// and nothing written, when a hall's version moved.
    async fn write_schedule(
        &self,
        versions: &[Document],
        showtimes: &[ShowtimeDoc],
    ) -> Result<bool, ApiError> {
        let writes = Arc::new((versions.to_vec(), showtimes.to_vec()));
        self.in_transaction(|store, session| {
            let writes = Arc::clone(&writes);
            Box::pin(async move {
                let (versions, showtimes) = &*writes;
                // One `updateOne {_id, scheduleVersion}` per hall: an `updateMany` over an
                // `$or` of them took 66 ms alone and 700 ms under load on the test server
                // with the national demo's 39,564 halls (ARCHITECTURE.md, schedule figures).
                for version in versions {
                    let bumped = store
                        .collection::<Document>(names::THEATERS)
                        .update_one(version.clone(), doc! { "$inc": { "scheduleVersion": 1 } })
                        .session(&mut *session)
                        .await?;
                    if bumped.modified_count != 1 {
                        return Ok(false);
                    }
                }
                store
                    .collection::<ShowtimeDoc>(names::SHOWTIMES)
                    .insert_many(showtimes)
                    .session(&mut *session)
                    .await?;
                Ok(true)
            })
        })
        .await
    }
}

/// The first pair of `showtimes` of one hall that overlap, if any.
fn overlap_among(showtimes: &[ShowtimeDoc]) -> Option<ScheduleRefusal> {
    let mut by_hall: BTreeMap<[u8; 12], Vec<&ShowtimeDoc>> = BTreeMap::new();
    for showtime in showtimes {
        by_hall
            .entry(showtime.theater.id.0)
            .or_default()
            .push(showtime);
    }
    for hall in by_hall.values_mut() {
        hall.sort_by_key(|s| s.starts_at);
        for pair in hall.windows(2) {
            if pair[0].slot().overlaps(&pair[1].slot()) {
                return Some(ScheduleRefusal::Overlaps {
                    showtime: pair[1].id,
                    existing: Box::new(pair[0].clone()),
                });
            }
        }
    }
    None
}

/// The first new showtime that overlaps a stored one of its hall, if any (a stored one with
/// the new one's id is the new one, written by an earlier attempt).
fn overlap_with(showtimes: &[ShowtimeDoc], existing: &[ShowtimeDoc]) -> Option<ScheduleRefusal> {
    showtimes.iter().find_map(|new| {
        existing
            .iter()
            .filter(|old| old.status != ShowtimeStatus::Cancelled && old.id != new.id)
            .find(|old| old.theater.id == new.theater.id && old.slot().overlaps(&new.slot()))
            .map(|old| ScheduleRefusal::Overlaps {
                showtime: new.id,
                existing: Box::new(old.clone()),
            })
    })
}
