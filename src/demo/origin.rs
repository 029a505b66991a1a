//! Where a movie comes from: which names its people have, which languages it is spoken and
//! shown in, and its cast.

use rand::Rng;

use super::people::{chinese_name, role, western_name};
use super::random::{weighted_index, DemoRng};
use crate::store::documents::CastMemberDoc;

/// Where a movie comes from: what it is called, who is in it, which languages it is shown in.
#[derive(Debug, Clone, Copy)]
pub enum Origin {
    Mainland,
    HongKong,
    American,
    British,
}

impl Origin {
    pub fn draw(rng: &mut DemoRng) -> Self {
        [
            Origin::Mainland,
            Origin::HongKong,
            Origin::American,
            Origin::British,
        ][weighted_index(rng, &[60, 8, 24, 8])]
    }

    pub fn imported(self) -> bool {
        matches!(self, Origin::American | Origin::British)
    }

    pub fn countries(self) -> &'static [&'static str] {
        match self {
            Origin::Mainland => &["中国大陆"],
            Origin::HongKong => &["中国香港", "中国大陆"],
            Origin::American => &["美国"],
            Origin::British => &["英国", "美国"],
        }
    }

    pub fn spoken(self) -> &'static [&'static str] {
        match self {
            Origin::Mainland => &["汉语普通话"],
            Origin::HongKong => &["粤语", "汉语普通话"],
            Origin::American | Origin::British => &["英语"],
        }
    }

    /// Imported films are mostly shown in the original, sometimes dubbed.
    pub fn screened_in(self) -> &'static [&'static str] {
        match self {
            Origin::Mainland => &["国语"],
            Origin::HongKong => &["国语", "粤语"],
            Origin::American | Origin::British => &["英语", "英语", "国语"],
        }
    }

    pub fn person(self, rng: &mut DemoRng) -> String {
        if self.imported() {
            western_name(rng)
        } else {
            chinese_name(rng)
        }
    }
}

/// The full cast, leads first: 8 to 20 actors; the leads play named characters, the others
/// named characters or parts like "出租车司机".
pub fn cast(rng: &mut DemoRng, origin: Origin) -> Vec<CastMemberDoc> {
    (0..rng.random_range(8..=20))
        .map(|billing| {
            let name = origin.person(rng);
            let character = if billing < 5 || rng.random_bool(0.5) {
                origin.person(rng)
            } else {
                role(rng)
            };
            CastMemberDoc { name, character }
        })
        .collect()
}
