//! Modules, attribute lists and reconciliation.
//!
//! Covers: REQ-SYNC-001

mod common;

use std::ptr::{null, null_mut};

use common::*;

const BAD: NvSciError = NvSciError_BadParameter;

#[test]
fn module_and_context_handles() {
    // SAFETY: every pointer passed is NULL, a local or a handle value; the library checks.
    unsafe {
        assert_eq!(NvSciSyncModuleOpen(null_mut()), BAD);
        let m = module();
        let mut l = null_mut();
        assert_eq!(NvSciSyncAttrListCreate(null_mut(), &mut l), BAD);
        assert_eq!(NvSciSyncAttrListCreate(bogus(), &mut l), BAD);
        assert_eq!(NvSciSyncAttrListCreate(m, null_mut()), BAD);
        let mut c = null_mut();
        assert_eq!(NvSciSyncCpuWaitContextAlloc(bogus(), &mut c), BAD);
        assert_eq!(NvSciSyncCpuWaitContextAlloc(m, null_mut()), BAD);
        let c = context(m);
        let before = empty_list(m);
        NvSciSyncModuleClose(m);
        NvSciSyncModuleClose(m); // double close: ignored
        NvSciSyncModuleClose(bogus()); // unknown: ignored
        assert_eq!(NvSciSyncAttrListCreate(m, &mut l), BAD);
        // A list made before the close stays usable.
        let v = true;
        ok(set(before, &[pair(NvSciSyncAttrKey_NeedCpuAccess, &v)]));
        NvSciSyncAttrListFree(before);
        NvSciSyncCpuWaitContextFree(c);
        NvSciSyncCpuWaitContextFree(c); // double free: ignored
        NvSciSyncCpuWaitContextFree(null_mut());
    }
}

/// Covers: REQ-SIL-004
#[test]
fn set_attrs_validation() {
    let m = module();
    let l = empty_list(m);
    let t = true;
    let four = 1u32;
    let perm = NvSciSyncAccessPerm_WaitOnly;
    let perm4 = NvSciSyncAccessPerm_WaitOnly as u32;
    // Wrong lengths.
    assert_eq!(set(l, &[pair(NvSciSyncAttrKey_NeedCpuAccess, &four)]), BAD);
    assert_eq!(set(l, &[pair(NvSciSyncAttrKey_RequiredPerm, &perm4)]), BAD);
    // Output-only keys.
    for k in [
        NvSciSyncAttrKey_ActualPerm,
        NvSciSyncAttrKey_NumTimestampSlots,
        NvSciSyncAttrKey_NumTaskStatusSlots,
        NvSciSyncAttrKey_MaxPrimitiveValue,
    ] {
        assert_eq!(set(l, &[pair(k, &perm)]), BAD, "{k:?}");
        assert_eq!(set(l, &[pair(k, &four)]), BAD, "{k:?}");
    }
    // Unknown keys.
    for k in [0, 14, 15, 1000] {
        assert_eq!(set(l, &[pair(NvSciSyncAttrKey(k), &t)]), BAD);
    }
    // Invalid permission values.
    for p in [0u64, 4, NvSciSyncAccessPerm_Auto] {
        assert_eq!(set(l, &[pair(NvSciSyncAttrKey_RequiredPerm, &p)]), BAD);
    }
    // Invalid primitive types and lengths.
    for p in [[0u32, 4], [4, 6]] {
        assert_eq!(set(l, &[pair(NvSciSyncAttrKey_PrimitiveInfo, &p)]), BAD);
    }
    let odd = [4u8; 5];
    assert_eq!(set(l, &[pair(NvSciSyncAttrKey_PrimitiveInfo, &odd)]), BAD);
    assert_eq!(set(l, &[pair(NvSciSyncAttrKey_GpuId, &odd)]), BAD);
    // NULL value, NULL array, zero count.
    let nullv = NvSciSyncAttrKeyValuePair {
        attrKey: NvSciSyncAttrKey_NeedCpuAccess,
        value: null(),
        len: 1,
    };
    assert_eq!(set(l, &[nullv]), BAD);
    // SAFETY: NULL/zero arguments are checked by the library.
    unsafe {
        assert_eq!(NvSciSyncAttrListSetAttrs(l, null(), 1), BAD);
        let p = pair(NvSciSyncAttrKey_NeedCpuAccess, &t);
        assert_eq!(NvSciSyncAttrListSetAttrs(l, &p, 0), BAD);
        assert_eq!(NvSciSyncAttrListSetAttrs(bogus(), &p, 1), BAD);
        assert_eq!(NvSciSyncAttrListSetAttrs(null_mut(), &p, 1), BAD);
    }
    // Duplicate keys in one call.
    assert_eq!(
        set(
            l,
            &[
                pair(NvSciSyncAttrKey_NeedCpuAccess, &t),
                pair(NvSciSyncAttrKey_NeedCpuAccess, &t)
            ]
        ),
        BAD
    );
    // All or nothing: a bad pair after a good one sets nothing.
    assert_eq!(
        set(
            l,
            &[
                pair(NvSciSyncAttrKey_RequiredPerm, &perm),
                pair(NvSciSyncAttrKey_ActualPerm, &perm)
            ]
        ),
        BAD
    );
    assert_eq!(get_u64(l, NvSciSyncAttrKey_RequiredPerm), None);
    // Set once, then never again.
    ok(set(l, &[pair(NvSciSyncAttrKey_RequiredPerm, &perm)]));
    assert_eq!(set(l, &[pair(NvSciSyncAttrKey_RequiredPerm, &perm)]), BAD);
    assert_eq!(get_u64(l, NvSciSyncAttrKey_RequiredPerm), Some(perm));
    // A GPU id list and a valid primitive list are accepted.
    let gpus = [[1u8; 16], [2u8; 16]];
    ok(set(l, &[pair(NvSciSyncAttrKey_GpuId, &gpus)]));
    let prims = [
        NvSciSyncAttrValPrimitiveType_Syncpoint.0,
        NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0,
    ];
    ok(set(l, &[pair(NvSciSyncAttrKey_PrimitiveInfo, &prims)]));
    // SAFETY: handle from this library.
    unsafe { NvSciSyncAttrListFree(l) };
}

#[test]
fn get_attrs() {
    let m = module();
    let l = waiter(m, true, false);
    let mut pairs = [
        NvSciSyncAttrKeyValuePair {
            attrKey: NvSciSyncAttrKey_RequiredPerm,
            value: null(),
            len: 99,
        },
        NvSciSyncAttrKeyValuePair {
            attrKey: NvSciSyncAttrKey_GpuId,
            value: null(),
            len: 99,
        },
    ];
    // SAFETY: locals and handles; NULL/bad arguments are checked by the library.
    unsafe {
        ok(NvSciSyncAttrListGetAttrs(l, pairs.as_mut_ptr(), 2));
        assert_eq!(pairs[0].len, 8);
        assert_eq!(*pairs[0].value.cast::<u64>(), NvSciSyncAccessPerm_WaitOnly);
        assert!(pairs[1].value.is_null());
        assert_eq!(pairs[1].len, 0);
        assert_eq!(NvSciSyncAttrListGetAttrs(l, pairs.as_mut_ptr(), 0), BAD);
        assert_eq!(NvSciSyncAttrListGetAttrs(l, null_mut(), 1), BAD);
        assert_eq!(
            NvSciSyncAttrListGetAttrs(bogus(), pairs.as_mut_ptr(), 1),
            BAD
        );
        pairs[1].attrKey = NvSciSyncAttrKey_UpperBound;
        assert_eq!(NvSciSyncAttrListGetAttrs(l, pairs.as_mut_ptr(), 2), BAD);

        let (mut v, mut n) = (null(), 7usize);
        ok(NvSciSyncAttrListGetAttr(
            l,
            NvSciSyncAttrKey_NeedCpuAccess,
            &mut v,
            &mut n,
        ));
        assert_eq!((n, *v.cast::<u8>()), (1, 1));
        ok(NvSciSyncAttrListGetAttr(
            l,
            NvSciSyncAttrKey_ActualPerm,
            &mut v,
            &mut n,
        ));
        assert!(v.is_null() && n == 0);
        assert_eq!(
            NvSciSyncAttrListGetAttr(l, NvSciSyncAttrKey_LowerBound, &mut v, &mut n),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListGetAttr(l, NvSciSyncAttrKey_NeedCpuAccess, null_mut(), &mut n),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListGetAttr(l, NvSciSyncAttrKey_NeedCpuAccess, &mut v, null_mut()),
            BAD
        );
        NvSciSyncAttrListFree(l);
        NvSciSyncAttrListFree(l); // double free: ignored
        assert_eq!(NvSciSyncAttrListGetAttrs(l, pairs.as_mut_ptr(), 1), BAD);
        NvSciSyncAttrListFree(null_mut());
        NvSciSyncAttrListFree(bogus());
    }
}

/// Covers: REQ-SIL-005
#[test]
fn reconcile_outputs() {
    let m = module();
    let s = signaler(m, true);
    let w = waiter(m, true, true);
    let r = reconcile(&[s, w]).unwrap();
    let mut rec = false;
    // SAFETY: locals and handles.
    unsafe { ok(NvSciSyncAttrListIsReconciled(r, &mut rec)) };
    assert!(rec);
    // SAFETY: `s` is an unreconciled handle.
    unsafe { ok(NvSciSyncAttrListIsReconciled(s, &mut rec)) };
    assert!(!rec);
    // SAFETY: NULL checks.
    unsafe {
        assert_eq!(NvSciSyncAttrListIsReconciled(r, null_mut()), BAD);
        assert_eq!(NvSciSyncAttrListIsReconciled(bogus(), &mut rec), BAD);
    }
    assert_eq!(
        get_u64(r, NvSciSyncAttrKey_ActualPerm),
        Some(NvSciSyncAccessPerm_WaitSignal)
    );
    assert_eq!(get_bool(r, NvSciSyncAttrKey_NeedCpuAccess), Some(true));
    assert_eq!(
        get_bool(r, NvSciSyncAttrKey_RequireDeterministicFences),
        Some(true)
    );
    assert_eq!(
        get_bool(r, NvSciSyncAttrKey_WaiterRequireTimestamps),
        Some(true)
    );
    assert_eq!(get_u32(r, NvSciSyncAttrKey_NumTimestampSlots), Some(512));
    assert_eq!(get_u32(r, NvSciSyncAttrKey_NumTaskStatusSlots), Some(0));
    assert_eq!(
        get_u64(r, NvSciSyncAttrKey_MaxPrimitiveValue),
        Some(u64::MAX)
    );
    assert_eq!(
        get_u32(r, NvSciSyncAttrKey_PrimitiveInfo),
        Some(NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0)
    );
    // A reconciled list is read-only.
    let t = true;
    assert_eq!(set(r, &[pair(NvSciSyncAttrKey_GpuId, &[0u8; 16])]), BAD);
    assert_eq!(set(r, &[pair(NvSciSyncAttrKey_NeedCpuAccess, &t)]), BAD);
    // Reconciled lists are not valid reconcile inputs; duplicates and other modules neither.
    assert_eq!(reconcile(&[r, w]).unwrap_err().0, BAD);
    assert_eq!(reconcile(&[s, s, w]).unwrap_err().0, BAD);
    let other = waiter(module(), false, false);
    assert_eq!(reconcile(&[s, other]).unwrap_err().0, BAD);
    assert_eq!(reconcile(&[s, bogus()]).unwrap_err().0, BAD);
    assert_eq!(reconcile(&[]).unwrap_err().0, BAD);
    // SAFETY: NULL out pointers are checked.
    unsafe {
        let mut x = null_mut();
        let l = [s, w];
        assert_eq!(
            NvSciSyncAttrListReconcile(l.as_ptr(), 2, null_mut(), &mut x),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListReconcile(l.as_ptr(), 2, &mut x, null_mut()),
            BAD
        );
        assert_eq!(NvSciSyncAttrListReconcile(null(), 2, &mut x, &mut x), BAD);
    }
}

/// Covers: REQ-SYNC-007
#[test]
fn timestamps_need_a_cpu_waiter() {
    let m = module();
    // Timestamps asked by a waiter without CPU access: off.
    let r = reconcile(&[signaler(m, true), waiter(m, false, true)]).unwrap();
    assert_eq!(
        get_bool(r, NvSciSyncAttrKey_WaiterRequireTimestamps),
        Some(false)
    );
    assert_eq!(get_u32(r, NvSciSyncAttrKey_NumTimestampSlots), Some(0));
    // Asked by the signaler only: off.
    let s = list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_SignalOnly),
            cpu: Some(true),
            timestamps: Some(true),
            ..Opts::default()
        },
    );
    let r = reconcile(&[s, waiter(m, true, false)]).unwrap();
    assert_eq!(
        get_bool(r, NvSciSyncAttrKey_WaiterRequireTimestamps),
        Some(false)
    );
    // NeedCpuAccess is the OR; deterministic is the OR.
    let r = reconcile(&[
        list(
            m,
            Opts {
                perm: Some(NvSciSyncAccessPerm_SignalOnly),
                ..Opts::default()
            },
        ),
        waiter(m, false, false),
    ])
    .unwrap();
    assert_eq!(get_bool(r, NvSciSyncAttrKey_NeedCpuAccess), Some(false));
    assert_eq!(
        get_bool(r, NvSciSyncAttrKey_RequireDeterministicFences),
        Some(false)
    );
}

fn conflict_perms(c: NvSciSyncAttrList) -> Vec<Option<u64>> {
    // SAFETY: a conflict list from this library.
    let n = unsafe { NvSciSyncAttrListGetSlotCount(c) };
    (0..n)
        .map(|i| {
            get_bytes(c, i, NvSciSyncAttrKey_RequiredPerm)
                .map(|b| u64::from_ne_bytes(b.try_into().unwrap()))
        })
        .collect()
}

#[test]
fn permission_conflicts() {
    let m = module();
    let so = NvSciSyncAccessPerm_SignalOnly;
    let wo = NvSciSyncAccessPerm_WaitOnly;
    let ws = NvSciSyncAccessPerm_WaitSignal;
    let p = |perm| {
        list(
            m,
            Opts {
                perm: Some(perm),
                ..Opts::default()
            },
        )
    };
    // Two signalers: the conflict list has one slot per list that set RequiredPerm.
    let (rc, c) = reconcile(&[p(so), p(so), p(wo)]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(conflict_perms(c), vec![Some(so), Some(so), Some(wo)]);
    let mut rec = true;
    // SAFETY: handle from this library.
    unsafe { ok(NvSciSyncAttrListIsReconciled(c, &mut rec)) };
    assert!(!rec);
    // The conflict list is not writable.
    let t = true;
    assert_eq!(set(c, &[pair(NvSciSyncAttrKey_NeedCpuAccess, &t)]), BAD);
    // No waiter.
    let (rc, c) = reconcile(&[p(so)]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(conflict_perms(c), vec![Some(so)]);
    // No signaler.
    let (_, c) = reconcile(&[p(wo), p(wo)]).unwrap_err();
    assert_eq!(conflict_perms(c), vec![Some(wo), Some(wo)]);
    // No RequiredPerm at all: one empty slot.
    let (rc, c) = reconcile(&[empty_list(m)]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(conflict_perms(c), vec![None]);
    // WaitSignal is a signaler and a waiter: alone it reconciles, with another signaler not.
    assert!(reconcile(&[p(ws)]).is_ok());
    assert!(reconcile(&[p(ws), p(wo)]).is_ok());
    assert!(reconcile(&[p(ws), p(so)]).is_err());
    // ReconcileAndObjAlloc fails the same way.
    let lists = [p(so), p(so)];
    let (mut o, mut c) = (null_mut(), null_mut());
    // SAFETY: locals.
    unsafe {
        assert_eq!(
            NvSciSyncAttrListReconcileAndObjAlloc(lists.as_ptr(), 2, &mut o, &mut c),
            NvSciError_ReconciliationFailed
        );
        assert!(o.is_null());
        assert_eq!(conflict_perms(c), vec![Some(so), Some(so)]);
        NvSciSyncAttrListFree(c);
        assert_eq!(
            NvSciSyncAttrListReconcileAndObjAlloc(lists.as_ptr(), 2, &mut o, null_mut()),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListReconcileAndObjAlloc(lists.as_ptr(), 2, null_mut(), &mut c),
            BAD
        );
    }
}

/// Covers: REQ-SYNC-002
#[test]
fn primitive_conflicts() {
    let m = module();
    let syncpoint: &'static [u32] = &[NvSciSyncAttrValPrimitiveType_Syncpoint.0];
    let sema32: &'static [u32] = &[NvSciSyncAttrValPrimitiveType_SysmemSemaphore.0];
    let both: &'static [u32] = &[
        NvSciSyncAttrValPrimitiveType_Syncpoint.0,
        NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0,
    ];
    let with = |perm, prims| {
        list(
            m,
            Opts {
                perm: Some(perm),
                prims: Some(prims),
                ..Opts::default()
            },
        )
    };
    // Only primitives the SIL does not implement (the 32-bit sysmem semaphore).
    let (rc, c) = reconcile(&[
        with(NvSciSyncAccessPerm_SignalOnly, sema32),
        waiter(m, true, false),
    ])
    .unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    // SAFETY: handle from this library.
    assert_eq!(unsafe { NvSciSyncAttrListGetSlotCount(c) }, 1);
    assert_eq!(
        get_bytes(c, 0, NvSciSyncAttrKey_PrimitiveInfo),
        Some(
            NvSciSyncAttrValPrimitiveType_SysmemSemaphore
                .0
                .to_ne_bytes()
                .to_vec()
        )
    );
    assert_eq!(get_bytes(c, 0, NvSciSyncAttrKey_RequiredPerm), None);
    // A sync-point-only signaler reconciles to a sync point.
    let r = reconcile(&[
        with(NvSciSyncAccessPerm_SignalOnly, syncpoint),
        waiter(m, true, false),
    ])
    .unwrap();
    assert_eq!(
        get_u32(r, NvSciSyncAttrKey_PrimitiveInfo),
        Some(NvSciSyncAttrValPrimitiveType_Syncpoint.0)
    );
    assert_eq!(
        get_u64(r, NvSciSyncAttrKey_MaxPrimitiveValue),
        Some(u64::from(u32::MAX))
    );
    // Two lists whose sets do not intersect in a SIL primitive.
    let (_, c) = reconcile(&[
        with(NvSciSyncAccessPerm_SignalOnly, both),
        with(NvSciSyncAccessPerm_WaitOnly, sema32),
    ])
    .unwrap_err();
    // SAFETY: handle from this library.
    assert_eq!(unsafe { NvSciSyncAttrListGetSlotCount(c) }, 2);
    // Without deterministic fences the signaler's first choice wins (sync point here).
    let r = reconcile(&[
        with(NvSciSyncAccessPerm_SignalOnly, both),
        waiter(m, true, false),
    ])
    .unwrap();
    assert_eq!(
        get_u32(r, NvSciSyncAttrKey_PrimitiveInfo),
        Some(NvSciSyncAttrValPrimitiveType_Syncpoint.0)
    );
}

#[test]
fn append_and_clone() {
    let m = module();
    let s = signaler(m, true);
    let w = waiter(m, true, false);
    let mut a = null_mut();
    let lists = [s, w];
    // SAFETY: locals and handles.
    unsafe {
        ok(NvSciSyncAttrListAppendUnreconciled(
            lists.as_ptr(),
            2,
            &mut a,
        ));
        assert_eq!(NvSciSyncAttrListGetSlotCount(a), 2);
        assert_eq!(NvSciSyncAttrListGetSlotCount(bogus()), 0);
        let dup = [s, s];
        let mut x = null_mut();
        assert_eq!(
            NvSciSyncAttrListAppendUnreconciled(dup.as_ptr(), 2, &mut x),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListAppendUnreconciled(lists.as_ptr(), 0, &mut x),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListAppendUnreconciled(lists.as_ptr(), 2, null_mut()),
            BAD
        );
    }
    // The appended list is not writable, and reconciles like its parts.
    let t = true;
    assert_eq!(set(a, &[pair(NvSciSyncAttrKey_GpuId, &[0u8; 16])]), BAD);
    assert_eq!(
        set(a, &[pair(NvSciSyncAttrKey_WaiterRequireTimestamps, &t)]),
        BAD
    );
    let r = reconcile(&[a]).unwrap();
    assert_eq!(get_bool(r, NvSciSyncAttrKey_NeedCpuAccess), Some(true));
    assert_eq!(
        get_u64(a, NvSciSyncAttrKey_RequiredPerm),
        Some(NvSciSyncAccessPerm_SignalOnly)
    );

    // Clone: independent, and writable again for every key.
    let mut c = null_mut();
    // SAFETY: locals and handles.
    unsafe {
        ok(NvSciSyncAttrListClone(w, &mut c));
        assert_eq!(NvSciSyncAttrListClone(w, null_mut()), BAD);
        assert_eq!(NvSciSyncAttrListClone(bogus(), &mut c), BAD);
    }
    let ws = NvSciSyncAccessPerm_WaitSignal;
    ok(set(c, &[pair(NvSciSyncAttrKey_RequiredPerm, &ws)]));
    assert_eq!(set(w, &[pair(NvSciSyncAttrKey_RequiredPerm, &ws)]), BAD);
    assert_eq!(get_u64(c, NvSciSyncAttrKey_RequiredPerm), Some(ws));
    assert_eq!(
        get_u64(w, NvSciSyncAttrKey_RequiredPerm),
        Some(NvSciSyncAccessPerm_WaitOnly)
    );
    // A clone of a reconciled list is reconciled.
    let mut rc2 = null_mut();
    let mut rec = false;
    // SAFETY: locals and handles.
    unsafe {
        ok(NvSciSyncAttrListClone(r, &mut rc2));
        ok(NvSciSyncAttrListIsReconciled(rc2, &mut rec));
    }
    assert!(rec);
    assert_eq!(set(rc2, &[pair(NvSciSyncAttrKey_NeedCpuAccess, &t)]), BAD);
}

/// Covers: REQ-SIL-004
#[test]
fn object_alloc_needs_a_reconciled_list() {
    let m = module();
    let s = signaler(m, true);
    let w = waiter(m, true, false);
    let mut o = null_mut();
    // SAFETY: locals and handles.
    unsafe {
        assert_eq!(NvSciSyncObjAlloc(s, &mut o), BAD);
        assert_eq!(NvSciSyncObjAlloc(bogus(), &mut o), BAD);
        let r = reconcile(&[s, w]).unwrap();
        assert_eq!(NvSciSyncObjAlloc(r, null_mut()), BAD);
        ok(NvSciSyncObjAlloc(r, &mut o));
        // The caller may free the reconciled list at once.
        NvSciSyncAttrListFree(r);
        let mut ol = null_mut();
        ok(NvSciSyncObjGetAttrList(o, &mut ol));
        assert_eq!(NvSciSyncObjGetAttrList(o, null_mut()), BAD);
        assert_eq!(NvSciSyncObjGetAttrList(bogus(), &mut ol), BAD);
        let mut rec = false;
        ok(NvSciSyncAttrListIsReconciled(ol, &mut rec));
        assert!(rec);
        assert_eq!(
            get_u64(ol, NvSciSyncAttrKey_ActualPerm),
            Some(NvSciSyncAccessPerm_WaitSignal)
        );
        // Freeing the object's list is ignored; it lives as long as the object.
        NvSciSyncAttrListFree(ol);
        assert!(get_u64(ol, NvSciSyncAttrKey_ActualPerm).is_some());
        // An object's list may be used to allocate another object.
        let mut o2 = null_mut();
        ok(NvSciSyncObjAlloc(ol, &mut o2));
        NvSciSyncObjFree(o);
        let mut x = null_mut();
        assert_eq!(NvSciSyncAttrListClone(ol, &mut x), BAD);
        NvSciSyncObjFree(o2);
    }
}
