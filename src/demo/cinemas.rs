//! One cinema with everything under it: its document, halls, showtimes and seat inventories,
//! drawn from the cinema's own random stream.

use rand::Rng;

use super::halls::halls;
use super::places::{offset, MAX_KM_FROM_CENTRE, STREETS};
use super::random::{object_id, pick, rng, DemoRng, Stream};
use super::regions::Regions;
use super::roster::Slot;
use super::showtimes::{hall_showtimes, Lineup};
use super::DemoPlan;
use crate::catalogue::CatalogueBatch;
use crate::domain::ids::CinemaId;
use crate::domain::seat::SeatKind;
use crate::store::documents::{CinemaDoc, CinemaRef, GeoJsonPoint, HallDoc, SCHEMA_VERSION};

/// Services some cinemas offer whatever their halls: (amenity, chance).
const SERVICES: [(&str, f64); 5] = [
    ("停车场", 0.7),
    ("儿童票", 0.5),
    ("餐饮", 0.6),
    ("免费WiFi", 0.4),
    ("会员卡", 0.5),
];

/// Adds the cinema `index` of `plan`, in place `slot`, to `batch`.
pub fn add_cinema(
    batch: &mut CatalogueBatch,
    plan: &DemoPlan,
    lineup: &Lineup,
    index: usize,
    slot: &Slot,
    regions: &Regions,
) {
    let mut rng = rng(plan.seed, Stream::Cinema(index));
    let id = CinemaId(object_id(&mut rng));
    let location = location(&mut rng, slot);
    let address = address(&mut rng, slot);
    let halls = halls(&mut rng, id);
    let amenities = amenities(&mut rng, &halls);
    let cinema = CinemaDoc {
        id,
        schema_version: SCHEMA_VERSION,
        name: slot.name.clone(),
        city: slot.city.name.to_owned(),
        district: slot.district.to_owned(),
        address,
        location,
        amenities,
        region_ids: regions.path(slot.city, slot.district),
        refund_policy: None,
    };
    let reference = CinemaRef {
        id,
        name: cinema.name.clone(),
        city: cinema.city.clone(),
    };
    for hall in &halls {
        for showtime in hall_showtimes(
            &mut rng,
            lineup,
            &reference,
            hall,
            plan.start_day,
            plan.days,
        ) {
            batch.showtimes.push(showtime);
        }
    }
    batch.cinemas.push(cinema);
    batch.halls.extend(halls);
}

/// Somewhere within [`MAX_KM_FROM_CENTRE`] of the city centre, denser towards the centre as
/// cinemas are.
fn location(rng: &mut DemoRng, slot: &Slot) -> GeoJsonPoint {
    let km = MAX_KM_FROM_CENTRE * rng.random_range(0.0..1.0);
    let bearing = rng.random_range(0.0..std::f64::consts::TAU);
    let (latitude, longitude) = offset(slot.city, km, bearing);
    GeoJsonPoint::new(latitude, longitude)
}

/// "浦东新区世纪大道1192号来福士广场5层": cinemas are on the top floors of shopping centres.
fn address(rng: &mut DemoRng, slot: &Slot) -> String {
    let street = pick(rng, STREETS);
    let number = rng.random_range(1..=999);
    let floor = rng.random_range(3..=7);
    format!("{}{street}{number}号{}{floor}层", slot.district, slot.mall)
}

/// What the halls offer, then services.
fn amenities(rng: &mut DemoRng, halls: &[HallDoc]) -> Vec<String> {
    let has_format = |format: &str| halls.iter().any(|h| h.format == format);
    let has_kind = |kind: SeatKind| {
        halls.iter().any(|h| {
            h.layout
                .rows
                .iter()
                .any(|r| r.positions.contains(&Some(kind)))
        })
    };
    let from_halls = [
        ("IMAX", has_format("IMAX")),
        ("杜比全景声", has_format("DOLBY")),
        ("4DX", has_format("4DX")),
        ("3D眼镜", has_format("3D") || has_format("IMAX")),
        ("情侣座", has_kind(SeatKind::Couple)),
        ("无障碍座位", has_kind(SeatKind::Wheelchair)),
    ];
    let services: Vec<bool> = SERVICES
        .iter()
        .map(|&(_, chance)| rng.random_bool(chance))
        .collect();
    from_halls
        .into_iter()
        .chain(
            SERVICES
                .iter()
                .zip(services)
                .map(|(&(name, _), offered)| (name, offered)),
        )
        .filter(|&(_, offered)| offered)
        .map(|(name, _)| name.to_owned())
        .collect()
}
