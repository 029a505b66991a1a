//! What this process last saw of each showtime's seats, so that a hold it cannot serve is
//! refused with no database command (issue 48, "cheap refusals").
//!
//! On a hot showtime most holds are refused: 600 buyers want 144 seats. Each refused hold
//! used to claim its idempotency key, wait for its batch's read and record its refusal (or,
//! for named seats, read the inventory itself): at 600 clients on 2 showtimes, 1.3 inventory
//! reads and 2.4 key inserts per seat change sold, and goodput fell to 54% of its peak.
//!
//! Each batch leaves here what it saw: its read of the showtime and the inventory, with the
//! seats it just took marked taken (`batch`). A plain hold (no voucher, no products, no offer)
//! whose seats that view refuses is refused on it, before its key is claimed: with no command
//! without a key, with the key's record alone with one (`idempotency::once_unless_refused`).
//!
//! What a refusal on a view promises, and why it holds:
//! - The view is at most [`SEEN_FOR`] old: the read was sent at most that long before.
//! - It is no older than this process's own changes that free seats or cancel the showtime:
//!   the read's `FreedMark` was taken before it was sent, and before each use the view counts
//!   free every seat the store noted freed since (`Store::seats_freed_since`; a cancellation,
//!   or changes it forgot, end the view). A release answered by this gateway is seen by the
//!   next hold at once, and the view goes on refusing what it still cannot serve.
//! - A hold in it that has expired since frees its seats: a view is used only until the first
//!   expiry of a hold it shows live.
//! - Seats another gateway freed within the last [`SEEN_FOR`] may be refused: that is the
//!   one staleness accepted, bounded, about what this gateway could not have seen.
//!
//! A view that refuses nothing changes nothing: the hold goes its usual way, and the
//! conditional update decides.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::choice::Snapshot;
use super::hold::HoldRequest;
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::holds::rules::HoldPolicy;
use crate::store::documents::{ShowtimeDoc, ShowtimeStatus};
use crate::store::{self, FreedMark, FreedSince, Store};

/// How long a view refuses holds after its read was sent: about a batch's turn on a busy
/// database, so that a hot showtime's refusals read it a few times a second, not once each.
pub const SEEN_FOR: Duration = Duration::from_millis(100);

/// Most showtimes with a view kept; past it the views that lapsed are dropped (all of them,
/// if none had).
const MOST_SHOWTIMES: usize = 1_024;

/// When a view's read was sent, and the store's mark taken before it.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadAt {
    pub sent: Instant,
    pub mark: FreedMark,
}

impl ReadAt {
    /// Now, before a read of a showtime's seats is sent.
    pub(super) fn now(store: &Store) -> ReadAt {
        ReadAt {
            mark: store.freed_mark(),
            sent: Instant::now(),
        }
    }
}

/// The views of this process's showtimes.
pub struct SeenSeats {
    views: Mutex<HashMap<ShowtimeId, Arc<View>>>,
    /// How long a view refuses after its read ([`SEEN_FOR`]).
    kept_for: Duration,
}

impl Default for SeenSeats {
    fn default() -> Self {
        SeenSeats::kept_for(SEEN_FOR)
    }
}

impl std::fmt::Debug for SeenSeats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let views = self.views.lock().map(|views| views.len()).unwrap_or(0);
        f.debug_struct("SeenSeats").field("views", &views).finish()
    }
}

struct View {
    showtime: ShowtimeDoc,
    /// The seats, with what this process freed since up to the mark.
    seats: Mutex<(Snapshot, FreedMark)>,
    /// When it stops refusing: [`SEEN_FOR`] after the read, or a hold in it expires.
    until: Instant,
}

impl SeenSeats {
    /// Views that refuse for `kept_for` after their read (tests count commands on a view
    /// kept long enough to outlast a slow machine).
    pub fn kept_for(kept_for: Duration) -> SeenSeats {
        SeenSeats {
            views: Mutex::default(),
            kept_for,
        }
    }

    /// Keeps what a batch saw of `showtime`: `seats` as read at `read`, with what the batch
    /// took marked taken.
    pub(super) fn note(&self, showtime: &ShowtimeDoc, seats: Snapshot, read: ReadAt) {
        let mut until = read.sent + self.kept_for;
        if let Some(expiry) = seats.next_expiry() {
            let left = (expiry - store::now()).to_std().unwrap_or_default();
            until = until.min(Instant::now() + left);
        }
        let view = Arc::new(View {
            showtime: showtime.clone(),
            seats: Mutex::new((seats, read.mark)),
            until,
        });
        let mut views = self.views.lock().expect("seen seats lock");
        if views.len() >= MOST_SHOWTIMES && !views.contains_key(&showtime.id) {
            let now = Instant::now();
            views.retain(|_, view| view.until > now);
            if views.len() >= MOST_SHOWTIMES {
                views.clear();
            }
        }
        views.insert(showtime.id, view);
    }

    /// The refusal of `request` on this process's view of its showtime, when the view is
    /// still good and shows its seats taken (SEAT_UNAVAILABLE); `None` otherwise. Sends no
    /// command.
    pub fn refusal(
        &self,
        store: &Store,
        channel: &str,
        request: &HoldRequest,
        policy: &HoldPolicy,
    ) -> Option<ApiError> {
        // What else a hold carries is refused first, on its own reads (`hold_seats`).
        if request.carriage.is_some() || request.offer.is_some() {
            return None;
        }
        let view = self
            .views
            .lock()
            .expect("seen seats lock")
            .get(&request.showtime)
            .cloned()?;
        if Instant::now() >= view.until {
            return None;
        }
        // The showtime's own refusals come first (`hold_seats`): those go their usual way.
        let showtime = &view.showtime;
        let on_sale = showtime.status == ShowtimeStatus::Scheduled
            && showtime.sold_on(channel)
            && showtime.starts_at > store::now();
        if !on_sale {
            return None;
        }
        let mut seats = view.seats.lock().expect("seen seats lock");
        let (seats, mark) = &mut *seats;
        // What this process freed since the view's read counts free in it.
        match store.seats_freed_since(request.showtime, *mark) {
            (FreedSince::Nothing, _) => {}
            (FreedSince::Seats(freed), now) => {
                seats.free(&freed);
                *mark = now;
            }
            (FreedSince::Unknown, _) => return None,
        }
        if seats.is_cancelled() {
            return None;
        }
        match seats.choose(&request.choice, policy) {
            Err(refusal @ ApiError::SeatUnavailable { .. }) => {
                crate::telemetry::metrics::hold_refused_on_view();
                Some(refusal)
            }
            _ => None,
        }
    }
}
