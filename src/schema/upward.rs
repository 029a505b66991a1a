//! What a feature's GraphQL part names of a feature that depends on it. Named here, on the top
//! floor, because naming the owner would close a cycle in the feature graph
//! (`tests/api/feature_graph.rs`): a hold's and an admission's `showtime` is the catalogue's
//! `Showtime` (the catalogue names holds and admissions), and `Subscription.channelEvents`
//! follows the live hub (which reads the channel events' log). A feature names the schema
//! only here (`tests/api/feature_graph.rs`); untying these is issue 49's item 4.

pub use crate::catalogue::graphql::types::Showtime;
pub use crate::live::graphql::live;
