//! The want-to-see lists' part of the schema: marking and unmarking, a customer's list, a
//! movie's wanters and counts.

pub mod mutation;
pub mod query;
pub mod types;

pub use mutation::WantToSeeMutation;
pub use query::WantToSeeQuery;
