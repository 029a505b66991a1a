//! Notes for the waiting lists' offers, so that they cost no database read to learn what to
//! do: the showtimes whose seats this process just put back on sale (a release, an expiry, a
//! refund, an unblock), which it offers at once; and the showtimes a party just joined the
//! line of through this process, which it then knows to have one. A note lost with its process
//! is made up by every gateway's periodic pass over the showtimes with parties waiting.
//!
//! And the marks that tell a view of a showtime's seats read before such a change from one
//! read after it (`freed_marks`).

use super::freed_marks::{FreedMark, FreedSince};
use super::Store;
use crate::domain::ids::ShowtimeId;

impl Store {
    /// Notes that `seats` of `showtime` just went back on sale (the change is written).
    pub(crate) fn note_seats_freed(&self, showtime: ShowtimeId, seats: &[String]) {
        self.freed_marks.note(showtime, Some(seats));
        self.freed.note(showtime);
    }

    /// Notes that `showtime` was just cancelled (the change is written): a view of its seats
    /// read before shows it on sale.
    pub(crate) fn note_showtime_cancelled(&self, showtime: ShowtimeId) {
        self.freed_marks.note(showtime, None);
    }

    /// The mark to take before reading a showtime's seats, for [`Store::seats_freed_since`].
    pub fn freed_mark(&self) -> FreedMark {
        self.freed_marks.mark()
    }

    /// What this process freed of `showtime` since `mark` (see `freed_marks`), and the mark
    /// of now.
    pub fn seats_freed_since(
        &self,
        showtime: ShowtimeId,
        mark: FreedMark,
    ) -> (FreedSince, FreedMark) {
        self.freed_marks.since(showtime, mark)
    }

    /// Waits until this process freed seats, and takes the showtimes.
    pub async fn freed_showtimes(&self) -> Vec<ShowtimeId> {
        self.freed.take().await
    }

    /// Notes that a party just joined `showtime`'s line (its entry is written).
    pub(crate) fn note_party_joined(&self, showtime: ShowtimeId) {
        self.joined.note(showtime);
    }

    /// The showtimes parties joined the lines of since the last call (none: an empty list).
    pub fn parties_joined(&self) -> Vec<ShowtimeId> {
        self.joined.take_now()
    }
}
