//! Webhooks: a channel's endpoints, and the delivery of its events to them.
//!
//! It owns the `webhook_endpoints` and `webhook_deliveries` collections. A channel makes,
//! lists and deletes endpoints (`endpoints`, the cap and the URL rule in `rules`); every
//! gateway delivers due endpoints under a lease (`delivery`), one signed POST at a time to a
//! public address (`sender`). It registers with the channel events relay a handler that marks
//! a channel's endpoints due when its log grows (`endpoints_due`; `endpoint_channels` says
//! which channels have any), and it reads the events it sends from that log.
//!
//! Laid out as every feature is: `rules` (pure, no I/O), the use cases beside it, `store`
//! (the only part that talks to MongoDB), `graphql` (the schema's types and fields).

pub mod delivery;
pub mod endpoint_channels;
pub mod endpoints;
pub mod endpoints_due;
pub mod graphql;
pub mod rules;
pub mod sender;
pub mod store;

pub use delivery::{Deliverer, LEASE, POLL};
pub use endpoint_channels::{EndpointChannels, ENDPOINTS_READ_EVERY};
pub use endpoints::{
    create_webhook_endpoint, delete_webhook_endpoint, redeliver_webhook_event, webhook_deliveries,
    webhook_endpoint_of, webhook_endpoints,
};
pub use endpoints_due::EndpointsDue;
pub use sender::{Sender, Sent, POST_TIMEOUT};
