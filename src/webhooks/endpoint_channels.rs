//! Which channels have webhook endpoints, as the live relay last read it: only their
//! endpoints are marked due when their logs grow, so a booking of a channel without endpoints
//! costs no command for them.
//!
//! An endpoint can be made (by any gateway, or `boxoffice channel webhook add`) after the
//! reading. A channel whose log grows while the reading says it has no endpoint is kept
//! aside, and the relay reads again once the reading is [`ENDPOINTS_READ_EVERY`] old: by then
//! the new endpoint is seen (it was made before the event was appended, or its own first
//! delivery reads the event), and marked due. So an event reaches an endpoint made a moment
//! before it at most [`ENDPOINTS_READ_EVERY`] late, never not at all.

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use tokio::time::Instant;

/// How old a reading may be before a channel's growth makes the relay read again.
pub const ENDPOINTS_READ_EVERY: Duration = Duration::from_secs(1);

/// The last reading of which channels have endpoints.
#[derive(Debug, Default)]
pub struct EndpointChannels {
    /// The channels that had an endpoint when it was read, and when that was.
    known: HashSet<String>,
    read_at: Option<Instant>,
    /// Channels whose logs grew while `known` said they had no endpoint, since `read_at`.
    unmarked: BTreeSet<String>,
}

impl EndpointChannels {
    /// Whether a channel's growth should read again first (never read, or old at `now`).
    pub fn stale(&self, now: Instant) -> bool {
        self.read_at
            .is_none_or(|read_at| now >= read_at + ENDPOINTS_READ_EVERY)
    }

    /// When the channels kept aside need a new reading; `None` when none is kept aside.
    pub fn read_due(&self) -> Option<Instant> {
        if self.unmarked.is_empty() {
            return None;
        }
        Some(
            self.read_at
                .map_or_else(Instant::now, |at| at + ENDPOINTS_READ_EVERY),
        )
    }

    /// Takes a new reading, made at `now`; returns the channels kept aside that have an
    /// endpoint now.
    pub fn read(&mut self, channels: Vec<String>, now: Instant) -> Vec<String> {
        self.known = channels.into_iter().collect();
        self.read_at = Some(now);
        let unmarked = std::mem::take(&mut self.unmarked);
        unmarked
            .into_iter()
            .filter(|channel| self.known.contains(channel))
            .collect()
    }

    /// A reading failed at `now`: the next waits [`ENDPOINTS_READ_EVERY`] (the last one is
    /// kept).
    pub fn failed(&mut self, now: Instant) {
        self.read_at = Some(now);
    }

    /// Keeps `channels` aside for the next reading (marking them due failed: it is tried
    /// again then).
    pub fn keep_aside(&mut self, channels: Vec<String>) {
        self.unmarked.extend(channels);
    }

    /// The channels of `grown` that have an endpoint; the others are kept aside until the
    /// next reading.
    pub fn sort(&mut self, grown: BTreeSet<String>) -> Vec<String> {
        let (due, unmarked): (Vec<String>, Vec<String>) = grown
            .into_iter()
            .partition(|channel| self.known.contains(channel));
        self.unmarked.extend(unmarked);
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(channels: &[&str]) -> BTreeSet<String> {
        channels.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn a_channel_that_grew_before_its_endpoint_was_seen_is_marked_at_the_next_reading() {
        let mut channels = EndpointChannels::default();
        let start = Instant::now();
        assert!(channels.stale(start), "never read");
        assert_eq!(
            channels.read(vec!["maoyan".into()], start),
            Vec::<String>::new()
        );
        assert!(!channels.stale(start + ENDPOINTS_READ_EVERY / 2));
        assert_eq!(channels.read_due(), None, "nothing kept aside");
        // wechat's log grows: it has no endpoint as far as the reading says.
        assert_eq!(channels.sort(set(&["maoyan", "wechat"])), ["maoyan"]);
        let due = channels.read_due().expect("wechat is kept aside");
        assert_eq!(due, start + ENDPOINTS_READ_EVERY);
        assert!(channels.stale(due));
        // wechat made an endpoint meanwhile: the next reading marks it.
        let known = vec!["maoyan".into(), "wechat".into()];
        assert_eq!(channels.read(known, due), ["wechat"]);
        assert_eq!(channels.read_due(), None);
        assert_eq!(channels.sort(set(&["wechat"])), ["wechat"]);
    }

    #[test]
    fn a_channel_without_endpoints_is_kept_aside_until_the_next_reading_only() {
        let mut channels = EndpointChannels::default();
        let start = Instant::now();
        channels.read(Vec::new(), start);
        assert!(channels.sort(set(&["bench"])).is_empty());
        assert!(channels.sort(set(&["bench"])).is_empty());
        let due = channels.read_due().expect("bench is kept aside");
        assert!(channels.read(Vec::new(), due).is_empty());
        assert_eq!(
            channels.read_due(),
            None,
            "no endpoint came: nothing to read again for"
        );
    }

    #[test]
    fn channels_whose_marking_failed_are_marked_at_the_next_reading() {
        let mut channels = EndpointChannels::default();
        let start = Instant::now();
        channels.read(vec!["maoyan".into()], start);
        let due = channels.sort(set(&["maoyan"]));
        assert_eq!(channels.read_due(), None);
        channels.keep_aside(due);
        let next = channels.read_due().expect("kept aside");
        assert_eq!(next, start + ENDPOINTS_READ_EVERY);
        assert_eq!(channels.read(vec!["maoyan".into()], next), ["maoyan"]);
    }

    #[test]
    fn a_failed_reading_waits_before_the_next() {
        let mut channels = EndpointChannels::default();
        let start = Instant::now();
        channels.read(Vec::new(), start);
        channels.sort(set(&["bench"]));
        let due = channels.read_due().unwrap();
        channels.failed(due);
        assert_eq!(channels.read_due(), Some(due + ENDPOINTS_READ_EVERY));
        assert!(!channels.stale(due));
    }
}
