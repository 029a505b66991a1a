//! DataLoaders: every key asked for while a request resolves one level of the query is fetched
//! in one `find({_id: {$in: keys}})` per collection. They are created per request and never
//! cache across requests.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use async_graphql::dataloader::{DataLoader, Loader};

use crate::domain::ids::{CinemaId, HallId, MovieId, ReviewId, ShowtimeId};
use crate::error::ApiError;
use crate::store::documents::{
    CinemaDoc, HallDoc, MovieDetailsDoc, MovieDoc, ReviewDoc, SeatInventoryDoc, ShowtimeDoc,
};
use crate::store::Store;

/// The loaders of one request.
pub struct Loaders {
    /// Cinemas, halls, movies, reviews and showtimes by id.
    pub catalogue: DataLoader<CatalogueLoader>,
    /// `movie_details` by movie id.
    pub details: DataLoader<DetailsLoader>,
    /// `seat_inventory` by showtime id.
    pub inventory: DataLoader<InventoryLoader>,
}

impl Loaders {
    pub fn new(store: &Store) -> Self {
        Loaders {
            catalogue: DataLoader::new(CatalogueLoader(store.clone()), tokio::spawn),
            details: DataLoader::new(DetailsLoader(store.clone()), tokio::spawn),
            inventory: DataLoader::new(InventoryLoader(store.clone()), tokio::spawn),
        }
    }
}

/// Loads catalogue documents by their id.
pub struct CatalogueLoader(Store);
/// Loads movie details by movie id.
pub struct DetailsLoader(Store);
/// Loads seat inventories by showtime id.
pub struct InventoryLoader(Store);

/// Indexes fetched documents by their key.
fn by_key<K: Eq + Hash, D>(docs: Vec<D>, key: impl Fn(&D) -> K) -> HashMap<K, Arc<D>> {
    docs.into_iter().map(|doc| (key(&doc), Arc::new(doc))).collect()
}

macro_rules! loader {
    ($loader:ident, $key:ty, $doc:ty, $fetch:ident) => {
        impl Loader<$key> for $loader {
            type Value = Arc<$doc>;
            type Error = ApiError;

            async fn load(&self, keys: &[$key]) -> Result<HashMap<$key, Arc<$doc>>, ApiError> {
                let docs = self.0.$fetch(keys).await?;
                Ok(by_key(docs, |doc| <$key>::from(doc.id)))
            }
        }
    };
}

loader!(CatalogueLoader, CinemaId, CinemaDoc, cinemas_by_ids);
loader!(CatalogueLoader, HallId, HallDoc, halls_by_ids);
loader!(CatalogueLoader, MovieId, MovieDoc, movies_by_ids);
loader!(CatalogueLoader, ReviewId, ReviewDoc, reviews_by_ids);
loader!(CatalogueLoader, ShowtimeId, ShowtimeDoc, showtimes_by_ids);
loader!(DetailsLoader, MovieId, MovieDetailsDoc, movie_details_by_ids);
loader!(InventoryLoader, ShowtimeId, SeatInventoryDoc, inventories_by_showtime_ids);
