//! The NvSciSync / NvSciBuf calls this library makes, through the C declarations of
//! `nvsci-sys` (as the vendor runtime calls the vendor NvSci libraries; in the shared-library
//! build they resolve to `libnvscisync.so` / `libnvscibuf.so`).

use core::ffi::c_void;

use nvsci_sys::sil::{
    NvSciBufSilObjGetMemory, NvSciSilClockAdvanceTo, NvSciSilClockNowNs,
    NvSciSyncSilFenceWaitEngineAbortable, NvSciSyncSilObjEngineFence,
    NvSciSyncSilObjGetSignalTimestamp, NvSciSyncSilObjSignalEngine, NvSciSyncSilWakeWaiters,
};
use nvsci_sys::{
    NvSciBufAttrList, NvSciBufAttrListIsReconciled, NvSciBufObj, NvSciBufObjDup, NvSciBufObjFree,
    NvSciError, NvSciError_BadParameter, NvSciError_Success, NvSciSyncFence, NvSciSyncFenceClear,
    NvSciSyncFenceExtractFence, NvSciSyncFenceInitializer, NvSciSyncFenceUpdateFence, NvSciSyncObj,
    NvSciSyncObjDup, NvSciSyncObjFree,
};

use crate::code::{self, Code};

/// `NvSciError_BadParameter` (a bad handle or value from the caller) is
/// `CUPVA_INVALID_ARGUMENT`, everything else `CUPVA_DRIVER_API_ERROR`.
fn check(e: NvSciError) -> Result<(), Code> {
    if e == NvSciError_Success {
        Ok(())
    } else if e == NvSciError_BadParameter {
        Err(code::INVALID_ARGUMENT)
    } else {
        Err(code::DRIVER_API_ERROR)
    }
}

/// The SIL clock shared by every SIL library of the process.
pub(crate) fn now_ns() -> u64 {
    // SAFETY: no arguments.
    unsafe { NvSciSilClockNowNs() }
}

/// Whether the process-wide SIL clock is virtual (`NvSciSilClockAdvanceTo(0)` succeeds,
/// without moving the clock, exactly then).
pub(crate) fn clock_is_virtual() -> bool {
    // SAFETY: plain value; moving the clock to 0 never changes it.
    unsafe { NvSciSilClockAdvanceTo(0) == NvSciError_Success }
}

/// Wakes every NvSciSync SIL wait so it re-checks its abort flag.
pub(crate) fn wake_waiters() {
    // SAFETY: no arguments.
    let _ = unsafe { NvSciSyncSilWakeWaiters() };
}

/// Duplicates a sync object handle.
///
/// # Safety
/// `obj` must be NULL or a sync object handle (NvSciSync validates it).
pub(crate) unsafe fn sync_obj_dup(obj: NvSciSyncObj) -> Result<NvSciSyncObj, Code> {
    let mut dup: NvSciSyncObj = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the caller vouches for `obj`.
    check(unsafe { NvSciSyncObjDup(obj, &mut dup) })?;
    Ok(dup)
}

/// Frees a sync object handle this library duplicated.
///
/// # Safety
/// `obj` must come from [`sync_obj_dup`], freed once.
pub(crate) unsafe fn sync_obj_free(obj: NvSciSyncObj) {
    // SAFETY: the caller passes a handle it owns.
    unsafe { NvSciSyncObjFree(obj) }
}

/// Reserves the engine's next signal of `obj`: (primitive id, value).
///
/// # Safety
/// `obj` must be a live sync object handle.
pub(crate) unsafe fn engine_fence(obj: NvSciSyncObj) -> Result<(u64, u64), Code> {
    let mut f = NvSciSyncFenceInitializer;
    // SAFETY: `f` is a cleared local fence; the caller vouches for `obj`.
    check(unsafe { NvSciSyncSilObjEngineFence(obj, &mut f) })?;
    let r = extract(&f);
    // SAFETY: `f` holds the reference the call above took.
    unsafe { NvSciSyncFenceClear(&mut f) };
    r
}

/// (id, value) of a fence; a cleared or foreign fence is `CUPVA_INVALID_ARGUMENT`.
pub(crate) fn extract(f: &NvSciSyncFence) -> Result<(u64, u64), Code> {
    let (mut id, mut value) = (0u64, 0u64);
    // SAFETY: `f` is a readable fence; the out-pointers are locals.
    let e = unsafe { NvSciSyncFenceExtractFence(f, &mut id, &mut value) };
    if e == NvSciError_Success {
        Ok((id, value))
    } else {
        Err(code::INVALID_ARGUMENT)
    }
}

/// Writes the fence for (id, value) on `obj` into `*out` (cleared first by NvSciSync).
///
/// # Safety
/// `obj` must be a live sync object handle; `out` a writable fence, cleared or valid.
pub(crate) unsafe fn update_fence(
    obj: NvSciSyncObj,
    id: u64,
    value: u64,
    out: *mut NvSciSyncFence,
) -> Result<(), Code> {
    // SAFETY: forwarded caller guarantees.
    check(unsafe { NvSciSyncFenceUpdateFence(obj, id, value, out) })
}

/// Whether `f` is a fence of `obj` (the fence NvSciSync builds for its id and value on
/// `obj` is exactly `f`).
///
/// # Safety
/// `obj` must be a live sync object handle.
pub(crate) unsafe fn fence_of(obj: NvSciSyncObj, f: &NvSciSyncFence) -> bool {
    let Ok((id, value)) = extract(f) else {
        return false;
    };
    let mut mine = NvSciSyncFenceInitializer;
    // SAFETY: `mine` is a cleared local; the caller vouches for `obj`.
    let same =
        unsafe { update_fence(obj, id, value, &mut mine) }.is_ok() && mine.payload == f.payload;
    // SAFETY: `mine` is a local fence (cleared or holding the reference taken above).
    unsafe { NvSciSyncFenceClear(&mut mine) };
    same
}

/// Engine-side wait for (id, value) on `obj`, until reached (its timestamp), `abort` is set
/// (`Ok(None)`), or the timeout (µs, -1 = none) ends (`Err`).
///
/// # Safety
/// `obj` must be a live sync object handle.
pub(crate) unsafe fn wait(
    obj: NvSciSyncObj,
    id: u64,
    value: u64,
    timeout_us: i64,
    abort: &core::sync::atomic::AtomicU32,
) -> Result<Option<u64>, NvSciError> {
    let mut f = NvSciSyncFenceInitializer;
    // SAFETY: `f` is a cleared local; the caller vouches for `obj`.
    if unsafe { update_fence(obj, id, value, &mut f) }.is_err() {
        return Err(NvSciError_BadParameter);
    }
    let mut ts = 0u64;
    // SAFETY: `f` is a valid local fence; `abort` outlives the call and is only read
    // atomically; `ts` is a local.
    let e =
        unsafe { NvSciSyncSilFenceWaitEngineAbortable(&f, timeout_us, abort.as_ptr(), &mut ts) };
    // SAFETY: `f` holds the reference taken by `update_fence`.
    unsafe { NvSciSyncFenceClear(&mut f) };
    if e == NvSciError_Success {
        Ok(Some(ts))
    } else if e == nvsci_sys::NvSciError_InterruptedCall {
        Ok(None)
    } else {
        Err(e)
    }
}

/// The engine signals `obj` (+1) at `ts_ns`.
///
/// # Safety
/// `obj` must be a live sync object handle.
pub(crate) unsafe fn signal(obj: NvSciSyncObj, ts_ns: u64) {
    // SAFETY: the caller vouches for `obj`.
    let _ = unsafe { NvSciSyncSilObjSignalEngine(obj, ts_ns) };
}

/// The timestamp of the signal that produced `value` on `obj`.
///
/// # Safety
/// `obj` must be a live sync object handle.
pub(crate) unsafe fn signal_timestamp(obj: NvSciSyncObj, value: u64) -> Result<u64, Code> {
    let mut ts = 0u64;
    // SAFETY: the caller vouches for `obj`; `ts` is a local.
    check(unsafe { NvSciSyncSilObjGetSignalTimestamp(obj, value, &mut ts) })?;
    Ok(ts)
}

/// Duplicates a buffer object handle.
///
/// # Safety
/// `obj` must be NULL or a buffer object handle.
pub(crate) unsafe fn buf_obj_dup(obj: NvSciBufObj) -> Result<NvSciBufObj, Code> {
    let mut dup: NvSciBufObj = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the caller vouches for `obj`.
    check(unsafe { NvSciBufObjDup(obj, &mut dup) })?;
    Ok(dup)
}

/// Frees a buffer object handle this library duplicated.
///
/// # Safety
/// `obj` must come from [`buf_obj_dup`], freed once.
pub(crate) unsafe fn buf_obj_free(obj: NvSciBufObj) {
    // SAFETY: the caller passes a handle it owns.
    unsafe { NvSciBufObjFree(obj) }
}

/// Whether an NvSciBuf attribute list is reconciled; an unknown handle (NULL, forged, freed)
/// is `CUPVA_INVALID_ARGUMENT`.
///
/// # Safety
/// `list` must be NULL or an attribute list handle (NvSciBuf validates it).
pub(crate) unsafe fn buf_list_is_reconciled(list: NvSciBufAttrList) -> Result<bool, Code> {
    let mut reconciled = false;
    // SAFETY: valid out-pointer; the caller vouches for `list`.
    check(unsafe { NvSciBufAttrListIsReconciled(list, &mut reconciled) })?;
    Ok(reconciled)
}

/// Backing memory of a SIL buffer.
///
/// # Safety
/// `obj` must be a buffer object handle.
pub(crate) unsafe fn buf_memory(obj: NvSciBufObj) -> Result<(*mut u8, u64), Code> {
    let mut ptr: *mut c_void = core::ptr::null_mut();
    let mut size = 0u64;
    // SAFETY: valid out-pointers; the caller vouches for `obj`.
    check(unsafe { NvSciBufSilObjGetMemory(obj, &mut ptr, &mut size) })?;
    if ptr.is_null() {
        return Err(code::DRIVER_API_ERROR);
    }
    Ok((ptr as *mut u8, size))
}
