//! What a feature's GraphQL part names of a feature that depends on it. Named here, on the top
//! floor, because naming the owner would close a cycle in the feature graph
//! (`tests/api/feature_graph.rs`, which also holds that a feature names the schema only here):
//! a hold's and an admission's `showtime` is the catalogue's `Showtime`, and the catalogue
//! depends on holds and admissions (directly, and through orders and the inventory).
//!
//! Why they stay: async-graphql fixes a field's type at compile time (the SDL's `Showtime`
//! comes from the Rust type), so nothing registered at assembly can stand in for it; and the
//! catalogue cannot define the field, as `Hold` and `Admission` are their own features' types.

pub use crate::catalogue::graphql::types::Showtime;
