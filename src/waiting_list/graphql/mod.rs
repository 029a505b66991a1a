//! The waiting list's part of the schema: `joinWaitingList`, `leaveWaitingList` and
//! `waitingListEntry` (channels only).

pub mod mutation;
pub mod query;
pub mod types;

pub use mutation::WaitingListMutation;
pub use query::WaitingListQuery;
pub use types::WaitingListEntry;
