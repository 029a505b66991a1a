//! The loaders of one request: every key asked for while a level of the query resolves is
//! fetched in one `find({_id: {$in: keys}})` per collection. They are created per request and
//! cache nothing across requests.

use std::sync::Arc;

use super::batch_loader::BatchLoader;
use crate::domain::ids::{CinemaId, HallId, MovieId, ReviewId, ShowtimeId};
use crate::store::documents::{
    CinemaDoc, HallDoc, MovieDetailsDoc, MovieDoc, ReviewDoc, SeatInventoryDoc, ShowtimeDoc,
};
use crate::store::Store;

/// One loader per collection, keyed by the newtype id of its documents.
pub struct Loaders {
    pub cinemas: BatchLoader<CinemaId, Arc<CinemaDoc>>,
    pub halls: BatchLoader<HallId, Arc<HallDoc>>,
    pub movies: BatchLoader<MovieId, Arc<MovieDoc>>,
    /// `movie_details` by movie id.
    pub details: BatchLoader<MovieId, Arc<MovieDetailsDoc>>,
    pub reviews: BatchLoader<ReviewId, Arc<ReviewDoc>>,
    pub showtimes: BatchLoader<ShowtimeId, Arc<ShowtimeDoc>>,
    /// `seat_inventory` by showtime id.
    pub inventories: BatchLoader<ShowtimeId, Arc<SeatInventoryDoc>>,
}

/// A loader that fetches documents with `Store::$method(&[ids])` and keys them by `_id`.
macro_rules! by_id {
    ($store:expr, $method:ident, $key:ty) => {{
        let store = $store.clone();
        BatchLoader::new(move |keys: Vec<$key>| {
            let store = store.clone();
            Box::pin(async move {
                let docs = store.$method(&keys).await?;
                Ok(docs
                    .into_iter()
                    .map(|doc| (<$key>::from(doc.id), Arc::new(doc)))
                    .collect())
            })
        })
    }};
}

impl Loaders {
    pub fn new(store: &Store) -> Self {
        Loaders {
            cinemas: by_id!(store, cinemas_by_ids, CinemaId),
            halls: by_id!(store, halls_by_ids, HallId),
            movies: by_id!(store, movies_by_ids, MovieId),
            details: by_id!(store, movie_details_by_ids, MovieId),
            reviews: by_id!(store, reviews_by_ids, ReviewId),
            showtimes: by_id!(store, showtimes_by_ids, ShowtimeId),
            inventories: by_id!(store, inventories_by_showtime_ids, ShowtimeId),
        }
    }
}

/// A document type with a loader in [`Loaders`], keyed by `K`.
pub trait LoadedBy<K>: Sized {
    fn loader(loaders: &Loaders) -> &BatchLoader<K, Arc<Self>>;
}

macro_rules! loaded_by {
    ($doc:ty, $key:ty, $field:ident) => {
        impl LoadedBy<$key> for $doc {
            fn loader(loaders: &Loaders) -> &BatchLoader<$key, Arc<Self>> {
                &loaders.$field
            }
        }
    };
}

loaded_by!(CinemaDoc, CinemaId, cinemas);
loaded_by!(HallDoc, HallId, halls);
loaded_by!(MovieDoc, MovieId, movies);
loaded_by!(ReviewDoc, ReviewId, reviews);
loaded_by!(ShowtimeDoc, ShowtimeId, showtimes);
