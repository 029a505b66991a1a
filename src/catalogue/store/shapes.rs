//! The checks every cinema, hall and movie passes before it is written, whoever writes it (an
//! operator's mutation or the demo generator): the domain's rules (`catalogue::rules::checks`,
//! `HallLayout::validate`), applied to the documents. A value must be stored as the rule
//! returns it (trimmed), so a check that would change it fails too. All in memory: a bulk
//! insert costs no extra round trip.

use chrono::Datelike;

use crate::catalogue::rules::checks as rules;
use crate::catalogue::rules::region::RegionLevel;
use crate::domain::global_id::GlobalId;
use crate::error::ApiError;
use crate::store::documents::{CinemaDoc, HallDoc, MovieDetailsDoc, MovieDoc, RegionDoc};

/// `value` as a rule accepts it, or the rule's error (or, when the rule would store it
/// otherwise, an error saying so).
fn same<T: PartialEq + std::fmt::Debug>(
    what: &str,
    stored: &T,
    checked: Result<T, ApiError>,
) -> Result<(), ApiError> {
    match checked {
        Ok(value) if value == *stored => Ok(()),
        Ok(value) => Err(ApiError::bad_input(format!(
            "{what} is {stored:?}, to be stored as {value:?}"
        ))),
        Err(error) => Err(error),
    }
}

/// In the error, which document broke the rule.
fn within(subject: GlobalId, check: Result<(), ApiError>) -> Result<(), ApiError> {
    check.map_err(|error| match error {
        ApiError::BadUserInput(message) => ApiError::bad_input(format!(
            "{} {}: {message}",
            subject.kind(),
            subject.encode()
        )),
        other => other,
    })
}

/// A cinema: its texts, location, amenities, and a region path of a district (province, city,
/// district) or none (cinemas written before regions existed).
pub fn check_cinema(cinema: &CinemaDoc) -> Result<(), ApiError> {
    within(GlobalId::Cinema(cinema.id), {
        let path = cinema.region_ids.len();
        same("name", &cinema.name, rules::name("name", &cinema.name))
            .and_then(|()| same("city", &cinema.city, rules::name("city", &cinema.city)))
            .and_then(|()| {
                same(
                    "district",
                    &cinema.district,
                    rules::name("district", &cinema.district),
                )
            })
            .and_then(|()| same("address", &cinema.address, rules::address(&cinema.address)))
            .and_then(|()| rules::location(cinema.location.latitude(), cinema.location.longitude()))
            .and_then(|()| {
                same(
                    "amenities",
                    &cinema.amenities,
                    rules::amenities(&cinema.amenities),
                )
            })
            .and_then(|()| match path {
                0 | 3 => Ok(()),
                _ => Err(ApiError::bad_input(format!(
                    "regionIds has {path} regions; a district's path has 3"
                ))),
            })
    })
}

/// A cinema against the regions of its path that `regions` holds: the path is a district's
/// own, and the cinema's city and district are their names.
pub fn check_cinema_regions(cinema: &CinemaDoc, regions: &[RegionDoc]) -> Result<(), ApiError> {
    let Some(district) = cinema
        .region()
        .and_then(|id| regions.iter().find(|r| r.id == id))
    else {
        return Ok(());
    };
    let city = regions
        .iter()
        .find(|r| r.level == RegionLevel::City && district.ancestors.contains(&r.id));
    let fits = district.level == RegionLevel::District
        && district.path() == cinema.region_ids
        && district.name == cinema.district
        && city.is_none_or(|city| city.name == cinema.city);
    within(
        GlobalId::Cinema(cinema.id),
        if fits {
            Ok(())
        } else {
            Err(ApiError::bad_input(format!(
                "its region path, city `{}` and district `{}` do not match the region tree",
                cinema.city, cinema.district
            )))
        },
    )
}

/// A hall: its name, format and layout (within the layout's own maximum; an operator's write
/// has checked the configured one already), and a capacity that is the layout's.
pub fn check_hall(hall: &HallDoc) -> Result<(), ApiError> {
    within(GlobalId::Hall(hall.id), {
        same("name", &hall.name, rules::hall_name(&hall.name))
            .and_then(|()| same("format", &hall.format, rules::format(&hall.format)))
            .and_then(|()| hall.layout.validate())
            .and_then(|()| {
                let seats = hall.layout.capacity();
                if usize::try_from(hall.capacity).ok() == Some(seats) {
                    Ok(())
                } else {
                    Err(ApiError::bad_input(format!(
                        "capacity {} is not the layout's {seats} seats",
                        hall.capacity
                    )))
                }
            })
    })
}

/// A movie's summary (`movies`).
pub fn check_movie(movie: &MovieDoc) -> Result<(), ApiError> {
    let this_year = chrono::Utc::now().year();
    within(GlobalId::Movie(movie.id), {
        same("title", &movie.title, rules::name("title", &movie.title))
            .and_then(|()| {
                same(
                    "originalTitle",
                    &movie.original_title,
                    rules::name("originalTitle", &movie.original_title),
                )
            })
            .and_then(|()| same("year", &movie.year, rules::year(movie.year, this_year)))
            .and_then(|()| {
                same(
                    "runtimeMinutes",
                    &movie.runtime_minutes,
                    rules::runtime_minutes(movie.runtime_minutes),
                )
            })
            .and_then(|()| same("genres", &movie.genres, rules::genres(&movie.genres)))
            .and_then(|()| {
                same(
                    "directors",
                    &movie.directors,
                    rules::people("directors", &movie.directors),
                )
            })
            .and_then(|()| {
                same(
                    "topCast",
                    &movie.top_cast,
                    rules::people("topCast", &movie.top_cast),
                )
            })
            .and_then(|()| {
                same(
                    "posterUrl",
                    &movie.poster_url,
                    rules::poster_url(&movie.poster_url),
                )
            })
    })
}

/// A movie's details (`movie_details`).
pub fn check_details(details: &MovieDetailsDoc) -> Result<(), ApiError> {
    within(GlobalId::Movie(details.id), {
        same(
            "plot",
            &details.plot,
            rules::plot("plot", &details.plot, false),
        )
        .and_then(|()| {
            same(
                "fullPlot",
                &details.full_plot,
                rules::plot("fullPlot", &details.full_plot, true),
            )
        })
        .and_then(|()| {
            same(
                "languages",
                &details.languages,
                rules::places("languages", &details.languages),
            )
        })
        .and_then(|()| {
            same(
                "countries",
                &details.countries,
                rules::places("countries", &details.countries),
            )
        })
        .and_then(|()| rules::cast_size(details.cast.len()))
        .and_then(|()| {
            details
                .cast
                .iter()
                .enumerate()
                .try_for_each(|(index, member)| {
                    same(
                        "cast",
                        &(member.name.clone(), member.character.clone()),
                        rules::cast_member(index, &member.name, &member.character),
                    )
                })
        })
    })
}
