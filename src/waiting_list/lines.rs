//! Which showtimes have a line: what this process learnt of the showtimes with parties
//! waiting or offered, so that seats freed where nobody waits cost no read of the waiting
//! lists. On a busy evening most showtimes have no line, and every release, expiry and
//! refund frees seats: measured (issue 48's impatient client, 64 showtimes, one gateway),
//! 0.70 reads of the waiting lists per successful seat change without it, 9% of all commands.
//!
//! It learns from each periodic pass's read of the showtimes with parties (`PASS_EVERY`) and
//! from the parties that join through this process. A party that joins through another
//! gateway is learnt at the next pass: seats this process frees before then are offered to it
//! by that pass (every gateway's), at most `PASS_EVERY` later than they would have been.

use std::collections::HashMap;
use std::time::Instant;

use crate::domain::ids::ShowtimeId;

/// The showtimes this process knows to have a line, each with when it learnt so.
#[derive(Debug, Default)]
pub(super) struct KnownLines {
    lines: HashMap<ShowtimeId, Instant>,
    /// Whether the last read listed every showtime with a line (none yet: it knows nothing,
    /// and every freed showtime may have one).
    complete: bool,
}

impl KnownLines {
    /// A party joined `showtime`'s line, as learnt `at`.
    pub(super) fn joined(&mut self, showtime: ShowtimeId, at: Instant) {
        let known = self.lines.entry(showtime).or_insert(at);
        *known = (*known).max(at);
    }

    /// A read that started `started` found the lines of `found`, and of no other showtime
    /// when `complete`. What was learnt after it started stays (the read may predate it).
    pub(super) fn read(&mut self, found: &[ShowtimeId], complete: bool, started: Instant) {
        self.lines.retain(|_, at| *at >= started);
        for showtime in found {
            self.joined(*showtime, started);
        }
        self.complete = complete;
    }

    /// Whether `showtime` may have parties waiting.
    pub(super) fn may_have_line(&self, showtime: ShowtimeId) -> bool {
        !self.complete || self.lines.contains_key(&showtime)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn showtime(n: u8) -> ShowtimeId {
        ShowtimeId([n; 12])
    }

    #[test]
    fn before_any_read_every_showtime_may_have_a_line() {
        let lines = KnownLines::default();
        assert!(lines.may_have_line(showtime(1)));
    }

    #[test]
    fn a_complete_read_rules_out_the_showtimes_it_did_not_find() {
        let mut lines = KnownLines::default();
        lines.read(&[showtime(1)], true, Instant::now());
        assert!(lines.may_have_line(showtime(1)));
        assert!(!lines.may_have_line(showtime(2)));
    }

    #[test]
    fn a_read_cut_at_its_limit_rules_out_nothing() {
        let mut lines = KnownLines::default();
        lines.read(&[showtime(1)], false, Instant::now());
        assert!(lines.may_have_line(showtime(2)));
    }

    #[test]
    fn a_join_learnt_after_a_read_started_outlives_it() {
        let started = Instant::now();
        let mut lines = KnownLines::default();
        lines.read(&[], true, started);
        lines.joined(showtime(3), started + Duration::from_millis(5));
        // A read that started before the join was learnt may not have seen its entry.
        lines.read(&[], true, started + Duration::from_millis(1));
        assert!(lines.may_have_line(showtime(3)));
        // One that started after it did see it: the line is gone (left, served or closed).
        lines.read(&[], true, started + Duration::from_millis(10));
        assert!(!lines.may_have_line(showtime(3)));
    }

    #[test]
    fn a_join_learnt_before_a_read_started_is_up_to_that_read() {
        let at = Instant::now();
        let mut lines = KnownLines::default();
        lines.joined(showtime(4), at);
        lines.read(&[showtime(4)], true, at + Duration::from_millis(1));
        assert!(lines.may_have_line(showtime(4)));
        lines.read(&[], true, at + Duration::from_millis(2));
        assert!(!lines.may_have_line(showtime(4)));
    }
}
