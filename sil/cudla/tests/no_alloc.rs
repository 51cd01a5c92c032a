//! Steady state allocates nothing: submit, the worker (fence waits, network, signals) and
//! `cudlaGetLastError`, over 5,000 frames (a counting global allocator, own process).
#![allow(missing_docs)]

mod common;

use common::*;
use sil_common::alloc_count::CountingAlloc;

#[global_allocator]
static A: CountingAlloc = CountingAlloc::all_threads();

#[test]
fn steady_state_allocates_nothing() {
    let sci = Sci::new();
    let dla = Dla::new(&sci, 0);
    let wait_obj = dla.wait_sem(&sci);
    let (_sig, sp) = dla.signal_sem(&sci);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 0, 0, 0);
    let mut pre = NvSciSyncFenceInitializer;
    let mut eof = NvSciSyncFenceInitializer;
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    let frame = |pre: &mut NvSciSyncFence, eof: &mut NvSciSyncFence| unsafe {
        ok(dla.submit_after(wait_obj, pre, &sp, eof, 0));
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(eof, 5_000_000));
        ok(cudlaGetLastError(dla.dev));
    };
    for _ in 0..20 {
        frame(&mut pre, &mut eof);
    }
    A.start();
    for _ in 0..5_000 {
        frame(&mut pre, &mut eof);
    }
    A.stop();
    assert_eq!(dla.outputs(), GOLDEN_OUT);
    assert_eq!(A.allocations(), 0, "allocations in the steady state");
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe {
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();
}
