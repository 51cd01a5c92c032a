//! Waiting for a condition that may change without a notification.
//!
//! A [`Notifier`] wakes waiters when SIL code changes state; waiters also re-check the
//! condition at least every [`POLL_NS`], because a real GPU (the `rig` platform) writes
//! semaphore counters in host memory without telling anybody.
//!
//! ```
//! use sil_common::wait::{Notifier, WaitOutcome};
//! let n = Notifier::new();
//! assert_eq!(n.wait_until(|| true, 0), WaitOutcome::Ready);
//! assert_eq!(n.wait_until(|| false, 1_000), WaitOutcome::TimedOut);
//! ```

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::clock::real_ns;

/// Longest sleep between two checks of the condition.
pub const POLL_NS: u64 = 50_000;

/// Result of a wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitOutcome {
    /// The condition holds.
    Ready,
    /// The timeout passed first.
    TimedOut,
}

/// A generation counter with a condition variable.
#[derive(Debug, Default)]
pub struct Notifier {
    generation: Mutex<u64>,
    changed: Condvar,
}

impl Notifier {
    /// A notifier nobody waits on yet.
    pub const fn new() -> Self {
        Notifier {
            generation: Mutex::new(0),
            changed: Condvar::new(),
        }
    }

    /// Wake every waiter so it re-checks its condition.
    pub fn notify(&self) {
        let mut g = self.generation.lock().unwrap_or_else(|e| e.into_inner());
        *g = g.wrapping_add(1);
        self.changed.notify_all();
    }

    /// Wait until `ready()` holds or `timeout_ns` of real time passed (`u64::MAX` = forever).
    /// Never allocates.
    pub fn wait_until(&self, mut ready: impl FnMut() -> bool, timeout_ns: u64) -> WaitOutcome {
        let deadline = real_ns().saturating_add(timeout_ns);
        let mut g = self.generation.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if ready() {
                return WaitOutcome::Ready;
            }
            let now = real_ns();
            if now >= deadline {
                return WaitOutcome::TimedOut;
            }
            let nap = (deadline - now).min(POLL_NS);
            g = match self.changed.wait_timeout(g, Duration::from_nanos(nap)) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}
