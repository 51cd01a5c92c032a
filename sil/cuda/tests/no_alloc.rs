//! No heap allocation in the steady state: 10,000 frames of external-semaphore wait →
//! preprocess → postprocess → signal, stream wait/write value, event record/query/elapsed,
//! stream query/synchronize, counted by a global allocator over every thread of the process
//! (the stream workers and the SIL NvSciSync included). Virtual time, so nothing sleeps.
//!
//! Covers: REQ-RT-009

mod common;

use common::nvsci::*;
use common::*;
use nvsci_sys::sil::*;
use nvsci_sys::*;
use orin_exec_kernels::PostprocessParams;
use sil_common::alloc_count::CountingAlloc;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc::all_threads();

#[test]
fn steady_state_allocates_nothing() {
    // SAFETY: plain C call.
    nv(unsafe { NvSciSilClockSetVirtual(true, 1_000_000) });
    setup();
    let m = module();
    let (a, b) = (cpu_to_cuda(m), cuda_to_cpu(m));
    let import_ok = |o: NvSciSyncObj| {
        let (r, s) = import(o);
        ck(r);
        s
    };
    let (ea, eb) = (import_ok(a), import_ok(b));
    let mut waitctx = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    nv(unsafe { NvSciSyncCpuWaitContextAlloc(m, &mut waitctx) });

    let aeb = load("aeb", 87);
    let (_, pre) = function(aeb, "aeb_preprocess");
    let (_, post) = function(aeb, "aeb_postprocess");
    let (w, h) = (64u32, 32u32);
    let img = Pinned::<u8>::new((w * h) as usize);
    let map = Pinned::<i8>::new((w / 2 * h / 2) as usize);
    let out = Pinned::<i32>::new(4);
    let flag = Pinned::<u64>::new(2);
    let s = stream();
    let (e0, e1) = (event(CU_EVENT_DEFAULT), event(CU_EVENT_DEFAULT));
    let mut fa = NvSciSyncFenceInitializer;
    let mut fb = NvSciSyncFenceInitializer;
    let pp = PostprocessParams {
        threshold: 10,
        lane_x0: 2,
        lane_x1: 30,
        row_scale: 2.0,
        row_offset: 0.0,
        horizon: 1.0,
        fh: 100.0,
    };

    let mut frame = |k: u64| {
        // SAFETY: every pointer below is valid for the call.
        unsafe {
            nv(NvSciSyncFenceUpdateFence(a, 0, k, &mut fa));
            let wp = [wait_params(&mut fa)];
            let sp = [signal_params(&mut fb, 0)];
            ck(record(e0, s));
            ck(cuWaitExternalSemaphoresAsync(&ea, wp.as_ptr(), 1, s));
            ck(launch_preprocess(pre, s, (img.dptr(), map.dptr()), (w, h)));
            let map_in = (map.dptr(), w / 2, h / 2);
            ck(launch_postprocess(post, s, map_in, &pp, out.dptr()));
            ck(cuSignalExternalSemaphoresAsync(&eb, sp.as_ptr(), 1, s));
            ck(write64(s, flag.dptr(), k));
            ck(wait64(s, flag.dptr(), k, CU_STREAM_WAIT_VALUE_GEQ.0));
            ck(write32(s, flag.dptr() + 8, k as u32));
            ck(wait32(
                s,
                flag.dptr() + 8,
                k as u32,
                CU_STREAM_WAIT_VALUE_EQ.0,
            ));
            ck(record(e1, s));
            let _ = query(s);
            nv(NvSciSilClockAdvanceTo(1_000_000 + k * 1_000_000));
            nv(NvSciSyncObjSignal(a));
            nv(NvSciSyncFenceWait(&fb, waitctx, 5_000_000));
            ck(sync(s));
            ck(query(s));
            ck(cuEventQuery(e1));
            ck(cuEventSynchronize(e1));
            let (r, ms) = elapsed(e0, e1);
            ck(r);
            assert!(ms > 0.0);
        }
    };
    for k in 1..=10 {
        frame(k);
    }
    GLOBAL.start();
    for k in 11..=10_010 {
        frame(k);
    }
    GLOBAL.stop();
    assert_eq!(
        GLOBAL.allocations(),
        0,
        "heap allocations in the steady state"
    );
    ck(destroy(s));
}
