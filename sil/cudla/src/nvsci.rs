//! Thin wrappers around the NvSciSync / NvSciBuf C calls this library makes.
//!
//! Every call goes through the C declarations of `nvsci-sys` (never through another SIL
//! crate's Rust API), exactly as the vendor libcudla calls the vendor NvSci libraries; in the
//! shared-library build these symbols are resolved from `libnvscisync.so` / `libnvscibuf.so`
//! at load time.

use core::ffi::c_void;
use std::sync::atomic::AtomicU32;

use cudla_sys::{cudlaErrorInvalidParam, cudlaErrorNvSci, cudlaStatus};
use nvsci_sys::sil::{
    NvSciBufSilObjGetMemory, NvSciSilClockAdvanceTo, NvSciSilClockNowNs,
    NvSciSyncSilFenceWaitEngineAbortable, NvSciSyncSilObjEngineFence, NvSciSyncSilObjSignalEngine,
    NvSciSyncSilWakeWaiters,
};
use nvsci_sys::{
    NvSciBufAttrKey, NvSciBufAttrKeyValuePair, NvSciBufAttrListGetAttrs, NvSciBufObj,
    NvSciBufObjDup, NvSciBufObjFree, NvSciBufObjGetAttrList, NvSciError, NvSciError_BadParameter,
    NvSciError_ClearedFence, NvSciError_Success, NvSciSyncAttrKey, NvSciSyncAttrKey_PrimitiveInfo,
    NvSciSyncAttrKey_RequireDeterministicFences, NvSciSyncAttrList, NvSciSyncAttrListGetAttr,
    NvSciSyncFence, NvSciSyncFenceClear, NvSciSyncFenceDup, NvSciSyncFenceExtractFence,
    NvSciSyncFenceInitializer, NvSciSyncObj, NvSciSyncObjDup, NvSciSyncObjFree,
    NvSciSyncObjGetAttrList,
};

/// Maps an NvSci failure to the cuDLA status this library reports for it:
/// `NvSciError_BadParameter` (a bad handle or value from the caller) becomes
/// `cudlaErrorInvalidParam`, everything else `cudlaErrorNvSci`.
pub(crate) fn map_err(e: NvSciError) -> cudlaStatus {
    if e == NvSciError_BadParameter {
        cudlaErrorInvalidParam
    } else {
        cudlaErrorNvSci
    }
}

fn check(e: NvSciError) -> Result<(), cudlaStatus> {
    if e == NvSciError_Success {
        Ok(())
    } else {
        Err(map_err(e))
    }
}

/// The SIL clock shared by every SIL library of the process (`NvSciSilClockNowNs`).
pub(crate) fn now_ns() -> u64 {
    // SAFETY: no arguments; the SIL NvSciSync clock is always available.
    unsafe { NvSciSilClockNowNs() }
}

/// Wakes every NvSciSync SIL wait so it re-checks its abort flag.
pub(crate) fn wake_waiters() {
    // SAFETY: no arguments.
    let _ = unsafe { NvSciSyncSilWakeWaiters() };
}

/// Whether the process-wide SIL clock is virtual.
///
/// Asked through the C ABI (so it also holds when this library is a separate shared object
/// with its own copy of `sil-common`): `NvSciSilClockAdvanceTo(0)` succeeds, without moving
/// the clock (it never moves backwards), exactly when virtual time is on.
pub(crate) fn clock_is_virtual() -> bool {
    // SAFETY: plain value argument; moving the clock to 0 never changes it.
    unsafe { NvSciSilClockAdvanceTo(0) == NvSciError_Success }
}

/// Reads one NvSciSync attribute: `Ok(None)` when the key is not set.
///
/// # Safety
/// `list` must be an attribute list handle (the NvSci library validates it).
pub(crate) unsafe fn sync_get_attr(
    list: NvSciSyncAttrList,
    key: NvSciSyncAttrKey,
) -> Result<Option<(*const c_void, usize)>, cudlaStatus> {
    let mut value: *const c_void = core::ptr::null();
    let mut len = 0usize;
    // SAFETY: the out-pointers are valid locals; the caller vouches for `list`.
    check(unsafe { NvSciSyncAttrListGetAttr(list, key, &mut value, &mut len) })?;
    if value.is_null() || len == 0 {
        Ok(None)
    } else {
        Ok(Some((value, len)))
    }
}

/// What cuDLA needs to know about a sync object: its reconciled list (the object's identity,
/// shared by every duplicate handle), its primitive (`PrimitiveInfo` of the reconciled list,
/// which holds the one chosen primitive) and whether it requires deterministic fences.
pub(crate) struct SyncObjInfo {
    /// `NvSciSyncObjGetAttrList` (lives as long as the object).
    pub list: NvSciSyncAttrList,
    /// The reconciled primitive (`NvSciSyncAttrValPrimitiveType` value), 0 if not set.
    pub primitive: u32,
    /// `RequireDeterministicFences` of the reconciled list.
    pub deterministic: bool,
}

/// Reads [`SyncObjInfo`] of a sync object through the public attribute calls.
///
/// # Safety
/// `obj` must be a sync object handle (NvSciSync validates it).
pub(crate) unsafe fn sync_obj_info(obj: NvSciSyncObj) -> Result<SyncObjInfo, cudlaStatus> {
    let mut list: NvSciSyncAttrList = core::ptr::null_mut();
    // SAFETY: `list` is a valid out-pointer; the caller vouches for `obj`.
    check(unsafe { NvSciSyncObjGetAttrList(obj, &mut list) })?;
    // SAFETY: `list` was just returned by NvSciSync and lives as long as the object.
    let primitive = match unsafe { sync_get_attr(list, NvSciSyncAttrKey_PrimitiveInfo) }? {
        // SAFETY: NvSciSync returned `len >= 4` bytes of 4-byte primitive values.
        Some((v, len)) if len >= 4 => unsafe { core::ptr::read_unaligned(v as *const u32) },
        _ => 0,
    };
    // SAFETY: as above.
    let deterministic =
        match unsafe { sync_get_attr(list, NvSciSyncAttrKey_RequireDeterministicFences) }? {
            // SAFETY: NvSciSync returned a value of `len >= 1` bytes; a bool is one byte.
            Some((v, len)) if len >= 1 => (unsafe { *(v as *const u8) }) != 0,
            _ => false,
        };
    Ok(SyncObjInfo {
        list,
        primitive,
        deterministic,
    })
}

/// Duplicates a sync object handle (the reference cuDLA holds while the object is imported).
///
/// # Safety
/// `obj` must be a sync object handle.
pub(crate) unsafe fn sync_obj_dup(obj: NvSciSyncObj) -> Result<NvSciSyncObj, cudlaStatus> {
    let mut dup: NvSciSyncObj = core::ptr::null_mut();
    // SAFETY: `dup` is a valid out-pointer; the caller vouches for `obj`.
    check(unsafe { NvSciSyncObjDup(obj, &mut dup) })?;
    Ok(dup)
}

/// Frees a sync object handle this library duplicated.
///
/// # Safety
/// `obj` must be a handle returned by [`sync_obj_dup`], freed once.
pub(crate) unsafe fn sync_obj_free(obj: NvSciSyncObj) {
    // SAFETY: the caller passes a handle it owns.
    unsafe { NvSciSyncObjFree(obj) }
}

/// Engine-side signal: +1 with the given timestamp.
///
/// # Safety
/// `obj` must be a sync object handle.
pub(crate) unsafe fn sync_signal_engine(obj: NvSciSyncObj, ts_ns: u64) -> NvSciError {
    // SAFETY: the caller vouches for `obj`.
    unsafe { NvSciSyncSilObjSignalEngine(obj, ts_ns) }
}

/// The engine reserves its next signal of `obj`: the object's threshold advances by one and
/// `fence` (cleared first) is written with the object's primitive id and the value that
/// signal reaches (`NvSciSyncSilObjEngineFence`).
///
/// # Safety
/// `obj` must be a sync object handle; `fence` must point to a writable `NvSciSyncFence`
/// that is cleared or holds a valid fence.
pub(crate) unsafe fn sync_engine_fence(
    obj: NvSciSyncObj,
    fence: *mut NvSciSyncFence,
) -> Result<(), cudlaStatus> {
    // SAFETY: forwarded to NvSciSync under the caller's guarantees.
    check(unsafe { NvSciSyncSilObjEngineFence(obj, fence) })
}

/// Checks that `fence` is a fence NvSciSync understands (cleared fences are accepted).
///
/// # Safety
/// `fence` must point to a readable `NvSciSyncFence`.
pub(crate) unsafe fn sync_fence_check(fence: *const NvSciSyncFence) -> Result<(), cudlaStatus> {
    let (mut id, mut value) = (0u64, 0u64);
    // SAFETY: out-pointers are valid locals; the caller vouches for `fence`.
    let e = unsafe { NvSciSyncFenceExtractFence(fence, &mut id, &mut value) };
    if e == NvSciError_Success || e == NvSciError_ClearedFence {
        Ok(())
    } else {
        Err(cudlaErrorInvalidParam)
    }
}

/// A fence this library owns (a duplicate of a caller's pre-fence); cleared on drop.
#[repr(transparent)]
pub(crate) struct OwnedFence(pub(crate) NvSciSyncFence);

impl OwnedFence {
    /// A cleared fence.
    pub(crate) const CLEARED: OwnedFence = OwnedFence(NvSciSyncFenceInitializer);

    /// Whether the fence is cleared (all zero).
    pub(crate) fn is_cleared(&self) -> bool {
        self.0.payload.iter().all(|&w| w == 0)
    }

    /// Replaces the contents with a duplicate of `src` (which holds its own reference).
    ///
    /// # Safety
    /// `src` must point to a readable, valid (or cleared) `NvSciSyncFence` distinct from `self`.
    pub(crate) unsafe fn dup_from(
        &mut self,
        src: *const NvSciSyncFence,
    ) -> Result<(), cudlaStatus> {
        self.clear();
        // SAFETY: `self.0` is a cleared fence we own; the caller vouches for `src`.
        check(unsafe { NvSciSyncFenceDupChecked(src, &mut self.0) })
    }

    /// Engine-side wait without a timeout that sleeps until the fence is reached (the
    /// reached timestamp) or `abort` is set and the waiters are woken
    /// ([`wake_waiters`]; `NvSciError_InterruptedCall`).
    pub(crate) fn wait_engine(&self, abort: &AtomicU32) -> Result<u64, NvSciError> {
        let mut ts = 0u64;
        // SAFETY: `self.0` is a fence we own (valid or cleared); `abort` outlives the call
        // and is only accessed atomically; `ts` is a valid local.
        let e =
            unsafe { NvSciSyncSilFenceWaitEngineAbortable(&self.0, -1, abort.as_ptr(), &mut ts) };
        if e == NvSciError_Success {
            Ok(ts)
        } else {
            Err(e)
        }
    }

    /// Drops the object reference (if any) and zeroes the fence.
    pub(crate) fn clear(&mut self) {
        if !self.is_cleared() {
            // SAFETY: `self.0` is a fence this library owns.
            unsafe { NvSciSyncFenceClear(&mut self.0) };
            self.0 = NvSciSyncFenceInitializer;
        }
    }
}

impl Drop for OwnedFence {
    fn drop(&mut self) {
        self.clear();
    }
}

/// `NvSciSyncFenceDup`, except that a cleared source gives a cleared copy without a call.
///
/// # Safety
/// As for `NvSciSyncFenceDup`.
#[allow(non_snake_case)]
unsafe fn NvSciSyncFenceDupChecked(
    src: *const NvSciSyncFence,
    dst: *mut NvSciSyncFence,
) -> NvSciError {
    // SAFETY: the caller guarantees `src` is readable.
    if unsafe { (*src).payload.iter().all(|&w| w == 0) } {
        return NvSciError_Success;
    }
    // SAFETY: forwarded under the caller's guarantees.
    unsafe { NvSciSyncFenceDup(src, dst) }
}

/// Reads the `NvSciBufType` list and the buffer size of a buffer object's reconciled list.
///
/// # Safety
/// `obj` must be a buffer object handle.
pub(crate) unsafe fn buf_types_and_size(
    obj: NvSciBufObj,
    types_out: &mut [u32; 8],
) -> Result<(usize, Option<u64>), cudlaStatus> {
    let mut list = core::ptr::null_mut();
    // SAFETY: `list` is a valid out-pointer; the caller vouches for `obj`.
    check(unsafe { NvSciBufObjGetAttrList(obj, &mut list) })?;
    let mut pair = [NvSciBufAttrKeyValuePair {
        key: nvsci_sys::NvSciBufGeneralAttrKey_Types,
        value: core::ptr::null(),
        len: 0,
    }];
    // SAFETY: one valid pair; `list` was just returned by NvSciBuf.
    check(unsafe { NvSciBufAttrListGetAttrs(list, pair.as_mut_ptr(), 1) })?;
    let n = (pair[0].len / 4).min(types_out.len());
    if pair[0].value.is_null() {
        return Ok((0, None));
    }
    for (i, t) in types_out.iter_mut().enumerate().take(n) {
        // SAFETY: NvSciBuf returned `len` bytes of 4-byte `NvSciBufType` values.
        *t = unsafe { core::ptr::read_unaligned((pair[0].value as *const u32).add(i)) };
    }
    let mut size = None;
    for &ty in &types_out[..n] {
        let key: NvSciBufAttrKey = if ty == nvsci_sys::NvSciBufType_RawBuffer.0 {
            nvsci_sys::NvSciBufRawBufferAttrKey_Size
        } else if ty == nvsci_sys::NvSciBufType_Tensor.0 {
            nvsci_sys::NvSciBufTensorAttrKey_Size
        } else {
            continue;
        };
        let mut p = [NvSciBufAttrKeyValuePair {
            key,
            value: core::ptr::null(),
            len: 0,
        }];
        // SAFETY: one valid pair; `list` is the object's reconciled list.
        if unsafe { NvSciBufAttrListGetAttrs(list, p.as_mut_ptr(), 1) } == NvSciError_Success
            && !p[0].value.is_null()
            && p[0].len >= 8
        {
            // SAFETY: NvSciBuf returned at least 8 bytes for a `uint64_t` size.
            size = Some(unsafe { core::ptr::read_unaligned(p[0].value as *const u64) });
            break;
        }
    }
    Ok((n, size))
}

/// Duplicates a buffer object handle (the reference cuDLA holds while it is imported).
///
/// # Safety
/// `obj` must be a buffer object handle.
pub(crate) unsafe fn buf_obj_dup(obj: NvSciBufObj) -> Result<NvSciBufObj, cudlaStatus> {
    let mut dup: NvSciBufObj = core::ptr::null_mut();
    // SAFETY: valid out-pointer; the caller vouches for `obj`.
    check(unsafe { NvSciBufObjDup(obj, &mut dup) })?;
    Ok(dup)
}

/// Frees a buffer object handle this library duplicated.
///
/// # Safety
/// `obj` must be a handle returned by [`buf_obj_dup`], freed once.
pub(crate) unsafe fn buf_obj_free(obj: NvSciBufObj) {
    // SAFETY: the caller passes a handle it owns.
    unsafe { NvSciBufObjFree(obj) }
}

/// Backing memory of a SIL buffer.
///
/// # Safety
/// `obj` must be a buffer object handle.
pub(crate) unsafe fn buf_memory(obj: NvSciBufObj) -> Result<(*mut u8, u64), cudlaStatus> {
    let mut ptr: *mut c_void = core::ptr::null_mut();
    let mut size = 0u64;
    // SAFETY: valid out-pointers; the caller vouches for `obj`.
    check(unsafe { NvSciBufSilObjGetMemory(obj, &mut ptr, &mut size) })?;
    if ptr.is_null() {
        return Err(cudlaErrorNvSci);
    }
    Ok((ptr as *mut u8, size))
}
