//! SIL-only extension calls (feature `sil-ext`), as specified in
//! `docs/architecture.md` ("SIL extension calls"). Only the SIL libraries
//! (`sil-nvscisync`, `sil-nvscibuf`) define these symbols; the vendor libraries do not,
//! so the link stubs and `check-against-sdk.sh` ignore this module.

use core::ffi::c_void;

use crate::buf::NvSciBufObj;
use crate::error::NvSciError;
use crate::sync::{NvSciSyncFence, NvSciSyncObj};

unsafe extern "C" {
    /// The SIL clock shared by the SIL libraries of one process, in ns
    /// (`CLOCK_MONOTONIC` unless virtual time is on).
    pub fn NvSciSilClockNowNs() -> u64;
    /// Turns virtual time on (starting at `startNs`) or off.
    pub fn NvSciSilClockSetVirtual(enable: bool, startNs: u64) -> NvSciError;
    /// Virtual time only: moves the clock forward to `ns` (never backwards).
    pub fn NvSciSilClockAdvanceTo(ns: u64) -> NvSciError;

    /// The 64-bit counter of a semaphore object (alone in its own 4 KiB page for the life
    /// of the object). A sync point has no such counter: `NvSciError_NotSupported`.
    pub fn NvSciSyncSilObjGetCounter(obj: NvSciSyncObj, counter: *mut *mut u64) -> NvSciError;
    /// Marks a semaphore whose counter a real device writes without telling the SIL (the
    /// `rig` GPU): its Default/BusyWithYield CPU waits and engine waits then spin with
    /// `sched_yield` between reads instead of sleeping until notified. Sync point:
    /// `NvSciError_NotSupported`; unknown object: `NvSciError_BadParameter`.
    pub fn NvSciSyncSilObjSetDeviceWritten(obj: NvSciSyncObj) -> NvSciError;
    /// Wakes every SIL wait in progress so it re-checks its condition and abort flag (call
    /// it after setting the abort flag of an `...Abortable` wait). Always success.
    pub fn NvSciSyncSilWakeWaiters() -> NvSciError;
    /// An engine signals: +1 (a sync point wraps at 32 bits), records `timestampNs` for the
    /// new value, wakes waiters. No permission check.
    pub fn NvSciSyncSilObjSignalEngine(obj: NvSciSyncObj, timestampNs: u64) -> NvSciError;
    /// The engine that will signal `obj` reserves its next signal: the object's threshold
    /// advances by one (sync point: its next value; semaphore: one past the highest value
    /// promised so far or the current counter) and `*fence` is cleared and written with the
    /// object's primitive id and that value. No CPU-signaler permission needed; the
    /// matching `NvSciSyncSilObjSignalEngine` reaches the value.
    pub fn NvSciSyncSilObjEngineFence(obj: NvSciSyncObj, fence: *mut NvSciSyncFence) -> NvSciError;
    /// After a direct write of a counter: records the timestamp for its current value and
    /// wakes waiters. Unknown address: `NvSciError_BadParameter`.
    pub fn NvSciSyncSilCounterWritten(counter: *const u64, timestampNs: u64) -> NvSciError;
    /// Engine-side fence wait without CPU-permission check; on success `*reachedAtNs` is
    /// the timestamp of the signal that reached the fence value.
    pub fn NvSciSyncSilFenceWaitEngine(
        fence: *const NvSciSyncFence,
        timeoutUs: i64,
        reachedAtNs: *mut u64,
    ) -> NvSciError;
    /// [`NvSciSyncSilFenceWaitEngine`] that also ends with `NvSciError_InterruptedCall`
    /// once `*abort` (read atomically; NULL: none) is non-zero and the value is not reached;
    /// [`NvSciSyncSilWakeWaiters`] wakes it to look.
    pub fn NvSciSyncSilFenceWaitEngineAbortable(
        fence: *const NvSciSyncFence,
        timeoutUs: i64,
        abort: *const u32,
        reachedAtNs: *mut u64,
    ) -> NvSciError;
    /// Waits until `*counter >= value` (`mode` 0, cyclic 64-bit compare) or
    /// `*counter == value` (`mode` 1), on any address (a SIL counter sleeps until a change
    /// wakes it; other addresses are polled every 50 µs).
    pub fn NvSciSyncSilCounterWait(
        counter: *const u64,
        value: u64,
        mode: u32,
        timeoutUs: i64,
        reachedAtNs: *mut u64,
    ) -> NvSciError;
    /// [`NvSciSyncSilCounterWait`] with an abort flag, as
    /// [`NvSciSyncSilFenceWaitEngineAbortable`].
    pub fn NvSciSyncSilCounterWaitAbortable(
        counter: *const u64,
        value: u64,
        mode: u32,
        timeoutUs: i64,
        abort: *const u32,
        reachedAtNs: *mut u64,
    ) -> NvSciError;
    /// Nanosecond timestamp of the signal that produced `value` (last 512 values kept).
    pub fn NvSciSyncSilObjGetSignalTimestamp(
        obj: NvSciSyncObj,
        value: u64,
        tsNs: *mut u64,
    ) -> NvSciError;

    /// Backing memory of a SIL buffer regardless of CPU-access attributes (page-aligned,
    /// padded to whole pages).
    pub fn NvSciBufSilObjGetMemory(
        obj: NvSciBufObj,
        ptr: *mut *mut c_void,
        size: *mut u64,
    ) -> NvSciError;
}
