//! Writes of new catalogue documents: the one write path of each shape. The demo data loader
//! (`insert_catalogue`, in bulk) and the operators' mutations (one at a time) insert cinemas,
//! halls and movies through the same functions, which check every document against the same
//! rules (`shapes`) before anything is written.

use bson::doc;

use super::shapes::{check_cinema, check_cinema_regions, check_details, check_hall, check_movie};

use super::schedule::Scheduled;
use crate::domain::ids::HallId;
use crate::error::ApiError;
use crate::store::documents::{
    ChannelDoc, CinemaDoc, HallDoc, MovieDetailsDoc, MovieDoc, RegionDoc, ReviewDoc, ShowtimeDoc,
};
use crate::store::{names, Store};

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
        // Checked against the batch's region tree before anything is written.
        for cinema in &batch.cinemas {
            check_cinema_regions(cinema, &batch.regions)?;
        }
        self.insert_all(names::CHANNELS, &batch.channels).await?;
        self.insert_regions(&batch.regions).await?;
        self.insert_cinemas(&batch.cinemas).await?;
        self.insert_halls(&batch.halls).await?;
        self.insert_movies(&batch.movies, &batch.movie_details)
            .await?;
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
        inventories: &[crate::store::documents::SeatInventoryDoc],
    ) -> Result<(), ApiError> {
        self.insert_inventories(inventories).await?;
        self.insert_all(names::SHOWTIMES, showtimes).await
    }

    /// Inserts cinemas, each checked first (nothing is written when one fails). A cinema
    /// whose `_id` exists already was written by an earlier attempt of the same write.
    #[tracing::instrument(skip_all, fields(cinemas = cinemas.len()))]
    pub async fn insert_cinemas(&self, cinemas: &[CinemaDoc]) -> Result<(), ApiError> {
        cinemas.iter().try_for_each(check_cinema)?;
        self.insert_new(names::CINEMAS, cinemas).await?;
        Ok(())
    }

    /// Inserts halls, each checked first: name, format, layout, and a capacity that is the
    /// layout's.
    #[tracing::instrument(skip_all, fields(halls = halls.len()))]
    pub async fn insert_halls(&self, halls: &[HallDoc]) -> Result<(), ApiError> {
        halls.iter().try_for_each(check_hall)?;
        self.insert_new(names::THEATERS, halls).await?;
        Ok(())
    }

    /// Inserts movies and their details (subset pattern: `movies` the summary, `movie_details`
    /// the rest), each checked first; the details go first, so a listed movie always has them.
    #[tracing::instrument(skip_all, fields(movies = movies.len()))]
    pub async fn insert_movies(
        &self,
        movies: &[MovieDoc],
        details: &[MovieDetailsDoc],
    ) -> Result<(), ApiError> {
        movies.iter().try_for_each(check_movie)?;
        details.iter().try_for_each(check_details)?;
        self.insert_new(names::MOVIE_DETAILS, details).await?;
        self.insert_new(names::MOVIES, movies).await?;
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
