//! The halls of a cinema: how many, their projection formats, names and seat layouts.

use rand::Rng;

use super::layouts::{hall_layout, Size};
use super::random::{object_id, weighted_index, DemoRng};
use crate::domain::ids::{CinemaId, HallId};
use crate::store::documents::{HallDoc, SCHEMA_VERSION};

/// Halls per cinema, 4 to 10, weighted so a cinema has about eight on average.
const HALL_COUNT_WEIGHTS: [(usize, u32); 7] =
    [(4, 1), (5, 1), (6, 2), (7, 4), (8, 6), (9, 5), (10, 4)];

/// A premium hall a cinema may have one of: (format, hall name, chance, size).
const PREMIUM_HALLS: [(&str, &str, f64, Size); 3] = [
    ("IMAX", "IMAX厅", 0.35, Size::Large),
    ("DOLBY", "杜比厅", 0.3, Size::Medium),
    ("4DX", "4DX厅", 0.12, Size::Small),
];

/// The halls of the cinema `cinema`: numbered regular halls, then its premium halls.
pub fn halls(rng: &mut DemoRng, cinema: CinemaId) -> Vec<HallDoc> {
    let weights: Vec<u32> = HALL_COUNT_WEIGHTS.iter().map(|w| w.1).collect();
    let count = HALL_COUNT_WEIGHTS[weighted_index(rng, &weights)].0;
    let premium: Vec<_> = PREMIUM_HALLS
        .iter()
        .filter(|(.., chance, _)| rng.random_bool(*chance))
        .collect();
    let regular = (1..=count - premium.len()).map(|number| {
        let format = if rng.random_bool(0.35) { "3D" } else { "2D" };
        let size = regular_size(rng);
        hall(rng, cinema, format!("{number}号厅"), format, size)
    });
    let mut halls: Vec<HallDoc> = regular.collect();
    for &&(format, name, _, size) in &premium {
        // A Dolby hall is sometimes as big as an IMAX one.
        let size = if size == Size::Medium && rng.random_bool(0.4) {
            Size::Large
        } else {
            size
        };
        halls.push(hall(rng, cinema, name.to_owned(), format, size));
    }
    halls
}

/// Most regular halls are medium; a few are small screening rooms or big main halls.
fn regular_size(rng: &mut DemoRng) -> Size {
    match weighted_index(rng, &[35, 50, 15]) {
        0 => Size::Small,
        1 => Size::Medium,
        _ => Size::Large,
    }
}

fn hall(rng: &mut DemoRng, cinema: CinemaId, name: String, format: &str, size: Size) -> HallDoc {
    let id = HallId(object_id(rng));
    let layout = hall_layout(rng, size);
    HallDoc {
        id,
        schema_version: SCHEMA_VERSION,
        cinema_id: cinema,
        name,
        format: format.to_owned(),
        capacity: layout.capacity() as i32,
        layout,
        schedule_version: 0,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::demo::random::{rng, Stream};

    #[test]
    fn four_to_ten_halls_with_unique_names_about_eight_on_average() {
        let mut total = 0;
        for cinema in 0..200 {
            let mut rng = rng(3, Stream::Cinema(cinema));
            let cinema = CinemaId(object_id(&mut rng));
            let halls = halls(&mut rng, cinema);
            assert!((4..=10).contains(&halls.len()));
            let names: HashSet<_> = halls.iter().map(|h| h.name.as_str()).collect();
            assert_eq!(names.len(), halls.len());
            assert!(halls
                .iter()
                .all(|h| h.capacity as usize == h.layout.capacity()));
            total += halls.len();
        }
        let average = total as f64 / 200.0;
        assert!((7.5..=8.5).contains(&average), "{average}");
    }
}
