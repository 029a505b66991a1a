//! `voucher_redemptions` and `voucher_customers`: the redemptions a code has handed out, and
//! the holds each customer has them for. A redemption is claimed by a hold (RESERVED), made
//! final by the hold's order (REDEEMED) or given back (FREE). Every write names, in its
//! filter, the redemption, its hold and the states it assumes. The cap holds by the unique
//! index on (voucher, slot), every slot below the cap; the per-customer cap by the filter of
//! the one update that adds a hold to a customer's document.
//!
//! No unique key here ever changes in an update: a redemption's (voucher, slot) is fixed when
//! it is inserted. (A per-customer slot as a unique field set and unset would be simpler,
//! but SecantusDB 0.5.3 keeps an updated document's old unique key taken: the test server
//! would refuse a customer's slot that was given back.)

use bson::{doc, Document};
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use mongodb::options::ReturnDocument;

use super::documents::{RedemptionDoc, RedemptionState, VoucherCustomerDoc};
use crate::domain::ids::{HoldId, OrderId, RedemptionId, ShowtimeId, VoucherBatchId};
use crate::error::ApiError;
use crate::store::codec::{self, date, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::{is_duplicate_key, names, only_duplicate_keys, Store};

/// What a hold claims a redemption with.
#[derive(Debug, Clone)]
pub struct Claim {
    pub hold: HoldId,
    pub showtime: ShowtimeId,
    /// The customer it counts against (`voucher_customers`' id), under a per-customer cap.
    pub customer: Option<String>,
    pub check_at: DateTime<Utc>,
}

/// What a claim came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claimed {
    /// This redemption is the hold's now.
    Claimed(RedemptionId),
    /// No redemption is FREE (or another claim took the one this one found).
    NoneFree,
}

/// How many of a batch's redemptions are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RedemptionCount {
    pub reserved: i64,
    pub redeemed: i64,
}

fn state(state: RedemptionState) -> bson::Bson {
    bson::to_bson(&state).expect("a state serializes")
}

impl Store {
    /// Counts `hold` against customer `key`, unless `cap` holds count already: one update
    /// whose filter says so (an upsert for a new customer). True when `hold` counts (now, or
    /// already: a retry).
    #[tracing::instrument(skip(self, key))]
    pub(in crate::vouchers) async fn count_customer_hold(
        &self,
        key: &str,
        hold: HoldId,
        cap: u32,
    ) -> Result<bool, ApiError> {
        let customers = self.collection::<Document>(names::VOUCHER_CUSTOMERS);
        let full = format!("holds.{}", cap.saturating_sub(1));
        let filter = doc! {
            "_id": key,
            "holds": { "$ne": hold.oid() },
            full: { "$exists": false },
        };
        let update = doc! { "$push": { "holds": hold.oid() } };
        // A few times at most: two first holds of one customer may race to insert its document.
        for _ in 0..3 {
            let written = self
                .bounded_raw(
                    Call::new(names::VOUCHER_CUSTOMERS, "update"),
                    customers
                        .update_one(filter.clone(), update.clone())
                        .upsert(true),
                )
                .await?;
            match written {
                Ok(_) => return Ok(true),
                // The document exists and the filter refused: the hold is there, or it is full,
                // or it was inserted meanwhile (then try again).
                Err(error) if is_duplicate_key(&error) => {
                    let counted = self.customer_holds(key).await?;
                    if counted.contains(&hold) {
                        return Ok(true);
                    }
                    if counted.len() >= cap as usize {
                        return Ok(false);
                    }
                }
                Err(error) => return Err(error.into()),
            }
        }
        Ok(false)
    }

    /// The holds that count against customer `key`.
    #[tracing::instrument(skip_all)]
    pub(in crate::vouchers) async fn customer_holds(
        &self,
        key: &str,
    ) -> Result<Vec<HoldId>, ApiError> {
        let found = self
            .bounded(
                Call::new(names::VOUCHER_CUSTOMERS, "find"),
                self.collection::<VoucherCustomerDoc>(names::VOUCHER_CUSTOMERS)
                    .find_one(doc! { "_id": key }),
            )
            .await?;
        Ok(found.map(|customer| customer.holds).unwrap_or_default())
    }

    /// `hold` no longer counts against customer `key`.
    #[tracing::instrument(skip(self, key))]
    pub(in crate::vouchers) async fn uncount_customer_hold(
        &self,
        key: &str,
        hold: HoldId,
    ) -> Result<(), ApiError> {
        self.bounded(
            Call::new(names::VOUCHER_CUSTOMERS, "update"),
            self.collection::<Document>(names::VOUCHER_CUSTOMERS)
                .update_one(
                    doc! { "_id": key, "holds": hold.oid() },
                    doc! { "$pull": { "holds": hold.oid() } },
                ),
        )
        .await?;
        Ok(())
    }

    /// The highest number `voucher` has handed out (index `voucher_slot`).
    #[tracing::instrument(skip_all)]
    pub(in crate::vouchers) async fn highest_redemption_slot(
        &self,
        voucher: &str,
    ) -> Result<Option<i32>, ApiError> {
        let found: Vec<Document> = self
            .find_limited(
                names::VOUCHER_REDEMPTIONS,
                doc! { "voucher": voucher },
                Some(doc! { "voucher": -1, "slot": -1 }),
                Some(doc! { "slot": 1, "_id": 0 }),
                1,
            )
            .await?;
        Ok(found.first().and_then(|doc| doc.get_i32("slot").ok()))
    }

    /// Adds redemptions `numbers` of `voucher` as FREE ones; those there already (another
    /// claim added them) are left as they are.
    #[tracing::instrument(skip(self, voucher))]
    pub(in crate::vouchers) async fn add_free_redemptions(
        &self,
        voucher: &str,
        batch: VoucherBatchId,
        numbers: std::ops::Range<i32>,
    ) -> Result<(), ApiError> {
        let free: Vec<RedemptionDoc> = numbers
            .map(|slot| RedemptionDoc {
                id: codec::new_id(),
                voucher: voucher.to_owned(),
                batch,
                slot,
                state: RedemptionState::Free,
                hold: None,
                showtime: None,
                customer: None,
                check_at: None,
                order: None,
            })
            .collect();
        // One bounded command (at most `FREE_AHEAD` small documents).
        let inserted = self
            .bounded_raw(
                Call::new(names::VOUCHER_REDEMPTIONS, "insert"),
                self.collection::<RedemptionDoc>(names::VOUCHER_REDEMPTIONS)
                    .insert_many(&free)
                    .ordered(false),
            )
            .await?;
        match inserted {
            Ok(_) => Ok(()),
            Err(error) if only_duplicate_keys(&error) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    /// Whether `voucher` has a FREE redemption (index `voucher_state`).
    #[tracing::instrument(skip_all)]
    pub(in crate::vouchers) async fn has_free_redemption(
        &self,
        voucher: &str,
    ) -> Result<bool, ApiError> {
        let found: Vec<Document> = self
            .find_limited(
                names::VOUCHER_REDEMPTIONS,
                doc! { "voucher": voucher, "state": state(RedemptionState::Free) },
                None,
                Some(doc! { "_id": 1 }),
                1,
            )
            .await?;
        Ok(!found.is_empty())
    }

    /// Claims a FREE redemption of `voucher` for `claim`'s hold (index `voucher_state`).
    #[tracing::instrument(skip(self, voucher, claim), fields(hold = %claim.hold))]
    pub(in crate::vouchers) async fn claim_free_redemption(
        &self,
        voucher: &str,
        claim: &Claim,
    ) -> Result<Claimed, ApiError> {
        let mut set = doc! {
            "state": state(RedemptionState::Reserved),
            "hold": claim.hold.oid(),
            "showtime": claim.showtime.oid(),
            "checkAt": date(claim.check_at),
        };
        if let Some(customer) = &claim.customer {
            set.insert("customer", customer);
        }
        let claimed = self
            .bounded_raw(
                Call::new(names::VOUCHER_REDEMPTIONS, "findAndModify"),
                self.collection::<RedemptionDoc>(names::VOUCHER_REDEMPTIONS)
                    .find_one_and_update(
                        doc! { "voucher": voucher, "state": state(RedemptionState::Free) },
                        doc! { "$set": set },
                    )
                    .return_document(ReturnDocument::After),
            )
            .await?;
        match claimed {
            Ok(Some(redemption)) => Ok(Claimed::Claimed(redemption.id)),
            Ok(None) => Ok(Claimed::NoneFree),
            Err(error) => Err(error.into()),
        }
    }

    /// Makes `hold`'s RESERVED redemption `id` (of code hash `voucher`, when known) final for
    /// `order`; false when it is not that hold's RESERVED one (already redeemed, or given back).
    #[tracing::instrument(skip(self, voucher))]
    pub(in crate::vouchers) async fn redeem_redemption(
        &self,
        voucher: Option<&str>,
        id: RedemptionId,
        hold: HoldId,
        order: OrderId,
    ) -> Result<bool, ApiError> {
        let updated = self
            .bounded(
                Call::new(names::VOUCHER_REDEMPTIONS, "update"),
                self.collection::<Document>(names::VOUCHER_REDEMPTIONS)
                    .update_one(
                        of_voucher(voucher, doc! {
                            "_id": id.oid(),
                            "hold": hold.oid(),
                            "state": state(RedemptionState::Reserved),
                        }),
                        doc! {
                            "$set": { "state": state(RedemptionState::Redeemed), "order": order.oid() },
                            "$unset": { "checkAt": "" },
                        },
                    ),
            )
            .await?;
        Ok(updated.modified_count == 1)
    }

    /// Gives `hold`'s redemption `id` (of code hash `voucher`, when known) back (FREE), from
    /// any of `states`; false when it is not `hold`'s in one of them.
    #[tracing::instrument(skip(self, voucher))]
    pub(in crate::vouchers) async fn free_redemption(
        &self,
        voucher: Option<&str>,
        id: RedemptionId,
        hold: HoldId,
        states: &[RedemptionState],
    ) -> Result<bool, ApiError> {
        let states: Vec<bson::Bson> = states.iter().map(|s| state(*s)).collect();
        let updated = self
            .bounded(
                Call::new(names::VOUCHER_REDEMPTIONS, "update"),
                self.collection::<Document>(names::VOUCHER_REDEMPTIONS)
                    .update_one(
                        of_voucher(
                            voucher,
                            doc! { "_id": id.oid(), "hold": hold.oid(), "state": { "$in": states } },
                        ),
                        doc! {
                            "$set": { "state": state(RedemptionState::Free) },
                            "$unset": {
                                "hold": "", "showtime": "", "customer": "", "checkAt": "",
                                "order": "",
                            },
                        },
                    ),
            )
            .await?;
        Ok(updated.modified_count == 1)
    }

    /// RESERVED redemptions whose check is due by `now`, at most `limit` (index `check_at`).
    #[tracing::instrument(skip(self))]
    pub(in crate::vouchers) async fn redemptions_due(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<RedemptionDoc>, ApiError> {
        self.find_limited(
            names::VOUCHER_REDEMPTIONS,
            doc! { "checkAt": { "$lt": date(now) } },
            Some(doc! { "checkAt": 1 }),
            None,
            limit,
        )
        .await
    }

    /// RESERVED redemptions of `voucher` whose check (their hold's expiry) has passed by
    /// `now`, at most `limit` (index `voucher_state`).
    #[tracing::instrument(skip(self, voucher))]
    pub(in crate::vouchers) async fn lapsed_redemptions(
        &self,
        voucher: &str,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<RedemptionDoc>, ApiError> {
        let filter = doc! {
            "voucher": voucher,
            "state": state(RedemptionState::Reserved),
            "checkAt": { "$lt": date(now) },
        };
        self.find_limited(names::VOUCHER_REDEMPTIONS, filter, None, None, limit)
            .await
    }

    /// Moves the check of `hold`'s RESERVED redemption `id` (of code hash `voucher`) to `at`.
    #[tracing::instrument(skip(self, voucher))]
    pub(in crate::vouchers) async fn postpone_redemption_check(
        &self,
        voucher: &str,
        id: RedemptionId,
        hold: HoldId,
        at: DateTime<Utc>,
    ) -> Result<(), ApiError> {
        self.bounded(
            Call::new(names::VOUCHER_REDEMPTIONS, "update"),
            self.collection::<Document>(names::VOUCHER_REDEMPTIONS)
                .update_one(
                    doc! {
                        "voucher": voucher,
                        "_id": id.oid(),
                        "hold": hold.oid(),
                        "state": state(RedemptionState::Reserved),
                    },
                    doc! { "$set": { "checkAt": date(at) } },
                ),
        )
        .await?;
        Ok(())
    }

    /// How many redemptions of each of `batches` are RESERVED and REDEEMED: one aggregation
    /// on index `batch_state`.
    #[tracing::instrument(skip_all, fields(batches = batches.len()))]
    pub(in crate::vouchers) async fn redemption_counts(
        &self,
        batches: &[VoucherBatchId],
    ) -> Result<Vec<(VoucherBatchId, RedemptionCount)>, ApiError> {
        let redemptions = self.collection::<Document>(names::VOUCHER_REDEMPTIONS);
        let in_use = [
            state(RedemptionState::Reserved),
            state(RedemptionState::Redeemed),
        ];
        let pipeline = [
            doc! { "$match": {
                "batch": { "$in": codec::oids(batches) },
                "state": { "$in": in_use.to_vec() },
            } },
            doc! { "$group": {
                "_id": { "batch": "$batch", "state": "$state" },
                "n": { "$sum": 1 },
            } },
        ];
        let groups: Vec<Document> = self
            .bounded(Call::new(names::VOUCHER_REDEMPTIONS, "aggregate"), async {
                redemptions.aggregate(pipeline).await?.try_collect().await
            })
            .await?;
        let mut counts: Vec<(VoucherBatchId, RedemptionCount)> = batches
            .iter()
            .map(|batch| (*batch, RedemptionCount::default()))
            .collect();
        for group in groups {
            let Ok(key) = group.get_document("_id") else {
                continue;
            };
            let (Ok(batch), Ok(state)) = (key.get_object_id("batch"), key.get_str("state")) else {
                continue;
            };
            let n = group.get("n").and_then(codec::count).unwrap_or(0);
            let batch: VoucherBatchId = codec::id_of(batch);
            if let Some((_, count)) = counts.iter_mut().find(|(b, _)| *b == batch) {
                match state {
                    "RESERVED" => count.reserved += n,
                    "REDEEMED" => count.redeemed += n,
                    _ => {}
                }
            }
        }
        Ok(counts)
    }
}

/// `filter` naming the redemption's code hash too, when known: the collection's shard key
/// (docs/sharding.md), so that the write goes to the one shard that holds it.
fn of_voucher(voucher: Option<&str>, mut filter: Document) -> Document {
    if let Some(voucher) = voucher {
        filter.insert("voucher", voucher);
    }
    filter
}
