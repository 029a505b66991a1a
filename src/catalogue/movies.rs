//! Creating and changing movies (subset pattern: `movies` holds what lists show, `movie_details`
//! the rest). A movie belongs to no cinema, so only the platform operator writes movies; a
//! chain is FORBIDDEN.

use serde::Serialize;

use super::references::propagate_now;
use crate::catalogue::{Copied, DetailsChanges, MovieChanges, Propagation};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::operators::{self, record, Audited, Keyed};
use crate::store::documents::{MovieDetailsDoc, MovieDoc, RatingSummary, SalesDoc, SCHEMA_VERSION};
use crate::store::Store;

/// FORBIDDEN unless `operator` is the platform's.
async fn platform_only(store: &Store, operator: &str) -> Result<(), ApiError> {
    if operators::is_platform(store, operator).await? {
        Ok(())
    } else {
        Err(ApiError::forbidden(format!(
            "operator `{operator}` may not write movies: a movie belongs to no cinema, so only \
             the platform operator writes movies"
        )))
    }
}

/// Creates a movie from its checked summary and details (ids, ratings, reviews and sales are
/// the store's: a new movie has none).
pub async fn create_movie(
    keyed: Keyed<'_, impl Serialize>,
    summary: MovieDoc,
    details: MovieDetailsDoc,
) -> Result<MovieId, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    platform_only(store, operator).await?;
    keyed
        .once("createMovie", |attempt| {
            let (mut summary, mut details) = (summary.clone(), details.clone());
            async move {
                let id = MovieId(attempt.resource_id().0);
                summary.id = id;
                summary.schema_version = SCHEMA_VERSION;
                summary.rating = RatingSummary {
                    average: 0.0,
                    count: 0,
                };
                summary.recent_reviews = Vec::new();
                summary.sales = SalesDoc::default();
                details.id = id;
                details.schema_version = SCHEMA_VERSION;
                store
                    .insert_movies(
                        std::slice::from_ref(&summary),
                        std::slice::from_ref(&details),
                    )
                    .await?;
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "createMovie",
                        cinema: None,
                        subject: GlobalId::Movie(id),
                        before: None,
                        after: Audited::fields(
                            &summary,
                            &["title", "originalTitle", "year", "runtimeMinutes", "genres"],
                        ),
                    },
                )
                .await?;
                Ok(id)
            }
        })
        .await
}

/// Changes a movie's summary and/or details. A new title or runtime reaches the future
/// showtimes' copies (a runtime changes the copy only: a scheduled showtime keeps its slot).
pub async fn update_movie(
    keyed: Keyed<'_, impl Serialize>,
    movie: MovieId,
    summary: MovieChanges,
    details: DetailsChanges,
) -> Result<MovieId, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    platform_only(store, operator).await?;
    if summary.is_empty() && details.is_empty() {
        return Err(ApiError::bad_input(
            "nothing to change: give at least one field of the movie",
        ));
    }
    let not_found = || {
        ApiError::not_found(format!(
            "movie {} does not exist",
            GlobalId::Movie(movie).encode()
        ))
    };
    keyed
        .once("updateMovie", |attempt| {
            let (summary, details, fence) = (&summary, &details, keyed.fence(attempt));
            async move {
                let mut before = serde_json::Map::new();
                let mut after = serde_json::Map::new();
                let mut propagation = None;
                if summary.is_empty() {
                    // Details alone: the movie must exist all the same.
                    if store.movies_by_ids(&[movie]).await?.is_empty() {
                        return Err(not_found());
                    }
                } else {
                    let updated = store
                        .update_movie(movie, summary, fence.as_ref())
                        .await?
                        .ok_or_else(not_found)?;
                    let written = changed_keys(summary);
                    pick(&mut before, &updated.before, &written);
                    pick(&mut after, &updated.after, &written);
                    propagation = updated.ref_version.map(|version| Propagation {
                        copied: Copied::Movie {
                            id: movie,
                            title: updated.after.title.clone(),
                            runtime_minutes: updated.after.runtime_minutes,
                        },
                        version,
                    });
                }
                if !details.is_empty() {
                    let updated = store
                        .update_movie_details(movie, details, fence.as_ref())
                        .await?
                        .ok_or_else(not_found)?;
                    let written = changed_keys(details);
                    pick(&mut before, &updated.before, &written);
                    pick(&mut after, &updated.after, &written);
                }
                propagate_now(store, propagation).await?;
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "updateMovie",
                        cinema: None,
                        subject: GlobalId::Movie(movie),
                        before: Audited::json(&before),
                        after: Audited::json(&after),
                    },
                )
                .await?;
                Ok(movie)
            }
        })
        .await
}

/// The stored names of the fields a change sets.
fn changed_keys(changes: &impl Serialize) -> Vec<String> {
    match serde_json::to_value(changes) {
        Ok(serde_json::Value::Object(fields)) => fields.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Copies the fields `keys` of `doc` into `into`.
fn pick(
    into: &mut serde_json::Map<String, serde_json::Value>,
    doc: &impl Serialize,
    keys: &[String],
) {
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(doc) {
        into.extend(fields.into_iter().filter(|(key, _)| keys.contains(key)));
    }
}
