//! The loaders of one request: every key asked for while a level of the query resolves is
//! fetched in one `find({_id: {$in: keys}})` per collection. They are created per request and
//! cache nothing across requests. A feature's own loader is sent with their batches
//! (`dispatched_by(loaders.dispatch())`: the counters' `Tallies`).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

pub use super::batch_loader::BatchLoader;
use super::dispatch::Dispatch;
use crate::domain::ids::{CinemaId, HallId, MovieId, OrderId, RegionId, ReviewId, ShowtimeId};
use crate::domain::list_caps::MAX_PRICE_REVISIONS;
use crate::store::documents::{
    CinemaDoc, DetailFields, HallDoc, MovieDetailsDoc, MovieDoc, OrderDoc, PriceRevisionDoc,
    RegionDoc, ReviewDoc, SeatMapDoc, ShowtimeDoc,
};
use crate::store::Store;

/// One loader per collection, keyed by the newtype id of its documents.
pub struct Loaders {
    pub cinemas: BatchLoader<CinemaId, Arc<CinemaDoc>>,
    pub halls: BatchLoader<HallId, Arc<HallDoc>>,
    pub movies: BatchLoader<MovieId, Arc<MovieDoc>>,
    /// `movie_details` by movie id and the fields asked for (a batch reads their union).
    pub details: BatchLoader<(MovieId, DetailFields), Arc<MovieDetailsDoc>>,
    pub reviews: BatchLoader<ReviewId, Arc<ReviewDoc>>,
    pub showtimes: BatchLoader<ShowtimeId, Arc<ShowtimeDoc>>,
    /// Seat maps (`seat_inventory`) by showtime id and what of them is asked for.
    pub seat_maps: BatchLoader<(ShowtimeId, SeatMapPart), Arc<SeatMapDoc>>,
    /// Provinces, cities and districts (a cinema's `region`, a region's parent and ancestors).
    pub regions: BatchLoader<RegionId, Arc<RegionDoc>>,
    /// Orders (federation entities; their channel is checked by the caller).
    pub orders: BatchLoader<OrderId, Arc<OrderDoc>>,
    /// A showtime's price revisions, newest first (at most [`MAX_PRICE_REVISIONS`]).
    pub price_history: BatchLoader<ShowtimeId, Arc<Vec<PriceRevisionDoc>>>,
    /// Sends their batches when the request waits for them (`dispatch`).
    dispatch: Arc<Dispatch>,
}

/// What of a seat map a field needs: its counts, or its seats too. A batch reads the union:
/// the seats of all its showtimes if any asks for seats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SeatMapPart {
    Counts,
    Seats,
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
        let dispatch = Dispatch::new();
        let d = &dispatch;
        Loaders {
            cinemas: by_id!(store, cinemas_by_ids, CinemaId).dispatched_by(d),
            halls: by_id!(store, halls_by_ids, HallId).dispatched_by(d),
            movies: by_id!(store, movies_by_ids, MovieId).dispatched_by(d),
            details: details(store).dispatched_by(d),
            reviews: by_id!(store, reviews_by_ids, ReviewId).dispatched_by(d),
            showtimes: by_id!(store, showtimes_by_ids, ShowtimeId).dispatched_by(d),
            seat_maps: seat_maps(store).dispatched_by(d),
            regions: by_id!(store, regions_by_ids, RegionId).dispatched_by(d),
            orders: by_id!(store, orders_by_ids, OrderId).dispatched_by(d),
            price_history: price_history(store).dispatched_by(d),
            dispatch,
        }
    }

    /// What a driver of the request needs (`dispatch::Driven`), and a feature's own loader
    /// sent with these.
    pub fn dispatch(&self) -> &Arc<Dispatch> {
        &self.dispatch
    }
}

/// The price-history loader: one `find` of the revisions of every showtime of the batch.
fn price_history(store: &Store) -> BatchLoader<ShowtimeId, Arc<Vec<PriceRevisionDoc>>> {
    let store = store.clone();
    BatchLoader::new(move |keys: Vec<ShowtimeId>| {
        let store = store.clone();
        Box::pin(async move {
            let mut by_showtime: HashMap<ShowtimeId, Vec<PriceRevisionDoc>> = HashMap::new();
            for revision in store.price_revisions(&keys, MAX_PRICE_REVISIONS).await? {
                by_showtime
                    .entry(revision.showtime_id)
                    .or_default()
                    .push(revision);
            }
            Ok(by_showtime
                .into_iter()
                .map(|(id, revisions)| (id, Arc::new(revisions)))
                .collect())
        })
    })
}

/// The movie-details loader: one `find` per batch, projected to the union of the fields its
/// keys ask for.
fn details(store: &Store) -> BatchLoader<(MovieId, DetailFields), Arc<MovieDetailsDoc>> {
    let store = store.clone();
    BatchLoader::new(move |keys: Vec<(MovieId, DetailFields)>| {
        let store = store.clone();
        Box::pin(async move {
            let fields = keys
                .iter()
                .fold(DetailFields::default(), |all, (_, fields)| all | *fields);
            let mut ids: Vec<MovieId> = keys.iter().map(|(id, _)| *id).collect();
            ids.sort_unstable();
            ids.dedup();
            let docs = store.movie_details_by_ids(&ids, fields).await?;
            Ok(by_key(keys, docs, |doc| doc.id))
        })
    })
}

/// Each key of a batch with the document of its id.
fn by_key<I, P, D>(keys: Vec<(I, P)>, docs: Vec<D>, id: fn(&D) -> I) -> HashMap<(I, P), Arc<D>>
where
    I: Copy + Eq + Hash,
    P: Eq + Hash,
{
    let docs: HashMap<I, Arc<D>> = docs
        .into_iter()
        .map(|doc| (id(&doc), Arc::new(doc)))
        .collect();
    keys.into_iter()
        .filter_map(|key| {
            let doc = Arc::clone(docs.get(&key.0)?);
            Some((key, doc))
        })
        .collect()
}

/// The seat-map loader: one `find` per batch, projected to what its keys ask for.
fn seat_maps(store: &Store) -> BatchLoader<(ShowtimeId, SeatMapPart), Arc<SeatMapDoc>> {
    let store = store.clone();
    BatchLoader::new(move |keys: Vec<(ShowtimeId, SeatMapPart)>| {
        let store = store.clone();
        Box::pin(async move {
            let with_seats = keys.iter().any(|(_, part)| *part == SeatMapPart::Seats);
            let mut ids: Vec<ShowtimeId> = keys.iter().map(|(id, _)| *id).collect();
            ids.sort_unstable();
            ids.dedup();
            let docs = store.seat_maps_by_showtime_ids(&ids, with_seats).await?;
            Ok(by_key(keys, docs, |doc| doc.id))
        })
    })
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
loaded_by!(RegionDoc, RegionId, regions);
