//! The roster: which city each cinema is in and what it is called, decided for the whole plan
//! up front (about a hundred bytes per cinema) so cinema names are unique within a city and every
//! chunk of cinemas can then be generated on its own.

use std::collections::HashSet;

use rand::seq::SliceRandom;

use super::places::{City, BRANDS, CITIES, MALLS};
use super::random::{pick, rng, weighted_index, DemoRng, Stream};

/// Each major city gets at least this many cinemas when the plan has enough of them.
const MIN_PER_MAJOR_CITY: usize = 2;

/// One cinema's place in the country.
#[derive(Debug, Clone)]
pub struct Slot {
    pub city: &'static City,
    pub district: &'static str,
    /// The shopping centre it is in.
    pub mall: &'static str,
    /// "万达影城(浦东新区店)": unique within the city.
    pub name: String,
}

/// The slots of all the cinemas of a plan, by cinema index.
#[derive(Debug, Clone)]
pub struct Roster {
    slots: Vec<Slot>,
}

impl Roster {
    pub fn new(seed: u64, cinemas: usize) -> Self {
        let mut rng = rng(seed, Stream::Roster);
        let mut cities: Vec<usize> = cinemas_per_city(cinemas)
            .into_iter()
            .enumerate()
            .flat_map(|(city, count)| std::iter::repeat_n(city, count))
            .collect();
        // Interleave the cities so each chunk (and the progress bar) spans the country.
        cities.shuffle(&mut rng);
        let mut taken = HashSet::new();
        let slots = cities
            .into_iter()
            .map(|city| slot(&mut rng, &CITIES[city], &mut taken))
            .collect();
        Roster { slots }
    }

    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }
}

/// How many cinemas each city of [`CITIES`] gets: proportional to its weight (Sainte-Laguë
/// apportionment, which favours neither big nor small cities) after a floor for the majors.
fn cinemas_per_city(total: usize) -> Vec<usize> {
    let majors = CITIES.iter().filter(|c| c.major).count();
    let floor = MIN_PER_MAJOR_CITY.min(total / majors.max(1));
    let mut counts: Vec<usize> = CITIES
        .iter()
        .map(|c| if c.major { floor } else { 0 })
        .collect();
    let mut left = total - counts.iter().sum::<usize>();
    while left > 0 {
        let quotient = |i: usize| f64::from(CITIES[i].weight) / (2 * counts[i] + 1) as f64;
        let next = (1..CITIES.len()).fold(0, |best, i| {
            if quotient(i) > quotient(best) {
                i
            } else {
                best
            }
        });
        counts[next] += 1;
        left -= 1;
    }
    counts
}

/// A district, a brand and a mall for a cinema of `city`, named after the district alone when
/// that is still free, else after the mall, else numbered.
fn slot(rng: &mut DemoRng, city: &'static City, taken: &mut HashSet<(&str, String)>) -> Slot {
    let district = *pick(rng, city.districts);
    let brand = BRANDS[weighted_index(rng, &BRANDS.iter().map(|b| b.1).collect::<Vec<_>>())].0;
    let mall = *pick(rng, MALLS);
    let candidates = [
        format!("{brand}({district}店)"),
        format!("{brand}({district}{mall}店)"),
    ];
    let name = candidates
        .into_iter()
        .chain((2..).map(|n| format!("{brand}({district}{mall}{n}号店)")))
        .find(|name| taken.insert((city.name, name.clone())))
        .unwrap_or_default();
    Slot {
        city,
        district,
        mall,
        name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_cinemas_cover_every_major_city_twice() {
        let counts = cinemas_per_city(40);
        assert_eq!(counts.iter().sum::<usize>(), 40);
        for (city, count) in CITIES.iter().zip(&counts) {
            if city.major {
                assert!(*count >= 2, "{} has {count}", city.name);
            }
        }
    }

    #[test]
    fn large_plans_follow_the_weights() {
        let counts = cinemas_per_city(5_000);
        assert_eq!(counts.iter().sum::<usize>(), 5_000);
        let beijing = counts[0] as f64;
        let nanning = counts[CITIES.len() - 1] as f64;
        assert!(
            (beijing / nanning - 4.0).abs() < 0.1,
            "{beijing} / {nanning}"
        );
        assert_eq!(cinemas_per_city(3).iter().sum::<usize>(), 3);
    }

    #[test]
    fn names_are_unique_within_a_city() {
        let roster = Roster::new(2015, 2_000);
        let names: HashSet<_> = roster
            .slots()
            .iter()
            .map(|s| (s.city.name, s.name.as_str()))
            .collect();
        assert_eq!(names.len(), 2_000);
        assert!(roster.slots()[0].name.ends_with("店)"));
    }
}
