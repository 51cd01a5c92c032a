//! An unparsable `SIL_CUDA_SM` makes `cuInit` fail (its own process).
//!
//! Covers: REQ-GPU-007

mod common;

use common::*;

#[test]
fn unparsable_sm_fails_init() {
    // SAFETY: the only thread of this test process that touches the environment.
    unsafe { std::env::set_var("SIL_CUDA_SM", "orin") };
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!(cuInit(0), CUDA_ERROR_INVALID_VALUE);
        let mut n = 0;
        assert_eq!(cuDeviceGetCount(&mut n), CUDA_ERROR_NOT_INITIALIZED);
        std::env::set_var("SIL_CUDA_SM", "87");
        ck(cuInit(0));
    }
}
