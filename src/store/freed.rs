//! Notes of the showtimes whose seats this process just put back on sale (a release, an
//! expiry, a refund, an unblock), for the waiting lists' offers: the process that frees seats
//! offers them at once, without a database read to learn that it should. A note lost with its
//! process is made up by every gateway's periodic pass over the showtimes with parties waiting.

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
}
