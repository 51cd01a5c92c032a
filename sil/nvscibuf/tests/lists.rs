//! The attribute-list calls beyond create/set/get/reconcile: slots, clone, append,
//! validation, the general keys' reconciliation, out-parameters on every outcome, and the
//! version, debug-dump and no-op calls (nvscibuf.h, DRIVE OS 6.0.10).
//!
//! Covers: REQ-BUF-004

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::*;
use nvsci_sys::*;

unsafe extern "C" {
    /// The C library's `free` (the debug dump's buffer comes from `malloc`).
    fn free(p: *mut c_void);
}

fn garbage<T>() -> *mut T {
    std::ptr::without_provenance_mut(0xDEAD_BEE0)
}

fn rw() -> NvSciBufAttrValAccessPerm {
    NvSciBufAccessPerm_ReadWrite
}

fn slot_count(l: NvSciBufAttrList) -> usize {
    // SAFETY: handles are checked by the library.
    unsafe { NvSciBufAttrListGetSlotCount(l) }
}

fn slot_u64(l: NvSciBufAttrList, slot: usize, key: NvSciBufAttrKey) -> (NvSciError, Option<u64>) {
    let mut p = [NvSciBufAttrKeyValuePair {
        key,
        value: null(),
        len: 0,
    }];
    // SAFETY: `p` is a local array of one pair.
    let rc = unsafe { NvSciBufAttrListSlotGetAttrs(l, slot, p.as_mut_ptr(), 1) };
    // SAFETY: on success the library returned `len` (8) readable bytes.
    let v = (!p[0].value.is_null()).then(|| unsafe { p[0].value.cast::<u64>().read() });
    (rc, v)
}

#[test]
fn slots_append_and_slot_get() {
    let m = module();
    let a = raw_list(m, 100, None, false, rw());
    let b = raw_list(m, 100, Some(256), true, rw());
    assert_eq!(slot_count(a), 1);
    assert_eq!(slot_count(bogus()), 0);
    let mut ab = null_mut();
    // SAFETY: locals and live handles.
    unsafe {
        ok(NvSciBufAttrListAppendUnreconciled(
            [a, b].as_ptr(),
            2,
            &mut ab,
        ))
    };
    assert_eq!(slot_count(ab), 2);
    assert_eq!(
        slot_u64(ab, 1, NvSciBufRawBufferAttrKey_Align),
        (NvSciError_Success, Some(256))
    );
    assert_eq!(
        slot_u64(ab, 0, NvSciBufRawBufferAttrKey_Align),
        (NvSciError_Success, None)
    );
    assert_eq!(slot_u64(ab, 2, NvSciBufRawBufferAttrKey_Size).0, BAD);
    // An appended list is read-only.
    let t = true;
    assert_eq!(set1(ab, NvSciBufGeneralAttrKey_EnableCpuCache, &t), BAD);
    // Reconciling it is reconciling its parts; it may not be reconciled with them again.
    let r = reconcile(&[ab]).unwrap();
    assert_eq!(get_u64(r, NvSciBufRawBufferAttrKey_Align), Some(256));
    assert_eq!(
        get_bool(r, NvSciBufGeneralAttrKey_NeedCpuAccess),
        Some(true)
    );
    // An appended list can be appended again.
    let c = raw_list(m, 100, None, false, rw());
    let mut abc = null_mut();
    // SAFETY: locals and live handles; NULL and bad inputs are checked by the library.
    unsafe {
        ok(NvSciBufAttrListAppendUnreconciled(
            [ab, c].as_ptr(),
            2,
            &mut abc,
        ));
        assert_eq!(slot_count(abc), 3);
        let mut out = garbage();
        let untyped = new_list(m);
        let other = raw_list(module(), 100, None, false, rw());
        for inputs in [
            vec![a, untyped],
            vec![a, a],
            vec![a, r],
            vec![a, other],
            vec![],
        ] {
            assert_eq!(
                NvSciBufAttrListAppendUnreconciled(inputs.as_ptr(), inputs.len(), &mut out),
                BAD
            );
        }
        assert_eq!(out, garbage(), "nothing written on failure");
        assert_eq!(NvSciBufAttrListAppendUnreconciled(null(), 1, &mut out), BAD);
        assert_eq!(
            NvSciBufAttrListAppendUnreconciled([a].as_ptr(), 1, null_mut()),
            BAD
        );
    }
}

/// Covers: REQ-BUF-002
#[test]
fn conflict_list_slots() {
    let m = module();
    let (rc, c) = reconcile(&[
        raw_list(m, 100, None, false, rw()),
        raw_list(m, 200, None, false, rw()),
    ])
    .unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(slot_count(c), 2);
    assert_eq!(
        slot_u64(c, 1, NvSciBufRawBufferAttrKey_Size),
        (NvSciError_Success, Some(200))
    );
    let mut ok_ = false;
    // SAFETY: locals.
    unsafe { ok(NvSciBufAttrListIsReconciled(c, &mut ok_)) };
    assert!(!ok_, "a conflict list is unreconciled");
    // Output keys are not readable from it.
    assert_eq!(get_rc(c, NvSciBufGeneralAttrKey_ActualPerm).0, BAD);
}

#[test]
fn get_attrs_access_rules() {
    let m = module();
    let u = raw_list(m, 64, None, true, rw());
    let r = reconcile(&[u]).unwrap();
    // Output key on an unreconciled list, input-only key on a reconciled list: BadParameter,
    // the pair left untouched.
    for (l, k) in [
        (u, NvSciBufGeneralAttrKey_ActualPerm),
        (u, NvSciBufTensorAttrKey_Size),
        (r, NvSciBufGeneralAttrKey_RequiredPerm),
        (u, NvSciBufAttrKey_LowerBound),
        (r, NvSciBufAttrKey_UpperBound),
    ] {
        let (rc, p) = get_rc(l, k);
        assert_eq!(rc, BAD, "{k:?}");
        assert_eq!((p.value.addr(), p.len), (0x1234, 77));
    }
    assert_eq!(
        get_u32(u, NvSciBufGeneralAttrKey_RequiredPerm),
        Some(rw().0)
    );
    assert_eq!(get_u32(r, NvSciBufGeneralAttrKey_ActualPerm), Some(rw().0));
    // A batch with one refused key writes nothing.
    let mut p = [
        NvSciBufAttrKeyValuePair {
            key: NvSciBufRawBufferAttrKey_Size,
            value: null(),
            len: 5,
        },
        NvSciBufAttrKeyValuePair {
            key: NvSciBufGeneralAttrKey_ActualPerm,
            value: null(),
            len: 5,
        },
    ];
    // SAFETY: `p` is a local array of two pairs.
    let rc = unsafe { NvSciBufAttrListGetAttrs(u, p.as_mut_ptr(), 2) };
    assert_eq!(rc, BAD);
    assert_eq!(p[0].len, 5);
}

#[test]
fn clone_lists() {
    let m = module();
    let a = raw_list(m, 100, None, false, rw());
    let ptr_before = {
        let mut p = [NvSciBufAttrKeyValuePair {
            key: NvSciBufRawBufferAttrKey_Size,
            value: null(),
            len: 0,
        }];
        // SAFETY: `p` is a local array of one pair.
        ok(unsafe { NvSciBufAttrListGetAttrs(a, p.as_mut_ptr(), 1) });
        p[0].value
    };
    let mut c = null_mut();
    // SAFETY: locals and live handles.
    unsafe { ok(NvSciBufAttrListClone(a, &mut c)) };
    assert_ne!(c, a);
    assert_eq!(get_u64(c, NvSciBufRawBufferAttrKey_Size), Some(100));
    // Every key of the clone is settable again; the original is unchanged.
    let size = 300u64;
    ok(set1(c, NvSciBufRawBufferAttrKey_Size, &size));
    assert_eq!(get_u64(c, NvSciBufRawBufferAttrKey_Size), Some(300));
    assert_eq!(get_u64(a, NvSciBufRawBufferAttrKey_Size), Some(100));
    assert_eq!(set1(a, NvSciBufRawBufferAttrKey_Size, &size), BAD);
    // SAFETY: the pointer handed out before stays valid while `a` lives.
    assert_eq!(unsafe { ptr_before.cast::<u64>().read() }, 100);
    // A clone of a reconciled list is reconciled and allocatable; of an object's list too.
    let r = reconcile(&[a]).unwrap();
    let mut rc = null_mut();
    let mut is = false;
    // SAFETY: locals and live handles; NULL and bad inputs are checked by the library.
    unsafe {
        ok(NvSciBufAttrListClone(r, &mut rc));
        ok(NvSciBufAttrListIsReconciled(rc, &mut is));
        assert!(is);
        let o = alloc(rc);
        let mut oc = null_mut();
        ok(NvSciBufAttrListClone(obj_list(o), &mut oc));
        assert_eq!(get_u32(oc, NvSciBufGeneralAttrKey_ActualPerm), Some(rw().0));
        NvSciBufAttrListFree(oc);
        assert_eq!(
            get_rc(oc, NvSciBufGeneralAttrKey_Types).0,
            BAD,
            "a clone is freeable"
        );
        // No Types: BadParameter.
        let mut out = garbage();
        assert_eq!(NvSciBufAttrListClone(new_list(m), &mut out), BAD);
        assert_eq!(NvSciBufAttrListClone(bogus(), &mut out), BAD);
        assert_eq!(NvSciBufAttrListClone(a, null_mut()), BAD);
        assert_eq!(out, garbage());
        // A clone of an appended list keeps its slots and stays read-only.
        let mut ab = null_mut();
        ok(NvSciBufAttrListAppendUnreconciled(
            [a, c].as_ptr(),
            2,
            &mut ab,
        ));
        ok(NvSciBufAttrListClone(ab, &mut out));
        assert_eq!(slot_count(out), 2);
        let t = true;
        assert_eq!(set1(out, NvSciBufGeneralAttrKey_EnableCpuCache, &t), BAD);
    }
}

#[test]
fn is_reconciled() {
    let m = module();
    let u = raw_list(m, 64, None, false, rw());
    let r = reconcile(&[u]).unwrap();
    let mut v = true;
    // SAFETY: locals; NULL and bad handles are checked by the library.
    unsafe {
        ok(NvSciBufAttrListIsReconciled(u, &mut v));
        assert!(!v);
        ok(NvSciBufAttrListIsReconciled(r, &mut v));
        assert!(v);
        ok(NvSciBufAttrListIsReconciled(obj_list(alloc(r)), &mut v));
        assert!(v);
        assert_eq!(NvSciBufAttrListIsReconciled(u, null_mut()), BAD);
        assert_eq!(NvSciBufAttrListIsReconciled(bogus(), &mut v), BAD);
    }
}

/// Both out-parameters of the reconcile calls, from garbage.
fn reconcile_outs(lists: &[NvSciBufAttrList]) -> (NvSciError, NvSciBufAttrList, NvSciBufAttrList) {
    let (mut r, mut c) = (garbage(), garbage());
    // SAFETY: locals and a live slice.
    let rc = unsafe { NvSciBufAttrListReconcile(lists.as_ptr(), lists.len(), &mut r, &mut c) };
    (rc, r, c)
}

/// Covers: REQ-SIL-005, REQ-BUF-002
#[test]
fn reconcile_out_parameters() {
    let m = module();
    // Success: the conflict list out-parameter is NULL (freeing it is harmless).
    let (rc, r, c) = reconcile_outs(&[raw_list(m, 64, None, false, rw())]);
    assert_eq!(rc, NvSciError_Success);
    assert!(!r.is_null() && r != garbage());
    assert!(c.is_null());
    // Conflict: the reconciled list out-parameter is NULL.
    let (rc, r, c) = reconcile_outs(&[
        raw_list(m, 64, None, false, rw()),
        raw_list(m, 65, None, false, rw()),
    ]);
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert!(r.is_null());
    assert!(!c.is_null() && c != garbage());
    // A refused input or missing key: both NULL.
    let u = raw_list(m, 64, None, false, rw());
    for lists in [vec![u, u], vec![new_list(m)]] {
        let (rc, r, c) = reconcile_outs(&lists);
        assert_eq!(rc, BAD);
        assert!(r.is_null() && c.is_null());
    }
    // A NULL out pointer: the other is left untouched.
    let mut c = garbage();
    // SAFETY: locals.
    unsafe {
        assert_eq!(
            NvSciBufAttrListReconcile([u].as_ptr(), 1, null_mut(), &mut c),
            BAD
        );
        assert_eq!(c, garbage());
        // ReconcileAndObjAlloc: the same rules.
        let mut o: NvSciBufObj = garbage();
        ok(NvSciBufAttrListReconcileAndObjAlloc(
            [u].as_ptr(),
            1,
            &mut o,
            &mut c,
        ));
        assert!(c.is_null() && !o.is_null());
        let bad = [
            raw_list(m, 1, None, false, rw()),
            raw_list(m, 2, None, false, rw()),
        ];
        let mut o: NvSciBufObj = garbage();
        assert_eq!(
            NvSciBufAttrListReconcileAndObjAlloc(bad.as_ptr(), 2, &mut o, &mut c),
            NvSciError_ReconciliationFailed
        );
        assert!(o.is_null() && !c.is_null());
    }
}

fn validate(r: NvSciBufAttrList, lists: &[NvSciBufAttrList]) -> (NvSciError, bool) {
    // Starts from the opposite of the expected answer so that a missing write shows.
    let mut v = true;
    let mut w = false;
    // SAFETY: locals and a live slice.
    let rc = unsafe { NvSciBufAttrListValidateReconciled(r, lists.as_ptr(), lists.len(), &mut v) };
    // SAFETY: as above.
    let rc2 = unsafe { NvSciBufAttrListValidateReconciled(r, lists.as_ptr(), lists.len(), &mut w) };
    assert_eq!(rc, rc2);
    if rc == NvSciError_Success || rc == NvSciError_ReconciliationFailed {
        assert_eq!(v, w, "the flag is written on both outcomes");
    } else {
        assert!(v && !w, "nothing written on BadParameter");
    }
    (rc, v)
}

#[test]
fn validate_reconciled() {
    let m = module();
    let a = raw_list(m, 1000, Some(256), false, NvSciBufAccessPerm_Readonly);
    let b = raw_list(m, 1000, None, true, NvSciBufAccessPerm_Readonly);
    let r = reconcile(&[a, b]).unwrap();
    let valid = (NvSciError_Success, true);
    let invalid = (NvSciError_ReconciliationFailed, false);
    assert_eq!(validate(r, &[a]), valid);
    assert_eq!(validate(r, &[a, b]), valid);
    // Smaller alignment, fewer keys: still satisfied.
    assert_eq!(
        validate(
            r,
            &[raw_list(
                m,
                1000,
                Some(64),
                false,
                NvSciBufAccessPerm_Readonly
            )]
        ),
        valid
    );
    let typed_only = list_with(
        m,
        &[pair(
            NvSciBufGeneralAttrKey_Types,
            &[NvSciBufType_RawBuffer],
        )],
    );
    assert_eq!(validate(r, &[typed_only]), valid);
    // Another size, a larger alignment, more permission, CPU access or CPU caching the
    // reconciled list lacks, another type, an unknown GPU.
    let t = true;
    let ro = NvSciBufAccessPerm_Readonly;
    let cached = raw_list(m, 1000, None, false, ro);
    ok(set1(cached, NvSciBufGeneralAttrKey_EnableCpuCache, &t));
    let gpu = raw_list(m, 1000, None, false, ro);
    ok(set1(
        gpu,
        NvSciBufGeneralAttrKey_GpuId,
        &[NvSciRmGpuId { bytes: [9; 16] }],
    ));
    let r_nocpu = reconcile(&[raw_list(m, 1000, None, false, ro)]).unwrap();
    for (lists, recon) in [
        (vec![raw_list(m, 999, None, false, ro)], r),
        (vec![raw_list(m, 1000, Some(512), false, ro)], r),
        (vec![raw_list(m, 1000, None, false, rw())], r),
        (vec![raw_list(m, 1000, None, true, ro)], r_nocpu),
        (vec![cached], r),
        (
            vec![tensor_list(m, NvSciDataType_Int8, &[1000], &[1], 256)],
            r,
        ),
        (vec![gpu], r),
    ] {
        assert_eq!(validate(recon, &lists), invalid);
    }
    // BadParameter: an unreconciled "reconciled" list, a reconciled input, a list twice,
    // another module, no inputs, unknown handles, NULL out pointer.
    let other = raw_list(module(), 1000, None, false, ro);
    for (recon, lists) in [
        (a, vec![b]),
        (r, vec![r]),
        (r, vec![a, a]),
        (r, vec![other]),
        (r, vec![]),
        (bogus(), vec![a]),
        (r, vec![bogus()]),
    ] {
        assert_eq!(validate(recon, &lists).0, BAD);
    }
    // SAFETY: NULL out pointer checked.
    unsafe {
        assert_eq!(
            NvSciBufAttrListValidateReconciled(r, [a].as_ptr(), 1, null_mut()),
            BAD
        );
    }
}

#[test]
fn validate_against_attrs() {
    let m = module();
    let size = 4096u64;
    let align = 128u64;
    let ty = [NvSciBufType_RawBuffer];
    let pairs = [
        pair(NvSciBufGeneralAttrKey_Types, &ty),
        pair(NvSciBufRawBufferAttrKey_Size, &size),
        pair(NvSciBufRawBufferAttrKey_Align, &align),
    ];
    let r = reconcile(&[list_with(m, &pairs)]).unwrap();
    let check = |p: &[NvSciBufAttrKeyValuePair]| {
        // SAFETY: a live slice whose values point to live data.
        unsafe { NvSciBufAttrListValidateReconciledAgainstAttrs(r, p.as_ptr(), p.len()) }
    };
    ok(check(&pairs));
    ok(check(&pairs[1..2]));
    let other = 4097u64;
    let big = 8192u64;
    let t = true;
    assert_eq!(
        check(&[pair(NvSciBufRawBufferAttrKey_Size, &other)]),
        NvSciError_AttrListValidationFailed
    );
    assert_eq!(
        check(&[pair(NvSciBufRawBufferAttrKey_Align, &big)]),
        NvSciError_AttrListValidationFailed
    );
    assert_eq!(
        check(&[pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &t)]),
        NvSciError_AttrListValidationFailed
    );
    // Invalid key, output key, NULL value, count 0, twice, unreconciled list.
    let nullv = NvSciBufAttrKeyValuePair {
        key: NvSciBufRawBufferAttrKey_Size,
        value: null(),
        len: 8,
    };
    let perm = rw();
    for p in [
        vec![pair(NvSciBufAttrKey(0x1234), &size)],
        vec![pair(NvSciBufGeneralAttrKey_ActualPerm, &perm)],
        vec![nullv],
        vec![pairs[1], pairs[1]],
    ] {
        assert_eq!(check(&p), BAD);
    }
    // SAFETY: NULL and empty inputs are checked by the library.
    unsafe {
        assert_eq!(
            NvSciBufAttrListValidateReconciledAgainstAttrs(r, pairs.as_ptr(), 0),
            BAD
        );
        assert_eq!(
            NvSciBufAttrListValidateReconciledAgainstAttrs(r, null(), 1),
            BAD
        );
        let u = list_with(m, &pairs);
        assert_eq!(
            NvSciBufAttrListValidateReconciledAgainstAttrs(u, pairs.as_ptr(), 1),
            BAD
        );
    }
}

#[test]
fn attach_peer() {
    let m = module();
    let ro = NvSciBufAccessPerm_Readonly;
    let o = alloc(reconcile(&[raw_list(m, 512, None, true, rw())]).unwrap());
    let attach = |lists: &[NvSciBufAttrList]| {
        // SAFETY: a live slice; handles are checked by the library.
        unsafe { NvSciBufObjAttachPeer(o, lists.as_ptr(), lists.len()) }
    };
    ok(attach(&[raw_list(m, 512, None, true, ro)]));
    assert_eq!(
        attach(&[raw_list(m, 1024, None, false, ro)]),
        NvSciError_ReconciliationFailed
    );
    let r = reconcile(&[raw_list(m, 512, None, false, ro)]).unwrap();
    for lists in [
        vec![new_list(m)],
        vec![r],
        vec![raw_list(module(), 512, None, false, ro)],
        vec![],
    ] {
        assert_eq!(attach(&lists), BAD);
    }
    // SAFETY: bogus handle checked.
    unsafe {
        let l = [raw_list(m, 512, None, false, ro)];
        assert_eq!(NvSciBufObjAttachPeer(bogus(), l.as_ptr(), 1), BAD);
    }
}

#[test]
fn version_compatibility() {
    let check = |major, minor| {
        let mut v = false;
        let mut w = true;
        // SAFETY: locals.
        unsafe {
            ok(NvSciBufCheckVersionCompatibility(major, minor, &mut v));
            ok(NvSciBufCheckVersionCompatibility(major, minor, &mut w));
        }
        assert_eq!(v, w, "always written");
        v
    };
    assert!(check(NvSciBufMajorVersion, NvSciBufMinorVersion));
    assert!(check(2, 0));
    assert!(!check(2, NvSciBufMinorVersion + 1));
    assert!(!check(1, 11));
    assert!(!check(3, 0));
    // SAFETY: NULL checked.
    let rc = unsafe { NvSciBufCheckVersionCompatibility(2, 11, null_mut()) };
    assert_eq!(rc, BAD);
}

#[test]
fn no_op_calls() {
    let m = module();
    let o = alloc(reconcile(&[raw_list(m, 64, None, false, rw())]).unwrap());
    let mut perm = NvSciBufAttrValAccessPerm(99);
    // SAFETY: locals; the calls ignore their arguments outside safety builds.
    unsafe {
        ok(NvSciBufObjValidate(o));
        ok(NvSciBufObjValidate(bogus()));
        ok(NvSciBufObjGetMaxPerm(o, 7, &mut perm));
        ok(NvSciBufObjGetMaxPerm(bogus(), 0, null_mut()));
    }
    assert_eq!(perm.0, 99, "accPerm is unused");
}

#[test]
fn debug_dump() {
    let m = module();
    let l = raw_list(m, 0x1234_5678, None, false, rw());
    let (mut buf, mut len) = (null_mut(), 0usize);
    // SAFETY: locals; the buffer is `len + 1` bytes from malloc, released with free.
    unsafe {
        ok(NvSciBufAttrListDebugDump(l, &mut buf, &mut len));
        let text = std::slice::from_raw_parts(buf.cast::<u8>(), len + 1);
        assert_eq!(text[len], 0);
        let text = std::str::from_utf8(&text[..len]).unwrap();
        assert!(text.starts_with("NvSciBufAttrList unreconciled, 1 slot(s)"));
        let size = 0x1234_5678u64
            .to_ne_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>();
        assert!(
            text.contains(&format!("key 0x0010000 len 8 value {size}")),
            "{text}"
        );
        free(buf);
        let mut out = garbage();
        assert_eq!(NvSciBufAttrListDebugDump(bogus(), &mut out, &mut len), BAD);
        assert_eq!(NvSciBufAttrListDebugDump(l, null_mut(), &mut len), BAD);
        assert_eq!(NvSciBufAttrListDebugDump(l, &mut out, null_mut()), BAD);
        assert_eq!(out, garbage());
    }
}

fn gpu(b: u8) -> NvSciRmGpuId {
    NvSciRmGpuId { bytes: [b; 16] }
}

#[test]
fn general_gpu_and_peer_keys() {
    let m = module();
    let ro = NvSciBufAccessPerm_Readonly;
    // VidMem_GpuId: the invalid id is accepted, a real dGPU is not (Orin has none).
    let l = raw_list(m, 64, None, false, ro);
    ok(set1(l, NvSciBufGeneralAttrKey_VidMem_GpuId, &gpu(0)));
    let r = reconcile(&[l]).unwrap();
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_VidMem_GpuId),
        Some(vec![0; 16])
    );
    assert_eq!(get(r, NvSciBufGeneralAttrKey_GpuId), Some(vec![0; 16]));
    assert_eq!(get(r, NvSciBufGeneralAttrKey_EnableGpuCache), None);
    let l = raw_list(m, 64, None, false, ro);
    ok(set1(l, NvSciBufGeneralAttrKey_VidMem_GpuId, &gpu(3)));
    assert_eq!(
        reconcile(&[l]).unwrap_err(),
        (NvSciError_NotSupported, null_mut())
    );

    // EnableGpuCache naming a GPU outside GpuId: a conflict.
    let l = raw_list(m, 64, None, false, ro);
    let cache = [NvSciBufAttrValGpuCache {
        gpuId: gpu(5),
        cacheability: true,
    }];
    ok(set(
        l,
        &[
            pair(NvSciBufGeneralAttrKey_GpuId, &[gpu(1)]),
            pair(NvSciBufGeneralAttrKey_EnableGpuCache, &cache),
        ],
    ));
    assert_eq!(
        reconcile(&[l]).unwrap_err().0,
        NvSciError_ReconciliationFailed
    );

    // GpuSwNeedCacheCoherency: a cached GPU needs maintenance when the CPU accesses too.
    let with_gpu = |cpu: bool| {
        let l = raw_list(m, 64, None, cpu, ro);
        ok(set1(l, NvSciBufGeneralAttrKey_GpuId, &[gpu(1)]));
        reconcile(&[l]).unwrap()
    };
    let entry = |c: u8| [&[1u8; 16][..], &[c]].concat();
    let r = with_gpu(false);
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_EnableGpuCache),
        Some(entry(1))
    );
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency),
        Some(entry(0))
    );
    let r = with_gpu(true);
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency),
        Some(entry(1))
    );

    // EnableGpuCompression: granted to a single requesting GPU without CPU access.
    let comp = |id: NvSciRmGpuId| NvSciBufAttrValGpuCompression {
        gpuId: id,
        compressionType: NvSciBufCompressionType_GenericCompressible,
    };
    let compressed = |cpu: bool, ids: &[NvSciRmGpuId], asks: &[NvSciBufAttrValGpuCompression]| {
        let l = raw_list(m, 64, None, cpu, ro);
        ok(set(
            l,
            &[
                pair(NvSciBufGeneralAttrKey_GpuId, ids),
                pair(NvSciBufGeneralAttrKey_EnableGpuCompression, asks),
            ],
        ));
        let r = reconcile(&[l]).unwrap();
        let b = get(r, NvSciBufGeneralAttrKey_EnableGpuCompression).unwrap();
        b.chunks_exact(20)
            .map(|c| u32::from_ne_bytes(c[16..].try_into().unwrap()))
            .collect::<Vec<u32>>()
    };
    let (g, n) = (
        NvSciBufCompressionType_GenericCompressible.0,
        NvSciBufCompressionType_None.0,
    );
    assert_eq!(
        compressed(false, &[gpu(1), gpu(2)], &[comp(gpu(1))]),
        vec![g, n]
    );
    assert_eq!(compressed(true, &[gpu(1)], &[comp(gpu(1))]), vec![n]);
    assert_eq!(
        compressed(false, &[gpu(1), gpu(2)], &[comp(gpu(1)), comp(gpu(2))]),
        vec![n, n]
    );
    // `None` may not be set.
    let none = [NvSciBufAttrValGpuCompression {
        gpuId: gpu(1),
        compressionType: NvSciBufCompressionType_None,
    }];
    let l = raw_list(m, 64, None, false, ro);
    assert_eq!(
        set1(l, NvSciBufGeneralAttrKey_EnableGpuCompression, &none),
        BAD
    );

    // Peer keys: the union; invalid engines and platforms refused.
    let loc = |s: u32| NvSciBufPeerLocationInfo {
        socID: s,
        vmID: 0,
        reserved: 0,
    };
    let a = raw_list(m, 64, None, false, ro);
    let b = raw_list(m, 64, None, false, ro);
    ok(set1(
        a,
        NvSciBufGeneralAttrKey_PeerLocationInfo,
        &[loc(1), loc(2)],
    ));
    ok(set1(
        b,
        NvSciBufGeneralAttrKey_PeerLocationInfo,
        &[loc(2), loc(3)],
    ));
    let eng = NvSciBufPeerHwEngine {
        engName: NvSciBufHwEngName_DLA,
        platName: NvSciBufPlatformName_Orin,
    };
    ok(set1(a, NvSciBufGeneralAttrKey_PeerHwEngineArray, &[eng]));
    let r = reconcile(&[a, b]).unwrap();
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_PeerLocationInfo)
            .unwrap()
            .len(),
        3 * 16
    );
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_PeerHwEngineArray)
            .unwrap()
            .len(),
        8
    );
    for e in [
        NvSciBufPeerHwEngine {
            engName: NvSciBufHwEngName_Invalid,
            platName: NvSciBufPlatformName_Orin,
        },
        NvSciBufPeerHwEngine {
            engName: NvSciBufHwEngName_DLA,
            platName: NvSciBufPlatformName_UpperBound,
        },
    ] {
        assert_eq!(set1(b, NvSciBufGeneralAttrKey_PeerHwEngineArray, &[e]), BAD);
    }
}
