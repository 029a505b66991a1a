//! Updates of cinemas, halls and movies: one conditional update each, returning the document
//! as it was, so the caller knows what it replaced (see `find_and_update`). A keyed update
//! takes effect only while its attempt owns the key (`fenced_writes`).
//!
//! A change to a field that showtimes copy (extended reference: a cinema's name and city, a
//! hall's name and format, a movie's title and runtime) adds one to the source's `refVersion`
//! and sets `refPending` in the same update; `references.rs` then brings the future showtimes'
//! copies to that version and clears the marker (see ARCHITECTURE.md, "Extended references
//! stay true").

use bson::{doc, Bson, Document};
use serde::Serialize;

use crate::domain::ids::{CinemaId, HallId, MovieId, RegionId};
use crate::domain::layout::HallLayout;
use crate::error::ApiError;
use crate::idempotency::KeyFence;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::{
    CastMemberDoc, CinemaDoc, GeoJsonPoint, HallDoc, MovieDetailsDoc, MovieDoc, RefundPolicyDoc,
};
use crate::store::{names, Store};

/// A document as it was before an update and as the update left it, and the reference
/// version the update wrote when it changed a copied field.
#[derive(Debug, Clone)]
pub struct Updated<T> {
    pub before: T,
    pub after: T,
    pub ref_version: Option<i64>,
}

/// A cinema's region: its path (province, city, district) and the names it gives the cinema.
#[derive(Debug, Clone, Serialize)]
pub struct CinemaRegion {
    pub region_ids: Vec<RegionId>,
    pub city: String,
    pub district: String,
}

/// The fields of a cinema to change; `None` leaves one as it is. Checked values only.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CinemaChanges {
    pub name: Option<String>,
    pub address: Option<String>,
    pub region: Option<CinemaRegion>,
    pub location: Option<GeoJsonPoint>,
    pub amenities: Option<Vec<String>>,
    pub refund_policy: Option<RefundPolicyDoc>,
}

/// The fields of a hall to change. A new layout also sets the capacity.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HallChanges {
    pub name: Option<String>,
    pub format: Option<String>,
    pub layout: Option<HallLayout>,
}

/// The fields of a movie's summary to change.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MovieChanges {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_minutes: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub genres: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub directors: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_cast: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poster_url: Option<String>,
}

/// The fields of a movie's details to change.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailsChanges {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plot: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_plot: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub languages: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub countries: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cast: Option<Vec<CastMemberDoc>>,
}

impl MovieChanges {
    pub fn is_empty(&self) -> bool {
        bson::to_document(self).is_ok_and(|set| set.is_empty())
    }
}

impl DetailsChanges {
    pub fn is_empty(&self) -> bool {
        bson::to_document(self).is_ok_and(|set| set.is_empty())
    }
}

/// The update: `$set` the fields; when a copied field changes, the next reference version
/// and the pending marker; with `schedule`, the next schedule version.
fn update(mut set: Document, copied: bool, schedule: bool) -> Document {
    let mut inc = Document::new();
    if copied {
        set.insert("refPending", true);
        inc.insert("refVersion", 1_i64);
    }
    if schedule {
        inc.insert("scheduleVersion", 1_i64);
    }
    let mut update = doc! { "$set": set };
    if !inc.is_empty() {
        update.insert("$inc", inc);
    }
    update
}

/// `before` decoded, and the reference version an update that changed a copied field wrote
/// (the stored one plus one; `$inc` is atomic, so it is exact).
fn decoded<T: serde::de::DeserializeOwned>(
    before: Document,
    copied: bool,
) -> Result<(T, Option<i64>), ApiError> {
    let version = copied.then(|| ref_version(&before) + 1);
    Ok((bson::from_document(before)?, version))
}

/// A source document's reference version (0 before its first change).
pub(super) fn ref_version(document: &Document) -> i64 {
    match document.get("refVersion") {
        Some(Bson::Int64(v)) => *v,
        Some(Bson::Int32(v)) => i64::from(*v),
        _ => 0,
    }
}

/// How often an update of a copied field reads the source again after another changed it.
const VERSION_TRIES: usize = 10;

impl Store {
    /// Applies `update` to the document `filter` matches and returns it as it was before.
    /// When the update changes a copied field (`copied`), the version it writes must be known
    /// exactly, with the values that go with it: the document is read, then updated with the
    /// version read in the filter (`$inc` makes it one more), read again on a miss. (A
    /// `findOneAndUpdate`'s before-image was seen stale under concurrent updates on the test
    /// server; a filter on the version is what every server honours.)
    async fn find_and_update(
        &self,
        collection: &'static str,
        filter: Document,
        update: Document,
        copied: bool,
        fence: Option<&KeyFence>,
    ) -> Result<Option<Document>, ApiError> {
        if !copied {
            return self
                .fenced_find_one_and_update(collection, filter, update, fence)
                .await;
        }
        for _ in 0..VERSION_TRIES {
            let Some(read) = self
                .bounded(
                    Call::new(collection, "find"),
                    self.collection::<Document>(collection)
                        .find_one(filter.clone()),
                )
                .await?
            else {
                return Ok(None);
            };
            let mut versioned = filter.clone();
            match ref_version(&read) {
                0 => versioned.insert("refVersion", doc! { "$exists": false }),
                read => versioned.insert("refVersion", read),
            };
            if self
                .fenced_update_one(collection, versioned, update.clone(), fence)
                .await?
            {
                return Ok(Some(read));
            }
        }
        Err(ApiError::unavailable(
            "the document kept changing under the update; try again",
        ))
    }

    /// Changes a cinema; `None` when it does not exist.
    #[tracing::instrument(skip(self))]
    pub async fn update_cinema(
        &self,
        id: CinemaId,
        changes: &CinemaChanges,
        fence: Option<&KeyFence>,
    ) -> Result<Option<Updated<CinemaDoc>>, ApiError> {
        let mut set = Document::new();
        if let Some(name) = &changes.name {
            set.insert("name", name);
        }
        if let Some(address) = &changes.address {
            set.insert("address", address);
        }
        if let Some(region) = &changes.region {
            set.insert("city", &region.city);
            set.insert("district", &region.district);
            set.insert("regionIds", codec::oids(&region.region_ids));
        }
        if let Some(location) = &changes.location {
            set.insert("location", bson::to_bson(location)?);
        }
        if let Some(amenities) = &changes.amenities {
            set.insert("amenities", amenities);
        }
        if let Some(policy) = &changes.refund_policy {
            set.insert("refundPolicy", bson::to_bson(policy)?);
        }
        let copied = changes.name.is_some() || changes.region.is_some();
        let Some(before) = self
            .find_and_update(
                names::CINEMAS,
                doc! { "_id": id.oid() },
                update(set, copied, false),
                copied,
                fence,
            )
            .await?
        else {
            return Ok(None);
        };
        let (before, ref_version): (CinemaDoc, _) = decoded(before, copied)?;
        let mut after = before.clone();
        if let Some(name) = &changes.name {
            after.name.clone_from(name);
        }
        if let Some(address) = &changes.address {
            after.address.clone_from(address);
        }
        if let Some(region) = &changes.region {
            after.city.clone_from(&region.city);
            after.district.clone_from(&region.district);
            after.region_ids.clone_from(&region.region_ids);
        }
        if let Some(location) = &changes.location {
            after.location = location.clone();
        }
        if let Some(amenities) = &changes.amenities {
            after.amenities.clone_from(amenities);
        }
        if let Some(policy) = changes.refund_policy {
            after.refund_policy = Some(policy);
        }
        Ok(Some(Updated {
            before,
            after,
            ref_version,
        }))
    }

    /// Changes a hall. A new layout is written only while the hall's schedule is still at
    /// `schedule_version` (what the caller read when it found no future showtime), and moves
    /// it on by one. `None` when the hall does not exist or its schedule moved.
    #[tracing::instrument(skip(self, changes))]
    pub async fn update_hall(
        &self,
        id: HallId,
        changes: &HallChanges,
        schedule_version: i64,
        fence: Option<&KeyFence>,
    ) -> Result<Option<Updated<HallDoc>>, ApiError> {
        let mut set = Document::new();
        let mut filter = doc! { "_id": id.oid() };
        if let Some(name) = &changes.name {
            set.insert("name", name);
        }
        if let Some(format) = &changes.format {
            set.insert("format", format);
        }
        if let Some(layout) = &changes.layout {
            let capacity = i32::try_from(layout.capacity())
                .map_err(|error| ApiError::internal_caused("a hall's capacity", error))?;
            set.insert("layout", bson::to_bson(layout)?);
            set.insert("capacity", capacity);
            filter.insert("scheduleVersion", schedule_version);
        }
        let copied = changes.name.is_some() || changes.format.is_some();
        let update = update(set, copied, changes.layout.is_some());
        let Some(before) = self
            .find_and_update(names::THEATERS, filter, update, copied, fence)
            .await?
        else {
            return Ok(None);
        };
        let (before, ref_version): (HallDoc, _) = decoded(before, copied)?;
        let mut after = before.clone();
        if let Some(name) = &changes.name {
            after.name.clone_from(name);
        }
        if let Some(format) = &changes.format {
            after.format.clone_from(format);
        }
        if let Some(layout) = &changes.layout {
            after.capacity = i32::try_from(layout.capacity()).unwrap_or(i32::MAX);
            after.layout = layout.clone();
            after.schedule_version += 1;
        }
        Ok(Some(Updated {
            before,
            after,
            ref_version,
        }))
    }

    /// Changes a movie's summary; `None` when it does not exist.
    #[tracing::instrument(skip(self))]
    pub async fn update_movie(
        &self,
        id: MovieId,
        changes: &MovieChanges,
        fence: Option<&KeyFence>,
    ) -> Result<Option<Updated<MovieDoc>>, ApiError> {
        let set = bson::to_document(changes)?;
        let copied = changes.title.is_some() || changes.runtime_minutes.is_some();
        let Some(before) = self
            .find_and_update(
                names::MOVIES,
                doc! { "_id": id.oid() },
                update(set.clone(), copied, false),
                copied,
                fence,
            )
            .await?
        else {
            return Ok(None);
        };
        let (before, ref_version): (MovieDoc, _) = decoded(before.clone(), copied)?;
        let mut after_doc = bson::to_document(&before)?;
        after_doc.extend(set);
        let after = bson::from_document(after_doc)?;
        Ok(Some(Updated {
            before,
            after,
            ref_version,
        }))
    }

    /// Changes a movie's details; `None` when it has none.
    #[tracing::instrument(skip(self))]
    pub async fn update_movie_details(
        &self,
        id: MovieId,
        changes: &DetailsChanges,
        fence: Option<&KeyFence>,
    ) -> Result<Option<Updated<MovieDetailsDoc>>, ApiError> {
        let set = bson::to_document(changes)?;
        let Some(before) = self
            .find_and_update(
                names::MOVIE_DETAILS,
                doc! { "_id": id.oid() },
                doc! { "$set": set.clone() },
                false,
                fence,
            )
            .await?
        else {
            return Ok(None);
        };
        let (before, _): (MovieDetailsDoc, _) = decoded(before, false)?;
        let mut after_doc = bson::to_document(&before)?;
        after_doc.extend(set);
        let after = bson::from_document(after_doc)?;
        Ok(Some(Updated {
            before,
            after,
            ref_version: None,
        }))
    }
}
