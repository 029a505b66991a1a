//! Notes for the waiting lists' offers, so that they cost no database read to learn what to
//! do: the showtimes whose seats this process just put back on sale (a release, an expiry, a
//! refund, an unblock), which it offers at once; and the showtimes a party just joined the
//! line of through this process, which it then knows to have one. A note lost with its process
//! is made up by every gateway's periodic pass over the showtimes with parties waiting.
//!
//! And the marks that tell a view of a showtime's seats read before such a change from one
//! read after it (`freed_marks`).

use super::freed_marks::FreedMark;
use super::Store;
use crate::domain::ids::ShowtimeId;

impl Store {
    /// Notes that seats of `showtime` just went back on sale (the change is written).
    pub(crate) fn note_seats_freed(&self, showtime: ShowtimeId) {
        self.note_seats_changed(showtime);
        self.freed.note(showtime);
    }

    /// Notes a written change of `showtime`'s seats after which a view read before it may
    /// show seats taken that are not, or the showtime on sale when it is not.
    pub(crate) fn note_seats_changed(&self, showtime: ShowtimeId) {
        self.freed_marks.note(showtime);
    }

    /// The mark to take before reading a showtime's seats, for [`Store::seats_freed_since`].
    pub fn freed_mark(&self) -> FreedMark {
        self.freed_marks.mark()
    }

    /// Whether this process may have freed seats of `showtime` (or cancelled it) since `mark`:
    /// a view read after the mark was taken is then out of date.
    pub fn seats_freed_since(&self, showtime: ShowtimeId, mark: FreedMark) -> bool {
        self.freed_marks.freed_since(showtime, mark)
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
