//! Orders in the schema: `Order`, `OrderChange`, `confirmHold` / `cancelOrder`,
//! `Query.order(s)`, and `Subscription.orderEvents`.

mod mutation;
mod order_change;
mod query;
mod subscription;
mod types;

pub use mutation::OrderMutation;
pub use order_change::OrderChange;
pub use query::OrderQuery;
pub use subscription::OrderSubscription;
pub use types::Order;
