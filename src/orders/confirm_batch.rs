//! Group commit of the confirmations waiting for one showtime (issue 48).
//!
//! On its own, a confirmation reads its hold and the showtime, writes its order PENDING, sells
//! the seats, marks the order CONFIRMED: five commands, and on a hot showtime every one of them
//! waits for the inventory document's write before it. Together, the confirmations that came
//! while one batch was written are the next batch (`group_commit`'s relay of leaders): ONE
//! read of the showtime and ONE of the inventory's holds (not its seats), ONE insert of every
//! PENDING order, ONE update of the inventory selling every hold to its order
//! (`Store::sell_holds`: each hold's entry, expiry and seats in its filter, an outbox entry
//! each), ONE update moving the orders to CONFIRMED. The order of the steps, and so what a
//! crash between two of them leaves (PENDING orders the reconciler settles), is the lone
//! confirmation's.
//!
//! Refusals are made from the batch's read and send nothing more (a hold that is not there,
//! another channel's, expired, of a cancelled showtime). When the sale does not match (a hold
//! expired by the database's clock, or was released, meanwhile), each order is sold on its
//! own, as a lone confirmation would, to learn which. A confirmation the batch cannot take
//! (its order's id was written already by another attempt of its key, or a second request for
//! a hold the batch sells) is handed back and runs on its own.

use super::confirm::{
    load_order, missing_hold, new_order, released_by_cancellation, sell_and_confirm, tell_sale,
};
use crate::domain::ids::{HoldId, OrderId, ShowtimeId};
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::group_commit::{read_failed, Entry, Queues};
use crate::holds::rules::HoldPolicy;
use crate::holds::HoldEndings;
use crate::store::documents::{CustomerDoc, HoldDoc, OrderDoc, OrderStatus, ShowtimeStatus};
use crate::store::{self, CrashPoint, PausePoint, Store};

/// One request's confirmation, as a batch writes it.
#[derive(Debug)]
pub struct Job {
    pub channel: String,
    pub hold_id: HoldId,
    /// The order's id (the idempotency key's resource id).
    pub order_id: OrderId,
    pub customer: CustomerDoc,
    pub policy: HoldPolicy,
}

/// What a batch made of a confirmation.
#[derive(Debug)]
pub enum Outcome {
    /// Boxed: an order is large beside the other answer.
    Confirmed(Box<OrderDoc>),
    /// The batch could not take it: it confirms on its own (its customer handed back).
    Alone(CustomerDoc),
}

/// The queues of this process's showtimes' confirmations.
pub type Confirmations = Queues<ShowtimeId, Job, Outcome>;

type Queued = Entry<Job, Outcome>;

/// Confirms `job`'s hold of `showtime` in the next batch of this process's confirmations of it.
pub(super) async fn confirm_in_batch(
    store: &Store,
    endings: &HoldEndings,
    confirmations: &Confirmations,
    secret: &TicketSecret,
    showtime: ShowtimeId,
    job: Job,
) -> Result<Outcome, ApiError> {
    confirmations
        .run(
            showtime,
            job,
            || store.pause_point(PausePoint::ConfirmBatchBeforeTake),
            || store.note_confirmation_queued(),
            |entries| write_batch(store, endings, secret, showtime, entries),
        )
        .await
}

/// An order the batch writes, and the hold it confirms.
struct Sale {
    entry: Queued,
    hold: HoldDoc,
    order: OrderDoc,
}

/// Confirms the holds of `entries` (one showtime's, the leader's first), each answered on its
/// entry; returns those it did not serve because the door refused the leader (answered so)
/// before anything was sent.
async fn write_batch(
    store: &Store,
    endings: &HoldEndings,
    secret: &TicketSecret,
    showtime_id: ShowtimeId,
    entries: Vec<Queued>,
) -> Vec<Queued> {
    let read = tokio::try_join!(
        store.showtimes_by_ids(std::slice::from_ref(&showtime_id)),
        store.holds_and_mark(showtime_id)
    );
    let (showtimes, inventory) = match read {
        Ok(read) => read,
        Err(error) => return read_failed(entries, error),
    };
    let showtime = showtimes.into_iter().next();
    let cancelled = showtime
        .as_ref()
        .is_some_and(|showtime| showtime.status != ShowtimeStatus::Scheduled)
        || inventory.as_ref().is_some_and(|(_, cancelled)| *cancelled);
    let (Some(showtime), Some((mut holds, false)), false) = (showtime, inventory, cancelled) else {
        for entry in entries {
            let hold = entry.job.hold_id;
            let refusal = match cancelled {
                true => released_by_cancellation(hold, showtime_id),
                false => missing_hold(hold, &entry.job.policy),
            };
            entry.answer(Err(refusal));
        }
        return Vec::new();
    };
    let now = store::now();
    let mut sales = Vec::with_capacity(entries.len());
    for entry in entries {
        let job = &entry.job;
        let Some(at) = holds.iter().position(|hold| hold.id == job.hold_id) else {
            // Not there, or taken by an earlier entry of this batch (a second request for one
            // hold): the latter learns on its own what became of it.
            let taken = sales.iter().any(|sale: &Sale| sale.hold.id == job.hold_id);
            let answer = match taken {
                true => Ok(Outcome::Alone(entry.job.customer.clone())),
                false => Err(missing_hold(job.hold_id, &job.policy)),
            };
            entry.answer(answer);
            continue;
        };
        if holds[at].channel != job.channel {
            let refusal = missing_hold(job.hold_id, &job.policy);
            entry.answer(Err(refusal));
            continue;
        }
        let hold = holds.swap_remove(at);
        if hold.expires_at <= now {
            let refusal = ApiError::HoldExpired(format!("hold {} has expired", job.hold_id));
            entry.answer(Err(refusal));
            continue;
        }
        let made = new_order(
            secret,
            &job.channel,
            job.order_id,
            &showtime,
            &hold,
            job.customer.clone(),
        );
        match made {
            Ok(order) => sales.push(Sale { entry, hold, order }),
            Err(error) => entry.answer(Err(error)),
        }
    }
    if !sales.is_empty() {
        sell(store, endings, sales).await;
    }
    Vec::new()
}

/// Writes the orders of `sales`, sells their holds together, and confirms them; every entry
/// is answered.
async fn sell(store: &Store, endings: &HoldEndings, mut sales: Vec<Sale>) {
    let orders: Vec<OrderDoc> = sales.iter().map(|sale| sale.order.clone()).collect();
    let existed = match store.insert_pending_orders(&orders).await {
        Ok(existed) => existed,
        Err(error) => return refuse_sales(sales, &error),
    };
    drop(orders);
    // An order written before, by another attempt of the key: that attempt's, on its own.
    for at in existed.into_iter().rev() {
        let sale = sales.remove(at);
        let customer = sale.entry.job.customer.clone();
        sale.entry.answer(Ok(Outcome::Alone(customer)));
    }
    store.pause_point(PausePoint::ConfirmBatchBeforeSell).await;
    if let Err(crash) = store.crash_point(CrashPoint::ConfirmBeforeSell) {
        return refuse_sales(sales, &crash);
    }
    if sales.is_empty() {
        return;
    }
    let showtime = sales[0].order.showtime.id;
    let sold: Vec<(&HoldDoc, OrderId)> = (sales.iter())
        .map(|sale| (&sale.hold, sale.order.id))
        .collect();
    let sold = store.sell_holds(showtime, &sold).await;
    match sold {
        Ok(true) => {}
        Ok(false) => return sell_one_by_one(store, endings, sales).await,
        Err(error) => return refuse_sales(sales, &error),
    }
    if let Err(crash) = store.crash_point(CrashPoint::ConfirmAfterSell) {
        return refuse_sales(sales, &crash);
    }
    let ids: Vec<OrderId> = sales.iter().map(|sale| sale.order.id).collect();
    let moved = match store.confirm_pending_orders(&ids).await {
        Ok(moved) => moved,
        Err(error) => return refuse_sales(sales, &error),
    };
    for _ in 0..moved {
        crate::telemetry::metrics::order_confirmed();
    }
    let all_moved = moved == sales.len() as u64;
    for mut sale in sales {
        tell_sale(store, endings, &sale.order).await;
        let answer = if all_moved {
            sale.order.status = OrderStatus::Confirmed;
            Ok(Some(sale.order))
        } else {
            // A reconciler settled some first (rare): each is answered as it is stored.
            load_order(store, &sale.entry.job.channel, sale.order.id).await
        };
        let answer = answer.and_then(|order| {
            let order = order.ok_or_else(|| ApiError::internal("a confirmed order is gone"))?;
            Ok(Outcome::Confirmed(Box::new(order)))
        });
        sale.entry.answer(answer);
    }
}

/// The sale of the batch did not match: each order is sold on its own, as a lone
/// confirmation would, to learn which hold expired or went.
async fn sell_one_by_one(store: &Store, endings: &HoldEndings, sales: Vec<Sale>) {
    for Sale { entry, hold, order } in sales {
        let job = &entry.job;
        let policy = &job.policy;
        let answer = sell_and_confirm(store, endings, &job.channel, &hold, order, policy).await;
        entry.answer(answer.map(|order| Outcome::Confirmed(Box::new(order))));
    }
}

/// Answers every sale with `error`: what was written stays as a crash would leave it (PENDING
/// orders are settled by the reconciler, as a lone confirmation's are).
fn refuse_sales(sales: Vec<Sale>, error: &ApiError) {
    for sale in sales {
        sale.entry.answer(Err(error.clone()));
    }
}
