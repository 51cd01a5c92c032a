//! The SIL-only extension calls (`nvsci-sys::sil`, docs/architecture.md "SIL extension
//! calls").

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use nvsci_sys::{
    NvSciError, NvSciError_BadParameter, NvSciError_InterruptedCall, NvSciError_InvalidState,
    NvSciError_NotSupported, NvSciError_Overflow, NvSciError_Success, NvSciError_Timeout,
    NvSciSyncFence, NvSciSyncObj,
};
use sil_common::clock;

use crate::api::set_fence;
use crate::attr::Prim;
use crate::fence::{self, Decoded};
use crate::ffi::{self, STATUS};
use crate::obj::{Abort, Cmp, ObjCore, Strategy, Waited, aborted, wake_all};
use crate::registry::{handle_of, state};

const BAD: NvSciError = NvSciError_BadParameter;

/// Poll period of a wait on an address that is not a SIL counter: nothing announces a
/// write to plain memory, so such a wait re-reads it (the one polled wait of the SIL;
/// sil/README.md, deviations).
const PLAIN_POLL: Duration = Duration::from_micros(50);

/// The abort flag behind a C pointer: NULL is none, a misaligned pointer `BadParameter`.
///
/// # Safety
/// `abort` is NULL or points to a `uint32_t` that stays valid for the wait and is only
/// accessed atomically meanwhile.
unsafe fn abort_flag<'a>(abort: *const u32) -> Result<Abort<'a>, NvSciError> {
    if abort.is_null() {
        return Ok(None);
    }
    if !abort.is_aligned() {
        return Err(BAD);
    }
    // SAFETY: non-NULL and aligned; the caller keeps it valid and atomic for the wait.
    Ok(Some(unsafe { AtomicU32::from_ptr(abort.cast_mut()) }))
}

/// The status of an ended engine wait, writing the timestamp on success.
///
/// # Safety
/// `reachedAtNs` is NULL or writable.
unsafe fn wait_status(r: Result<u64, Waited>, reachedAtNs: *mut u64) -> NvSciError {
    match r {
        Ok(ts) => {
            // SAFETY: the caller passes NULL or a writable pointer.
            unsafe { ffi::write(reachedAtNs, ts) };
            NvSciError_Success
        }
        Err(Waited::Aborted) => NvSciError_InterruptedCall,
        Err(_) => NvSciError_Timeout,
    }
}

/// The SIL clock in ns (`CLOCK_MONOTONIC` unless virtual time is on).
#[unsafe(no_mangle)]
pub extern "C" fn NvSciSilClockNowNs() -> u64 {
    clock::now_ns()
}

/// Turns virtual time on (starting at `startNs`) or off. Always `Success`.
#[unsafe(no_mangle)]
pub extern "C" fn NvSciSilClockSetVirtual(enable: bool, startNs: u64) -> NvSciError {
    clock::set_virtual(enable, startNs);
    NvSciError_Success
}

/// Virtual time only: moves the clock forward to `ns` (never backwards; an earlier `ns` is
/// a no-op). `InvalidState` when virtual time is off.
#[unsafe(no_mangle)]
pub extern "C" fn NvSciSilClockAdvanceTo(ns: u64) -> NvSciError {
    if clock::advance_to(ns) {
        NvSciError_Success
    } else {
        NvSciError_InvalidState
    }
}

/// The address of a semaphore object's 64-bit counter (alone in its own page-aligned
/// 4 KiB allocation, stable for the object's life). A sync point is not memory that
/// others may write (its 32-bit value wraps and only its signaler's calls may advance it):
/// `NotSupported`, nothing written; engines use `NvSciSyncSilObjSignalEngine` and
/// `NvSciSyncSilFenceWaitEngine` on it.
///
/// # Safety
/// `counter` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncSilObjGetCounter(
    obj: NvSciSyncObj,
    counter: *mut *mut u64,
) -> NvSciError {
    let Some(core) = state().obj(handle_of(obj)).cloned() else {
        return BAD;
    };
    if !ffi::usable(counter) {
        return BAD;
    }
    if core.prim() != Prim::Semaphore64 {
        return NvSciError_NotSupported;
    }
    let p = core.counter_ptr();
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(counter, p) }
}

/// Marks a semaphore object whose counter a real device (the `rig` platform's GPU, through
/// the host-registered counter page) writes without telling the SIL. From then on its
/// Default and BusyWithYield CPU waits and the SIL engines' waits watch the counter by
/// spinning with `sched_yield` between reads (nvscisync.h, `NvSciSyncFenceWaitWithMode`:
/// BusyWithYield, the semaphores' default, polls with processor yielding), never with a
/// fixed nap; BusyNoYield keeps spinning. Waiters already asleep switch at once. Idempotent.
/// An unknown object: `BadParameter`; a sync point (no counter anybody may write):
/// `NotSupported`.
///
/// ```c
/// uint64_t *counter;
/// NvSciSyncSilObjGetCounter(obj, &counter);   /* host-register it, hand it to the GPU */
/// NvSciSyncSilObjSetDeviceWritten(obj);       /* CPU waits now see the GPU's writes */
/// ```
#[unsafe(no_mangle)]
pub extern "C" fn NvSciSyncSilObjSetDeviceWritten(obj: NvSciSyncObj) -> NvSciError {
    let Some(core) = state().obj(handle_of(obj)).cloned() else {
        return BAD;
    };
    if core.prim() != Prim::Semaphore64 {
        return NvSciError_NotSupported;
    }
    core.set_device_written();
    NvSciError_Success
}

/// Wakes every SIL wait in progress so it re-checks its condition and its abort flag: an
/// engine sets the abort flag of its `...Abortable` wait, then calls this (stream destroy,
/// device close). Always `Success`.
#[unsafe(no_mangle)]
pub extern "C" fn NvSciSyncSilWakeWaiters() -> NvSciError {
    wake_all();
    NvSciError_Success
}

/// An engine signals: +1 (a sync point wraps at 32 bits and its threshold follows a
/// signal that passes it), records `timestampNs` for the new value, wakes waiters. No
/// permission check.
#[unsafe(no_mangle)]
pub extern "C" fn NvSciSyncSilObjSignalEngine(obj: NvSciSyncObj, timestampNs: u64) -> NvSciError {
    let Some(core) = state().obj(handle_of(obj)).cloned() else {
        return BAD;
    };
    core.signal(timestampNs);
    NvSciError_Success
}

/// The engine that will signal `obj` (cuDLA, CUDA) reserves its next signal: the
/// object's threshold advances by one (one past the highest value promised so far or the
/// current counter, whichever is ahead) and `*fence` is cleared and then written with the
/// object's primitive id and that value. No CPU-signaler permission is needed. The
/// matching `NvSciSyncSilObjSignalEngine` reaches the value. `BadParameter` for an unknown
/// object or a NULL, misaligned or invalid `fence` (nothing written).
///
/// # Safety
/// `fence` is NULL or a readable and writable fence.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncSilObjEngineFence(
    obj: NvSciSyncObj,
    fence: *mut NvSciSyncFence,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { set_fence(obj, fence, |_| Ok(()), ObjCore::reserve) }
}

/// After a direct write of a SIL counter: records `timestampNs` for the value now in it
/// (and for values skipped since the last record) and wakes waiters. An address that is
/// not a live SIL counter: `BadParameter`.
#[unsafe(no_mangle)]
pub extern "C" fn NvSciSyncSilCounterWritten(counter: *const u64, timestampNs: u64) -> NvSciError {
    let core = {
        let st = state();
        let Some(id) = st.counters.get(&counter.addr()) else {
            return BAD;
        };
        st.core(*id).cloned()
    };
    match core {
        Some(c) => {
            c.written(timestampNs);
            NvSciError_Success
        }
        None => BAD,
    }
}

/// Engine-side fence wait, no CPU-permission check. On success `*reachedAtNs` (if not
/// NULL) is the timestamp recorded for the fence value (the SIL clock when none was
/// recorded; 0 for a cleared fence). Sleeps until a signal reaches the value (no polling).
///
/// # Safety
/// `fence` is NULL or readable; `reachedAtNs` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncSilFenceWaitEngine(
    fence: *const NvSciSyncFence,
    timeoutUs: i64,
    reachedAtNs: *mut u64,
) -> NvSciError {
    // SAFETY: forwarded caller guarantees; no abort flag.
    unsafe {
        NvSciSyncSilFenceWaitEngineAbortable(fence, timeoutUs, core::ptr::null(), reachedAtNs)
    }
}

/// [`NvSciSyncSilFenceWaitEngine`] that also ends, with `NvSciError_InterruptedCall`, once
/// `*abort` (a `uint32_t` read atomically; NULL: none) is non-zero and the fence is not
/// reached: the engine sets the flag, then calls [`NvSciSyncSilWakeWaiters`] to wake the
/// wait at once. A misaligned `abort`: `BadParameter`.
///
/// # Safety
/// `fence` is NULL or readable; `abort` is NULL or valid for the whole wait (accessed
/// atomically); `reachedAtNs` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncSilFenceWaitEngineAbortable(
    fence: *const NvSciSyncFence,
    timeoutUs: i64,
    abort: *const u32,
    reachedAtNs: *mut u64,
) -> NvSciError {
    let timeout = match ffi::timeout_ns(timeoutUs) {
        Ok(t) => t,
        Err(e) => return e,
    };
    // SAFETY: forwarded caller guarantee.
    let abort = match unsafe { abort_flag(abort) } {
        Ok(a) => a,
        Err(e) => return e,
    };
    // SAFETY: the caller passes NULL or a readable fence (NULL is refused).
    let Some(f) = (unsafe { ffi::read(fence) }) else {
        return BAD;
    };
    let f = match fence::decode(&f) {
        Decoded::Cleared => {
            // SAFETY: the caller passes NULL or a writable pointer.
            unsafe { ffi::write(reachedAtNs, 0) };
            return NvSciError_Success;
        }
        Decoded::Invalid => return BAD,
        Decoded::Valid(f) => f,
    };
    let Some(core) = state().core(f.obj_id).cloned() else {
        return BAD;
    };
    if f.prim_id != core.prim_id || f.value > core.mask() {
        return NvSciError_Overflow;
    }
    let r = core.wait_cmp(f.value, core.cmp(), timeout, Strategy::Sleep, abort);
    // SAFETY: the caller passes NULL or a writable pointer.
    unsafe { wait_status(r, reachedAtNs) }
}

/// Waits until `*counter >= value` (mode 0, cyclic: `(int64_t)(*counter - value) >= 0`)
/// or `*counter == value` (mode 1). A SIL counter sleeps until a change of it wakes the
/// wait (no polling) and reports the recorded timestamp of `value`; any other address is
/// polled every 50 µs (nothing announces writes to plain memory) and reports the SIL clock
/// when the value was seen. `reachedAtNs` may be NULL.
///
/// # Safety
/// `counter` is NULL or an 8-byte aligned address readable for the whole wait (accessed
/// atomically); `reachedAtNs` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncSilCounterWait(
    counter: *const u64,
    value: u64,
    mode: u32,
    timeoutUs: i64,
    reachedAtNs: *mut u64,
) -> NvSciError {
    // SAFETY: forwarded caller guarantees; no abort flag.
    unsafe {
        NvSciSyncSilCounterWaitAbortable(
            counter,
            value,
            mode,
            timeoutUs,
            core::ptr::null(),
            reachedAtNs,
        )
    }
}

/// [`NvSciSyncSilCounterWait`] that also ends, with `NvSciError_InterruptedCall`, once
/// `*abort` (a `uint32_t` read atomically; NULL: none) is non-zero and the value is not
/// reached ([`NvSciSyncSilWakeWaiters`] wakes a sleeping wait to see it; a polled one sees
/// it within its poll period). A misaligned `abort`: `BadParameter`.
///
/// # Safety
/// `counter` is NULL or an 8-byte aligned address readable for the whole wait (accessed
/// atomically); `abort` is NULL or valid for the whole wait (accessed atomically);
/// `reachedAtNs` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncSilCounterWaitAbortable(
    counter: *const u64,
    value: u64,
    mode: u32,
    timeoutUs: i64,
    abort: *const u32,
    reachedAtNs: *mut u64,
) -> NvSciError {
    if !ffi::usable(counter) {
        return BAD;
    }
    // SAFETY: forwarded caller guarantee.
    let abort = match unsafe { abort_flag(abort) } {
        Ok(a) => a,
        Err(e) => return e,
    };
    let cmp = match mode {
        0 => Cmp::Geq,
        1 => Cmp::Eq,
        _ => return BAD,
    };
    let timeout = match ffi::timeout_ns(timeoutUs) {
        Ok(t) => t,
        Err(e) => return e,
    };
    let sil = {
        let st = state();
        st.counters
            .get(&counter.addr())
            .and_then(|id| st.core(*id).cloned())
    };
    let r = match sil {
        Some(core) => core.wait_cmp(value, cmp, timeout, Strategy::Sleep, abort),
        None => {
            // SAFETY: non-NULL and aligned; the caller guarantees the address stays
            // readable for the wait and is only accessed atomically meanwhile.
            let atomic = unsafe { AtomicU64::from_ptr(counter.cast_mut()) };
            poll_plain(atomic, value, cmp, timeout, abort)
        }
    };
    // SAFETY: the caller passes NULL or a writable pointer.
    unsafe { wait_status(r, reachedAtNs) }
}

/// A wait on plain memory: re-reads it every [`PLAIN_POLL`] (see there); `Ok(SIL clock)`
/// when the value was seen.
fn poll_plain(
    atomic: &AtomicU64,
    value: u64,
    cmp: Cmp,
    timeout_ns: u64,
    abort: Abort<'_>,
) -> Result<u64, Waited> {
    let deadline = clock::real_ns().saturating_add(timeout_ns);
    loop {
        if cmp.holds(atomic.load(Ordering::Acquire), value) {
            return Ok(clock::now_ns());
        }
        if aborted(abort) {
            return Err(Waited::Aborted);
        }
        let now = clock::real_ns();
        if now >= deadline {
            return Err(Waited::TimedOut);
        }
        std::thread::sleep(PLAIN_POLL.min(Duration::from_nanos(deadline - now)));
    }
}

/// Nanosecond timestamp of the signal that produced `value`. `BadParameter` for an
/// unknown object, a NULL `tsNs`, or a value not among the last 512 recorded (not reached
/// yet, or overwritten).
///
/// # Safety
/// `tsNs` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncSilObjGetSignalTimestamp(
    obj: NvSciSyncObj,
    value: u64,
    tsNs: *mut u64,
) -> NvSciError {
    if !ffi::usable(tsNs) {
        return BAD;
    }
    let Some(core) = state().obj(handle_of(obj)).cloned() else {
        return BAD;
    };
    if !core.reached(value) {
        return BAD;
    }
    let Some(ts) = core.timestamp_of(value) else {
        return BAD;
    };
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { ffi::write(tsNs, ts) };
    NvSciError_Success
}
