//! Out-parameters as nvscisync.h states them: what each call writes on success and that
//! nothing is written on an error (except where `sil/README.md` says otherwise), plus the
//! calls added for the full single-process API.
//!
//! Covers: REQ-SIL-005

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::*;

const BAD: NvSciError = NvSciError_BadParameter;

/// A handle value that is neither NULL nor one the library gave out: a sentinel that
/// shows whether a call wrote an out-parameter.
fn sentinel<T>() -> *mut T {
    std::ptr::without_provenance_mut(0xDEAD_0000)
}

fn junk_fence() -> NvSciSyncFence {
    NvSciSyncFence {
        payload: [1, 2, 3, 4, 5, 6],
    }
}

#[test]
fn reconcile_writes_null_conflict_list_on_success() {
    let m = module();
    let (s, w) = (signaler(m, true), waiter(m, true, false));
    let l = [s, w];
    let (mut r, mut c) = (sentinel(), sentinel());
    // SAFETY: locals.
    ok(unsafe { NvSciSyncAttrListReconcile(l.as_ptr(), 2, &mut r, &mut c) });
    assert!(c.is_null(), "no conflict list: NULL");
    assert_ne!(r, sentinel());
    // Freeing the NULL conflict list is harmless.
    // SAFETY: NULL is ignored.
    unsafe { NvSciSyncAttrListFree(c) };
    let (mut o, mut c) = (sentinel(), sentinel());
    // SAFETY: locals.
    ok(unsafe { NvSciSyncAttrListReconcileAndObjAlloc(l.as_ptr(), 2, &mut o, &mut c) });
    assert!(c.is_null());
    assert_ne!(o, sentinel());
    // A conflict: the conflict list is written, the reconciled list / object are not.
    let s2 = signaler(m, false);
    let bad = [s, s2, w];
    let (mut r, mut c) = (sentinel(), sentinel());
    // SAFETY: locals.
    let rc = unsafe { NvSciSyncAttrListReconcile(bad.as_ptr(), 3, &mut r, &mut c) };
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(r, sentinel());
    assert!(!c.is_null() && c != sentinel());
    let (mut o, mut c) = (sentinel(), sentinel());
    // SAFETY: locals.
    let rc = unsafe { NvSciSyncAttrListReconcileAndObjAlloc(bad.as_ptr(), 3, &mut o, &mut c) };
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(o, sentinel());
    assert!(!c.is_null() && c != sentinel());
    // BadParameter: neither is written.
    let dup = [s, s];
    let (mut r, mut c) = (sentinel(), sentinel());
    // SAFETY: locals.
    let rc = unsafe { NvSciSyncAttrListReconcile(dup.as_ptr(), 2, &mut r, &mut c) };
    assert_eq!(rc, BAD);
    assert_eq!((r, c), (sentinel(), sentinel()));
    let (mut o, mut c) = (sentinel(), sentinel());
    // SAFETY: locals.
    let rc = unsafe { NvSciSyncAttrListReconcileAndObjAlloc(dup.as_ptr(), 2, &mut o, &mut c) };
    assert_eq!(rc, BAD);
    assert_eq!((o, c), (sentinel(), sentinel()));
}

#[test]
fn handle_out_params_untouched_on_error() {
    let m = module();
    let s = signaler(m, true);
    // SAFETY: locals; bogus handles are checked by the library.
    unsafe {
        let mut l = sentinel();
        assert_eq!(NvSciSyncAttrListCreate(bogus(), &mut l), BAD);
        assert_eq!(l, sentinel());
        let mut ctx = sentinel();
        assert_eq!(NvSciSyncCpuWaitContextAlloc(bogus(), &mut ctx), BAD);
        assert_eq!(ctx, sentinel());
        let mut rec = true;
        assert_eq!(NvSciSyncAttrListIsReconciled(bogus(), &mut rec), BAD);
        assert!(rec);
        assert_eq!(NvSciSyncAttrListClone(bogus(), &mut l), BAD);
        assert_eq!(l, sentinel());
        let arr = [s];
        assert_eq!(
            NvSciSyncAttrListAppendUnreconciled(arr.as_ptr(), 0, &mut l),
            BAD
        );
        assert_eq!(l, sentinel());
        let mut o = sentinel();
        assert_eq!(NvSciSyncObjAlloc(s, &mut o), BAD, "unreconciled");
        assert_eq!(o, sentinel());
        assert_eq!(NvSciSyncObjDup(bogus(), &mut o), BAD);
        assert_eq!(o, sentinel());
        assert_eq!(NvSciSyncObjGetAttrList(bogus(), &mut l), BAD);
        assert_eq!(l, sentinel());
        let (mut v, mut n) = (sentinel::<c_void>().cast_const(), 77usize);
        assert_eq!(
            NvSciSyncAttrListGetAttr(s, NvSciSyncAttrKey_UpperBound, &mut v, &mut n),
            BAD
        );
        assert_eq!((v, n), (sentinel::<c_void>().cast_const(), 77));
    }
}

#[test]
fn fence_out_params_untouched_on_error() {
    let m = module();
    let o = object(m, false, true, false); // no CPU signaler, no timestamps
    let f = update(o, 3);
    // SAFETY: locals and live handles.
    unsafe {
        // GenerateFence without CPU signaler: the fence is not touched.
        let mut g = f;
        assert_eq!(NvSciSyncObjGenerateFence(o, &mut g), BAD);
        assert_eq!(g, f);
        // ExtractFence on a cleared fence: ClearedFence, id/value not written.
        let (mut id, mut v) = (7u64, 7u64);
        let c = cleared();
        assert_eq!(
            NvSciSyncFenceExtractFence(&c, &mut id, &mut v),
            NvSciError_ClearedFence
        );
        assert_eq!((id, v), (7, 7));
        // GetTimestamp without timestamps.
        let mut ts = 9u64;
        assert_eq!(NvSciSyncFenceGetTimestamp(&f, &mut ts), BAD);
        assert_eq!(ts, 9);
        let mut slot = 9u32;
        assert_eq!(NvSciSyncFenceExtractTimestampSlot(&mut g, &mut slot), BAD);
        assert_eq!(slot, 9);
        // FenceDup of an invalid source: dst untouched.
        let junk = junk_fence();
        assert_eq!(NvSciSyncFenceDup(&junk, &mut g), BAD);
        assert_eq!(g, f);
        let mut g = f;
        clear(&mut g);
    }
}

/// Covers: REQ-SYNC-005
#[test]
fn invalid_destination_fences_are_refused() {
    let m = module();
    let o = object(m, true, true, false);
    let f = update(o, 1);
    // SAFETY: locals and live handles.
    unsafe {
        // A destination that is neither cleared nor a fence of this library (nvscisync.h:
        // the caller must zero a fence before its first use).
        let mut j = junk_fence();
        assert_eq!(NvSciSyncObjGenerateFence(o, &mut j), BAD);
        assert_eq!(NvSciSyncFenceUpdateFence(o, 0, 1, &mut j), BAD);
        assert_eq!(NvSciSyncSilObjEngineFence(o, &mut j), BAD);
        assert_eq!(NvSciSyncFenceDup(&f, &mut j), BAD);
        assert_eq!(j, junk_fence(), "nothing written");
        // FenceClear zeroes it (a void call has no error to report).
        NvSciSyncFenceClear(&mut j);
        assert_eq!(j, cleared());
        let mut f = f;
        clear(&mut f);
    }
}

/// Covers: REQ-SYNC-001
#[test]
fn validate_reconciled() {
    let m = module();
    let s = signaler(m, true);
    let w = waiter(m, true, true);
    let r = reconcile(&[s, w]).unwrap();
    let mut valid = false;
    let v = |l: &[NvSciSyncAttrList], valid: &mut bool| {
        // SAFETY: locals.
        unsafe { NvSciSyncAttrListValidateReconciled(r, l.as_ptr(), l.len(), valid) }
    };
    ok(v(&[s, w], &mut valid));
    assert!(valid);
    ok(v(&[s], &mut valid));
    assert!(valid, "the signaler alone is satisfied");
    // A list that asks for more than the reconciled list gives: BadParameter, false.
    let g = list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_WaitOnly),
            cpu: Some(true),
            prims: Some(&[NvSciSyncAttrValPrimitiveType_Syncpoint.0]),
            ..Opts::default()
        },
    );
    assert_eq!(v(&[s, g], &mut valid), BAD);
    assert!(!valid);
    // NeedCpuAccess must match: the reconciled list has it, a list without it does not.
    let nocpu = waiter(m, false, false);
    valid = true;
    assert_eq!(v(&[nocpu], &mut valid), BAD);
    assert!(!valid);
    // Deterministic fences asked, the reconciled list has none.
    let sp = reconcile(&[signaler_sp(m), waiter(m, true, false)]).unwrap();
    let det = list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_WaitOnly),
            cpu: Some(true),
            deterministic: Some(true),
            ..Opts::default()
        },
    );
    let arr = [det];
    // SAFETY: locals.
    let rc = unsafe { NvSciSyncAttrListValidateReconciled(sp, arr.as_ptr(), 1, &mut valid) };
    assert_eq!(rc, BAD);
    // Argument errors: nothing written.
    valid = true;
    let arr = [s];
    // SAFETY: locals; bogus values are checked by the library.
    unsafe {
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(s, arr.as_ptr(), 1, &mut valid),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(bogus(), arr.as_ptr(), 1, &mut valid),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(r, null(), 1, &mut valid),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(r, arr.as_ptr(), 0, &mut valid),
            BAD
        );
        let two = [s, s];
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(r, two.as_ptr(), 2, &mut valid),
            BAD
        );
        let rr = [r];
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(r, rr.as_ptr(), 1, &mut valid),
            BAD
        );
        let other = [signaler(module(), true)];
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(r, other.as_ptr(), 1, &mut valid),
            BAD
        );
        assert_eq!(
            NvSciSyncAttrListValidateReconciled(r, arr.as_ptr(), 1, null_mut()),
            BAD
        );
    }
    assert!(valid);
}

/// A CPU signaler list that leaves the primitive to reconciliation (a sync point).
fn signaler_sp(m: NvSciSyncModule) -> NvSciSyncAttrList {
    list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_SignalOnly),
            cpu: Some(true),
            ..Opts::default()
        },
    )
}

/// Reads the `u64` at byte `off` of a dump.
fn word(b: &[u8], off: usize) -> u64 {
    u64::from_ne_bytes(b[off..off + 8].try_into().unwrap())
}

#[test]
fn debug_dump() {
    let m = module();
    let s = signaler(m, true);
    let (mut buf, mut len) = (null_mut::<c_void>(), 0usize);
    // SAFETY: locals.
    ok(unsafe { NvSciSyncAttrListDebugDump(s, &mut buf, &mut len) });
    assert_eq!(buf.addr() % 8, 0);
    // SAFETY: the library returned `len` readable bytes, valid while `s` lives.
    let b = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), len) }.to_vec();
    assert_eq!(word(&b, 0), 0x4E76_5353_696C_4C01);
    assert_eq!(word(&b, 8), 0b10, "unreconciled, writable");
    assert_eq!(word(&b, 16), 1, "one slot");
    // Records in key order: NeedCpuAccess (1), RequiredPerm (2), deterministic (6).
    let mut off = 24;
    let mut keys = Vec::new();
    while off < b.len() {
        let slot = u32::from_ne_bytes(b[off..off + 4].try_into().unwrap());
        let key = u32::from_ne_bytes(b[off + 4..off + 8].try_into().unwrap());
        let n = word(&b, off + 8) as usize;
        assert_eq!(slot, 0);
        if key == NvSciSyncAttrKey_RequiredPerm.0 {
            assert_eq!(word(&b, off + 16), NvSciSyncAccessPerm_SignalOnly);
        }
        keys.push(key);
        off += 16 + n.next_multiple_of(8);
    }
    assert_eq!(off, b.len());
    assert_eq!(
        keys,
        [
            NvSciSyncAttrKey_NeedCpuAccess.0,
            NvSciSyncAttrKey_RequiredPerm.0,
            NvSciSyncAttrKey_RequireDeterministicFences.0
        ]
    );
    // The same contents give the same blob.
    let (mut buf2, mut len2) = (null_mut::<c_void>(), 0usize);
    // SAFETY: locals.
    ok(unsafe { NvSciSyncAttrListDebugDump(s, &mut buf2, &mut len2) });
    assert_eq!((buf2, len2), (buf, len));
    // A reconciled list: flags say so.
    let r = reconcile(&[s, waiter(m, true, false)]).unwrap();
    // SAFETY: locals.
    ok(unsafe { NvSciSyncAttrListDebugDump(r, &mut buf2, &mut len2) });
    // SAFETY: the library returned `len2` readable bytes.
    let b = unsafe { std::slice::from_raw_parts(buf2.cast::<u8>(), len2) };
    assert_eq!(word(b, 8), 0b01);
    // Errors: nothing written.
    let (mut b3, mut l3) = (sentinel::<c_void>(), 5usize);
    // SAFETY: locals; bogus handles and NULL are checked by the library.
    unsafe {
        assert_eq!(NvSciSyncAttrListDebugDump(bogus(), &mut b3, &mut l3), BAD);
        assert_eq!(NvSciSyncAttrListDebugDump(s, null_mut(), &mut l3), BAD);
        assert_eq!(NvSciSyncAttrListDebugDump(s, &mut b3, null_mut()), BAD);
    }
    assert_eq!((b3, l3), (sentinel(), 5));
}

#[test]
fn version_compatibility() {
    let check = |major, minor| {
        let mut c = None::<bool>;
        let mut out = false;
        // SAFETY: `out` is a local.
        let rc = unsafe { NvSciSyncCheckVersionCompatibility(major, minor, &mut out) };
        if rc == NvSciError_Success {
            c = Some(out);
        }
        c
    };
    assert_eq!(
        check(NvSciSyncMajorVersion, NvSciSyncMinorVersion),
        Some(true)
    );
    assert_eq!(check(2, 0), Some(true));
    assert_eq!(check(2, 9), Some(false), "built against a newer minor");
    assert_eq!(check(1, 8), Some(false));
    assert_eq!(check(3, 0), Some(false));
    // SAFETY: NULL is checked.
    let rc = unsafe { NvSciSyncCheckVersionCompatibility(2, 8, null_mut()) };
    assert_eq!(rc, BAD);
}

#[test]
fn no_op_validations_succeed() {
    let m = module();
    let o = object(m, true, true, false);
    let mut l = null_mut();
    // SAFETY: locals; the no-op calls read nothing.
    unsafe {
        ok(NvSciSyncObjValidate(o));
        ok(NvSciSyncObjGetAttrList(o, &mut l));
        ok(NvSciSyncAttrListValidateReconciledAgainstAttrs(
            l,
            null(),
            0,
            NvSciSyncAccessPerm_WaitOnly,
        ));
    }
}

/// Covers: REQ-SYNC-001
#[test]
fn slot_calls() {
    let m = module();
    let (s, w) = (signaler(m, true), waiter(m, false, false));
    let mut a = null_mut();
    let arr = [s, w];
    // SAFETY: locals; NULL and bogus handles are checked by the library.
    unsafe {
        ok(NvSciSyncAttrListAppendUnreconciled(arr.as_ptr(), 2, &mut a));
        assert_eq!(NvSciSyncAttrListGetSlotCount(a), 2);
        assert_eq!(NvSciSyncAttrListGetSlotCount(s), 1);
        assert_eq!(NvSciSyncAttrListGetSlotCount(null_mut()), 0);
        assert_eq!(NvSciSyncAttrListGetSlotCount(bogus()), 0);
        let mut p = [NvSciSyncAttrKeyValuePair {
            attrKey: NvSciSyncAttrKey_RequiredPerm,
            value: sentinel::<c_void>().cast_const(),
            len: 99,
        }];
        assert_eq!(NvSciSyncAttrListSlotGetAttrs(a, 2, p.as_mut_ptr(), 1), BAD);
        assert_eq!(
            (p[0].value, p[0].len),
            (sentinel::<c_void>().cast_const(), 99)
        );
        ok(NvSciSyncAttrListSlotGetAttrs(a, 1, p.as_mut_ptr(), 1));
        assert_eq!(p[0].len, 8);
        assert_eq!(*p[0].value.cast::<u64>(), NvSciSyncAccessPerm_WaitOnly);
    }
}
