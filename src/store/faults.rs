//! Test hooks that make a booking (or a catalogue write) stop or pause at a chosen point, as
//! a gateway killed or stopped there would. The crash and fencing tests arm them. They are
//! compiled only with the `test-hooks` feature (which the tests turn on): in a production
//! build the points cost nothing and can never fire.

/// A point between two writes of a booking where a gateway could die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashPoint {
    /// Confirm: the PENDING order is written, the seats are not sold yet.
    ConfirmBeforeSell,
    /// Confirm: the seats are SOLD under the order, the order still says PENDING.
    ConfirmAfterSell,
    /// Cancel: the order says CANCELLING, its seats are still SOLD.
    CancelBeforeFree,
    /// Cancel: the seats are AVAILABLE again, the order still says CANCELLING.
    CancelAfterFree,
    /// Release: the seats are AVAILABLE again, the answer is not stored yet.
    ReleaseAfterFree,
    /// Extend: the hold's new expiry is written, the answer is not stored yet.
    ExtendAfterWrite,
    /// Admit: the seat is admitted, the answer is not stored yet.
    AdmitAfterWrite,
    /// Cancelling a showtime: it says CANCELLING and its inventory is marked; no hold is
    /// released yet.
    ShowtimeCancelAfterMark,
    /// Cancelling a showtime: one of its orders is cancelled, the others are not yet.
    ShowtimeCancelBetweenOrders,
    /// A catalogue update: a copied field of a cinema, hall or movie is written (its marker
    /// set), the future showtimes' copies are not brought up to date yet.
    BeforePropagation,
    /// An operator's write: what it writes is written, its audit entry is not recorded yet.
    BeforeAudit,
    /// Want to see: the movie is on the customer's list (ADDING), not on the movie's side.
    MarkBetweenSides,
    /// Unwant: the entry says REMOVING, the movie's side still has the customer.
    UnmarkBetweenSides,
    /// A counters' flush: the database took the increments, their answer is lost (the
    /// tally keeps them unacknowledged, as after a timeout).
    TallyAnswerLost,
    /// Hold: a voucher's redemption is reserved for the hold, the hold is not placed yet.
    HoldAfterVoucherReserved,
    /// Hold: its products' stock is reserved, the hold is not placed yet.
    HoldAfterStockReserved,
}

/// A point where an attempt at an idempotency key's operation can be held up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PausePoint {
    /// The attempt owns its key and its heartbeat has not started: as a gateway stopped (or
    /// stalled) right after claiming the key, whose lease therefore lapses.
    AfterClaim,
    /// The attempt's heartbeat runs and its operation has not started: a slow attempt that
    /// is alive.
    BeforeEffect,
    /// A scheduler read its halls and their showtimes and found no overlap; it has written
    /// nothing yet (`catalogue::store::schedule`): a scheduler stalled with what it read going stale.
    BeforeScheduleWrite,
    /// A cancellation recorded its refund on the order and has not given the seats back: a
    /// slow cancellation that an admission can overtake.
    RefundAfterRecord,
    /// The event relay took the entries its process's changes left and has not appended
    /// them: a gateway stalled (or about to die) between its change and its relay.
    RelayBeforeAppend,
    /// The event relay appended a batch's events and has not pulled them off their
    /// documents: another relay may append them again.
    RelayBeforeClear,
    /// A webhook delivery holds its endpoint's lease and is about to send an event: a
    /// gateway stalled mid-delivery, whose lease lapses.
    WebhookBeforeSend,
    /// A webhook delivery found nothing more to send and has not given up its lease: a
    /// redelivery or an event asked for meanwhile must not be forgotten by the release.
    WebhookBeforeRelease,
    /// A want-to-see mark is on the customer's list (ADDING), not on the movie's side yet: a
    /// slow mark that an unmark of the same pair can overtake.
    MarkBetweenSides,
    /// An unmark set its entry REMOVING and has not touched the movie's side: a slow unmark
    /// that a new mark of the same pair can overtake.
    UnmarkBetweenSides,
    /// A hold leads its showtime's next batch and has not taken the queue yet: every request
    /// that comes meanwhile joins its batch.
    BatchBeforeTake,
    /// A confirmation leads its showtime's next batch and has not taken the queue yet.
    ConfirmBatchBeforeTake,
    /// A batch of confirmations wrote its PENDING orders and has not sold their holds.
    ConfirmBatchBeforeSell,
    /// An update leads its collection's next grouped updates and has not taken the queue yet.
    SetBatchBeforeTake,
}

/// A point where a booking can be made slow, as a slow database would make it: armed in a
/// gateway process from the environment (so the tests can slow down a real `boxoffice`
/// process, which they build with `test-hooks`), never in a production build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayPoint {
    /// Confirm: the PENDING order is written, the seats are about to be sold. Armed by
    /// `BOXOFFICE_TEST_DELAY_BEFORE_SELL_MS`.
    ConfirmBeforeSell,
    /// Cancelling a showtime: an order was just cancelled, the next is about to be. Armed by
    /// `BOXOFFICE_TEST_DELAY_BETWEEN_CANCELLED_ORDERS_MS`.
    ShowtimeCancelBetweenOrders,
    /// Extend: the hold's new expiry is written, the answer is not stored yet. Armed by
    /// `BOXOFFICE_TEST_DELAY_AFTER_EXTEND_MS`.
    ExtendAfterWrite,
    /// Cancel: the refund is recorded on the order, its seats are not given back yet. Armed
    /// by `BOXOFFICE_TEST_DELAY_AFTER_REFUND_RECORDED_MS`.
    RefundAfterRecord,
    /// Admit: the seat is admitted, the answer is not stored yet. Armed by
    /// `BOXOFFICE_TEST_DELAY_AFTER_ADMIT_MS`.
    AdmitAfterWrite,
    /// The event relay took the entries its process's changes left and has not appended them. Armed by
    /// `BOXOFFICE_TEST_DELAY_BEFORE_RELAY_MS`.
    RelayBeforeAppend,
    /// Hold: a voucher's redemption is reserved, the hold is not placed yet. Armed by
    /// `BOXOFFICE_TEST_DELAY_AFTER_VOUCHER_RESERVED_MS`.
    HoldAfterVoucherReserved,
    /// Waiting lists: this process freed seats and has not offered them yet. Armed by
    /// `BOXOFFICE_TEST_DELAY_BEFORE_OFFER_MS`.
    OfferAfterFree,
}

impl DelayPoint {
    /// The environment variable that arms the point, in milliseconds.
    pub const fn variable(self) -> &'static str {
        match self {
            DelayPoint::ConfirmBeforeSell => "BOXOFFICE_TEST_DELAY_BEFORE_SELL_MS",
            DelayPoint::ShowtimeCancelBetweenOrders => {
                "BOXOFFICE_TEST_DELAY_BETWEEN_CANCELLED_ORDERS_MS"
            }
            DelayPoint::ExtendAfterWrite => "BOXOFFICE_TEST_DELAY_AFTER_EXTEND_MS",
            DelayPoint::RefundAfterRecord => "BOXOFFICE_TEST_DELAY_AFTER_REFUND_RECORDED_MS",
            DelayPoint::AdmitAfterWrite => "BOXOFFICE_TEST_DELAY_AFTER_ADMIT_MS",
            DelayPoint::RelayBeforeAppend => "BOXOFFICE_TEST_DELAY_BEFORE_RELAY_MS",
            DelayPoint::HoldAfterVoucherReserved => {
                "BOXOFFICE_TEST_DELAY_AFTER_VOUCHER_RESERVED_MS"
            }
            DelayPoint::OfferAfterFree => "BOXOFFICE_TEST_DELAY_BEFORE_OFFER_MS",
        }
    }
}

impl super::Store {
    /// Waits at `point` as long as the environment says (see [`DelayPoint`]). Returns at once
    /// without the `test-hooks` feature.
    pub(crate) async fn delay_point(&self, point: DelayPoint) {
        #[cfg(feature = "test-hooks")]
        if let Some(millis) = std::env::var(point.variable())
            .ok()
            .and_then(|value| value.parse::<u64>().ok())
        {
            tracing::warn!(?point, millis, "a test-only delay");
            tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
        }
        #[cfg(not(feature = "test-hooks"))]
        let _ = point;
    }

    /// Panics (once) when a test armed a panic: the panic-catching layer's test. Does nothing
    /// without the `test-hooks` feature.
    pub(crate) fn panic_point(&self) {
        #[cfg(feature = "test-hooks")]
        if self.faults().take_panic() {
            panic!("a panic a test asked for");
        }
    }

    /// True (once) when a test armed a crash at `point`: the caller must stop as if the
    /// process died there. Always false without the `test-hooks` feature.
    pub(crate) fn crash_armed(&self, point: CrashPoint) -> bool {
        #[cfg(feature = "test-hooks")]
        return self.faults().take(point);
        #[cfg(not(feature = "test-hooks"))]
        {
            let _ = point;
            false
        }
    }

    /// Stops here, as a gateway killed at `point` would, when a test armed it: INTERNAL,
    /// the request's effect half done. Always `Ok` without the `test-hooks` feature.
    pub(crate) fn crash_point(&self, point: CrashPoint) -> Result<(), crate::error::ApiError> {
        if self.crash_armed(point) {
            Err(crate::error::ApiError::internal(format!(
                "injected crash at {point:?}"
            )))
        } else {
            Ok(())
        }
    }

    /// Waits at `point` until the test resumes it, when a test armed a pause there. Returns at
    /// once without the `test-hooks` feature.
    pub(crate) async fn pause_point(&self, point: PausePoint) {
        #[cfg(feature = "test-hooks")]
        if let Some(pause) = self.faults().take_pause(point) {
            pause.wait_here().await;
        }
        #[cfg(not(feature = "test-hooks"))]
        let _ = point;
    }
}

impl super::Store {
    /// Counts a hold that joined a showtime's queue (tests wait for a batch to fill). Does
    /// nothing without the `test-hooks` feature.
    pub(crate) fn note_hold_queued(&self) {
        #[cfg(feature = "test-hooks")]
        self.faults().hold_queued();
    }

    /// Counts an update that joined its collection's queue (`grouped_sets`). Does nothing
    /// without the `test-hooks` feature.
    pub(crate) fn note_set_queued(&self) {
        #[cfg(feature = "test-hooks")]
        self.faults().set_queued();
    }

    /// Counts a confirmation that joined a showtime's queue. Does nothing without the
    /// `test-hooks` feature.
    pub(crate) fn note_confirmation_queued(&self) {
        #[cfg(feature = "test-hooks")]
        self.faults().confirmation_queued();
    }

    /// Resolves when a test breaks the change feed (`Faults::break_change_feed`): the feed
    /// must close, forget its position if told to, and wait for the test before it opens
    /// again. Never resolves without the `test-hooks` feature.
    pub async fn change_feed_broken(&self) -> FeedBreak {
        #[cfg(feature = "test-hooks")]
        return self.faults().next_feed_break().await;
        #[cfg(not(feature = "test-hooks"))]
        std::future::pending().await
    }
}

/// A break of the change feed a test asked for.
#[derive(Debug)]
pub struct FeedBreak {
    /// Open again from now, not from where the feed was: changes in between are lost.
    pub lose_position: bool,
    #[cfg(feature = "test-hooks")]
    pause: std::sync::Arc<Pause>,
}

impl FeedBreak {
    /// Tells the test the feed is closed, and waits until it lets the feed open again.
    pub async fn closed(self) {
        #[cfg(feature = "test-hooks")]
        self.pause.wait_here().await;
    }
}

#[cfg(feature = "test-hooks")]
pub use armed::{Faults, Pause};

#[cfg(feature = "test-hooks")]
mod armed {
    use std::sync::{Arc, Mutex};

    use tokio::sync::Semaphore;

    use super::{CrashPoint, PausePoint};

    /// The crash and pause points armed for the next booking that passes them.
    #[derive(Debug, Default)]
    pub struct Faults {
        crashes: Mutex<Vec<CrashPoint>>,
        pauses: Mutex<Vec<(PausePoint, Arc<Pause>)>>,
        panic: std::sync::atomic::AtomicBool,
        feed_breaks: Mutex<Vec<super::FeedBreak>>,
        feed_break_armed: tokio::sync::Notify,
        /// Holds that joined a showtime's queue to wait for a batch (`holds::batch`).
        queued: std::sync::atomic::AtomicUsize,
        /// Confirmations that joined a showtime's queue (`orders::confirm_batch`).
        confirmations: std::sync::atomic::AtomicUsize,
        /// Updates that joined a collection's queue (`store::grouped_sets`).
        sets: std::sync::atomic::AtomicUsize,
    }

    /// A pause a test armed: it learns when an attempt reached it and lets it go on.
    #[derive(Debug)]
    pub struct Pause {
        reached: Semaphore,
        resumed: Semaphore,
    }

    impl Default for Pause {
        fn default() -> Self {
            Pause {
                reached: Semaphore::new(0),
                resumed: Semaphore::new(0),
            }
        }
    }

    impl Pause {
        /// Waits until an attempt stops at the point.
        pub async fn reached(&self) {
            self.reached.acquire().await.expect("open").forget();
        }

        /// Lets the attempt stopped at the point go on.
        pub fn resume(&self) {
            self.resumed.add_permits(1);
        }

        pub(crate) async fn wait_here(&self) {
            self.reached.add_permits(1);
            self.resumed.acquire().await.expect("open").forget();
        }
    }

    impl Faults {
        /// How many holds have joined a showtime's queue to wait for a batch so far.
        pub fn holds_queued(&self) -> usize {
            self.queued.load(std::sync::atomic::Ordering::SeqCst)
        }

        pub(crate) fn hold_queued(&self) {
            self.queued
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }

        /// How many confirmations have joined a showtime's queue to wait for a batch so far.
        pub fn confirmations_queued(&self) -> usize {
            self.confirmations.load(std::sync::atomic::Ordering::SeqCst)
        }

        /// How many updates have joined a collection's queue to be sent together so far.
        pub fn sets_queued(&self) -> usize {
            self.sets.load(std::sync::atomic::Ordering::SeqCst)
        }

        pub(crate) fn set_queued(&self) {
            self.sets.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }

        pub(crate) fn confirmation_queued(&self) {
            self.confirmations
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }

        /// The next booking that reaches `point` stops there with an internal error.
        pub fn crash_next_at(&self, point: CrashPoint) {
            self.crashes.lock().expect("faults lock").push(point);
        }

        /// The next attempt that reaches `point` waits there until the pause is resumed.
        pub fn pause_next_at(&self, point: PausePoint) -> Arc<Pause> {
            let pause = Arc::new(Pause::default());
            let armed = (point, Arc::clone(&pause));
            self.pauses.lock().expect("faults lock").push(armed);
            pause
        }

        /// The next `holdSeats` resolver panics.
        pub fn panic_next_resolver(&self) {
            self.panic.store(true, std::sync::atomic::Ordering::SeqCst);
        }

        pub(crate) fn take_panic(&self) -> bool {
            self.panic.swap(false, std::sync::atomic::Ordering::SeqCst)
        }

        /// True (once) when `point` was armed.
        pub fn take(&self, point: CrashPoint) -> bool {
            let mut armed = self.crashes.lock().expect("faults lock");
            match armed.iter().position(|&p| p == point) {
                Some(index) => {
                    armed.swap_remove(index);
                    true
                }
                None => false,
            }
        }

        /// The change feed closes (forgetting where it was, with `lose_position`) and stays
        /// closed until the pause is resumed; `reached` says it is closed.
        pub fn break_change_feed(&self, lose_position: bool) -> Arc<Pause> {
            let pause = Arc::new(Pause::default());
            let armed = super::FeedBreak {
                lose_position,
                pause: Arc::clone(&pause),
            };
            self.feed_breaks.lock().expect("faults lock").push(armed);
            self.feed_break_armed.notify_one();
            pause
        }

        pub(crate) async fn next_feed_break(&self) -> super::FeedBreak {
            loop {
                if let Some(armed) = self.feed_breaks.lock().expect("faults lock").pop() {
                    return armed;
                }
                self.feed_break_armed.notified().await;
            }
        }

        pub(crate) fn take_pause(&self, point: PausePoint) -> Option<Arc<Pause>> {
            let mut armed = self.pauses.lock().expect("faults lock");
            let index = armed.iter().position(|(p, _)| *p == point)?;
            Some(armed.swap_remove(index).1)
        }
    }
}
