//! Notes for the waiting lists' offers, so that they cost no database read to learn what to
//! do: the showtimes whose seats this process just put back on sale (a release, an expiry, a
//! refund, an unblock), which it offers at once; and the showtimes a party just joined the
//! line of through this process, which it then knows to have one. A note lost with its process
//! is made up by every gateway's periodic pass over the showtimes with parties waiting.

use super::Store;
use crate::domain::ids::ShowtimeId;

impl Store {
    /// Notes that seats of `showtime` just went back on sale.
    pub(crate) fn note_seats_freed(&self, showtime: ShowtimeId) {
        self.freed.note(showtime);
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
