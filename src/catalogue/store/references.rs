//! Bringing the copies that showtimes hold of a cinema, a hall or a movie (extended
//! references) up to date after the source changed.
//!
//! A source carries `refVersion` (one more with every change to a copied field) and, while its
//! copies are being brought up to date, `refPending: true` (sparse index `ref_pending`). Each
//! showtime's copy carries the version it holds (`cinema.v`, `theater.v`, `movie.v`; absent:
//! never propagated, older than any). A propagation of version `n` is ONE `updateMany` over
//! the source's future showtimes whose copy is older than `n`, so a late propagation of an
//! older version matches nothing where a newer one passed; then the marker is cleared with
//! `refVersion: n` in the filter, so a newer change's marker stays until its own propagation.
//! Past showtimes and orders (their own snapshot) are never touched.

use bson::{doc, Document};
use mongodb::options::Hint;
use serde::Deserialize;

use crate::domain::ids::{CinemaId, HallId, MovieId};
use crate::error::ApiError;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::{names, Store};

/// What showtimes copy of one source document.
#[derive(Debug, Clone, PartialEq)]
pub enum Copied {
    Cinema {
        id: CinemaId,
        name: String,
        city: String,
    },
    Hall {
        id: HallId,
        name: String,
        format: String,
    },
    Movie {
        id: MovieId,
        title: String,
        runtime_minutes: i32,
    },
}

/// The copied fields of a source as of one of its reference versions.
#[derive(Debug, Clone, PartialEq)]
pub struct Propagation {
    pub copied: Copied,
    pub version: i64,
}

impl Copied {
    /// The index that leads with the copy's id: named as a hint, since the planner otherwise
    /// may choose `starts` (every future showtime of every source) for the `startsAt` range.
    fn index(&self) -> &'static str {
        match self {
            Copied::Cinema { .. } => "cinema_starts",
            Copied::Hall { .. } => "theater_starts",
            Copied::Movie { .. } => "movie_city_starts",
        }
    }

    /// The source's collection, the showtime field that holds the copy, the source's id, and
    /// the copy's fields as `$set` entries.
    fn target(&self) -> (&'static str, &'static str, bson::oid::ObjectId, Document) {
        match self {
            Copied::Cinema { id, name, city } => (
                names::CINEMAS,
                "cinema",
                id.oid(),
                doc! { "cinema.name": name, "cinema.city": city },
            ),
            Copied::Hall { id, name, format } => (
                names::THEATERS,
                "theater",
                id.oid(),
                doc! { "theater.name": name, "theater.format": format },
            ),
            Copied::Movie {
                id,
                title,
                runtime_minutes,
            } => (
                names::MOVIES,
                "movie",
                id.oid(),
                doc! { "movie.title": title, "movie.runtimeMinutes": runtime_minutes },
            ),
        }
    }
}

/// A source with a pending propagation, as the background pass reads it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pending {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    #[serde(default)]
    ref_version: i64,
    #[serde(default)]
    name: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    format: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    runtime_minutes: i32,
}

/// The fields of a source that `Pending` reads.
static PENDING_FIELDS: std::sync::LazyLock<Document> = std::sync::LazyLock::new(|| {
    doc! {
        "refVersion": 1, "name": 1, "city": 1, "format": 1, "title": 1, "runtimeMinutes": 1,
    }
});

impl Pending {
    /// Its copied fields at its version, as a propagation.
    fn into_propagation(self, collection: &str) -> Propagation {
        let bytes = self.id.bytes();
        let copied = match collection {
            names::CINEMAS => Copied::Cinema {
                id: CinemaId(bytes),
                name: self.name,
                city: self.city,
            },
            names::THEATERS => Copied::Hall {
                id: HallId(bytes),
                name: self.name,
                format: self.format,
            },
            _ => Copied::Movie {
                id: MovieId(bytes),
                title: self.title,
                runtime_minutes: self.runtime_minutes,
            },
        };
        Propagation {
            copied,
            version: self.ref_version,
        }
    }
}

/// How many pending sources of each collection one pass reads.
const PENDING_BATCH: i64 = 100;

impl Store {
    /// Writes `propagation`'s copy into every future showtime of its source whose copy is
    /// older, then clears the source's marker if it is still at that version. Returns how many
    /// showtimes changed.
    #[tracing::instrument(skip(self))]
    pub async fn propagate(&self, propagation: &Propagation) -> Result<u64, ApiError> {
        let (collection, field, id, mut set) = propagation.copied.target();
        let version = propagation.version;
        let v = format!("{field}.v");
        set.insert(&v, version);
        // `$not: {$gte}` rather than `$lt`: a copy without a version is older than any.
        let filter = doc! {
            format!("{field}.id"): id,
            "startsAt": { "$gt": codec::date(crate::store::now()) },
            &v: { "$not": { "$gte": version } },
        };
        let changed = self
            .bounded(
                Call::new(names::SHOWTIMES, "update"),
                self.collection::<Document>(names::SHOWTIMES)
                    .update_many(filter, doc! { "$set": set })
                    .hint(Hint::Name(propagation.copied.index().to_owned())),
            )
            .await?
            .modified_count;
        self.bounded(
            Call::new(collection, "update"),
            self.collection::<Document>(collection).update_one(
                doc! { "_id": id, "refVersion": version, "refPending": true },
                doc! { "$unset": { "refPending": "" } },
            ),
        )
        .await?;
        Ok(changed)
    }

    /// Brings one showtime's copies up to its sources' current values, where a source has
    /// changed since (`refVersion` above the copy's): what a showtime scheduled while a rename
    /// ran needs, since the rename's own propagation may have passed before it was inserted.
    /// Returns how many copies changed.
    #[tracing::instrument(skip(self))]
    pub async fn refresh_copies(
        &self,
        showtime: crate::domain::ids::ShowtimeId,
        cinema: CinemaId,
        hall: HallId,
        movie: MovieId,
    ) -> Result<u64, ApiError> {
        let mut changed = 0;
        for (collection, id) in [
            (names::CINEMAS, cinema.oid()),
            (names::THEATERS, hall.oid()),
            (names::MOVIES, movie.oid()),
        ] {
            let source: Option<Pending> = self
                .bounded(
                    Call::new(collection, "find"),
                    self.collection::<Pending>(collection)
                        .find_one(doc! { "_id": id })
                        .projection(PENDING_FIELDS.clone()),
                )
                .await?;
            let Some(propagation) = source
                .filter(|source| source.ref_version > 0)
                .map(|source| source.into_propagation(collection))
            else {
                continue;
            };
            let (_, field, _, mut set) = propagation.copied.target();
            let v = format!("{field}.v");
            set.insert(&v, propagation.version);
            changed += self
                .bounded(
                    Call::new(names::SHOWTIMES, "update"),
                    self.collection::<Document>(names::SHOWTIMES).update_one(
                        doc! { "_id": showtime.oid(), &v: { "$not": { "$gte": propagation.version } } },
                        doc! { "$set": set },
                    ),
                )
                .await?
                .modified_count;
        }
        Ok(changed)
    }

    /// The sources whose propagation has not finished (a gateway died between the source's
    /// update and its propagation, or the propagation failed): up to 100 of each collection,
    /// with their current copied fields and version.
    #[tracing::instrument(skip(self))]
    pub async fn pending_propagations(&self) -> Result<Vec<Propagation>, ApiError> {
        use futures::TryStreamExt;
        let mut found = Vec::new();
        for collection in [names::CINEMAS, names::THEATERS, names::MOVIES] {
            let pending: Vec<Pending> = self
                .bounded(Call::new(collection, "find"), async {
                    self.collection::<Pending>(collection)
                        .find(doc! { "refPending": true })
                        .projection(PENDING_FIELDS.clone())
                        .limit(PENDING_BATCH)
                        .await?
                        .try_collect()
                        .await
                })
                .await?;
            found.extend(
                pending
                    .into_iter()
                    .map(|source| source.into_propagation(collection)),
            );
        }
        Ok(found)
    }
}
