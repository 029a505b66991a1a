//! Operators: who may write what (a chain its cinemas, the platform every cinema), the
//! operators themselves, and the audit log of what they wrote. Every feature that operators
//! write (the catalogue, products, voucher batches) checks the writer here and records the
//! write here; this feature names none of them.

mod access;
pub mod graphql;
mod new_operator;
pub mod rules;
pub mod store;

pub use access::{
    add_to_scope, authorize, is_platform, operator_keys, operator_scope, record, record_under,
    Audited, Keyed,
};
pub use new_operator::create_operator;
