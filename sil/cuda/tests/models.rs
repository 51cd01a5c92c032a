//! Kernel models through the public registration API only (its own process, so nothing is
//! registered unless a test registers it): a kernel is handed out only with a model bound to
//! the loaded image's hash whose kinds match the cubin; user models (Rust and C ABI) run on
//! the stream's worker with SIL CUDA's memory checks and sticky errors.
//!
//! Covers: REQ-KM-002

mod common;

use core::ffi::{c_int, c_uint, c_void};
use std::ffi::CString;
use std::sync::Mutex;

use common::*;
use cuda_sys::sil::*;
use orin_exec_kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
use sil_cuda::RegisterError;

// The tests of this file share the registry: each one registers models of its own kernels.

fn selftest_hash() -> [u8; 32] {
    orin_exec_kernels::cubin("selftest", 87)
        .expect("cubin")
        .sha256
}

/// A user's model of `fill_pattern_u32(uint32_t* dst, uint32_t n, uint32_t seed)` that writes
/// `seed + i` (not the project's hash): whatever runs is this model.
struct CountUp;

impl KernelModel for CountUp {
    fn params(&self) -> &[ParamKind] {
        &[ParamKind::DevPtr, ParamKind::U32, ParamKind::U32]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (n, seed) = (l.u32(1)?, l.u32(2)?);
        for (i, d) in (0u32..).zip(l.buffers(write::<u32>(0, n as usize))?) {
            *d = seed.wrapping_add(i);
        }
        Ok(())
    }
}

/// Declares two parameters where the cubin has three.
struct TwoParams;

impl KernelModel for TwoParams {
    fn params(&self) -> &[ParamKind] {
        &[ParamKind::DevPtr, ParamKind::U32]
    }

    fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
        Ok(())
    }
}

/// A saxpy that borrows `y` for writing and `x` for reading: refused when they overlap.
struct Saxpy;

impl KernelModel for Saxpy {
    fn params(&self) -> &[ParamKind] {
        &[
            ParamKind::F32,
            ParamKind::DevPtr,
            ParamKind::DevPtr,
            ParamKind::U32,
        ]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (a, n) = (l.f32(0)?, l.u32(3)? as usize);
        let (x, y) = l.buffers((read::<f32>(1, n), write::<f32>(2, n)))?;
        for (y, x) in y.iter_mut().zip(x) {
            *y += a * x;
        }
        Ok(())
    }
}

static COUNT_UP: CountUp = CountUp;
static TWO_PARAMS: TwoParams = TwoParams;
static SAXPY: Saxpy = Saxpy;

fn launch_fill(f: CUfunction, s: CUstream, out: &Pinned<u32>, n: u32, seed: u32) -> CUresult {
    let (mut d, mut n, mut seed) = (out.dptr(), n, seed);
    launch(f, s, &mut [p(&mut d), p(&mut n), p(&mut seed)])
}

#[test]
fn a_kernel_is_handed_out_only_with_a_matching_model_for_its_cubin() {
    setup_without_models();
    let m = load("selftest", 87);
    // Nothing registered: not found, and the status says why.
    assert_eq!(function(m, "fill_pattern_u32").0, CUDA_ERROR_NOT_FOUND);
    assert_eq!(
        model_status(m, "fill_pattern_u32"),
        CU_SIL_KERNEL_MODEL_NOT_REGISTERED
    );
    assert_eq!(
        model_status(m, "no_such_kernel"),
        CU_SIL_KERNEL_MODEL_NOT_IN_CUBIN
    );
    // Bound to another cubin.
    let reg = |hash, model: &'static dyn KernelModel| {
        sil_cuda::register_kernel_model("selftest", "fill_pattern_u32", &[hash], model)
    };
    reg([0x5A; 32], &COUNT_UP).expect("registered");
    assert_eq!(function(m, "fill_pattern_u32").0, CUDA_ERROR_NOT_FOUND);
    assert_eq!(
        model_status(m, "fill_pattern_u32"),
        CU_SIL_KERNEL_MODEL_OTHER_CUBINS
    );
    // Bound to this cubin, but the kinds disagree with its parameters.
    reg(selftest_hash(), &TWO_PARAMS).expect("replaced (nothing handed out yet)");
    assert_eq!(function(m, "fill_pattern_u32").0, CUDA_ERROR_NOT_FOUND);
    assert_eq!(
        model_status(m, "fill_pattern_u32"),
        CU_SIL_KERNEL_MODEL_KINDS_DISAGREE
    );
    // The user's model: handed out, and it is what runs.
    reg(selftest_hash(), &COUNT_UP).expect("replaced");
    assert_eq!(model_status(m, "fill_pattern_u32"), CU_SIL_KERNEL_MODEL_OK);
    let (r, f) = function(m, "fill_pattern_u32");
    ck(r);
    let out = Pinned::<u32>::new(8);
    let s = stream();
    ck(launch_fill(f, s, &out, 5, 100));
    ck(sync(s));
    assert_eq!(out.slice(), [100, 101, 102, 103, 104, 0, 0, 0]);
    // Handed out: only the same registration may be repeated.
    assert_eq!(reg(selftest_hash(), &COUNT_UP), Ok(()));
    assert_eq!(reg(selftest_hash(), &TWO_PARAMS), Err(RegisterError::InUse));
    assert_eq!(
        sil_cuda::kernel_model_params("fill_pattern_u32", &selftest_hash()).as_deref(),
        Some(COUNT_UP.params())
    );
    // A buffer past the memory (the 8 elements are padded to a page, 2000 are not): sticky
    // illegal address.
    ck(launch_fill(f, s, &out, 2000, 0));
    assert_eq!(sync(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    ck(destroy(s));
    // SAFETY: plain C call.
    ck(unsafe { cuModuleUnload(m) });

    // Status on a bad handle or NULL arguments.
    let k = CString::new("fill_pattern_u32").unwrap();
    let mut st = 0;
    // SAFETY: valid pointers except the ones under test.
    unsafe {
        assert_eq!(
            cuSilGetKernelModelStatus(m, k.as_ptr(), &mut st),
            CUDA_ERROR_INVALID_HANDLE
        );
        let m = load("selftest", 87);
        assert_eq!(
            cuSilGetKernelModelStatus(m, core::ptr::null(), &mut st),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuSilGetKernelModelStatus(m, k.as_ptr(), core::ptr::null_mut()),
            CUDA_ERROR_INVALID_VALUE
        );
    }
}

#[test]
fn an_overlapping_written_buffer_fails_the_launch() {
    setup_without_models();
    sil_cuda::register_kernel_model("selftest", "saxpy_f32", &[selftest_hash()], &SAXPY)
        .expect("registered");
    let m = load("selftest", 87);
    let (r, f) = function(m, "saxpy_f32");
    ck(r);
    let mut buf = Pinned::<f32>::new(16);
    buf.slice_mut().copy_from_slice(&[1.0; 16]);
    let s = stream();
    let launch_saxpy = |x: CUdeviceptr, y: CUdeviceptr, n: u32| {
        let (mut a, mut x, mut y, mut n) = (2.0f32, x, y, n);
        launch(f, s, &mut [p(&mut a), p(&mut x), p(&mut y), p(&mut n)])
    };
    // Disjoint halves: fine.
    ck(launch_saxpy(buf.dptr(), buf.dptr() + 32, 8));
    ck(sync(s));
    assert_eq!(&buf.slice()[8..], &[3.0; 8]);
    // y overlaps x: refused, nothing written, the stream's error is sticky.
    ck(launch_saxpy(buf.dptr(), buf.dptr() + 16, 8));
    assert_eq!(sync(s), CUDA_ERROR_LAUNCH_FAILED);
    assert_eq!(&buf.slice()[4..8], &[1.0; 4]);
    assert_eq!(
        launch_saxpy(buf.dptr(), buf.dptr() + 32, 8),
        CUDA_ERROR_LAUNCH_FAILED
    );
    ck(destroy(s));
}

// ---------------------------------------------------------------------------------------
// A C model, registered through the C ABI (as `sil/c-client/c/kernel_model.c` does in C).

/// What the C callback saw, for the test to check.
static SEEN: Mutex<Vec<(u32, [c_uint; 6], u64)>> = Mutex::new(Vec::new());

/// `aeb_preprocess(const uint8_t* src, int8_t* dst, uint32_t w, uint32_t h)` as a C model of
/// the test's own: `dst[i] = ~src[i]` for `i < (w / 2) * (h / 2)`. `w == 7` returns failure.
unsafe extern "C" fn c_invert(user: *mut c_void, l: *const cuSilKernelLaunch) -> c_int {
    assert_eq!(user as usize, 0xC0FFEE);
    let (mut w, mut h, mut dims, mut now) = (0u32, 0u32, [0 as c_uint; 6], 0u64);
    let (mut src, mut dst): (*mut c_void, *mut c_void) = Default::default();
    // SAFETY: `l` is the launch of this callback; every out pointer is valid.
    unsafe {
        if cuSilLaunchGetParam(l, 2, (&raw mut w).cast(), 4) != CUDA_SUCCESS
            || cuSilLaunchGetParam(l, 3, (&raw mut h).cast(), 4) != CUDA_SUCCESS
            || cuSilLaunchGetDims(l, dims.as_mut_ptr(), dims.as_mut_ptr().add(3)) != CUDA_SUCCESS
            || cuSilLaunchGetTime(l, &mut now) != CUDA_SUCCESS
        {
            return 1;
        }
        // Wrong sizes and indices are refused without failing the launch.
        assert_eq!(
            cuSilLaunchGetParam(l, 2, (&raw mut now).cast(), 8),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuSilLaunchGetParam(l, 4, (&raw mut w).cast(), 4),
            CUDA_ERROR_INVALID_VALUE
        );
        SEEN.lock().unwrap().push((w, dims, now));
        let n = (w / 2 * (h / 2)) as usize;
        if cuSilLaunchBuffer(l, 0, n, 1, 0, &mut src) != CUDA_SUCCESS
            || cuSilLaunchBuffer(l, 1, n, 1, 1, &mut dst) != CUDA_SUCCESS
        {
            // The refusal fails the launch whatever the callback returns.
            return 0;
        }
        for i in 0..n {
            dst.cast::<u8>()
                .add(i)
                .write(!src.cast::<u8>().add(i).read());
        }
    }
    c_int::from(w == 7)
}

#[test]
fn a_c_model_registered_through_the_c_abi_runs_with_checked_buffers() {
    setup_without_models();
    let aeb_hash = orin_exec_kernels::cubin("aeb", 87).expect("cubin").sha256;
    let module = CString::new("aeb").unwrap();
    let kernel = CString::new("aeb_preprocess").unwrap();
    let other = CString::new("not_in_the_cubin").unwrap();
    let hashes = [aeb_hash];
    let kinds = [
        CU_SIL_PARAM_PTR,
        CU_SIL_PARAM_PTR,
        CU_SIL_PARAM_U32,
        CU_SIL_PARAM_U32,
    ];
    let user = 0xC0FFEE as *mut c_void;
    let reg = |k: &CString, kinds: &[cuSilParamKind], f: cuSilKernelModelFn, u: *mut c_void| {
        // SAFETY: valid pointers and lengths; the callback is callable with `u` from any
        // thread.
        unsafe {
            cuSilRegisterKernelModel(
                module.as_ptr(),
                k.as_ptr(),
                hashes.as_ptr(),
                1,
                kinds.as_ptr(),
                kinds.len() as c_uint,
                f,
                u,
            )
        }
    };
    assert_eq!(reg(&kernel, &kinds, None, user), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        reg(&kernel, &[cuSilParamKind(5)], Some(c_invert), user),
        CUDA_ERROR_INVALID_VALUE
    );
    // SAFETY: valid pointers; no hash is what is under test.
    let no_hash = unsafe {
        cuSilRegisterKernelModel(
            module.as_ptr(),
            kernel.as_ptr(),
            hashes.as_ptr(),
            0,
            kinds.as_ptr(),
            4,
            Some(c_invert),
            user,
        )
    };
    assert_eq!(no_hash, CUDA_ERROR_INVALID_VALUE);
    // A name the cubin does not export registers fine but is never handed out.
    ck(reg(&other, &kinds, Some(c_invert), user));
    ck(reg(&kernel, &kinds, Some(c_invert), user));
    let m = load("aeb", 87);
    assert_eq!(
        model_status(m, "not_in_the_cubin"),
        CU_SIL_KERNEL_MODEL_NOT_IN_CUBIN
    );
    let (r, f) = function(m, "aeb_preprocess");
    ck(r);
    let mut src = Pinned::<u8>::new(64);
    src.slice_mut()
        .iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v = i as u8);
    let dst = Pinned::<u8>::new(16);
    let s = stream();
    // SAFETY: one valid pointer per parameter.
    let run = |s: CUstream, w: u32, h: u32, grid: c_uint| unsafe {
        let (mut a, mut b, mut w, mut h) = (src.dptr(), dst.dptr(), w, h);
        let mut params = [p(&mut a), p(&mut b), p(&mut w), p(&mut h)];
        cuLaunchKernel(
            f,
            grid,
            1,
            1,
            32,
            2,
            1,
            0,
            s,
            params.as_mut_ptr(),
            core::ptr::null_mut(),
        )
    };
    ck(run(s, 8, 8, 2));
    ck(sync(s));
    let want: Vec<u8> = (0..16u8).map(|i| !i).collect();
    assert_eq!(dst.slice(), &want[..]);
    {
        let seen = SEEN.lock().unwrap();
        let &(w, dims, now) = seen.last().unwrap();
        assert_eq!((w, dims), (8, [2, 1, 1, 32, 2, 1]));
        assert!(now > 0);
    }
    // A nonzero return fails the launch.
    ck(run(s, 7, 2, 1));
    assert_eq!(sync(s), CUDA_ERROR_LAUNCH_FAILED);
    ck(destroy(s));
    // A refused buffer (2048 x 2048 / 4 bytes are far more than the page `dst` has) fails
    // it although the callback returns 0.
    let s = stream();
    ck(run(s, 2048, 2048, 1));
    assert_eq!(sync(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    ck(destroy(s));
    // Outside a callback the launch handle is refused.
    let mut out = core::ptr::null_mut();
    // SAFETY: a dangling handle is what is under test; the function checks it first.
    let r = unsafe { cuSilLaunchBuffer(8 as *const cuSilKernelLaunch, 0, 4, 4, 1, &mut out) };
    assert_eq!(r, CUDA_ERROR_INVALID_HANDLE);
    // Handed out: a different C registration is not permitted, the same one is a no-op.
    ck(reg(&kernel, &kinds, Some(c_invert), user));
    assert_eq!(
        reg(&kernel, &kinds, Some(c_invert), core::ptr::null_mut()),
        CUDA_ERROR_NOT_PERMITTED
    );
}
