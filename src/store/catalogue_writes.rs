//! Bulk writes of catalogue documents (the demo data loader).

use bson::doc;
use serde::Serialize;

use super::documents::{
    ChannelDoc, CinemaDoc, HallDoc, MovieDetailsDoc, MovieDoc, RegionDoc, ReviewDoc,
    SeatInventoryDoc, ShowtimeDoc,
};
use super::{names, Store};
use crate::error::ApiError;

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
    pub showtimes: Vec<ShowtimeDoc>,
    /// One per showtime, created from its hall's layout.
    pub inventories: Vec<SeatInventoryDoc>,
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
            + self.showtimes.len()
            + self.inventories.len()
    }
}

impl Store {
    /// Inserts a batch with unordered bulk writes. Inventories go in before their showtimes, so
    /// a showtime that can be listed always has its seats.
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
        self.insert_all(names::SEAT_INVENTORY, &batch.inventories)
            .await?;
        self.insert_all(names::SHOWTIMES, &batch.showtimes).await?;
        Ok(())
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
