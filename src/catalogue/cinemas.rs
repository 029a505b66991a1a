//! Creating and changing cinemas. A cinema's city, district and region path come from the
//! region tree (a district and its ancestors), never from the caller, so they cannot disagree.

use serde::Serialize;

use super::references::propagate_now;
use crate::catalogue::rules::region::RegionLevel;
use crate::catalogue::{CinemaChanges, CinemaRegion, Copied, Propagation};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{CinemaId, RegionId};
use crate::error::ApiError;
use crate::operators::{self, authorize, record, Audited, Keyed};
use crate::orders::rules::RefundPolicy;
use crate::store::documents::{CinemaDoc, GeoJsonPoint, SCHEMA_VERSION};
use crate::store::Store;

/// A new cinema's fields, each checked (`catalogue::rules::checks`); the region is a district's id.
#[derive(Debug, Clone)]
pub struct NewCinema {
    pub name: String,
    pub address: String,
    pub region: RegionId,
    pub location: GeoJsonPoint,
    pub amenities: Vec<String>,
    pub refund_policy: Option<RefundPolicy>,
}

/// A cinema's fields to change, each checked; `None` leaves one as it is.
#[derive(Debug, Clone, Default)]
pub struct CinemaEdit {
    pub name: Option<String>,
    pub address: Option<String>,
    pub region: Option<RegionId>,
    pub location: Option<GeoJsonPoint>,
    pub amenities: Option<Vec<String>>,
    pub refund_policy: Option<RefundPolicy>,
}

/// The district `id` with its path and the city and district names it gives a cinema:
/// BAD_USER_INPUT when it does not exist or is not a district.
async fn district(store: &Store, id: RegionId) -> Result<CinemaRegion, ApiError> {
    let named = GlobalId::Region(id).encode();
    let Some(district) = store.regions_by_ids(&[id]).await?.pop() else {
        return Err(ApiError::bad_input(format!(
            "region {named} does not exist"
        )));
    };
    if district.level != RegionLevel::District {
        return Err(ApiError::bad_input(format!(
            "region {named} ({}) is a {:?}, not a district: a cinema is in a district",
            district.name, district.level
        )));
    }
    let ancestors = store.regions_by_ids(&district.ancestors).await?;
    let Some(city) = ancestors.iter().find(|r| r.level == RegionLevel::City) else {
        return Err(ApiError::internal(format!(
            "district {named} has no city among its ancestors"
        )));
    };
    Ok(CinemaRegion {
        region_ids: district.path(),
        city: city.name.clone(),
        district: district.name.clone(),
    })
}

/// Creates a cinema. Any operator may: a chain's new cinema joins its scope, before the cinema
/// is written, so a crash never leaves a cinema its creator cannot write.
pub async fn create_cinema(
    keyed: Keyed<'_, impl Serialize>,
    cinema: NewCinema,
) -> Result<CinemaId, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    let region = district(store, cinema.region).await?;
    keyed
        .once("createCinema", |attempt| {
            let (cinema, region) = (cinema.clone(), region.clone());
            async move {
                let id = CinemaId(attempt.resource_id().0);
                operators::add_to_scope(store, operator, id).await?;
                let doc = CinemaDoc {
                    id,
                    schema_version: SCHEMA_VERSION,
                    name: cinema.name,
                    city: region.city,
                    district: region.district,
                    address: cinema.address,
                    location: cinema.location,
                    amenities: cinema.amenities,
                    region_ids: region.region_ids,
                    refund_policy: cinema.refund_policy.map(Into::into),
                };
                store.insert_cinemas(std::slice::from_ref(&doc)).await?;
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "createCinema",
                        cinema: Some(id),
                        subject: GlobalId::Cinema(id),
                        before: None,
                        after: Audited::json(&doc),
                    },
                )
                .await?;
                Ok(id)
            }
        })
        .await
}

/// Changes a cinema of the operator's scope. A new name or region (city) reaches its future
/// showtimes' copies.
pub async fn update_cinema(
    keyed: Keyed<'_, impl Serialize>,
    cinema: CinemaId,
    edit: CinemaEdit,
) -> Result<CinemaId, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    authorize(store, operator, cinema).await?;
    let region = match edit.region {
        Some(id) => Some(district(store, id).await?),
        None => None,
    };
    let changes = CinemaChanges {
        name: edit.name,
        address: edit.address,
        region,
        location: edit.location,
        amenities: edit.amenities,
        refund_policy: edit.refund_policy.map(Into::into),
    };
    let written: Vec<&str> = [
        ("name", changes.name.is_some()),
        ("address", changes.address.is_some()),
        ("city", changes.region.is_some()),
        ("district", changes.region.is_some()),
        ("regionIds", changes.region.is_some()),
        ("location", changes.location.is_some()),
        ("amenities", changes.amenities.is_some()),
        ("refundPolicy", changes.refund_policy.is_some()),
    ]
    .into_iter()
    .filter_map(|(field, given)| given.then_some(field))
    .collect();
    if written.is_empty() {
        return Err(ApiError::bad_input(
            "nothing to change: give at least one of name, address, regionId, location, amenities, refundPolicy",
        ));
    }
    keyed
        .once("updateCinema", |attempt| {
            let (changes, written, fence) = (&changes, &written, keyed.fence(attempt));
            async move {
                let Some(updated) = store.update_cinema(cinema, changes, fence.as_ref()).await?
                else {
                    return Err(ApiError::not_found(format!(
                        "cinema {} does not exist",
                        GlobalId::Cinema(cinema).encode()
                    )));
                };
                let propagation = updated.ref_version.map(|version| Propagation {
                    copied: Copied::Cinema {
                        id: cinema,
                        name: updated.after.name.clone(),
                        city: updated.after.city.clone(),
                    },
                    version,
                });
                propagate_now(store, propagation).await?;
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "updateCinema",
                        cinema: Some(cinema),
                        subject: GlobalId::Cinema(cinema),
                        before: Audited::fields(&updated.before, written),
                        after: Audited::fields(&updated.after, written),
                    },
                )
                .await?;
                Ok(cinema)
            }
        })
        .await
}

/// NOT_FOUND unless cinema `cinema` exists.
pub(super) async fn cinema_exists(store: &Store, cinema: CinemaId) -> Result<(), ApiError> {
    if store.cinemas_by_ids(&[cinema]).await?.is_empty() {
        return Err(ApiError::not_found(format!(
            "cinema {} does not exist",
            GlobalId::Cinema(cinema).encode()
        )));
    }
    Ok(())
}
