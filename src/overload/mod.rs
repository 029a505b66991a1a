//! What keeps a gateway selling when more buyers come than it can serve (issues 34 and 48):
//! work it cannot finish in time is refused at once and cheaply (503 with `Retry-After`),
//! before it sends a database command, instead of waiting in a queue past its deadline.
//!
//! - [`admission`]: a ceiling on the GraphQL requests a process holds at once (memory); one
//!   over it is refused before its body is read.
//! - [`door`]: whether a request may use the database, decided before its first command, by
//!   a limit ([`limit`]) that follows the database's latency; requests that finish a purchase
//!   always pass; [`wait_estimate`] says how long a queued request would wait.
//! - [`deadline`]: each request's deadline, class and place at the door, carried with the
//!   request's task, so the store's gate admits it at its first command and starts no
//!   command the time left cannot finish.
//!
//! The gate on database connections itself is the store's (`store::gate`), and the
//! per-showtime queue is the holds' (`holds::showtime_locks`); both read [`deadline`].

pub mod admission;
pub mod deadline;
pub mod door;
pub mod limit;
mod wait_estimate;

pub use admission::{Admission, Admitted};
pub use door::{Class, Door, Ticket};
