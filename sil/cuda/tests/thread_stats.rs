//! The stream workers' CPU time, kernel-model time, wake-ups and operations
//! (`cuSilGetThreadStats`), and a worker pending on a SIL semaphore: asleep until
//! `cuStreamDestroy` wakes it, not re-checking in slices. The totals are process-wide, so
//! the tests of this file run one at a time. Bounds are counts and CPU time with wide
//! margins (a 1 ms slice would wake ~100 times in the 100 ms, the old 50 µs re-check
//! ~2000 times).

mod common;

use std::sync::Mutex;
use std::time::Duration;

use common::nvsci::*;
use common::*;
use cuda_sys::sil::{cuSilGetThreadStats, cuSilThreadStats};
use nvsci_sys::NvSciSyncObjFree;
use nvsci_sys::sil::NvSciSyncSilObjGetCounter;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn stats() -> cuSilThreadStats {
    let mut s = cuSilThreadStats {
        size: size_of::<cuSilThreadStats>() as u32,
        ..Default::default()
    };
    // SAFETY: a live, sized struct.
    ck(unsafe { cuSilGetThreadStats(&mut s) });
    assert_eq!(s.size, 40);
    s
}

/// After N kernels: at least N operations, some kernel-model time within the CPU time,
/// wake-ups bounded by a few per kernel; an exited worker keeps counting.
///
/// Covers: REQ-SIL-008
#[test]
fn kernels_are_counted() {
    let _g = serial();
    setup();
    let before = stats();
    let s = stream();
    let sel = load("selftest", 87);
    let (_, fill) = function(sel, "fill_pattern_u32");
    const N: u64 = 50;
    let buf = Pinned::<u32>::new(4096);
    for k in 0..N {
        let (mut d, mut n, mut seed) = (buf.dptr(), 4096u32, k as u32);
        ck(launch(fill, s, &mut [p(&mut d), p(&mut n), p(&mut seed)]));
    }
    ck(sync(s));
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
    assert!(wakes <= 4 * N + 50, "{wakes} wake-ups for {N} kernels");
    ck(destroy(s));
    let gone = stats();
    assert!(gone.threads == after.threads && gone.ops >= after.ops && gone.cpuNs >= after.cpuNs);
    buf.free();
}

/// A worker pending ~100 ms on a SIL semaphore counter sleeps (few wake-ups, little CPU),
/// and `cuStreamDestroy` ends the wait (the abandoned wait's later work is discarded).
///
/// Covers: REQ-SIL-007
#[test]
fn a_pending_semaphore_wait_sleeps_until_destroy() {
    let _g = serial();
    setup();
    let m = module();
    let o = cpu_to_cuda(m);
    let mut cp = core::ptr::null_mut();
    // SAFETY: valid pointers; the counter page lives as long as the object.
    let cd = unsafe {
        nv(NvSciSyncSilObjGetCounter(o, &mut cp));
        ck(cuda_sys::cuMemHostRegister_v2(
            cp.cast(),
            4096,
            cuda_sys::CU_MEMHOSTREGISTER_DEVICEMAP,
        ));
        let mut dp = 0;
        ck(cuda_sys::cuMemHostGetDevicePointer_v2(
            &mut dp,
            cp.cast(),
            0,
        ));
        dp
    };
    let out = Pinned::<u32>::new(1);
    let before = stats();
    let s = stream();
    ck(wait64(s, cd, 1, 0)); // never signalled
    ck(write32(s, out.dptr(), 7));
    std::thread::sleep(Duration::from_millis(100));
    ck(destroy(s));
    let after = stats();
    assert_eq!(
        load_u32(out.ptr),
        0,
        "work after the abandoned wait is discarded"
    );
    let wakes = after.wakeups - before.wakeups;
    let cpu = after.cpuNs - before.cpuNs;
    assert!(wakes <= 20, "{wakes} wake-ups of a worker pending ~100 ms");
    assert!(
        cpu < 5_000_000,
        "{cpu} ns of CPU of a worker pending ~100 ms"
    );
    // SAFETY: registered above; the object is ours.
    unsafe {
        ck(cuda_sys::cuMemHostUnregister(cp.cast()));
        NvSciSyncObjFree(o);
    }
    out.free();
}

/// NULL or a struct smaller than the library's: `CUDA_ERROR_INVALID_VALUE`, nothing
/// written.
///
/// Covers: REQ-SIL-008
#[test]
fn bad_stats_arguments() {
    let mut small = cuSilThreadStats {
        size: 39,
        ops: 12345,
        ..Default::default()
    };
    // SAFETY: NULL is refused; `small` is a live struct.
    unsafe {
        assert_eq!(
            cuSilGetThreadStats(core::ptr::null_mut()),
            cuda_sys::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuSilGetThreadStats(&mut small),
            cuda_sys::CUDA_ERROR_INVALID_VALUE
        );
    }
    assert_eq!((small.size, small.ops), (39, 12345));
}
