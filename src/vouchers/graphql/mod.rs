//! The vouchers' part of the schema: the batch types, the `voucherBatches` query and the
//! batch mutations (operators only). Redeeming is `holdSeats(input: {voucher})`.

pub mod mutation;
pub mod query;
pub mod types;

pub use mutation::VoucherMutation;
pub use query::VoucherQuery;
pub use types::{CreatedVoucherBatch, VoucherBatch};
