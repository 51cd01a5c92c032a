//! Calls before `cuInit` (its own process: nothing else may initialise the driver first),
//! and the primary-context retain count.
//!
//! Covers: REQ-GPU-005

mod common;

use common::*;

#[test]
fn not_initialized_then_initialized() {
    // SAFETY: plain C calls with valid out pointers.
    unsafe {
        let mut v = 0;
        ck(cuDriverGetVersion(&mut v)); // works before cuInit
        assert_eq!(v, 13000);
        let mut n = 0;
        assert_eq!(cuDeviceGetCount(&mut n), CUDA_ERROR_NOT_INITIALIZED);
        let mut d = 0;
        assert_eq!(cuDeviceGet(&mut d, 0), CUDA_ERROR_NOT_INITIALIZED);
        let mut c = core::ptr::null_mut();
        assert_eq!(
            cuDevicePrimaryCtxRetain(&mut c, 0),
            CUDA_ERROR_NOT_INITIALIZED
        );
        assert_eq!(
            cuCtxSetCurrent(core::ptr::null_mut()),
            CUDA_ERROR_NOT_INITIALIZED
        );
        let mut s = core::ptr::null_mut();
        assert_eq!(cuStreamCreate(&mut s, 0), CUDA_ERROR_NOT_INITIALIZED);
        assert_eq!(
            cuStreamSynchronize(0x1000 as CUstream),
            CUDA_ERROR_NOT_INITIALIZED
        );
        let mut p = core::ptr::null_mut();
        assert_eq!(cuMemHostAlloc(&mut p, 64, 0), CUDA_ERROR_NOT_INITIALIZED);
        assert_eq!(cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
        let mut name = core::ptr::null();
        ck(cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &mut name)); // works before cuInit

        assert_eq!(cuInit(1), CUDA_ERROR_INVALID_VALUE);
        ck(cuInit(0));
        ck(cuInit(0));
        ck(cuDeviceGetCount(&mut n));
        assert_eq!(n, 1);

        // Retain/release count; at zero the context is inactive.
        assert_eq!(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
        ck(cuDevicePrimaryCtxRetain(&mut c, 0));
        ck(cuCtxSetCurrent(c));
        ck(cuStreamCreate(&mut s, 0));
        ck(cuDevicePrimaryCtxRelease_v2(0));
        let mut s2 = core::ptr::null_mut();
        assert_eq!(cuStreamCreate(&mut s2, 0), CUDA_ERROR_INVALID_CONTEXT);
        ck(cuStreamSynchronize(s)); // handle-based calls still work
        ck(cuStreamDestroy_v2(s));
        let mut c2 = core::ptr::null_mut();
        ck(cuDevicePrimaryCtxRetain(&mut c2, 0));
        assert_eq!(c, c2, "one primary context");
        ck(cuStreamCreate(&mut s2, 0));

        // cuCtxSynchronize waits for every stream and reports the first sticky error.
        let mut flag = core::ptr::null_mut();
        ck(cuMemHostAlloc(&mut flag, 64, 0));
        let f = flag as CUdeviceptr;
        let mut s3 = core::ptr::null_mut();
        ck(cuStreamCreate(&mut s3, 0));
        ck(cuStreamWaitValue64_v2(s2, f, 1, 0));
        ck(cuStreamWriteValue32_v2(s2, f + 8, 7, 0));
        ck(cuStreamWaitValue64_v2(s3, f, 1, 0));
        ck(cuStreamWriteValue32_v2(s3, f + 12, 9, 0));
        let addr = flag as usize;
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            store_u64(addr as *mut u64, 1);
        });
        ck(cuCtxSynchronize());
        t.join().expect("thread");
        let words = core::slice::from_raw_parts(flag.cast::<u32>(), 4);
        assert_eq!(&words[2..], &[7, 9]);
        ck(cuStreamWriteValue32_v2(s3, 0x10, 1, 0)); // not device-accessible
        assert_eq!(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        assert_eq!(cuStreamSynchronize(s3), CUDA_ERROR_ILLEGAL_ADDRESS);
        ck(cuStreamSynchronize(s2));
        ck(cuStreamDestroy_v2(s3));
        ck(cuCtxSynchronize());
        ck(cuStreamDestroy_v2(s2));
        ck(cuMemFreeHost(flag));
    }
}
