//! Demo data: a deterministic generator of a national cinema catalogue, and its loader.
//!
//! The same [`DemoPlan`] (seed, size and first day) always gives byte-identical documents,
//! ObjectIds included: every document is drawn from a ChaCha stream of the seed, one stream for
//! the movies, one for the roster of cinemas and one per cinema. Generation ([`Generator`]) is
//! pure; [`load`] writes its batches, a chunk of cinemas at a time, so memory stays bounded at
//! the national scale (5,000 cinemas, 240,000 showtimes a day).

mod cinemas;
mod generator;
mod halls;
mod layouts;
mod movies;
mod origin;
mod people;
mod places;
mod pricing;
mod progress;
mod random;
mod regions;
mod reviews;
mod roster;
mod showtimes;
mod titles;

#[cfg(test)]
mod tests;

use std::ops::AddAssign;
use std::sync::Arc;

use chrono::NaiveDate;
use futures::StreamExt;

pub use generator::Generator;

use crate::catalogue::CatalogueBatch;
use crate::config::{DemoArgs, Scale};
use crate::error::ApiError;
use crate::operators::rules::OperatorScope;
use crate::store::Store;
use progress::Progress;

/// Cinemas generated and written together: about 1,200 showtimes and inventories a day.
const CHUNK_CINEMAS: usize = 25;
/// Chunks written at the same time: the server works on one while the next is generated.
const CHUNKS_IN_FLIGHT: usize = 4;

/// How much to generate.
#[derive(Debug, Clone)]
pub struct DemoPlan {
    pub cinemas: usize,
    /// Days of showtimes from `start_day`.
    pub days: u32,
    pub seed: u64,
    /// The first day of showtimes (China time); reviews are from the 90 days before it.
    pub start_day: NaiveDate,
}

impl DemoPlan {
    /// 40 cinemas, 3 days from today: loads in seconds.
    pub fn small() -> Self {
        DemoPlan {
            cinemas: 40,
            days: 3,
            seed: 2015,
            start_day: random::today_in_china(),
        }
    }

    /// The preset of `args.scale` with the sizes and seed of `args`.
    pub fn from_args(args: &DemoArgs) -> Self {
        let (cinemas, days) = match args.scale {
            Scale::Small => (40, 3),
            Scale::Medium => (500, 2),
            Scale::National => (5_000, 1),
        };
        DemoPlan {
            cinemas: args.cinemas.unwrap_or(cinemas),
            days: args.days.unwrap_or(days),
            seed: args.seed,
            ..DemoPlan::small()
        }
    }
}

/// What was loaded.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// Documents inserted, in all collections.
    pub documents: usize,
    pub cinemas: usize,
    pub halls: usize,
    pub showtimes: usize,
    /// Seats for sale, over all showtimes.
    pub seats: usize,
    /// Each demo channel's code and API key, to print for the person who loaded the demo.
    pub channel_keys: Vec<(String, String)>,
    /// The demo platform operator's code and API key (it writes every cinema).
    pub operator_key: Option<(String, String)>,
}

impl Loaded {
    fn of(batch: &CatalogueBatch) -> Self {
        Loaded {
            documents: batch.document_count(),
            cinemas: batch.cinemas.len(),
            halls: batch.halls.len(),
            showtimes: batch.showtimes.len(),
            seats: batch
                .showtimes
                .iter()
                .filter_map(|s| batch.halls.iter().find(|h| h.id == s.theater.id))
                .map(|hall| hall.capacity as usize)
                .sum(),
            channel_keys: Vec::new(),
            operator_key: None,
        }
    }
}

impl AddAssign for Loaded {
    fn add_assign(&mut self, other: Loaded) {
        self.documents += other.documents;
        self.cinemas += other.cinemas;
        self.halls += other.halls;
        self.showtimes += other.showtimes;
        self.seats += other.seats;
    }
}

/// Generates the catalogue of `plan` and inserts it: channels and movies first, then the
/// cinemas chunk by chunk. With `progress`, a bar on stderr shows the cinemas written once the
/// load has taken more than a second.
#[tracing::instrument(skip_all, fields(cinemas = plan.cinemas, days = plan.days, seed = plan.seed))]
pub async fn load(store: &Store, plan: &DemoPlan, progress: bool) -> Result<Loaded, ApiError> {
    let (generator, first) = Generator::new(plan);
    store.insert_catalogue(&first).await?;
    let mut loaded = Loaded::of(&first);
    loaded.channel_keys = pricing::channel_keys(plan.seed)
        .into_iter()
        .map(|(code, key)| (code, key.as_str().to_owned()))
        .collect();
    let (code, name, key) = pricing::platform_operator(plan.seed);
    store
        .create_operator(code, name, key.hash(), &OperatorScope::All)
        .await?;
    loaded.operator_key = Some((code.to_owned(), key.as_str().to_owned()));
    drop(first);
    let mut bar = Progress::new(plan.cinemas, progress);
    let generator = Arc::new(generator);
    // A task per chunk, so that generating and encoding chunks use every core while the server
    // writes; a chunk is generated when its task starts, so at most CHUNKS_IN_FLIGHT are in
    // memory.
    let mut writes = futures::stream::iter(generator.chunks(CHUNK_CINEMAS))
        .map(|range| {
            let (generator, store) = (Arc::clone(&generator), store.clone());
            tokio::spawn(async move {
                let batch = generator.cinemas(range);
                store.insert_catalogue(&batch).await?;
                // What each cinema sells beside seats.
                let cinemas: Vec<_> = batch.cinemas.iter().map(|cinema| cinema.id).collect();
                let products = crate::concessions::insert_demo_products(&store, &cinemas).await?;
                let mut loaded = Loaded::of(&batch);
                loaded.documents += products;
                Ok::<_, ApiError>(loaded)
            })
        })
        .buffer_unordered(CHUNKS_IN_FLIGHT);
    while let Some(written) = writes.next().await {
        let chunk =
            written.map_err(|error| ApiError::internal_caused("writing demo cinemas", error))??;
        bar.advance(chunk.cinemas);
        loaded += chunk;
    }
    bar.finish();
    Ok(loaded)
}
