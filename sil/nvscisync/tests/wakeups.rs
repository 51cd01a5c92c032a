//! Waits are woken by the change, not by a nap: a blocked CPU waiter costs almost no CPU and
//! wakes about once per signal; device-written objects are watched with a yielding spin;
//! engine waits end at once when their abort flag is set and the waiters are woken. Bounds
//! are counts and CPU time with wide margins (the old 50 µs re-check woke ~2000 times in
//! 100 ms), and no test judges wall-clock time.

mod common;

use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use common::*;
use sil_common::usage::{thread_cpu_ns, thread_wakeups};

/// Moves a handle or pointer into another thread.
#[derive(Clone, Copy)]
struct Send<T>(T);
// SAFETY: the library's handles and SIL counters may be used from any thread.
unsafe impl<T> std::marker::Send for Send<T> {}

/// Ten seconds: a wait that returns `Success` before it was signalled by timing out.
const LONG_US: i64 = 10_000_000;

/// A CPU waiter blocked ~100 ms on a semaphore fence until a CPU signal.
///
/// Covers: REQ-SYNC-008
#[test]
fn a_blocked_cpu_waiter_sleeps_until_the_signal() {
    let m = module();
    let o = object(m, true, true, false);
    let f = Send(generate(o));
    let ctx = Send(context(m));
    let waiter = thread::spawn(move || {
        let (f, ctx) = (f, ctx);
        let (c0, w0) = (thread_cpu_ns(), thread_wakeups());
        let rc = wait(&f.0, ctx.0, LONG_US);
        (rc, thread_cpu_ns() - c0, thread_wakeups() - w0)
    });
    thread::sleep(Duration::from_millis(100));
    signal(o);
    let (rc, cpu, wakes) = waiter.join().unwrap();
    // Success, not Timeout: the signal ended the wait, not its 10 s timeout.
    ok(rc);
    assert!(cpu < 5_000_000, "{cpu} ns of CPU in a ~100 ms wait");
    assert!(wakes <= 20, "{wakes} wake-ups for one signal");
}

/// An engine wait on a semaphore fence, woken by ten engine signals over ~100 ms: it
/// wakes about once per signal.
///
/// Covers: REQ-SYNC-008
#[test]
fn an_engine_waiter_wakes_once_per_signal() {
    let m = module();
    let o = object(m, false, false, false);
    let mut f10 = update(o, 10);
    let f = Send(f10);
    let waiter = thread::spawn(move || {
        let f = f;
        let (c0, w0) = (thread_cpu_ns(), thread_wakeups());
        let mut ts = 0;
        // SAFETY: a live fence and a local.
        let rc = unsafe { NvSciSyncSilFenceWaitEngine(&f.0, LONG_US, &mut ts) };
        (rc, ts, thread_cpu_ns() - c0, thread_wakeups() - w0)
    });
    for k in 1..=10u64 {
        thread::sleep(Duration::from_millis(10));
        // SAFETY: a live handle.
        ok(unsafe { NvSciSyncSilObjSignalEngine(o, k * 1_000) });
    }
    let (rc, ts, cpu, wakes) = waiter.join().unwrap();
    ok(rc);
    assert_eq!(ts, 10_000, "the timestamp of the signal that reached 10");
    assert!(cpu < 5_000_000, "{cpu} ns of CPU");
    assert!(wakes <= 40, "{wakes} wake-ups for 10 signals");
    clear(&mut f10);
}

/// A raw store into a device-written counter (as a GPU would, no notify call) is seen by
/// CPU waits in the default mode and in BusyNoYield, also by a waiter that was already
/// asleep when the object was marked.
///
/// Covers: REQ-SYNC-009
#[test]
fn a_device_written_counter_is_seen_without_a_notify() {
    let m = module();
    let o = object(m, false, true, false);
    let c = counter(o);
    let f1 = update(o, 1);
    let (hf, hc, hctx) = (Send(f1), Send(c), Send(context(m)));
    let waiter = thread::spawn(move || {
        let (hf, hctx) = (hf, hctx);
        wait(&hf.0, hctx.0, LONG_US)
    });
    thread::sleep(Duration::from_millis(20));
    // SAFETY: a live handle.
    ok(unsafe { NvSciSyncSilObjSetDeviceWritten(o) });
    thread::sleep(Duration::from_millis(20));
    store(hc.0, 1);
    ok(waiter.join().unwrap());

    // Marked before the wait; Default and BusyNoYield both see the raw store.
    for mode in [NvSciSyncWaitMode_Default, NvSciSyncWaitMode_BusyNoYield] {
        let next = load(c) + 1;
        let f = Send(update(o, next));
        let ctx = Send(context(m));
        let waiter = thread::spawn(move || {
            let (f, ctx) = (f, ctx);
            // SAFETY: a live fence and context.
            unsafe { NvSciSyncFenceWaitWithMode(&f.0, ctx.0, LONG_US, mode) }
        });
        thread::sleep(Duration::from_millis(20));
        store(c, next);
        ok(waiter.join().unwrap());
    }
}

/// Marking needs a live semaphore.
///
/// Covers: REQ-SYNC-009
#[test]
fn only_semaphores_can_be_device_written() {
    let m = module();
    let s = list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_SignalOnly),
            cpu: Some(true),
            ..Opts::default()
        },
    );
    let w = waiter(m, true, false);
    let sync_point = alloc(&[s, w]);
    // SAFETY: handles from this library (a freed or forged one is refused).
    unsafe {
        assert_eq!(
            NvSciSyncSilObjSetDeviceWritten(sync_point),
            NvSciError_NotSupported
        );
        assert_eq!(
            NvSciSyncSilObjSetDeviceWritten(bogus()),
            NvSciError_BadParameter
        );
    }
}

/// An engine wait with an abort flag ends with `InterruptedCall` once the flag is set and
/// the waiters are woken (on a SIL fence, on a SIL counter and on plain memory); a reached
/// value wins over a set flag; a misaligned flag is refused.
///
/// Covers: REQ-SIL-007
#[test]
fn abortable_waits_end_when_woken_with_the_flag_set() {
    let m = module();
    let o = object(m, false, false, false);
    let c = counter(o);
    let mut f = update(o, 1);
    static ABORT: AtomicU32 = AtomicU32::new(0);
    static PLAIN: AtomicU64 = AtomicU64::new(0);
    let (hf, hc) = (Send(f), Send(c));
    let waiters = [
        thread::spawn(move || {
            let hf = hf;
            // SAFETY: a live fence and a static flag; NULL timestamp.
            unsafe { NvSciSyncSilFenceWaitEngineAbortable(&hf.0, -1, ABORT.as_ptr(), null_mut()) }
        }),
        thread::spawn(move || {
            let hc = hc;
            // SAFETY: a live SIL counter and a static flag; NULL timestamp.
            unsafe { NvSciSyncSilCounterWaitAbortable(hc.0, 1, 0, -1, ABORT.as_ptr(), null_mut()) }
        }),
        thread::spawn(|| {
            // SAFETY: static memory and flag; NULL timestamp.
            unsafe {
                NvSciSyncSilCounterWaitAbortable(
                    PLAIN.as_ptr(),
                    1,
                    0,
                    -1,
                    ABORT.as_ptr(),
                    null_mut(),
                )
            }
        }),
    ];
    thread::sleep(Duration::from_millis(20));
    ABORT.store(1, Ordering::Release);
    // SAFETY: plain call.
    ok(unsafe { NvSciSyncSilWakeWaiters() });
    for w in waiters {
        assert_eq!(w.join().unwrap(), NvSciError_InterruptedCall);
    }
    // SAFETY: live handle, fence and flag; misaligned pointer only checked, never read.
    unsafe {
        ok(NvSciSyncSilObjSignalEngine(o, 5));
        let mut ts = 0;
        ok(NvSciSyncSilFenceWaitEngineAbortable(
            &f,
            0,
            ABORT.as_ptr(),
            &mut ts,
        ));
        assert_eq!(ts, 5);
        ok(NvSciSyncSilCounterWaitAbortable(
            c,
            1,
            0,
            0,
            ABORT.as_ptr(),
            null_mut(),
        ));
        ok(NvSciSyncSilFenceWaitEngineAbortable(
            &f,
            0,
            null(),
            null_mut(),
        ));
        let odd = ABORT.as_ptr().cast::<u8>().wrapping_add(1).cast::<u32>();
        assert_eq!(
            NvSciSyncSilFenceWaitEngineAbortable(&f, 0, odd, null_mut()),
            NvSciError_BadParameter
        );
    }
    clear(&mut f);
}
