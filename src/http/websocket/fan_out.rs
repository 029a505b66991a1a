//! Subscribers asking the same thing share one execution. A `seatMapChanged` with the same
//! query text, operation name, variables and caller runs once per process (a group's
//! *leader*); each of its responses is serialised to JSON once and handed to every member,
//! which only wraps it in its own `next` message. With 1,000 subscribers of one showtime a
//! write was resolved and serialised 1,000 times; now once.
//!
//! A subscriber that joins a running group starts where a new subscriber would: the group
//! keeps the latest whole map it knows (its *base*) and every event since, and a joiner is
//! sent those before the live ones (taken under one lock, so nothing is missed or sent
//! twice). To keep that backlog short the group reads a fresh whole map for joiners after
//! `COMPACT_AFTER` events (one more execution, its first response kept, nothing sent to the
//! members). A member then skips any change its base already holds (by version). A member that
//! falls behind the group's broadcast starts again from the base, as a late joiner: a fresh
//! SNAPSHOT, never a gap (as a subscriber that falls behind its topic always did).
//!
//! A group ends with its last member (its execution is dropped), or when its execution ends
//! (an error or `complete`, which every member is sent).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use futures::stream::BoxStream;
use futures::StreamExt;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc};

use super::protocol::failed;
use super::{payload_json, Outgoing};
use crate::graphql::seat_map_tap::{SeatMapNote, SeatMapTap};

/// Events kept for joiners before a fresh whole map replaces them.
const COMPACT_AFTER: usize = 256;

/// Starts one execution of a group's request, noting its events in the tap given.
pub(super) type Execute =
    Arc<dyn Fn(Arc<SeatMapTap>) -> BoxStream<'static, Outgoing> + Send + Sync>;

/// What identifies a group: the caller, the operation name, the variables and the query text.
pub(super) type GroupKey = Arc<str>;

/// The process's groups, by what they run.
#[derive(Default)]
pub struct FanOut {
    groups: Mutex<HashMap<GroupKey, Weak<Membership>>>,
}

/// One response of a group, serialised once for all its members.
#[derive(Debug)]
pub(super) struct SharedEvent {
    pub body: SharedBody,
    note: Option<SeatMapNote>,
}

#[derive(Debug)]
pub(super) enum SharedBody {
    /// A `next` message's payload, as JSON.
    Next(String),
    /// An `error` message's payload (the errors), as JSON; the operation ends.
    Error(String),
    /// The operation is over.
    Complete,
}

/// A group: its backlog for joiners and the broadcast of its events.
struct Group {
    backlog: Mutex<Backlog>,
    sender: broadcast::Sender<Arc<SharedEvent>>,
}

#[derive(Default)]
struct Backlog {
    /// The latest whole map, with its version.
    base: Option<(u32, Arc<SharedEvent>)>,
    /// Every event after `base` (or from the start, before there is one).
    since: Vec<Arc<SharedEvent>>,
    /// Whether a fresh whole map is being read.
    compacting: bool,
    /// Whether the execution ended (an error or `complete` was sent): nobody joins it now.
    ended: bool,
}

/// What members hold: while one does, the group runs.
struct Membership {
    group: Arc<Group>,
    /// Dropped with the last member, which tells the leader.
    _alive: mpsc::Sender<()>,
}

impl FanOut {
    /// Subscribers sharing an execution now, beyond the one execution of each group: what
    /// `Live::subscriptions` does not count.
    pub fn members_beyond_leaders(&self) -> usize {
        let groups = self.groups.lock().expect("fan-out lock");
        (groups.values())
            .map(|membership| membership.strong_count().saturating_sub(1))
            .sum()
    }

    /// The events of `key`'s group for one more member, started with `execute` when there
    /// is none.
    pub(super) fn join(
        self: &Arc<Self>,
        key: GroupKey,
        execute: Execute,
        buffer: usize,
    ) -> BoxStream<'static, Arc<SharedEvent>> {
        let membership = {
            let mut groups = self.groups.lock().expect("fan-out lock");
            let running = (groups.get(&key).and_then(Weak::upgrade))
                .filter(|membership| !membership.group.backlog.lock().expect("backlog lock").ended);
            match running {
                Some(membership) => membership,
                None => {
                    if groups.len() >= 64 && groups.len().is_power_of_two() {
                        groups.retain(|_, membership| membership.strong_count() > 0);
                    }
                    let group = Arc::new(Group {
                        backlog: Mutex::default(),
                        sender: broadcast::Sender::new(buffer.max(1)),
                    });
                    let (alive, gone) = mpsc::channel(1);
                    let membership = Arc::new(Membership {
                        group: Arc::clone(&group),
                        _alive: alive,
                    });
                    groups.insert(Arc::clone(&key), Arc::downgrade(&membership));
                    let leader = lead(Arc::downgrade(self), key, group, execute, gone);
                    tokio::spawn(tracing::Instrument::in_current_span(leader));
                    membership
                }
            }
        };
        member(membership)
    }

    /// Forgets `key`'s group if it is `group` (a newer one may have taken its place).
    fn forget(&self, key: &GroupKey, group: &Arc<Group>) {
        let mut groups = self.groups.lock().expect("fan-out lock");
        let current = groups.get(key).and_then(Weak::upgrade);
        if current.is_none_or(|membership| Arc::ptr_eq(&membership.group, group)) {
            groups.remove(key);
        }
    }
}

impl Group {
    /// The backlog and a receiver of every later event, together.
    fn join(&self) -> (Vec<Arc<SharedEvent>>, broadcast::Receiver<Arc<SharedEvent>>) {
        let backlog = self.backlog.lock().expect("backlog lock");
        let receiver = self.sender.subscribe();
        let events = (backlog.base.iter())
            .map(|(_, base)| Arc::clone(base))
            .chain(backlog.since.iter().cloned())
            .collect();
        (events, receiver)
    }

    /// Sends `event` to every member and keeps it for joiners; how many events the backlog
    /// holds after the base.
    fn publish(&self, event: Arc<SharedEvent>) -> usize {
        let mut backlog = self.backlog.lock().expect("backlog lock");
        match event.note {
            Some(SeatMapNote::Snapshot(version)) => {
                if backlog
                    .base
                    .as_ref()
                    .is_none_or(|(base, _)| *base <= version)
                {
                    backlog.base = Some((version, Arc::clone(&event)));
                    backlog.since.clear();
                }
            }
            Some(SeatMapNote::Change(version)) => {
                if backlog
                    .base
                    .as_ref()
                    .is_none_or(|(base, _)| version > *base)
                {
                    backlog.since.push(Arc::clone(&event));
                }
            }
            _ => backlog.since.push(Arc::clone(&event)),
        }
        backlog.ended |= matches!(event.body, SharedBody::Error(_) | SharedBody::Complete);
        // No member is not an error: the leader notices it and stops.
        let _ = self.sender.send(event);
        backlog.since.len()
    }

    /// Reads a fresh whole map for joiners, in the background, unless one is being read.
    fn compact(self: &Arc<Self>, execute: &Execute) {
        {
            let mut backlog = self.backlog.lock().expect("backlog lock");
            if backlog.compacting {
                return;
            }
            backlog.compacting = true;
        }
        let group = Arc::downgrade(self);
        let execute = Arc::clone(execute);
        tokio::spawn(async move {
            let tap = SeatMapTap::new();
            let first = execute(Arc::clone(&tap)).next().await;
            let Some(group) = group.upgrade() else {
                return;
            };
            let snapshot = match (first, tap.next_note()) {
                (Some(Some(response)), Some(SeatMapNote::Snapshot(version)))
                    if !failed(&response) =>
                {
                    serde_json::to_string(&response)
                        .ok()
                        .map(|json| (version, json))
                }
                _ => None,
            };
            let mut backlog = group.backlog.lock().expect("backlog lock");
            backlog.compacting = false;
            let Some((version, json)) = snapshot else {
                tracing::warn!("reading a fresh seat map for a shared subscription failed");
                return;
            };
            if backlog
                .base
                .as_ref()
                .is_some_and(|(base, _)| *base >= version)
            {
                return;
            }
            let event = SharedEvent {
                body: SharedBody::Next(json),
                note: Some(SeatMapNote::Snapshot(version)),
            };
            backlog.base = Some((version, Arc::new(event)));
            backlog.since.retain(|event| match event.note {
                Some(SeatMapNote::Change(change)) => change > version,
                Some(SeatMapNote::Snapshot(_)) => false,
                _ => true,
            });
        });
    }
}

/// Runs a group's execution until it ends or nobody listens, then forgets the group. A panic
/// here ends every member with INTERNAL: none is left waiting for an event that cannot come.
async fn lead(
    fan_out: Weak<FanOut>,
    key: GroupKey,
    group: Arc<Group>,
    execute: Execute,
    gone: mpsc::Receiver<()>,
) {
    let led = std::panic::AssertUnwindSafe(run_group(&group, execute, gone));
    if futures::FutureExt::catch_unwind(led).await.is_err() {
        tracing::error!("a shared subscription's leader panicked");
        let body = SharedBody::Error(payload_json(&internal()));
        group.publish(Arc::new(SharedEvent { body, note: None }));
    }
    if let Some(fan_out) = fan_out.upgrade() {
        fan_out.forget(&key, &group);
    }
}

async fn run_group(group: &Arc<Group>, execute: Execute, mut gone: mpsc::Receiver<()>) {
    let tap = SeatMapTap::new();
    let mut responses = execute(Arc::clone(&tap));
    loop {
        let outgoing = tokio::select! {
            outgoing = responses.next() => outgoing,
            // Every member left (nothing is ever sent on this channel).
            _ = gone.recv() => break,
        };
        let (body, end) = match outgoing {
            Some(Some(response)) if failed(&response) => {
                (SharedBody::Error(payload_json(&response.errors)), true)
            }
            Some(Some(response)) => (SharedBody::Next(payload_json(&response)), false),
            Some(None) | None => (SharedBody::Complete, true),
        };
        let note = matches!(body, SharedBody::Next(_))
            .then(|| tap.next_note())
            .flatten();
        let kept = group.publish(Arc::new(SharedEvent { body, note }));
        if end {
            break;
        }
        if kept >= COMPACT_AFTER {
            group.compact(&execute);
        }
    }
}

/// The errors of a panicked execution.
fn internal() -> Vec<async_graphql::ServerError> {
    vec![crate::graphql::errors::error_with_code(
        "internal error",
        crate::error::ErrorCode::Internal,
    )]
}

/// One member's events: the backlog, then the live ones; the backlog again after falling
/// behind. A change its base already holds is skipped.
fn member(membership: Arc<Membership>) -> BoxStream<'static, Arc<SharedEvent>> {
    struct Member {
        membership: Arc<Membership>,
        pending: std::vec::IntoIter<Arc<SharedEvent>>,
        receiver: broadcast::Receiver<Arc<SharedEvent>>,
        /// The version of the last map or change sent.
        at: Option<u32>,
        done: bool,
    }
    let (backlog, receiver) = membership.group.join();
    let member = Member {
        membership,
        pending: backlog.into_iter(),
        receiver,
        at: None,
        done: false,
    };
    futures::stream::unfold(member, |mut member| async move {
        if member.done {
            return None;
        }
        loop {
            let event = match member.pending.next() {
                Some(event) => event,
                None => match member.receiver.recv().await {
                    Ok(event) => event,
                    Err(RecvError::Lagged(missed)) => {
                        tracing::debug!(missed, "a shared subscription's member fell behind");
                        let (backlog, receiver) = member.membership.group.join();
                        member.pending = backlog.into_iter();
                        member.receiver = receiver;
                        // Start again from the base, whatever was sent before.
                        member.at = None;
                        continue;
                    }
                    Err(RecvError::Closed) => Arc::new(SharedEvent {
                        body: SharedBody::Complete,
                        note: None,
                    }),
                },
            };
            match event.note {
                Some(SeatMapNote::Snapshot(version)) => member.at = Some(version),
                Some(SeatMapNote::Change(version)) => {
                    if member.at.is_some_and(|at| version <= at) {
                        continue;
                    }
                    member.at = Some(version);
                }
                _ => {}
            }
            member.done = matches!(event.body, SharedBody::Error(_) | SharedBody::Complete);
            return Some((event, member));
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests;
