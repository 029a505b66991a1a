//! The generator: the plan-wide part (channels, movies, the roster of cinemas) is made once,
//! then cinemas in chunks of any size. It is pure, so tests check it without a database, and
//! memory stays bounded by one chunk however large the plan.

use std::ops::Range;

use super::cinemas::add_cinema;
use super::movies::movies;
use super::pricing::channel_docs;
use super::random::{rng, Stream};
use super::regions::Regions;
use super::roster::Roster;
use super::showtimes::Lineup;
use super::DemoPlan;
use crate::catalogue::CatalogueBatch;

/// Generates the catalogue of a plan.
#[derive(Debug, Clone)]
pub struct Generator {
    plan: DemoPlan,
    lineup: Lineup,
    roster: Roster,
    regions: Regions,
}

impl Generator {
    /// The generator of `plan`, and the first batch to write: the channels, the regions, and the
    /// movies with their details and reviews.
    pub fn new(plan: &DemoPlan) -> (Self, CatalogueBatch) {
        let (movies, lineup) = movies(&mut rng(plan.seed, Stream::Movies), plan.start_day);
        let regions = Regions::new(plan.seed);
        let batch = CatalogueBatch {
            channels: channel_docs(plan.seed),
            regions: regions.docs().to_vec(),
            movies: movies.movies,
            movie_details: movies.details,
            reviews: movies.reviews,
            ..CatalogueBatch::default()
        };
        let generator = Generator {
            plan: plan.clone(),
            lineup,
            roster: Roster::new(plan.seed, plan.cinemas),
            regions,
        };
        (generator, batch)
    }

    /// The cinemas with indexes in `range` (within `0..plan.cinemas`) with their halls,
    /// showtimes and seat inventories. A cinema is the same whatever chunk it is made in.
    pub fn cinemas(&self, range: Range<usize>) -> CatalogueBatch {
        let mut batch = CatalogueBatch::default();
        for index in range {
            add_cinema(
                &mut batch,
                &self.plan,
                &self.lineup,
                index,
                &self.roster.slots()[index],
                &self.regions,
            );
        }
        batch
    }

    /// The plan's cinema indexes in chunks of `size` (at least one).
    pub fn chunks(&self, size: usize) -> impl Iterator<Item = Range<usize>> + use<> {
        let (total, size) = (self.plan.cinemas, size.max(1));
        (0..total)
            .step_by(size)
            .map(move |start| start..(start + size).min(total))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use chrono::NaiveDate;
    use serde::Serialize;

    use super::*;

    fn plan(seed: u64) -> DemoPlan {
        DemoPlan {
            start_day: NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
            seed,
            ..DemoPlan::small()
        }
    }

    /// Every document of a batch as BSON bytes, collection by collection.
    fn stored_bytes(batch: &CatalogueBatch) -> Vec<Vec<u8>> {
        fn each<T: Serialize>(docs: &[T]) -> impl Iterator<Item = Vec<u8>> + '_ {
            docs.iter()
                .map(|doc| serde_json::to_vec(doc).expect("documents serialize"))
        }
        each(&batch.channels)
            .chain(each(&batch.regions))
            .chain(each(&batch.cinemas))
            .chain(each(&batch.halls))
            .chain(each(&batch.movies))
            .chain(each(&batch.movie_details))
            .chain(each(&batch.reviews))
            .chain(each(&batch.showtimes))
            .collect()
    }

    fn first_chunk(seed: u64) -> Vec<Vec<u8>> {
        let (generator, first) = Generator::new(&plan(seed));
        let mut bytes = stored_bytes(&first);
        bytes.extend(stored_bytes(&generator.cinemas(0..25)));
        bytes
    }

    #[test]
    fn the_same_seed_gives_the_same_bytes_and_another_seed_others() {
        let once = first_chunk(2015);
        assert_eq!(once, first_chunk(2015));
        let other = first_chunk(2016);
        assert_ne!(once, other);
        let ids = |seed| {
            let (generator, first) = Generator::new(&plan(seed));
            let cinemas = generator.cinemas(0..1).cinemas;
            first
                .movies
                .iter()
                .map(|m| m.id.0)
                .chain(cinemas.iter().map(|c| c.id.0))
                .collect::<HashSet<_>>()
        };
        assert!(ids(2015).is_disjoint(&ids(2016)), "ids come from the seed");
    }

    #[test]
    fn chunking_does_not_change_the_cinemas() {
        let (generator, _) = Generator::new(&plan(2015));
        let mut chunked = CatalogueBatch::default();
        for range in generator.chunks(7) {
            let chunk = generator.cinemas(range);
            chunked.cinemas.extend(chunk.cinemas);
            chunked.halls.extend(chunk.halls);
            chunked.showtimes.extend(chunk.showtimes);
        }
        assert_eq!(
            stored_bytes(&chunked),
            stored_bytes(&generator.cinemas(0..40))
        );
    }
}
