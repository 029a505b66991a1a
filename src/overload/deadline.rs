//! The deadline of the request a task is serving, set once by the HTTP layer around the whole
//! request and read by the store before each database command (a task-local, so every layer in
//! between passes nothing). Work outside a request (background passes, spawned follow-ups)
//! has none and is bounded by the database timeout alone.
//!
//! Beside it, the request's place at the door ([`super::door`]): the HTTP layer classifies the
//! request once it is about to run it ([`classify`]), a resolver that starts or finishes a
//! purchase says so before its first command, and the store's gate admits the request at its
//! first command after that ([`next_command`], [`keep`]). The place is kept until the request
//! ends. Commands sent side by side while the first is being admitted wait for its outcome
//! ([`admission_settled`]): a request refused at the door sends none. Commands before the request is classified (the caller's key, looked up once per key)
//! are not admitted: they are the door's own work.

use std::future::Future;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::door::{Class, Ticket};

tokio::task_local! {
    static REQUEST: Request;
}

/// The running request's budget and place.
#[derive(Debug)]
struct Request {
    deadline: Instant,
    /// `UNCLASSIFIED`, the class it is to be admitted as, `ADMITTING`, `REFUSED` or
    /// `ADMITTED`.
    state: AtomicU8,
    /// Its place at the door, from its first command after it was classified to its end.
    ticket: Mutex<Option<Ticket>>,
    /// Wakes the commands that wait for the admission's outcome.
    settled: Arc<tokio::sync::Notify>,
}

/// What a request keeps of its time for its write once its turn in a queue comes (a
/// showtime's lock or batch): it stops waiting this long before its deadline.
pub const LAST_SECOND: Duration = Duration::from_secs(1);

const UNCLASSIFIED: u8 = 0;
const ADMITTING: u8 = u8::MAX - 2;
const REFUSED: u8 = u8::MAX - 1;
const ADMITTED: u8 = u8::MAX;

fn code(class: Class) -> u8 {
    match class {
        Class::Read => 1,
        Class::Start => 2,
        Class::Finish => 3,
    }
}

fn class_of(code: u8) -> Option<Class> {
    match code {
        1 => Some(Class::Read),
        2 => Some(Class::Start),
        3 => Some(Class::Finish),
        _ => None,
    }
}

/// Runs `work` as a request that must be answered by `deadline`.
pub async fn within<F: Future>(deadline: Instant, work: F) -> F::Output {
    let request = Request {
        deadline,
        state: AtomicU8::new(UNCLASSIFIED),
        ticket: Mutex::new(None),
        settled: Arc::default(),
    };
    REQUEST.scope(request, work).await
}

/// What the store's gate learns of the running request before a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextCommand {
    pub deadline: Instant,
    /// The class to admit the request as: `Some` for its first command once classified (and
    /// only that one), `None` when it is admitted already or not yet classified.
    pub admit: Option<Class>,
    /// Another command is admitting the request (or it was refused): wait for the outcome.
    pub settling: bool,
}

/// The running request's deadline, and whether this command must first admit it (which it
/// then counts as done); `None` outside a request.
pub fn next_command() -> Option<NextCommand> {
    REQUEST
        .try_with(|request| {
            let mut admit = None;
            let before = request
                .state
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                    admit = class_of(state);
                    admit.map(|_| ADMITTING)
                })
                .unwrap_or_else(|state| state);
            NextCommand {
                deadline: request.deadline,
                admit,
                settling: admit.is_none() && matches!(before, ADMITTING | REFUSED),
            }
        })
        .ok()
}

/// Says what the running request does, for its place at the door; no effect once it is
/// admitted, or outside a request.
pub fn classify(class: Class) {
    let _ = REQUEST.try_with(|request| {
        let _ = request
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                (state < ADMITTING).then_some(code(class))
            });
    });
}

/// Keeps the running request's place at the door until it ends.
pub fn keep(ticket: Ticket) {
    let _ = REQUEST.try_with(|request| {
        *request.ticket.lock().expect("request ticket") = Some(ticket);
        settle(request, ADMITTED);
    });
}

/// The running request was refused at the door: its other commands are refused too.
pub fn refused() {
    let _ = REQUEST.try_with(|request| settle(request, REFUSED));
}

/// The command admitting the running request as `class` was dropped before the door
/// answered (its caller gave up on it): the next command admits the request instead, and
/// those waiting go on (unadmitted, as before a request is classified).
pub fn abandoned(class: Class) {
    let _ = REQUEST.try_with(|request| {
        let _ = request.state.compare_exchange(
            ADMITTING,
            code(class),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        request.settled.notify_waiters();
    });
}

fn settle(request: &Request, outcome: u8) {
    request.state.store(outcome, Ordering::Release);
    request.settled.notify_waiters();
}

/// Whether the running request's next command goes past the door without waiting for a place:
/// it is admitted, not classified yet, or no request runs (background work). A batch whose
/// leader would wait at the door while requests that hold places wait for the batch would
/// hold the door shut (`group_commit`).
pub fn passes_door() -> bool {
    REQUEST
        .try_with(|request| {
            let state = request.state.load(Ordering::Acquire);
            state == ADMITTED || state == UNCLASSIFIED
        })
        .unwrap_or(true)
}

/// Waits until the running request's admission is settled: true when it was admitted (or
/// outside a request), false when it was refused.
pub async fn admission_settled() -> bool {
    let Ok(settled) = REQUEST.try_with(|request| Arc::clone(&request.settled)) else {
        return true;
    };
    loop {
        let notified = settled.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        match REQUEST.try_with(|request| request.state.load(Ordering::Acquire)) {
            Ok(REFUSED) => return false,
            Ok(ADMITTING) => notified.await,
            _ => return true,
        }
    }
}

/// The time the running request has left (`None` outside a request).
pub fn remaining() -> Option<Duration> {
    REQUEST
        .try_with(|request| request.deadline.saturating_duration_since(Instant::now()))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_is_admitted_once_at_its_first_command_after_it_is_classified() {
        assert!(next_command().is_none(), "no request, no deadline");
        let deadline = Instant::now() + Duration::from_secs(5);
        within(deadline, async {
            let command = |admit, settling| {
                Some(NextCommand {
                    deadline,
                    admit,
                    settling,
                })
            };
            assert_eq!(
                next_command(),
                command(None, false),
                "not classified: not admitted"
            );
            classify(Class::Read);
            classify(Class::Finish);
            assert_eq!(
                next_command(),
                command(Some(Class::Finish), false),
                "the last class"
            );
            assert_eq!(
                next_command(),
                command(None, true),
                "once; a command beside it waits for the outcome"
            );
            let door = super::super::Door::new(1, Duration::from_secs(1), false);
            let (admitted, ()) = tokio::join!(admission_settled(), async {
                keep(
                    door.admit(Class::Finish, Duration::from_secs(1))
                        .await
                        .unwrap(),
                );
            });
            assert!(admitted);
            classify(Class::Start);
            assert_eq!(next_command(), command(None, false), "admitted already");
            let left = remaining().unwrap();
            assert!(left <= Duration::from_secs(5) && left > Duration::from_secs(4));
        })
        .await;
        assert!(remaining().is_none(), "the scope ends with the request");
    }

    #[tokio::test]
    async fn commands_beside_a_refused_admission_are_refused_too() {
        within(Instant::now() + Duration::from_secs(5), async {
            classify(Class::Start);
            assert!(next_command().unwrap().admit.is_some());
            let beside = next_command().unwrap();
            assert!(beside.settling);
            let (admitted, ()) = tokio::join!(admission_settled(), async { refused() });
            assert!(!admitted);
            assert!(next_command().unwrap().settling, "and every later one");
        })
        .await;
    }

    #[tokio::test]
    async fn a_passed_deadline_leaves_nothing() {
        within(Instant::now() - Duration::from_millis(1), async {
            assert_eq!(remaining(), Some(Duration::ZERO));
        })
        .await;
    }
}
