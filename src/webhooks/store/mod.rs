//! The webhooks' store code: the document shapes of `webhook_endpoints` and
//! `webhook_deliveries`, and every query and write of them (as `Store` methods).

mod deliveries;
pub mod documents;
mod endpoints;
mod indexes;
