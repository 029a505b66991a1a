//! The webhooks' part of the schema: the endpoint and delivery types, the `webhookEndpoints`
//! query and the endpoint mutations.

pub mod mutation;
pub mod query;
pub mod types;

pub use mutation::WebhookMutation;
pub use query::WebhookQuery;
pub use types::{CreatedWebhookEndpoint, WebhookEndpoint};
