//! Both primitives: how reconciliation picks one, sync-point ids and thresholds, the
//! 32-bit values, wait modes and the SIL extension calls on each kind.

mod common;

use std::collections::HashSet;
use std::ptr::null_mut;
use std::thread;
use std::time::Duration;

use common::*;

const BAD: NvSciError = NvSciError_BadParameter;
const SYNCPOINT: u32 = NvSciSyncAttrValPrimitiveType_Syncpoint.0;
const SEMA32: u32 = NvSciSyncAttrValPrimitiveType_SysmemSemaphore.0;
const SEMA64: u32 = NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0;

fn with(
    m: NvSciSyncModule,
    perm: u64,
    cpu: Option<bool>,
    det: Option<bool>,
    prims: Option<&'static [u32]>,
) -> NvSciSyncAttrList {
    list(
        m,
        Opts {
            perm: Some(perm),
            cpu,
            deterministic: det,
            prims,
            ..Opts::default()
        },
    )
}

/// The primitive type a reconciliation of `lists` picks.
fn picked(lists: &[NvSciSyncAttrList]) -> u32 {
    let r = reconcile(lists).unwrap();
    let p = get_u32(r, NvSciSyncAttrKey_PrimitiveInfo).unwrap();
    let max = get_u64(r, NvSciSyncAttrKey_MaxPrimitiveValue).unwrap();
    let want = if p == SYNCPOINT {
        u64::from(u32::MAX)
    } else {
        u64::MAX
    };
    assert_eq!(max, want, "MaxPrimitiveValue fits the primitive");
    // SAFETY: handle from this library.
    unsafe { NvSciSyncAttrListFree(r) };
    p
}

/// A CPU-signalled, CPU-waited object of the given kind (`det`: deterministic semaphore,
/// else the default sync point).
fn cpu_object(m: NvSciSyncModule, det: bool, timestamps: bool) -> NvSciSyncObj {
    let s = with(
        m,
        NvSciSyncAccessPerm_SignalOnly,
        Some(true),
        Some(det),
        None,
    );
    let w = waiter(m, true, timestamps);
    let o = alloc(&[s, w]);
    // SAFETY: handles from this library.
    unsafe {
        NvSciSyncAttrListFree(s);
        NvSciSyncAttrListFree(w);
    }
    o
}

fn prim_of(o: NvSciSyncObj) -> u32 {
    let mut l = null_mut();
    // SAFETY: `l` is a local.
    ok(unsafe { NvSciSyncObjGetAttrList(o, &mut l) });
    get_u32(l, NvSciSyncAttrKey_PrimitiveInfo).unwrap()
}

fn engine_fence(o: NvSciSyncObj) -> NvSciSyncFence {
    let mut f = cleared();
    // SAFETY: `f` is a local fence.
    ok(unsafe { NvSciSyncSilObjEngineFence(o, &mut f) });
    f
}

fn update_id(o: NvSciSyncObj, id: u64, value: u64, f: &mut NvSciSyncFence) -> NvSciError {
    // SAFETY: `f` is a live fence.
    unsafe { NvSciSyncFenceUpdateFence(o, id, value, f) }
}

fn wait_mode(f: &NvSciSyncFence, ctx: NvSciSyncCpuWaitContext, mode: u32) -> NvSciError {
    // SAFETY: `f` is a live fence.
    unsafe { NvSciSyncFenceWaitWithMode(f, ctx, 0, NvSciSyncWaitMode(mode)) }
}

/// Covers: REQ-SYNC-002
#[test]
fn reconciliation_picks_a_sync_point_unless_deterministic() {
    let m = module();
    let (sig, wait) = (NvSciSyncAccessPerm_SignalOnly, NvSciSyncAccessPerm_WaitOnly);
    // The default: CPU lists without PrimitiveInfo allow Syncpoint, SysmemSemaphore and
    // SysmemSemaphorePayload64b; the sync point wins.
    let s = with(m, sig, Some(true), None, None);
    let w = with(m, wait, Some(true), None, None);
    assert_eq!(picked(&[s, w]), SYNCPOINT);
    // Lists that say nothing at all: also a sync point.
    let s0 = with(m, sig, None, None, None);
    let w0 = with(m, wait, None, None, None);
    assert_eq!(picked(&[s0, w0]), SYNCPOINT);
    // Deterministic fences on any list: the 64-bit semaphore.
    let wd = with(m, wait, Some(true), Some(true), None);
    assert_eq!(picked(&[s, wd]), SEMA64);
    let sd = with(m, sig, Some(false), Some(true), Some(&[SYNCPOINT, SEMA64]));
    assert_eq!(picked(&[sd, w]), SEMA64);
    // RequireDeterministicFences = false is the default.
    let wf = with(m, wait, Some(true), Some(false), None);
    assert_eq!(picked(&[s, wf]), SYNCPOINT);
}

/// Covers: REQ-SYNC-002
#[test]
fn primitive_info_order_is_respected() {
    let m = module();
    let (sig, wait) = (NvSciSyncAccessPerm_SignalOnly, NvSciSyncAccessPerm_WaitOnly);
    let w = with(m, wait, Some(true), None, None);
    // The signaler's order decides among what every list allows.
    let s_sema_first = with(m, sig, Some(false), None, Some(&[SEMA64, SYNCPOINT]));
    assert_eq!(picked(&[s_sema_first, w]), SEMA64);
    let s_sp_first = with(m, sig, Some(false), None, Some(&[SYNCPOINT, SEMA64]));
    assert_eq!(picked(&[s_sp_first, w]), SYNCPOINT);
    // A waiter's list restricts the choice.
    let w_sema = with(m, wait, Some(false), None, Some(&[SEMA64]));
    assert_eq!(picked(&[s_sp_first, w_sema]), SEMA64);
    // Without a signaler order, the first list that gives one.
    let s_none = with(m, sig, Some(true), None, None);
    let w_order = with(m, wait, Some(false), None, Some(&[SEMA64, SYNCPOINT]));
    assert_eq!(picked(&[s_none, w_order]), SEMA64);
    // Unimplemented types in an order are skipped.
    let s_32 = with(m, sig, Some(false), None, Some(&[SEMA32, SEMA64]));
    assert_eq!(picked(&[s_32, w]), SEMA64);
}

/// Covers: REQ-SYNC-002
#[test]
fn deterministic_fences_with_sync_points_only_conflict() {
    let m = module();
    let s = with(
        m,
        NvSciSyncAccessPerm_SignalOnly,
        Some(false),
        None,
        Some(&[SYNCPOINT]),
    );
    let w = with(
        m,
        NvSciSyncAccessPerm_WaitOnly,
        Some(true),
        Some(true),
        None,
    );
    let (rc, c) = reconcile(&[s, w]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    // The conflict list names both keys: the signaler's PrimitiveInfo, the waiter's
    // RequireDeterministicFences; nothing else.
    // SAFETY: handle from this library.
    assert_eq!(unsafe { NvSciSyncAttrListGetSlotCount(c) }, 2);
    assert_eq!(
        get_bytes(c, 0, NvSciSyncAttrKey_PrimitiveInfo),
        Some(SYNCPOINT.to_ne_bytes().to_vec())
    );
    assert_eq!(
        get_bytes(c, 0, NvSciSyncAttrKey_RequireDeterministicFences),
        None
    );
    assert_eq!(get_bytes(c, 1, NvSciSyncAttrKey_PrimitiveInfo), None);
    assert_eq!(
        get_bytes(c, 1, NvSciSyncAttrKey_RequireDeterministicFences),
        Some(vec![1])
    );
    assert_eq!(get_bytes(c, 1, NvSciSyncAttrKey_RequiredPerm), None);
    assert_eq!(get_bytes(c, 1, NvSciSyncAttrKey_NeedCpuAccess), None);
    // ReconcileAndObjAlloc reports the same conflict.
    let (mut o, mut c2) = (null_mut(), null_mut());
    let l = [s, w];
    // SAFETY: locals.
    let rc = unsafe { NvSciSyncAttrListReconcileAndObjAlloc(l.as_ptr(), 2, &mut o, &mut c2) };
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert!(o.is_null());
    // SAFETY: handle from this library.
    assert_eq!(unsafe { NvSciSyncAttrListGetSlotCount(c2) }, 2);
    // NeedCpuAccess's implied set does not intersect a Vidmem-only list.
    let v = with(
        m,
        NvSciSyncAccessPerm_WaitOnly,
        Some(false),
        None,
        Some(&[NvSciSyncAttrValPrimitiveType_VidmemSemaphore.0]),
    );
    let s_cpu = with(m, NvSciSyncAccessPerm_SignalOnly, Some(true), None, None);
    let (rc, c3) = reconcile(&[s_cpu, v]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(
        get_bytes(c3, 0, NvSciSyncAttrKey_RequireDeterministicFences),
        None
    );
}

/// Covers: REQ-SYNC-003, REQ-SYNC-005
#[test]
fn sync_point_ids_are_unique_non_zero_and_in_fences() {
    let m = module();
    let mut ids = HashSet::new();
    let mut objs = Vec::new();
    for _ in 0..64 {
        let o = cpu_object(m, false, false);
        assert_eq!(prim_of(o), SYNCPOINT);
        let f = generate(o);
        let (id, v) = extract(&f).unwrap();
        assert_ne!(id, 0);
        assert!(id < u64::from(u32::MAX));
        assert!(ids.insert(id), "sync-point id {id} given twice");
        assert_eq!(v, 1);
        objs.push((o, f));
    }
    // Freed objects do not give their ids back.
    for (o, mut f) in objs {
        clear(&mut f);
        // SAFETY: handle from this library.
        unsafe { NvSciSyncObjFree(o) };
    }
    for _ in 0..8 {
        let o = cpu_object(m, false, false);
        let (id, _) = extract(&generate(o)).unwrap();
        assert!(ids.insert(id), "sync-point id {id} reused");
    }
    // Semaphores: primitive id 0.
    let d = cpu_object(m, true, false);
    assert_eq!(prim_of(d), SEMA64);
    assert_eq!(extract(&generate(d)), Ok((0, 1)));
    assert_eq!(extract(&engine_fence(d)), Ok((0, 2)));
}

/// Covers: REQ-SYNC-003
#[test]
fn sync_point_threshold_forbids_wait_before_signal() {
    let m = module();
    let ctx = context(m);
    let o = cpu_object(m, false, false);
    let f1 = generate(o);
    let (id, one) = extract(&f1).unwrap();
    assert_eq!(one, 1);
    let mut f = cleared();
    // Values up to the threshold (1) may be built, 0 included.
    ok(update_id(o, id, 1, &mut f));
    assert_eq!(extract(&f), Ok((id, 1)));
    ok(update_id(o, id, 0, &mut f));
    ok(wait(&f, ctx, 0));
    // Past the threshold: Overflow ("value is invalid"), fence untouched.
    let before = f;
    assert_eq!(update_id(o, id, 2, &mut f), NvSciError_Overflow);
    assert_eq!(
        update_id(o, id, u64::from(u32::MAX) + 1, &mut f),
        NvSciError_Overflow
    );
    // Another id: Overflow ("id is invalid").
    assert_eq!(update_id(o, 0, 1, &mut f), NvSciError_Overflow);
    assert_eq!(update_id(o, id + 1, 1, &mut f), NvSciError_Overflow);
    assert_eq!(f, before);
    // The signaler advances the threshold: GenerateFence, the engine's EngineFence, and a
    // CPU signal that goes past it.
    let f2 = generate(o);
    assert_eq!(extract(&f2), Ok((id, 2)));
    ok(update_id(o, id, 2, &mut f));
    let e3 = engine_fence(o);
    assert_eq!(extract(&e3), Ok((id, 3)));
    ok(update_id(o, id, 3, &mut f));
    assert_eq!(update_id(o, id, 4, &mut f), NvSciError_Overflow);
    for _ in 0..4 {
        signal(o);
    }
    ok(update_id(o, id, 4, &mut f));
    ok(wait(&f, ctx, 0));
    assert_eq!(update_id(o, id, 5, &mut f), NvSciError_Overflow);
    // A generated fence after the signals is one past the counter.
    assert_eq!(extract(&generate(o)), Ok((id, 5)));
    // Waiters cannot build fences for values the signaler has not promised, but a
    // semaphore takes every value (deterministic fences).
    let d = cpu_object(m, true, false);
    ok(update_id(d, 0, 1000, &mut f));
    assert_eq!(update_id(d, 1, 1, &mut f), NvSciError_Overflow);
    clear(&mut f);
}

/// Covers: REQ-SYNC-003
#[test]
fn sync_point_signals_wake_waiters() {
    let m = module();
    let ctx = context(m);
    let o = cpu_object(m, false, true);
    let f = generate(o);
    assert_eq!(wait(&f, ctx, 0), NvSciError_Timeout);
    let h = Send(o);
    let t = thread::spawn(move || {
        let h = h;
        thread::sleep(Duration::from_millis(10));
        // SAFETY: live handle.
        unsafe { NvSciSyncObjSignal(h.0) }
    });
    ok(wait(&f, ctx, -1));
    ok(t.join().unwrap());
    // Timestamps work on sync points.
    let mut ts = 0;
    // SAFETY: locals.
    ok(unsafe { NvSciSyncFenceGetTimestamp(&f, &mut ts) });
    assert!(ts > 0);
}

/// Covers: REQ-SYNC-003
#[test]
fn wait_modes_follow_the_primitive() {
    let m = module();
    let ctx = context(m);
    let sp = cpu_object(m, false, false);
    let sem = cpu_object(m, true, false);
    let (fs, fm) = (generate(sp), generate(sem));
    signal(sp);
    signal(sem);
    let (default, yield_, spin, blocking) = (0, 1, 2, 3);
    // Sync points: Blocking only (also their default).
    ok(wait_mode(&fs, ctx, default));
    ok(wait_mode(&fs, ctx, blocking));
    assert_eq!(wait_mode(&fs, ctx, yield_), NvSciError_UnsupportedConfig);
    assert_eq!(wait_mode(&fs, ctx, spin), NvSciError_UnsupportedConfig);
    // Semaphores: BusyWithYield (the default) and BusyNoYield.
    ok(wait_mode(&fm, ctx, default));
    ok(wait_mode(&fm, ctx, yield_));
    ok(wait_mode(&fm, ctx, spin));
    assert_eq!(wait_mode(&fm, ctx, blocking), NvSciError_UnsupportedConfig);
    // Not a wait mode at all.
    assert_eq!(wait_mode(&fs, ctx, 4), BAD);
    assert_eq!(wait_mode(&fm, ctx, u32::MAX), BAD);
    // Unsupported modes are refused before waiting (a pending fence too).
    let pending = generate(sp);
    assert_eq!(wait_mode(&pending, ctx, spin), NvSciError_UnsupportedConfig);
    assert_eq!(wait_mode(&pending, ctx, blocking), NvSciError_Timeout);
}

/// Covers: REQ-SYNC-003
#[test]
fn engines_signal_and_wait_on_sync_points() {
    let m = module();
    // Engine signaler and engine waiter: no CPU access at all.
    let s = with(m, NvSciSyncAccessPerm_SignalOnly, Some(false), None, None);
    let w = with(m, NvSciSyncAccessPerm_WaitOnly, Some(false), None, None);
    let o = alloc(&[s, w]);
    assert_eq!(prim_of(o), SYNCPOINT);
    let f1 = engine_fence(o);
    let f2 = engine_fence(o);
    let (id, v1) = extract(&f1).unwrap();
    assert_ne!(id, 0);
    assert_eq!((extract(&f2).unwrap().1, v1), (2, 1));
    let mut reached = 0;
    // SAFETY: locals and live handles.
    unsafe {
        assert_eq!(
            NvSciSyncSilFenceWaitEngine(&f1, 0, &mut reached),
            NvSciError_Timeout
        );
        ok(NvSciSyncSilObjSignalEngine(o, 1_111));
        ok(NvSciSyncSilFenceWaitEngine(&f1, 0, &mut reached));
        assert_eq!(reached, 1_111);
        ok(NvSciSyncSilObjSignalEngine(o, 2_222));
        ok(NvSciSyncSilFenceWaitEngine(&f2, 0, &mut reached));
        assert_eq!(reached, 2_222);
        assert_eq!(signal_ts(o, 2), Ok(2_222));
        assert_eq!(signal_ts(o, 1 << 32), Err(BAD));
        // No raw counter for a sync point.
        let mut c = null_mut();
        assert_eq!(
            NvSciSyncSilObjGetCounter(o, &mut c),
            NvSciError_NotSupported
        );
        assert!(c.is_null());
        // CPU calls need CPU access.
        let mut g = cleared();
        assert_eq!(NvSciSyncObjGenerateFence(o, &mut g), BAD);
        assert_eq!(NvSciSyncObjSignal(o), BAD);
    }
}

/// Sends a handle to another thread.
struct Send(NvSciSyncObj);
// SAFETY: handles are plain numbers checked by the library.
unsafe impl std::marker::Send for Send {}
