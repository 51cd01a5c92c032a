//! The NvSciSync C API (`nvscisync.h`), as declared in `nvsci-sys`.
//!
//! Every function validates its handles against the registry first: unknown, freed or
//! NULL handles give `NvSciError_BadParameter`; the `void` functions ignore them.

use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use nvsci_sys::{
    NvSciError, NvSciError_BadParameter, NvSciError_ClearedFence, NvSciError_Overflow,
    NvSciError_ResourceError, NvSciError_Success, NvSciError_Timeout, NvSciError_UnsupportedConfig,
    NvSciSyncAccessPerm, NvSciSyncAttrKey, NvSciSyncAttrKeyValuePair, NvSciSyncAttrList,
    NvSciSyncCpuWaitContext, NvSciSyncFence, NvSciSyncMajorVersion, NvSciSyncMinorVersion,
    NvSciSyncModule, NvSciSyncObj, NvSciSyncTaskStatus, NvSciSyncTaskStatus_Invalid,
    NvSciSyncTaskStatus_Success, NvSciSyncWaitMode, NvSciSyncWaitMode_Blocking,
    NvSciSyncWaitMode_BusyNoYield, NvSciSyncWaitMode_BusyWithYield, NvSciSyncWaitMode_Default,
};
use sil_common::clock;
use sil_common::list_api::ReconError;

use crate::attr::{self, KEY_COUNT, ListData, NUM_TIMESTAMP_SLOTS, Prim, ReconInfo, Slot, Value};
use crate::fence::{self, Decoded, FenceData, NO_SLOT};
use crate::ffi::{self, STATUS};
use crate::obj::{ObjCore, RING, Strategy, new_syncpoint_id};
use crate::registry::{
    API, State, TAG_CONTEXT, TAG_OBJ, WaitContext, handle_of, next_id, ptr_of, state,
};

const BAD: NvSciError = NvSciError_BadParameter;

/// Allocates an object from reconciled contents; returns the new object handle.
/// `ResourceError` once the process has used every sync-point id.
fn alloc_obj(module: u64, mut own: ListData, info: ReconInfo) -> Result<u64, NvSciError> {
    let prim_id = match info.prim {
        Prim::Semaphore64 => 0,
        Prim::Syncpoint => new_syncpoint_id().ok_or(NvSciError_ResourceError)?,
    };
    let mut st = state();
    let id = next_id();
    own.writable = false;
    own.retired.clear();
    let list_handle = API.add_list(&mut st, module, own, Some(id));
    let core = Arc::new(ObjCore::new(id, module, info, prim_id, list_handle));
    // Only a semaphore is memory that others may write (`NvSciSyncSilObjGetCounter`).
    if info.prim == Prim::Semaphore64 {
        st.counters.insert(core.counter_addr(), id);
    }
    st.cores.insert(id, core);
    let h = TAG_OBJ | next_id();
    st.objects.insert(h, id);
    Ok(h)
}

// ---------------------------------------------------------------------------------------
// Module and wait context
// ---------------------------------------------------------------------------------------

/// Opens a new module.
///
/// # Safety
/// `newModule` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncModuleOpen(newModule: *mut NvSciSyncModule) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { API.module_open(newModule) }
}

/// Closes a module. Lists, contexts and objects of the module stay usable until freed;
/// the module handle itself is invalid from now on. Unknown handles are ignored.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncModuleClose(module: NvSciSyncModule) {
    API.module_close(module);
}

/// Allocates a CPU wait context.
///
/// # Safety
/// `newContext` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncCpuWaitContextAlloc(
    module: NvSciSyncModule,
    newContext: *mut NvSciSyncCpuWaitContext,
) -> NvSciError {
    let m = handle_of(module);
    if !ffi::usable(newContext) {
        return BAD;
    }
    let mut st = state();
    if !st.handles.modules.contains_key(&m) {
        return BAD;
    }
    let h = TAG_CONTEXT | next_id();
    st.contexts.insert(
        h,
        Arc::new(WaitContext {
            module: m,
            in_use: AtomicBool::new(false),
        }),
    );
    drop(st);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(newContext, ptr_of(h)) }
}

/// Frees a CPU wait context (unknown handles are ignored).
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncCpuWaitContextFree(context: NvSciSyncCpuWaitContext) {
    state().contexts.remove(&handle_of(context));
}

// ---------------------------------------------------------------------------------------
// Attribute lists
// ---------------------------------------------------------------------------------------

/// Creates an empty, writable, single-slot unreconciled list.
///
/// # Safety
/// `attrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListCreate(
    module: NvSciSyncModule,
    attrList: *mut NvSciSyncAttrList,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { API.list_create(module, attrList) }
}

/// Frees a list. Unknown handles and the lists of objects (`NvSciSyncObjGetAttrList`)
/// are ignored.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListFree(attrList: NvSciSyncAttrList) {
    API.list_free(attrList);
}

/// Sets keys in slot 0 of a writable unreconciled list.
///
/// `BadParameter` for: a NULL/unknown list, a reconciled or non-writable list, NULL
/// `pairArray`, `pairCount` 0, a key outside (LowerBound, UpperBound), an output-only key,
/// the late-peer keys (not supported by the SIL), a NULL value, a wrong length or an
/// invalid value, a key twice in `pairArray`, a key already set in the list. Nothing is set
/// unless every pair is valid.
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` pairs whose values are readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListSetAttrs(
    attrList: NvSciSyncAttrList,
    pairArray: *const NvSciSyncAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    let validate = |_: &Slot, pairs: &[NvSciSyncAttrKeyValuePair]| {
        let mut vals: Vec<(usize, Value)> = Vec::with_capacity(pairs.len());
        for p in pairs {
            // SAFETY: the caller guarantees `len` readable bytes at a non-NULL `value`.
            let bytes = unsafe { ffi::bytes(p.value, p.len) };
            vals.push((
                p.attrKey.0 as usize,
                attr::validate_set(p.attrKey.0, bytes)?,
            ));
        }
        Ok(vals)
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { API.set_attrs(attrList, pairArray, pairCount, validate) }
}

/// Reads keys from slot `slot_index` of a list.
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` writable pairs.
unsafe fn slot_get_attrs(
    attrList: NvSciSyncAttrList,
    slot_index: usize,
    pairArray: *mut NvSciSyncAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    let index = |p: &NvSciSyncAttrKeyValuePair| {
        attr::key_in_range(p.attrKey.0).then_some(p.attrKey.0 as usize)
    };
    let fill = |p: &mut NvSciSyncAttrKeyValuePair, (value, len)| {
        p.value = value;
        p.len = len;
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { API.get_attrs(attrList, slot_index, pairArray, pairCount, index, fill) }
}

/// Reads keys from slot 0 (unset keys: NULL value, length 0). The pointers stay valid
/// while the list lives.
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` writable pairs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListGetAttrs(
    attrList: NvSciSyncAttrList,
    pairArray: *mut NvSciSyncAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { slot_get_attrs(attrList, 0, pairArray, pairCount) }
}

/// Reads keys from one slot of a (multi-slot) list (unset keys: NULL value, length 0).
/// `BadParameter` (nothing written) for a slot index out of range, an unknown list, a
/// NULL array, count 0 or a key outside (LowerBound, UpperBound).
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` writable pairs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListSlotGetAttrs(
    attrList: NvSciSyncAttrList,
    slotIndex: usize,
    pairArray: *mut NvSciSyncAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { slot_get_attrs(attrList, slotIndex, pairArray, pairCount) }
}

/// Number of slots of a list (0 for NULL, as the header says, and for unknown handles,
/// where the real library panics).
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListGetSlotCount(attrList: NvSciSyncAttrList) -> usize {
    API.list(attrList).map_or(0, |l| l.lock().slots.len())
}

/// Reads one key from slot 0 (unset: `*value` NULL, `*len` 0).
///
/// # Safety
/// `value` and `len` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListGetAttr(
    attrList: NvSciSyncAttrList,
    key: NvSciSyncAttrKey,
    value: *mut *const c_void,
    len: *mut usize,
) -> NvSciError {
    if !ffi::usable(value) || !ffi::usable(len) {
        return BAD;
    }
    let mut pair = [NvSciSyncAttrKeyValuePair {
        attrKey: key,
        value: std::ptr::null(),
        len: 0,
    }];
    // SAFETY: `pair` is a local array of one pair.
    let rc = unsafe { slot_get_attrs(attrList, 0, pair.as_mut_ptr(), 1) };
    if rc != NvSciError_Success {
        return rc;
    }
    // SAFETY: both checked non-NULL and aligned; the caller passes writable pointers.
    unsafe {
        ffi::write(value, pair[0].value);
        ffi::write(len, pair[0].len);
    }
    NvSciError_Success
}

/// The reconciliation of the reconcile calls (a conflict gives a conflict list).
fn reconcile(slots: &[Slot]) -> Result<(Slot, ReconInfo), ReconError<KEY_COUNT, NvSciError>> {
    attr::reconcile(slots).map_err(ReconError::Conflict)
}

/// Reconciles unreconciled lists (see `sil/README.md` for the rules and the conflict
/// list).
///
/// # Safety
/// `inputArray` is NULL or points to `inputCount` handles; the out pointers are NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListReconcile(
    inputArray: *const NvSciSyncAttrList,
    inputCount: usize,
    newReconciledList: *mut NvSciSyncAttrList,
    newConflictList: *mut NvSciSyncAttrList,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    let rc = unsafe {
        API.reconcile(
            inputArray,
            inputCount,
            newReconciledList,
            newConflictList,
            reconcile,
        )
    };
    // SAFETY: forwarded caller guarantee (NULL or writable).
    unsafe { no_conflict_on_success(rc, newConflictList) }
}

/// After a successful reconcile call: `*newConflictList` = NULL (the header populates it
/// only on failure; NULL is what `NvSciSyncAttrListFree` ignores, so a caller that frees it
/// unconditionally frees nothing). Returns `rc`.
///
/// # Safety
/// `newConflictList` is NULL or writable.
unsafe fn no_conflict_on_success(
    rc: NvSciError,
    newConflictList: *mut NvSciSyncAttrList,
) -> NvSciError {
    if rc == NvSciError_Success {
        // SAFETY: forwarded caller guarantee (the reconcile call checked it non-NULL and
        // aligned before succeeding).
        unsafe { ffi::write(newConflictList, std::ptr::null_mut()) };
    }
    rc
}

/// Tells whether a list is reconciled.
///
/// # Safety
/// `isReconciled` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListIsReconciled(
    attrList: NvSciSyncAttrList,
    isReconciled: *mut bool,
) -> NvSciError {
    let Some(list) = API.list(attrList) else {
        return BAD;
    };
    let r = list.lock().recon.is_some();
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(isReconciled, r) }
}

/// Appends unreconciled lists into a new, non-writable, multi-slot unreconciled list.
///
/// # Safety
/// `inputUnreconciledAttrListArray` is NULL or points to `inputUnreconciledAttrListCount`
/// handles; `newUnreconciledAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListAppendUnreconciled(
    inputUnreconciledAttrListArray: *const NvSciSyncAttrList,
    inputUnreconciledAttrListCount: usize,
    newUnreconciledAttrList: *mut NvSciSyncAttrList,
) -> NvSciError {
    if !ffi::usable(newUnreconciledAttrList) {
        return BAD;
    }
    // SAFETY: forwarded caller guarantee.
    let (module, slots) = match unsafe {
        API.gather(
            inputUnreconciledAttrListArray,
            inputUnreconciledAttrListCount,
        )
    } {
        Ok(x) => x,
        Err(e) => return e,
    };
    let h = API.register_list(module, ListData::read_only(slots, None));
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(newUnreconciledAttrList, ptr_of(h)) }
}

/// Clones a list. The clone of a single-slot unreconciled list is writable again, every
/// key included.
///
/// # Safety
/// `newAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListClone(
    origAttrList: NvSciSyncAttrList,
    newAttrList: *mut NvSciSyncAttrList,
) -> NvSciError {
    if !ffi::usable(newAttrList) {
        return BAD;
    }
    let Some(list) = API.list(origAttrList) else {
        return BAD;
    };
    let mut data = list.lock().clone();
    data.retired.clear();
    if data.recon.is_none() && data.slots.len() == 1 {
        data.writable = true;
        data.slots[0].locked = 0;
    }
    let h = API.register_list(list.module, data);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(newAttrList, ptr_of(h)) }
}

/// Whether a reconciled list satisfies every slot of the given unreconciled lists (the
/// per-key rules are in `attr::satisfies` and `sil/README.md`).
///
/// `BadParameter` (nothing written) for: a NULL, unknown or unreconciled
/// `reconciledAttrList`; a NULL `inputUnreconciledAttrListArray`, count 0, a list twice, an
/// unknown or reconciled input; inputs and reconciled list of different modules; a NULL
/// or misaligned `isReconciledListValid`. Satisfied: `*isReconciledListValid` = true,
/// `Success`. Not satisfied: nvscisync.h lists it under `BadParameter`; the SIL returns
/// that and writes `*isReconciledListValid` = false.
///
/// # Safety
/// `inputUnreconciledAttrListArray` is NULL or points to `inputUnreconciledAttrListCount`
/// handles; `isReconciledListValid` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListValidateReconciled(
    reconciledAttrList: NvSciSyncAttrList,
    inputUnreconciledAttrListArray: *const NvSciSyncAttrList,
    inputUnreconciledAttrListCount: usize,
    isReconciledListValid: *mut bool,
) -> NvSciError {
    if !ffi::usable(isReconciledListValid) {
        return BAD;
    }
    let Some(rec) = API.list(reconciledAttrList) else {
        return BAD;
    };
    let (rec_slot, info) = {
        let d = rec.lock();
        match &d.recon {
            Some(info) => (d.slots[0].clone(), *info),
            None => return BAD,
        }
    };
    // SAFETY: forwarded caller guarantee.
    let (module, inputs) = match unsafe {
        API.gather(
            inputUnreconciledAttrListArray,
            inputUnreconciledAttrListCount,
        )
    } {
        Ok(x) => x,
        Err(e) => return e,
    };
    if module != rec.module {
        return BAD;
    }
    let valid = attr::satisfies(&rec_slot, &info, &inputs);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { ffi::write(isReconciledListValid, valid) };
    if valid { NvSciError_Success } else { BAD }
}

/// Dumps a list into a binary blob (layout in `attr::dump` and `sil/README.md`). The blob
/// belongs to the list: it stays valid, unchanged, until the list is freed (the list of an
/// object: until the object is), and the caller must not free it (the header names no
/// call that frees it). Dumping the same contents again returns the same blob.
/// `BadParameter` (nothing written) for an unknown list or a NULL or misaligned `buf` or
/// `len`.
///
/// # Safety
/// `buf` and `len` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListDebugDump(
    attrList: NvSciSyncAttrList,
    buf: *mut *mut c_void,
    len: *mut usize,
) -> NvSciError {
    if !ffi::usable(buf) || !ffi::usable(len) {
        return BAD;
    }
    let Some(list) = API.list(attrList) else {
        return BAD;
    };
    let mut data = list.lock();
    let blob = attr::dump(&data);
    let kept = match data.retired.iter().find(|v| v.bytes() == blob.as_slice()) {
        Some(v) => v,
        None => {
            data.retired.push(Value::from_bytes(&blob));
            let Some(v) = data.retired.last() else {
                return BAD;
            };
            v
        }
    };
    let (p, n) = (kept.as_ptr().cast_mut().cast::<c_void>(), kept.len());
    drop(data);
    // SAFETY: both checked non-NULL and aligned; the caller passes writable pointers.
    unsafe {
        ffi::write(buf, p);
        ffi::write(len, n);
    }
    NvSciError_Success
}

/// nvscisync.h (outside safety builds): a no-op that returns `Success`, every argument
/// unused. The SIL does exactly that.
///
/// # Safety
/// None (the arguments are not read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListValidateReconciledAgainstAttrs(
    reconciledAttrList: NvSciSyncAttrList,
    pairArray: *const NvSciSyncAttrKeyValuePair,
    pairCount: usize,
    permissions: NvSciSyncAccessPerm,
) -> NvSciError {
    let _ = (reconciledAttrList, pairArray, pairCount, permissions);
    NvSciError_Success
}

/// `*isCompatible` = whether a caller built against `majorVer.minorVer` can use this
/// library (NvSciSync 2.8): same major version, minor version not newer. The SIL NvSciSync
/// depends on no other NvSci library, so there is nothing else to check. `BadParameter`
/// for a NULL or misaligned `isCompatible` (nothing written).
///
/// # Safety
/// `isCompatible` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncCheckVersionCompatibility(
    majorVer: u32,
    minorVer: u32,
    isCompatible: *mut bool,
) -> NvSciError {
    let ok = majorVer == NvSciSyncMajorVersion && minorVer <= NvSciSyncMinorVersion;
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(isCompatible, ok) }
}

// ---------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------

/// Allocates an object from a reconciled list (unreconciled: `BadParameter`).
///
/// # Safety
/// `syncObj` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncObjAlloc(
    reconciledList: NvSciSyncAttrList,
    syncObj: *mut NvSciSyncObj,
) -> NvSciError {
    let alloc = alloc_obj;
    // SAFETY: forwarded caller guarantee.
    unsafe { API.obj_alloc(reconciledList, syncObj, alloc) }
}

/// Reconciles and allocates in one call.
///
/// # Safety
/// As [`NvSciSyncAttrListReconcile`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncAttrListReconcileAndObjAlloc(
    attrListArray: *const NvSciSyncAttrList,
    attrListCount: usize,
    syncObj: *mut NvSciSyncObj,
    newConflictList: *mut NvSciSyncAttrList,
) -> NvSciError {
    let alloc = alloc_obj;
    // SAFETY: forwarded caller guarantee.
    let rc = unsafe {
        API.reconcile_into(
            attrListArray,
            attrListCount,
            syncObj,
            newConflictList,
            reconcile,
            alloc,
        )
    };
    // SAFETY: forwarded caller guarantee (NULL or writable).
    unsafe { no_conflict_on_success(rc, newConflictList) }
}

/// Frees an object handle; the object goes with its last handle or fence. Unknown and
/// already freed handles are ignored.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncObjFree(syncObj: NvSciSyncObj) {
    let mut st = state();
    if let Some(id) = st.objects.remove(&handle_of(syncObj)) {
        st.release(id);
    }
}

/// nvscisync.h (outside safety builds): a no-op that returns `Success`, `syncObj` unused.
/// The SIL does exactly that.
///
/// # Safety
/// None (the argument is not read).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncObjValidate(syncObj: NvSciSyncObj) -> NvSciError {
    let _ = syncObj;
    NvSciError_Success
}

/// A new handle on the same object (freed separately).
///
/// # Safety
/// `dupObj` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncObjDup(
    syncObj: NvSciSyncObj,
    dupObj: *mut NvSciSyncObj,
) -> NvSciError {
    if !ffi::usable(dupObj) {
        return BAD;
    }
    let mut st = state();
    let Some(&id) = st.objects.get(&handle_of(syncObj)) else {
        return BAD;
    };
    if !st.add_ref(id) {
        return BAD;
    }
    let h = TAG_OBJ | next_id();
    st.objects.insert(h, id);
    drop(st);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(dupObj, ptr_of(h)) }
}

/// The object's reconciled list (lives as long as the object; `NvSciSyncAttrListFree`
/// ignores it).
///
/// # Safety
/// `syncAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncObjGetAttrList(
    syncObj: NvSciSyncObj,
    syncAttrList: *mut NvSciSyncAttrList,
) -> NvSciError {
    let Some(h) = state().obj(handle_of(syncObj)).map(|c| c.list_handle) else {
        return BAD;
    };
    // SAFETY: the caller passes NULL or a writable pointer (NULL is refused).
    unsafe { STATUS.write(syncAttrList, ptr_of(h)) }
}

/// Reads the fence at `p` (NULL or misaligned: `None`).
///
/// # Safety
/// `p` is NULL or readable.
unsafe fn read_fence(p: *const NvSciSyncFence) -> Option<Decoded> {
    // SAFETY: forwarded caller guarantee.
    unsafe { ffi::read(p) }.map(|f| fence::decode(&f))
}

/// Drops the reference of a decoded fence (under the registry lock).
fn drop_fence_ref(st: &mut State, d: Option<Decoded>) {
    if let Some(Decoded::Valid(f)) = d {
        st.release(f.obj_id);
    }
}

/// The fence contents for `value` on `core`.
fn fence_for(core: &ObjCore, value: u64) -> NvSciSyncFence {
    fence::encode(FenceData {
        obj_id: core.id,
        prim_id: core.prim_id,
        value,
        ts_slot: if core.info.timestamps {
            (value % RING as u64) as u32
        } else {
            NO_SLOT
        },
        task_slot: 0,
    })
}

/// CPU signaler only: the next point on the timeline, as a fence (the destination is
/// cleared first). `BadParameter` unless the signaler's list had `NeedCpuAccess`.
///
/// # Safety
/// `syncFence` is NULL or a readable and writable fence.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncObjGenerateFence(
    syncObj: NvSciSyncObj,
    syncFence: *mut NvSciSyncFence,
) -> NvSciError {
    let check = |core: &ObjCore| {
        if core.info.cpu_signaler {
            Ok(())
        } else {
            Err(BAD)
        }
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { set_fence(syncObj, syncFence, check, ObjCore::reserve) }
}

/// Points the fence at `syncFence` at the object of `syncObj`, once `check` accepts the
/// object: the object gains a reference, the fence's old reference is dropped, and the
/// fence value is `value(object)`.
///
/// # Safety
/// `syncFence` is NULL or a readable and writable fence.
pub(crate) unsafe fn set_fence(
    syncObj: NvSciSyncObj,
    syncFence: *mut NvSciSyncFence,
    check: impl FnOnce(&ObjCore) -> Result<(), NvSciError>,
    value: impl FnOnce(&ObjCore) -> u64,
) -> NvSciError {
    // SAFETY: the caller passes NULL or a readable fence.
    let Some(old) = (unsafe { read_fence(syncFence) }) else {
        return BAD;
    };
    if old == Decoded::Invalid {
        return BAD;
    }
    let mut st = state();
    let Some(core) = st.obj(handle_of(syncObj)).cloned() else {
        return BAD;
    };
    if let Err(e) = check(&core) {
        return e;
    }
    st.add_ref(core.id);
    drop_fence_ref(&mut st, Some(old));
    drop(st);
    let f = fence_for(&core, value(&core));
    // SAFETY: checked readable above (non-NULL, aligned); the caller passes a writable fence.
    unsafe { ffi::write(syncFence, f) };
    NvSciError_Success
}

/// CPU signaler only: adds 1 to the counter and records the SIL clock as the timestamp
/// of the new value. `BadParameter` unless the signaler's list had `NeedCpuAccess`.
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncObjSignal(syncObj: NvSciSyncObj) -> NvSciError {
    let Some(core) = state().obj(handle_of(syncObj)).cloned() else {
        return BAD;
    };
    if !core.info.cpu_signaler {
        return BAD;
    }
    core.signal(clock::now_ns());
    NvSciError_Success
}

// ---------------------------------------------------------------------------------------
// Fences
// ---------------------------------------------------------------------------------------

/// Resets a context's in-use flag when a wait ends.
struct InUse<'a>(&'a AtomicBool);

impl Drop for InUse<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The common CPU fence wait.
///
/// # Safety
/// `syncFence` is NULL or readable.
unsafe fn fence_wait(
    syncFence: *const NvSciSyncFence,
    context: NvSciSyncCpuWaitContext,
    timeout_us: i64,
    mode: NvSciSyncWaitMode,
) -> NvSciError {
    if syncFence.is_null() || context.is_null() {
        return BAD;
    }
    let timeout = match ffi::timeout_ns(timeout_us) {
        Ok(t) => t,
        Err(e) => return e,
    };
    if !(NvSciSyncWaitMode_Default.0..=NvSciSyncWaitMode_Blocking.0).contains(&mode.0) {
        return BAD;
    }
    // SAFETY: the caller passes NULL or a readable fence.
    let Some(decoded) = (unsafe { read_fence(syncFence) }) else {
        return BAD;
    };
    let (ctx, core, f) = {
        let st = state();
        let Some(ctx) = st.contexts.get(&handle_of(context)).cloned() else {
            return BAD;
        };
        let f = match decoded {
            Decoded::Cleared => return NvSciError_Success,
            Decoded::Invalid => return BAD,
            Decoded::Valid(f) => f,
        };
        let Some(core) = st.core(f.obj_id).cloned() else {
            return BAD;
        };
        (ctx, core, f)
    };
    if core.module != ctx.module || !core.info.cpu_waiter {
        return BAD;
    }
    if f.prim_id != core.prim_id || f.value > core.mask() {
        return NvSciError_Overflow;
    }
    let Some(strategy) = wait_strategy(core.prim(), mode) else {
        return NvSciError_UnsupportedConfig;
    };
    if ctx
        .in_use
        .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        return BAD;
    }
    let _guard = InUse(&ctx.in_use);
    match core.wait(f.value, timeout, strategy) {
        Some(_) => NvSciError_Success,
        None => NvSciError_Timeout,
    }
}

/// How a CPU wait in `mode` passes the time on `prim`, `None` when the primitive does
/// not support the mode (nvscisync.h `NvSciSyncFenceWaitWithMode`: sync points support
/// only Blocking, which is also their default; semaphores BusyWithYield, their default,
/// and BusyNoYield).
fn wait_strategy(prim: Prim, mode: NvSciSyncWaitMode) -> Option<Strategy> {
    match (prim, mode) {
        (Prim::Syncpoint, NvSciSyncWaitMode_Default | NvSciSyncWaitMode_Blocking) => {
            Some(Strategy::Sleep)
        }
        (Prim::Semaphore64, NvSciSyncWaitMode_Default | NvSciSyncWaitMode_BusyWithYield) => {
            Some(Strategy::Sleep)
        }
        (Prim::Semaphore64, NvSciSyncWaitMode_BusyNoYield) => Some(Strategy::Spin),
        _ => None,
    }
}

/// Waits on a fence from the CPU (timeout in µs, −1 forever).
///
/// `Success` for a cleared or expired fence; `Timeout` on expiry; `BadParameter` for NULL
/// arguments, an invalid timeout, fence or context, a context of another module, an object
/// without a CPU waiter, or a context that is already waiting in another thread.
///
/// # Safety
/// `syncFence` is NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceWait(
    syncFence: *const NvSciSyncFence,
    context: NvSciSyncCpuWaitContext,
    timeoutUs: i64,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { fence_wait(syncFence, context, timeoutUs, NvSciSyncWaitMode_Default) }
}

/// [`NvSciSyncFenceWait`] with a strategy. On a semaphore, Default and BusyWithYield
/// sleep until a signal or counter write wakes them (no polling), or, on an object marked
/// `NvSciSyncSilObjSetDeviceWritten`, spin with `sched_yield` between reads; BusyNoYield
/// spins; Blocking is `UnsupportedConfig` (semaphores do not support it). On a sync point,
/// Default and Blocking sleep until signalled, the busy modes are `UnsupportedConfig`.
/// Other values: `BadParameter`.
///
/// # Safety
/// `syncFence` is NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceWaitWithMode(
    syncFence: *const NvSciSyncFence,
    context: NvSciSyncCpuWaitContext,
    timeoutUs: i64,
    waitMode: NvSciSyncWaitMode,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { fence_wait(syncFence, context, timeoutUs, waitMode) }
}

/// Drops the fence's reference and zeroes it (NULL is ignored; an invalid fence is just
/// zeroed).
///
/// # Safety
/// `syncFence` is NULL or a readable and writable fence.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceClear(syncFence: *mut NvSciSyncFence) {
    // SAFETY: the caller passes NULL or a readable fence.
    let Some(old) = (unsafe { read_fence(syncFence) }) else {
        return;
    };
    if old == Decoded::Cleared {
        return;
    }
    drop_fence_ref(&mut state(), Some(old));
    // SAFETY: checked readable above (non-NULL, aligned); the caller passes a writable fence.
    unsafe { ffi::write(syncFence, NvSciSyncFence { payload: [0; 6] }) };
}

/// Duplicates a fence: `dst` is cleared first and then takes its own reference.
/// `BadParameter` for NULL arguments, `src == dst` or an invalid `src` or `dst` (nothing
/// written).
///
/// # Safety
/// `srcSyncFence` is NULL or readable; `dstSyncFence` is NULL or readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceDup(
    srcSyncFence: *const NvSciSyncFence,
    dstSyncFence: *mut NvSciSyncFence,
) -> NvSciError {
    if std::ptr::eq(srcSyncFence, dstSyncFence) {
        return BAD;
    }
    // SAFETY: the caller passes NULL or readable fences.
    let (Some(src), Some(dst)) = (unsafe { ffi::read(srcSyncFence) }, unsafe {
        read_fence(dstSyncFence)
    }) else {
        return BAD;
    };
    if dst == Decoded::Invalid {
        return BAD;
    }
    let mut st = state();
    match fence::decode(&src) {
        Decoded::Invalid => return BAD,
        Decoded::Cleared => {}
        Decoded::Valid(f) => {
            if !st.add_ref(f.obj_id) {
                return BAD;
            }
        }
    }
    drop_fence_ref(&mut st, Some(dst));
    drop(st);
    // SAFETY: checked readable above (non-NULL, aligned); the caller passes a writable fence.
    unsafe { ffi::write(dstSyncFence, src) };
    NvSciError_Success
}

/// The fence's (id, value); `ClearedFence` for a cleared fence.
///
/// # Safety
/// `syncFence` is NULL or readable; `id` and `value` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceExtractFence(
    syncFence: *const NvSciSyncFence,
    id: *mut u64,
    value: *mut u64,
) -> NvSciError {
    if !ffi::usable(id) || !ffi::usable(value) {
        return BAD;
    }
    // SAFETY: the caller passes NULL or a readable fence.
    let f = match unsafe { read_fence(syncFence) } {
        None | Some(Decoded::Invalid) => return BAD,
        Some(Decoded::Cleared) => return NvSciError_ClearedFence,
        Some(Decoded::Valid(f)) => f,
    };
    if state().core(f.obj_id).is_none() {
        return BAD;
    }
    // SAFETY: checked non-NULL and aligned; the caller passes writable pointers.
    unsafe {
        ffi::write(id, f.prim_id);
        ffi::write(value, f.value);
    }
    NvSciError_Success
}

/// Builds a fence for (id, value) on `syncObj` (the destination is cleared first). No
/// permission check (this is how waiters make deterministic fences).
///
/// `Overflow` (nvscisync.h: "id is invalid", "value is invalid") for an `id` other than
/// the object's primitive id (the sync-point id; 0 for the semaphore, whose object has
/// one primitive), and on a sync point for a value above `u32::MAX` or past the threshold
/// (a value the signaler has not promised: no wait-before-signal). A semaphore takes
/// every `u64` value.
///
/// # Safety
/// `syncFence` is NULL or a readable and writable fence.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceUpdateFence(
    syncObj: NvSciSyncObj,
    id: u64,
    value: u64,
    syncFence: *mut NvSciSyncFence,
) -> NvSciError {
    let check = |core: &ObjCore| {
        if id != core.prim_id || !core.promised(value) {
            Err(NvSciError_Overflow)
        } else {
            Ok(())
        }
    };
    // SAFETY: forwarded caller guarantee.
    unsafe { set_fence(syncObj, syncFence, check, |_| value) }
}

/// Resolves a non-cleared fence to its data and object.
///
/// # Safety
/// `p` is NULL or readable.
unsafe fn resolve(p: *const NvSciSyncFence) -> Result<(FenceData, Arc<ObjCore>), NvSciError> {
    // SAFETY: forwarded caller guarantee.
    let f = match unsafe { read_fence(p) } {
        None | Some(Decoded::Invalid) => return Err(BAD),
        Some(Decoded::Cleared) => return Err(NvSciError_ClearedFence),
        Some(Decoded::Valid(f)) => f,
    };
    let core = state().core(f.obj_id).cloned().ok_or(BAD)?;
    Ok((f, core))
}

/// [`resolve`] for a call that writes its result to `out` (checked first: NULL or
/// misaligned is `BadParameter`).
///
/// # Safety
/// `p` is NULL or readable.
unsafe fn resolve_for<T>(
    p: *const NvSciSyncFence,
    out: *mut T,
) -> Result<(FenceData, Arc<ObjCore>), NvSciError> {
    if !ffi::usable(out) {
        return Err(BAD);
    }
    // SAFETY: forwarded caller guarantee.
    unsafe { resolve(p) }
}

/// Timestamp (µs, SIL clock) of the signal that expired the fence. `ClearedFence` for a
/// cleared fence; `BadParameter` if timestamps are off for the object, the fence has not
/// expired, or its value is older than the last 512 signals.
///
/// # Safety
/// `syncFence` is NULL or readable; `timestampUS` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceGetTimestamp(
    syncFence: *const NvSciSyncFence,
    timestampUS: *mut u64,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    let (f, core) = match unsafe { resolve_for(syncFence, timestampUS) } {
        Ok(x) => x,
        Err(e) => return e,
    };
    if !core.info.timestamps || !core.reached(f.value) {
        return BAD;
    }
    let Some(ts) = core.timestamp_of(f.value) else {
        return BAD;
    };
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { ffi::write(timestampUS, ts / 1000) };
    NvSciError_Success
}

/// Task status of a fence. The SIL engines report no task status, so the SIL
/// synthesises one: `Success` with the signal timestamp (µs) once the fence expired,
/// `Invalid` (0xFFFF) with timestamp 0 before. `ClearedFence` for a cleared fence.
///
/// # Safety
/// `syncFence` is NULL or readable; `taskStatus` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceGetTaskStatus(
    syncFence: *const NvSciSyncFence,
    taskStatus: *mut NvSciSyncTaskStatus,
) -> NvSciError {
    if taskStatus.is_null() {
        return BAD;
    }
    // SAFETY: forwarded caller guarantee.
    let (f, core) = match unsafe { resolve(syncFence) } {
        Ok(x) => x,
        Err(e) => return e,
    };
    let (status, ts) = if core.reached(f.value) {
        (
            NvSciSyncTaskStatus_Success.0 as u16,
            core.timestamp_of(f.value).map_or(0, |t| t / 1000),
        )
    } else {
        (NvSciSyncTaskStatus_Invalid.0 as u16, 0)
    };
    let s = NvSciSyncTaskStatus {
        timestamp: ts,
        statusEngine: 0,
        subframe: 0,
        status,
    };
    // SAFETY: checked non-NULL; `NvSciSyncTaskStatus` is packed (align 1); the caller
    // passes a writable pointer.
    unsafe { taskStatus.write(s) };
    NvSciError_Success
}

/// Records a timestamp slot index in the fence (`0..512`). The SIL keeps timestamps by
/// fence value, so the slot only changes what `NvSciSyncFenceExtractTimestampSlot` reads.
/// `ClearedFence` for a cleared fence; `BadParameter` without timestamps or for a slot
/// out of range.
///
/// # Safety
/// `syncFence` is NULL or a readable and writable fence.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceAddTimestampSlot(
    syncFence: *mut NvSciSyncFence,
    timestampSlot: u32,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    let (mut f, core) = match unsafe { resolve(syncFence) } {
        Ok(x) => x,
        Err(e) => return e,
    };
    if !core.info.timestamps || timestampSlot >= NUM_TIMESTAMP_SLOTS {
        return BAD;
    }
    f.ts_slot = timestampSlot;
    // SAFETY: read above (non-NULL, aligned); the caller passes a writable fence.
    unsafe { ffi::write(syncFence, fence::encode(f)) };
    NvSciError_Success
}

/// The SIL objects have no task-status slots (`NumTaskStatusSlots` = 0): `BadParameter`
/// for every slot (`ClearedFence` for a cleared fence).
///
/// # Safety
/// `syncFence` is NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceAddTaskStatusSlot(
    syncFence: *mut NvSciSyncFence,
    taskStatusSlot: u32,
) -> NvSciError {
    let _ = taskStatusSlot;
    // SAFETY: forwarded caller guarantee.
    match unsafe { resolve(syncFence) } {
        Ok(_) => BAD,
        Err(e) => e,
    }
}

/// The fence's timestamp slot (by default the fence value modulo 512). `ClearedFence`
/// for a cleared fence; `BadParameter` without timestamps.
///
/// # Safety
/// `syncFence` is NULL or readable; `timeStampSlot` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciSyncFenceExtractTimestampSlot(
    syncFence: *mut NvSciSyncFence,
    timeStampSlot: *mut u32,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    let (f, core) = match unsafe { resolve_for(syncFence, timeStampSlot) } {
        Ok(x) => x,
        Err(e) => return e,
    };
    if !core.info.timestamps {
        return BAD;
    }
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { ffi::write(timeStampSlot, f.ts_slot) };
    NvSciError_Success
}
