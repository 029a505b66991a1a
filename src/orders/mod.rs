//! Orders and refunds: a hold confirmed into an order (PENDING, the seats sold to it in one
//! inventory update, CONFIRMED), an order cancelled whole or in part under its cinema's refund
//! policy (the refund recorded on the order, the seats given back, the refund marked done),
//! a whole showtime cancelled (its holds released, every order refunded in full), and the
//! reconciler that settles an order a gateway left between two writes. The seat inventory is
//! the authority on which seats an order holds (invariant 6); its writes are `inventory`'s.
//!
//! It owns the `orders` collection (`store/`). Laid out as every feature is: `rules` (pure:
//! the refund policy, the plan of a refund, the sales figures it moves), the use cases
//! (`confirm`, written a batch at a time by `confirm_batch`, `refunds` and `refund_finish`,
//! `showtime_cancel`, `reconciler`), `store`, `graphql`.

mod collect;
mod confirm;
mod confirm_batch;
pub mod graphql;
mod lookups;
mod reconciler;
mod refund_finish;
mod refunds;
pub mod rules;
mod showtime_cancel;
pub mod store;

pub use collect::{collect_items, Collected, CollectedItem};
pub use confirm::{confirm_hold, list_orders, order_of, settle_order, Customer};
pub use confirm_batch::Confirmations;
pub use lookups::OrderLookups;
pub use reconciler::{settle_orders, PENDING_GRACE};
pub use refund_finish::refund_under_way;
pub use refunds::{cancel_order, CancelRequest};
pub use showtime_cancel::{
    begin_cancellation, cancellation_summary, resume_cancellation, resume_cancellations,
    CancelStart, ShowtimeCancellation, CANCEL_GRACE,
};
pub use store::WholeCancel;
