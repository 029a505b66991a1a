//! Regions of the country as a tree of three levels: provinces (省, and the municipalities and
//! autonomous regions at that level), their cities, and the cities' districts (区).

use serde::{Deserialize, Serialize};

/// How deep a region is in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RegionLevel {
    /// 省: a province, a municipality (北京市) or an autonomous region; the roots.
    Province,
    /// 市: a city of a province.
    City,
    /// 区: a district of a city; cinemas are in districts.
    District,
}

impl RegionLevel {
    /// The level of the regions under this one; none under a district.
    pub fn child(self) -> Option<RegionLevel> {
        match self {
            RegionLevel::Province => Some(RegionLevel::City),
            RegionLevel::City => Some(RegionLevel::District),
            RegionLevel::District => None,
        }
    }

    /// How many ancestors a region of this level has.
    pub fn depth(self) -> usize {
        match self {
            RegionLevel::Province => 0,
            RegionLevel::City => 1,
            RegionLevel::District => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_nest_three_deep() {
        assert_eq!(RegionLevel::Province.child(), Some(RegionLevel::City));
        assert_eq!(RegionLevel::City.child(), Some(RegionLevel::District));
        assert_eq!(RegionLevel::District.child(), None);
        assert_eq!(RegionLevel::District.depth(), 2);
    }
}
