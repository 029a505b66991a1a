//! What is counted, and how one gateway's change to a counter is numbered (see `tally`).

use crate::domain::ids::{MovieId, ShowtimeId};

/// A counter kept approximately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counted {
    /// How many customers want to see a movie.
    WantToSee(MovieId),
    /// How many times a showtime's page was read.
    Views(ShowtimeId),
}

/// One gateway's change to one counter, numbered by the flush that first sent it (sent again
/// with that number until acknowledged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Increment {
    /// The counter.
    pub counted: Counted,
    /// How much it moves (negative for unmarks).
    pub by: i64,
    /// The number of the flush that first sent it: rising for each gateway.
    pub flush: i64,
}
