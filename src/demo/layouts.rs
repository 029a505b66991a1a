//! Hall layouts of varied shapes: narrower front rows, one or two aisles, wheelchair places at
//! the end of a front row, vip seats in the middle rows and couple seats in the back row.
//!
//! Each size class bounds rows and widths so that every shape it can draw holds between
//! [`MIN_SEATS`] and [`MAX_SEATS`] seats; nothing is retried or clamped afterwards.

use std::ops::RangeInclusive;

use rand::Rng;

use super::random::DemoRng;
use crate::domain::layout::{row_label, HallLayout, LayoutRow};
use crate::domain::seat::SeatKind;

pub const MIN_SEATS: usize = 60;
pub const MAX_SEATS: usize = 400;

/// How big a hall is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Small,
    Medium,
    Large,
}

/// The bounds of a size class: the smallest is 7 rows of 8 to 12 seats (68 seats), the
/// largest 16 rows of 23 to 25 (396).
struct Bounds {
    rows: RangeInclusive<usize>,
    back_width: RangeInclusive<usize>,
    /// Seats the front row lacks on each side compared with the back row.
    taper: RangeInclusive<usize>,
    couple_chance: f64,
}

impl Size {
    fn bounds(self) -> Bounds {
        match self {
            Size::Small => Bounds {
                rows: 7..=9,
                back_width: 12..=16,
                taper: 1..=2,
                couple_chance: 0.2,
            },
            Size::Medium => Bounds {
                rows: 9..=13,
                back_width: 16..=22,
                taper: 1..=3,
                couple_chance: 0.4,
            },
            Size::Large => Bounds {
                rows: 12..=16,
                back_width: 23..=25,
                taper: 1..=3,
                couple_chance: 0.5,
            },
        }
    }
}

/// The seat counts of the rows, front first, and where the aisles are.
struct Shape {
    widths: Vec<usize>,
    /// Seat columns (0-based, over the back row's width) each preceded by an aisle.
    aisles: Vec<usize>,
    back_width: usize,
}

/// A hall layout of size `size`.
pub fn hall_layout(rng: &mut DemoRng, size: Size) -> HallLayout {
    let bounds = size.bounds();
    let shape = shape(rng, size, &bounds);
    let mut rows: Vec<LayoutRow> = shape
        .widths
        .iter()
        .enumerate()
        .map(|(index, &width)| LayoutRow {
            label: row_label(index),
            positions: row(&shape, width),
        })
        .collect();
    if rng.random_bool(0.8) {
        let front_row = rng.random_range(0..=1);
        mark_wheelchair_places(&mut rows[front_row], rng.random_range(1..=2));
    }
    if rng.random_bool(0.4) {
        let half_width = rng.random_range(3..=5);
        mark_vip_block(&mut rows, &shape, half_width);
    }
    if rng.random_bool(bounds.couple_chance) {
        if let Some(back) = rows.last_mut() {
            pair_couple_seats(back);
        }
    }
    let layout = HallLayout { rows };
    debug_assert!((MIN_SEATS..=MAX_SEATS).contains(&layout.capacity()));
    layout
}

fn shape(rng: &mut DemoRng, size: Size, bounds: &Bounds) -> Shape {
    let rows = rng.random_range(bounds.rows.clone());
    let back_width = rng.random_range(bounds.back_width.clone());
    let taper = rng.random_range(bounds.taper.clone());
    let front_width = back_width - 2 * taper;
    // Either the hall widens steadily, or a few front rows (in front of a walkway) are narrow.
    let widths = if rng.random_bool(0.7) {
        (0..rows)
            .map(|r| front_width + (back_width - front_width) * r / (rows - 1))
            .collect()
    } else {
        let narrow = rng.random_range(2..=4);
        (0..rows)
            .map(|r| if r < narrow { front_width } else { back_width })
            .collect()
    };
    Shape {
        widths,
        aisles: aisles(rng, size, back_width, taper),
        back_width,
    }
}

/// Aisle positions: small halls have one (central or to a side), large halls two side aisles
/// cutting three or four seats off each end of the front row, medium halls either.
fn aisles(rng: &mut DemoRng, size: Size, back_width: usize, taper: usize) -> Vec<usize> {
    let two = match size {
        Size::Small => false,
        Size::Medium => rng.random_bool(0.5),
        Size::Large => true,
    };
    let side = taper + rng.random_range(3..=4);
    if two {
        return vec![side, back_width - side];
    }
    match rng.random_range(0..3) {
        0 => vec![side],
        1 => vec![back_width - side],
        _ => vec![back_width / 2],
    }
}

/// The positions of a row of `width` seats centred under the back row: gaps where the
/// aisles run and, before a narrower row, where the wider rows behind it have seats.
fn row(shape: &Shape, width: usize) -> Vec<Option<SeatKind>> {
    let first = (shape.back_width - width) / 2;
    let mut positions = Vec::with_capacity(shape.back_width + shape.aisles.len());
    for column in 0..first + width {
        if shape.aisles.contains(&column) {
            positions.push(None);
        }
        positions.push((column >= first).then_some(SeatKind::Standard));
    }
    positions
}

/// The last `count` seats of the row (next to the side exit) become wheelchair places.
fn mark_wheelchair_places(row: &mut LayoutRow, count: usize) {
    for position in row.positions.iter_mut().rev().take(count).flatten() {
        *position = SeatKind::Wheelchair;
    }
}

/// The best seats, in the middle of the middle rows, become vip seats.
fn mark_vip_block(rows: &mut [LayoutRow], shape: &Shape, half_width: usize) {
    let middle = rows.len() / 2;
    let centre_column = shape.back_width / 2;
    // The position of the centre seat counts the aisles to its left.
    let centre = centre_column + shape.aisles.iter().filter(|&&a| a <= centre_column).count();
    let columns = centre.saturating_sub(half_width)..=centre + half_width;
    for row in &mut rows[middle - 1..=middle] {
        for column in columns.clone() {
            if let Some(Some(kind)) = row.positions.get_mut(column) {
                *kind = SeatKind::Vip;
            }
        }
    }
}

/// Pairs of adjacent seats between aisles become love seats; an odd seat out stays standard.
fn pair_couple_seats(row: &mut LayoutRow) {
    let mut run = 0;
    for index in 0..row.positions.len() {
        if row.positions[index].is_none() {
            run = 0;
            continue;
        }
        run += 1;
        if run % 2 == 0 {
            row.positions[index - 1] = Some(SeatKind::Couple);
            row.positions[index] = Some(SeatKind::Couple);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::random::{rng, Stream};

    fn layouts(size: Size) -> Vec<HallLayout> {
        let mut rng = rng(99, Stream::Cinema(0));
        (0..300).map(|_| hall_layout(&mut rng, size)).collect()
    }

    #[test]
    fn every_size_stays_within_the_capacity_bounds() {
        for size in [Size::Small, Size::Medium, Size::Large] {
            for layout in layouts(size) {
                layout.validate().expect("valid layout");
                assert!(
                    (MIN_SEATS..=MAX_SEATS).contains(&layout.capacity()),
                    "{size:?}"
                );
                assert!(layout.rows.iter().all(|row| row.positions.contains(&None)));
            }
        }
    }

    #[test]
    fn front_rows_are_narrower_and_aisles_line_up() {
        for layout in layouts(Size::Large) {
            let seats = |row: &LayoutRow| row.positions.iter().flatten().count();
            let (front, back) = (&layout.rows[0], layout.rows.last().unwrap());
            assert!(seats(front) < seats(back));
            let gap_columns = |row: &LayoutRow| {
                let first_seat = row.positions.iter().position(Option::is_some).unwrap();
                (first_seat..row.positions.len())
                    .filter(|&c| row.positions[c].is_none())
                    .collect::<Vec<_>>()
            };
            assert_eq!(gap_columns(front), gap_columns(back));
        }
    }

    #[test]
    fn couple_seats_come_in_pairs() {
        let mut rng = rng(5, Stream::Cinema(1));
        let mut row = LayoutRow {
            label: "A".into(),
            positions: vec![Some(SeatKind::Standard); 5],
        };
        row.positions.insert(3, None);
        pair_couple_seats(&mut row);
        use SeatKind::*;
        assert_eq!(
            row.positions,
            [
                Some(Couple),
                Some(Couple),
                Some(Standard),
                None,
                Some(Couple),
                Some(Couple)
            ]
        );
        assert!(hall_layout(&mut rng, Size::Small).validate().is_ok());
    }
}
