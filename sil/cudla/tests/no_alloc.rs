//! Steady state allocates nothing: submit, the worker (fence waits, network, signals) and
//! `cudlaGetLastError`, over 5,000 frames (a counting global allocator, own process).
#![allow(missing_docs)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use common::*;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's layout/pointer contract is forwarded to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's layout/pointer contract is forwarded to the system allocator.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's layout/pointer contract is forwarded to the system allocator.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

#[test]
fn steady_state_allocates_nothing() {
    let sci = Sci::new();
    let dla = Dla::new(&sci, 0);
    let wait_obj = sci.sem(CUDLA_NVSCISYNC_ATTR_WAIT, true);
    let sig = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, true);
    import_sem(dla.dev, wait_obj);
    let sp = [import_sem(dla.dev, sig)];
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 0, 0, 0);
    let mut pre = NvSciSyncFenceInitializer;
    let mut eof = NvSciSyncFenceInitializer;
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    let frame = |pre: &mut NvSciSyncFence, eof: &mut NvSciSyncFence| unsafe {
        sok(NvSciSyncObjGenerateFence(wait_obj, pre));
        let pf = [cfence(pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        let mut ef = [cfence(eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(&sp, &mut ef);
        ok(dla.submit(&dla.task(Some(&w), Some(&mut s)), 0));
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(eof, 5_000_000));
        ok(cudlaGetLastError(dla.dev));
    };
    for _ in 0..20 {
        frame(&mut pre, &mut eof);
    }
    COUNTING.store(true, Ordering::SeqCst);
    for _ in 0..5_000 {
        frame(&mut pre, &mut eof);
    }
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(dla.outputs(), GOLDEN_OUT);
    assert_eq!(
        ALLOCS.load(Ordering::SeqCst),
        0,
        "allocations in the steady state"
    );
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe {
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();
}
