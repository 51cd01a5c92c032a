//! A blocked waiter sleeps until notified: no periodic re-check, so it costs almost no CPU
//! and wakes about once per notification (the old 50 µs re-check woke ~2000 times in 100 ms).
//! Bounds are counts and CPU time with wide margins, never wall-clock judgements.
//!
//! Covers: REQ-SYNC-008

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sil_common::usage::{thread_cpu_ns, thread_wakeups};
use sil_common::wait::{Notifier, WaitOutcome};

/// A waiter that times out after 100 ms without any notification.
#[test]
fn an_unnotified_waiter_sleeps_through_its_timeout() {
    let n = Notifier::new();
    let (c0, w0) = (thread_cpu_ns(), thread_wakeups());
    assert_eq!(n.wait_until(|| false, 100_000_000), WaitOutcome::TimedOut);
    let (cpu, wakes) = (thread_cpu_ns() - c0, thread_wakeups() - w0);
    assert!(cpu < 5_000_000, "{cpu} ns of CPU for a 100 ms wait");
    assert!(wakes <= 20, "{wakes} wake-ups in a 100 ms wait");
}

/// Ten notifications over ~100 ms: the waiter wakes about once each, the last one ends it.
#[test]
fn a_waiter_wakes_once_per_notification() {
    let n = Arc::new(Notifier::new());
    let value = Arc::new(AtomicU64::new(0));
    let (n2, v2) = (n.clone(), value.clone());
    let waiter = std::thread::spawn(move || {
        let (c0, w0) = (thread_cpu_ns(), thread_wakeups());
        let r = n2.wait_until(|| v2.load(Ordering::Acquire) >= 10, u64::MAX);
        (r, thread_cpu_ns() - c0, thread_wakeups() - w0)
    });
    for _ in 0..10 {
        std::thread::sleep(Duration::from_millis(10));
        value.fetch_add(1, Ordering::AcqRel);
        n.notify();
    }
    let (r, cpu, wakes) = waiter.join().unwrap();
    assert_eq!(r, WaitOutcome::Ready);
    assert!(cpu < 5_000_000, "{cpu} ns of CPU");
    // 10 notifications, plus slack for lock contention on a loaded machine.
    assert!(wakes <= 40, "{wakes} wake-ups for 10 notifications");
}

/// A notification made while nobody sleeps skips the lock and the system call, and none is
/// ever lost: a waiter and a notifier hand a counter back and forth 20,000 times, each
/// waiting without a timeout for the other's step. A lost wake-up would leave one of them
/// asleep for good (the watchdog's 60 s bound, far above any scheduling delay).
#[test]
fn no_notification_is_lost_when_the_notifier_skips_idle_wakeups() {
    const ROUNDS: u64 = 20_000;
    let n = Arc::new(Notifier::new());
    let value = Arc::new(AtomicU64::new(0));
    let (n2, v2) = (n.clone(), value.clone());
    let odd = std::thread::spawn(move || {
        for i in 0..ROUNDS {
            let want = 2 * i + 1;
            let r = n2.wait_until(|| v2.load(Ordering::Acquire) == want - 1, 60_000_000_000);
            assert_eq!(
                r,
                WaitOutcome::Ready,
                "round {i}: the even step never woke us"
            );
            v2.store(want, Ordering::Release);
            n2.notify();
        }
    });
    for i in 0..ROUNDS {
        let r = n.wait_until(
            || value.load(Ordering::Acquire) == 2 * i + 1,
            60_000_000_000,
        );
        assert_eq!(
            r,
            WaitOutcome::Ready,
            "round {i}: the odd step never woke us"
        );
        value.store(2 * i + 2, Ordering::Release);
        n.notify();
    }
    odd.join().expect("the odd side");
    assert_eq!(value.load(Ordering::Acquire), 2 * ROUNDS);
}
