//! A counting global allocator for the SIL no-allocation tests (feature `alloc-count`).
//!
//! The test binary owns the allocator as its `#[global_allocator]` static; this module only
//! provides the type. It forwards to the system allocator and counts allocations and
//! reallocations (`alloc_zeroed` included) while counting is on.
//!
//! [`CountingAlloc::all_threads`] counts every thread except the process's main thread when
//! counting was started on another thread. In a libtest binary the main thread is the test
//! harness, and tests never run on it: the harness allocates on its own schedule, for
//! instance to print "has been running for over 60 seconds" for a slow test (a run under
//! ThreadSanitizer passes 60 s), which says nothing about the code under test.
//!
//! Finding an allocation: after [`CountingAlloc::record_backtraces`]`(n)`, or with the
//! environment variable `SIL_ALLOC_BACKTRACES=n` set when [`CountingAlloc::start`] runs, the
//! first `n` counted allocations also record a [`Backtrace`] (captured under a thread-local
//! re-entrancy guard, so the capture's own allocations are neither counted nor traced);
//! [`CountingAlloc::backtraces`] formats them, for a failing assertion's message:
//!
//! ```text
//! SIL_ALLOC_BACKTRACES=4 cargo test -p sil-cudla --test no_alloc
//! ```
//!
//! ```
//! use sil_common::alloc_count::CountingAlloc;
//! static A: CountingAlloc = CountingAlloc::all_threads();
//! A.start();
//! A.stop();
//! assert_eq!(A.allocations(), 0);
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::backtrace::Backtrace;
use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// The environment variable that turns on backtrace recording (how many to record).
pub const BACKTRACES_ENV: &str = "SIL_ALLOC_BACKTRACES";

thread_local! {
    /// Counting is on for this thread (for [`CountingAlloc::this_thread`]).
    static THIS_THREAD: Cell<bool> = const { Cell::new(false) };
    /// This thread is recording a backtrace (its allocations are not counted).
    static IN_TRACE: Cell<bool> = const { Cell::new(false) };
    /// This thread's allocations are left out ([`exempt_this_thread`]).
    static EXEMPT: Cell<bool> = const { Cell::new(false) };
    /// This thread is the process's main thread: 0 not known yet, 1 yes, 2 no.
    static IS_MAIN: Cell<u8> = const { Cell::new(0) };
}

/// Whether the calling thread is the process's main thread (its thread id is the process
/// id). Never allocates.
pub fn on_main_thread() -> bool {
    IS_MAIN.with(|c| {
        if c.get() == 0 {
            // SAFETY: `gettid` and `getpid` take no arguments and cannot fail.
            let main = unsafe { libc::gettid() == libc::getpid() };
            c.set(if main { 1 } else { 2 });
        }
        c.get() == 1
    })
}

/// Which allocations count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// Those of every thread of the process (but the main thread, when counting was
    /// started on another one).
    AllThreads,
    /// Only those of the thread that called [`CountingAlloc::start`].
    ThisThread,
}

/// Forwards to [`System`] and counts allocations while counting is on.
#[derive(Debug)]
pub struct CountingAlloc {
    scope: Scope,
    on: AtomicBool,
    /// [`Scope::AllThreads`] and counting was started off the main thread: the main thread's
    /// allocations do not count.
    skip_main: AtomicBool,
    allocs: AtomicU64,
    /// How many counted allocations record a backtrace (from [`BACKTRACES_ENV`]).
    max_traces: AtomicUsize,
    traces: Mutex<Vec<Backtrace>>,
}

impl CountingAlloc {
    /// Counts the allocations of every thread (engine workers included), except those of
    /// the main thread when counting is started on another thread (the libtest harness).
    pub const fn all_threads() -> Self {
        Self::with_scope(Scope::AllThreads)
    }

    /// Counts only the allocations of the thread that starts counting.
    pub const fn this_thread() -> Self {
        Self::with_scope(Scope::ThisThread)
    }

    const fn with_scope(scope: Scope) -> Self {
        CountingAlloc {
            scope,
            on: AtomicBool::new(false),
            skip_main: AtomicBool::new(false),
            allocs: AtomicU64::new(0),
            max_traces: AtomicUsize::new(0),
            traces: Mutex::new(Vec::new()),
        }
    }

    /// Turns counting on. With [`BACKTRACES_ENV`] set to a number `n`, first calls
    /// [`record_backtraces(n)`](Self::record_backtraces).
    pub fn start(&self) {
        if let Some(n) = std::env::var(BACKTRACES_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok())
        {
            self.record_backtraces(n);
        }
        self.start_counting();
    }

    /// Records a backtrace for each of the first `n` allocations counted from now on
    /// (0: none), forgetting those recorded before. Call it with counting off (it may
    /// allocate room for `n`); [`start`](Self::start) calls it when [`BACKTRACES_ENV`] is set.
    pub fn record_backtraces(&self, n: usize) {
        let mut t = self.traces.lock().unwrap_or_else(PoisonError::into_inner);
        t.clear();
        // Reserve outside counting, so recording never grows the vector while counting.
        t.reserve(n);
        self.max_traces.store(n, Ordering::SeqCst);
    }

    fn start_counting(&self) {
        match self.scope {
            Scope::AllThreads => {
                self.skip_main.store(!on_main_thread(), Ordering::SeqCst);
                self.on.store(true, Ordering::SeqCst);
            }
            Scope::ThisThread => THIS_THREAD.with(|c| c.set(true)),
        }
    }

    /// Turns counting off.
    pub fn stop(&self) {
        match self.scope {
            Scope::AllThreads => self.on.store(false, Ordering::SeqCst),
            Scope::ThisThread => THIS_THREAD.with(|c| c.set(false)),
        }
    }

    /// Runs `frame` `warmup` times uncounted (first-use caches and pools fill), then
    /// `frames` times counted, and asserts that those allocated nothing; the panic names
    /// `what` and carries the recorded backtraces.
    ///
    /// ```
    /// use sil_common::alloc_count::CountingAlloc;
    /// static A: CountingAlloc = CountingAlloc::all_threads();
    /// let mut n = 0u32;
    /// A.assert_steady_state("counting frames", 2, 10, || n += 1);
    /// assert_eq!(n, 12);
    /// ```
    #[track_caller]
    pub fn assert_steady_state(
        &self,
        what: &str,
        warmup: usize,
        frames: usize,
        mut frame: impl FnMut(),
    ) {
        for _ in 0..warmup {
            frame();
        }
        let before = self.allocations();
        self.start();
        for _ in 0..frames {
            frame();
        }
        self.stop();
        assert_eq!(
            self.allocations() - before,
            0,
            "allocations in {what}{}",
            self.backtraces()
        );
    }

    /// Allocations counted so far.
    pub fn allocations(&self) -> u64 {
        self.allocs.load(Ordering::SeqCst)
    }

    /// The recorded backtraces, formatted (empty when none were recorded). Formatting
    /// allocates; it runs under the re-entrancy guard, so it is not counted.
    pub fn backtraces(&self) -> String {
        let was = IN_TRACE.with(|c| c.replace(true));
        let t = self.traces.lock().unwrap_or_else(PoisonError::into_inner);
        let mut s = String::new();
        for (i, b) in t.iter().enumerate() {
            let _ = write!(s, "\n--- counted allocation {} ---\n{b}", i + 1);
        }
        drop(t);
        IN_TRACE.with(|c| c.set(was));
        s
    }

    fn traces_len(&self) -> usize {
        self.traces
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    fn count(&self) {
        if IN_TRACE.with(Cell::get) || EXEMPT.with(Cell::get) {
            return;
        }
        let on = match self.scope {
            Scope::AllThreads => {
                self.on.load(Ordering::Relaxed)
                    && !(self.skip_main.load(Ordering::Relaxed) && on_main_thread())
            }
            Scope::ThisThread => THIS_THREAD.with(Cell::get),
        };
        if !on {
            return;
        }
        self.allocs.fetch_add(1, Ordering::Relaxed);
        let max = self.max_traces.load(Ordering::Relaxed);
        if max > 0 && self.traces_len() < max {
            IN_TRACE.with(|c| c.set(true));
            let b = Backtrace::force_capture();
            let mut t = self.traces.lock().unwrap_or_else(PoisonError::into_inner);
            // Capacity for `max` was reserved before counting: this push never reallocates.
            if t.len() < max {
                t.push(b);
            }
            drop(t);
            IN_TRACE.with(|c| c.set(false));
        }
    }
}

/// Leaves the calling thread's allocations out of every count (`true`) or puts them back
/// (`false`), e.g. a program's own printing between the frames it measures. Returns the
/// previous setting.
pub fn exempt_this_thread(exempt: bool) -> bool {
    EXEMPT.with(|e| e.replace(exempt))
}

// SAFETY: forwards to the system allocator unchanged; the counters are atomics, the
// main-thread check makes two syscalls, and the thread-local flags are `const`-initialised `Cell`s without destructor (they never
// allocate). A backtrace capture allocates only with the thread's re-entrancy guard set, so
// those allocations go straight to the system allocator without recursing into a capture.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        self.count();
        // SAFETY: the caller's layout contract is forwarded to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        self.count();
        // SAFETY: the caller's layout contract is forwarded to the system allocator.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        self.count();
        // SAFETY: the caller's layout/pointer contract is forwarded to the system allocator.
        unsafe { System.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's layout/pointer contract is forwarded to the system allocator.
        unsafe { System.dealloc(p, l) }
    }
}
