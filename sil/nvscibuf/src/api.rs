//! The NvSciBuf C API (`nvscibuf.h`), as declared in `nvsci-sys`, plus
//! `NvSciBufSilObjGetMemory`.

use std::ffi::c_void;
use std::sync::Arc;

use nvsci_sys::{
    NvSciBufAccessPerm_ReadWrite, NvSciBufAccessPerm_Readonly, NvSciBufAttrKeyValuePair,
    NvSciBufAttrList, NvSciBufAttrValAccessPerm, NvSciBufGeneralAttrKey_Types, NvSciBufModule,
    NvSciBufObj, NvSciError, NvSciError_BadParameter, NvSciError_InsufficientMemory,
    NvSciError_NotPermitted, NvSciError_NotSupported, NvSciError_ReconciliationFailed,
    NvSciError_Success,
};

use crate::attr::{
    self, AttrList, BufInfo, K_ACTUAL_PERM, ListData, ReconError, Slot, Value, key_index,
};
use crate::ffi;
use crate::registry::{
    BufCore, CoreEntry, ListEntry, ObjEntry, State, TAG_LIST, TAG_MODULE, TAG_OBJ, handle_of,
    next_id, ptr_of, state,
};

const BAD: NvSciError = NvSciError_BadParameter;

fn add_list(st: &mut State, module: u64, data: ListData, owner: Option<u64>) -> u64 {
    let h = TAG_LIST | next_id();
    st.lists.insert(
        h,
        ListEntry {
            list: Arc::new(AttrList::new(module, data)),
            owner,
        },
    );
    h
}

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
    let list_rw = add_list(&mut st, module, object_list(data, rw), Some(id));
    st.cores.insert(
        id,
        CoreEntry {
            core: Arc::new(core),
            refs: 1,
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
    if newModule.is_null() || !newModule.is_aligned() {
        return BAD;
    }
    let h = TAG_MODULE | next_id();
    state().modules.insert(h, ());
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { ffi::write(newModule, ptr_of(h)) };
    NvSciError_Success
}

/// Closes a module (unknown handles are ignored). Lists and objects stay usable until
/// freed.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufModuleClose(module: NvSciBufModule) {
    state().modules.remove(&handle_of(module));
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
    if newAttrList.is_null() || !newAttrList.is_aligned() {
        return BAD;
    }
    let m = handle_of(module);
    let mut st = state();
    if !st.modules.contains_key(&m) {
        return BAD;
    }
    let h = add_list(&mut st, m, ListData::new_unreconciled(), None);
    drop(st);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { ffi::write(newAttrList, ptr_of(h)) };
    NvSciError_Success
}

/// Frees a list (unknown handles and objects' lists are ignored).
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListFree(attrList: NvSciBufAttrList) {
    let h = handle_of(attrList);
    let mut st = state();
    if st.lists.get(&h).is_some_and(|e| e.owner.is_none()) {
        st.lists.remove(&h);
    }
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
    if pairCount == 0 {
        return BAD;
    }
    // SAFETY: the caller guarantees `pairCount` readable pairs (NULL is refused).
    let Some(pairs) = (unsafe { ffi::slice(pairArray.cast_const(), pairCount) }) else {
        return BAD;
    };
    let Some(list) = state().list(handle_of(attrList)).cloned() else {
        return BAD;
    };
    let bytes_of = |p: &NvSciBufAttrKeyValuePair| {
        if p.value.is_null() {
            None
        } else {
            // SAFETY: the caller guarantees `len` readable bytes at a non-NULL `value`.
            Some(unsafe { std::slice::from_raw_parts(p.value.cast::<u8>(), p.len) })
        }
    };
    let mut data = list.lock();
    if data.recon.is_some() || !data.writable || data.slots.len() != 1 {
        return BAD;
    }
    let slot = &mut data.slots[0];
    // The type set: already in the list, or given in this call.
    let mut types = slot.types();
    for p in pairs
        .iter()
        .filter(|p| p.key == NvSciBufGeneralAttrKey_Types)
    {
        if let Some(b) = bytes_of(p) {
            let mut s = Slot::default();
            s.vals[attr::K_TYPES] = Some(Value::from_bytes(b));
            types |= s.types();
        }
    }
    let mut vals: Vec<(usize, Value)> = Vec::with_capacity(pairs.len());
    for p in pairs {
        let (k, v) = match attr::validate_set(p.key, bytes_of(p), types) {
            Ok(x) => x,
            Err(e) => return e,
        };
        if vals.iter().any(|(kk, _)| *kk == k) || slot.locked & (1 << k) != 0 {
            return BAD;
        }
        vals.push((k, v));
    }
    for (k, v) in vals {
        slot.vals[k] = Some(v);
        slot.locked |= 1 << k;
    }
    NvSciError_Success
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
    if pairCount == 0 {
        return BAD;
    }
    // SAFETY: the caller guarantees `pairCount` writable pairs (NULL is refused).
    let Some(pairs) = (unsafe { ffi::slice_mut(pairArray, pairCount) }) else {
        return BAD;
    };
    let Some(list) = state().list(handle_of(attrList)).cloned() else {
        return BAD;
    };
    if pairs.iter().any(|p| key_index(p.key).is_none()) {
        return BAD;
    }
    let data = list.lock();
    let slot = &data.slots[0];
    for p in pairs {
        match key_index(p.key).and_then(|k| slot.get(k)) {
            Some(v) => {
                p.value = v.as_ptr().cast::<c_void>();
                p.len = v.len();
            }
            None => {
                p.value = std::ptr::null();
                p.len = 0;
            }
        }
    }
    NvSciError_Success
}

/// Collects the input slots (validated) and their module.
///
/// # Safety
/// `inputArray` is NULL or points to `inputCount` handles.
unsafe fn gather_inputs(
    inputArray: *const NvSciBufAttrList,
    inputCount: usize,
) -> Result<(u64, Vec<Slot>), NvSciError> {
    if inputCount == 0 {
        return Err(BAD);
    }
    // SAFETY: the caller guarantees `inputCount` readable handles (NULL is refused).
    let handles = unsafe { ffi::slice(inputArray, inputCount) }.ok_or(BAD)?;
    let mut lists = Vec::with_capacity(handles.len());
    {
        let st = state();
        for (i, &h) in handles.iter().enumerate() {
            if handles[..i].contains(&h) {
                return Err(BAD);
            }
            lists.push(st.list(handle_of(h)).cloned().ok_or(BAD)?);
        }
    }
    let module = lists[0].module;
    let mut slots = Vec::new();
    for l in &lists {
        if l.module != module {
            return Err(BAD);
        }
        let d = l.lock();
        if d.recon.is_some() {
            return Err(BAD);
        }
        slots.extend(d.slots.iter().cloned());
    }
    Ok((module, slots))
}

/// Reconciles; on a conflict registers the conflict list and returns its handle.
fn reconcile_slots(module: u64, slots: &[Slot]) -> Result<(ListData, BufInfo), (NvSciError, u64)> {
    match attr::reconcile(slots) {
        Ok((slot, info)) => Ok((
            ListData {
                slots: vec![slot],
                writable: false,
                recon: Some(info),
            },
            info,
        )),
        Err(ReconError::NotSupported) => Err((NvSciError_NotSupported, 0)),
        Err(ReconError::Conflict(c)) => {
            let data = ListData {
                slots: c,
                writable: false,
                recon: None,
            };
            let h = add_list(&mut state(), module, data, None);
            Err((NvSciError_ReconciliationFailed, h))
        }
    }
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
    if newReconciledAttrList.is_null()
        || newConflictList.is_null()
        || !newReconciledAttrList.is_aligned()
        || !newConflictList.is_aligned()
    {
        return BAD;
    }
    // SAFETY: forwarded caller guarantee.
    let (module, slots) = match unsafe { gather_inputs(inputArray, inputCount) } {
        Ok(x) => x,
        Err(e) => return e,
    };
    match reconcile_slots(module, &slots) {
        Ok((data, _)) => {
            let h = add_list(&mut state(), module, data, None);
            // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
            unsafe { ffi::write(newReconciledAttrList, ptr_of(h)) };
            NvSciError_Success
        }
        Err((e, conflict)) => {
            if conflict != 0 {
                // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
                unsafe { ffi::write(newConflictList, ptr_of(conflict)) };
            }
            e
        }
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
    if bufObj.is_null()
        || newConflictList.is_null()
        || !bufObj.is_aligned()
        || !newConflictList.is_aligned()
    {
        return BAD;
    }
    // SAFETY: forwarded caller guarantee.
    let (module, slots) = match unsafe { gather_inputs(attrListArray, attrListCount) } {
        Ok(x) => x,
        Err(e) => return e,
    };
    match reconcile_slots(module, &slots) {
        Ok((data, info)) => match alloc_obj(module, &data, info) {
            Ok(h) => {
                // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
                unsafe { ffi::write(bufObj, ptr_of(h)) };
                NvSciError_Success
            }
            Err(e) => e,
        },
        Err((e, conflict)) => {
            if conflict != 0 {
                // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
                unsafe { ffi::write(newConflictList, ptr_of(conflict)) };
            }
            e
        }
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
    if bufObj.is_null() || !bufObj.is_aligned() {
        return BAD;
    }
    let Some(list) = state().list(handle_of(reconciledAttrList)).cloned() else {
        return BAD;
    };
    let data = list.lock().clone();
    let Some(info) = data.recon else {
        return BAD;
    };
    match alloc_obj(list.module, &data, info) {
        Ok(h) => {
            // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
            unsafe { ffi::write(bufObj, ptr_of(h)) };
            NvSciError_Success
        }
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
    if unsafe { ffi::write(bufAttrList, ptr_of(h)) } {
        NvSciError_Success
    } else {
        BAD
    }
}

/// The buffer and permission of a handle.
fn lookup(bufObj: NvSciBufObj) -> Option<(ObjEntry, Arc<BufCore>)> {
    let st = state();
    let (e, c) = st.obj(handle_of(bufObj))?;
    Some((e, c.core.clone()))
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
    let Some((e, core)) = lookup(bufObj) else {
        return BAD;
    };
    if !core.need_cpu || e.perm != NvSciBufAccessPerm_ReadWrite.0 {
        return BAD;
    }
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    if unsafe { ffi::write(ptr, core.ptr().cast::<c_void>()) } {
        NvSciError_Success
    } else {
        BAD
    }
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
    let Some((_, core)) = lookup(bufObj) else {
        return BAD;
    };
    if !core.need_cpu {
        return BAD;
    }
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    if unsafe { ffi::write(ptr, core.ptr().cast_const().cast::<c_void>()) } {
        NvSciError_Success
    } else {
        BAD
    }
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
    if out.is_null() || !out.is_aligned() {
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
        && st.cores.get(&e.core).is_some_and(|c| c.list_ro.is_none())
    {
        let rw = st.cores[&e.core].list_rw;
        let Some(list) = st.list(rw).cloned() else {
            return BAD;
        };
        let data = object_list(&list.lock(), new_perm);
        let ro = add_list(&mut st, list.module, data, Some(e.core));
        if let Some(c) = st.cores.get_mut(&e.core) {
            c.list_ro = Some(ro);
        }
    }
    let Some(c) = st.cores.get_mut(&e.core) else {
        return BAD;
    };
    c.refs += 1;
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
    unsafe { ffi::write(out, ptr_of(h)) };
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
    if ptr.is_null() || size.is_null() || !ptr.is_aligned() || !size.is_aligned() {
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
