//! `seatMapChanged`: a showtime's live seat map.

use std::sync::Arc;

use async_graphql::{Context, Subscription, ID};
use futures::{Stream, StreamExt};

use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::seat_map_tap::{SeatMapNote, SeatMapTap};
use crate::live::graphql::SeatMapEvent;
use crate::live::{Live, SeatMapUpdate};

/// The process's live hub, which the WebSocket transport puts in every subscription's data.
pub fn live<'a>(ctx: &'a Context<'_>) -> Result<&'a Live, ApiError> {
    ctx.data::<Live>().map_err(|_| {
        ApiError::bad_input("subscriptions run over WebSocket (graphql-transport-ws) only")
    })
}

#[derive(Default)]
pub struct SeatMapSubscription;

#[Subscription]
impl SeatMapSubscription {
    /// The live seat map of a showtime. The first event is a SNAPSHOT (the whole map, its
    /// counts and its version); each later one lists the seats a write changed (CHANGES),
    /// with the new counts and the next version. Applying them in order always gives what a
    /// fresh `seatMap` query would: when the gateway cannot vouch for that (the database's
    /// change stream could not resume, or this client fell behind), it sends a fresh
    /// SNAPSHOT, never a gap. Expired holds show as AVAILABLE within about a second.
    #[tracing::instrument(skip(self, ctx))]
    async fn seat_map_changed(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "A showtime's global id.")] showtime_id: ID,
    ) -> Result<impl Stream<Item = Result<SeatMapEvent, ApiError>>, ApiError> {
        let showtime = global_id::showtime_id(&showtime_id)?;
        let live = live(ctx)?;
        // A shared subscription's leader learns what each event was (`seat_map_tap`).
        let tap = ctx.data_opt::<Arc<SeatMapTap>>().cloned();
        Ok(live.seat_map(showtime).map(move |update| {
            if let Some(tap) = &tap {
                tap.note(match &update {
                    Ok(SeatMapUpdate::Snapshot(map)) => SeatMapNote::Snapshot(map.version),
                    Ok(SeatMapUpdate::Changes { version, .. }) => SeatMapNote::Change(*version),
                    Err(_) => SeatMapNote::Failure,
                });
            }
            update.map(|update| SeatMapEvent { showtime, update })
        }))
    }
}
