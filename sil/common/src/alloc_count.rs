//! A counting global allocator for the SIL no-allocation tests (feature `alloc-count`).
//!
//! The test binary owns the allocator as its `#[global_allocator]` static; this module only
//! provides the type. It forwards to the system allocator and counts allocations and
//! reallocations (`alloc_zeroed` included) while counting is on.
//!
//! ```
//! use sil_common::alloc_count::CountingAlloc;
//! static A: CountingAlloc = CountingAlloc::all_threads();
//! A.start();
//! A.stop();
//! assert_eq!(A.allocations(), 0);
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

thread_local! {
    /// Counting is on for this thread (for [`CountingAlloc::this_thread`]).
    static THIS_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Which allocations count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// Those of every thread of the process.
    AllThreads,
    /// Only those of the thread that called [`CountingAlloc::start`].
    ThisThread,
}

/// Forwards to [`System`] and counts allocations while counting is on.
#[derive(Debug)]
pub struct CountingAlloc {
    scope: Scope,
    on: AtomicBool,
    allocs: AtomicU64,
}

impl CountingAlloc {
    /// Counts the allocations of every thread (engine workers included).
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
            allocs: AtomicU64::new(0),
        }
    }

    /// Turns counting on.
    pub fn start(&self) {
        match self.scope {
            Scope::AllThreads => self.on.store(true, Ordering::SeqCst),
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

    /// Allocations counted so far.
    pub fn allocations(&self) -> u64 {
        self.allocs.load(Ordering::SeqCst)
    }

    fn count(&self) {
        let on = match self.scope {
            Scope::AllThreads => self.on.load(Ordering::Relaxed),
            Scope::ThisThread => THIS_THREAD.with(Cell::get),
        };
        if on {
            self.allocs.fetch_add(1, Ordering::Relaxed);
        }
    }
}

// SAFETY: forwards to the system allocator unchanged; the counters are atomics and the
// thread-local flag is a `const`-initialised `Cell` without destructor (it never allocates).
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
