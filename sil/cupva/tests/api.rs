//! The SIL cuPVA through its C ABI: allowlist, program models with golden output, NvSciSync
//! fence import and export, command statuses, timeouts, every fault kind and the fence limit
//! of a sync object.
#![allow(missing_docs)]

mod common;

use std::ptr::{null, null_mut};

use common::*;

/// An image outside the allowlist is refused as PVA authentication refuses it; an
/// allowlisted image needs a model; an allowlisted image with a model loads.
/// Covers: REQ-PVA-021
#[test]
fn allowlist_refuses_unlisted_programs() {
    let _s = serial();
    let mut exec = null_mut();
    // SAFETY: valid pointers and lengths.
    unsafe {
        assert_eq!(
            CupvaExecutableCreate(&mut exec, ROGUE_ELF.as_ptr().cast(), ROGUE_ELF.len() as i32),
            CUPVA_DRIVER_API_ERROR
        );
        assert!(exec.is_null(), "nothing written on refusal");
        cupva_host::allow_program(sha(ROGUE_ELF));
        assert_eq!(
            CupvaExecutableCreate(&mut exec, ROGUE_ELF.as_ptr().cast(), ROGUE_ELF.len() as i32),
            CUPVA_UNSUPPORTED_FEATURE,
            "allowlisted but no model"
        );
        let mut msg = null();
        assert_eq!(CupvaGetLastError(&mut msg), CUPVA_UNSUPPORTED_FEATURE);
        assert!(!msg.is_null());
        ok(CupvaExecutableCreate(
            &mut exec,
            SCALE_ELF.as_ptr().cast(),
            SCALE_ELF.len() as i32,
        ));
        ok(CupvaExecutableDestroy(exec));
        assert_eq!(CupvaExecutableDestroy(exec), CUPVA_INVALID_ARGUMENT);
    }
}

/// The program's model runs over PVA memory with the parameters set by name, after the
/// commands before it, and the requested fence is reached with a timestamp.
/// Covers: REQ-PVA-022, REQ-PVA-023
#[test]
fn model_runs_with_golden_output() {
    let _s = serial();
    let (prog, dst, expected) = golden_prog(3);
    let sync = native_sync();
    let req = Fences::request(sync, 1);
    let s = stream();
    let st = submit(s, &[prog.cmd_ptr(), req.cmd_ptr()], -1);
    wait(&req.fences[0]);
    let out = bytes(dst as *const u8);
    assert_eq!(out, expected);
    assert_eq!(status(st[0]), CUPVA_ERROR_NONE);
    let mut ts = 0;
    // SAFETY: a reached fence of a sync object with timestamps.
    ok(unsafe { CupvaFenceGetTimeStamp(&req.fences[0], &mut ts) });
    assert!(ts > 0);
    // A second run: the next fence of the object, the next value.
    let first = req.fences[0];
    prog.u32("gain", 5);
    submit(s, &[prog.cmd_ptr(), req.cmd_ptr()], -1);
    wait(&req.fences[0]);
    assert_ne!(first, req.fences[0]);
    let out = bytes(dst as *const u8);
    assert_eq!(out, golden(5).1);
    // SAFETY: live handles of this test.
    unsafe {
        ok(CupvaStreamDestroy(s));
        ok(CupvaSyncObjDestroy(sync));
        ok(CupvaExecutableDestroy(prog.exec));
    }
}

/// Fence interop with NvSciSync, the way the runtime uses it: NvSciBuf memory in, a
/// pre-fence the CPU signals (imported), the program, a requested fence exported to an
/// NvSciSync fence the CPU waits for. The program does not run before the pre-fence is
/// reached; exported values are deterministic (one per frame).
/// Covers: REQ-PVA-024
#[test]
fn nvsci_fence_import_wait_and_export() {
    let _s = serial();
    let sci = Sci::new();
    let (ib, ob) = (sci.raw(N as u64), sci.raw(N as u64));
    let (mut src, mut dst) = (null_mut(), null_mut());
    // SAFETY: C ABI calls with live handles and valid out-pointers.
    unsafe {
        ok(CupvaMemImport(&mut src, ib, CUPVA_READ));
        ok(CupvaMemImport(&mut dst, ob, CUPVA_READ_WRITE));
    }
    let (input, expected) = golden(9);
    // SAFETY: `src` is the imported buffer's memory (N bytes).
    unsafe { std::ptr::copy_nonoverlapping(input.as_ptr(), src as *mut u8, N) };
    let prog = Prog::new(src as *const u8, dst as *mut u8, 9);
    let (pre_obj, pre_sync) = nvsci_sync(&sci, CUPVA_WAITER, true);
    let (_, eof_sync) = nvsci_sync(&sci, CUPVA_SIGNALER, true);
    let mut waits = Fences::wait(1);
    let req = Fences::request(eof_sync, 1);
    let s = stream();
    let mut last = 0u64;
    for frame in 0..3u64 {
        let mut pre = NvSciSyncFenceInitializer;
        let mut eof = NvSciSyncFenceInitializer;
        // SAFETY: C ABI calls with live handles and pointers to live locals.
        unsafe {
            sok(NvSciSyncObjGenerateFence(pre_obj, &mut pre));
            ok(CupvaFenceInit(&mut waits.fences[0], pre_sync));
            ok(CupvaFenceImport(&mut waits.fences[0], &pre));
            std::ptr::write_bytes(dst as *mut u8, 0, N);
        }
        let st = submit(s, &[waits.cmd_ptr(), prog.cmd_ptr(), req.cmd_ptr()], -1);
        // SAFETY: a filled fence of an imported object, a writable NvSciSync fence.
        ok(unsafe { CupvaFenceExport(&req.fences[0], &mut eof) });
        let (mut id, mut value) = (0, 0);
        // SAFETY: a valid fence and out-pointers.
        sok(unsafe { NvSciSyncFenceExtractFence(&eof, &mut id, &mut value) });
        assert_eq!(value, last + 1, "frame {frame}: one signal per frame");
        last = value;
        // The program waits for the CPU's pre-fence.
        // SAFETY: a valid fence and wait context.
        let early = unsafe { NvSciSyncFenceWait(&eof, sci.ctx, 20_000) };
        assert_eq!(early, NvSciError_Timeout);
        assert_eq!(status(st[1]), CUPVA_OPERATION_PENDING);
        assert!(bytes(dst as *const u8).iter().all(|&b| b == 0));
        // SAFETY: the CPU is the signaler of `pre_obj`.
        sok(unsafe { NvSciSyncObjSignal(pre_obj) });
        // SAFETY: as above.
        sok(unsafe { NvSciSyncFenceWait(&eof, sci.ctx, 10_000_000) });
        assert_eq!(status(st[1]), CUPVA_ERROR_NONE);
        assert_eq!(bytes(dst as *const u8), expected);
        // SAFETY: fences this test owns.
        unsafe {
            NvSciSyncFenceClear(&mut pre);
            NvSciSyncFenceClear(&mut eof);
        }
    }
    // A fence of a native sync object cannot be exported; a foreign NvSci fence not imported.
    let nat = native_sync();
    let nreq = Fences::request(nat, 1);
    submit(s, &[nreq.cmd_ptr()], -1);
    let mut out = NvSciSyncFenceInitializer;
    let other = sci.sync(CUPVA_WAITER, false);
    let mut foreign = NvSciSyncFenceInitializer;
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        assert_eq!(
            CupvaFenceExport(&nreq.fences[0], &mut out),
            CUPVA_INVALID_ARGUMENT
        );
        sok(NvSciSyncObjGenerateFence(other, &mut foreign));
        waits.fences[0] = cupvaFence_t::default();
        assert_eq!(
            CupvaFenceImport(&mut waits.fences[0], &foreign),
            CUPVA_INVALID_ARGUMENT
        );
        NvSciSyncFenceClear(&mut foreign);
        ok(CupvaStreamDestroy(s));
        ok(CupvaMemFree(src));
        ok(CupvaMemFree(dst));
        NvSciBufObjFree(ib);
        NvSciBufObjFree(ob);
    }
}

/// A program longer than the execution timeout ends at it with
/// `CUPVA_COMMAND_EXECUTION_TIMEOUT` and writes nothing; its fence is still signalled. A
/// full queue makes a submit wait for its submit timeout.
/// Covers: REQ-PVA-026, REQ-PVA-023
#[test]
fn execution_and_submit_timeouts() {
    let _s = serial();
    let (src, dst) = (alloc(N), alloc(N));
    let prog = Prog::new(src, dst, 2);
    let sync = native_sync();
    let req = Fences::request(sync, 1);
    let s = stream();
    timing(CUPVA_PVA0, CUPVA_VPU0, 5_000_000);
    // SAFETY: `src` is N bytes of PVA memory.
    unsafe { std::ptr::write_bytes(src, 1, N) };
    let st = submit(s, &[prog.cmd_ptr(), req.cmd_ptr()], 1);
    wait(&req.fences[0]);
    assert_eq!(status(st[0]), CUPVA_COMMAND_EXECUTION_TIMEOUT);
    assert_eq!(status(st[1]), CUPVA_ERROR_NONE);
    assert!(bytes(dst as *const u8).iter().all(|&b| b == 0));
    // Within the timeout: runs.
    let st = submit(s, &[prog.cmd_ptr(), req.cmd_ptr()], 100);
    wait(&req.fences[0]);
    assert_eq!(status(st[0]), CUPVA_ERROR_NONE);
    timing(CUPVA_PVA0, CUPVA_VPU0, 100_000);

    // Block the worker on a pre-fence nobody signals, then fill the queue.
    let sci = Sci::new();
    let (pre_obj, mut pre, waits) = pre_fence_wait(&sci);
    let mut barrier = cupvaCmd_t::default();
    // SAFETY: a valid out-pointer.
    ok(unsafe { CupvaCmdBarrierInit(&mut barrier) });
    submit(s, &[waits.cmd_ptr()], -1);
    let fill: Vec<*const cupvaCmd_t> = vec![&barrier; cupva_host::limits::QUEUE_CAPACITY];
    // SAFETY: live stream and commands.
    let r = unsafe {
        CupvaStreamSubmit(
            s,
            fill.as_ptr(),
            null_mut(),
            fill.len() as i32,
            CUPVA_IN_ORDER,
            -1,
            1,
        )
    };
    // The worker may or may not have taken the wait off the queue yet: either all fit
    // or the submission timed out as a whole.
    if r == CUPVA_ERROR_NONE {
        // SAFETY: as above.
        let r2 =
            unsafe { CupvaStreamSubmit(s, fill.as_ptr(), null_mut(), 2, CUPVA_IN_ORDER, -1, 1) };
        assert_eq!(r2, CUPVA_COMMAND_SUBMISSION_TIMEOUT);
    } else {
        assert_eq!(r, CUPVA_COMMAND_SUBMISSION_TIMEOUT);
    }
    // SAFETY: the CPU signals; then everything drains.
    sok(unsafe { NvSciSyncObjSignal(pre_obj) });
    let st = submit_retry(s, req.cmd_ptr());
    wait(&req.fences[0]);
    assert_eq!(status(st), CUPVA_ERROR_NONE);
    // SAFETY: live handles of this test.
    unsafe {
        NvSciSyncFenceClear(&mut pre);
        ok(CupvaStreamDestroy(s));
    }
}

/// Submits one command, waiting for queue space without limit.
fn submit_retry(s: cupvaStream_t, c: *const cupvaCmd_t) -> cupvaCmdStatus_t {
    let mut st = null_mut();
    // SAFETY: live stream and command.
    ok(unsafe { CupvaStreamSubmit(s, &c, &mut st, 1, CUPVA_IN_ORDER, -1, -1) });
    st
}

/// Hang (ended by the execution timeout), error (in the command status), corrupt (the
/// output flipped) and late (still correct, later) each hit exactly the next program.
/// Covers: REQ-PVA-028, REQ-PVA-026
#[test]
fn each_fault_kind() {
    let _s = serial();
    let (prog, dst, expected) = golden_prog(3);
    let sync = native_sync();
    let req = Fences::request(sync, 1);
    let s = stream();
    let out = || bytes(dst as *const u8);
    let run = |exec_ms: i32| {
        // SAFETY: `dst` as above.
        unsafe { std::ptr::write_bytes(dst, 0, N) };
        let st = submit(s, &[prog.cmd_ptr(), req.cmd_ptr()], exec_ms);
        wait(&req.fences[0]);
        status(st[0])
    };
    fault(s, CUPVA_SIL_FAULT_HANG, 0, 0);
    assert_eq!(run(20), CUPVA_COMMAND_EXECUTION_TIMEOUT);
    assert!(
        out().iter().all(|&b| b == 0),
        "a hung program writes nothing"
    );
    fault(s, CUPVA_SIL_FAULT_ERROR, CUPVA_VPU_DIVIDE_BY_ZERO.0, 0);
    assert_eq!(run(-1), CUPVA_VPU_DIVIDE_BY_ZERO);
    fault(s, CUPVA_SIL_FAULT_CORRUPT_OUTPUT, 0, 0);
    assert_eq!(run(-1), CUPVA_ERROR_NONE);
    let flipped: Vec<u8> = expected.iter().map(|b| !b).collect();
    assert_eq!(out(), flipped);
    fault(s, CUPVA_SIL_FAULT_LATE, 0, 2_000_000);
    assert_eq!(run(-1), CUPVA_ERROR_NONE);
    assert_eq!(out(), expected);
    // Faults are used up: the next run is clean.
    assert_eq!(run(-1), CUPVA_ERROR_NONE);
    assert_eq!(out(), expected);
    // A hang without an execution timeout ends with the stream.
    fault(s, CUPVA_SIL_FAULT_HANG, 0, 0);
    let st = submit(s, &[prog.cmd_ptr()], -1);
    assert_eq!(status(st[0]), CUPVA_OPERATION_PENDING);
    // SAFETY: live stream.
    ok(unsafe { CupvaStreamDestroy(s) });
    assert_eq!(status_of_dead(st[0]), CUPVA_INVALID_ARGUMENT);
}

fn status_of_dead(st: cupvaCmdStatus_t) -> cupvaError_t {
    let mut e = CUPVA_ERROR_NONE;
    // SAFETY: a status handle and a valid out-pointer.
    unsafe { CupvaCheckCommandStatus(st, &mut e) }
}

/// At most 511 fences of one sync object are outstanding; the next request is refused
/// (`CUPVA_INVALID_STATE`, nothing queued) and works again once fences are reached.
/// Covers: REQ-PVA-025
#[test]
fn fence_limit_per_sync_object() {
    let _s = serial();
    let sci = Sci::new();
    let (pre_obj, mut pre, waits) = pre_fence_wait(&sci);
    let sync = native_sync();
    let s = stream();
    submit(s, &[waits.cmd_ptr()], -1);
    let four = Fences::request(sync, 4);
    let three = Fences::request(sync, 3);
    let one = Fences::request(sync, 1);
    let mut cmds: Vec<*const cupvaCmd_t> = vec![four.cmd_ptr(); 127];
    cmds.push(three.cmd_ptr());
    submit(s, &cmds, -1); // 127 × 4 + 3 = 511
    let c = one.cmd_ptr();
    // SAFETY: live stream and command.
    let r = unsafe { CupvaStreamSubmit(s, &c, null_mut(), 1, CUPVA_IN_ORDER, -1, -1) };
    assert_eq!(r, CUPVA_INVALID_STATE, "the 512th outstanding fence");
    // SAFETY: the CPU signals the pre-fence; all 511 are reached.
    sok(unsafe { NvSciSyncObjSignal(pre_obj) });
    wait(&three.fences[2]);
    submit(s, &[one.cmd_ptr()], -1);
    wait(&one.fences[0]);
    // SAFETY: live handles of this test.
    unsafe {
        NvSciSyncFenceClear(&mut pre);
        ok(CupvaStreamDestroy(s));
    }
}
