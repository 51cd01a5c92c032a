//! The steady-state calls do not allocate (the runtime asserts 0 allocations per frame).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use common::*;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded caller contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded caller contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded caller contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One frame of everything the runtime does in the steady state.
fn frame(
    cpu: NvSciSyncObj,
    eng: NvSciSyncObj,
    ctx: NvSciSyncCpuWaitContext,
    base: u64,
    f: &mut NvSciSyncFence,
    g: &mut NvSciSyncFence,
) {
    // SAFETY: locals and live handles.
    unsafe {
        ok(NvSciSyncObjGenerateFence(cpu, f));
        ok(NvSciSyncObjSignal(cpu));
        ok(NvSciSyncFenceWait(f, ctx, 1_000_000));
        ok(NvSciSyncFenceWaitWithMode(
            f,
            ctx,
            0,
            NvSciSyncWaitMode_BusyNoYield,
        ));
        let mut ts = 0;
        ok(NvSciSyncFenceGetTimestamp(f, &mut ts));
        let mut st: NvSciSyncTaskStatus = std::mem::zeroed();
        ok(NvSciSyncFenceGetTaskStatus(f, &mut st));
        let (mut id, mut v) = (0, 0);
        ok(NvSciSyncFenceExtractFence(f, &mut id, &mut v));
        ok(NvSciSyncFenceDup(f, g));
        ok(NvSciSyncFenceUpdateFence(eng, 0, base + 2, g));
        ok(NvSciSyncSilObjSignalEngine(eng, base));
        let mut c = std::ptr::null_mut();
        ok(NvSciSyncSilObjGetCounter(eng, &mut c));
        AtomicU64::from_ptr(c).fetch_add(1, Ordering::AcqRel);
        ok(NvSciSyncSilCounterWritten(c, base + 1));
        let mut reached = 0;
        ok(NvSciSyncSilFenceWaitEngine(g, 1_000_000, &mut reached));
        ok(NvSciSyncSilCounterWait(
            c,
            base + 2,
            0,
            1_000_000,
            &mut reached,
        ));
        ok(NvSciSyncSilObjGetSignalTimestamp(eng, base + 2, &mut ts));
        NvSciSyncFenceClear(g);
        NvSciSyncFenceClear(f);
        let _ = NvSciSilClockNowNs();
    }
}

#[test]
fn steady_state_does_not_allocate() {
    let m = module();
    let ctx = context(m);
    let cpu = object(m, true, true, true);
    let eng = object(m, false, false, false);
    let (mut f, mut g) = (cleared(), cleared());
    // Warm-up (first use of thread-locals, lazily initialised statics).
    frame(cpu, eng, ctx, 0, &mut f, &mut g);
    COUNTING.with(|c| c.set(true));
    for k in 1..=10_000u64 {
        frame(cpu, eng, ctx, 2 * k, &mut f, &mut g);
    }
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCS.load(Ordering::Relaxed), 0);
}
