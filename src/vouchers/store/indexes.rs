//! The vouchers' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, sparse, unique, Wanted};
use crate::store::names::{VOUCHER_BATCHES, VOUCHER_REDEMPTIONS};
use crate::store::Store;

impl Store {
    /// The indexes of batches and redemptions.
    pub(crate) fn vouchers_indexes() -> Vec<Wanted> {
        vec![
            // Vouchers: an operator's batches, newest first; a code's redemptions, one per
            // number (the cap holds by this index: its fields never change, see
            // `vouchers::store::redemptions`), the free ones, those the reconciler is due to look
            // at, and a batch's figures.
            index(
                VOUCHER_BATCHES,
                doc! { "operator": 1, "_id": -1 },
                "operator",
            ),
            unique(
                VOUCHER_REDEMPTIONS,
                doc! { "voucher": 1, "slot": 1 },
                "voucher_slot",
            ),
            index(
                VOUCHER_REDEMPTIONS,
                doc! { "voucher": 1, "state": 1 },
                "voucher_state",
            ),
            sparse(VOUCHER_REDEMPTIONS, doc! { "checkAt": 1 }, "check_at"),
            index(
                VOUCHER_REDEMPTIONS,
                doc! { "batch": 1, "state": 1 },
                "batch_state",
            ),
        ]
    }
}
