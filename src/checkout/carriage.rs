//! What a hold carries beside its seats: a voucher that prices them and products beside them,
//! reserved before the hold is placed (products priced first, as that reads and writes nothing
//! to undo; then the voucher's redemption; then the products' units) and settled after.

use crate::concessions::{self, rules::ItemAsk};
use crate::domain::ids::HoldId;
use crate::domain::pricing::TicketType;
use crate::error::ApiError;
use crate::holds::{Carriage, Carried, HoldEndings};
use crate::store::documents::{HoldDoc, ShowtimeDoc, VoucherUseDoc};
use crate::store::{CrashPoint, Store};
use crate::vouchers::rules::SaleAt;
use crate::vouchers::{self, FoundVoucher};

/// A voucher a hold uses, and the customer it counts against (`vouchers::rules::customer_of`,
/// when the hold named one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldVoucher {
    pub found: FoundVoucher,
    pub customer: Option<String>,
}

/// A hold's voucher and products (checked by `concessions::rules::check_asks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoucherAndProducts {
    pub voucher: Option<HoldVoucher>,
    pub items: Vec<ItemAsk>,
}

#[async_trait::async_trait]
impl Carriage for VoucherAndProducts {
    async fn reserve(
        &self,
        store: &Store,
        endings: &HoldEndings,
        showtime: &ShowtimeDoc,
        ticket_types: &[TicketType],
        hold: HoldId,
        check_at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Carried, ApiError> {
        // The products first: pricing them reads and writes nothing it would have to undo.
        let items = match self.items.is_empty() {
            true => Vec::new(),
            false => {
                Box::pin(concessions::hold_lines(
                    store,
                    &self.items,
                    showtime.cinema.id,
                ))
                .await?
            }
        };
        let redemption = match &self.voucher {
            None => None,
            Some(voucher) => {
                let customer = voucher.customer.as_deref();
                let sale = SaleAt {
                    cinema: showtime.cinema.id,
                    movie: showtime.movie.id,
                    showtime: showtime.id,
                    ticket_types,
                };
                let reserved = vouchers::reserve_for_hold(
                    store,
                    endings,
                    &voucher.found,
                    customer,
                    &sale,
                    hold,
                    check_at,
                );
                Some(Box::pin(reserved).await?)
            }
        };
        let units = concessions::stocked(&items);
        if !units.is_empty() {
            let reserved = concessions::reserve(store, &items, hold, showtime.id, check_at);
            if let Err(refusal) = Box::pin(reserved).await {
                if let Some(used) = &redemption {
                    Box::pin(vouchers::give_back_or_leave(store, used, hold)).await;
                }
                return Err(refusal);
            }
            store.crash_point(CrashPoint::HoldAfterStockReserved)?;
        }
        Ok(Carried {
            voucher: redemption,
            items,
        })
    }

    fn unlocks(&self) -> Option<&TicketType> {
        (self.voucher.as_ref()).and_then(|voucher| voucher.found.voucher.effect.unlocks())
    }

    fn prices(&self, list: &[i64]) -> Vec<i64> {
        match &self.voucher {
            Some(voucher) => voucher.found.voucher.prices(list),
            None => list.to_vec(),
        }
    }

    async fn settle(
        &self,
        store: &Store,
        carried: &Carried,
        hold: HoldId,
        placed: Result<&HoldDoc, &ApiError>,
    ) {
        match placed {
            // A hold this attempt had placed already carries its own redemption (never so
            // today: an attempt runs once), so the one reserved now would count twice: give
            // it back, leaving the customer's count (of the hold, once) to the hold's own.
            Ok(placed) => {
                let Some(used) = &carried.voucher else {
                    return;
                };
                if placed.voucher.as_ref().map(|v| v.redemption) != Some(used.redemption) {
                    let ours = VoucherUseDoc {
                        customer: None,
                        ..used.clone()
                    };
                    Box::pin(vouchers::give_back_or_leave(store, &ours, hold)).await;
                }
            }
            // A hold that was surely not placed gives back its units and its redemption (its
            // own reservations: an attempt runs once); one whose write may have happened
            // leaves them to the reconcilers, which look at the hold.
            Err(error) if !error.effect_unknown() => {
                let units = concessions::stocked(&carried.items);
                if !units.is_empty() {
                    Box::pin(concessions::give_back_or_leave(store, &units, hold)).await;
                }
                if let Some(used) = &carried.voucher {
                    Box::pin(vouchers::give_back_or_leave(store, used, hold)).await;
                }
            }
            Err(_) => {}
        }
    }
}
