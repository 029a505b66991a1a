//! A cap on the GraphQL requests one gateway process runs at once. Past the cap a request is
//! refused before its body is read (503, `Retry-After`), in microseconds, so that a crowd
//! larger than the database can serve gets quick refusals it can retry instead of a queue in
//! which every request outlives its deadline. The cap is a flag (`--max-in-flight`); it should
//! be a small multiple of the database connections (`--db-max-pool-size`): enough to keep every
//! connection busy while requests do their own work between commands, not so many that a
//! request waits for a connection longer than its commands take.
//!
//! Not every request is worth the same to a crowd of buyers. A hold starts a purchase; a
//! confirmation, a release or a cancellation finishes one, and only finishing frees seats for
//! the next buyer. When every place could go to holds, a crowd of buyers trying for seats that
//! are taken kept out the few who held seats and wanted to pay for them or give them back
//! (issue 34's benchmark, 2 hot showtimes at 600 clients: 179 seat changes/s against 544 at
//! 40). So holds take a second place of their own ([`Admission::try_start`]), of which there
//! are only [`START_SHARE`] of the cap: the rest is kept for the work that finishes purchases.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// The share of the in-flight places that holds, which start purchases, may take at once
/// (three quarters).
pub const START_SHARE: (usize, usize) = (3, 4);

/// The in-flight cap of one process; cheap to clone.
#[derive(Debug, Clone)]
pub struct Admission {
    permits: Arc<Semaphore>,
    limit: usize,
    /// The places of requests that start a purchase, fewer than `permits`.
    starts: Arc<Semaphore>,
    start_limit: usize,
}

/// A request's place among those in flight, given back when dropped.
#[derive(Debug)]
pub struct Admitted {
    _permit: OwnedSemaphorePermit,
}

impl Admission {
    /// At most `limit` requests at once (at least one).
    pub fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        let start_limit = (limit * START_SHARE.0 / START_SHARE.1).max(1);
        Admission {
            permits: Arc::new(Semaphore::new(limit)),
            limit,
            starts: Arc::new(Semaphore::new(start_limit)),
            start_limit,
        }
    }

    /// A place for one more request, or OVERLOADED (code UNAVAILABLE) at once when every
    /// place is taken: never a wait.
    pub fn try_admit(&self) -> Result<Admitted, ApiError> {
        take(&self.permits, "in_flight", || {
            format!(
                "the gateway is serving as many requests as it can ({}); retry in a moment",
                self.limit
            )
        })
    }

    /// A place for one more request that starts a purchase (a hold), beside its place among
    /// all requests; OVERLOADED at once when [`START_SHARE`] of the cap already start one.
    pub fn try_start(&self) -> Result<Admitted, ApiError> {
        take(&self.starts, "starts", || {
            format!(
                "the gateway is placing as many holds as it can ({}); retry in a moment",
                self.start_limit
            )
        })
    }

    /// Requests in flight now.
    pub fn in_flight(&self) -> usize {
        self.limit - self.permits.available_permits()
    }
}

/// A permit of `places` at once, or OVERLOADED saying `why`, counted under `reason`.
fn take(
    places: &Arc<Semaphore>,
    reason: &'static str,
    why: impl FnOnce() -> String,
) -> Result<Admitted, ApiError> {
    match Arc::clone(places).try_acquire_owned() {
        Ok(permit) => Ok(Admitted { _permit: permit }),
        Err(_) => {
            crate::telemetry::metrics::overload_refused(reason);
            Err(ApiError::Overloaded(why()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn past_the_cap_a_request_is_refused_and_a_finished_one_frees_its_place() {
        let admission = Admission::new(2);
        let first = admission.try_admit().expect("first");
        let _second = admission.try_admit().expect("second");
        let refused = admission.try_admit().expect_err("third is over the cap");
        assert_eq!(refused.code(), ErrorCode::Unavailable);
        assert!(refused.client_message().contains("(2)"), "{refused}");
        assert!(refused.effect_unknown(), "a retry runs again");
        assert_eq!(admission.in_flight(), 2);
        drop(first);
        assert_eq!(admission.in_flight(), 1);
        admission.try_admit().expect("a place came free");
    }

    #[test]
    fn holds_take_at_most_three_quarters_of_the_places_and_the_rest_finish_purchases() {
        let admission = Admission::new(8);
        let holds: Vec<_> = (0..6)
            .map(|_| {
                let place = admission.try_admit().expect("a place");
                (place, admission.try_start().expect("a hold's place"))
            })
            .collect();
        let seventh = admission.try_admit().expect("a place among all");
        let refused = admission
            .try_start()
            .expect_err("six holds are three quarters");
        assert_eq!(refused.code(), ErrorCode::Unavailable);
        drop(seventh);
        let _confirm = admission.try_admit().expect("a confirmation is not a hold");
        let _release = admission.try_admit().expect("nor is a release");
        drop(holds);
        admission.try_start().expect("the holds finished");
    }
}
