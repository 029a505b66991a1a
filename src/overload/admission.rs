//! A cap on the GraphQL requests one gateway process runs at once. Past the cap a request is
//! refused before its body is read (503, `Retry-After`), in microseconds, so that a crowd
//! larger than the database can serve gets quick refusals it can retry instead of a queue in
//! which every request outlives its deadline. The cap is a flag (`--max-in-flight`); it should
//! be a small multiple of the database connections (`--db-max-pool-size`): enough to keep every
//! connection busy while requests do their own work between commands, not so many that a
//! request waits for a connection longer than its commands take.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// The in-flight cap of one process; cheap to clone.
#[derive(Debug, Clone)]
pub struct Admission {
    permits: Arc<Semaphore>,
    limit: usize,
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
        Admission {
            permits: Arc::new(Semaphore::new(limit)),
            limit,
        }
    }

    /// A place for one more request, or OVERLOADED (code UNAVAILABLE) at once when every
    /// place is taken: never a wait.
    pub fn try_admit(&self) -> Result<Admitted, ApiError> {
        match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => Ok(Admitted { _permit: permit }),
            Err(_) => {
                crate::telemetry::metrics::overload_refused("in_flight");
                Err(ApiError::Overloaded(format!(
                    "the gateway is serving as many requests as it can ({}); retry in a moment",
                    self.limit
                )))
            }
        }
    }

    /// Requests in flight now.
    pub fn in_flight(&self) -> usize {
        self.limit - self.permits.available_permits()
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
}
