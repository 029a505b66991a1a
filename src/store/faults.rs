//! Test hooks that make a booking stop at a chosen point, as a gateway killed there would. The
//! crash tests of invariant 6 use them; in production no point is ever armed.

use std::sync::Mutex;

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
}

/// The crash points armed for the next time a booking passes them.
#[derive(Debug, Default)]
pub struct Faults {
    armed: Mutex<Vec<CrashPoint>>,
}

impl Faults {
    /// The next booking that reaches `point` stops there with an internal error.
    pub fn crash_next_at(&self, point: CrashPoint) {
        self.armed.lock().expect("faults lock").push(point);
    }

    /// True (once) when `point` was armed: the caller must stop as if the process died.
    pub fn take(&self, point: CrashPoint) -> bool {
        let mut armed = self.armed.lock().expect("faults lock");
        match armed.iter().position(|&p| p == point) {
            Some(index) => {
                armed.swap_remove(index);
                true
            }
            None => false,
        }
    }
}
