//! SIL CUDA with the SIL NvSciSync in virtual time: the full pipeline (a wait on a semaphore
//! the CPU signals later → preprocess on pinned memory → postprocess → signal), exact event
//! timing, the rig-style counter path (wait/write value on host-registered semaphore
//! counters), and the external-semaphore and attribute-list error paths.
//!
//! Virtual time is process-wide, so the tests of this file run one at a time.
//!
//! Covers: REQ-GPU-009

mod common;

use core::ffi::c_void;
use std::sync::Mutex;

use common::nvsci::*;
use common::*;
use nvsci_sys::sil::*;
use nvsci_sys::*;
use orin_exec_kernels::PostprocessParams;

static SERIAL: Mutex<()> = Mutex::new(());

const T0: u64 = 1_000_000_000;

fn cpu_wait(m: NvSciSyncModule, f: &NvSciSyncFence) {
    let mut ctx = core::ptr::null_mut();
    // SAFETY: valid pointers.
    unsafe {
        nv(NvSciSyncCpuWaitContextAlloc(m, &mut ctx));
        nv(NvSciSyncFenceWait(f, ctx, 5_000_000));
        NvSciSyncCpuWaitContextFree(ctx);
    }
}

/// The CPU signals `a` (releasing the stream's wait); then waits for CUDA's fence `fb` and
/// for the stream.
fn signal_and_drain(m: NvSciSyncModule, a: NvSciSyncObj, fb: &NvSciSyncFence, s: CUstream) {
    // SAFETY: a CPU-signaler object.
    nv(unsafe { NvSciSyncObjSignal(a) });
    cpu_wait(m, fb);
    ck(sync(s));
}

/// Clears fences owned by the test.
fn clear(fences: [&mut NvSciSyncFence; 2]) {
    for f in fences {
        // SAFETY: a valid fence.
        unsafe { NvSciSyncFenceClear(f) };
    }
}

/// Destroys the stream, then each imported semaphore, then frees its object.
fn teardown(s: CUstream, sems: [(CUexternalSemaphore, NvSciSyncObj); 2]) {
    ck(destroy(s));
    // SAFETY: semaphores imported from these objects; each object is freed after its
    // semaphore.
    unsafe {
        for (e, _) in sems {
            ck(cuDestroyExternalSemaphore(e));
        }
        for (_, o) in sems {
            NvSciSyncObjFree(o);
        }
    }
}

fn virtual_on() -> std::sync::MutexGuard<'static, ()> {
    let g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: plain C call.
    nv(unsafe { NvSciSilClockSetVirtual(true, T0) });
    g
}

fn advance(ns: u64) {
    // SAFETY: plain C call.
    nv(unsafe { NvSciSilClockAdvanceTo(ns) });
}

fn set_time(f: CUfunction, ns: u64) {
    let model = cuda_sys::sil::cuSilTimingModel {
        kind: 0,
        numBins: 0,
        minNs: ns,
        maxNs: 0,
        binUpperNs: core::ptr::null(),
        binWeights: core::ptr::null(),
        seed: 0,
    };
    // SAFETY: valid model.
    ck(unsafe { cuda_sys::sil::cuSilSetKernelTimingModel(f, &model) });
}

/// Covers: REQ-GPU-005
#[test]
fn event_timing_is_exact() {
    let _g = virtual_on();
    setup();
    let s = stream();
    let sel = load("selftest", 87);
    let tim = load("timing", 87);
    let (_, fill) = function(sel, "fill_pattern_u32");
    let (_, stamp) = function(tim, "stamp_globaltimer");
    set_time(stamp, 5_000);
    let buf = Pinned::<u32>::new(16);
    let slots = Pinned::<u64>::new(2);
    let (e0, e1, e2) = (
        event(CU_EVENT_DEFAULT),
        event(CU_EVENT_DEFAULT),
        event(CU_EVENT_DEFAULT),
    );
    ck(record(e0, s));
    let (mut d, mut n, mut seed) = (buf.dptr(), 16u32, 1u32);
    ck(launch(fill, s, &mut [p(&mut d), p(&mut n), p(&mut seed)])); // 20 us (default)
    let mut s0 = slots.dptr();
    ck(launch(stamp, s, &mut [p(&mut s0)])); // 5 us
    ck(record(e1, s));
    ck(sync(s));
    // Submitted later (clock moved on): work starts at the clock at submit.
    advance(T0 + 1_000_000);
    let mut s1 = slots.dptr() + 8;
    ck(launch(stamp, s, &mut [p(&mut s1)]));
    ck(record(e2, s));
    ck(sync(s));
    let (r, ms) = elapsed(e0, e1);
    ck(r);
    assert_eq!(ms, 0.025f32);
    let (r, ms) = elapsed(e0, e2);
    ck(r);
    assert_eq!(ms, 1.005f32);
    assert_eq!(slots.slice(), &[T0 + 20_000, T0 + 1_000_000]);
    ck(destroy(s));
    buf.free();
    slots.free();
}

#[test]
fn full_pipeline_with_nvscisync() {
    let _g = virtual_on();
    pipeline(true);
}

#[test]
fn full_pipeline_with_nvscisync_in_real_time() {
    let _g = virtual_on();
    // SAFETY: plain C call.
    nv(unsafe { NvSciSilClockSetVirtual(false, 0) });
    pipeline(false);
}

fn pipeline(virtual_time: bool) {
    setup();
    let m = module();
    // A: the CPU signals, CUDA waits. B: CUDA signals, the CPU waits.
    let a = cpu_to_cuda(m);
    let b = cuda_to_cpu(m);
    let (r, ea) = import(a);
    ck(r);
    let (r, eb) = import(b);
    ck(r);

    let aeb = load("aeb", 87);
    let (_, pre) = function(aeb, "aeb_preprocess");
    let (_, post) = function(aeb, "aeb_postprocess");
    set_time(post, 30_000);
    let (w, h) = (64u32, 32u32);
    let mut img = Pinned::<u8>::new((w * h) as usize);
    let map = Pinned::<i8>::new((w / 2 * h / 2) as usize);
    let det = Pinned::<i32>::new(4);
    let pp = PostprocessParams {
        threshold: 50,
        lane_x0: 8,
        lane_x1: 24,
        row_scale: 2.0,
        row_offset: 0.5,
        horizon: 2.0,
        fh: 800.0,
    };
    let s = stream();
    let (e0, e1) = (event(CU_EVENT_DEFAULT), event(CU_EVENT_DEFAULT));

    for frame in 1..=3u64 {
        let start = T0 + frame * 10_000_000;
        if virtual_time {
            advance(start);
        }
        // The waiter is enqueued before its signaler exists (deterministic fences).
        let mut fa = fence_for(a, frame);
        let mut fb = NvSciSyncFenceInitializer;
        let wp = [wait_params(&mut fa)];
        let sp = [signal_params(
            &mut fb,
            CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC,
        )];
        ck(record(e0, s));
        // SAFETY: arrays of one valid element each.
        ck(unsafe { cuWaitExternalSemaphoresAsync(&ea, wp.as_ptr(), 1, s) });
        ck(launch_preprocess(pre, s, (img.dptr(), map.dptr()), (w, h)));
        let map_in = (map.dptr(), w / 2, h / 2);
        ck(launch_postprocess(post, s, map_in, &pp, det.dptr()));
        // SAFETY: arrays of one valid element each.
        ck(unsafe { cuSignalExternalSemaphoresAsync(&eb, sp.as_ptr(), 1, s) });
        ck(record(e1, s));
        // The fence was written at enqueue, with the value this signal will produce.
        assert_eq!(fence_value(&fb), frame);
        assert_eq!(query(s), CUDA_ERROR_NOT_READY);
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(query(s), CUDA_ERROR_NOT_READY, "blocked on A");

        // The CPU produces the frame and signals A 1 ms later.
        for (i, v) in img.slice_mut().iter_mut().enumerate() {
            *v = ((i as u64 * 13 + frame * 31) % 256) as u8;
        }
        let t1 = start + 1_000_000;
        if virtual_time {
            advance(t1);
        }
        signal_and_drain(m, a, &fb, s);

        let mut want_map = vec![0i8; map.len];
        orin_exec_kernels::aeb_preprocess(img.slice(), &mut want_map, w, h).expect("model");
        assert_eq!(map.slice(), &want_map[..]);
        let mut want = [0i32; 4];
        orin_exec_kernels::aeb_postprocess(&want_map, w / 2, h / 2, &pp, &mut want).expect("model");
        assert_eq!(det.slice(), &want[..]);
        // Timeline: A at t1, preprocess 20 us, postprocess 30 us, B signalled at the end.
        let (ta, tb) = (signal_ts(a, frame), signal_ts(b, frame));
        let (r, ms) = elapsed(e0, e1);
        ck(r);
        if virtual_time {
            assert_eq!(ta, t1);
            assert_eq!(tb, t1 + 50_000);
            assert_eq!(ms, (1_050_000f64 / 1e6) as f32);
        } else {
            assert!(tb >= ta + 50_000, "{ta} -> {tb}");
            assert!(ms >= 0.05, "{ms} ms (two kernels of 20 + 30 us)");
        }
        clear([&mut fa, &mut fb]);
    }
    teardown(s, [(ea, a), (eb, b)]);
    // SAFETY: a destroyed handle (the library validates it).
    let again = unsafe { cuDestroyExternalSemaphore(eb) };
    assert_eq!(again, CUDA_ERROR_INVALID_HANDLE);
    img.free();
    map.free();
    det.free();
}

/// Covers: REQ-GPU-006
#[test]
fn counter_path_wait_and_write_value() {
    let _g = virtual_on();
    setup();
    let m = module();
    let c = cpu_to_cuda(m);
    let d = cuda_to_cpu(m);
    let counter = |o: NvSciSyncObj| {
        let mut p = core::ptr::null_mut();
        // SAFETY: valid pointers.
        nv(unsafe { NvSciSyncSilObjGetCounter(o, &mut p) });
        // SAFETY: the counter's page stays valid for the object's life.
        ck(unsafe { cuMemHostRegister_v2(p.cast(), 4096, CU_MEMHOSTREGISTER_DEVICEMAP) });
        let mut dp = 0;
        // SAFETY: registered above.
        ck(unsafe { cuMemHostGetDevicePointer_v2(&mut dp, p.cast(), 0) });
        (p, dp)
    };
    let (cp, cd) = counter(c);
    let (dp, dd) = counter(d);
    let tim = load("timing", 87);
    let (_, stamp) = function(tim, "stamp_globaltimer");
    let slots = Pinned::<u64>::new(2);
    let s = stream();

    // Frame 1: 64-bit GEQ wait (through NvSciSyncSilCounterWait).
    ck(wait64(s, cd, 1, CU_STREAM_WAIT_VALUE_GEQ.0));
    let mut s0 = slots.dptr();
    ck(launch(stamp, s, &mut [p(&mut s0)]));
    ck(write64(s, dd, 1));
    // Frame 2: 32-bit wait on the counter's low half (polled; the signal timestamp is still
    // found).
    ck(wait32(s, cd, 2, CU_STREAM_WAIT_VALUE_GEQ.0));
    let mut s1 = slots.dptr() + 8;
    ck(launch(stamp, s, &mut [p(&mut s1)]));
    ck(write64(s, dd, 2));

    advance(T0 + 500_000);
    // SAFETY: CPU signaler.
    nv(unsafe { NvSciSyncObjSignal(c) });
    cpu_wait(m, &fence_for(d, 1));
    assert_eq!(signal_ts(d, 1), T0 + 520_000);
    advance(T0 + 900_000);
    // SAFETY: CPU signaler.
    nv(unsafe { NvSciSyncObjSignal(c) });
    cpu_wait(m, &fence_for(d, 2));
    ck(sync(s));
    assert_eq!(signal_ts(d, 2), T0 + 920_000);
    assert_eq!(slots.slice(), &[T0 + 500_000, T0 + 900_000]);
    assert_eq!(load_u64(dp), 2);
    assert_eq!(load_u64(cp), 2);
    ck(destroy(s));
    // SAFETY: registered above.
    unsafe {
        ck(cuMemHostUnregister(cp.cast()));
        ck(cuMemHostUnregister(dp.cast()));
        NvSciSyncObjFree(c);
        NvSciSyncObjFree(d);
    }
    slots.free();
}

#[test]
fn semaphore_and_attribute_errors() {
    let _g = virtual_on();
    setup();
    let m = module();
    // SAFETY: valid lists and pointers throughout.
    unsafe {
        // cuDeviceGetNvSciSyncAttributes
        let l = list(m, &[]);
        assert_eq!(
            cuDeviceGetNvSciSyncAttributes(l.cast(), 0, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuDeviceGetNvSciSyncAttributes(l.cast(), 0, 4),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuDeviceGetNvSciSyncAttributes(l.cast(), 1, 1),
            CUDA_ERROR_INVALID_DEVICE
        );
        assert_eq!(
            cuDeviceGetNvSciSyncAttributes(core::ptr::null_mut(), 0, 1),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            cuDeviceGetNvSciSyncAttributes(0x1234 as *mut c_void, 0, 1),
            CUDA_ERROR_INVALID_HANDLE
        );
        ck(cuDeviceGetNvSciSyncAttributes(l.cast(), 0, 3));
        assert_eq!(
            cuDeviceGetNvSciSyncAttributes(l.cast(), 0, 1),
            CUDA_ERROR_INVALID_VALUE
        );
        let get = |k| {
            let (mut v, mut len) = (core::ptr::null::<c_void>(), 0usize);
            nv(NvSciSyncAttrListGetAttr(l, k, &mut v, &mut len));
            core::slice::from_raw_parts(v.cast::<u8>(), len).to_vec()
        };
        assert_eq!(
            get(NvSciSyncAttrKey_RequiredPerm),
            NvSciSyncAccessPerm_WaitSignal.to_ne_bytes()
        );
        assert_eq!(get(NvSciSyncAttrKey_GpuId), b"orin-exec-silgpu");
        // Sync points first, then the 64-bit semaphore.
        let prims: Vec<u8> = [
            NvSciSyncAttrValPrimitiveType_Syncpoint.0,
            NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0,
        ]
        .iter()
        .flat_map(|p| p.to_ne_bytes())
        .collect();
        assert_eq!(get(NvSciSyncAttrKey_PrimitiveInfo), prims);
        for (f, perm) in [
            (CUDA_NVSCISYNC_ATTR_SIGNAL, NvSciSyncAccessPerm_SignalOnly),
            (CUDA_NVSCISYNC_ATTR_WAIT, NvSciSyncAccessPerm_WaitOnly),
        ] {
            let l = list(m, &[]);
            ck(cuDeviceGetNvSciSyncAttributes(l.cast(), 0, f));
            let (mut v, mut len) = (core::ptr::null::<c_void>(), 0usize);
            nv(NvSciSyncAttrListGetAttr(
                l,
                NvSciSyncAttrKey_RequiredPerm,
                &mut v,
                &mut len,
            ));
            assert_eq!(*v.cast::<u64>(), perm);
        }

        // cuImportExternalSemaphore: a sync point (not deterministic) imports too.
        let nd = obj(&[cpu_list(m, true, false), cpu_list(m, false, false)]);
        let (r, es_nd) = import(nd);
        ck(r);
        ck(cuDestroyExternalSemaphore(es_nd));
        assert_eq!(import(core::ptr::null_mut()).0, CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(import(0x4321 as NvSciSyncObj).0, CUDA_ERROR_INVALID_HANDLE);
        let ok = cpu_to_cuda(m);
        let mut desc = CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
            r#type: CUexternalSemaphoreHandleType(1),
            handle: CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle {
                nvSciSyncObj: ok.cast_const().cast(),
            },
            flags: 0,
            reserved: [0; 16],
        };
        let mut es = core::ptr::null_mut();
        assert_eq!(
            cuImportExternalSemaphore(&mut es, &desc),
            CUDA_ERROR_NOT_SUPPORTED
        );
        desc.r#type = CUexternalSemaphoreHandleType(99);
        assert_eq!(
            cuImportExternalSemaphore(&mut es, &desc),
            CUDA_ERROR_INVALID_VALUE
        );
        desc.r#type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC;
        desc.flags = 1;
        assert_eq!(
            cuImportExternalSemaphore(&mut es, &desc),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuImportExternalSemaphore(core::ptr::null_mut(), &desc),
            CUDA_ERROR_INVALID_VALUE
        );
        let (r, es) = import(ok);
        ck(r);

        // Signal / wait argument errors.
        let s = stream();
        let mut f = NvSciSyncFenceInitializer;
        let mut sp = [signal_params(
            &mut f,
            CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC,
        )];
        let mut wp = [wait_params(&mut f)];
        let bogus = 0x55 as CUexternalSemaphore;
        assert_eq!(
            cuSignalExternalSemaphoresAsync(&bogus, sp.as_ptr(), 1, s),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            cuWaitExternalSemaphoresAsync(&bogus, wp.as_ptr(), 1, s),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            cuSignalExternalSemaphoresAsync(&es, core::ptr::null(), 1, s),
            CUDA_ERROR_INVALID_VALUE
        );
        ck(cuSignalExternalSemaphoresAsync(
            &es,
            core::ptr::null(),
            0,
            s,
        ));
        sp[0].flags = 0x80;
        assert_eq!(
            cuSignalExternalSemaphoresAsync(&es, sp.as_ptr(), 1, s),
            CUDA_ERROR_INVALID_VALUE
        );
        sp[0].flags = 0;
        sp[0].params.nvSciSync.fence = core::ptr::null_mut();
        assert_eq!(
            cuSignalExternalSemaphoresAsync(&es, sp.as_ptr(), 1, s),
            CUDA_ERROR_INVALID_VALUE
        );
        wp[0].flags = CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC; // the signal flag
        assert_eq!(
            cuWaitExternalSemaphoresAsync(&es, wp.as_ptr(), 1, s),
            CUDA_ERROR_INVALID_VALUE
        );
        wp[0].flags = CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC;
        // A cleared fence is already expired.
        ck(cuWaitExternalSemaphoresAsync(&es, wp.as_ptr(), 1, s));
        ck(sync(s));
        ck(destroy(s));
        ck(cuDestroyExternalSemaphore(es));
        NvSciSyncObjFree(ok);
        NvSciSyncObjFree(nd);
    }
}

/// The primitive type of an object's reconciled list.
fn primitive(o: NvSciSyncObj) -> u32 {
    let mut l = core::ptr::null_mut();
    let (mut v, mut len) = (core::ptr::null::<c_void>(), 0usize);
    // SAFETY: valid pointers; a set PrimitiveInfo holds at least one u32.
    unsafe {
        nv(NvSciSyncObjGetAttrList(o, &mut l));
        nv(NvSciSyncAttrListGetAttr(
            l,
            NvSciSyncAttrKey_PrimitiveInfo,
            &mut v,
            &mut len,
        ));
        assert_eq!(len, 4);
        *v.cast::<u32>()
    }
}

/// A fence's (id, value).
fn id_value(f: &NvSciSyncFence) -> (u64, u64) {
    let (mut id, mut v) = (0, 0);
    // SAFETY: valid pointers.
    nv(unsafe { NvSciSyncFenceExtractFence(f, &mut id, &mut v) });
    (id, v)
}

/// A CUDA list without `RequireDeterministicFences` (the documented default flow).
fn cuda_default_list(m: NvSciSyncModule, flags: i32) -> NvSciSyncAttrList {
    let l = list(m, &[]);
    // SAFETY: a valid unreconciled list.
    ck(unsafe { cuDeviceGetNvSciSyncAttributes(l.cast(), 0, flags) });
    l
}

#[test]
fn sync_points_signal_and_wait() {
    let _g = virtual_on();
    setup();
    let m = module();
    // Without deterministic fences both directions reconcile to sync points.
    let a = obj(&[
        cpu_list(m, true, false),
        cuda_default_list(m, CUDA_NVSCISYNC_ATTR_WAIT),
    ]);
    let b = obj(&[
        cuda_default_list(m, CUDA_NVSCISYNC_ATTR_SIGNAL),
        cpu_list(m, false, false),
    ]);
    for o in [a, b] {
        assert_eq!(primitive(o), NvSciSyncAttrValPrimitiveType_Syncpoint.0);
    }
    let (r, ea) = import(a);
    ck(r);
    let (r, eb) = import(b);
    ck(r);
    let s = stream();
    let mut ids = (0, 0);
    for frame in 1..=3u64 {
        let start = T0 + frame * 10_000_000;
        advance(start);
        // The CPU signaler promises its next value; CUDA waits on that fence.
        let mut fa = NvSciSyncFenceInitializer;
        // SAFETY: a CPU-signaler object and a local fence.
        nv(unsafe { NvSciSyncObjGenerateFence(a, &mut fa) });
        let mut fb = NvSciSyncFenceInitializer;
        let wp = [wait_params(&mut fa)];
        let sp = [signal_params(&mut fb, 0)];
        // SAFETY: arrays of one valid element each.
        ck(unsafe { cuWaitExternalSemaphoresAsync(&ea, wp.as_ptr(), 1, s) });
        // Before CUDA enqueues its signal, no waiter may build a fence for it (the id is
        // the one CUDA's earlier fences carried).
        if frame > 1 {
            let mut g = NvSciSyncFenceInitializer;
            // SAFETY: valid object and fence.
            let rc = unsafe { NvSciSyncFenceUpdateFence(b, ids.1, frame, &mut g) };
            assert_eq!(rc, NvSciError_Overflow, "no wait-before-signal");
        }
        // SAFETY: arrays of one valid element each.
        ck(unsafe { cuSignalExternalSemaphoresAsync(&eb, sp.as_ptr(), 1, s) });
        // The fence written at enqueue carries the sync point's id and the value the
        // signal will reach.
        let (ia, va) = id_value(&fa);
        let (ib, vb) = id_value(&fb);
        assert_eq!((va, vb), (frame, frame));
        assert!(ia != 0 && ib != 0 && ia != ib);
        if frame > 1 {
            assert_eq!((ia, ib), ids, "one id per object");
        }
        ids = (ia, ib);
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert_eq!(query(s), CUDA_ERROR_NOT_READY, "blocked on A");
        let t1 = start + 1_000_000;
        advance(t1);
        signal_and_drain(m, a, &fb, s);
        assert_eq!(signal_ts(a, frame), t1);
        assert_eq!(signal_ts(b, frame), t1, "CUDA signals when its wait ends");
        clear([&mut fa, &mut fb]);
    }
    teardown(s, [(ea, a), (eb, b)]);
}
