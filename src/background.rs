//! The process's background tasks, run beside the HTTP server until shutdown: the relay of
//! events left unrelayed, webhook deliveries, the holds' sweeper, the orders', the vouchers'
//! and the concessions' reconcilers and
//! resumer of interrupted showtime cancellations, the catalogue's unfinished propagations,
//! the sales projection and this gateway's heartbeat. It sits above the features, so none
//! calls another to be run.

use std::sync::Arc;
use std::time::Duration;

use crate::assembly;
use crate::catalogue;
use crate::channel_events::STALE_AFTER;
use crate::gateways::Membership;
use crate::holds::sweep_expired_holds_of;
use crate::orders::{resume_cancellations, settle_orders, CANCEL_GRACE, PENDING_GRACE};
use crate::sales::project_sales;
use crate::shutdown::Shutdown;
use crate::store::Store;
use crate::telemetry::lag::{self, Task};
use crate::vouchers::settle_redemptions;
use crate::webhooks::{Deliverer, POLL};

/// How often each background task runs.
#[derive(Debug, Clone, Copy)]
pub struct Intervals {
    /// Expired holds are swept and unsettled orders settled this often.
    pub sweep: Duration,
    /// The sales figures catch up with the orders this often.
    pub sales: Duration,
    /// The hold policy waiting parties' offers are made under (their hold time, their size
    /// cap); the offers' passes run each `waiting_list::PASS_EVERY`.
    pub offer_policy: crate::holds::rules::HoldPolicy,
}

/// Runs the background tasks until `shutdown` is triggered: the sweeper of this gateway's
/// showtimes every `sweep`, the gateway heartbeat every `membership`'s interval; the
/// reconcilers, the resumer of interrupted showtime cancellations and the pending
/// propagations of extended references every `sweep`, the sales projection every `sales`,
/// left events and due webhooks at theirs, each × the live gateways (`every_shared`: the
/// gateways together as often as one). Errors are logged and the next pass tries again. A
/// shutdown stops each task between two passes, never in the middle of one; then this
/// process's gateway record is deleted.
pub async fn run(
    store: Store,
    intervals: Intervals,
    membership: Membership,
    webhooks: Arc<Deliverer>,
    shutdown: Shutdown,
) {
    // Every pass uses the background lane's connections, whichever handle it was given:
    // however slow they run, requests keep theirs.
    let store = store.background();
    let endings = assembly::hold_endings();
    let relay = crate::assembly::event_relay(&store);
    // Events a gateway left unrelayed (it died between its change and its relay), as soon as
    // they count as left.
    let gateways = || membership.gateways();
    let left_events = every_shared(STALE_AFTER, gateways, &shutdown, || async {
        match relay.relay_stale().await {
            Ok(0) => {}
            Ok(appended) => tracing::info!(appended, "relayed events another gateway left"),
            Err(error) => tracing::warn!(%error, "relaying left events failed"),
        }
    });
    // Webhook deliveries: each due endpoint gets a task of its own (a stop lets them end).
    let deliveries = every_shared(POLL, gateways, &shutdown, || async {
        if let Err(error) = webhooks.start_due().await {
            tracing::warn!(%error, "looking for due webhook endpoints failed");
        }
    });
    let sweeper = every(intervals.sweep, &shutdown, || async {
        // Each gateway sweeps the showtimes whose writes it owns (all, alone or owner unknown).
        let peers = membership.peers();
        let ours = |showtime| peers.owner_elsewhere(showtime).is_none();
        let swept = sweep_expired_holds_of(&store, &endings, ours);
        match lag::pass(Task::Sweeper, swept).await {
            Ok(0) => {}
            Ok(released) => tracing::info!(released, "released expired holds"),
            Err(error) => tracing::warn!(%error, "sweeping expired holds failed"),
        }
    });
    // What a gateway left half done, wherever it is: any gateway finishes it.
    let repairs = every_shared(intervals.sweep, gateways, &shutdown, || async {
        match lag::pass(Task::Reconciler, settle_orders(&store, PENDING_GRACE)).await {
            Ok(0) => {}
            Ok(settled) => tracing::info!(settled, "settled orders left between two writes"),
            Err(error) => tracing::warn!(%error, "settling orders failed"),
        }
        let orders = assembly::orders_of_hold();
        match settle_redemptions(&store, orders, &endings, crate::store::now()).await {
            Ok(0) => {}
            Ok(settled) => tracing::info!(settled, "looked at voucher redemptions left reserved"),
            Err(error) => tracing::warn!(%error, "settling voucher redemptions failed"),
        }
        match crate::concessions::settle_stock(
            &store,
            assembly::stock_reconciler(),
            crate::store::now(),
        )
        .await
        {
            Ok(0) => {}
            Ok(settled) => tracing::info!(settled, "looked at stock entries left in flight"),
            Err(error) => tracing::warn!(%error, "settling stock entries failed"),
        }
        match resume_cancellations(&store, &endings, CANCEL_GRACE).await {
            Ok(0) => {}
            Ok(resumed) => tracing::info!(resumed, "resumed showtime cancellations"),
            Err(error) => tracing::warn!(%error, "resuming showtime cancellations failed"),
        }
        // Copies of renamed cinemas, halls and movies that a gateway left half done.
        match catalogue::finish_propagations(&store).await {
            Ok(0) => {}
            Ok(finished) => tracing::info!(finished, "finished pending propagations"),
            Err(error) => tracing::warn!(%error, "finishing propagations failed"),
        }
        // Want-to-see marks and unmarks a gateway left between the list's two sides.
        match crate::want_to_see::repair_want_lists(&store, crate::want_to_see::REPAIR_AFTER).await
        {
            Ok(0) => {}
            Ok(repaired) => tracing::info!(repaired, "finished want-to-see marks left half done"),
            Err(error) => tracing::warn!(%error, "repairing want-to-see lists failed"),
        }
    });
    // The shown want-to-see counts, set to the exact ones (what dead gateways held is lost).
    let counts = every_shared(
        crate::want_to_see::RECONCILE_EVERY,
        gateways,
        &shutdown,
        || async {
            match crate::want_to_see::reconcile_counts(&store).await {
                Ok(0) => {}
                Ok(corrected) => {
                    tracing::info!(corrected, "set shown want-to-see counts to the exact ones")
                }
                Err(error) => tracing::warn!(%error, "reconciling want-to-see counts failed"),
            }
        },
    );
    let sales = every_shared(intervals.sales, gateways, &shutdown, || async {
        if let Err(error) = lag::pass(Task::SalesProjection, project_sales(&store)).await {
            tracing::warn!(%error, "projecting sales failed");
        }
    });
    let heartbeat = every(membership.interval(), &shutdown, || {
        membership.heartbeat(&store)
    });
    // Freed seats offered to waiting parties: at once for this process's frees, and each
    // `PASS_EVERY` for every showtime with parties waiting.
    let locks = Arc::new(crate::holds::ShowtimeLocks::default());
    let policy = intervals.offer_policy;
    let offers = crate::waiting_list::Offers::new(store.clone(), endings.clone(), locks, policy)
        .run(shutdown.clone());
    futures::join!(
        left_events,
        deliveries,
        sweeper,
        repairs,
        counts,
        sales,
        heartbeat,
        offers
    );
    membership.leave(&store).await;
}

/// Runs `pass` every `interval` until `stop` is triggered; a pass that has begun runs to its
/// end.
async fn every<F, Fut>(interval: Duration, stop: &Shutdown, pass: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    // Alone, a shared pass waits exactly its interval between two starts.
    every_shared(interval, || 1, stop, pass).await
}

/// Runs `pass` about every `interval` × the live gateways (`gateways`) until `stop` is
/// triggered; a pass that has begun runs to its end. For a pass over the whole deployment
/// (what any gateway left half done, due webhooks, the sales figures): every gateway runs it,
/// so one that dies leaves nothing undone, and N gateways together run it about as often as
/// one would, where each at `interval` cost the database N times one's background commands.
async fn every_shared<F, Fut>(
    interval: Duration,
    gateways: impl Fn() -> usize,
    stop: &Shutdown,
    mut pass: F,
) where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut next = tokio::time::Instant::now();
    loop {
        tokio::select! {
            biased;
            () = stop.requested() => return,
            () = tokio::time::sleep_until(next) => {}
        }
        let started = tokio::time::Instant::now();
        pass().await;
        next = started + shared_wait(interval, gateways(), rand::random());
    }
}

/// The time from one start of a deployment-wide pass to the next on one of `gateways` live
/// gateways: `interval` alone; else `gateways` × `interval` × (0.5 + `draw`), `draw` in
/// [0, 1): on average N gateways together start one pass per `interval`, and gateways started
/// together drift apart instead of passing at the same moments.
fn shared_wait(interval: Duration, gateways: usize, draw: f64) -> Duration {
    if gateways <= 1 {
        return interval;
    }
    let times = u32::try_from(gateways).unwrap_or(u32::MAX);
    (interval * times).mul_f64(0.5 + draw.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_stop_lets_the_pass_in_progress_finish_and_starts_no_other() {
        let stop = Shutdown::default();
        let (started, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
        every(Duration::from_millis(1), &stop, || async {
            started.fetch_add(1, Ordering::SeqCst);
            // Stopped half way through the pass: it still runs to its end.
            stop.trigger();
            tokio::task::yield_now().await;
            finished.fetch_add(1, Ordering::SeqCst);
        })
        .await;
        assert_eq!(started.load(Ordering::SeqCst), 1);
        assert_eq!(finished.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn gateways_together_run_a_deployment_wide_pass_as_often_as_one() {
        let second = Duration::from_secs(1);
        // Alone: exactly the interval, whatever is drawn.
        for draw in [0.0, 0.3, 0.99] {
            assert_eq!(shared_wait(second, 1, draw), second);
            assert_eq!(shared_wait(second, 0, draw), second);
        }
        // N gateways: each waits N intervals on average, ± half, so together they start one
        // pass per interval (the mean of draws spread evenly over [0, 1)).
        for gateways in [2, 3, 10] {
            let draws = 1_000;
            let waits: Vec<Duration> = (0..draws)
                .map(|n| shared_wait(second, gateways, (f64::from(n) + 0.5) / f64::from(draws)))
                .collect();
            let n = gateways as f64;
            assert!(waits.iter().all(|wait| {
                let secs = wait.as_secs_f64();
                (0.5 * n..=1.5 * n).contains(&secs)
            }));
            let mean = waits.iter().sum::<Duration>().as_secs_f64() / f64::from(draws);
            let passes_per_second = n / mean;
            assert!(
                (passes_per_second - 1.0).abs() < 0.001,
                "{passes_per_second}"
            );
        }
        // A draw out of its range is held to it.
        assert_eq!(shared_wait(second, 2, 7.0), 3 * second);
        assert_eq!(shared_wait(second, 2, -1.0), second);
    }

    #[tokio::test]
    async fn a_stop_ends_a_shared_pass_loop_between_passes() {
        let stop = Shutdown::default();
        let passes = AtomicUsize::new(0);
        every_shared(
            Duration::from_millis(1),
            || 2,
            &stop,
            || async {
                if passes.fetch_add(1, Ordering::SeqCst) == 2 {
                    stop.trigger();
                }
            },
        )
        .await;
        assert_eq!(passes.load(Ordering::SeqCst), 3);
    }
}
