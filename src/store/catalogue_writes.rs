//! Bulk writes of catalogue documents (the demo data loader).

use bson::doc;
use serde::Serialize;

use super::documents::{
    ChannelDoc, CinemaDoc, HallDoc, MovieDetailsDoc, MovieDoc, RegionDoc, ReviewDoc, ShowtimeDoc,
};
use super::schedule::Scheduled;
use super::{names, Store};
use crate::domain::ids::HallId;
use crate::error::ApiError;

/// Halls whose showtimes the catalogue loader schedules in one transaction.
pub const SCHEDULE_GROUP: usize = 8;

/// Documents to insert together; any list may be empty.
#[derive(Debug, Default)]
pub struct CatalogueBatch {
    pub channels: Vec<ChannelDoc>,
    /// Provinces, cities and districts; written before the cinemas in them.
    pub regions: Vec<RegionDoc>,
    pub cinemas: Vec<CinemaDoc>,
    pub halls: Vec<HallDoc>,
    pub movies: Vec<MovieDoc>,
    pub movie_details: Vec<MovieDetailsDoc>,
    pub reviews: Vec<ReviewDoc>,
    /// Scheduled through [`Store::schedule_showtimes`] (checked for overlaps, each with a seat
    /// inventory made from its hall), like the `scheduleShowtime` mutation's.
    pub showtimes: Vec<ShowtimeDoc>,
}

impl CatalogueBatch {
    pub fn document_count(&self) -> usize {
        self.channels.len()
            + self.regions.len()
            + self.cinemas.len()
            + self.halls.len()
            + self.movies.len()
            + self.movie_details.len()
            + self.reviews.len()
            + 2 * self.showtimes.len()
    }
}

impl Store {
    /// Inserts a batch with unordered bulk writes, then schedules its showtimes through
    /// [`Store::schedule_showtimes`], the mutation's own path, [`SCHEDULE_GROUP`] halls at a
    /// time: each group is one transaction with its overlap check.
    #[tracing::instrument(skip_all, fields(documents = batch.document_count()))]
    pub async fn insert_catalogue(&self, batch: &CatalogueBatch) -> Result<(), ApiError> {
        self.insert_all(names::CHANNELS, &batch.channels).await?;
        self.insert_regions(&batch.regions).await?;
        self.insert_all(names::CINEMAS, &batch.cinemas).await?;
        self.insert_all(names::THEATERS, &batch.halls).await?;
        self.insert_all(names::MOVIE_DETAILS, &batch.movie_details)
            .await?;
        self.insert_all(names::MOVIES, &batch.movies).await?;
        self.insert_all(names::REVIEWS, &batch.reviews).await?;
        self.schedule_catalogue_showtimes(&batch.showtimes).await
    }

    /// Schedules the showtimes of a batch, grouped by hall ([`SCHEDULE_GROUP`] halls a
    /// transaction). A refusal (an overlap) is an error: the generator never makes one.
    async fn schedule_catalogue_showtimes(
        &self,
        showtimes: &[ShowtimeDoc],
    ) -> Result<(), ApiError> {
        let mut by_hall: Vec<(HallId, Vec<ShowtimeDoc>)> = Vec::new();
        for showtime in showtimes {
            match by_hall
                .iter_mut()
                .rev()
                .find(|(hall, _)| *hall == showtime.theater.id)
            {
                Some((_, group)) => group.push(showtime.clone()),
                None => by_hall.push((showtime.theater.id, vec![showtime.clone()])),
            }
        }
        for group in by_hall.chunks(SCHEDULE_GROUP) {
            let group: Vec<ShowtimeDoc> =
                group.iter().flat_map(|(_, s)| s.iter().cloned()).collect();
            match self.schedule_showtimes(&group).await? {
                Scheduled::Written | Scheduled::AlreadyThere => {}
                Scheduled::Refused(refusal) => {
                    return Err(ApiError::internal(format!(
                        "catalogue showtimes could not be scheduled: {refusal:?}"
                    )))
                }
            }
        }
        Ok(())
    }

    /// Inserts showtimes and inventories as given, without the schedule's checks: exact test
    /// catalogues (overlapping or past showtimes, missing inventories). Tests only.
    #[cfg(feature = "test-hooks")]
    pub async fn insert_unscheduled(
        &self,
        showtimes: &[ShowtimeDoc],
        inventories: &[super::documents::SeatInventoryDoc],
    ) -> Result<(), ApiError> {
        self.insert_all(names::SEAT_INVENTORY, inventories).await?;
        self.insert_all(names::SHOWTIMES, showtimes).await
    }

    pub(super) async fn insert_all<T: Serialize + Send + Sync>(
        &self,
        collection: &str,
        docs: &[T],
    ) -> Result<(), ApiError> {
        if docs.is_empty() {
            return Ok(());
        }
        self.collection::<T>(collection)
            .insert_many(docs)
            .ordered(false)
            .await?;
        Ok(())
    }

    /// True when no cinema exists yet: the demo data is loaded only into an empty catalogue.
    #[tracing::instrument(skip(self))]
    pub async fn catalogue_is_empty(&self) -> Result<bool, ApiError> {
        let any = self
            .collection::<bson::Document>(names::CINEMAS)
            .find_one(doc! {})
            .await?;
        Ok(any.is_none())
    }
}
