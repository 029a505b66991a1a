//! Orders in the schema: `Order`, `OrderChange`, `confirmHold` / `cancelOrder`, the
//! counter's `collectItems`,
//! `Query.order` / `Query.orders`, and `Subscription.orderChanged`.

mod item_collection;
mod mutation;
mod order_change;
mod query;
mod subscription;
mod types;

pub use item_collection::ItemCollectionMutation;
pub use mutation::OrderMutation;
pub use order_change::OrderChange;
pub use query::OrderQuery;
pub use subscription::OrderSubscription;
pub use types::Order;
