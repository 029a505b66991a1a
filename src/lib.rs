//! Boxoffice: a GraphQL gateway for a national cinema ticketing platform on MongoDB.
//!
//! Layers, outermost first: `http` (axum routes) → `graphql` (schema, resolvers, loaders) →
//! `booking` and `catalogue` (the channels' and the operators' use cases) → `store` (the only
//! code that talks to MongoDB) → `domain` (pure rules). `background` runs the periodic tasks of
//! `booking` and `catalogue`; `config` reads flags and environment; `demo` generates the demo
//! catalogue. Features are moving into folders of their own, each with its rules, use
//! cases, store code and GraphQL types: `webhooks`, `want_to_see`, `counters`, `seat_search`, `admissions`, `channel_events` and `sales` so far. See ARCHITECTURE.md.

pub mod admissions;
#[cfg(test)]
mod alloc_count;
pub mod background;
pub mod booking;
pub mod catalogue;
pub mod channel_events;
pub mod config;
pub mod counters;
pub mod demo;
pub mod domain;
pub mod error;
pub mod graphql;
pub mod holds;
pub mod http;
pub mod inventory;
pub mod live;
pub mod orders;
pub mod overload;
pub mod sales;
pub mod seat_search;
pub mod shutdown;
pub mod store;
pub mod telemetry;
pub mod want_to_see;
pub mod webhooks;

pub use graphql::schema;
pub use http::{app, serve, serve_until_shutdown, AppState};
