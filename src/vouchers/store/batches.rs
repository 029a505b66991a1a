//! `voucher_batches` and `voucher_codes`: making a batch (its codes first, then the batch, so a
//! listed batch has every code), finding a code's batch, listing and disabling batches.

use bson::doc;

use super::documents::{VoucherBatchDoc, VoucherCodeDoc};
use crate::domain::ids::VoucherBatchId;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::{names, Store};

impl Store {
    /// Writes a batch's codes, then the batch. Codes or a batch already there were written by
    /// an earlier attempt at the same request (the same id, so the same codes); a code there
    /// under another batch (two derived codes alike: about 2^-59 per pair) is an error, and
    /// the batch is not written.
    #[tracing::instrument(skip(self, batch, codes), fields(batch = %batch.id, codes = codes.len()))]
    pub(in crate::vouchers) async fn insert_voucher_batch(
        &self,
        batch: &VoucherBatchDoc,
        codes: &[VoucherCodeDoc],
    ) -> Result<(), ApiError> {
        let existed = self.insert_new(names::VOUCHER_CODES, codes).await?;
        if !existed.is_empty() {
            let hashes: Vec<&str> = existed.iter().map(|&i| codes[i].hash.as_str()).collect();
            let found: Vec<VoucherCodeDoc> = self
                .find_limited(
                    names::VOUCHER_CODES,
                    doc! { "_id": { "$in": &hashes } },
                    None,
                    None,
                    hashes.len(),
                )
                .await?;
            if found.iter().any(|code| code.batch != batch.id) {
                return Err(ApiError::internal(format!(
                    "a code of batch {} is another batch's; make the batch again",
                    batch.id
                )));
            }
        }
        self.insert_new(names::VOUCHER_BATCHES, std::slice::from_ref(batch))
            .await?;
        Ok(())
    }

    /// The code whose hash is `hash`, if any.
    #[tracing::instrument(skip_all)]
    pub(in crate::vouchers) async fn voucher_code(
        &self,
        hash: &str,
    ) -> Result<Option<VoucherCodeDoc>, ApiError> {
        self.bounded(
            Call::new(names::VOUCHER_CODES, "find"),
            self.collection::<VoucherCodeDoc>(names::VOUCHER_CODES)
                .find_one(doc! { "_id": hash }),
        )
        .await
    }

    /// Batch `id`.
    #[tracing::instrument(skip(self))]
    pub(in crate::vouchers) async fn voucher_batch(
        &self,
        id: VoucherBatchId,
    ) -> Result<Option<VoucherBatchDoc>, ApiError> {
        self.bounded(
            Call::new(names::VOUCHER_BATCHES, "find"),
            self.collection::<VoucherBatchDoc>(names::VOUCHER_BATCHES)
                .find_one(doc! { "_id": id.oid() }),
        )
        .await
    }

    /// `operator`'s batches, newest first, at most `limit` (index `operator`).
    #[tracing::instrument(skip(self))]
    pub(in crate::vouchers) async fn voucher_batches(
        &self,
        operator: &str,
        limit: usize,
    ) -> Result<Vec<VoucherBatchDoc>, ApiError> {
        self.find_limited(
            names::VOUCHER_BATCHES,
            doc! { "operator": operator },
            Some(doc! { "operator": 1, "_id": -1 }),
            None,
            limit,
        )
        .await
    }

    /// Disables batch `id` of `operator`; false when it has none such.
    #[tracing::instrument(skip(self))]
    pub(in crate::vouchers) async fn disable_voucher_batch(
        &self,
        operator: &str,
        id: VoucherBatchId,
    ) -> Result<bool, ApiError> {
        let updated = self
            .bounded(
                Call::new(names::VOUCHER_BATCHES, "update"),
                self.collection::<VoucherBatchDoc>(names::VOUCHER_BATCHES)
                    .update_one(
                        doc! { "_id": id.oid(), "operator": operator },
                        doc! { "$set": { "enabled": false } },
                    ),
            )
            .await?;
        Ok(updated.matched_count == 1)
    }
}
