//! The door staff key calling a door's write (admitting a ticket, collecting products).

use async_graphql::Context;

use crate::admissions::DoorAt;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;

/// The door staff key calling, as the door's writes take it (`action` names the write in
/// its refusal): UNAUTHENTICATED or FORBIDDEN for any other caller.
pub fn calling_door_at<'a>(ctx: &'a Context<'_>, action: &str) -> Result<DoorAt<'a>, ApiError> {
    let door = ctx.calling_door(action)?;
    let key = ctx
        .caller()
        .operator
        .as_deref()
        .ok_or_else(|| ApiError::internal("a door staff caller without its key's code"))?;
    Ok(DoorAt {
        key,
        cinema: door.cinema,
        name: &door.name,
    })
}
