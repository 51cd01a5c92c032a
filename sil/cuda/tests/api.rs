//! SIL CUDA through its C ABI, in real time: device, context, modules, memory, streams,
//! kernels, stream memory operations, events and every error path.
//!
//! Covers: REQ-GPU-005

mod common;

use core::ffi::{CStr, c_char, c_int, c_void};
use std::time::{Duration, Instant};

use common::*;
use orin_exec_kernels::{PostprocessParams, pattern_u32};

const CU_STREAM_LEGACY: CUstream = 1 as CUstream;
const CU_STREAM_PER_THREAD: CUstream = 2 as CUstream;

fn attr(a: u32) -> (CUresult, c_int) {
    let mut v = -1;
    // SAFETY: valid out pointer.
    let r = unsafe { cuDeviceGetAttribute(&mut v, CUdevice_attribute(a), 0) };
    (r, v)
}

#[test]
fn device_and_context() {
    setup();
    // SAFETY: plain C calls with valid out pointers.
    unsafe {
        let mut v = 0;
        ck(cuDriverGetVersion(&mut v));
        assert_eq!(v, 13000);
        let mut n = 0;
        ck(cuDeviceGetCount(&mut n));
        assert_eq!(n, 1);
        let mut d = -1;
        ck(cuDeviceGet(&mut d, 0));
        assert_eq!(d, 0);
        assert_eq!(cuDeviceGet(&mut d, 1), CUDA_ERROR_INVALID_DEVICE);
        let mut name = [0 as c_char; 64];
        ck(cuDeviceGetName(name.as_mut_ptr(), 64, 0));
        assert_eq!(
            CStr::from_ptr(name.as_ptr()).to_str(),
            Ok("orin-exec SIL GPU (sm_87)")
        );
        ck(cuDeviceGetName(name.as_mut_ptr(), 5, 0));
        assert_eq!(CStr::from_ptr(name.as_ptr()).to_str(), Ok("orin"));
        assert_eq!(
            cuDeviceGetName(name.as_mut_ptr(), 0, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuDeviceGetName(name.as_mut_ptr(), 8, 3),
            CUDA_ERROR_INVALID_DEVICE
        );
        let mut u = CUuuid::default();
        ck(cuDeviceGetUuid(&mut u, 0));
        assert_eq!(u.bytes.map(|b| b as u8), *b"orin-exec-silgpu");
    }
    for (a, want) in [
        (75, 8),
        (76, 7),
        (18, 1),
        (19, 1),
        (41, 1),
        (122, 1),
        (123, 0),
        (16, 16),
    ] {
        assert_eq!(attr(a), (CUDA_SUCCESS, want), "attribute {a}");
    }
    assert_eq!(attr(9999).0, CUDA_ERROR_INVALID_VALUE);
    // SAFETY: NULL out pointer is refused.
    let r = unsafe { cuDeviceGetAttribute(core::ptr::null_mut(), CUdevice_attribute(75), 0) };
    assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        // SAFETY: valid out pointer.
        unsafe { cuDeviceGetAttribute(&mut 0, CUdevice_attribute(75), 1) },
        CUDA_ERROR_INVALID_DEVICE
    );

    // A thread without a current context.
    std::thread::spawn(|| {
        // SAFETY: plain C calls with valid out pointers.
        unsafe {
            let mut c = 1 as CUcontext;
            ck(cuCtxGetCurrent(&mut c));
            assert!(c.is_null());
            let mut s = core::ptr::null_mut();
            assert_eq!(cuStreamCreate(&mut s, 0), CUDA_ERROR_INVALID_CONTEXT);
            let mut e = core::ptr::null_mut();
            assert_eq!(cuEventCreate(&mut e, 0), CUDA_ERROR_INVALID_CONTEXT);
            let mut p = core::ptr::null_mut();
            assert_eq!(cuMemHostAlloc(&mut p, 64, 0), CUDA_ERROR_INVALID_CONTEXT);
            let (r, _) = load_image(orin_exec_kernels::cubin("aeb", 87).map_or(&[], |c| c.image));
            assert_eq!(r, CUDA_ERROR_INVALID_CONTEXT);
            assert_eq!(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
            assert_eq!(
                cuCtxSetCurrent(0x1234 as CUcontext),
                CUDA_ERROR_INVALID_CONTEXT
            );
            // Bind the primary context: now it works.
            let mut ctx = core::ptr::null_mut();
            ck(cuDevicePrimaryCtxRetain(&mut ctx, 0));
            ck(cuCtxSetCurrent(ctx));
            let mut c = core::ptr::null_mut();
            ck(cuCtxGetCurrent(&mut c));
            assert_eq!(c, ctx);
            ck(cuStreamCreate(&mut s, 0));
            ck(cuStreamDestroy_v2(s));
            ck(cuCtxSetCurrent(core::ptr::null_mut()));
            assert_eq!(cuStreamCreate(&mut s, 0), CUDA_ERROR_INVALID_CONTEXT);
            ck(cuDevicePrimaryCtxRelease_v2(0));
        }
    })
    .join()
    .expect("thread");
}

#[test]
fn error_strings() {
    let mut s: *const c_char = core::ptr::null();
    // SAFETY: valid out pointer; returned strings are static.
    unsafe {
        ck(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &mut s));
        assert_eq!(CStr::from_ptr(s).to_str(), Ok("CUDA_ERROR_ILLEGAL_ADDRESS"));
        ck(cuGetErrorString(CUDA_ERROR_NOT_READY, &mut s));
        assert_eq!(CStr::from_ptr(s).to_str(), Ok("device not ready"));
        for &c in CUresult::KNOWN {
            ck(cuGetErrorName(c, &mut s));
            assert_eq!(CStr::from_ptr(s).to_str().ok(), c.name());
        }
        assert_eq!(
            cuGetErrorName(CUresult(12345), &mut s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert!(s.is_null());
        assert_eq!(
            cuGetErrorString(CUresult(12345), &mut s),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGetErrorName(CUDA_SUCCESS, core::ptr::null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

fn nul_terminated(b: &[u8]) -> Vec<u8> {
    let mut v = b.to_vec();
    v.push(0);
    v
}

/// Covers: REQ-GPU-007
#[test]
fn module_loading() {
    setup();
    let m = load("aeb", 87);
    assert_eq!(function(m, "aeb_preprocess").0, CUDA_SUCCESS);
    let (_, f1) = function(m, "aeb_postprocess");
    let (_, f2) = function(m, "aeb_postprocess");
    assert_eq!(f1, f2, "same name, same handle");
    assert_eq!(function(m, "nope").0, CUDA_ERROR_NOT_FOUND);
    // Has a model, but is not in this cubin.
    assert_eq!(function(m, "stamp_globaltimer").0, CUDA_ERROR_NOT_FOUND);
    assert_eq!(
        function(0x10 as CUmodule, "aeb_preprocess").0,
        CUDA_ERROR_INVALID_HANDLE
    );

    // The sm_90 cubin on the default sm_87 device.
    let sm90 = orin_exec_kernels::cubin("aeb", 90).expect("cubin").image;
    assert_eq!(load_image(sm90).0, CUDA_ERROR_NO_BINARY_FOR_GPU);
    // PTX text: the SIL has no JIT.
    let ptx = nul_terminated(include_bytes!(
        "../../../kernels/cubin-check/tests/data/tiny.ptx"
    ));
    assert_eq!(load_image(&ptx).0, CUDA_ERROR_JIT_COMPILATION_DISABLED);
    // An ELF carrying PTX (nvcc -G embeds .nv_debug_ptx_txt).
    let dbg = include_bytes!("../../../kernels/cubin-check/tests/data/tiny_debug.sm_90.cubin");
    assert_eq!(load_image(dbg).0, CUDA_ERROR_JIT_COMPILATION_DISABLED);
    // A fatbin.
    let fatbin = include_bytes!("../../../kernels/cubin-check/tests/data/tiny.fatbin");
    assert_eq!(load_image(fatbin).0, CUDA_ERROR_INVALID_IMAGE);
    // Garbage, and a host object (ELF, not CUDA).
    assert_eq!(
        load_image(b"garbage, not an image\0").0,
        CUDA_ERROR_INVALID_IMAGE
    );
    assert_eq!(load_image(b"\0").0, CUDA_ERROR_INVALID_IMAGE);
    let host = include_bytes!("../../../kernels/cubin-check/tests/data/tiny_host.o");
    assert_ne!(load_image(host).0, CUDA_SUCCESS);
    // A corrupt cubin: the magic kept, the class byte broken.
    let mut bad = orin_exec_kernels::cubin("aeb", 87)
        .expect("cubin")
        .image
        .to_vec();
    bad[4] = 1;
    assert_eq!(load_image(&bad).0, CUDA_ERROR_INVALID_IMAGE);
    // SAFETY: NULL pointers are refused.
    unsafe {
        let mut mm = core::ptr::null_mut();
        assert_eq!(
            cuModuleLoadData(&mut mm, core::ptr::null()),
            CUDA_ERROR_INVALID_VALUE
        );
    }

    // Unload: functions die with the module.
    let s = stream();
    let mut dst = Pinned::<u32>::new(16);
    let sel = load("selftest", 87);
    let (_, fill) = function(sel, "fill_pattern_u32");
    let (mut d, mut n, mut seed) = (dst.dptr(), 16u32, 3u32);
    ck(launch(fill, s, &mut [p(&mut d), p(&mut n), p(&mut seed)]));
    // SAFETY: plain C calls.
    unsafe {
        ck(cuModuleUnload(sel));
        assert_eq!(cuModuleUnload(sel), CUDA_ERROR_INVALID_HANDLE);
    }
    assert_eq!(
        launch(fill, s, &mut [p(&mut d), p(&mut n), p(&mut seed)]),
        CUDA_ERROR_INVALID_HANDLE
    );
    ck(sync(s));
    assert_eq!(
        dst.slice_mut()[15],
        pattern_u32(15, 3),
        "enqueued launch still ran"
    );
    ck(destroy(s));
    dst.free();
}

#[test]
fn memory_errors() {
    setup();
    // SAFETY: plain C calls on memory this test owns.
    unsafe {
        let mut p0 = core::ptr::null_mut();
        assert_eq!(cuMemHostAlloc(&mut p0, 0, 0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemHostAlloc(&mut p0, 64, 0x8), CUDA_ERROR_INVALID_VALUE);
        ck(cuMemHostAlloc(&mut p0, 100, 0x7));
        assert_eq!(p0 as usize % 4096, 0, "page aligned");
        assert!(
            core::slice::from_raw_parts(p0.cast::<u8>(), 4096)
                .iter()
                .all(|&b| b == 0)
        );
        let mut d: CUdeviceptr = 0;
        ck(cuMemHostGetDevicePointer_v2(&mut d, p0, 0));
        assert_eq!(d, p0 as CUdeviceptr);
        ck(cuMemHostGetDevicePointer_v2(
            &mut d,
            p0.cast::<u8>().add(50).cast(),
            0,
        ));
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut d, p0, 1),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut local = [0u8; 64];
        let lp = local.as_mut_ptr().cast::<c_void>();
        assert_eq!(
            cuMemHostGetDevicePointer_v2(&mut d, lp, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        // Registration: overlap, unknown, flags.
        assert_eq!(
            cuMemHostRegister_v2(p0.cast::<u8>().add(8).cast(), 8, 0),
            CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        );
        ck(cuMemHostRegister_v2(lp, 32, CU_MEMHOSTREGISTER_DEVICEMAP));
        ck(cuMemHostGetDevicePointer_v2(&mut d, lp, 0));
        assert_eq!(
            cuMemHostRegister_v2(local.as_mut_ptr().add(16).cast(), 32, 0),
            CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
        );
        ck(cuMemHostRegister_v2(
            local.as_mut_ptr().add(32).cast(),
            32,
            0,
        ));
        assert_eq!(
            cuMemHostUnregister(local.as_mut_ptr().add(1).cast()),
            CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
        ck(cuMemHostUnregister(lp));
        ck(cuMemHostUnregister(local.as_mut_ptr().add(32).cast()));
        assert_eq!(
            cuMemHostUnregister(lp),
            CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
        assert_eq!(
            cuMemHostRegister_v2(lp, 64, CU_MEMHOSTREGISTER_IOMEMORY),
            CUDA_ERROR_NOT_SUPPORTED
        );
        assert_eq!(cuMemHostRegister_v2(lp, 0, 0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuMemHostRegister_v2(lp, 64, 0x40), CUDA_ERROR_INVALID_VALUE);
        // Frees.
        assert_eq!(
            cuMemFreeHost(p0.cast::<u8>().add(1).cast()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(cuMemFree_v2(p0 as CUdeviceptr), CUDA_ERROR_INVALID_VALUE);
        ck(cuMemFreeHost(p0));
        assert_eq!(cuMemFreeHost(p0), CUDA_ERROR_INVALID_VALUE);
    }
}

#[test]
fn default_stream_is_rejected() {
    setup();
    let m = load("selftest", 87);
    let (_, fill) = function(m, "fill_pattern_u32");
    let buf = Pinned::<u64>::new(4);
    let ev = event(CU_EVENT_DEFAULT);
    for s in [
        core::ptr::null_mut(),
        CU_STREAM_LEGACY,
        CU_STREAM_PER_THREAD,
    ] {
        let (mut d, mut n, mut seed) = (buf.dptr(), 1u32, 0u32);
        assert_eq!(
            launch(fill, s, &mut [p(&mut d), p(&mut n), p(&mut seed)]),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(sync(s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(query(s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(destroy(s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(wait64(s, buf.dptr(), 0, 0), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(wait32(s, buf.dptr(), 0, 0), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(write64(s, buf.dptr(), 0), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(write32(s, buf.dptr(), 0), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(record(ev, s), CUDA_ERROR_INVALID_HANDLE);
        // SAFETY: the stream is checked before the (NULL) arrays.
        unsafe {
            assert_eq!(
                cuSignalExternalSemaphoresAsync(core::ptr::null(), core::ptr::null(), 1, s),
                CUDA_ERROR_INVALID_HANDLE
            );
            assert_eq!(
                cuWaitExternalSemaphoresAsync(core::ptr::null(), core::ptr::null(), 1, s),
                CUDA_ERROR_INVALID_HANDLE
            );
        }
    }
    // Flags other than DEFAULT / NON_BLOCKING.
    let mut s = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    unsafe {
        assert_eq!(cuStreamCreate(&mut s, 2), CUDA_ERROR_INVALID_VALUE);
        ck(cuStreamCreate(&mut s, CU_STREAM_DEFAULT.0));
    }
    ck(destroy(s));
    assert_eq!(destroy(s), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(sync(s), CUDA_ERROR_INVALID_HANDLE);
    buf.free();
}

/// Covers: REQ-GPU-008
#[test]
fn kernels_run_their_models() {
    setup();
    let s = stream();
    let sel = load("selftest", 87);
    let aeb = load("aeb", 87);
    let tim = load("timing", 87);

    // fill_pattern_u32
    let (_, fill) = function(sel, "fill_pattern_u32");
    let out = Pinned::<u32>::new(1000);
    let (mut d, mut n, mut seed) = (out.dptr(), 1000u32, 42u32);
    ck(launch(fill, s, &mut [p(&mut d), p(&mut n), p(&mut seed)]));

    // saxpy_f32
    let (_, saxpy) = function(sel, "saxpy_f32");
    let mut x = Pinned::<f32>::new(64);
    let mut y = Pinned::<f32>::new(64);
    for (i, (a, b)) in x
        .slice_mut()
        .iter_mut()
        .zip(y.slice_mut().iter_mut())
        .enumerate()
    {
        *a = i as f32;
        *b = 1.0;
    }
    let (mut a, mut xd, mut yd, mut n2) = (2.0f32, x.dptr(), y.dptr(), 64u32);
    ck(launch(
        saxpy,
        s,
        &mut [p(&mut a), p(&mut xd), p(&mut yd), p(&mut n2)],
    ));

    // aeb_preprocess -> aeb_postprocess
    let (w, h) = (64u32, 32u32);
    let mut img = Pinned::<u8>::new((w * h) as usize);
    for (i, v) in img.slice_mut().iter_mut().enumerate() {
        *v = ((i * 7) % 256) as u8;
    }
    let map = Pinned::<i8>::new((w / 2 * h / 2) as usize);
    let det = Pinned::<i32>::new(4);
    let (_, pre) = function(aeb, "aeb_preprocess");
    let (_, post) = function(aeb, "aeb_postprocess");
    ck(launch_preprocess(pre, s, (img.dptr(), map.dptr()), (w, h)));
    let pp = PostprocessParams {
        threshold: 60,
        lane_x0: 4,
        lane_x1: 28,
        row_scale: 2.0,
        row_offset: 1.0,
        horizon: 3.0,
        fh: 500.0,
    };
    let map_in = (map.dptr(), w / 2, h / 2);
    ck(launch_postprocess(post, s, map_in, &pp, det.dptr()));

    // stamp_globaltimer
    let (_, stamp) = function(tim, "stamp_globaltimer");
    let slot = Pinned::<u64>::new(1);
    let mut sd = slot.dptr();
    let t0 = sil_common::clock::now_ns();
    ck(launch(stamp, s, &mut [p(&mut sd)]));
    ck(sync(s));
    let t1 = sil_common::clock::now_ns();

    for (i, v) in out.slice().iter().enumerate() {
        assert_eq!(*v, pattern_u32(i as u32, 42));
    }
    for (i, v) in y.slice().iter().enumerate() {
        assert_eq!(*v, 2.0 * i as f32 + 1.0);
    }
    let mut want_map = vec![0i8; map.len];
    orin_exec_kernels::aeb_preprocess(img.slice(), &mut want_map, w, h).expect("model");
    assert_eq!(map.slice(), &want_map[..]);
    let mut want = [0i32; 4];
    orin_exec_kernels::aeb_postprocess(&want_map, w / 2, h / 2, &pp, &mut want).expect("model");
    assert_eq!(det.slice(), &want[..]);
    let ts = slot.slice()[0];
    assert!(t0 <= ts && ts <= t1, "{t0} <= {ts} <= {t1}");

    ck(destroy(s));
    for m in [sel, aeb, tim] {
        // SAFETY: plain C call.
        ck(unsafe { cuModuleUnload(m) });
    }
    out.free();
    x.free();
    y.free();
    img.free();
    map.free();
    det.free();
    slot.free();
}

/// Covers: REQ-GPU-008
#[test]
fn launch_errors() {
    setup();
    let s = stream();
    let sel = load("selftest", 87);
    let (_, fill) = function(sel, "fill_pattern_u32");
    let buf = Pinned::<u32>::new(8);
    let (mut d, mut n, mut seed) = (buf.dptr(), 8u32, 0u32);
    let mut params = [p(&mut d), p(&mut n), p(&mut seed)];
    let mut extra = [core::ptr::null_mut::<c_void>()];
    // SAFETY: valid parameter arrays; the SIL refuses before reading anything else.
    unsafe {
        let l = |g: [u32; 3], b: [u32; 3], sh: u32, kp: *mut *mut c_void, ex: *mut *mut c_void| {
            cuLaunchKernel(fill, g[0], g[1], g[2], b[0], b[1], b[2], sh, s, kp, ex)
        };
        let kp = params.as_mut_ptr();
        assert_eq!(
            l([1; 3], [32, 1, 1], 0, kp, extra.as_mut_ptr()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            l([0, 1, 1], [32, 1, 1], 0, kp, core::ptr::null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            l([1, 1, 1], [32, 1, 0], 0, kp, core::ptr::null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            l([1, 1, 1], [2048, 1, 1], 0, kp, core::ptr::null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            l(
                [1, 1, 1],
                [32, 1, 1],
                0,
                core::ptr::null_mut(),
                core::ptr::null_mut()
            ),
            CUDA_ERROR_INVALID_VALUE
        );
        ck(l([1, 1, 1], [32, 1, 1], 0, kp, core::ptr::null_mut()));
        assert_eq!(
            cuLaunchKernel(
                0x99 as CUfunction,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                s,
                kp,
                core::ptr::null_mut()
            ),
            CUDA_ERROR_INVALID_HANDLE
        );
    }
    ck(sync(s));
    ck(destroy(s));
    buf.free();
}

#[test]
fn fifo_order_and_blocking_wait() {
    setup();
    let s = stream();
    let tim = load("timing", 87);
    let (_, stamp) = function(tim, "stamp_globaltimer");
    let flag = Pinned::<u64>::new(1);
    let vals = Pinned::<u32>::new(64);
    let slots = Pinned::<u64>::new(32);

    // The stream blocks on flag >= 1; everything after it waits.
    ck(wait64(s, flag.dptr(), 1, CU_STREAM_WAIT_VALUE_GEQ.0));
    for i in 0..32u32 {
        ck(write32(s, vals.dptr(), i + 1));
        ck(write32(s, vals.dptr() + 4 * u64::from(i + 1), i + 100));
        let mut sd = slots.dptr() + 8 * u64::from(i);
        ck(launch(stamp, s, &mut [p(&mut sd)]));
    }
    assert_eq!(query(s), CUDA_ERROR_NOT_READY);
    stays_false(20, || load_u32(vals.ptr) != 0);
    store_u64(flag.ptr, 1);
    ck(sync(s));
    ck(query(s));
    assert_eq!(vals.slice()[0], 32, "the last write wins");
    for i in 0..32 {
        assert_eq!(vals.slice()[i + 1], i as u32 + 100);
    }
    let st = slots.slice();
    for w in st.windows(2) {
        // FIFO: each kernel starts after the previous one ended (default 20 us each).
        assert!(w[1] >= w[0] + 20_000, "{} then {}", w[0], w[1]);
    }
    ck(destroy(s));
    flag.free();
    vals.free();
    slots.free();
}

/// Covers: REQ-GPU-006
#[test]
fn wait_value_conditions_and_wraparound() {
    setup();
    let s = stream();
    let mem = Pinned::<u64>::new(8);
    let c64 = mem.ptr;
    // SAFETY: inside the 64-byte allocation.
    let c32 = unsafe { mem.ptr.add(1) }.cast::<u32>();
    // SAFETY: inside the 64-byte allocation.
    let out = unsafe { mem.ptr.add(2) }.cast::<u32>();
    let (d64, d32, dout) = (c64 as CUdeviceptr, c32 as CUdeviceptr, out as CUdeviceptr);

    // 64-bit GEQ across the wrap: waiting for 5 while the counter is just below 2^64.
    store_u64(c64, u64::MAX - 15);
    ck(wait64(s, d64, 5, CU_STREAM_WAIT_VALUE_GEQ.0));
    ck(write32(s, dout, 1));
    stays_false(20, || load_u32(out) == 1);
    store_u64(c64, 3); // wrapped, still "before" 5
    stays_false(20, || load_u32(out) == 1);
    store_u64(c64, 6);
    eventually(|| load_u32(out) == 1);

    // 32-bit GEQ across the wrap.
    store_u32(c32, 0xFFFF_FFF0);
    ck(wait32(s, d32, 2, CU_STREAM_WAIT_VALUE_GEQ.0));
    ck(write32(s, dout, 2));
    stays_false(20, || load_u32(out) == 2);
    store_u32(c32, 2);
    eventually(|| load_u32(out) == 2);

    // EQ (passes 7, waits for exactly 9).
    store_u64(c64, 7);
    ck(wait64(s, d64, 9, CU_STREAM_WAIT_VALUE_EQ.0));
    ck(write32(s, dout, 3));
    store_u64(c64, 10);
    stays_false(20, || load_u32(out) == 3);
    store_u64(c64, 9);
    eventually(|| load_u32(out) == 3);

    // AND, 64 and 32 bit.
    store_u64(c64, 0b0011);
    ck(wait64(s, d64, 0b0100, CU_STREAM_WAIT_VALUE_AND.0));
    ck(write32(s, dout, 4));
    stays_false(20, || load_u32(out) == 4);
    store_u64(c64, 0b0110);
    eventually(|| load_u32(out) == 4);
    store_u32(c32, 0);
    ck(wait32(s, d32, 0x8000_0000, CU_STREAM_WAIT_VALUE_AND.0));
    ck(write32(s, dout, 5));
    stays_false(20, || load_u32(out) == 5);
    store_u32(c32, 0x8000_0001);
    eventually(|| load_u32(out) == 5);
    ck(sync(s));

    // Errors at enqueue.
    assert_eq!(
        wait64(s, d64, 1, CU_STREAM_WAIT_VALUE_NOR.0),
        CUDA_ERROR_NOT_SUPPORTED
    );
    assert_eq!(
        wait32(s, d32, 1, CU_STREAM_WAIT_VALUE_NOR.0),
        CUDA_ERROR_NOT_SUPPORTED
    );
    assert_eq!(
        wait64(s, d64, 1, CU_STREAM_WAIT_VALUE_FLUSH.0),
        CUDA_ERROR_NOT_SUPPORTED
    );
    assert_eq!(wait64(s, d64, 1, 4), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(wait64(s, d64 + 4, 1, 0), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(wait32(s, d32 + 2, 1, 0), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(wait64(s, 0, 1, 0), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(write64(s, d64 + 4, 1), CUDA_ERROR_INVALID_VALUE);
    // SAFETY: plain C call.
    let r = unsafe { cuStreamWriteValue64_v2(s, d64, 1, 2) };
    assert_eq!(r, CUDA_ERROR_INVALID_VALUE);
    // SAFETY: plain C call.
    ck(unsafe { cuStreamWriteValue64_v2(s, d64, 77, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER.0) });
    ck(sync(s));
    assert_eq!(load_u64(c64), 77);
    ck(destroy(s));
    mem.free();
}

#[test]
fn sticky_illegal_address() {
    setup();
    let bad = stream();
    let good = stream();
    let sel = load("selftest", 87);
    let (_, fill) = function(sel, "fill_pattern_u32");
    let buf = Pinned::<u32>::new(1024);
    let mut unknown = vec![0u32; 16]; // ordinary heap memory: not visible to the SIL GPU
    let ev = event(CU_EVENT_DEFAULT);

    // A launch that overruns the pinned allocation (1024 elements padded to one page = 1024).
    // Held back by a wait until both are enqueued (the error could otherwise come first).
    let gate = Pinned::<u64>::new(1);
    ck(wait64(bad, gate.dptr(), 1, 0));
    let (mut d, mut n, mut seed) = (buf.dptr(), 1025u32, 1u32);
    ck(launch(fill, bad, &mut [p(&mut d), p(&mut n), p(&mut seed)]));
    ck(record(ev, bad));
    store_u64(gate.ptr, 1);
    assert_eq!(sync(bad), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_eq!(query(bad), CUDA_ERROR_ILLEGAL_ADDRESS);
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!(cuEventQuery(ev), CUDA_ERROR_ILLEGAL_ADDRESS);
        assert_eq!(cuEventSynchronize(ev), CUDA_ERROR_ILLEGAL_ADDRESS);
    }
    assert!(buf.slice().iter().all(|&v| v == 0), "nothing written");
    // Every later call on that stream reports it.
    let (mut d2, mut n2) = (buf.dptr(), 4u32);
    assert_eq!(
        launch(fill, bad, &mut [p(&mut d2), p(&mut n2), p(&mut seed)]),
        CUDA_ERROR_ILLEGAL_ADDRESS
    );
    assert_eq!(write32(bad, buf.dptr(), 1), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_eq!(wait32(bad, buf.dptr(), 1, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_eq!(record(ev, bad), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_eq!(sync(bad), CUDA_ERROR_ILLEGAL_ADDRESS);
    // The other stream is unaffected.
    ck(launch(
        fill,
        good,
        &mut [p(&mut d2), p(&mut n2), p(&mut seed)],
    ));
    ck(sync(good));
    assert_eq!(buf.slice()[3], pattern_u32(3, 1));
    ck(destroy(bad));

    // A stream write into unknown memory, a misaligned kernel buffer, read-only memory.
    let s2 = stream();
    ck(write32(s2, unknown.as_mut_ptr() as CUdeviceptr, 5));
    assert_eq!(sync(s2), CUDA_ERROR_ILLEGAL_ADDRESS);
    assert_eq!(unknown[0], 0);
    ck(destroy(s2));
    let s3 = stream();
    let (mut d3, mut n3) = (buf.dptr() + 2, 4u32);
    ck(launch(
        fill,
        s3,
        &mut [p(&mut d3), p(&mut n3), p(&mut seed)],
    ));
    assert_eq!(sync(s3), sil_cuda::consts::CUDA_ERROR_MISALIGNED_ADDRESS);
    ck(destroy(s3));
    let s4 = stream();
    let mut ro = vec![0u32; 64];
    // SAFETY: `ro` outlives the registration.
    ck(unsafe { cuMemHostRegister_v2(ro.as_mut_ptr().cast(), 256, CU_MEMHOSTREGISTER_READ_ONLY) });
    let (mut d4, mut n4) = (ro.as_mut_ptr() as CUdeviceptr, 4u32);
    ck(launch(
        fill,
        s4,
        &mut [p(&mut d4), p(&mut n4), p(&mut seed)],
    ));
    assert_eq!(sync(s4), CUDA_ERROR_ILLEGAL_ADDRESS);
    ck(destroy(s4));
    // A read-only wait on it is fine.
    let s5 = stream();
    ck(wait32(s5, ro.as_mut_ptr() as CUdeviceptr, 0, 0));
    ck(sync(s5));
    ck(destroy(s5));
    // SAFETY: registered above.
    ck(unsafe { cuMemHostUnregister(ro.as_mut_ptr().cast()) });
    // __restrict__ buffers that overlap: launch failure.
    let s6 = stream();
    let (_, saxpy) = function(sel, "saxpy_f32");
    let (mut a, mut x, mut y, mut n6) = (1.0f32, buf.dptr(), buf.dptr() + 8, 8u32);
    ck(launch(
        saxpy,
        s6,
        &mut [p(&mut a), p(&mut x), p(&mut y), p(&mut n6)],
    ));
    assert_eq!(sync(s6), CUDA_ERROR_LAUNCH_FAILED);
    ck(destroy(s6));
    ck(destroy(good));
    buf.free();
}

#[test]
fn queue_capacity() {
    setup();
    let s = stream();
    let flag = Pinned::<u64>::new(1);
    let out = Pinned::<u32>::new(1);
    ck(wait64(s, flag.dptr(), 1, 0));
    // Fill the queue behind the blocked wait (which the worker may not have popped yet).
    let cap = sil_cuda::consts::STREAM_QUEUE_CAPACITY as u32;
    let mut accepted = 0u32;
    loop {
        match write32(s, out.dptr(), accepted + 1) {
            CUDA_SUCCESS => accepted += 1,
            r => {
                assert_eq!(r, CUDA_ERROR_OUT_OF_MEMORY);
                break;
            }
        }
        assert!(accepted <= cap);
    }
    assert!(accepted == cap || accepted == cap - 1, "{accepted}");
    assert_eq!(write32(s, out.dptr(), 0), CUDA_ERROR_OUT_OF_MEMORY);
    store_u64(flag.ptr, 1);
    ck(sync(s));
    assert_eq!(
        out.slice()[0],
        accepted,
        "the refused writes were not enqueued"
    );
    ck(destroy(s));
    flag.free();
    out.free();
}

#[test]
fn destroying_a_waiting_stream_does_not_hang() {
    setup();
    let s = stream();
    let flag = Pinned::<u64>::new(1);
    let out = Pinned::<u32>::new(1);
    let ev = event(CU_EVENT_DEFAULT);
    ck(write32(s, out.dptr(), 1));
    ck(wait64(s, flag.dptr(), 1, 0)); // never satisfied
    ck(write32(s, out.dptr(), 2));
    ck(record(ev, s));
    eventually(|| load_u32(out.ptr) == 1);
    let t = Instant::now();
    ck(destroy(s));
    // Liveness: a destroy that waited on the flag would never return.
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(
        out.slice()[0],
        1,
        "work after the abandoned wait is discarded"
    );
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!(cuEventQuery(ev), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuEventSynchronize(ev), CUDA_ERROR_INVALID_HANDLE);
    }
    assert_eq!(query(s), CUDA_ERROR_INVALID_HANDLE);

    // A satisfied wait and plain work are drained, not dropped.
    let s = stream();
    store_u64(flag.ptr, 1);
    ck(wait64(s, flag.dptr(), 1, 0));
    ck(write32(s, out.dptr(), 3));
    ck(destroy(s));
    assert_eq!(out.slice()[0], 3);
    flag.free();
    out.free();
}

#[test]
fn events_in_real_time() {
    setup();
    let s = stream();
    let sel = load("selftest", 87);
    let (_, fill) = function(sel, "fill_pattern_u32");
    let buf = Pinned::<u32>::new(4);
    let flag = Pinned::<u64>::new(1);
    let (e0, e1) = (event(CU_EVENT_DEFAULT), event(CU_EVENT_BLOCKING_SYNC));
    let nt = event(CU_EVENT_DISABLE_TIMING);
    // SAFETY: plain C calls with valid out pointers.
    unsafe {
        ck(cuEventQuery(e0)); // never recorded: complete
        assert_eq!(elapsed(e0, e1).0, CUDA_ERROR_INVALID_HANDLE);
        let mut e = core::ptr::null_mut();
        assert_eq!(cuEventCreate(&mut e, 8), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(
            cuEventCreate(&mut e, CU_EVENT_INTERPROCESS.0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuEventCreate(&mut e, CU_EVENT_INTERPROCESS.0 | CU_EVENT_DISABLE_TIMING.0),
            CUDA_ERROR_NOT_SUPPORTED
        );
        // A 2 ms kernel.
        let model = cuda_sys::sil::cuSilTimingModel {
            kind: 0,
            numBins: 0,
            minNs: 2_000_000,
            maxNs: 0,
            binUpperNs: core::ptr::null(),
            binWeights: core::ptr::null(),
            seed: 0,
        };
        ck(cuda_sys::sil::cuSilSetKernelTimingModel(fill, &model));
        let bad = cuda_sys::sil::cuSilTimingModel { kind: 7, ..model };
        assert_eq!(
            cuda_sys::sil::cuSilSetKernelTimingModel(fill, &bad),
            CUDA_ERROR_INVALID_VALUE
        );
        let hist = cuda_sys::sil::cuSilTimingModel {
            kind: 2,
            numBins: 2,
            ..model
        };
        assert_eq!(
            cuda_sys::sil::cuSilSetKernelTimingModel(fill, &hist),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuda_sys::sil::cuSilSetKernelTimingModel(fill, core::ptr::null()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuda_sys::sil::cuSilSetKernelTimingModel(0x77 as CUfunction, &model),
            CUDA_ERROR_INVALID_HANDLE
        );
    }
    ck(wait64(s, flag.dptr(), 1, 0));
    ck(record(e0, s));
    let (mut d, mut n, mut seed) = (buf.dptr(), 4u32, 9u32);
    ck(launch(fill, s, &mut [p(&mut d), p(&mut n), p(&mut seed)]));
    ck(record(e1, s));
    ck(record(nt, s));
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!(cuEventQuery(e0), CUDA_ERROR_NOT_READY);
        assert_eq!(elapsed(e0, e1).0, CUDA_ERROR_NOT_READY);
        store_u64(flag.ptr, 1);
        ck(cuEventSynchronize(e1));
        ck(cuEventQuery(e0));
        let (r, ms) = elapsed(e0, e1);
        ck(r);
        assert!((2.0..500.0).contains(&ms), "{ms} ms");
        let (r, back) = elapsed(e1, e0);
        ck(r);
        assert_eq!(back, -ms);
        assert_eq!(elapsed(e0, nt).0, CUDA_ERROR_INVALID_HANDLE);
        ck(cuEventSynchronize(nt));
        ck(cuEventDestroy_v2(nt));
        assert_eq!(cuEventDestroy_v2(nt), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuEventQuery(nt), CUDA_ERROR_INVALID_HANDLE);
    }
    ck(destroy(s));
    buf.free();
    flag.free();
}
