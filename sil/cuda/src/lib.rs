//! SIL twin of the CUDA driver API subset that orin-exec uses.
//!
//! Every function declared in `cuda-sys` (and its `sil` module) is defined here with
//! `#[unsafe(no_mangle)] extern "C"`, under the exported symbol name (`cuStreamWaitValue64_v2`,
//! `cuMemHostGetDevicePointer_v2`, ...), so the runtime's FFI code links against this rlib on
//! the `sil` platform exactly as it links against `libcuda.so.1` on the `rig` and `orin`
//! platforms. Behaviour and every choice where NVIDIA's documentation is silent are described
//! in `sil/README.md` ("SIL CUDA"); the short version:
//!
//! * One device (`sm_87` by default, `SIL_CUDA_SM` read once by `cuInit`), one primary context,
//!   a per-thread current context.
//! * `cuModuleLoadData` accepts exactly what the runtime accepts: an ELF cubin for the device's
//!   SM, checked with [`cubin_check::check_cubin`]. There is no JIT: PTX is always refused with
//!   `CUDA_ERROR_JIT_COMPILATION_DISABLED`.
//! * SIL CUDA knows no kernel of its own: a kernel runs the model registered for it (a Rust
//!   [`orin_exec_kernel_model::KernelModel`] with [`register_kernel_model`], or a C callback
//!   with `cuSilRegisterKernelModel`), bound to the SHA-256 of the cubins it may run for, on a
//!   per-stream worker thread; `cuModuleGetFunction` hands out only kernels with such a model
//!   whose parameter kinds match the cubin (`cuSilGetKernelModelStatus` says why not).
//!   `CUdeviceptr` is a host address, and every buffer a model touches must lie in memory the
//!   SIL knows (pinned, host-registered, or a mapping of imported NvSciBuf memory), else the
//!   stream gets a sticky `CUDA_ERROR_ILLEGAL_ADDRESS`.
//! * Stream memory operations and NvSciSync external semaphores go through the NvSciSync C ABI
//!   (`nvsci-sys`), never through another SIL library's Rust API.
//! * Timing: a per-kernel model (`cuSilSetKernelTimingModel`, default fixed 20 µs); real time
//!   sleeps, virtual time computes start/end analytically on a per-stream clock.
//! * No heap allocation after creation in the steady-state paths (launch, wait/write value,
//!   external semaphore signal/wait, event record/query, stream query/synchronize and the
//!   worker loop).
//!
//! The default stream (`NULL`, `CU_STREAM_LEGACY`, `CU_STREAM_PER_THREAD`) is rejected with
//! `CUDA_ERROR_INVALID_HANDLE` by every call that takes a stream: orin-exec never uses it.

#![allow(non_snake_case, non_upper_case_globals)]

mod driver;
mod error;
mod event;
mod external;
mod kernel;
mod memory;
mod models;
mod module;
mod registry;
mod stream;

use cuda_sys::CUresult;

pub use models::{RegisterError, kernel_model_params, register_kernel_model};

/// Result type of the internal helpers; `Err` holds the code the C call returns.
type CuResult<T> = Result<T, CUresult>;

/// Turns an internal result into the C return value.
#[inline]
fn ret(r: CuResult<()>) -> CUresult {
    match r {
        Ok(()) => cuda_sys::CUDA_SUCCESS,
        Err(e) => e,
    }
}

/// Compile-time proof that every definition has exactly the signature `cuda-sys` declares
/// (two function items only unify to one function-pointer type when their signatures are
/// identical).
#[allow(dead_code)]
fn signatures_match_cuda_sys() {
    sil_common::same_signatures!(
        cuda_sys;
        driver::cuInit,
        driver::cuDriverGetVersion,
        driver::cuDeviceGet,
        driver::cuDeviceGetCount,
        driver::cuDeviceGetName,
        driver::cuDeviceGetAttribute,
        driver::cuDeviceGetUuid,
        driver::cuDevicePrimaryCtxRetain,
        driver::cuDevicePrimaryCtxRelease_v2,
        driver::cuCtxSetCurrent,
        driver::cuCtxGetCurrent,
        driver::cuCtxSynchronize,
        module::cuModuleLoadData,
        module::cuModuleUnload,
        module::cuModuleGetFunction,
        stream::cuLaunchKernel,
        stream::cuStreamCreate,
        stream::cuStreamDestroy_v2,
        stream::cuStreamSynchronize,
        stream::cuStreamQuery,
        stream::cuStreamWaitValue32_v2,
        stream::cuStreamWriteValue32_v2,
        stream::cuStreamWaitValue64_v2,
        stream::cuStreamWriteValue64_v2,
        memory::cuMemHostAlloc,
        memory::cuMemFreeHost,
        memory::cuMemHostGetDevicePointer_v2,
        memory::cuMemHostRegister_v2,
        memory::cuMemHostUnregister,
        memory::cuMemFree_v2,
        event::cuEventCreate,
        event::cuEventRecord,
        event::cuEventQuery,
        event::cuEventSynchronize,
        event::cuEventElapsedTime,
        event::cuEventDestroy_v2,
        external::cuImportExternalMemory,
        external::cuExternalMemoryGetMappedBuffer,
        external::cuDestroyExternalMemory,
        external::cuImportExternalSemaphore,
        external::cuSignalExternalSemaphoresAsync,
        external::cuWaitExternalSemaphoresAsync,
        external::cuDestroyExternalSemaphore,
        external::cuDeviceGetNvSciSyncAttributes,
        error::cuGetErrorName,
        error::cuGetErrorString,
    );
    let _ = [
        cuda_sys::sil::cuSilSetKernelTimingModel,
        module::cuSilSetKernelTimingModel,
    ];
    let _ = [
        cuda_sys::sil::cuSilRegisterKernelModel,
        models::cuSilRegisterKernelModel,
    ];
    let _ = [
        cuda_sys::sil::cuSilGetKernelModelStatus,
        module::cuSilGetKernelModelStatus,
    ];
    let _ = [cuda_sys::sil::cuSilLaunchBuffer, kernel::cuSilLaunchBuffer];
    let _ = [
        cuda_sys::sil::cuSilLaunchGetParam,
        kernel::cuSilLaunchGetParam,
    ];
    let _ = [
        cuda_sys::sil::cuSilLaunchGetDims,
        kernel::cuSilLaunchGetDims,
    ];
    let _ = [
        cuda_sys::sil::cuSilLaunchGetTime,
        kernel::cuSilLaunchGetTime,
    ];
    let _ = [
        cuda_sys::sil::cuSilGetThreadStats,
        stream::cuSilGetThreadStats,
    ];
}

/// Public constants a test or tool may want to read.
pub mod consts {
    /// Capacity of every stream's operation queue (operations enqueued but not finished).
    /// An enqueue into a full queue returns `CUDA_ERROR_OUT_OF_MEMORY` and enqueues nothing.
    pub const STREAM_QUEUE_CAPACITY: usize = crate::stream::QUEUE_CAPACITY;
    /// Default execution time of a kernel (fixed), in ns.
    pub const DEFAULT_KERNEL_TIME_NS: u64 = crate::module::DEFAULT_KERNEL_TIME_NS;
    /// The version `cuDriverGetVersion` reports.
    pub const DRIVER_VERSION: i32 = crate::driver::DRIVER_VERSION;
    /// The device name `cuDeviceGetName` reports.
    pub const DEVICE_NAME: &str = crate::driver::DEVICE_NAME;
    /// The UUID `cuDeviceGetUuid` reports (also the `GpuId` put into NvSciSync lists).
    pub const DEVICE_UUID: [u8; 16] = crate::driver::DEVICE_UUID;
    /// The SM used when `SIL_CUDA_SM` is not set.
    pub const DEFAULT_SM: u32 = crate::driver::DEFAULT_SM;
    /// `CUDA_ERROR_MISALIGNED_ADDRESS` (716): a kernel's buffer is not aligned for its element
    /// type (not declared in `cuda-sys`).
    pub const CUDA_ERROR_MISALIGNED_ADDRESS: cuda_sys::CUresult = crate::error::MISALIGNED_ADDRESS;
}

// Unit tests link the SIL NvSci libraries that the C ABI calls resolve to.
#[cfg(test)]
use nvscibuf as _;
#[cfg(test)]
use nvscisync as _;
