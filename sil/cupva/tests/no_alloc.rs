//! Steady state allocates nothing: `CupvaStreamSubmit` (a wait on an imported NvSciSync
//! fence, a program, a fence request), the stream worker (fence wait, model run, signal),
//! `CupvaFenceImport`/`Export`, `CupvaCheckCommandStatus` and the CPU's fence wait, over
//! 2,000 frames (a counting global allocator, own process).
//!
//! Covers: REQ-PVA-029
#![allow(missing_docs)]

mod common;

use std::ptr::null_mut;

use common::*;
use sil_common::alloc_count::CountingAlloc;

#[global_allocator]
static A: CountingAlloc = CountingAlloc::all_threads();

#[test]
fn steady_state_allocates_nothing() {
    let _s = serial();
    let sci = Sci::new();
    let (prog, dst, expected) = golden_prog(7);
    let (pre_obj, _) = nvsci_sync(&sci, CUPVA_WAITER, true);
    let (_, eof_sync) = nvsci_sync(&sci, CUPVA_SIGNALER, true);
    let mut waits = Fences::wait(1);
    let req = Fences::request(eof_sync, 1);
    let s = stream();
    let cmds = [waits.cmd_ptr(), prog.cmd_ptr(), req.cmd_ptr()];
    let mut st = [null_mut(); 3];
    let mut pre = NvSciSyncFenceInitializer;
    let mut eof = NvSciSyncFenceInitializer;
    let frame = || {
        let mut e = CUPVA_INTERNAL_ERROR;
        // SAFETY: C ABI calls with live handles and pointers to live locals.
        unsafe {
            sok(NvSciSyncObjGenerateFence(pre_obj, &mut pre));
            ok(CupvaFenceImport(&mut waits.fences[0], &pre));
            ok(CupvaStreamSubmit(
                s,
                cmds.as_ptr(),
                st.as_mut_ptr(),
                3,
                CUPVA_IN_ORDER,
                100,
                -1,
            ));
            ok(CupvaFenceExport(&req.fences[0], &mut eof));
            sok(NvSciSyncObjSignal(pre_obj));
            sok(NvSciSyncFenceWait(&eof, sci.ctx, 10_000_000));
            ok(CupvaCheckCommandStatus(st[1], &mut e));
        }
        assert_eq!(e, CUPVA_ERROR_NONE);
    };
    A.assert_steady_state("the steady state", 20, 2_000, frame);
    assert_eq!(bytes(dst), expected);
    // SAFETY: fences this test owns; a live stream.
    unsafe {
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
        ok(CupvaStreamDestroy(s));
    }
}
