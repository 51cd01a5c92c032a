//! Virtual time (own process: the SIL clock is process-wide): each VPU's timing model sets
//! its programs' durations exactly, a late fault adds its delay, and a hung program ends at
//! the execution timeout once the clock gets there.
//!
//! Covers: REQ-PVA-027, REQ-PVA-028
#![allow(missing_docs)]

mod common;

use std::ptr::null_mut;

use common::*;
use nvsci_sys::sil::{NvSciSilClockAdvanceTo, NvSciSilClockSetVirtual};

const T0: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

fn stamp(f: &cupvaFence_t) -> u64 {
    let mut ts = 0;
    // SAFETY: a reached fence of a sync object with timestamps.
    ok(unsafe { CupvaFenceGetTimeStamp(f, &mut ts) });
    ts
}

#[test]
fn vpu_timing_models_and_faults_in_virtual_time() {
    let _s = serial();
    // SAFETY: plain values.
    sok(unsafe { NvSciSilClockSetVirtual(true, T0) });
    timing(CUPVA_PVA0, CUPVA_VPU0, 3 * MS);
    timing(CUPVA_PVA1, CUPVA_VPU1, 7 * MS);
    let (src, dst) = (alloc(N), alloc(N));
    let (src2, dst2) = (alloc(N), alloc(N));
    let a = Prog::new(src, dst, 2);
    let b = Prog::new(src2, dst2, 2);
    // One sync object per stream: fences of one object requested on two streams are
    // signalled in whichever order the streams finish (the SyncObj docs warn of it).
    let (sync_a, sync_b) = (native_sync(), native_sync());
    let (ra, rb) = (Fences::request(sync_a, 1), Fences::request(sync_b, 1));
    let sa = stream();
    let mut sb = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { CupvaStreamCreate(&mut sb, CUPVA_PVA1, CUPVA_VPU1) });

    submit(sa, &[a.cmd_ptr(), ra.cmd_ptr()], -1);
    submit(sb, &[b.cmd_ptr(), rb.cmd_ptr()], -1);
    wait(&ra.fences[0]);
    wait(&rb.fences[0]);
    assert_eq!(stamp(&ra.fences[0]), T0 + 3 * MS, "PVA0/VPU0 model");
    assert_eq!(stamp(&rb.fences[0]), T0 + 7 * MS, "PVA1/VPU1 model");

    // In order: the next program starts when the previous one ended; late adds its delay.
    fault(sa, CUPVA_SIL_FAULT_LATE, 0, 2 * MS);
    submit(sa, &[a.cmd_ptr(), ra.cmd_ptr()], -1);
    wait(&ra.fences[0]);
    assert_eq!(stamp(&ra.fences[0]), T0 + 3 * MS + 5 * MS);

    // A hang ends at the execution timeout, when the clock reaches it.
    fault(sa, CUPVA_SIL_FAULT_HANG, 0, 0);
    let st = submit(sa, &[a.cmd_ptr(), ra.cmd_ptr()], 10);
    let mut done = false;
    // SAFETY: a filled fence, a valid out-pointer.
    ok(unsafe { CupvaFenceWait(&ra.fences[0], 50_000, &mut done) });
    assert!(
        !done,
        "a hung program does not end before the clock reaches its timeout"
    );
    assert_eq!(status(st[0]), CUPVA_OPERATION_PENDING);
    // SAFETY: plain value.
    sok(unsafe { NvSciSilClockAdvanceTo(T0 + 8 * MS + 10 * MS) });
    wait(&ra.fences[0]);
    assert_eq!(status(st[0]), CUPVA_COMMAND_EXECUTION_TIMEOUT);
    assert_eq!(stamp(&ra.fences[0]), T0 + 18 * MS);
    // SAFETY: live streams; plain values.
    unsafe {
        ok(CupvaStreamDestroy(sa));
        ok(CupvaStreamDestroy(sb));
        sok(NvSciSilClockSetVirtual(false, 0));
    }
}
