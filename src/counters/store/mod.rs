//! The counters' store code: `tallies`, one document per counted movie or showtime.

mod tallies;
