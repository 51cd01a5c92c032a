//! Helpers shared by the integration tests. The tests call the library through the
//! `nvsci-sys` declarations, exactly like the runtime does.
#![allow(dead_code)]

use std::ffi::c_void;
use std::ptr::{null, null_mut};

pub use nvsci_sys::sil::*;
pub use nvsci_sys::*;
// Links the SIL definitions of the declared symbols.
use nvscisync as _;

/// Asserts success.
#[track_caller]
pub fn ok(rc: NvSciError) {
    assert_eq!(rc, NvSciError_Success);
}

pub fn module() -> NvSciSyncModule {
    let mut m = null_mut();
    // SAFETY: `m` is a local.
    ok(unsafe { NvSciSyncModuleOpen(&mut m) });
    m
}

pub fn context(m: NvSciSyncModule) -> NvSciSyncCpuWaitContext {
    let mut c = null_mut();
    // SAFETY: `c` is a local.
    ok(unsafe { NvSciSyncCpuWaitContextAlloc(m, &mut c) });
    c
}

pub fn pair<T>(key: NvSciSyncAttrKey, v: &T) -> NvSciSyncAttrKeyValuePair {
    NvSciSyncAttrKeyValuePair {
        attrKey: key,
        value: (v as *const T).cast::<c_void>(),
        len: size_of::<T>(),
    }
}

pub fn empty_list(m: NvSciSyncModule) -> NvSciSyncAttrList {
    let mut l = null_mut();
    // SAFETY: `l` is a local.
    ok(unsafe { NvSciSyncAttrListCreate(m, &mut l) });
    l
}

/// Sets pairs on a list, returning the status.
pub fn set(l: NvSciSyncAttrList, pairs: &[NvSciSyncAttrKeyValuePair]) -> NvSciError {
    // SAFETY: `pairs` is a live slice whose values point to live locals.
    unsafe { NvSciSyncAttrListSetAttrs(l, pairs.as_ptr(), pairs.len()) }
}

/// Options of one unreconciled list.
#[derive(Clone, Copy, Default)]
pub struct Opts {
    pub perm: Option<u64>,
    pub cpu: Option<bool>,
    pub timestamps: Option<bool>,
    pub deterministic: Option<bool>,
    pub prims: Option<&'static [u32]>,
}

pub fn list(m: NvSciSyncModule, o: Opts) -> NvSciSyncAttrList {
    let l = empty_list(m);
    let mut pairs = Vec::new();
    let (perm, cpu, ts, det);
    if let Some(p) = o.perm {
        perm = p;
        pairs.push(pair(NvSciSyncAttrKey_RequiredPerm, &perm));
    }
    if let Some(c) = o.cpu {
        cpu = c;
        pairs.push(pair(NvSciSyncAttrKey_NeedCpuAccess, &cpu));
    }
    if let Some(t) = o.timestamps {
        ts = t;
        pairs.push(pair(NvSciSyncAttrKey_WaiterRequireTimestamps, &ts));
    }
    if let Some(d) = o.deterministic {
        det = d;
        pairs.push(pair(NvSciSyncAttrKey_RequireDeterministicFences, &det));
    }
    if let Some(p) = o.prims {
        pairs.push(NvSciSyncAttrKeyValuePair {
            attrKey: NvSciSyncAttrKey_PrimitiveInfo,
            value: p.as_ptr().cast(),
            len: 4 * p.len(),
        });
    }
    if !pairs.is_empty() {
        ok(set(l, &pairs));
    }
    l
}

pub fn signaler(m: NvSciSyncModule, cpu: bool) -> NvSciSyncAttrList {
    list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_SignalOnly),
            cpu: Some(cpu),
            deterministic: Some(true),
            ..Opts::default()
        },
    )
}

pub fn waiter(m: NvSciSyncModule, cpu: bool, timestamps: bool) -> NvSciSyncAttrList {
    list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_WaitOnly),
            cpu: Some(cpu),
            timestamps: Some(timestamps),
            ..Opts::default()
        },
    )
}

/// Reconciles; `Ok(reconciled)` or `Err((status, conflict list))`.
pub fn reconcile(
    lists: &[NvSciSyncAttrList],
) -> Result<NvSciSyncAttrList, (NvSciError, NvSciSyncAttrList)> {
    let (mut r, mut c) = (null_mut(), null_mut());
    // SAFETY: `lists` is a live slice; `r` and `c` are locals.
    let rc = unsafe { NvSciSyncAttrListReconcile(lists.as_ptr(), lists.len(), &mut r, &mut c) };
    if rc == NvSciError_Success {
        Ok(r)
    } else {
        Err((rc, c))
    }
}

pub fn alloc(lists: &[NvSciSyncAttrList]) -> NvSciSyncObj {
    let (mut o, mut c) = (null_mut(), null_mut());
    // SAFETY: `lists` is a live slice; `o` and `c` are locals.
    ok(unsafe {
        NvSciSyncAttrListReconcileAndObjAlloc(lists.as_ptr(), lists.len(), &mut o, &mut c)
    });
    o
}

/// An object whose signaler and waiter ask for the given CPU access.
pub fn object(
    m: NvSciSyncModule,
    cpu_signaler: bool,
    cpu_waiter: bool,
    timestamps: bool,
) -> NvSciSyncObj {
    let s = signaler(m, cpu_signaler);
    let w = waiter(m, cpu_waiter, timestamps);
    let o = alloc(&[s, w]);
    // SAFETY: handles from this library.
    unsafe {
        NvSciSyncAttrListFree(s);
        NvSciSyncAttrListFree(w);
    }
    o
}

/// Reads one key of slot `slot` as raw bytes (`None` when unset).
pub fn get_bytes(l: NvSciSyncAttrList, slot: usize, key: NvSciSyncAttrKey) -> Option<Vec<u8>> {
    let mut p = [NvSciSyncAttrKeyValuePair {
        attrKey: key,
        value: null(),
        len: 0,
    }];
    // SAFETY: `p` is a local array of one pair.
    ok(unsafe { NvSciSyncAttrListSlotGetAttrs(l, slot, p.as_mut_ptr(), 1) });
    if p[0].value.is_null() {
        assert_eq!(p[0].len, 0);
        return None;
    }
    // SAFETY: the library returned `len` readable bytes.
    Some(unsafe { std::slice::from_raw_parts(p[0].value.cast::<u8>(), p[0].len) }.to_vec())
}

pub fn get_u64(l: NvSciSyncAttrList, key: NvSciSyncAttrKey) -> Option<u64> {
    get_bytes(l, 0, key).map(|b| u64::from_ne_bytes(b.try_into().unwrap()))
}

pub fn get_u32(l: NvSciSyncAttrList, key: NvSciSyncAttrKey) -> Option<u32> {
    get_bytes(l, 0, key).map(|b| u32::from_ne_bytes(b.try_into().unwrap()))
}

pub fn get_bool(l: NvSciSyncAttrList, key: NvSciSyncAttrKey) -> Option<bool> {
    get_bytes(l, 0, key).map(|b| {
        assert_eq!(b.len(), 1);
        b[0] != 0
    })
}

pub fn cleared() -> NvSciSyncFence {
    NvSciSyncFenceInitializer
}

pub fn generate(o: NvSciSyncObj) -> NvSciSyncFence {
    let mut f = cleared();
    // SAFETY: `f` is a local fence.
    ok(unsafe { NvSciSyncObjGenerateFence(o, &mut f) });
    f
}

pub fn update(o: NvSciSyncObj, value: u64) -> NvSciSyncFence {
    let mut f = cleared();
    // SAFETY: `f` is a local fence.
    ok(unsafe { NvSciSyncFenceUpdateFence(o, 0, value, &mut f) });
    f
}

pub fn extract(f: &NvSciSyncFence) -> Result<(u64, u64), NvSciError> {
    let (mut id, mut v) = (0, 0);
    // SAFETY: locals.
    let rc = unsafe { NvSciSyncFenceExtractFence(f, &mut id, &mut v) };
    if rc == NvSciError_Success {
        Ok((id, v))
    } else {
        Err(rc)
    }
}

pub fn clear(f: &mut NvSciSyncFence) {
    // SAFETY: `f` is a live fence.
    unsafe { NvSciSyncFenceClear(f) };
}

pub fn wait(f: &NvSciSyncFence, ctx: NvSciSyncCpuWaitContext, timeout_us: i64) -> NvSciError {
    // SAFETY: `f` is a live fence.
    unsafe { NvSciSyncFenceWait(f, ctx, timeout_us) }
}

pub fn signal(o: NvSciSyncObj) {
    // SAFETY: plain call.
    ok(unsafe { NvSciSyncObjSignal(o) });
}

pub fn counter(o: NvSciSyncObj) -> *mut u64 {
    let mut c = null_mut();
    // SAFETY: `c` is a local.
    ok(unsafe { NvSciSyncSilObjGetCounter(o, &mut c) });
    c
}

/// Reads a SIL counter atomically.
pub fn load(c: *mut u64) -> u64 {
    // SAFETY: a live SIL counter (8-byte aligned, only accessed atomically).
    unsafe { std::sync::atomic::AtomicU64::from_ptr(c) }.load(std::sync::atomic::Ordering::Acquire)
}

/// Writes a SIL counter atomically (as a GPU would).
pub fn store(c: *mut u64, v: u64) {
    // SAFETY: a live SIL counter (8-byte aligned, only accessed atomically).
    unsafe { std::sync::atomic::AtomicU64::from_ptr(c) }
        .store(v, std::sync::atomic::Ordering::Release);
}

pub fn signal_ts(o: NvSciSyncObj, value: u64) -> Result<u64, NvSciError> {
    let mut ts = 0;
    // SAFETY: `ts` is a local.
    let rc = unsafe { NvSciSyncSilObjGetSignalTimestamp(o, value, &mut ts) };
    if rc == NvSciError_Success {
        Ok(ts)
    } else {
        Err(rc)
    }
}

/// A handle value no library call ever returned.
pub fn bogus<T>() -> *mut T {
    std::ptr::without_provenance_mut(0x5E54_0000_0000_0000 | 0xFFFF_FFFF)
}

pub fn try_signal(o: NvSciSyncObj) -> NvSciError {
    // SAFETY: plain call; the library checks the handle.
    unsafe { NvSciSyncObjSignal(o) }
}

pub fn now() -> u64 {
    // SAFETY: plain call.
    unsafe { NvSciSilClockNowNs() }
}
