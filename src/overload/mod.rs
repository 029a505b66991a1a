//! What keeps a gateway selling when more buyers come than it can serve (issue 34): work it
//! cannot finish in time is refused at once and cheaply (503 with `Retry-After`), before it
//! takes a database connection, instead of waiting in a queue past its deadline.
//!
//! - [`admission`]: a cap on the GraphQL requests a process runs at once; one over it is
//!   refused before its body is read.
//! - [`deadline`]: each request's deadline, carried with the request's task, so the store's
//!   connection gate starts no command the time left cannot finish.
//!
//! The gate on database connections itself is the store's (`store::gate`), and the
//! per-showtime queue is the holds' (`holds::showtime_locks`); both read [`deadline`].

pub mod admission;
pub mod deadline;

pub use admission::{Admission, Admitted};
