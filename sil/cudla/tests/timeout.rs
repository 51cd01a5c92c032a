//! `cudlaSetTaskTimeoutInMs`: a hung task (fault kind hang) and a task whose modelled time
//! exceeds the timeout end at start + timeout with `cudlaErrorDlaErrEngineTimeout` and their
//! EOF fences signalled; in virtual time a hang ends once the clock reaches start + timeout.
//!
//! Covers: REQ-DLA-008
#![allow(missing_docs)]

mod common;

use std::time::{Duration, Instant};

use common::*;

/// Real time: the hang ends after the timeout; outputs are not written; the next task runs.
#[test]
fn hang_ends_at_the_timeout_in_real_time() {
    let (_s, sci, dla) = setup();
    let (sig, sp) = dla.signal_sp(&sci);
    let (sof_obj, sofp) = dla.signal_sem(&sci);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 100_000, 0, 0);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        ok(cudlaSetTaskTimeoutInMs(dla.dev, 40));
        fault(dla.dev, CUDLA_SIL_FAULT_HANG, 0, 0, 1, 0);
        write(dla.outputs[0], &[0x33; 1536]);
        let (mut sof, mut eof) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        let ptrs = [sofp[0], sp[0]];
        let mut cf = [
            cfence(&mut sof, CUDLA_NVSCISYNC_FENCE_SOF),
            cfence(&mut eof, CUDLA_NVSCISYNC_FENCE),
        ];
        let mut s = cudlaSignalEvents {
            devPtrs: ptrs.as_ptr(),
            eofFences: cf.as_mut_ptr(),
            numEvents: 2,
        };
        let wall = Instant::now();
        ok(dla.submit(&dla.task(None, Some(&mut s)), 0));
        sok(sci.wait(&sof, 1_000_000));
        assert_eq!(sci.wait(&eof, 10_000), NvSciError_Timeout, "ended early");
        sok(sci.wait(&eof, 2_000_000));
        assert!(wall.elapsed() >= Duration::from_millis(40));
        let start = signal_ts(sof_obj, fence_value(&sof));
        let end = signal_ts(sig, fence_value(&eof));
        assert!(
            end >= start + 40_000_000 && end < start + 1_000_000_000,
            "{}",
            end - start
        );
        assert_eq!(cudlaGetLastError(dla.dev), cudlaErrorDlaErrEngineTimeout);
        assert_eq!(
            read(dla.outputs[0], 1536),
            vec![0x33; 1536],
            "outputs written"
        );
        // The next task is normal.
        let mut next = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut next, 0));
        sok(sci.wait(&next, 2_000_000));
        assert_eq!(cudlaGetLastError(dla.dev), cudlaSuccess);
        assert_eq!(dla.outputs(), GOLDEN_OUT);
        for f in [&mut sof, &mut eof, &mut next] {
            NvSciSyncFenceClear(f);
        }
    }
    dla.destroy();
}

/// Virtual time: a hung task's EOF is reached only when the clock gets to start + timeout,
/// stamped exactly then; a task modelled longer than the timeout ends at start + timeout
/// at once (like every modelled completion).
///
/// Covers: REQ-DLA-011
#[test]
fn hang_and_overrun_in_virtual_time() {
    let _s = serial();
    let sci = Sci::new();
    const T0: u64 = 50_000_000_000;
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        sok(NvSciSilClockSetVirtual(true, T0));
        let dla = Dla::new(&sci, 0);
        let (sig, sp) = dla.signal_sp(&sci);
        timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 2_000_000, 0, 0);
        // Default timeout (30 s).
        fault(dla.dev, CUDLA_SIL_FAULT_HANG, 0, 0, 1, 0);
        let mut eof = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut eof, 0));
        sok(NvSciSilClockAdvanceTo(T0 + 29_999_999_999));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            sci.wait(&eof, 0),
            NvSciError_Timeout,
            "ended before the timeout"
        );
        sok(NvSciSilClockAdvanceTo(T0 + 30_000_000_000));
        sok(sci.wait(&eof, 2_000_000));
        assert_eq!(signal_ts(sig, fence_value(&eof)), T0 + 30_000_000_000);
        assert_eq!(cudlaGetLastError(dla.dev), cudlaErrorDlaErrEngineTimeout);
        // The next task starts after the hung one's end.
        let mut next = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut next, 0));
        sok(sci.wait(&next, 2_000_000));
        assert_eq!(signal_ts(sig, fence_value(&next)), T0 + 30_002_000_000);
        assert_eq!(cudlaGetLastError(dla.dev), cudlaSuccess);

        // A late task modelled past a 5 ms timeout: ends at start + 5 ms, without waiting.
        ok(cudlaSetTaskTimeoutInMs(dla.dev, 5));
        fault(dla.dev, CUDLA_SIL_FAULT_LATE, 0, 0, 1, 10_000_000);
        let now = NvSciSilClockNowNs();
        let mut late = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut late, 0));
        sok(sci.wait(&late, 2_000_000));
        let start = now.max(T0 + 30_002_000_000);
        assert_eq!(signal_ts(sig, fence_value(&late)), start + 5_000_000);
        assert_eq!(cudlaGetLastError(dla.dev), cudlaErrorDlaErrEngineTimeout);
        for f in [&mut eof, &mut next, &mut late] {
            NvSciSyncFenceClear(f);
        }
        dla.destroy();
        sok(NvSciSilClockSetVirtual(false, 0));
    }
}

/// Destroying a handle whose task hangs returns at once (the timeout is not waited for).
#[test]
fn destroy_interrupts_a_hang() {
    let (_s, sci, dla) = setup();
    let (_sig, sp) = dla.signal_sem(&sci);
    fault(dla.dev, CUDLA_SIL_FAULT_HANG, 0, 0, 1, 0);
    let mut eof = NvSciSyncFenceInitializer;
    ok(dla.submit_fences(None, &sp, &mut eof, 0));
    std::thread::sleep(Duration::from_millis(20));
    let t0 = Instant::now();
    dla.destroy();
    assert!(t0.elapsed() < DESTROY_BOUND);
    assert_eq!(sci.wait(&eof, 1_000), NvSciError_Timeout);
    // SAFETY: C ABI call on a fence this test owns.
    unsafe { NvSciSyncFenceClear(&mut eof) };
}
