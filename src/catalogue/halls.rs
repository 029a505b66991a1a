//! Creating halls and changing them. A layout changes only while the hall has no future
//! showtime (its seat inventories were copied from the layout): the check and the write meet
//! through the hall's `scheduleVersion`, which scheduling a showtime moves on too, so a
//! showtime scheduled between the check and the write makes the write miss and read again.

use serde::Serialize;

use super::references::propagate_now;
use crate::catalogue::{Copied, HallChanges, Propagation};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{CinemaId, HallId};
use crate::domain::layout::HallLayout;
use crate::error::ApiError;
use crate::operators::{authorize, record, Audited, Keyed};
use crate::store::documents::{HallDoc, SCHEMA_VERSION};
use crate::store::Store;

/// How many future showtimes a refused layout change names.
const NAMED_SHOWTIMES: usize = 10;
/// How often a layout change reads the hall again after its schedule moved under it.
const LAYOUT_TRIES: usize = 5;

/// A new hall's fields, each checked (the layout against the configured maximum too).
#[derive(Debug, Clone)]
pub struct NewHall {
    pub cinema: CinemaId,
    pub name: String,
    pub format: String,
    pub layout: HallLayout,
}

/// Creates a hall in a cinema of the operator's scope.
pub async fn create_hall(
    keyed: Keyed<'_, impl Serialize>,
    hall: NewHall,
) -> Result<HallId, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    authorize(store, operator, hall.cinema).await?;
    super::cinemas::cinema_exists(store, hall.cinema).await?;
    keyed
        .once("createHall", |attempt| {
            let hall = hall.clone();
            async move {
                let id = HallId(attempt.resource_id().0);
                let doc = HallDoc {
                    id,
                    schema_version: SCHEMA_VERSION,
                    cinema_id: hall.cinema,
                    name: hall.name,
                    format: hall.format,
                    capacity: i32::try_from(hall.layout.capacity())
                        .map_err(|error| ApiError::internal_caused("a hall's capacity", error))?,
                    layout: hall.layout,
                    schedule_version: 0,
                };
                store.insert_halls(std::slice::from_ref(&doc)).await?;
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "createHall",
                        cinema: Some(doc.cinema_id),
                        subject: GlobalId::Hall(id),
                        before: None,
                        after: Audited::fields(&doc, &["name", "format", "capacity", "layout"]),
                    },
                )
                .await?;
                Ok(id)
            }
        })
        .await
}

/// The hall, or NOT_FOUND.
async fn read_hall(store: &Store, id: HallId) -> Result<HallDoc, ApiError> {
    store.halls_by_ids(&[id]).await?.pop().ok_or_else(|| {
        ApiError::not_found(format!(
            "hall {} does not exist",
            GlobalId::Hall(id).encode()
        ))
    })
}

/// Changes a hall of a cinema of the operator's scope. A new name or format reaches its
/// future showtimes' copies; a new layout is refused while it has future showtimes.
pub async fn update_hall(
    keyed: Keyed<'_, impl Serialize>,
    hall: HallId,
    changes: HallChanges,
) -> Result<HallId, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    let cinema = read_hall(store, hall).await?.cinema_id;
    authorize(store, operator, cinema).await?;
    let written: Vec<&str> = [
        ("name", changes.name.is_some()),
        ("format", changes.format.is_some()),
        ("layout", changes.layout.is_some()),
        ("capacity", changes.layout.is_some()),
    ]
    .into_iter()
    .filter_map(|(field, given)| given.then_some(field))
    .collect();
    if written.is_empty() {
        return Err(ApiError::bad_input(
            "nothing to change: give at least one of name, format, layout",
        ));
    }
    keyed
        .once("updateHall", |attempt| {
            let (changes, written, fence) = (&changes, &written, keyed.fence(attempt));
            async move {
                let mut tries = 0;
                let updated = loop {
                    tries += 1;
                    let current = read_hall(store, hall).await?;
                    if changes.layout.is_some() {
                        refuse_under_future_showtimes(store, &current).await?;
                    }
                    if let Some(updated) = store
                        .update_hall(hall, changes, current.schedule_version, fence.as_ref())
                        .await?
                    {
                        break updated;
                    }
                    // The hall's schedule moved since it was read (a showtime scheduled, another
                    // layout written): look again.
                    if tries >= LAYOUT_TRIES {
                        return Err(ApiError::unavailable(format!(
                            "hall {} kept changing; try again",
                            GlobalId::Hall(hall).encode()
                        )));
                    }
                };
                let propagation = updated.ref_version.map(|version| Propagation {
                    copied: Copied::Hall {
                        id: hall,
                        name: updated.after.name.clone(),
                        format: updated.after.format.clone(),
                    },
                    version,
                });
                propagate_now(store, propagation).await?;
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "updateHall",
                        cinema: Some(cinema),
                        subject: GlobalId::Hall(hall),
                        before: Audited::fields(&updated.before, written),
                        after: Audited::fields(&updated.after, written),
                    },
                )
                .await?;
                Ok(hall)
            }
        })
        .await
}

/// BAD_USER_INPUT naming the hall's future showtimes (up to [`NAMED_SHOWTIMES`]), if any.
async fn refuse_under_future_showtimes(store: &Store, hall: &HallDoc) -> Result<(), ApiError> {
    let future = store
        .future_showtimes_in_hall(hall.id, NAMED_SHOWTIMES)
        .await?;
    if future.is_empty() {
        return Ok(());
    }
    let named: Vec<String> = future
        .iter()
        .map(|id| GlobalId::Showtime(*id).encode())
        .collect();
    let more = if future.len() == NAMED_SHOWTIMES {
        " (the first 10)"
    } else {
        ""
    };
    Err(ApiError::bad_input(format!(
        "hall {} ({}) has future showtimes{more}: {}; its layout can change only when it has \
         none (their seats were copied from it)",
        GlobalId::Hall(hall.id).encode(),
        hall.name,
        named.join(", ")
    )))
}
