//! The NvSciBuf C API (`nvscibuf.h`), as declared in `nvsci-sys`, plus
//! `NvSciBufSilObjGetMemory`.

use std::ffi::c_void;
use std::sync::Arc;

use nvsci_sys::{
    NvSciBufAccessPerm_ReadWrite, NvSciBufAccessPerm_Readonly, NvSciBufAttrKeyValuePair,
    NvSciBufAttrList, NvSciBufAttrValAccessPerm, NvSciBufGeneralAttrKey_Types, NvSciBufModule,
    NvSciBufObj, NvSciError, NvSciError_BadParameter, NvSciError_InsufficientMemory,
    NvSciError_NotPermitted, NvSciError_Success,
};

use crate::attr::{self, BufInfo, K_ACTUAL_PERM, ListData, Slot, Value, key_index};
use crate::ffi::{self, STATUS};
use crate::registry::{
    API, BufCore, CoreEntry, ObjEntry, TAG_OBJ, handle_of, next_id, ptr_of, state,
};

const BAD: NvSciError = NvSciError_BadParameter;

/// The object's own copy of a reconciled list with `ActualPerm` = `perm`.
fn object_list(data: &ListData, perm: u32) -> ListData {
    let mut d = data.clone();
    d.writable = false;
    d.slots[0].vals[K_ACTUAL_PERM] = Some(Value::from_u32(perm));
    if let Some(i) = d.recon.as_mut() {
        i.perm = perm;
    }
    d
}

/// Allocates a buffer for reconciled contents; returns the object handle.
fn alloc_obj(module: u64, data: &ListData, info: BufInfo) -> Result<u64, NvSciError> {
    let id = next_id();
    let core = BufCore::alloc(info.size, info.align, info.need_cpu)
        .ok_or(NvSciError_InsufficientMemory)?;
    let rw = NvSciBufAccessPerm_ReadWrite.0;
    let mut st = state();
    let list_rw = API.add_list(&mut st, module, object_list(data, rw), Some(id));
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

// ---------------------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------------------

/// Opens a new module.
///
/// # Safety
/// `newModule` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufModuleOpen(newModule: *mut NvSciBufModule) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { API.module_open(newModule) }
}

/// Closes a module (unknown handles are ignored). Lists and objects stay usable until
/// freed.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufModuleClose(module: NvSciBufModule) {
    API.module_close(module);
}

// ---------------------------------------------------------------------------------------
// Attribute lists
// ---------------------------------------------------------------------------------------

/// Creates an empty unreconciled list.
///
/// # Safety
/// `newAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListCreate(
    module: NvSciBufModule,
    newAttrList: *mut NvSciBufAttrList,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { API.list_create(module, newAttrList) }
}

/// Frees a list (unknown handles and objects' lists are ignored).
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListFree(attrList: NvSciBufAttrList) {
    API.list_free(attrList);
}

/// Sets keys of an unreconciled list. `BadParameter` for: NULL/unknown list, reconciled
/// list, NULL array, count 0, a key the SIL does not support, an output-only key, a
/// datatype key whose type is not in `Types` (set before or in the same call), a NULL
/// value, a wrong length or value, a key twice in the array or already set. Nothing is set
/// unless every pair is valid.
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` pairs whose values are readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListSetAttrs(
    attrList: NvSciBufAttrList,
    pairArray: *mut NvSciBufAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    // SAFETY: the caller guarantees `len` readable bytes at a non-NULL `value`.
    let bytes_of = |p: &NvSciBufAttrKeyValuePair| unsafe { ffi::bytes(p.value, p.len) };
    let validate = |slot: &Slot, pairs: &[NvSciBufAttrKeyValuePair]| {
        // The type set: already in the list, or given in this call.
        let mut types = attr::type_set(slot);
        for p in pairs
            .iter()
            .filter(|p| p.key == NvSciBufGeneralAttrKey_Types)
        {
            if let Some(b) = bytes_of(p) {
                types |= attr::type_set_of(&Value::from_bytes(b));
            }
        }
        pairs
            .iter()
            .map(|p| attr::validate_set(p.key, bytes_of(p), types))
            .collect()
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { API.set_attrs(attrList, pairArray.cast_const(), pairCount, validate) }
}

/// Reads keys of slot 0 (unset keys: NULL value, length 0; keys the SIL does not know:
/// `BadParameter`). The pointers stay valid while the list lives.
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` writable pairs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListGetAttrs(
    attrList: NvSciBufAttrList,
    pairArray: *mut NvSciBufAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    let index = |p: &NvSciBufAttrKeyValuePair| key_index(p.key);
    let fill = |p: &mut NvSciBufAttrKeyValuePair, (value, len)| {
        p.value = value;
        p.len = len;
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { API.get_attrs(attrList, 0, pairArray, pairCount, index, fill) }
}

/// Reconciles unreconciled lists (rules and conflict list: `sil/README.md`).
///
/// # Safety
/// `inputArray` is NULL or points to `inputCount` handles; the out pointers are NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListReconcile(
    inputArray: *const NvSciBufAttrList,
    inputCount: usize,
    newReconciledAttrList: *mut NvSciBufAttrList,
    newConflictList: *mut NvSciBufAttrList,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe {
        API.reconcile(
            inputArray,
            inputCount,
            newReconciledAttrList,
            newConflictList,
            attr::reconcile,
        )
    }
}

/// Reconciles and allocates in one call.
///
/// # Safety
/// As [`NvSciBufAttrListReconcile`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListReconcileAndObjAlloc(
    attrListArray: *const NvSciBufAttrList,
    attrListCount: usize,
    bufObj: *mut NvSciBufObj,
    newConflictList: *mut NvSciBufAttrList,
) -> NvSciError {
    let alloc = |module, data, info| alloc_obj(module, &data, info);
    // SAFETY: forwarded caller guarantee.
    unsafe {
        API.reconcile_into(
            attrListArray,
            attrListCount,
            bufObj,
            newConflictList,
            attr::reconcile,
            alloc,
        )
    }
}

// ---------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------

/// Allocates a buffer from a reconciled list (unreconciled: `BadParameter`): page-aligned
/// (at least the reconciled alignment), padded to whole pages, zero-filled.
///
/// # Safety
/// `bufObj` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjAlloc(
    reconciledAttrList: NvSciBufAttrList,
    bufObj: *mut NvSciBufObj,
) -> NvSciError {
    let alloc = |module, data, info| alloc_obj(module, &data, info);
    // SAFETY: forwarded caller guarantee.
    unsafe { API.obj_alloc(reconciledAttrList, bufObj, alloc) }
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

/// The object's reconciled list (`ActualPerm` = the handle's permission). It lives as
/// long as the buffer; `NvSciBufAttrListFree` ignores it.
///
/// # Safety
/// `bufAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjGetAttrList(
    bufObj: NvSciBufObj,
    bufAttrList: *mut NvSciBufAttrList,
) -> NvSciError {
    let h = {
        let st = state();
        let Some((e, c)) = st.obj(handle_of(bufObj)) else {
            return BAD;
        };
        if e.perm == NvSciBufAccessPerm_ReadWrite.0 {
            Some(c.list_rw)
        } else {
            c.list_ro
        }
    };
    let Some(h) = h else {
        return BAD;
    };
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(bufAttrList, ptr_of(h)) }
}

/// The buffer and permission of a handle.
fn lookup(bufObj: NvSciBufObj) -> Option<(ObjEntry, Arc<BufCore>)> {
    let st = state();
    let (e, c) = st.obj(handle_of(bufObj))?;
    Some((e, c.core.clone()))
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
/// `CpuNeedSwCacheCoherency` is false). `NotPermitted` without CPU access; `BadParameter`
/// for an unknown handle, `len` 0 or a range beyond the reconciled size.
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
    match offset.checked_add(len) {
        Some(end) if len > 0 && end <= core.size => {
            std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
            NvSciError_Success
        }
        _ => BAD,
    }
}

/// A new handle with the same permission.
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

/// A new handle with permission min(current, `reducedPerm`); `reducedPerm` must be
/// Readonly or ReadWrite.
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
    let new_perm = e.perm.min(perm.0);
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
        let ro = API.add_list(&mut st, list.module, data, Some(e.core));
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
