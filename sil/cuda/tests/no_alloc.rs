//! No heap allocation in the steady state: 10,000 frames of external-semaphore wait →
//! preprocess → postprocess → signal, stream wait/write value, event record/query/elapsed,
//! stream query/synchronize, counted by a global allocator over every thread of the process
//! (the stream workers and the SIL NvSciSync included). Virtual time, so nothing sleeps.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use common::*;
use nvsci_sys::sil::*;
use nvsci_sys::*;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded contract.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded contract.
        unsafe { System.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn nv(r: NvSciError) {
    assert_eq!(r, NvSciError_Success);
}

fn list(m: NvSciSyncModule, attrs: &[(NvSciSyncAttrKey, &[u8])], cuda: i32) -> NvSciSyncAttrList {
    let mut l = core::ptr::null_mut();
    // SAFETY: valid pointers; the pairs point to live slices.
    unsafe {
        nv(NvSciSyncAttrListCreate(m, &mut l));
        let pairs: Vec<_> = attrs
            .iter()
            .map(|(k, v)| NvSciSyncAttrKeyValuePair {
                attrKey: *k,
                value: v.as_ptr().cast(),
                len: v.len(),
            })
            .collect();
        nv(NvSciSyncAttrListSetAttrs(l, pairs.as_ptr(), pairs.len()));
        if cuda != 0 {
            ck(cuDeviceGetNvSciSyncAttributes(l.cast(), 0, cuda));
        }
    }
    l
}

fn obj(lists: &[NvSciSyncAttrList]) -> NvSciSyncObj {
    let (mut o, mut c) = (core::ptr::null_mut(), core::ptr::null_mut());
    // SAFETY: valid lists and out pointers.
    nv(unsafe {
        NvSciSyncAttrListReconcileAndObjAlloc(lists.as_ptr(), lists.len(), &mut o, &mut c)
    });
    o
}

#[test]
fn steady_state_allocates_nothing() {
    // SAFETY: plain C call.
    nv(unsafe { NvSciSilClockSetVirtual(true, 1_000_000) });
    setup();
    let mut m = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    nv(unsafe { NvSciSyncModuleOpen(&mut m) });
    let det: (NvSciSyncAttrKey, &[u8]) = (NvSciSyncAttrKey_RequireDeterministicFences, &[1]);
    let cpu = |perm: u64| {
        list(
            m,
            &[
                (NvSciSyncAttrKey_NeedCpuAccess, &[1]),
                (NvSciSyncAttrKey_RequiredPerm, &perm.to_ne_bytes()),
                det,
            ],
            0,
        )
    };
    let a = obj(&[
        cpu(NvSciSyncAccessPerm_SignalOnly),
        list(m, &[det], CUDA_NVSCISYNC_ATTR_WAIT),
    ]);
    let b = obj(&[
        list(m, &[det], CUDA_NVSCISYNC_ATTR_SIGNAL),
        cpu(NvSciSyncAccessPerm_WaitOnly),
    ]);
    let import = |o: NvSciSyncObj| {
        let desc = CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
            r#type: CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC,
            handle: CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle {
                nvSciSyncObj: o.cast_const().cast(),
            },
            flags: 0,
            reserved: [0; 16],
        };
        let mut s = core::ptr::null_mut();
        // SAFETY: valid pointers.
        ck(unsafe { cuImportExternalSemaphore(&mut s, &desc) });
        s
    };
    let (ea, eb) = (import(a), import(b));
    let mut waitctx = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    nv(unsafe { NvSciSyncCpuWaitContextAlloc(m, &mut waitctx) });

    let aeb = load("aeb", 87);
    let (_, pre) = function(aeb, "aeb_preprocess");
    let (_, post) = function(aeb, "aeb_postprocess");
    let (w, h) = (64u32, 32u32);
    let img = Pinned::<u8>::new((w * h) as usize);
    let map = Pinned::<i8>::new((w / 2 * h / 2) as usize);
    let out = Pinned::<i32>::new(4);
    let flag = Pinned::<u64>::new(2);
    let s = stream();
    let (e0, e1) = (event(CU_EVENT_DEFAULT), event(CU_EVENT_DEFAULT));
    let mut fa = NvSciSyncFenceInitializer;
    let mut fb = NvSciSyncFenceInitializer;

    let mut frame = |k: u64| {
        // SAFETY: every pointer below is valid for the call.
        unsafe {
            nv(NvSciSyncFenceUpdateFence(a, 0, k, &mut fa));
            let wp = [CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
                params: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params {
                    fence: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_fence { value: 0 },
                    nvSciSync: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync {
                        fence: (&raw mut fa).cast(),
                    },
                    keyedMutex: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex {
                        key: 0,
                        timeoutMs: 0,
                    },
                    reserved: [0; 10],
                },
                flags: 0,
                reserved: [0; 16],
            }];
            let sp = [CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
                params: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params {
                    fence: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_fence { value: 0 },
                    nvSciSync: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync {
                        fence: (&raw mut fb).cast(),
                    },
                    keyedMutex: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_keyedMutex { key: 0 },
                    reserved: [0; 12],
                },
                flags: 0,
                reserved: [0; 16],
            }];
            ck(record(e0, s));
            ck(cuWaitExternalSemaphoresAsync(&ea, wp.as_ptr(), 1, s));
            let (mut src, mut dst, mut sw, mut sh) = (img.dptr(), map.dptr(), w, h);
            ck(launch(
                pre,
                s,
                &mut [p(&mut src), p(&mut dst), p(&mut sw), p(&mut sh)],
            ));
            let (mut mp, mut mw, mut mh, mut th, mut x0, mut x1) =
                (map.dptr(), w / 2, h / 2, 10i32, 2u32, 30u32);
            let (mut rs, mut ro, mut hz, mut fh, mut od) =
                (2.0f32, 0.0f32, 1.0f32, 100.0f32, out.dptr());
            ck(launch(
                post,
                s,
                &mut [
                    p(&mut mp),
                    p(&mut mw),
                    p(&mut mh),
                    p(&mut th),
                    p(&mut x0),
                    p(&mut x1),
                    p(&mut rs),
                    p(&mut ro),
                    p(&mut hz),
                    p(&mut fh),
                    p(&mut od),
                ],
            ));
            ck(cuSignalExternalSemaphoresAsync(&eb, sp.as_ptr(), 1, s));
            ck(write64(s, flag.dptr(), k));
            ck(wait64(s, flag.dptr(), k, CU_STREAM_WAIT_VALUE_GEQ.0));
            ck(write32(s, flag.dptr() + 8, k as u32));
            ck(wait32(
                s,
                flag.dptr() + 8,
                k as u32,
                CU_STREAM_WAIT_VALUE_EQ.0,
            ));
            ck(record(e1, s));
            let _ = query(s);
            nv(NvSciSilClockAdvanceTo(1_000_000 + k * 1_000_000));
            nv(NvSciSyncObjSignal(a));
            nv(NvSciSyncFenceWait(&fb, waitctx, 5_000_000));
            ck(sync(s));
            ck(query(s));
            ck(cuEventQuery(e1));
            ck(cuEventSynchronize(e1));
            let (r, ms) = elapsed(e0, e1);
            ck(r);
            assert!(ms > 0.0);
        }
    };
    for k in 1..=10 {
        frame(k);
    }
    COUNTING.store(true, Ordering::SeqCst);
    for k in 11..=10_010 {
        frame(k);
    }
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(
        ALLOCS.load(Ordering::SeqCst),
        0,
        "heap allocations in the steady state"
    );
    ck(destroy(s));
}
