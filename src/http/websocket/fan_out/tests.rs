//! The fan-out's groups, with executions a test scripts by hand: joiners, members that fall
//! behind, fresh bases, the last member leaving, errors.

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
                    if response.data == Value::String("panic".into()) {
                        panic!("a scripted panic");
                    }
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

#[tokio::test]
async fn a_panic_in_the_execution_ends_every_member_with_internal() {
    let (fan_out, scripted) = (Arc::new(FanOut::default()), Arc::new(Scripted::default()));
    let script = scripted.next_script();
    let mut members = [
        fan_out.join(key(), scripted.execute(), 16),
        fan_out.join(key(), scripted.execute(), 16),
    ];
    script.send(map(0)).unwrap();
    script
        .send((None, Response::new(Value::String("panic".into()))))
        .unwrap();
    for member in &mut members {
        assert_eq!(next(member).await, ("SNAPSHOT".into(), 0));
        let event = tokio::time::timeout(Duration::from_secs(5), member.next())
            .await
            .expect("in time")
            .expect("an event");
        assert!(
            matches!(&event.body, SharedBody::Error(json) if json.contains("INTERNAL")),
            "{event:?}"
        );
        assert!(member.next().await.is_none());
    }
}
