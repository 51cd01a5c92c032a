//! What the calling thread has used: its CPU time and how often it woke from a wait, and
//! the per-library totals of the SIL engine threads (`cuSilGetThreadStats`,
//! `cudlaSilGetThreadStats`).
//!
//! ```
//! use sil_common::usage::{ThreadMeter, ThreadTotals, thread_cpu_ns};
//! static TOTALS: ThreadTotals = ThreadTotals::new();
//! let t0 = thread_cpu_ns();
//! {
//!     let mut m = ThreadMeter::start(&TOTALS);
//!     m.compute(|| (0..1000u64).sum::<u64>());
//!     m.op();
//! } // dropping the meter adds the thread's figures to the totals
//! assert!(thread_cpu_ns() >= t0);
//! let s = TOTALS.snapshot();
//! assert_eq!((s.threads, s.ops), (1, 1));
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

/// CPU time of the calling thread in ns (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock exists on Linux and QNX.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// How many times the calling thread blocked and woke again: its voluntary context
/// switches (`getrusage(RUSAGE_THREAD).ru_nvcsw`). Every sleep on a condition variable, a
/// contended lock or a timed sleep counts once. 0 where the count is not available.
pub fn thread_wakeups() -> u64 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `ru` is valid and writable; RUSAGE_THREAD asks for the calling thread.
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
        if rc == 0 {
            return ru.ru_nvcsw as u64;
        }
    }
    0
}

/// The sums over every engine thread a library started, live or exited.
#[derive(Debug, Default)]
pub struct ThreadTotals {
    threads: AtomicU64,
    cpu_ns: AtomicU64,
    compute_ns: AtomicU64,
    wakeups: AtomicU64,
    ops: AtomicU64,
}

/// A copy of [`ThreadTotals`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Threads started.
    pub threads: u64,
    /// Their CPU time, in ns.
    pub cpu_ns: u64,
    /// The part of it spent computing (kernel models, networks), in ns.
    pub compute_ns: u64,
    /// Times they woke from a wait.
    pub wakeups: u64,
    /// Operations they executed.
    pub ops: u64,
}

impl ThreadTotals {
    /// Zero totals.
    pub const fn new() -> Self {
        ThreadTotals {
            threads: AtomicU64::new(0),
            cpu_ns: AtomicU64::new(0),
            compute_ns: AtomicU64::new(0),
            wakeups: AtomicU64::new(0),
            ops: AtomicU64::new(0),
        }
    }

    /// The totals as last published by each thread ([`ThreadMeter::publish`]).
    pub fn snapshot(&self) -> Totals {
        Totals {
            threads: self.threads.load(Ordering::Acquire),
            cpu_ns: self.cpu_ns.load(Ordering::Acquire),
            compute_ns: self.compute_ns.load(Ordering::Acquire),
            wakeups: self.wakeups.load(Ordering::Acquire),
            ops: self.ops.load(Ordering::Acquire),
        }
    }
}

/// The figures of one engine thread, counted where it runs and added to its library's
/// [`ThreadTotals`] by [`publish`](Self::publish) and when dropped (so a thread that
/// exited keeps counting). Create it on the thread it measures.
#[derive(Debug)]
pub struct ThreadMeter {
    totals: &'static ThreadTotals,
    cpu_ns: u64,
    wakeups: u64,
    compute_ns: u64,
    ops: u64,
}

impl ThreadMeter {
    /// Starts measuring the calling thread (counted as one more thread at once).
    pub fn start(totals: &'static ThreadTotals) -> Self {
        totals.threads.fetch_add(1, Ordering::AcqRel);
        ThreadMeter {
            totals,
            cpu_ns: thread_cpu_ns(),
            wakeups: thread_wakeups(),
            compute_ns: 0,
            ops: 0,
        }
    }

    /// Runs `f` and counts its thread CPU time as computing.
    pub fn compute<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let t0 = thread_cpu_ns();
        let r = f();
        self.compute_ns += thread_cpu_ns().saturating_sub(t0);
        r
    }

    /// Counts one executed operation.
    pub fn op(&mut self) {
        self.ops += 1;
    }

    /// Adds what the thread used since the last publish to the totals (two system calls:
    /// call it when the thread goes idle, not per operation).
    pub fn publish(&mut self) {
        let (cpu, wake) = (thread_cpu_ns(), thread_wakeups());
        let t = self.totals;
        t.cpu_ns
            .fetch_add(cpu.saturating_sub(self.cpu_ns), Ordering::AcqRel);
        t.wakeups
            .fetch_add(wake.saturating_sub(self.wakeups), Ordering::AcqRel);
        t.compute_ns.fetch_add(self.compute_ns, Ordering::AcqRel);
        t.ops.fetch_add(self.ops, Ordering::AcqRel);
        (self.cpu_ns, self.wakeups, self.compute_ns, self.ops) = (cpu, wake, 0, 0);
    }
}

impl Drop for ThreadMeter {
    fn drop(&mut self) {
        self.publish();
    }
}
