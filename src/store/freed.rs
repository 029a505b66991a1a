//! Notes of the showtimes whose seats this process just put back on sale (a release, an
//! expiry, a refund, an unblock), for the waiting lists' offers: the process that frees seats
//! offers them at once, without a database read to learn that it should. A note lost with its
//! process is made up by every gateway's periodic pass over the showtimes with parties waiting.

use std::collections::HashSet;
use std::sync::Mutex;

use tokio::sync::Notify;

use super::Store;
use crate::domain::ids::ShowtimeId;

/// The showtimes this process freed seats of and has not handed on yet.
#[derive(Debug, Default)]
pub struct FreedSeats {
    showtimes: Mutex<HashSet<ShowtimeId>>,
    noted: Notify,
}

/// Past this many, notes are dropped: the periodic pass finds those showtimes instead.
const MOST_PENDING: usize = 10_000;

impl Store {
    /// Notes that seats of `showtime` just went back on sale.
    pub(crate) fn note_seats_freed(&self, showtime: ShowtimeId) {
        let mut showtimes = self.freed.showtimes.lock().expect("freed seats lock");
        if showtimes.len() < MOST_PENDING {
            showtimes.insert(showtime);
        }
        drop(showtimes);
        self.freed.noted.notify_one();
    }

    /// Waits until this process freed seats, and takes the showtimes.
    pub async fn freed_showtimes(&self) -> Vec<ShowtimeId> {
        loop {
            let taken: Vec<_> = {
                let mut showtimes = self.freed.showtimes.lock().expect("freed seats lock");
                showtimes.drain().collect()
            };
            if !taken.is_empty() {
                return taken;
            }
            self.freed.noted.notified().await;
        }
    }
}
