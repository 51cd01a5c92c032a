//! The DLA workers' CPU time, network time, wake-ups and tasks (`cudlaSilGetThreadStats`),
//! and a worker pending on a pre-fence: asleep until `cudlaDestroyDevice` wakes it, not
//! re-checking in slices. The totals are process-wide and the tests of a binary share the
//! DLA handles, so they run one at a time. Bounds are counts and CPU time with wide
//! margins (the old 5 ms slices woke ~40 times in 200 ms, the 50 µs re-check ~4000 times).

mod common;

use std::ptr::null_mut;
use std::time::Duration;

use common::*;

fn stats() -> cudlaSilThreadStats {
    let mut s = cudlaSilThreadStats {
        size: size_of::<cudlaSilThreadStats>() as u32,
        ..Default::default()
    };
    // SAFETY: a live, sized struct.
    ok(unsafe { cudlaSilGetThreadStats(&mut s) });
    assert_eq!(s.size, 40);
    s
}

/// After N tasks: at least N operations, some network time within the CPU time, wake-ups
/// bounded by a few per task; a destroyed device's worker keeps counting.
///
/// Covers: REQ-SIL-008
#[test]
fn tasks_are_counted() {
    let _s = serial();
    let sci = Sci::new();
    let before = stats();
    let dla = Dla::new(&sci, 0);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 100_000, 0, 0);
    let (sig, sp) = dla.signal_sem(&sci);
    const N: u64 = 10;
    let mut eofs: Vec<NvSciSyncFence> = Vec::new();
    for _ in 0..N {
        let mut eof = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut eof, 0));
        eofs.push(eof);
    }
    sok(sci.wait(eofs.last().unwrap(), 10_000_000));
    let after = stats();
    assert!(after.threads > before.threads, "the new worker is counted");
    assert!(
        after.ops - before.ops >= N,
        "{} ops",
        after.ops - before.ops
    );
    let compute = after.computeNs - before.computeNs;
    let cpu = after.cpuNs - before.cpuNs;
    assert!(
        compute > 0 && compute <= cpu,
        "compute {compute} ns of {cpu} ns"
    );
    let wakes = after.wakeups - before.wakeups;
    assert!(wakes <= 4 * N + 50, "{wakes} wake-ups for {N} tasks");
    dla.destroy();
    let gone = stats();
    assert!(gone.threads == after.threads && gone.ops >= after.ops && gone.cpuNs >= after.cpuNs);
    // SAFETY: fences and object of this test.
    unsafe {
        for f in &mut eofs {
            NvSciSyncFenceClear(f);
        }
        NvSciSyncObjFree(sig);
    }
}

/// A worker pending ~200 ms on a pre-fence that is never signalled sleeps (few wake-ups,
/// little CPU), and `cudlaDestroyDevice` ends the wait.
///
/// Covers: REQ-SIL-007
#[test]
fn a_pending_pre_fence_sleeps_until_destroy() {
    let _s = serial();
    let sci = Sci::new();
    let before = stats();
    let dla = Dla::new(&sci, 0);
    let (sig, sp) = dla.signal_sem(&sci);
    let wait_obj = dla.wait_sem(&sci);
    let (mut pre, mut eof) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
    ok(dla.submit_after(wait_obj, &mut pre, &sp, &mut eof, 0));
    std::thread::sleep(Duration::from_millis(200));
    dla.destroy();
    let after = stats();
    assert_eq!(sci.wait(&eof, 0), NvSciError_Timeout, "the task never ran");
    let wakes = after.wakeups - before.wakeups;
    let cpu = after.cpuNs - before.cpuNs;
    assert!(wakes <= 20, "{wakes} wake-ups of a worker pending ~200 ms");
    assert!(
        cpu < 5_000_000,
        "{cpu} ns of CPU of a worker pending ~200 ms"
    );
    // SAFETY: fences and objects of this test.
    unsafe {
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
        NvSciSyncObjFree(wait_obj);
        NvSciSyncObjFree(sig);
    }
}

/// NULL or a struct smaller than the library's: `cudlaErrorInvalidParam`, nothing written.
///
/// Covers: REQ-SIL-008
#[test]
fn bad_stats_arguments() {
    let mut small = cudlaSilThreadStats {
        size: 39,
        ops: 12345,
        ..Default::default()
    };
    // SAFETY: NULL is refused; `small` is a live struct.
    unsafe {
        assert_eq!(cudlaSilGetThreadStats(null_mut()), cudlaErrorInvalidParam);
        assert_eq!(cudlaSilGetThreadStats(&mut small), cudlaErrorInvalidParam);
    }
    assert_eq!((small.size, small.ops), (39, 12345));
}
