//! The deadline of the request a task is serving, set once by the HTTP layer around the whole
//! request and read by the store before each database command (a task-local, so every layer in
//! between passes nothing). Work outside a request (background passes, spawned follow-ups)
//! has none and is bounded by the database timeout alone.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

tokio::task_local! {
    static REQUEST: Request;
}

/// The running request's budget.
#[derive(Debug)]
struct Request {
    deadline: Instant,
    /// Whether the request has sent a database command: until it has, it did no work and is
    /// refused at once when no connection is free; after, it has work to lose and may wait.
    started: AtomicBool,
}

/// Runs `work` as a request that must be answered by `deadline`.
pub async fn within<F: Future>(deadline: Instant, work: F) -> F::Output {
    let request = Request {
        deadline,
        started: AtomicBool::new(false),
    };
    REQUEST.scope(request, work).await
}

/// The running request's deadline, and whether this is its first database command (marking
/// it started); `None` outside a request.
pub fn next_command() -> Option<(Instant, bool)> {
    REQUEST
        .try_with(|request| {
            let first = !request.started.swap(true, Ordering::Relaxed);
            (request.deadline, first)
        })
        .ok()
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
    async fn a_request_sees_its_deadline_and_its_first_command_once() {
        assert!(next_command().is_none(), "no request, no deadline");
        let deadline = Instant::now() + Duration::from_secs(5);
        within(deadline, async {
            assert_eq!(next_command(), Some((deadline, true)));
            assert_eq!(next_command(), Some((deadline, false)));
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
