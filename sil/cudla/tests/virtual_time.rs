//! Virtual time: start = max(clock at submit, pre-fence timestamps, previous end),
//! end = start + sampled time, no sleeping; the same seed gives the same timestamps.
//!
//! Covers: REQ-DLA-011
#![allow(missing_docs)]

mod common;

use std::time::{Duration, Instant};

use common::*;
use sil_common::timing::{TimingModel, TimingSampler};

const T0: u64 = 1_000_000_000;

/// Runs 4 tasks (the first waits for a CPU pre-fence signalled at `T0 + 5 ms`) and returns
/// the start (SOF, task 0 only) and end timestamps.
fn run(sci: &Sci, seed: u64) -> (u64, Vec<u64>) {
    let dla = Dla::new(sci, 0);
    let wait_obj = dla.wait_sem(sci);
    let (sig, sp) = dla.signal_sem(sci);
    let (sof_obj, ps) = dla.signal_sem(sci);
    timing(
        dla.dev,
        CUDLA_SIL_TIMING_UNIFORM,
        1_000_000_000,
        3_000_000_000,
        seed,
    );
    let mut ends = Vec::new();
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe {
        sok(NvSciSilClockAdvanceTo(T0));
        // Queued events: wait for the pre-fence, SOF of the first task.
        let mut pre = NvSciSyncFenceInitializer;
        sok(NvSciSyncObjGenerateFence(wait_obj, &mut pre));
        let pf = [cfence(&mut pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        let mut sof = NvSciSyncFenceInitializer;
        let mut fs = [cfence(&mut sof, CUDLA_NVSCISYNC_FENCE_SOF)];
        let mut ss = signals(&ps, &mut fs);
        let mut ev = dla.task(Some(&w), Some(&mut ss));
        ev.inputTensor = std::ptr::null();
        ev.outputTensor = std::ptr::null();
        ok(dla.submit(&ev, 0));
        let mut fences = Vec::new();
        for _ in 0..4 {
            let mut eof = NvSciSyncFenceInitializer;
            ok(dla.submit_fences(None, &sp, &mut eof, 0));
            fences.push(eof);
        }
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(counter(sig), 0, "ran before its pre-fence");
        sok(NvSciSilClockAdvanceTo(T0 + 5_000_000));
        sok(NvSciSyncObjSignal(wait_obj)); // stamped T0 + 5 ms
        let wall = Instant::now();
        for f in &mut fences {
            sok(sci.wait(f, 5_000_000));
            ends.push(signal_ts(sig, fence_value(f)));
            NvSciSyncFenceClear(f);
        }
        assert!(
            wall.elapsed() < Duration::from_secs(3),
            "virtual time must not sleep (sleeping would take at least 4 s)"
        );
        assert_eq!(dla.outputs(), GOLDEN_OUT);
        sok(sci.wait(&sof, 0));
        let start = signal_ts(sof_obj, fence_value(&sof));
        NvSciSyncFenceClear(&mut sof);
        NvSciSyncFenceClear(&mut pre);
        dla.destroy();
        (start, ends)
    }
}

#[test]
fn virtual_time_is_analytic_and_reproducible() {
    let sci = Sci::new();
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciSilClockSetVirtual(true, T0)) };
    let (start, ends) = run(&sci, 42);
    // Expected: the first task starts when its pre-fence was signalled, then back to back.
    let mut s = TimingSampler::new(
        TimingModel::Uniform {
            min: 1_000_000_000,
            max: 3_000_000_000,
        },
        42,
    );
    assert_eq!(start, T0 + 5_000_000);
    let mut t = start;
    let mut want = Vec::new();
    for _ in 0..4 {
        t += s.sample();
        want.push(t);
    }
    assert_eq!(ends, want);
    // The same seed on a fresh handle gives the same durations.
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciSilClockSetVirtual(true, T0)) };
    let (start2, ends2) = run(&sci, 42);
    assert_eq!((start2, &ends2), (start, &ends));
    // Another seed gives other durations.
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciSilClockSetVirtual(true, T0)) };
    let (_, ends3) = run(&sci, 7);
    assert_ne!(ends3, ends);
    // SAFETY: C ABI calls with live handles from this test and pointers to live locals.
    unsafe { sok(NvSciSilClockSetVirtual(false, 0)) };
}
