//! `cuGetErrorName` / `cuGetErrorString`: static NUL-terminated strings per code.

use core::ffi::{CStr, c_char};

use cuda_sys::*;

/// `CUDA_ERROR_MISALIGNED_ADDRESS` (716), which `cuda-sys` does not declare.
pub(crate) const MISALIGNED_ADDRESS: CUresult = CUresult(716);

/// (code, name, description) for every code `cuda-sys` declares, plus 716.
static TABLE: &[(CUresult, &CStr, &CStr)] = &[
    (CUDA_SUCCESS, c"CUDA_SUCCESS", c"no error"),
    (
        CUDA_ERROR_INVALID_VALUE,
        c"CUDA_ERROR_INVALID_VALUE",
        c"invalid argument",
    ),
    (
        CUDA_ERROR_OUT_OF_MEMORY,
        c"CUDA_ERROR_OUT_OF_MEMORY",
        c"out of memory",
    ),
    (
        CUDA_ERROR_NOT_INITIALIZED,
        c"CUDA_ERROR_NOT_INITIALIZED",
        c"initialization error",
    ),
    (
        CUDA_ERROR_DEINITIALIZED,
        c"CUDA_ERROR_DEINITIALIZED",
        c"driver shutting down",
    ),
    (
        CUDA_ERROR_STUB_LIBRARY,
        c"CUDA_ERROR_STUB_LIBRARY",
        c"CUDA driver is a stub library",
    ),
    (
        CUDA_ERROR_NO_DEVICE,
        c"CUDA_ERROR_NO_DEVICE",
        c"no CUDA-capable device is detected",
    ),
    (
        CUDA_ERROR_INVALID_DEVICE,
        c"CUDA_ERROR_INVALID_DEVICE",
        c"invalid device ordinal",
    ),
    (
        CUDA_ERROR_INVALID_IMAGE,
        c"CUDA_ERROR_INVALID_IMAGE",
        c"device kernel image is invalid",
    ),
    (
        CUDA_ERROR_INVALID_CONTEXT,
        c"CUDA_ERROR_INVALID_CONTEXT",
        c"invalid device context",
    ),
    (
        CUDA_ERROR_NO_BINARY_FOR_GPU,
        c"CUDA_ERROR_NO_BINARY_FOR_GPU",
        c"no kernel image is available for execution on the device",
    ),
    (
        CUDA_ERROR_INVALID_PTX,
        c"CUDA_ERROR_INVALID_PTX",
        c"a PTX JIT compilation failed",
    ),
    (
        CUDA_ERROR_JIT_COMPILER_NOT_FOUND,
        c"CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        c"PTX JIT compiler library not found",
    ),
    (
        CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
        c"CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        c"the provided PTX was compiled with an unsupported toolchain",
    ),
    (
        CUDA_ERROR_JIT_COMPILATION_DISABLED,
        c"CUDA_ERROR_JIT_COMPILATION_DISABLED",
        c"PTX JIT compilation was disabled",
    ),
    (
        CUDA_ERROR_INVALID_HANDLE,
        c"CUDA_ERROR_INVALID_HANDLE",
        c"invalid resource handle",
    ),
    (
        CUDA_ERROR_ILLEGAL_STATE,
        c"CUDA_ERROR_ILLEGAL_STATE",
        c"the resource is not in a valid state to perform the requested operation",
    ),
    (
        CUDA_ERROR_NOT_FOUND,
        c"CUDA_ERROR_NOT_FOUND",
        c"named symbol not found",
    ),
    (
        CUDA_ERROR_NOT_READY,
        c"CUDA_ERROR_NOT_READY",
        c"device not ready",
    ),
    (
        CUDA_ERROR_ILLEGAL_ADDRESS,
        c"CUDA_ERROR_ILLEGAL_ADDRESS",
        c"an illegal memory access was encountered",
    ),
    (
        CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        c"CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        c"too many resources requested for launch",
    ),
    (
        CUDA_ERROR_LAUNCH_TIMEOUT,
        c"CUDA_ERROR_LAUNCH_TIMEOUT",
        c"the launch timed out and was terminated",
    ),
    (
        CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
        c"CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
        c"part or all of the requested memory range is already mapped",
    ),
    (
        CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
        c"CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
        c"pointer does not correspond to a registered memory region",
    ),
    (
        MISALIGNED_ADDRESS,
        c"CUDA_ERROR_MISALIGNED_ADDRESS",
        c"misaligned address",
    ),
    (
        CUDA_ERROR_LAUNCH_FAILED,
        c"CUDA_ERROR_LAUNCH_FAILED",
        c"unspecified launch failure",
    ),
    (
        CUDA_ERROR_NOT_PERMITTED,
        c"CUDA_ERROR_NOT_PERMITTED",
        c"operation not permitted",
    ),
    (
        CUDA_ERROR_NOT_SUPPORTED,
        c"CUDA_ERROR_NOT_SUPPORTED",
        c"operation not supported",
    ),
    (
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
        c"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
        c"operation not permitted when stream is capturing",
    ),
    (
        CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
        c"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
        c"operation failed due to a previous error during capture",
    ),
    (
        CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
        c"CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
        c"capture was not ended in the same stream as it began",
    ),
    (
        CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
        c"CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
        c"attempt to terminate a thread-local capture sequence from another thread",
    ),
    (
        CUDA_ERROR_TIMEOUT,
        c"CUDA_ERROR_TIMEOUT",
        c"timeout occurred",
    ),
    (
        CUDA_ERROR_EXTERNAL_DEVICE,
        c"CUDA_ERROR_EXTERNAL_DEVICE",
        c"an error occurred on an external device",
    ),
    (CUDA_ERROR_UNKNOWN, c"CUDA_ERROR_UNKNOWN", c"unknown error"),
];

fn lookup(code: CUresult) -> Option<&'static (CUresult, &'static CStr, &'static CStr)> {
    TABLE.iter().find(|e| e.0 == code)
}

fn get(error: CUresult, p_str: *mut *const c_char, name: bool) -> CUresult {
    if p_str.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let (s, r) = match lookup(error) {
        Some(&(_, n, d)) => ((if name { n } else { d }).as_ptr(), CUDA_SUCCESS),
        None => (core::ptr::null(), CUDA_ERROR_INVALID_VALUE),
    };
    // SAFETY: `p_str` is non-null and, per the API contract, points to a writable pointer.
    unsafe { p_str.write(s) };
    r
}

/// The static NUL-terminated name of `error` (e.g. `"CUDA_ERROR_NOT_READY"`). Works before
/// `cuInit`. An unknown code sets `*pStr = NULL` and returns `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `pStr` must be NULL or point to a writable `const char*`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorName(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    get(error, pStr, true)
}

/// The static NUL-terminated description of `error`. Works before `cuInit`. An unknown code
/// sets `*pStr = NULL` and returns `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `pStr` must be NULL or point to a writable `const char*`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGetErrorString(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    get(error, pStr, false)
}

/// Covers: REQ-GPU-005
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_code_has_strings() {
        for &code in CUresult::KNOWN {
            let e = lookup(code).unwrap_or_else(|| panic!("{code:?} missing"));
            assert_eq!(e.1.to_str().ok(), code.name());
        }
        assert_eq!(TABLE.len(), CUresult::KNOWN.len() + 1);
    }
}
