//! Waiting for a condition that SIL code changes and then announces.
//!
//! A [`Notifier`] wakes its waiters when SIL code changes state; a waiter sleeps until it is
//! notified or its timeout passes, with no fixed nap in between, so a blocked waiter costs no
//! CPU. Conditions that change without a notification (a counter a real GPU writes on the
//! `rig` platform) are watched with [`yield_until`] instead.
//!
//! ```
//! use sil_common::wait::{Notifier, WaitOutcome, yield_until};
//! let n = Notifier::new();
//! assert_eq!(n.wait_until(|| true, 0), WaitOutcome::Ready);
//! assert_eq!(n.wait_until(|| false, 1_000), WaitOutcome::TimedOut);
//! assert_eq!(yield_until(|| false, 1_000), WaitOutcome::TimedOut);
//! ```

use std::sync::atomic::{AtomicU32, Ordering, fence};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use crate::clock::real_ns;

/// Result of a wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitOutcome {
    /// The condition holds.
    Ready,
    /// The timeout passed first.
    TimedOut,
}

/// A generation counter with a condition variable and a count of the threads waiting.
///
/// A waiter checks its condition with the notifier's lock held and sleeps atomically with
/// releasing it, and [`notify`](Self::notify) takes the same lock: a change made before
/// `notify` is never missed, so no periodic re-check is needed.
///
/// `notify` with nobody waiting makes no system call: the condition variable's wake-up is a
/// `futex` call even with no sleeper, and most changes (a submission, a signal nobody is
/// blocked on yet) have none. The count is read behind a sequentially consistent fence that
/// pairs with one after the waiter registers, so either the notifier sees the waiter or the
/// waiter's first check sees the change.
#[derive(Debug, Default)]
pub struct Notifier {
    generation: Mutex<u64>,
    changed: Condvar,
    waiters: AtomicU32,
}

impl Notifier {
    /// A notifier nobody waits on yet.
    pub const fn new() -> Self {
        Notifier {
            generation: Mutex::new(0),
            changed: Condvar::new(),
            waiters: AtomicU32::new(0),
        }
    }

    /// Wake every waiter so it re-checks its condition. Call it after every change of state
    /// that a waiter's condition reads.
    pub fn notify(&self) {
        fence(Ordering::SeqCst);
        if self.waiters.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut g = self.generation.lock().unwrap_or_else(|e| e.into_inner());
        *g = g.wrapping_add(1);
        self.changed.notify_all();
    }

    /// Wait until `ready()` holds or `timeout_ns` of real time passed (`u64::MAX` = forever).
    /// Sleeps until notified (or the timeout): `ready` must only read state whose every
    /// change is followed by [`notify`](Self::notify). Never allocates.
    pub fn wait_until(&self, mut ready: impl FnMut() -> bool, timeout_ns: u64) -> WaitOutcome {
        // Free of the lock and the count when the condition already holds.
        if ready() {
            return WaitOutcome::Ready;
        }
        let deadline = real_ns().saturating_add(timeout_ns);
        let mut g = self.generation.lock().unwrap_or_else(|e| e.into_inner());
        self.waiters.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        let outcome = loop {
            if ready() {
                break WaitOutcome::Ready;
            }
            if deadline == u64::MAX {
                g = self.changed.wait(g).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            let now = real_ns();
            if now >= deadline {
                break WaitOutcome::TimedOut;
            }
            g = match self
                .changed
                .wait_timeout(g, Duration::from_nanos(deadline - now))
            {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        };
        self.waiters.fetch_sub(1, Ordering::SeqCst);
        drop(g);
        outcome
    }
}

/// Sleeps on `cv` (for at most `timeout`, `None`: until woken) with `sleepers(&mut data)`
/// counting this thread while it sleeps. The count lives in the data `cv`'s mutex guards, so
/// a notifier holding that mutex wakes the variable only when the count is non-zero: a
/// condition variable's wake-up is a system call even with nobody asleep. Returns the guard
/// again; a poisoned lock is taken over (the SIL's state stays usable). Never allocates.
///
/// ```
/// use std::sync::{Condvar, Mutex};
/// use std::time::Duration;
/// let (m, cv) = (Mutex::new(0u32), Condvar::new());
/// let g = sil_common::wait::sleep_counted(&cv, m.lock().unwrap(), |n| n, Some(Duration::ZERO));
/// assert_eq!(*g, 0);
/// ```
pub fn sleep_counted<'a, T>(
    cv: &Condvar,
    mut guard: MutexGuard<'a, T>,
    sleepers: impl Fn(&mut T) -> &mut u32,
    timeout: Option<Duration>,
) -> MutexGuard<'a, T> {
    *sleepers(&mut guard) += 1;
    let mut guard = match timeout {
        None => cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
        Some(t) => match cv.wait_timeout(guard, t) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        },
    };
    *sleepers(&mut guard) -= 1;
    guard
}

/// Spins until `ready()` holds or `timeout_ns` of real time passed (`u64::MAX` = forever),
/// yielding the processor (`sched_yield`) between two checks: the way to watch memory that
/// changes without a notification (NvSciSync's `BusyWithYield`). Never allocates.
pub fn yield_until(mut ready: impl FnMut() -> bool, timeout_ns: u64) -> WaitOutcome {
    let deadline = real_ns().saturating_add(timeout_ns);
    loop {
        if ready() {
            return WaitOutcome::Ready;
        }
        if deadline != u64::MAX && real_ns() >= deadline {
            return WaitOutcome::TimedOut;
        }
        std::thread::yield_now();
    }
}

/// An engine worker's timed wait: sleeps on `cv` (taking `m` each time) until `now()` reaches
/// `deadline` (`true`) or `stop()` holds (`false`), napping at most `max_nap` between two
/// looks at the clock. The stopper sets its flag, then notifies `cv` with `m` held, so a
/// stop is never missed. `now` is the SIL clock (real or virtual): with a virtual clock
/// someone else moves it, and `max_nap` is how often the worker looks. Never allocates.
///
/// ```
/// use std::sync::{Condvar, Mutex};
/// use std::time::Duration;
/// let (m, cv) = (Mutex::new(()), Condvar::new());
/// let t = sil_common::clock::real_ns();
/// let reached = sil_common::wait::until_clock(
///     &m, &cv, t + 1_000, sil_common::clock::real_ns, || false, Duration::from_millis(1),
/// );
/// assert!(reached);
/// assert!(!sil_common::wait::until_clock(&m, &cv, u64::MAX, || 0, || true, Duration::ZERO));
/// ```
pub fn until_clock<T>(
    m: &Mutex<T>,
    cv: &Condvar,
    deadline: u64,
    now: impl Fn() -> u64,
    stop: impl Fn() -> bool,
    max_nap: Duration,
) -> bool {
    loop {
        if stop() {
            return false;
        }
        let t = now();
        if t >= deadline {
            return true;
        }
        let nap = Duration::from_nanos(deadline - t).min(max_nap);
        let g = crate::handle::lock(m);
        if stop() {
            return false;
        }
        let _ = cv.wait_timeout(g, nap);
    }
}
