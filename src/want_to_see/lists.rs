//! Want-to-see lists (`want_to_see::rules`): marking and unmarking a movie for a channel's
//! customer, kept in step on both sides, and the repair pass that finishes what a crash left
//! between them.
//!
//! A mark: take the movie's next sequence number (its bucket); put the movie on the customer's
//! list, ADDING; put the customer in the movie's bucket; make the entry DONE. An unmark: the
//! entry becomes REMOVING; take the customer out of the bucket; take the entry off the list.
//! Every movie-side write names the mark (`op`) it concerns, so a late attempt, a repair and
//! a racing unmark never undo one another's work: when a mark finds its entry gone or being
//! removed after writing the movie's side, it takes its own movie-side entry back out.

use std::time::Duration;

use super::rules::{bucket_of, time_key, wanter};
use super::store::documents::{WantState, WantedMovieDoc, WanterDoc};
use super::store::Listed;
use crate::domain::cursor::{self, Cursor};
use crate::domain::customer::CustomerId;
use crate::domain::ids::MovieId;
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::{self, CrashPoint, PausePoint, Store};

/// How old an attempt in flight must be before the repair pass finishes it: far longer than
/// a live request takes (a request that is still running finishes it the same way).
pub const REPAIR_AFTER: Duration = Duration::from_secs(30);

/// Marks `movie` for `customer` of `channel`; returns its entry, and whether this call put it
/// on the list (false when it was there already). Marking it again changes nothing.
#[tracing::instrument(skip(store))]
pub async fn mark_want_to_see(
    store: &Store,
    channel: &str,
    customer: &CustomerId,
    movie: MovieId,
) -> Result<(WantedMovieDoc, bool), ApiError> {
    let movie_doc = store
        .movies_by_ids(&[movie])
        .await?
        .pop()
        .ok_or_else(|| ApiError::not_found(format!("no movie {movie}")))?;
    let who = wanter(channel, customer);
    // Again after helping an unmark in flight to its end; a few times at most.
    for _ in 0..4 {
        let counts = store.next_mark(movie).await?;
        let bucket = bucket_of(counts.next - 1);
        if bucket > 0 && !counts.outlier {
            store.flag_want_outlier(movie).await?;
        }
        let at = store::now();
        let entry = WantedMovieDoc {
            movie,
            title: movie_doc.title.clone(),
            at,
            key: time_key(at, &movie.to_string()),
            op: store::new_id(),
            state: WantState::Adding,
            bucket,
            since: Some(at),
        };
        match store
            .list_wanted_movie(&who, channel, customer.as_str(), &entry)
            .await?
        {
            Listed::Added => {
                store.crash_point(CrashPoint::MarkBetweenSides)?;
                store.pause_point(PausePoint::MarkBetweenSides).await;
                finish_mark(store, &who, &entry).await?;
                return Ok((entry.done(), true));
            }
            Listed::There(there) if there.state == WantState::Done => return Ok((there, false)),
            Listed::There(there) if there.state == WantState::Adding => {
                // A mark still running (a double tap), or one that stopped half way: finish
                // it. Not counted here: the running one counts itself; a stopped one is left
                // to the reconciliation of the shown counts.
                finish_mark(store, &who, &there).await?;
                return Ok((there.done(), false));
            }
            Listed::There(removing) => finish_unmark(store, &who, &removing).await?,
            Listed::Full => {
                return Err(ApiError::bad_input(format!(
                    "the customer already wants to see {} movies, the most one list holds",
                    crate::want_to_see::rules::MAX_MOVIES_PER_CUSTOMER
                )))
            }
        }
    }
    Err(ApiError::unavailable(
        "the movie was being taken off this customer's list; try again",
    ))
}

/// Takes `movie` off `customer`'s list; false when it was not on it.
#[tracing::instrument(skip(store))]
pub async fn unmark_want_to_see(
    store: &Store,
    channel: &str,
    customer: &CustomerId,
    movie: MovieId,
) -> Result<bool, ApiError> {
    let who = wanter(channel, customer);
    let Some(entry) = store.start_unlisting(&who, movie, store::now()).await? else {
        return Ok(false);
    };
    store.crash_point(CrashPoint::UnmarkBetweenSides)?;
    store.pause_point(PausePoint::UnmarkBetweenSides).await;
    finish_unmark(store, &who, &entry).await?;
    Ok(true)
}

/// The movie's side of a mark listed ADDING, then DONE; when the entry is no longer this
/// mark's (an unmark took it), the movie's side is taken back out.
async fn finish_mark(store: &Store, who: &str, entry: &WantedMovieDoc) -> Result<(), ApiError> {
    let wanter_doc = WanterDoc {
        wanter: who.to_owned(),
        at: entry.at,
        key: time_key(entry.at, who),
        op: entry.op,
    };
    store
        .add_wanter(entry.movie, entry.bucket, &wanter_doc)
        .await?;
    if !store.finish_listing(who, entry.movie, entry.op).await? {
        store
            .remove_wanter(entry.movie, entry.bucket, who, entry.op)
            .await?;
    }
    Ok(())
}

/// The rest of an unmark whose entry says REMOVING.
async fn finish_unmark(store: &Store, who: &str, entry: &WantedMovieDoc) -> Result<(), ApiError> {
    store
        .remove_wanter(entry.movie, entry.bucket, who, entry.op)
        .await?;
    store.unlist_wanted_movie(who, entry.movie, entry.op).await
}

/// Finishes the marks and unmarks in flight for longer than `grace` ([`REPAIR_AFTER`] in the
/// background pass: their gateway died between the two sides); returns how many.
#[tracing::instrument(skip(store))]
pub async fn repair_want_lists(store: &Store, grace: Duration) -> Result<usize, ApiError> {
    let before = store::now() - chrono::Duration::from_std(grace).expect("a duration");
    let mut repaired = 0;
    for list in store.lists_in_flight(before, 100).await? {
        for entry in list
            .movies
            .iter()
            .filter(|e| e.since.is_some_and(|s| s < before))
        {
            match entry.state {
                WantState::Adding => finish_mark(store, &list.wanter, entry).await?,
                WantState::Removing => finish_unmark(store, &list.wanter, entry).await?,
                WantState::Done => continue,
            }
            repaired += 1;
        }
    }
    Ok(repaired)
}

/// A page of `customer`'s list, newest first (a movie being taken off is not on it).
#[tracing::instrument(skip(store))]
pub async fn want_list_page(
    store: &Store,
    channel: &str,
    customer: &CustomerId,
    page: &PageRequest,
) -> Result<Page<WantedMovieDoc>, ApiError> {
    let after = page
        .after
        .as_deref()
        .map(|after| cursor::decode::<String>("wantToSee", after))
        .transpose()?;
    let mut movies: Vec<WantedMovieDoc> = store
        .want_list(&wanter(channel, customer))
        .await?
        .map(|list| list.movies)
        .unwrap_or_default()
        .into_iter()
        .filter(|entry| entry.state != WantState::Removing)
        .filter(|entry| after.as_ref().is_none_or(|after| &entry.key < after))
        .collect();
    movies.sort_by(|a, b| b.key.cmp(&a.key));
    movies.truncate(page.first + 1);
    Ok(Page::from_fetched(movies, page, |entry| {
        Cursor::new("wantToSee", entry.key.clone())
    }))
}

/// Where a page of a movie's wanters starts: the bucket, and the key the previous page ended
/// at in it.
#[derive(serde::Serialize, serde::Deserialize)]
struct WanterKey(i64, String);

/// Buckets read at once while a page of wanters fills.
const BUCKETS_PER_READ: usize = 2;

/// A page of `movie`'s wanters, newest first by bucket, then by time within a bucket; each
/// with its bucket.
#[tracing::instrument(skip(store))]
pub async fn wanters_page(
    store: &Store,
    movie: MovieId,
    page: &PageRequest,
) -> Result<Page<(i64, WanterDoc)>, ApiError> {
    let after = page
        .after
        .as_deref()
        .map(|after| cursor::decode::<WanterKey>("movieWanters", after))
        .transpose()?;
    let mut from = match &after {
        Some(WanterKey(bucket, _)) => *bucket,
        None => {
            let counts = store.want_counts(movie).await?;
            if counts.next == 0 {
                return Ok(Page::from_fetched(Vec::new(), page, |_| {
                    Cursor::lazy(String::new)
                }));
            }
            bucket_of(counts.next - 1)
        }
    };
    let mut found: Vec<(i64, WanterDoc)> = Vec::new();
    while found.len() <= page.first && from >= 0 {
        let buckets = store.wanter_buckets(movie, from, BUCKETS_PER_READ).await?;
        let Some(last) = buckets.last().map(|b| b.bucket) else {
            break;
        };
        for bucket in buckets {
            let mut entries: Vec<WanterDoc> = bucket
                .entries
                .into_iter()
                .filter(|entry| match &after {
                    Some(WanterKey(b, key)) if *b == bucket.bucket => &entry.key < key,
                    _ => true,
                })
                .collect();
            entries.sort_by(|a, b| b.key.cmp(&a.key));
            found.extend(entries.into_iter().map(|entry| (bucket.bucket, entry)));
        }
        from = last - 1;
    }
    found.truncate(page.first + 1);
    Ok(Page::from_fetched(found, page, |(bucket, entry)| {
        Cursor::new("movieWanters", WanterKey(*bucket, entry.key.clone()))
    }))
}
