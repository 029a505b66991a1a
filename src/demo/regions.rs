//! The region tree of the demo: a province for each of [`CITIES`]' provinces, the cities, and
//! their districts, with ids drawn from their own stream so they are the same in every chunk.

use std::collections::HashMap;

use super::places::{City, CITIES};
use super::random::{object_id, rng, Stream};
use crate::catalogue::rules::region::RegionLevel;
use crate::domain::ids::RegionId;
use crate::store::documents::RegionDoc;

/// Every region of the demo, and the path of each (city, district) for its cinemas.
#[derive(Debug, Clone)]
pub struct Regions {
    docs: Vec<RegionDoc>,
    /// `[province, city, district]` by (city name, district name).
    paths: HashMap<(&'static str, &'static str), Vec<RegionId>>,
}

impl Regions {
    pub fn new(seed: u64) -> Self {
        let mut rng = rng(seed, Stream::Regions);
        let mut docs: Vec<RegionDoc> = Vec::new();
        let mut provinces: HashMap<&str, usize> = HashMap::new();
        let mut paths = HashMap::new();
        for city in CITIES {
            let province = *provinces.entry(city.province).or_insert_with(|| {
                let id = RegionId(object_id(&mut rng));
                docs.push(RegionDoc::new(
                    id,
                    city.province,
                    RegionLevel::Province,
                    None,
                ));
                docs.len() - 1
            });
            let city_doc = RegionDoc::new(
                RegionId(object_id(&mut rng)),
                city.name,
                RegionLevel::City,
                Some(&docs[province]),
            );
            for district in city.districts {
                let district_doc = RegionDoc::new(
                    RegionId(object_id(&mut rng)),
                    district,
                    RegionLevel::District,
                    Some(&city_doc),
                );
                paths.insert((city.name, *district), district_doc.path());
                docs.push(district_doc);
            }
            docs.push(city_doc);
        }
        Regions { docs, paths }
    }

    /// Every province, city and district.
    pub fn docs(&self) -> &[RegionDoc] {
        &self.docs
    }

    /// The region path of a cinema in `district` of `city`: `[province, city, district]`.
    pub fn path(&self, city: &City, district: &str) -> Vec<RegionId> {
        self.paths
            .get(&(city.name, district))
            .cloned()
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_district_has_a_path_of_three_whose_ancestors_are_regions() {
        let regions = Regions::new(2015);
        let by_id: HashMap<RegionId, &RegionDoc> =
            regions.docs().iter().map(|r| (r.id, r)).collect();
        assert_eq!(by_id.len(), regions.docs().len(), "ids are unique");
        for city in CITIES {
            for district in city.districts {
                let path = regions.path(city, district);
                assert_eq!(path.len(), 3, "{} {district}", city.name);
                let names: Vec<&str> = path.iter().map(|id| by_id[id].name.as_str()).collect();
                assert_eq!(names, [city.province, city.name, district]);
                assert_eq!(by_id[&path[2]].ancestors, path[..2]);
            }
        }
        let provinces = regions
            .docs()
            .iter()
            .filter(|r| r.level == RegionLevel::Province)
            .count();
        assert_eq!(provinces, 20);
        assert_eq!(
            regions.path(&CITIES[0], "朝阳区"),
            Regions::new(2015).path(&CITIES[0], "朝阳区"),
            "the same seed, the same ids"
        );
    }
}
