//! Steady state allocates nothing: submit, the worker (fence waits, network, signals) and
//! `cudlaGetLastError`, over 5,000 frames (a counting global allocator, own process); then
//! the same with sync points, several signal events (SOF and EOF) and layer statistics.
//!
//! Covers: REQ-RT-009
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
    A.assert_steady_state("the steady state", 20, 5_000, || frame(&mut pre, &mut eof));
    assert_eq!(dla.outputs(), GOLDEN_OUT);
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe {
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();

    // Sync points, an SOF fence, a deterministic semaphore without a fence, statistics.
    let dla = Dla::with_loadable(&sci, 1, AEB_STATS);
    let wait_sp = dla.wait_sp(&sci);
    let (_sp_obj, sp) = dla.signal_sp(&sci);
    let (_det, dp) = dla.signal_sem(&sci);
    let (_sof_obj, sofp) = dla.signal_sem(&sci);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 0, 0, 0);
    let sizes = [48 + 6 * 32u64, 48 + 3 * 32u64];
    let stats = [sci.tensor(sizes[0]), sci.tensor(sizes[1])];
    let stp = [
        import_mem(dla.dev, stats[0], sizes[0], CUDLA_TASK_STATISTICS.0),
        import_mem(dla.dev, stats[1], sizes[1], CUDLA_TASK_STATISTICS.0),
    ];
    let outs = [dla.out_ptrs[0], dla.out_ptrs[1], stp[0], stp[1]];
    let ptrs = [sp[0], sofp[0], dp[0]];
    let (mut pre, mut eof, mut sof) = (
        NvSciSyncFenceInitializer,
        NvSciSyncFenceInitializer,
        NvSciSyncFenceInitializer,
    );
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    let frame = |pre: &mut NvSciSyncFence, eof: &mut NvSciSyncFence, sof: &mut NvSciSyncFence| unsafe {
        sok(NvSciSyncObjGenerateFence(wait_sp, pre));
        let pf = [cfence(pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        let mut cf = [
            cfence(eof, CUDLA_NVSCISYNC_FENCE),
            cfence(sof, CUDLA_NVSCISYNC_FENCE_SOF),
            CudlaFence {
                fence: std::ptr::null_mut(),
                r#type: CUDLA_NVSCISYNC_FENCE,
            },
        ];
        let mut s = cudlaSignalEvents {
            devPtrs: ptrs.as_ptr(),
            eofFences: cf.as_mut_ptr(),
            numEvents: 3,
        };
        let mut t = dla.task(Some(&w), Some(&mut s));
        t.outputTensor = outs.as_ptr();
        t.numOutputTensors = 4;
        ok(dla.submit(&t, 0));
        sok(NvSciSyncObjSignal(wait_sp));
        sok(sci.wait(eof, 5_000_000));
        ok(cudlaGetLastError(dla.dev));
    };
    A.assert_steady_state("frames with sync points and statistics", 20, 2_000, || {
        frame(&mut pre, &mut eof, &mut sof)
    });
    assert_eq!(dla.outputs(), GOLDEN_OUT);
    assert_eq!(&read(stats[0], 8)[..], b"SILSTAT\x01");
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe {
        for f in [&mut pre, &mut eof, &mut sof] {
            NvSciSyncFenceClear(f);
        }
    }
    dla.destroy();
}
