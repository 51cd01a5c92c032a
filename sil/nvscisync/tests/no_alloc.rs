//! The steady-state calls do not allocate (the runtime asserts 0 allocations per frame).
//!
//! Covers: REQ-RT-009

mod common;

use std::sync::atomic::{AtomicU64, Ordering};

use common::*;
use sil_common::alloc_count::CountingAlloc;

/// Counts the allocations of the test's own thread.
#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc::this_thread();

/// The CPU side of a frame: a fence on `cpu`, its signal, a wait and a wait in `mode`, and
/// the fence's timestamp (returned).
fn cpu_cycle(
    cpu: NvSciSyncObj,
    ctx: NvSciSyncCpuWaitContext,
    f: &mut NvSciSyncFence,
    mode: NvSciSyncWaitMode,
) -> u64 {
    let mut ts = 0;
    // SAFETY: locals and live handles.
    unsafe {
        ok(NvSciSyncObjGenerateFence(cpu, f));
        ok(NvSciSyncObjSignal(cpu));
        ok(NvSciSyncFenceWait(f, ctx, 1_000_000));
        ok(NvSciSyncFenceWaitWithMode(f, ctx, 0, mode));
        ok(NvSciSyncFenceGetTimestamp(f, &mut ts));
    }
    ts
}

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
        let mut ts = cpu_cycle(cpu, ctx, f, NvSciSyncWaitMode_BusyNoYield);
        let mut st: NvSciSyncTaskStatus = std::mem::zeroed();
        ok(NvSciSyncFenceGetTaskStatus(f, &mut st));
        let (mut id, mut v) = (0, 0);
        ok(NvSciSyncFenceExtractFence(f, &mut id, &mut v));
        ok(NvSciSyncFenceDup(f, g));
        ok(NvSciSyncSilObjEngineFence(eng, g));
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

/// One frame on sync points: CPU and engine fences, signals and waits in every mode they
/// support.
fn sync_point_frame(cpu: NvSciSyncObj, ctx: NvSciSyncCpuWaitContext, f: &mut NvSciSyncFence) {
    // SAFETY: locals and live handles.
    unsafe {
        let mut ts = cpu_cycle(cpu, ctx, f, NvSciSyncWaitMode_Blocking);
        let (mut id, mut v) = (0, 0);
        ok(NvSciSyncFenceExtractFence(f, &mut id, &mut v));
        ok(NvSciSyncFenceUpdateFence(cpu, id, v, f));
        ok(NvSciSyncSilObjEngineFence(cpu, f));
        ok(NvSciSyncSilObjSignalEngine(cpu, v));
        let mut reached = 0;
        ok(NvSciSyncSilFenceWaitEngine(f, 1_000_000, &mut reached));
        ok(NvSciSyncSilObjGetSignalTimestamp(cpu, v, &mut ts));
        NvSciSyncFenceClear(f);
    }
}

#[test]
fn sync_point_steady_state_does_not_allocate() {
    let m = module();
    let ctx = context(m);
    let s = list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_SignalOnly),
            cpu: Some(true),
            ..Opts::default()
        },
    );
    let w = waiter(m, true, true);
    let sp = alloc(&[s, w]);
    let mut f = cleared();
    sync_point_frame(sp, ctx, &mut f);
    GLOBAL.start();
    for _ in 0..10_000 {
        sync_point_frame(sp, ctx, &mut f);
    }
    GLOBAL.stop();
    assert_eq!(GLOBAL.allocations(), 0);
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
    GLOBAL.start();
    for k in 1..=10_000u64 {
        frame(cpu, eng, ctx, 2 * k, &mut f, &mut g);
    }
    GLOBAL.stop();
    assert_eq!(GLOBAL.allocations(), 0);
}
