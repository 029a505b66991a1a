//! `showtimes`: filtered lists in start order, and the movies now showing in a city.

use bson::{doc, Bson, DateTime, Document};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, MovieId, ShowtimeId};
use crate::domain::paging::{Page, PageRequest};
use crate::domain::time_range::TimeRange;
use crate::error::ApiError;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::ShowtimeDoc;
use crate::store::{filters, names, Store};

/// Which showtimes to list; all given conditions must hold.
#[derive(Debug, Clone, Default)]
pub struct ShowtimeFilter {
    pub cinema: Option<CinemaId>,
    pub movie: Option<MovieId>,
    pub city: Option<String>,
    /// Only showtimes sold on this channel (has a price for it).
    pub channel: Option<String>,
    /// When they start.
    pub starts: TimeRange,
}

impl ShowtimeFilter {
    /// The MongoDB filter; each combination is served by one of the `showtimes` indexes.
    pub fn to_document(&self) -> Document {
        let mut query = Document::new();
        if let Some(cinema) = self.cinema {
            query.insert("cinema.id", cinema.oid());
        }
        if let Some(movie) = self.movie {
            query.insert("movie.id", movie.oid());
        }
        if let Some(city) = &self.city {
            query.insert("cinema.city", city);
        }
        if let Some(channel) = &self.channel {
            query.insert("prices.channel", channel);
        }
        let mut starts = Document::new();
        if let Some(from) = self.starts.from {
            starts.insert("$gte", DateTime::from_chrono(from));
        }
        if let Some(before) = self.starts.before {
            starts.insert("$lt", DateTime::from_chrono(before));
        }
        if !starts.is_empty() {
            query.insert("startsAt", starts);
        }
        query
    }
}

/// What of a listed showtime is read besides its references and times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShowtimeParts {
    /// Its price on each channel (up to 32 entries: most of a showtime's bytes).
    pub prices: bool,
}

#[derive(Serialize, Deserialize)]
struct StartKey(i64, ShowtimeId);

impl Store {
    #[tracing::instrument(skip(self))]
    pub async fn showtimes_by_ids(&self, ids: &[ShowtimeId]) -> Result<Vec<ShowtimeDoc>, ApiError> {
        self.find_by_ids(names::SHOWTIMES, ids).await
    }

    /// Showtimes in start order, then id, with the `parts` a reader asked for.
    #[tracing::instrument(skip(self))]
    pub async fn list_showtimes(
        &self,
        filter: &ShowtimeFilter,
        page: &PageRequest,
        parts: ShowtimeParts,
    ) -> Result<Page<ShowtimeDoc>, ApiError> {
        let projection = (!parts.prices).then(|| doc! { "prices": 0 });
        self.find_page(
            names::SHOWTIMES,
            "showtimes",
            filter.to_document(),
            doc! { "startsAt": 1, "_id": 1 },
            projection,
            page,
            |StartKey(millis, id)| {
                filters::after_ascending(
                    &["startsAt", "_id"],
                    &[DateTime::from_millis(millis).into(), id.oid().into()],
                )
            },
            |showtime: &ShowtimeDoc| StartKey(showtime.starts_at.timestamp_millis(), showtime.id),
        )
        .await
    }

    /// The movies with a showtime in `city` matching `filter`'s time range (index `city_starts`).
    #[tracing::instrument(skip(self))]
    pub async fn movies_showing_in_city(
        &self,
        city: &str,
        filter: &ShowtimeFilter,
    ) -> Result<Vec<MovieId>, ApiError> {
        let mut query = filter.to_document();
        query.insert("cinema.city", city);
        let ids = self
            .bounded(
                Call::new(names::SHOWTIMES, "distinct"),
                self.collection::<Document>(names::SHOWTIMES)
                    .distinct("movie.id", query),
            )
            .await?;
        Ok(ids
            .into_iter()
            .filter_map(|id| match id {
                Bson::ObjectId(oid) => Some(codec::id_of::<MovieId>(oid)),
                _ => None,
            })
            .collect())
    }

    /// The winning plan of the list query for `filter`, as `explain` reports it (for tests that
    /// prove each filter is served by an index).
    #[tracing::instrument(skip(self))]
    pub async fn explain_showtimes(&self, filter: &ShowtimeFilter) -> Result<Document, ApiError> {
        let explained = self
            .db()
            .run_command(doc! {
                "explain": {
                    "find": names::SHOWTIMES,
                    "filter": filter.to_document(),
                    "sort": { "startsAt": 1, "_id": 1 },
                },
                "verbosity": "queryPlanner",
            })
            .await?;
        Ok(explained
            .get_document("queryPlanner")
            .and_then(|planner| planner.get_document("winningPlan"))
            .cloned()
            .unwrap_or(explained))
    }
}
