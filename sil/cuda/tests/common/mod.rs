//! Helpers shared by the integration tests: they call SIL CUDA only through the `cuda-sys`
//! declarations (the C ABI), exactly as the runtime does.
#![allow(dead_code, non_snake_case)]

use core::ffi::{c_uint, c_void};
use std::ffi::CString;

pub use cuda_sys::*;
use orin_exec_kernels::PostprocessParams;

pub mod nvsci;

// Link the SIL libraries whose symbols the declarations resolve to.
use nvscibuf as _;
use nvscisync as _;
use sil_cuda as _;

/// Asserts success.
#[track_caller]
pub fn ck(r: CUresult) {
    assert_eq!(r, CUDA_SUCCESS);
}

/// Registers the model of every kernel of `orin-exec-kernels` for its committed cubins,
/// through the public API (as an application does). Idempotent.
pub fn register_project_models() {
    for &(module, kernel, model) in orin_exec_kernels::MODELS {
        let desc = orin_exec_kernels::cubin_desc(module).expect("a module of the crate");
        let hashes: Vec<[u8; 32]> = desc.variants.iter().map(|v| v.sha256).collect();
        sil_cuda::register_kernel_model(module, kernel, &hashes, model)
            .unwrap_or_else(|e| panic!("{module}/{kernel}: {e}"));
    }
}

/// [`register_project_models`], then [`setup_without_models`].
pub fn setup() -> CUcontext {
    register_project_models();
    setup_without_models()
}

/// `cuInit`, retain the primary context and make it current on this thread.
pub fn setup_without_models() -> CUcontext {
    // SAFETY: plain C calls with valid out pointers.
    unsafe {
        ck(cuInit(0));
        let mut ctx = core::ptr::null_mut();
        ck(cuDevicePrimaryCtxRetain(&mut ctx, 0));
        ck(cuCtxSetCurrent(ctx));
        ctx
    }
}

/// A new stream.
pub fn stream() -> CUstream {
    let mut s = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    ck(unsafe { cuStreamCreate(&mut s, CU_STREAM_NON_BLOCKING.0) });
    s
}

/// Pinned memory of `n` elements of `T` (zeroed).
pub struct Pinned<T> {
    pub ptr: *mut T,
    pub len: usize,
}

// SAFETY: plain memory; the tests synchronise access through stream sync.
unsafe impl<T> Send for Pinned<T> {}

impl<T: Copy> Pinned<T> {
    pub fn new(len: usize) -> Self {
        let mut p = core::ptr::null_mut();
        // SAFETY: valid out pointer.
        ck(unsafe { cuMemHostAlloc(&mut p, len * size_of::<T>(), CU_MEMHOSTALLOC_DEVICEMAP) });
        Pinned { ptr: p.cast(), len }
    }
    pub fn dptr(&self) -> CUdeviceptr {
        self.ptr as CUdeviceptr
    }
    pub fn slice(&self) -> &[T] {
        // SAFETY: `len` zeroed/initialised elements; no stream writes while the test reads
        // (tests synchronise first).
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
    pub fn slice_mut(&mut self) -> &mut [T] {
        // SAFETY: as above.
        unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
    pub fn free(self) {
        // SAFETY: pointer from cuMemHostAlloc, not used afterwards.
        ck(unsafe { cuMemFreeHost(self.ptr.cast()) });
    }
}

/// Loads the committed cubin `name` for `sm`.
pub fn load(name: &str, sm: u32) -> CUmodule {
    let c = orin_exec_kernels::cubin(name, sm).expect("committed cubin");
    let mut m = core::ptr::null_mut();
    // SAFETY: a complete ELF image.
    ck(unsafe { cuModuleLoadData(&mut m, c.image.as_ptr().cast()) });
    m
}

/// Loads an arbitrary image (returns the result).
pub fn load_image(image: &[u8]) -> (CUresult, CUmodule) {
    let mut m = core::ptr::null_mut();
    // SAFETY: the tests pass complete ELF images or NUL-terminated bytes.
    let r = unsafe { cuModuleLoadData(&mut m, image.as_ptr().cast()) };
    (r, m)
}

/// A function of a module (returns the result).
pub fn function(m: CUmodule, name: &str) -> (CUresult, CUfunction) {
    let mut f = core::ptr::null_mut();
    let n = CString::new(name).expect("name");
    // SAFETY: valid pointers.
    let r = unsafe { cuModuleGetFunction(&mut f, m, n.as_ptr()) };
    (r, f)
}

/// `cuSilGetKernelModelStatus` of `kernel` in `m`.
pub fn model_status(m: CUmodule, kernel: &str) -> core::ffi::c_int {
    let n = CString::new(kernel).expect("name");
    let mut status = -1;
    // SAFETY: valid pointers.
    ck(unsafe { sil::cuSilGetKernelModelStatus(m, n.as_ptr(), &mut status) });
    status
}

/// Launches `f` with a 1x1x1 grid of 256 threads and the given parameter pointers.
pub fn launch(f: CUfunction, s: CUstream, params: &mut [*mut c_void]) -> CUresult {
    // SAFETY: one valid pointer per parameter (the caller builds them).
    unsafe {
        cuLaunchKernel(
            f,
            1,
            1,
            1,
            256,
            1,
            1,
            0,
            s,
            params.as_mut_ptr(),
            core::ptr::null_mut(),
        )
    }
}

/// Launches `aeb_preprocess`: the `w` × `h` image at `src` → the half-size map at `dst`.
pub fn launch_preprocess(
    f: CUfunction,
    s: CUstream,
    (mut src, mut dst): (CUdeviceptr, CUdeviceptr),
    (mut w, mut h): (u32, u32),
) -> CUresult {
    launch(f, s, &mut [p(&mut src), p(&mut dst), p(&mut w), p(&mut h)])
}

/// Launches `aeb_postprocess` over the `map_w` × `map_h` map at `map` with `pp`, writing
/// its four `i32` to `out`.
pub fn launch_postprocess(
    f: CUfunction,
    s: CUstream,
    (mut map, mut map_w, mut map_h): (CUdeviceptr, u32, u32),
    pp: &PostprocessParams,
    mut out: CUdeviceptr,
) -> CUresult {
    let (mut th, mut x0, mut x1) = (pp.threshold, pp.lane_x0, pp.lane_x1);
    let (mut rs, mut ro, mut hz, mut fh) = (pp.row_scale, pp.row_offset, pp.horizon, pp.fh);
    let mut params = [
        p(&mut map),
        p(&mut map_w),
        p(&mut map_h),
        p(&mut th),
        p(&mut x0),
        p(&mut x1),
        p(&mut rs),
        p(&mut ro),
        p(&mut hz),
        p(&mut fh),
        p(&mut out),
    ];
    launch(f, s, &mut params)
}

/// A parameter pointer.
pub fn p<T>(v: &mut T) -> *mut c_void {
    (v as *mut T).cast()
}

pub fn sync(s: CUstream) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuStreamSynchronize(s) }
}

pub fn query(s: CUstream) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuStreamQuery(s) }
}

pub fn destroy(s: CUstream) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuStreamDestroy_v2(s) }
}

pub fn wait64(s: CUstream, addr: CUdeviceptr, v: u64, flags: c_uint) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuStreamWaitValue64_v2(s, addr, v, flags) }
}

pub fn wait32(s: CUstream, addr: CUdeviceptr, v: u32, flags: c_uint) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuStreamWaitValue32_v2(s, addr, v, flags) }
}

pub fn write64(s: CUstream, addr: CUdeviceptr, v: u64) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuStreamWriteValue64_v2(s, addr, v, 0) }
}

pub fn write32(s: CUstream, addr: CUdeviceptr, v: u32) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuStreamWriteValue32_v2(s, addr, v, 0) }
}

pub fn event(flags: CUevent_flags) -> CUevent {
    let mut e = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    ck(unsafe { cuEventCreate(&mut e, flags.0) });
    e
}

pub fn record(e: CUevent, s: CUstream) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuEventRecord(e, s) }
}

pub fn elapsed(a: CUevent, b: CUevent) -> (CUresult, f32) {
    let mut ms = f32::NAN;
    // SAFETY: valid out pointer.
    let r = unsafe { cuEventElapsedTime(&mut ms, a, b) };
    (r, ms)
}

/// Volatile store to host memory a stream may be polling.
pub fn store_u64(addr: *mut u64, v: u64) {
    // SAFETY: the tests pass aligned pinned memory; the SIL reads it atomically.
    unsafe { std::sync::atomic::AtomicU64::from_ptr(addr) }
        .store(v, std::sync::atomic::Ordering::Release);
}

pub fn store_u32(addr: *mut u32, v: u32) {
    // SAFETY: as above.
    unsafe { std::sync::atomic::AtomicU32::from_ptr(addr) }
        .store(v, std::sync::atomic::Ordering::Release);
}

pub fn load_u32(addr: *mut u32) -> u32 {
    // SAFETY: as above.
    unsafe { std::sync::atomic::AtomicU32::from_ptr(addr) }
        .load(std::sync::atomic::Ordering::Acquire)
}

pub fn load_u64(addr: *mut u64) -> u64 {
    // SAFETY: as above.
    unsafe { std::sync::atomic::AtomicU64::from_ptr(addr) }
        .load(std::sync::atomic::Ordering::Acquire)
}

/// Polls `cond` for up to 5 s.
#[track_caller]
pub fn eventually(mut cond: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !cond() {
        assert!(t.elapsed().as_secs() < 5, "condition not reached in 5 s");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Stays false for `ms` milliseconds.
#[track_caller]
pub fn stays_false(ms: u64, mut cond: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while t.elapsed().as_millis() < u128::from(ms) {
        assert!(!cond(), "condition became true");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}
