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
use super::Outgoing;
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

/// Runs a group's execution until it ends or nobody listens.
async fn lead(
    fan_out: Weak<FanOut>,
    key: GroupKey,
    group: Arc<Group>,
    execute: Execute,
    mut gone: mpsc::Receiver<()>,
) {
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
                (SharedBody::Error(errors_json(&response)), true)
            }
            Some(Some(response)) => match serde_json::to_string(&response) {
                Ok(json) => (SharedBody::Next(json), false),
                Err(error) => {
                    tracing::error!(%error, "serialising a shared subscription's response");
                    (SharedBody::Error(errors_json(&internal())), true)
                }
            },
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
    if let Some(fan_out) = fan_out.upgrade() {
        fan_out.forget(&key, &group);
    }
}

fn errors_json(response: &async_graphql::Response) -> String {
    serde_json::to_string(&response.errors).unwrap_or_else(|_| "[]".into())
}

fn internal() -> async_graphql::Response {
    async_graphql::Response::from_errors(vec![crate::graphql::errors::error_with_code(
        "internal error",
        crate::error::ErrorCode::Internal,
    )])
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
mod tests {
    use std::collections::VecDeque;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use async_graphql::{Response, Value};
    use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

    use super::*;

    /// A scripted event: a note and a response.
    type ScriptedEvent = (Option<SeatMapNote>, Response);
    /// One scripted execution's events.
    type Script = UnboundedSender<ScriptedEvent>;

    /// Executions whose events a test sends by hand; counts how many ran and are running.
    #[derive(Default)]
    struct Scripted {
        waiting: Mutex<VecDeque<UnboundedReceiver<ScriptedEvent>>>,
        started: AtomicUsize,
        running: Arc<AtomicUsize>,
    }

    struct Running(Arc<AtomicUsize>);

    impl Drop for Running {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    impl Scripted {
        /// The script of the next execution to start.
        fn next_script(&self) -> Script {
            let (script, events) = unbounded_channel();
            self.waiting.lock().unwrap().push_back(events);
            script
        }

        fn execute(self: &Arc<Self>) -> Execute {
            let scripted = Arc::clone(self);
            Arc::new(move |tap: Arc<SeatMapTap>| {
                scripted.started.fetch_add(1, Ordering::SeqCst);
                scripted.running.fetch_add(1, Ordering::SeqCst);
                let running = Running(Arc::clone(&scripted.running));
                let events = scripted.waiting.lock().unwrap().pop_front();
                let events = events.expect("a script for each execution");
                futures::stream::unfold(
                    (events, tap, running),
                    |(mut events, tap, running)| async move {
                        let (note, response) = events.recv().await?;
                        if let Some(note) = note {
                            tap.note(note);
                        }
                        Some((Some(response), (events, tap, running)))
                    },
                )
                .boxed()
            })
        }
    }

    fn map(version: u32) -> ScriptedEvent {
        let data = Value::from_json(serde_json::json!({ "kind": "SNAPSHOT", "version": version }));
        (
            Some(SeatMapNote::Snapshot(version)),
            Response::new(data.unwrap()),
        )
    }

    fn change(version: u32) -> ScriptedEvent {
        let data = Value::from_json(serde_json::json!({ "kind": "CHANGES", "version": version }));
        (
            Some(SeatMapNote::Change(version)),
            Response::new(data.unwrap()),
        )
    }

    /// The kind and version of the next event of `member`.
    async fn next(member: &mut BoxStream<'static, Arc<SharedEvent>>) -> (String, u64) {
        let event = tokio::time::timeout(Duration::from_secs(5), member.next())
            .await
            .expect("an event in time")
            .expect("the member goes on");
        let SharedBody::Next(json) = &event.body else {
            panic!("not a next: {event:?}");
        };
        let json: serde_json::Value = serde_json::from_str(json).unwrap();
        let data = &json["data"];
        (
            data["kind"].as_str().unwrap().to_owned(),
            data["version"].as_u64().unwrap(),
        )
    }

    fn key() -> GroupKey {
        "the same request".into()
    }

    #[tokio::test]
    async fn a_joiner_gets_the_base_and_what_followed_it_then_the_live_events() {
        let (fan_out, scripted) = (Arc::new(FanOut::default()), Arc::new(Scripted::default()));
        let script = scripted.next_script();
        let mut first = fan_out.join(key(), scripted.execute(), 16);
        for event in [map(0), change(1), change(2)] {
            script.send(event).unwrap();
        }
        assert_eq!(next(&mut first).await, ("SNAPSHOT".into(), 0));
        assert_eq!(next(&mut first).await, ("CHANGES".into(), 1));
        assert_eq!(next(&mut first).await, ("CHANGES".into(), 2));
        let mut second = fan_out.join(key(), scripted.execute(), 16);
        assert_eq!(fan_out.members_beyond_leaders(), 1);
        assert_eq!(next(&mut second).await, ("SNAPSHOT".into(), 0));
        assert_eq!(next(&mut second).await, ("CHANGES".into(), 1));
        assert_eq!(next(&mut second).await, ("CHANGES".into(), 2));
        script.send(map(3)).unwrap();
        script.send(change(4)).unwrap();
        for member in [&mut first, &mut second] {
            assert_eq!(next(member).await, ("SNAPSHOT".into(), 3));
            assert_eq!(next(member).await, ("CHANGES".into(), 4));
        }
        // A later joiner starts at the latest whole map.
        let mut third = fan_out.join(key(), scripted.execute(), 16);
        assert_eq!(next(&mut third).await, ("SNAPSHOT".into(), 3));
        assert_eq!(next(&mut third).await, ("CHANGES".into(), 4));
        assert_eq!(
            scripted.started.load(Ordering::SeqCst),
            1,
            "one execution for all three"
        );
    }

    #[tokio::test]
    async fn a_member_that_falls_behind_starts_again_from_the_base_without_a_gap() {
        let (fan_out, scripted) = (Arc::new(FanOut::default()), Arc::new(Scripted::default()));
        let script = scripted.next_script();
        // Room for two unread events.
        let mut reader = fan_out.join(key(), scripted.execute(), 2);
        let mut slow = fan_out.join(key(), scripted.execute(), 2);
        script.send(map(0)).unwrap();
        assert_eq!(next(&mut reader).await, ("SNAPSHOT".into(), 0));
        for version in 1..=5 {
            script.send(change(version)).unwrap();
            assert_eq!(
                next(&mut reader).await,
                ("CHANGES".into(), u64::from(version))
            );
        }
        // Six events behind: it is sent the base and every change since, in order.
        let mut got = Vec::new();
        for _ in 0..6 {
            got.push(next(&mut slow).await);
        }
        let want: Vec<_> = std::iter::once(("SNAPSHOT".to_owned(), 0))
            .chain((1..=5).map(|version| ("CHANGES".to_owned(), version)))
            .collect();
        assert_eq!(got, want);
        script.send(change(6)).unwrap();
        assert_eq!(next(&mut slow).await, ("CHANGES".into(), 6));
    }

    #[tokio::test]
    async fn a_long_group_keeps_a_fresh_map_for_joiners_and_they_skip_what_it_holds() {
        let (fan_out, scripted) = (Arc::new(FanOut::default()), Arc::new(Scripted::default()));
        let script = scripted.next_script();
        let fresh = scripted.next_script();
        let mut member = fan_out.join(key(), scripted.execute(), 1024);
        script.send(map(0)).unwrap();
        assert_eq!(next(&mut member).await, ("SNAPSHOT".into(), 0));
        let last = COMPACT_AFTER as u32;
        for version in 1..=last {
            script.send(change(version)).unwrap();
            assert_eq!(
                next(&mut member).await,
                ("CHANGES".into(), u64::from(version))
            );
        }
        // The backlog reached its length: a second execution reads a whole map, which is
        // ahead of the group (version last + 2) and sent to no member.
        fresh.send(map(last + 2)).unwrap();
        // The fresh map becomes the base.
        eventually(|| fan_out_base_is(&fan_out, last + 2)).await;
        assert_eq!(scripted.started.load(Ordering::SeqCst), 2);
        let mut joiner = fan_out.join(key(), scripted.execute(), 1024);
        assert_eq!(
            next(&mut joiner).await,
            ("SNAPSHOT".into(), u64::from(last + 2))
        );
        for version in last + 1..=last + 3 {
            script.send(change(version)).unwrap();
            assert_eq!(
                next(&mut member).await,
                ("CHANGES".into(), u64::from(version))
            );
        }
        // The joiner skips the two changes its map held.
        assert_eq!(
            next(&mut joiner).await,
            ("CHANGES".into(), u64::from(last + 3))
        );
    }

    fn fan_out_base_is(fan_out: &FanOut, version: u32) -> bool {
        let groups = fan_out.groups.lock().unwrap();
        let membership = groups.get(&key()).and_then(Weak::upgrade).unwrap();
        let backlog = membership.group.backlog.lock().unwrap();
        backlog
            .base
            .as_ref()
            .is_some_and(|(base, _)| *base == version)
            && backlog.since.is_empty()
    }

    #[tokio::test]
    async fn the_execution_stops_with_its_last_member_and_an_error_ends_every_member() {
        let (fan_out, scripted) = (Arc::new(FanOut::default()), Arc::new(Scripted::default()));
        let script = scripted.next_script();
        let first = fan_out.join(key(), scripted.execute(), 16);
        let second = fan_out.join(key(), scripted.execute(), 16);
        script.send(map(0)).unwrap();
        drop(first);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            scripted.running.load(Ordering::SeqCst),
            1,
            "one member is left"
        );
        drop(second);
        // The execution is dropped with the last member.
        eventually(|| scripted.running.load(Ordering::SeqCst) == 0).await;

        // A new subscriber starts a new execution; an error reaches each member and ends it.
        let script = scripted.next_script();
        let mut members = [
            fan_out.join(key(), scripted.execute(), 16),
            fan_out.join(key(), scripted.execute(), 16),
        ];
        eventually(|| scripted.started.load(Ordering::SeqCst) == 2).await;
        let error = async_graphql::ServerError::new("gone", None);
        script
            .send((
                Some(SeatMapNote::Failure),
                Response::from_errors(vec![error]),
            ))
            .unwrap();
        for member in &mut members {
            let event = member.next().await.unwrap();
            assert!(matches!(&event.body, SharedBody::Error(json) if json.contains("gone")));
            assert!(member.next().await.is_none());
        }
        // The ended group is forgotten: the next subscriber runs the request again.
        let _script = scripted.next_script();
        let _member = fan_out.join(key(), scripted.execute(), 16);
        eventually(|| scripted.started.load(Ordering::SeqCst) == 3).await;
    }

    /// Waits (at most 5 s) until `done`: the leader runs in a task of its own.
    async fn eventually(done: impl Fn() -> bool) {
        let waited = tokio::time::timeout(Duration::from_secs(5), async {
            while !done() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        });
        waited.await.expect("in time");
    }
}
