//! Orders in the schema: `Order`, `OrderChange`, `confirmHold` / `cancelOrder`,
//! `Query.order` / `Query.orders`, and `Subscription.orderChanged`.

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
