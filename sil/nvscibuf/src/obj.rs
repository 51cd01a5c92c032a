//! The object calls of nvscibuf.h, plus `NvSciBufSilObjGetMemory`.
//!
//! Out-parameters are written only on `Success`.

use std::ffi::c_void;
use std::sync::Arc;

use nvsci_sys::*;

use crate::attr::BufInfo;
use crate::ffi::{self, STATUS};
use crate::keys;
use crate::list::{ListData, Slot, Value};
use crate::registry::{
    self, BufCore, CoreEntry, ObjEntry, TAG_OBJ, add_list, gather, handle_of, next_id, ptr_of,
    state,
};
use crate::validate;

const BAD: NvSciError = NvSciError_BadParameter;

/// The object's own copy of a reconciled list with `ActualPerm` = `perm`.
fn object_list(data: &ListData, perm: u32) -> ListData {
    let mut d = data.clone();
    d.writable = false;
    d.slots[0].vals[keys::ACTUAL_PERM] = Some(Value::from_u32(perm));
    if let Some(i) = d.recon.as_mut() {
        i.perm = perm;
    }
    d
}

/// Allocates a buffer for reconciled contents; returns the object handle. The object is
/// ReadWrite whatever the list's `ActualPerm` (nvscibuf.h `ActualPerm`: "allocated
/// NvSciBufObj gets read-write permissions by default").
pub(crate) fn alloc_obj(module: u64, data: &ListData, info: BufInfo) -> Result<u64, NvSciError> {
    let id = next_id();
    let core = BufCore::alloc(info.size, info.align, info.need_cpu)
        .ok_or(NvSciError_InsufficientMemory)?;
    let rw = NvSciBufAccessPerm_ReadWrite.0;
    let mut st = state();
    let list_rw = add_list(&mut st, module, object_list(data, rw), Some(id));
    st.cores.insert(
        id,
        CoreEntry {
            core: Arc::new(core),
            list_rw,
            list_ro: None,
        },
    );
    let h = TAG_OBJ | next_id();
    st.objects.insert(h, ObjEntry { core: id, perm: rw });
    Ok(h)
}

/// Allocates a buffer from a reconciled list: page-aligned (at least the reconciled
/// alignment), padded to whole pages, zero-filled. `BadParameter` for an unknown or
/// unreconciled list or a NULL out pointer; `InsufficientMemory`.
///
/// # Safety
/// `bufObj` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjAlloc(
    reconciledAttrList: NvSciBufAttrList,
    bufObj: *mut NvSciBufObj,
) -> NvSciError {
    if !ffi::usable(bufObj) {
        return BAD;
    }
    let Some(list) = registry::list(reconciledAttrList) else {
        return BAD;
    };
    let data = list.lock().clone();
    let Some(info) = data.recon else {
        return BAD;
    };
    match alloc_obj(list.module, &data, info) {
        // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
        Ok(h) => unsafe { STATUS.write(bufObj, ptr_of(h)) },
        Err(e) => e,
    }
}

/// Frees a handle; the buffer goes with its last handle. Unknown and already freed handles
/// are ignored.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjFree(bufObj: NvSciBufObj) {
    let mut st = state();
    if let Some(e) = st.objects.remove(&handle_of(bufObj)) {
        st.release(e.core);
    }
}

/// The list handle of an object handle (its permission's list).
fn obj_list_handle(bufObj: NvSciBufObj) -> Option<u64> {
    let st = state();
    let (e, c) = st.obj(handle_of(bufObj))?;
    if e.perm == NvSciBufAccessPerm_ReadWrite.0 {
        Some(c.list_rw)
    } else {
        c.list_ro
    }
}

/// The object's reconciled list (`ActualPerm` = the handle's permission). It lives as
/// long as the buffer; `NvSciBufAttrListFree` ignores it. `BadParameter` for an unknown
/// object or a NULL out pointer.
///
/// # Safety
/// `bufAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjGetAttrList(
    bufObj: NvSciBufObj,
    bufAttrList: *mut NvSciBufAttrList,
) -> NvSciError {
    let Some(h) = obj_list_handle(bufObj) else {
        return BAD;
    };
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(bufAttrList, ptr_of(h)) }
}

/// The buffer and permission of a handle.
pub(crate) fn lookup(bufObj: NvSciBufObj) -> Option<(ObjEntry, Arc<BufCore>)> {
    let st = state();
    let (e, c) = st.obj(handle_of(bufObj))?;
    Some((e, c.core.clone()))
}

/// The reconciled slot of an object handle's list.
pub(crate) fn obj_slot(bufObj: NvSciBufObj) -> Option<Slot> {
    let h = obj_list_handle(bufObj)?;
    let list = state().list(h)?.clone();
    let d = list.lock();
    Some(d.slots[0].clone())
}

/// The CPU pointer of a buffer with `NeedCpuAccess`, through a ReadWrite handle when
/// `write` is asked for.
fn cpu_ptr(bufObj: NvSciBufObj, write: bool) -> Option<*mut c_void> {
    let (e, core) = lookup(bufObj)?;
    let allowed = core.need_cpu && (!write || e.perm == NvSciBufAccessPerm_ReadWrite.0);
    allowed.then(|| core.ptr().cast::<c_void>())
}

/// CPU pointer: needs `NeedCpuAccess` and a ReadWrite handle (else `BadParameter`).
///
/// # Safety
/// `ptr` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjGetCpuPtr(
    bufObj: NvSciBufObj,
    ptr: *mut *mut c_void,
) -> NvSciError {
    let Some(p) = cpu_ptr(bufObj, true) else {
        return BAD;
    };
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(ptr, p) }
}

/// Read-only CPU pointer: needs `NeedCpuAccess` (else `BadParameter`).
///
/// # Safety
/// `ptr` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjGetConstCpuPtr(
    bufObj: NvSciBufObj,
    ptr: *mut *const c_void,
) -> NvSciError {
    let Some(p) = cpu_ptr(bufObj, false) else {
        return BAD;
    };
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(ptr, p.cast_const()) }
}

/// No-op flush (the SIL memory is ordinary cached host memory and
/// `CpuNeedSwCacheCoherency` is false). In order: `BadParameter` for an unknown handle;
/// `NotPermitted` without CPU access; `BadParameter` for `len` 0; `Overflow` when
/// `offset + len` passes `UINT64_MAX`; `BadParameter` for a range past the reconciled size.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjFlushCpuCacheRange(
    bufObj: NvSciBufObj,
    offset: u64,
    len: u64,
) -> NvSciError {
    let Some((_, core)) = lookup(bufObj) else {
        return BAD;
    };
    if !core.need_cpu {
        return NvSciError_NotPermitted;
    }
    if len == 0 {
        return BAD;
    }
    match offset.checked_add(len) {
        None => NvSciError_Overflow,
        Some(end) if end <= core.size => {
            std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
            NvSciError_Success
        }
        Some(_) => BAD,
    }
}

/// A new handle with the same permission. `BadParameter` for an unknown object or a NULL
/// out pointer.
///
/// # Safety
/// `dupObj` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjDup(
    bufObj: NvSciBufObj,
    dupObj: *mut NvSciBufObj,
) -> NvSciError {
    let Some(e) = state().objects.get(&handle_of(bufObj)).copied() else {
        return BAD;
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { dup_with(bufObj, NvSciBufAttrValAccessPerm(e.perm), dupObj) }
}

/// A new handle with permission `reducedPerm`: Readonly or ReadWrite, at most the handle's
/// own (nvscibuf.h: greater than `ActualPerm` is `BadParameter`).
///
/// # Safety
/// `newBufObj` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjDupWithReducePerm(
    bufObj: NvSciBufObj,
    reducedPerm: NvSciBufAttrValAccessPerm,
    newBufObj: *mut NvSciBufObj,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { dup_with(bufObj, reducedPerm, newBufObj) }
}

/// # Safety
/// `out` is NULL or writable.
unsafe fn dup_with(
    bufObj: NvSciBufObj,
    perm: NvSciBufAttrValAccessPerm,
    out: *mut NvSciBufObj,
) -> NvSciError {
    if !ffi::usable(out) {
        return BAD;
    }
    if perm != NvSciBufAccessPerm_Readonly && perm != NvSciBufAccessPerm_ReadWrite {
        return BAD;
    }
    let mut st = state();
    let Some(&e) = st.objects.get(&handle_of(bufObj)) else {
        return BAD;
    };
    if perm.0 > e.perm {
        return BAD;
    }
    let new_perm = perm.0;
    // The object's read-only list, made once.
    if new_perm == NvSciBufAccessPerm_Readonly.0
        && let Some(rw) = st
            .cores
            .get(e.core)
            .filter(|c| c.list_ro.is_none())
            .map(|c| c.list_rw)
    {
        let Some(list) = st.list(rw).cloned() else {
            return BAD;
        };
        let data = object_list(&list.lock(), new_perm);
        let ro = add_list(&mut st, list.module, data, Some(e.core));
        if let Some(c) = st.cores.get_mut(e.core) {
            c.list_ro = Some(ro);
        }
    }
    if !st.cores.add_ref(e.core) {
        return BAD;
    }
    let h = TAG_OBJ | next_id();
    st.objects.insert(
        h,
        ObjEntry {
            core: e.core,
            perm: new_perm,
        },
    );
    drop(st);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(out, ptr_of(h)) }
}

/// Checks an allocated object's list against the unreconciled lists of late-attaching
/// peers (the validation of `NvSciBufAttrListValidateReconciled`): `Success` or
/// `ReconciliationFailed`. `BadParameter` for an unknown object, the reconcile input
/// errors, lists of another module than the object's, or a list without `Types`. There
/// is no IPC in the SIL: a success grants nothing further.
///
/// # Safety
/// `inputArray` is NULL or points to `inputCount` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjAttachPeer(
    bufObj: NvSciBufObj,
    inputArray: *const NvSciBufAttrList,
    inputCount: usize,
) -> NvSciError {
    let Some(h) = obj_list_handle(bufObj) else {
        return BAD;
    };
    let Some(list) = state().list(h).cloned() else {
        return BAD;
    };
    // SAFETY: forwarded caller guarantee.
    let (module, slots) = match unsafe { gather(inputArray, inputCount) } {
        Ok(x) => x,
        Err(e) => return e,
    };
    if module != list.module || slots.iter().any(|s| s.get(keys::TYPES).is_none()) {
        return BAD;
    }
    let recon = list.lock().slots[0].clone();
    if validate::satisfies(&recon, &slots) {
        NvSciError_Success
    } else {
        NvSciError_ReconciliationFailed
    }
}

/// A no-op returning `Success` whatever the argument, as nvscibuf.h documents it outside
/// safety builds ("bufObj Unused").
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjValidate(bufObj: NvSciBufObj) -> NvSciError {
    let _ = bufObj;
    NvSciError_Success
}

/// A no-op returning `Success` and writing nothing, as nvscibuf.h documents it outside
/// safety builds (all three parameters "Unused").
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjGetMaxPerm(
    bufObj: NvSciBufObj,
    ipcEndpoint: NvSciIpcEndpoint,
    accPerm: *mut NvSciBufAttrValAccessPerm,
) -> NvSciError {
    let _ = (bufObj, ipcEndpoint, accPerm);
    NvSciError_Success
}

/// SIL extension: the backing memory regardless of CPU-access attributes, and its size
/// (whole pages).
///
/// # Safety
/// `ptr` and `size` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufSilObjGetMemory(
    obj: NvSciBufObj,
    ptr: *mut *mut c_void,
    size: *mut u64,
) -> NvSciError {
    if !ffi::usable(ptr) || !ffi::usable(size) {
        return BAD;
    }
    let Some((_, core)) = lookup(obj) else {
        return BAD;
    };
    // SAFETY: both checked non-NULL and aligned; the caller passes writable pointers.
    unsafe {
        ffi::write(ptr, core.ptr().cast::<c_void>());
        ffi::write(size, core.alloc_size());
    }
    NvSciError_Success
}
