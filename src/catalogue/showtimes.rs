//! Scheduling a showtime (`scheduleShowtime`): a hall, a movie, a start; the hall busy until
//! the end plus the configured cleaning gap; written with its seat inventory through
//! `Store::schedule_showtimes`, which keeps a hall's showtimes apart (see `catalogue::store::schedule`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::ticket_types::check_matrix;
use crate::catalogue::rules::limits::CatalogueRules;
use crate::catalogue::rules::schedule::{self, CURRENCY};
use crate::catalogue::{ScheduleRefusal, Scheduled};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{HallId, MovieId, ShowtimeId};
use crate::error::ApiError;
use crate::operators::{authorize, record, Audited, Keyed};
use crate::store::documents::{
    ChannelPriceDoc, CinemaRef, HallRef, MovieRef, ShowtimeDoc, ShowtimeStatus, TicketRuleDoc,
    SHOWTIME_SCHEMA_VERSION,
};
use crate::store::Store;

/// A showtime to schedule, its input validated (`catalogue::rules::schedule`).
#[derive(Debug, Clone)]
pub struct NewShowtime {
    pub hall: HallId,
    pub movie: MovieId,
    pub starts_at: DateTime<Utc>,
    pub language: String,
    pub prices: Vec<ChannelPriceDoc>,
    pub ticket_rules: Vec<TicketRuleDoc>,
}

/// Schedules `new` for `operator` once per idempotency key (`request` is what the key's
/// requests must repeat). NOT_FOUND for a missing hall or movie, FORBIDDEN outside the
/// operator's cinemas, BAD_USER_INPUT for an unknown channel or an overlap (naming the
/// showtime it overlaps); nothing written in each case.
pub async fn schedule_showtime(
    keyed: Keyed<'_, impl Serialize>,
    rules: &CatalogueRules,
    new: &NewShowtime,
) -> Result<ShowtimeDoc, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    let hall = store
        .halls_by_ids(&[new.hall])
        .await?
        .pop()
        .ok_or_else(|| not_found(GlobalId::Hall(new.hall)))?;
    authorize(store, operator, hall.cinema_id).await?;
    let (movie_ids, cinema_ids) = ([new.movie], [hall.cinema_id]);
    let (movies, cinemas) = tokio::try_join!(
        store.movies_by_ids(&movie_ids),
        store.cinemas_by_ids(&cinema_ids)
    )?;
    let movie = movies
        .into_iter()
        .next()
        .ok_or_else(|| not_found(GlobalId::Movie(new.movie)))?;
    let cinema = cinemas
        .into_iter()
        .next()
        .ok_or_else(|| not_found(GlobalId::Cinema(hall.cinema_id)))?;
    check_channels(store, &new.prices).await?;
    check_matrix(store, &hall, &new.prices, &new.ticket_rules).await?;
    let (ends_at, slot) = schedule::slot(new.starts_at, movie.runtime_minutes, rules.cleaning_gap)?;
    keyed
        .once("scheduleShowtime", |attempt| {
            let showtime = ShowtimeDoc {
                id: ShowtimeId(attempt.resource_id().0),
                schema_version: SHOWTIME_SCHEMA_VERSION,
                cinema: CinemaRef {
                    id: cinema.id,
                    name: cinema.name.clone(),
                    city: cinema.city.clone(),
                },
                movie: MovieRef {
                    id: movie.id,
                    title: movie.title.clone(),
                    runtime_minutes: movie.runtime_minutes,
                },
                theater: HallRef {
                    id: hall.id,
                    name: hall.name.clone(),
                    format: hall.format.clone(),
                },
                starts_at: new.starts_at,
                ends_at,
                language: new.language.clone(),
                currency: CURRENCY.to_owned(),
                prices: new.prices.clone(),
                ticket_rules: new.ticket_rules.clone(),
                status: ShowtimeStatus::Scheduled,
                price_revision: 0,
                free_at: slot.free_at,
            };
            async move {
                // An earlier attempt of this key may have scheduled it: then that is the
                // showtime, and this attempt finishes what the earlier one may have left (the
                // copies' refresh, the audit entry).
                let earlier = match attempt.taken_over() {
                    true => store.showtimes_by_ids(&[showtime.id]).await?.pop(),
                    false => None,
                };
                let showtime = match earlier {
                    Some(done) => done,
                    None => {
                        match store
                            .schedule_showtimes(std::slice::from_ref(&showtime))
                            .await?
                        {
                            Scheduled::Written | Scheduled::AlreadyThere => {}
                            Scheduled::Refused(refusal) => return Err(refused(refusal, &showtime)),
                        }
                        showtime
                    }
                };
                // The copies were read before the insert: a rename whose propagation ran in
                // between would have missed this showtime (see "Extended references stay
                // true" in ARCHITECTURE.md).
                store
                    .refresh_copies(
                        showtime.id,
                        showtime.cinema.id,
                        showtime.theater.id,
                        showtime.movie.id,
                    )
                    .await?;
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "scheduleShowtime",
                        cinema: Some(showtime.cinema.id),
                        subject: GlobalId::Showtime(showtime.id),
                        before: None,
                        after: Audited::json(&serde_json::json!({
                            "hall": GlobalId::Hall(showtime.theater.id).encode(),
                            "movie": GlobalId::Movie(showtime.movie.id).encode(),
                            "startsAt": showtime.starts_at,
                            "endsAt": showtime.ends_at,
                            "freeAt": showtime.free_at,
                            "language": showtime.language,
                            "prices": showtime.prices,
                            "refusedTicketTypes": showtime.ticket_rules,
                        })),
                    },
                )
                .await?;
                Ok(showtime)
            }
        })
        .await
}

/// BAD_USER_INPUT naming the first channel of `prices` that does not exist.
pub(super) async fn check_channels(
    store: &Store,
    prices: &[ChannelPriceDoc],
) -> Result<(), ApiError> {
    let codes: Vec<String> = prices.iter().map(|p| p.channel.to_string()).collect();
    let existing = store.existing_channel_codes(&codes).await?;
    match codes.iter().find(|code| !existing.contains(code)) {
        Some(missing) => Err(ApiError::bad_input(format!(
            "channel `{missing}` does not exist"
        ))),
        None => Ok(()),
    }
}

fn not_found(id: GlobalId) -> ApiError {
    ApiError::not_found(format!(
        "{} {} does not exist",
        id.kind().to_lowercase(),
        id.encode()
    ))
}

/// The refusal as the client sees it.
fn refused(refusal: ScheduleRefusal, showtime: &ShowtimeDoc) -> ApiError {
    match refusal {
        ScheduleRefusal::NoHall(hall) => not_found(GlobalId::Hall(hall)),
        ScheduleRefusal::Overlaps { existing, .. } => ApiError::bad_input(format!(
            "{}–{} overlaps showtime {} {}–{} in hall {} (times UTC, each with its cleaning gap)",
            showtime.starts_at.format("%Y-%m-%d %H:%M"),
            showtime.free_at.format("%H:%M"),
            GlobalId::Showtime(existing.id).encode(),
            existing.starts_at.format("%Y-%m-%d %H:%M"),
            existing.free_at.format("%H:%M"),
            existing.theater.name,
        )),
    }
}
