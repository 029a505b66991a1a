//! Boxoffice: a GraphQL gateway for a national cinema ticketing platform on MongoDB.
//!
//! One folder per feature, each laid out the same way: its pure rules (`rules`), its use
//! cases, its store code (`store/`, the only code that talks to MongoDB beside the shared
//! plumbing) and its GraphQL types and roots (`graphql/`). The features: `inventory` (the seat
//! inventory, the one module that changes it), `holds`, `orders` (and refunds),
//! `idempotency`, `admissions`, `channel_events`, `webhooks`, `want_to_see`, `counters`,
//! `seat_search`, `sales`, `catalogue`, `operators`, `live` (live feeds) and `gateways`.
//! Shared plumbing: `store` (the database client, codec, documents, indexes, outbox),
//! `domain` (shared pure rules: ids, money, paging, layouts, seats), `graphql` (what the
//! features' resolvers stand on: context, loaders, limits, errors, shared types; it names no
//! feature), `http` (axum routes), `overload`, `telemetry`. Above the features: `schema`
//! assembles the schema from their roots and runs it; `assembly` wires the handlers features
//! register with each other; `background` runs the periodic tasks, `config` reads flags and
//! environment, `demo` generates the demo catalogue.
//! `tests/api/architecture.rs` holds the lines between them; see ARCHITECTURE.md.

pub mod admissions;
#[cfg(test)]
mod alloc_count;
pub mod assembly;
pub mod background;
pub mod catalogue;
pub mod channel_events;
pub mod checkout;
pub mod concessions;
pub mod config;
pub mod counters;
pub mod demo;
pub mod domain;
pub mod error;
pub mod gateways;
pub mod graphql;
pub mod group_commit;
pub mod holds;
pub mod http;
pub mod idempotency;
pub mod inventory;
pub mod keyed_locks;
pub mod live;
pub mod operators;
pub mod orders;
pub mod overload;
pub mod sales;
pub mod schema;
pub mod seat_search;
pub mod shutdown;
pub mod store;
pub mod telemetry;
pub mod vouchers;
pub mod waiting_list;
pub mod want_to_see;
pub mod webhooks;

pub use http::{app, serve, serve_until_shutdown, AppState};
pub use schema::schema;
