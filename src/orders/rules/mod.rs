//! Refunds: which seats of an order a cancellation gives back, what each seat is refunded
//! under the cinema's refund policy, and what an order counts for in the sales figures once
//! its refunds are taken off. Pure rules; every amount is an integer in fen.
//!
//! One file per rule, as each is asked by someone else: the policy a cinema sets
//! (`refund_policy`, written by the catalogue), the plan of one cancellation (`refund_plan`),
//! and the figure an order counts for (`sales_figure`, read by the sales projection).

mod refund_plan;
mod refund_policy;
mod sales_figure;

pub use refund_plan::{
    plan_refund, Asked, OrderedItem, OrderedLines, OrderedSeat, RefundCause, RefundPlan,
    RefundedItem,
};
pub use refund_policy::{RefundPolicy, MAX_CUTOFF_MINUTES, MAX_FEE_PER_SEAT};
pub use sales_figure::SalesFigure;
