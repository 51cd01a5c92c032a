//! `SIL_CUDA_SM=90` (read once by `cuInit`): the device is sm_90, so the sm_90 cubins load
//! and the sm_87 ones do not. Its own process, because the variable must be set before the
//! first `cuInit`.
//!
//! Covers: REQ-GPU-007

mod common;

use common::*;
use cuda_sys::sil::CU_SIL_KERNEL_MODEL_NOT_REGISTERED;
use orin_exec_kernel_model::{KernelModel, Launch, ModelError, ParamKind, write};
use sha2::Digest as _;

#[test]
fn sm_from_environment() {
    // SAFETY: the only thread of this test process that touches the environment, before
    // any other thread reads it.
    unsafe { std::env::set_var("SIL_CUDA_SM", "sm_90") };
    setup();
    let mut v = 0;
    // SAFETY: valid out pointers.
    unsafe {
        ck(cuDeviceGetAttribute(
            &mut v,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            0,
        ));
        assert_eq!(v, 9);
        ck(cuDeviceGetAttribute(
            &mut v,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
            0,
        ));
        assert_eq!(v, 0);
        let mut name = [0 as core::ffi::c_char; 64];
        ck(cuDeviceGetName(name.as_mut_ptr(), 64, 0));
        assert_eq!(
            core::ffi::CStr::from_ptr(name.as_ptr()).to_str(),
            Ok("orin-exec SIL GPU (sm_90)")
        );
    }
    // Read once: changing it later has no effect.
    // SAFETY: as above.
    unsafe { std::env::set_var("SIL_CUDA_SM", "87") };
    // SAFETY: plain C call.
    ck(unsafe { cuInit(0) });
    let m = load("aeb", 90);
    assert_eq!(function(m, "aeb_preprocess").0, CUDA_SUCCESS);
    let sm87 = orin_exec_kernels::cubin("aeb", 87).expect("cubin").image;
    assert_eq!(load_image(sm87).0, CUDA_ERROR_NO_BINARY_FOR_GPU);
    // An sm_90 cubin of someone else's: `tiny(unsigned int* p)` has no model until one is
    // registered for its hash.
    let tiny = include_bytes!("../../../kernels/cubin-check/tests/data/tiny.sm_90.cubin");
    let (r, t) = load_image(tiny);
    ck(r);
    assert_eq!(function(t, "tiny").0, CUDA_ERROR_NOT_FOUND);
    assert_eq!(model_status(t, "tiny"), CU_SIL_KERNEL_MODEL_NOT_REGISTERED);
    let hash: [u8; 32] = sha2::Sha256::digest(tiny).into();
    sil_cuda::register_kernel_model("tiny", "tiny", &[hash], &Tiny).expect("registered");
    let (r, f) = function(t, "tiny");
    ck(r);
    let out = Pinned::<u32>::new(1);
    let s = stream();
    let mut p0 = out.dptr();
    ck(launch(f, s, &mut [p(&mut p0)]));
    ck(sync(s));
    assert_eq!(out.slice(), [42]);
}

/// The model of `tiny`: `*p = 42`.
struct Tiny;

impl KernelModel for Tiny {
    fn params(&self) -> &[ParamKind] {
        &[ParamKind::DevPtr]
    }

    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        l.buffers(write::<u32>(0, 1))?[0] = 42;
        Ok(())
    }
}
