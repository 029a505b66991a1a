//! The deadline of the request a task is serving, set once by the HTTP layer around the whole
//! request and read by the store before each database command (a task-local, so every layer in
//! between passes nothing). Work outside a request (background passes, spawned follow-ups)
//! has none and is bounded by the database timeout alone.
//!
//! Beside it, the request's place at the door ([`super::door`]): the HTTP layer classifies the
//! request once it is about to run it ([`classify`]), a resolver that starts or finishes a
//! purchase says so before its first command, and the store's gate admits the request at its
//! first command after that ([`next_command`], [`keep`]). The place is kept until the request
//! ends. Commands before the request is classified (the caller's key, looked up once per key)
//! are not admitted: they are the door's own work.

use std::future::Future;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::door::{Class, Ticket};

tokio::task_local! {
    static REQUEST: Request;
}

/// The running request's budget and place.
#[derive(Debug)]
struct Request {
    deadline: Instant,
    /// `UNCLASSIFIED`, `ADMITTED`, or the class it is to be admitted as.
    state: AtomicU8,
    /// Its place at the door, from its first command after it was classified to its end.
    ticket: Mutex<Option<Ticket>>,
}

const UNCLASSIFIED: u8 = 0;
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
}

/// The running request's deadline, and whether this command must first admit it (which it
/// then counts as done); `None` outside a request.
pub fn next_command() -> Option<NextCommand> {
    REQUEST
        .try_with(|request| {
            let mut admit = None;
            let _ = request
                .state
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                    admit = class_of(state);
                    admit.map(|_| ADMITTED)
                });
            NextCommand {
                deadline: request.deadline,
                admit,
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
                (state != ADMITTED).then_some(code(class))
            });
    });
}

/// Keeps the running request's place at the door until it ends.
pub fn keep(ticket: Ticket) {
    let _ = REQUEST.try_with(|request| {
        *request.ticket.lock().expect("request ticket") = Some(ticket);
    });
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
            let command = |admit| Some(NextCommand { deadline, admit });
            assert_eq!(
                next_command(),
                command(None),
                "not classified: not admitted"
            );
            classify(Class::Read);
            classify(Class::Finish);
            assert_eq!(
                next_command(),
                command(Some(Class::Finish)),
                "the last class"
            );
            assert_eq!(next_command(), command(None), "once");
            classify(Class::Start);
            assert_eq!(next_command(), command(None), "admitted already");
            let left = remaining().unwrap();
            assert!(left <= Duration::from_secs(5) && left > Duration::from_secs(4));
        })
        .await;
        assert!(remaining().is_none(), "the scope ends with the request");
    }

    #[tokio::test]
    async fn a_passed_deadline_leaves_nothing() {
        within(Instant::now() - Duration::from_millis(1), async {
            assert_eq!(remaining(), Some(Duration::ZERO));
        })
        .await;
    }
}
