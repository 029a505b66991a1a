//! A ceiling on the GraphQL requests one gateway process holds at once, whatever they are
//! doing (parsing, waiting at the door, running): past `--max-in-flight` a request is refused
//! before its body is read (503, `Retry-After`), in microseconds. It bounds the memory a crowd
//! can make a process hold; it is not what keeps the database at its best concurrency, which
//! is the door's work ([`super::door`]), so it is set well above the door's limit and its
//! queue, and a crowd meets the door first.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;

/// The in-flight ceiling of one process; cheap to clone.
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
