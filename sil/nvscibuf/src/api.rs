//! The module, attribute-list and version calls of nvscibuf.h.
//!
//! Out-parameters: written only on `Success`, except the reconcile calls, which write both
//! out-parameters once their pointers pass the NULL check (the new handle, or NULL), and
//! `ValidateReconciled`, which writes `false` with `ReconciliationFailed`
//! (`sil/README.md`, "NvSciBuf", "Out-parameters").

use std::ffi::c_void;
use std::fmt::Write as _;

use nvsci_sys::*;

use crate::attr::{self, BufInfo, ReconError, type_set, type_set_of};
use crate::ffi::{self, STATUS};
use crate::keys::{self, Access};
use crate::list::{ListData, Slot, Value, conflict_slots};
use crate::registry::{
    self, TAG_MODULE, add_list, gather, handle_of, ptr_of, register_list, state,
};
use crate::validate;

const BAD: NvSciError = NvSciError_BadParameter;

unsafe extern "C" {
    /// The C library's allocator: the debug dump's buffer is released with `free`.
    fn malloc(size: usize) -> *mut c_void;
}

// ---------------------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------------------

/// Opens a new module. `BadParameter` for a NULL `newModule`.
///
/// # Safety
/// `newModule` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufModuleOpen(newModule: *mut NvSciBufModule) -> NvSciError {
    if !ffi::usable(newModule) {
        return BAD;
    }
    let h = registry::REGISTRY.new_handle(TAG_MODULE);
    state().modules.insert(h, ());
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(newModule, ptr_of(h)) }
}

/// Closes a module (unknown handles are ignored). Lists and objects stay usable until
/// freed (nvscibuf.h `ModuleClose`).
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufModuleClose(module: NvSciBufModule) {
    state().modules.remove(&handle_of(module));
}

/// Checks the version a client was built for: compatible when the major versions are
/// equal and `minorVer` is at most this library's (2.11). `BadParameter` for a NULL
/// `isCompatible`.
///
/// # Safety
/// `isCompatible` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufCheckVersionCompatibility(
    majorVer: u32,
    minorVer: u32,
    isCompatible: *mut bool,
) -> NvSciError {
    let ok = majorVer == NvSciBufMajorVersion && minorVer <= NvSciBufMinorVersion;
    // SAFETY: NULL is refused; the caller passes a writable pointer.
    unsafe { STATUS.write(isCompatible, ok) }
}

// ---------------------------------------------------------------------------------------
// Attribute lists
// ---------------------------------------------------------------------------------------

/// Creates an empty single-slot unreconciled list. `BadParameter` for a NULL out pointer
/// or an unknown module.
///
/// # Safety
/// `newAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListCreate(
    module: NvSciBufModule,
    newAttrList: *mut NvSciBufAttrList,
) -> NvSciError {
    if !ffi::usable(newAttrList) {
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
    unsafe { STATUS.write(newAttrList, ptr_of(h)) }
}

/// Frees a list (unknown handles and objects' lists are ignored).
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListFree(attrList: NvSciBufAttrList) {
    state().lists.free(handle_of(attrList));
}

/// Sets keys of slot 0 of a list made by `Create` or `Clone` of an unreconciled list.
/// `BadParameter` for: an unknown, reconciled, appended or conflict list, a NULL array,
/// count 0, an unknown or output-only key, a datatype key whose type is not in `Types`
/// (set before or in the same call), a NULL value, a wrong length or value, a key twice in
/// the array or already set. Nothing is set unless every pair is valid.
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` pairs whose values are readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListSetAttrs(
    attrList: NvSciBufAttrList,
    pairArray: *mut NvSciBufAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    // SAFETY: the caller guarantees `pairCount` readable pairs (NULL is refused).
    let (Some(pairs), Some(list)) = (
        unsafe { ffi::array(pairArray.cast_const(), pairCount) },
        registry::list(attrList),
    ) else {
        return BAD;
    };
    let mut data = list.lock();
    if !data.settable() {
        return BAD;
    }
    // SAFETY: the caller guarantees `len` readable bytes at a non-NULL `value`.
    let bytes_of = |p: &NvSciBufAttrKeyValuePair| unsafe { ffi::bytes(p.value, p.len) };
    let slot = &data.slots[0];
    let vals = match checked_pairs(pairs, type_set(slot), bytes_of) {
        Ok(v) => v,
        Err(e) => return e,
    };
    if vals.iter().any(|(k, _)| slot.is_locked(*k)) {
        return BAD;
    }
    data.set(vals);
    NvSciError_Success
}

/// Checks pairs as `SetAttrs` does (types: those of the list plus any `Types` pair of the
/// same array; no key twice, so at most one pair per key) and gives their (storage index,
/// value).
fn checked_pairs<'a>(
    pairs: &'a [NvSciBufAttrKeyValuePair],
    mut types: u32,
    bytes_of: impl Fn(&'a NvSciBufAttrKeyValuePair) -> Option<&'a [u8]>,
) -> Result<Vec<(usize, Value)>, NvSciError> {
    if pairs.len() > keys::NK {
        return Err(BAD);
    }
    for p in pairs
        .iter()
        .filter(|p| p.key == NvSciBufGeneralAttrKey_Types)
    {
        if let Some(b) = bytes_of(p) {
            types |= type_set_of(&Value::from_bytes(b));
        }
    }
    let vals = pairs
        .iter()
        .map(|p| attr::validate_set(p.key, bytes_of(p), types))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, (k, _)) in vals.iter().enumerate() {
        if vals[..i].iter().any(|(kk, _)| kk == k) {
            return Err(BAD);
        }
    }
    Ok(vals)
}

/// Number of slots of a list (0 for an unknown handle, where the real library panics).
///
/// # Safety
/// None beyond the C contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListGetSlotCount(attrList: NvSciBufAttrList) -> usize {
    registry::list(attrList).map_or(0, |l| l.lock().slots.len())
}

/// Reads keys of slot 0 ([`NvSciBufAttrListSlotGetAttrs`]).
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` writable pairs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListGetAttrs(
    attrList: NvSciBufAttrList,
    pairArray: *mut NvSciBufAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe { NvSciBufAttrListSlotGetAttrs(attrList, 0, pairArray, pairCount) }
}

/// Reads keys of one slot: unset keys give NULL and length 0; the pointers stay valid
/// while the list lives. `BadParameter` (pairs untouched) for an unknown list, a NULL
/// array, count 0, a slot index past the end, a key that is not a public key, an
/// output-only key on an unreconciled list or an input-only key (`RequiredPerm`) on a
/// reconciled list (nvscibuf.h `SlotGetAttrs`).
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` writable pairs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListSlotGetAttrs(
    attrList: NvSciBufAttrList,
    slotIndex: usize,
    pairArray: *mut NvSciBufAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    // SAFETY: the caller guarantees `pairCount` writable pairs (NULL is refused).
    let (Some(pairs), Some(list)) = (
        unsafe { ffi::array_mut(pairArray, pairCount) },
        registry::list(attrList),
    ) else {
        return BAD;
    };
    let data = list.lock();
    let reconciled = data.recon.is_some();
    let Some(slot) = data.slots.get(slotIndex) else {
        return BAD;
    };
    // Two passes over the caller's pairs, nothing allocated: the count is trusted only as
    // far as reading the caller's array (sil/README.md, "Hostile arguments").
    let index = |p: &NvSciBufAttrKeyValuePair| {
        keys::index(p.key).filter(|&k| match keys::KEYS[k].access {
            Access::In => !reconciled,
            Access::Out => reconciled,
            Access::InOut => true,
        })
    };
    if pairs.iter().any(|p| index(p).is_none()) {
        return BAD;
    }
    for p in pairs.iter_mut() {
        let (value, len) = Value::c_parts(index(p).and_then(|k| slot.get(k)));
        p.value = value;
        p.len = len;
    }
    NvSciError_Success
}

/// Deprecated debug dump: a text description of the list (one line per slot and set key:
/// key value, length, bytes in hex), NUL-terminated, in memory from `malloc` that the
/// caller releases with `free`; `*len` counts the bytes before the NUL. `BadParameter`
/// for an unknown list or a NULL out pointer.
///
/// # Safety
/// `buf` and `len` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListDebugDump(
    attrList: NvSciBufAttrList,
    buf: *mut *mut c_void,
    len: *mut usize,
) -> NvSciError {
    if !ffi::usable(buf) || !ffi::usable(len) {
        return BAD;
    }
    let Some(list) = registry::list(attrList) else {
        return BAD;
    };
    let text = dump(&list.lock());
    // SAFETY: plain C allocation of `text.len() + 1` bytes (never 0).
    let p = unsafe { malloc(text.len() + 1) }.cast::<u8>();
    if p.is_null() {
        return NvSciError_InsufficientMemory;
    }
    // SAFETY: `p` has `text.len() + 1` writable bytes, not overlapping `text`.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), p, text.len());
        p.add(text.len()).write(0);
        ffi::write(buf, p.cast::<c_void>());
        ffi::write(len, text.len());
    }
    NvSciError_Success
}

/// The text of a debug dump.
fn dump(d: &ListData) -> String {
    let mut s = String::new();
    let kind = if d.recon.is_some() {
        "reconciled"
    } else {
        "unreconciled"
    };
    let _ = writeln!(s, "NvSciBufAttrList {kind}, {} slot(s)", d.slots.len());
    for (i, slot) in d.slots.iter().enumerate() {
        let _ = writeln!(s, "slot {i}");
        for (k, def) in keys::KEYS.iter().enumerate() {
            if let Some(v) = slot.get(k) {
                let hex: String = v.bytes().iter().map(|b| format!("{b:02x}")).collect();
                let _ = writeln!(s, "  key 0x{:07x} len {} value {hex}", def.key.0, v.len());
            }
        }
    }
    s
}

/// The reconcile calls: once both out pointers pass the NULL check, both are always
/// written: the new handle (or NULL) and the conflict list (or NULL). Conflicting values
/// give `ReconciliationFailed` and a conflict list; a refusal (`BadParameter`,
/// `NotSupported`, `Overflow`) gives none.
///
/// # Safety
/// `inputs` is NULL or points to `n` handles; `out` and `conflict_out` are NULL or
/// writable.
unsafe fn reconcile_into<O>(
    inputs: *const NvSciBufAttrList,
    n: usize,
    out: *mut *mut O,
    conflict_out: *mut NvSciBufAttrList,
    make: impl FnOnce(u64, ListData, BufInfo) -> Result<u64, NvSciError>,
) -> NvSciError {
    if !ffi::usable(out) || !ffi::usable(conflict_out) {
        return BAD;
    }
    let (rc, made, conflict) = (|| {
        // SAFETY: forwarded caller guarantee.
        let (module, slots) = match unsafe { gather(inputs, n) } {
            Ok(x) => x,
            Err(e) => return (e, 0, 0),
        };
        match attr::reconcile(&slots) {
            Ok((slot, info)) => {
                match make(module, ListData::read_only(vec![slot], Some(info)), info) {
                    Ok(h) => (NvSciError_Success, h, 0),
                    Err(e) => (e, 0, 0),
                }
            }
            Err(ReconError::Refused(e)) => (e, 0, 0),
            Err(ReconError::Conflict(mask)) => {
                let c = conflict_slots(&slots, mask);
                let h = register_list(module, ListData::read_only(c, None));
                (NvSciError_ReconciliationFailed, 0, h)
            }
        }
    })();
    // SAFETY: both checked non-NULL and aligned; the caller passes writable pointers.
    unsafe {
        ffi::write(out, ptr_of(made));
        ffi::write(conflict_out, ptr_of(conflict));
    }
    rc
}

/// Reconciles unreconciled lists into a new reconciled list (rules: `sil/README.md`).
/// `BadParameter` for: NULL array or out pointers, count 0, a list twice, an unknown or
/// reconciled list, lists of different modules, a mandatory key unset everywhere, a value
/// the types involved do not support. `ReconciliationFailed` with a conflict list for
/// conflicting values; `NotSupported` for unsupported combinations; `Overflow`.
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
    let keep = |module, data, _| Ok(register_list(module, data));
    // SAFETY: forwarded caller guarantee.
    unsafe {
        reconcile_into(
            inputArray,
            inputCount,
            newReconciledAttrList,
            newConflictList,
            keep,
        )
    }
}

/// Reconciles and allocates in one call (as [`NvSciBufAttrListReconcile`] then
/// `NvSciBufObjAlloc`).
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
    let alloc = |module, data: ListData, info| crate::obj::alloc_obj(module, &data, info);
    // SAFETY: forwarded caller guarantee.
    unsafe { reconcile_into(attrListArray, attrListCount, bufObj, newConflictList, alloc) }
}

/// Every slot has `Types` set.
fn all_typed(slots: &[Slot]) -> bool {
    slots.iter().all(|s| s.get(keys::TYPES).is_some())
}

/// Clones a list: a clone of a single-slot unreconciled list is writable again for every
/// key; a clone of a reconciled list (an object's list included) is a free-standing
/// reconciled list; a clone of a multi-slot list is not writable. `BadParameter` for an
/// unknown list, a NULL out pointer, or a list (some slot) without `Types`.
///
/// # Safety
/// `newAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListClone(
    origAttrList: NvSciBufAttrList,
    newAttrList: *mut NvSciBufAttrList,
) -> NvSciError {
    if !ffi::usable(newAttrList) {
        return BAD;
    }
    let Some(list) = registry::list(origAttrList) else {
        return BAD;
    };
    let data = list.lock().cloned();
    if !all_typed(&data.slots) {
        return BAD;
    }
    let h = register_list(list.module, data);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(newAttrList, ptr_of(h)) }
}

/// Appends unreconciled lists into one read-only list with every slot of every input, in
/// order. `BadParameter` as the reconcile inputs, a NULL out pointer, or an input (slot)
/// without `Types`.
///
/// # Safety
/// `inputUnreconciledAttrListArray` is NULL or points to `inputUnreconciledAttrListCount`
/// handles; `newUnreconciledAttrList` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListAppendUnreconciled(
    inputUnreconciledAttrListArray: *const NvSciBufAttrList,
    inputUnreconciledAttrListCount: usize,
    newUnreconciledAttrList: *mut NvSciBufAttrList,
) -> NvSciError {
    if !ffi::usable(newUnreconciledAttrList) {
        return BAD;
    }
    // SAFETY: forwarded caller guarantee.
    let (module, slots) = match unsafe {
        gather(
            inputUnreconciledAttrListArray,
            inputUnreconciledAttrListCount,
        )
    } {
        Ok(x) => x,
        Err(e) => return e,
    };
    if !all_typed(&slots) {
        return BAD;
    }
    let h = register_list(module, ListData::read_only(slots, None));
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { STATUS.write(newUnreconciledAttrList, ptr_of(h)) }
}

/// Whether a list is reconciled. `BadParameter` for an unknown list or a NULL out pointer.
///
/// # Safety
/// `isReconciled` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListIsReconciled(
    attrList: NvSciBufAttrList,
    isReconciled: *mut bool,
) -> NvSciError {
    let Some(list) = registry::list(attrList) else {
        return BAD;
    };
    let r = list.lock().recon.is_some();
    // SAFETY: NULL is refused; the caller passes a writable pointer.
    unsafe { STATUS.write(isReconciled, r) }
}

/// Validates a reconciled list against unreconciled lists (`sil/README.md`). `Success`
/// with `true`, or `ReconciliationFailed` with `false`. `BadParameter` (nothing written)
/// for a NULL out pointer, an unknown or unreconciled `reconciledAttrList`, and the
/// reconcile input errors (the unreconciled lists must share the reconciled list's
/// module).
///
/// # Safety
/// `unreconciledAttrListArray` is NULL or points to `unreconciledAttrListCount` handles;
/// `isReconcileListValid` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListValidateReconciled(
    reconciledAttrList: NvSciBufAttrList,
    unreconciledAttrListArray: *const NvSciBufAttrList,
    unreconciledAttrListCount: usize,
    isReconcileListValid: *mut bool,
) -> NvSciError {
    if !ffi::usable(isReconcileListValid) {
        return BAD;
    }
    let Some(list) = registry::list(reconciledAttrList) else {
        return BAD;
    };
    let recon = {
        let d = list.lock();
        if d.recon.is_none() {
            return BAD;
        }
        d.slots[0].clone()
    };
    // SAFETY: forwarded caller guarantee.
    let (module, slots) =
        match unsafe { gather(unreconciledAttrListArray, unreconciledAttrListCount) } {
            Ok(x) => x,
            Err(e) => return e,
        };
    if module != list.module {
        return BAD;
    }
    let ok = validate::satisfies(&recon, &slots);
    // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
    unsafe { ffi::write(isReconcileListValid, ok) };
    if ok {
        NvSciError_Success
    } else {
        NvSciError_ReconciliationFailed
    }
}

/// Validates a reconciled list against the (key, value) pairs a client set:
/// `AttrListValidationFailed` when it does not satisfy them. `BadParameter` for an
/// unknown or unreconciled list, a NULL array, count 0, and pairs `SetAttrs` would refuse
/// (unknown or output-only key, NULL value, invalid length or value, a key twice).
///
/// # Safety
/// `pairArray` is NULL or points to `pairCount` pairs whose values are readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufAttrListValidateReconciledAgainstAttrs(
    reconciledAttrList: NvSciBufAttrList,
    pairArray: *const NvSciBufAttrKeyValuePair,
    pairCount: usize,
) -> NvSciError {
    // SAFETY: the caller guarantees `pairCount` readable pairs (NULL is refused).
    let (Some(pairs), Some(list)) = (
        unsafe { ffi::array(pairArray, pairCount) },
        registry::list(reconciledAttrList),
    ) else {
        return BAD;
    };
    let recon = {
        let d = list.lock();
        if d.recon.is_none() {
            return BAD;
        }
        d.slots[0].clone()
    };
    // SAFETY: the caller guarantees `len` readable bytes at a non-NULL `value`.
    let bytes_of = |p: &NvSciBufAttrKeyValuePair| unsafe { ffi::bytes(p.value, p.len) };
    let vals = match checked_pairs(pairs, type_set(&recon), bytes_of) {
        Ok(v) => v,
        Err(e) => return e,
    };
    let mut slot = Slot::default();
    for (k, v) in vals {
        slot.put(k, v);
    }
    if validate::satisfies(&recon, &[slot]) {
        NvSciError_Success
    } else {
        NvSciError_AttrListValidationFailed
    }
}
