//! Hand-written FFI declarations for the CUDA driver API subset orin-exec uses
//! (`cuda.h`, `libcuda.so.1`), api-facts §6.
//!
//! Target: the CUDA 12.x driver API (`cuda.h` 12.6 as the reference). Where `cuda.h`
//! maps a C name to a versioned symbol with a macro (`#define cuMemFree cuMemFree_v2`),
//! this crate declares the **exported symbol** (`cuMemFree_v2`) and says so in the doc.
//! Per-thread-default-stream (`_ptsz`/`_ptds`) variants are not declared: the runtime
//! never uses the default stream.
//!
//! Deliberately absent (forbidden by design): managed memory (`cuMemAllocManaged`), JIT
//! linking (`cuLinkCreate`, `cuModuleLoadDataEx`), NVRTC, and any `dlopen`.
//! [`CUjit_option`] is declared for documentation and the symbol audit only.
//!
//! Layouts are asserted at compile time for 64-bit (LP64) targets only.
//!
//! With feature `sil-ext`, module `sil` declares the SIL-only extension calls.
#![no_std]
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use core::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};
use core::fmt;

#[cfg(feature = "sil-ext")]
pub mod sil;

// ---------------------------------------------------------------------------------------
// Basic types
// ---------------------------------------------------------------------------------------

// sdk-check: version
/// The CUDA version these declarations target (`CUDA_VERSION` of the reference header).
pub const CUDA_VERSION: c_int = 12060;

/// Device ordinal handle (`int`).
pub type CUdevice = c_int;
/// Device address (`unsigned long long` on 64-bit targets).
pub type CUdeviceptr = c_ulonglong;
/// `uint32_t` as `cuda.h` spells it.
pub type cuuint32_t = u32;
/// `uint64_t` as `cuda.h` spells it.
pub type cuuint64_t = u64;

/// Opaque context (only used behind [`CUcontext`]).
#[repr(C)]
pub struct CUctx_st {
    _opaque: [u8; 0],
}
/// Opaque module (only used behind [`CUmodule`]).
#[repr(C)]
pub struct CUmod_st {
    _opaque: [u8; 0],
}
/// Opaque function (only used behind [`CUfunction`]).
#[repr(C)]
pub struct CUfunc_st {
    _opaque: [u8; 0],
}
/// Opaque stream (only used behind [`CUstream`]).
#[repr(C)]
pub struct CUstream_st {
    _opaque: [u8; 0],
}
/// Opaque event (only used behind [`CUevent`]).
#[repr(C)]
pub struct CUevent_st {
    _opaque: [u8; 0],
}
/// Opaque external memory (only used behind [`CUexternalMemory`]).
#[repr(C)]
pub struct CUextMemory_st {
    _opaque: [u8; 0],
}
/// Opaque external semaphore (only used behind [`CUexternalSemaphore`]).
#[repr(C)]
pub struct CUextSemaphore_st {
    _opaque: [u8; 0],
}
/// Opaque graph (only used behind [`CUgraph`]).
#[repr(C)]
pub struct CUgraph_st {
    _opaque: [u8; 0],
}
/// Opaque executable graph (only used behind [`CUgraphExec`]).
#[repr(C)]
pub struct CUgraphExec_st {
    _opaque: [u8; 0],
}

/// Context handle.
pub type CUcontext = *mut CUctx_st;
/// Module handle.
pub type CUmodule = *mut CUmod_st;
/// Kernel function handle.
pub type CUfunction = *mut CUfunc_st;
/// Stream handle (never NULL in this runtime: the default stream is not used).
pub type CUstream = *mut CUstream_st;
/// Event handle.
pub type CUevent = *mut CUevent_st;
/// Imported external memory handle.
pub type CUexternalMemory = *mut CUextMemory_st;
/// Imported external semaphore handle.
pub type CUexternalSemaphore = *mut CUextSemaphore_st;
/// Graph handle (the benchmark's CUDA-graph baseline; the runtime does not use graphs).
pub type CUgraph = *mut CUgraph_st;
/// Executable (instantiated) graph handle.
pub type CUgraphExec = *mut CUgraphExec_st;

/// Device UUID (16 bytes); what goes into `NvSciRmGpuId`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CUuuid {
    /// UUID bytes.
    pub bytes: [c_char; 16],
}

// ---------------------------------------------------------------------------------------
// CUresult
// ---------------------------------------------------------------------------------------

// sdk-check: subset
/// Status code of every driver call (C enum `cudaError_enum`).
///
/// A newtype, not a Rust enum; only the codes this runtime handles are declared
/// (subset), the rest keep their raw value.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CUresult(pub u32);

// sdk-check: codes CUresult
macro_rules! cu_result_codes {
    ($($(#[$m:meta])* $name:ident = $val:expr;)*) => {
        $(
            $(#[$m])*
            #[doc = concat!("\n\n`", stringify!($name), "` = `", stringify!($val), "`.")]
            pub const $name: CUresult = CUresult($val);
        )*

        impl CUresult {
            /// Every code this crate declares, in declaration order.
            pub const KNOWN: &'static [CUresult] = &[$($name),*];

            /// The vendor name of this code (e.g. `"CUDA_ERROR_NOT_READY"`), or `None` for
            /// a code this crate does not declare (use [`cuGetErrorName`] for those).
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $(v if v == $val => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        }
    };
}

cu_result_codes! {
    /// The call succeeded (or the queried work is complete).
    CUDA_SUCCESS = 0;
    /// A parameter is invalid.
    CUDA_ERROR_INVALID_VALUE = 1;
    /// Out of memory.
    CUDA_ERROR_OUT_OF_MEMORY = 2;
    /// `cuInit` has not been called (or failed).
    CUDA_ERROR_NOT_INITIALIZED = 3;
    /// The driver is shutting down.
    CUDA_ERROR_DEINITIALIZED = 4;
    /// The loaded libcuda is the toolkit's link stub, not a driver.
    CUDA_ERROR_STUB_LIBRARY = 34;
    /// No CUDA device.
    CUDA_ERROR_NO_DEVICE = 100;
    /// Invalid device ordinal.
    CUDA_ERROR_INVALID_DEVICE = 101;
    /// The module image is invalid.
    CUDA_ERROR_INVALID_IMAGE = 200;
    /// No or invalid current context.
    CUDA_ERROR_INVALID_CONTEXT = 201;
    /// The image has no code for this GPU (and no usable PTX).
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
    /// PTX failed to compile.
    CUDA_ERROR_INVALID_PTX = 218;
    /// The PTX JIT compiler is missing.
    CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221;
    /// The PTX version is not supported by the JIT.
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
    /// PTX JIT is disabled (`CUDA_DISABLE_PTX_JIT=1`).
    CUDA_ERROR_JIT_COMPILATION_DISABLED = 223;
    /// Invalid handle.
    CUDA_ERROR_INVALID_HANDLE = 400;
    /// Named symbol not found (also: SIL CUDA kernel without a model).
    CUDA_ERROR_NOT_FOUND = 500;
    /// Queried work has not completed yet (not an error).
    CUDA_ERROR_NOT_READY = 600;
    /// Illegal memory access in a kernel (context is unusable).
    CUDA_ERROR_ILLEGAL_ADDRESS = 700;
    /// The launch needs more resources than available.
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
    /// A kernel ran past the watchdog timeout.
    CUDA_ERROR_LAUNCH_TIMEOUT = 702;
    /// The host range is already registered.
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712;
    /// The host pointer is not registered.
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713;
    /// A kernel failed (context is unusable).
    CUDA_ERROR_LAUNCH_FAILED = 719;
    /// The operation is not permitted.
    CUDA_ERROR_NOT_PERMITTED = 800;
    /// The operation is not supported on this device/platform.
    CUDA_ERROR_NOT_SUPPORTED = 801;
    /// A wait timed out.
    CUDA_ERROR_TIMEOUT = 909;
    /// An external device (e.g. the DLA in hybrid mode) reported an error.
    CUDA_ERROR_EXTERNAL_DEVICE = 911;
    /// Unknown error.
    CUDA_ERROR_UNKNOWN = 999;
}

impl CUresult {
    /// `true` for [`CUDA_SUCCESS`].
    #[inline]
    pub const fn is_success(self) -> bool {
        self.0 == CUDA_SUCCESS.0
    }

    /// `Ok(())` for success, `Err(self)` otherwise.
    #[inline]
    pub const fn ok(self) -> Result<(), CUresult> {
        if self.is_success() { Ok(()) } else { Err(self) }
    }
}

impl fmt::Debug for CUresult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({})", self.0),
            None => write!(f, "CUresult({})", self.0),
        }
    }
}

impl fmt::Display for CUresult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "CUresult {}", self.0),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Device attributes
// ---------------------------------------------------------------------------------------

// sdk-check: subset
/// Device attribute selector for [`cuDeviceGetAttribute`] (C enum; subset).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUdevice_attribute(pub u32);
/// Number of SMs.
pub const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: CUdevice_attribute = CUdevice_attribute(16);
/// 1 for an integrated GPU (Orin), 0 for a discrete one.
pub const CU_DEVICE_ATTRIBUTE_INTEGRATED: CUdevice_attribute = CUdevice_attribute(18);
/// The device can map host memory.
pub const CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: CUdevice_attribute = CUdevice_attribute(19);
/// Unified virtual addressing.
pub const CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: CUdevice_attribute = CUdevice_attribute(41);
/// Compute capability major.
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: CUdevice_attribute = CUdevice_attribute(75);
/// Compute capability minor.
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: CUdevice_attribute = CUdevice_attribute(76);
/// Pageable memory is GPU-accessible.
pub const CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: CUdevice_attribute = CUdevice_attribute(88);
/// Registered host memory can be used at the same address on the GPU.
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: CUdevice_attribute =
    CUdevice_attribute(91);
/// v1 stream memops (CUDA 12 name; deprecated, the v2 calls are always available).
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1: CUdevice_attribute =
    CUdevice_attribute(92);
/// v1 64-bit stream memops (CUDA 12 name; deprecated). Use 122.
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1: CUdevice_attribute =
    CUdevice_attribute(93);
/// v1 NOR wait (CUDA 12 name; deprecated). Use 123.
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1: CUdevice_attribute =
    CUdevice_attribute(94);
/// `CU_STREAM_WAIT_VALUE_FLUSH` and flush-remote-writes are supported.
pub const CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: CUdevice_attribute = CUdevice_attribute(98);
/// 64-bit (v2) stream memops are supported (CUDA 12 meaning; in 11.7–11.8 this is the
/// `_V2` name).
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS: CUdevice_attribute =
    CUdevice_attribute(122);
/// `CU_STREAM_WAIT_VALUE_NOR` (v2) is supported (CUDA 12 meaning).
pub const CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR: CUdevice_attribute =
    CUdevice_attribute(123);

// ---------------------------------------------------------------------------------------
// Streams, events, stream memory operations
// ---------------------------------------------------------------------------------------

/// `Flags` of [`cuStreamCreate`] (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUstream_flags(pub u32);
/// Default stream flags (synchronises with the legacy default stream).
pub const CU_STREAM_DEFAULT: CUstream_flags = CUstream_flags(0);
/// No implicit synchronisation with the legacy default stream.
pub const CU_STREAM_NON_BLOCKING: CUstream_flags = CUstream_flags(1);

/// `Flags` of [`cuEventCreate`] (C enum; may be OR-ed).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUevent_flags(pub u32);
/// Default event.
pub const CU_EVENT_DEFAULT: CUevent_flags = CUevent_flags(0);
/// `cuEventSynchronize` blocks instead of spinning.
pub const CU_EVENT_BLOCKING_SYNC: CUevent_flags = CUevent_flags(1);
/// No timing data (cheaper).
pub const CU_EVENT_DISABLE_TIMING: CUevent_flags = CUevent_flags(2);
/// Interprocess event (needs `CU_EVENT_DISABLE_TIMING`).
pub const CU_EVENT_INTERPROCESS: CUevent_flags = CUevent_flags(4);

/// `mode` of [`cuStreamBeginCapture_v2`] (C enum): which other threads' unsafe calls a
/// capture forbids.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUstreamCaptureMode(pub u32);
/// Unsafe calls are forbidden in every thread while any global-mode capture is active.
pub const CU_STREAM_CAPTURE_MODE_GLOBAL: CUstreamCaptureMode = CUstreamCaptureMode(0);
/// Unsafe calls are forbidden in the capturing thread only.
pub const CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: CUstreamCaptureMode = CUstreamCaptureMode(1);
/// No call is forbidden (the caller keeps the capture consistent).
pub const CU_STREAM_CAPTURE_MODE_RELAXED: CUstreamCaptureMode = CUstreamCaptureMode(2);

/// `flags` of the wait-value calls (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUstreamWaitValue_flags(pub u32);
/// Wait until `(int)(*addr - value) >= 0` (cyclic compare; default).
pub const CU_STREAM_WAIT_VALUE_GEQ: CUstreamWaitValue_flags = CUstreamWaitValue_flags(0x0);
/// Wait until `*addr == value`.
pub const CU_STREAM_WAIT_VALUE_EQ: CUstreamWaitValue_flags = CUstreamWaitValue_flags(0x1);
/// Wait until `(*addr & value) != 0`.
pub const CU_STREAM_WAIT_VALUE_AND: CUstreamWaitValue_flags = CUstreamWaitValue_flags(0x2);
/// Wait until `~(*addr | value) != 0` (query support first).
pub const CU_STREAM_WAIT_VALUE_NOR: CUstreamWaitValue_flags = CUstreamWaitValue_flags(0x3);
/// Also flush remote writes (needs `CAN_FLUSH_REMOTE_WRITES`).
pub const CU_STREAM_WAIT_VALUE_FLUSH: CUstreamWaitValue_flags = CUstreamWaitValue_flags(1 << 30);

/// `flags` of the write-value calls (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUstreamWriteValue_flags(pub u32);
/// A memory fence precedes the write.
pub const CU_STREAM_WRITE_VALUE_DEFAULT: CUstreamWriteValue_flags = CUstreamWriteValue_flags(0x0);
/// No memory fence before the write.
pub const CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER: CUstreamWriteValue_flags =
    CUstreamWriteValue_flags(0x1);

/// Operation of one [`CUstreamBatchMemOpParams`] entry (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUstreamBatchMemOpType(pub u32);
/// 32-bit wait.
pub const CU_STREAM_MEM_OP_WAIT_VALUE_32: CUstreamBatchMemOpType = CUstreamBatchMemOpType(1);
/// 32-bit write.
pub const CU_STREAM_MEM_OP_WRITE_VALUE_32: CUstreamBatchMemOpType = CUstreamBatchMemOpType(2);
/// Flush remote writes.
pub const CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES: CUstreamBatchMemOpType = CUstreamBatchMemOpType(3);
/// 64-bit wait.
pub const CU_STREAM_MEM_OP_WAIT_VALUE_64: CUstreamBatchMemOpType = CUstreamBatchMemOpType(4);
/// 64-bit write.
pub const CU_STREAM_MEM_OP_WRITE_VALUE_64: CUstreamBatchMemOpType = CUstreamBatchMemOpType(5);
/// Memory barrier (v2 batch only).
pub const CU_STREAM_MEM_OP_BARRIER: CUstreamBatchMemOpType = CUstreamBatchMemOpType(6);

/// Scope of a batch memory barrier (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUstreamMemoryBarrier_flags(pub u32);
/// System-wide barrier.
pub const CU_STREAM_MEMORY_BARRIER_TYPE_SYS: CUstreamMemoryBarrier_flags =
    CUstreamMemoryBarrier_flags(0);
/// GPU-wide barrier.
pub const CU_STREAM_MEMORY_BARRIER_TYPE_GPU: CUstreamMemoryBarrier_flags =
    CUstreamMemoryBarrier_flags(1);

/// The anonymous `{ value; value64; }` union inside the wait/write batch entries
/// (no C name).
// sdk-check: skip
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUstreamMemOpValue {
    /// 32-bit operations.
    pub value: cuuint32_t,
    /// 64-bit operations.
    pub value64: cuuint64_t,
}

/// Batch entry for a wait-value operation.
// sdk-check: c-path CUstreamBatchMemOpParams.waitValue
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUstreamMemOpWaitValueParams_st {
    /// [`CU_STREAM_MEM_OP_WAIT_VALUE_32`] or [`CU_STREAM_MEM_OP_WAIT_VALUE_64`].
    pub operation: CUstreamBatchMemOpType,
    /// Device address to wait on.
    pub address: CUdeviceptr,
    // sdk-check: anon
    /// The compare value (anonymous union in C: `value` / `value64`).
    pub value: CUstreamMemOpValue,
    /// [`CUstreamWaitValue_flags`] value.
    pub flags: c_uint,
    /// Driver-internal.
    pub alias: CUdeviceptr,
}

/// Batch entry for a write-value operation.
// sdk-check: c-path CUstreamBatchMemOpParams.writeValue
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUstreamMemOpWriteValueParams_st {
    /// [`CU_STREAM_MEM_OP_WRITE_VALUE_32`] or [`CU_STREAM_MEM_OP_WRITE_VALUE_64`].
    pub operation: CUstreamBatchMemOpType,
    /// Device address to write.
    pub address: CUdeviceptr,
    // sdk-check: anon
    /// The value (anonymous union in C: `value` / `value64`).
    pub value: CUstreamMemOpValue,
    /// [`CUstreamWriteValue_flags`] value.
    pub flags: c_uint,
    /// Driver-internal.
    pub alias: CUdeviceptr,
}

/// Batch entry for flush-remote-writes.
// sdk-check: c-path CUstreamBatchMemOpParams.flushRemoteWrites
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUstreamMemOpFlushRemoteWritesParams_st {
    /// [`CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES`].
    pub operation: CUstreamBatchMemOpType,
    /// Must be 0.
    pub flags: c_uint,
}

/// Batch entry for a memory barrier.
// sdk-check: c-path CUstreamBatchMemOpParams.memoryBarrier
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUstreamMemOpMemoryBarrierParams_st {
    /// [`CU_STREAM_MEM_OP_BARRIER`].
    pub operation: CUstreamBatchMemOpType,
    /// [`CUstreamMemoryBarrier_flags`] value.
    pub flags: c_uint,
}

/// One stream memory operation of a batch (48-byte union).
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUstreamBatchMemOpParams {
    /// The operation of whichever member is in use.
    pub operation: CUstreamBatchMemOpType,
    /// Wait-value member.
    pub waitValue: CUstreamMemOpWaitValueParams_st,
    /// Write-value member.
    pub writeValue: CUstreamMemOpWriteValueParams_st,
    /// Flush member.
    pub flushRemoteWrites: CUstreamMemOpFlushRemoteWritesParams_st,
    /// Barrier member.
    pub memoryBarrier: CUstreamMemOpMemoryBarrierParams_st,
    /// Padding to 48 bytes.
    pub pad: [cuuint64_t; 6],
}

// ---------------------------------------------------------------------------------------
// Pinned host memory (macros in cuda.h)
// ---------------------------------------------------------------------------------------

/// [`cuMemHostAlloc`]: pinned for every context.
pub const CU_MEMHOSTALLOC_PORTABLE: c_uint = 0x01;
/// [`cuMemHostAlloc`]: mapped into the device address space.
pub const CU_MEMHOSTALLOC_DEVICEMAP: c_uint = 0x02;
/// [`cuMemHostAlloc`]: write-combined (needs [`cuMemHostGetDevicePointer_v2`]).
pub const CU_MEMHOSTALLOC_WRITECOMBINED: c_uint = 0x04;
/// [`cuMemHostRegister_v2`]: pinned for every context.
pub const CU_MEMHOSTREGISTER_PORTABLE: c_uint = 0x01;
/// [`cuMemHostRegister_v2`]: mapped into the device address space.
pub const CU_MEMHOSTREGISTER_DEVICEMAP: c_uint = 0x02;
/// [`cuMemHostRegister_v2`]: the range is I/O memory.
pub const CU_MEMHOSTREGISTER_IOMEMORY: c_uint = 0x04;
/// [`cuMemHostRegister_v2`]: the device only reads.
pub const CU_MEMHOSTREGISTER_READ_ONLY: c_uint = 0x08;

// ---------------------------------------------------------------------------------------
// External memory and semaphores (NvSciBuf / NvSciSync interop), api-facts §6.1
// ---------------------------------------------------------------------------------------

/// `flags` of [`cuDeviceGetNvSciSyncAttributes`]: CUDA signals the object.
pub const CUDA_NVSCISYNC_ATTR_SIGNAL: c_int = 0x1;
/// `flags` of [`cuDeviceGetNvSciSyncAttributes`]: CUDA waits on the object.
pub const CUDA_NVSCISYNC_ATTR_WAIT: c_int = 0x2;
/// Signal params flag: skip the memory synchronisation of NvSciBuf-imported memory.
pub const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC: c_uint = 0x01;
/// Wait params flag: skip the memory synchronisation of NvSciBuf-imported memory.
pub const CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC: c_uint = 0x02;
/// Memory handle desc flag: dedicated allocation.
pub const CUDA_EXTERNAL_MEMORY_DEDICATED: c_uint = 0x1;

/// Kind of an external memory handle (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUexternalMemoryHandleType(pub u32);
/// POSIX file descriptor.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(1);
/// Win32 NT handle.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(2);
/// Win32 KMT handle.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(3);
/// D3D12 heap.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(4);
/// D3D12 committed resource.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(5);
/// D3D11 shared resource.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(6);
/// D3D11 KMT resource.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE_KMT: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(7);
/// An NvSciBuf object.
pub const CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF: CUexternalMemoryHandleType =
    CUexternalMemoryHandleType(8);

/// Kind of an external semaphore handle (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUexternalSemaphoreHandleType(pub u32);
/// POSIX file descriptor.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(1);
/// Win32 NT handle.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(2);
/// Win32 KMT handle.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_KMT: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(3);
/// D3D12 fence.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(4);
/// D3D11 fence.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_FENCE: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(5);
/// An NvSciSync object.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(6);
/// D3D11 keyed mutex.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(7);
/// D3D11 keyed mutex (KMT).
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D11_KEYED_MUTEX_KMT: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(8);
/// Timeline semaphore file descriptor.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD: CUexternalSemaphoreHandleType =
    CUexternalSemaphoreHandleType(9);
/// Timeline semaphore Win32 handle.
pub const CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_WIN32:
    CUexternalSemaphoreHandleType = CUexternalSemaphoreHandleType(10);

/// The `win32` member of [`CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle`].
// sdk-check: c-path CUDA_EXTERNAL_MEMORY_HANDLE_DESC.handle.win32
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_MEMORY_HANDLE_DESC_win32 {
    /// Win32 handle.
    pub handle: *mut c_void,
    /// Name of the object.
    pub name: *const c_void,
}

/// The `handle` union of [`CUDA_EXTERNAL_MEMORY_HANDLE_DESC`].
// sdk-check: c-path CUDA_EXTERNAL_MEMORY_HANDLE_DESC.handle
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle {
    /// File descriptor.
    pub fd: c_int,
    /// Win32 handle.
    pub win32: CUDA_EXTERNAL_MEMORY_HANDLE_DESC_win32,
    /// The `NvSciBufObj`.
    pub nvSciBufObject: *const c_void,
}

/// Description of external memory to import (typedef of `..._v1`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
    /// Handle kind.
    pub r#type: CUexternalMemoryHandleType,
    /// The handle.
    pub handle: CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle,
    /// Size of the memory in bytes.
    pub size: c_ulonglong,
    /// [`CUDA_EXTERNAL_MEMORY_DEDICATED`] or 0.
    pub flags: c_uint,
    /// Must be zero.
    pub reserved: [c_uint; 16],
}

/// A buffer mapping of imported external memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
    /// Offset into the memory.
    pub offset: c_ulonglong,
    /// Size of the buffer.
    pub size: c_ulonglong,
    /// Must be zero.
    pub flags: c_uint,
    /// Must be zero.
    pub reserved: [c_uint; 16],
}

/// The `win32` member of [`CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC.handle.win32
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_win32 {
    /// Win32 handle.
    pub handle: *mut c_void,
    /// Name of the object.
    pub name: *const c_void,
}

/// The `handle` union of [`CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC.handle
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle {
    /// File descriptor.
    pub fd: c_int,
    /// Win32 handle.
    pub win32: CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_win32,
    /// The `NvSciSyncObj`.
    pub nvSciSyncObj: *const c_void,
}

/// Description of an external semaphore to import (typedef of `..._v1`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
    /// Handle kind.
    pub r#type: CUexternalSemaphoreHandleType,
    /// The handle.
    pub handle: CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle,
    /// Must be zero.
    pub flags: c_uint,
    /// Must be zero.
    pub reserved: [c_uint; 16],
}

/// `params.fence` of [`CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.params.fence
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_fence {
    /// Value to signal.
    pub value: c_ulonglong,
}

/// `params.nvSciSync` of [`CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.params.nvSciSync
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync {
    /// Points to the `NvSciSyncFence` that the signal overwrites.
    pub fence: *mut c_void,
    /// Reserved.
    pub reserved: c_ulonglong,
}

/// `params.keyedMutex` of [`CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.params.keyedMutex
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_keyedMutex {
    /// Key to release with.
    pub key: c_ulonglong,
}

/// `params` of [`CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.params
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params {
    /// Fence-type semaphores.
    pub fence: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_fence,
    /// NvSciSync semaphores.
    pub nvSciSync: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync,
    /// Keyed-mutex semaphores.
    pub keyedMutex: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_keyedMutex,
    /// Must be zero.
    pub reserved: [c_uint; 12],
}

/// Parameters of one external-semaphore signal (typedef of `..._v1`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
    /// Per-kind parameters.
    pub params: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params,
    /// e.g. [`CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC`].
    pub flags: c_uint,
    /// Must be zero.
    pub reserved: [c_uint; 16],
}

/// `params.fence` of [`CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS.params.fence
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_fence {
    /// Value to wait for.
    pub value: c_ulonglong,
}

/// `params.nvSciSync` of [`CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS.params.nvSciSync
#[repr(C)]
#[derive(Clone, Copy)]
pub union CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync {
    /// Points to the `NvSciSyncFence` to wait on.
    pub fence: *mut c_void,
    /// Reserved.
    pub reserved: c_ulonglong,
}

/// `params.keyedMutex` of [`CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS.params.keyedMutex
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex {
    /// Key to acquire with.
    pub key: c_ulonglong,
    /// Timeout in ms.
    pub timeoutMs: c_uint,
}

/// `params` of [`CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS`].
// sdk-check: c-path CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS.params
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params {
    /// Fence-type semaphores.
    pub fence: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_fence,
    /// NvSciSync semaphores.
    pub nvSciSync: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync,
    /// Keyed-mutex semaphores.
    pub keyedMutex: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex,
    /// Must be zero.
    pub reserved: [c_uint; 10],
}

/// Parameters of one external-semaphore wait (typedef of `..._v1`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
    /// Per-kind parameters.
    pub params: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params,
    /// e.g. [`CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC`].
    pub flags: c_uint,
    /// Must be zero.
    pub reserved: [c_uint; 16],
}

// ---------------------------------------------------------------------------------------
// JIT options (documentation and audit only: no call here takes them)
// ---------------------------------------------------------------------------------------

// sdk-check: subset
/// JIT option keys (C enum; subset). Only for documentation and the symbol audit: this
/// crate declares no call that accepts them.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUjit_option(pub u32);
/// Max registers per thread.
pub const CU_JIT_MAX_REGISTERS: CUjit_option = CUjit_option(0);
/// Threads per block.
pub const CU_JIT_THREADS_PER_BLOCK: CUjit_option = CUjit_option(1);
/// Wall time (output).
pub const CU_JIT_WALL_TIME: CUjit_option = CUjit_option(2);
/// Info log buffer.
pub const CU_JIT_INFO_LOG_BUFFER: CUjit_option = CUjit_option(3);
/// Info log buffer size.
pub const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: CUjit_option = CUjit_option(4);
/// Error log buffer.
pub const CU_JIT_ERROR_LOG_BUFFER: CUjit_option = CUjit_option(5);
/// Error log buffer size.
pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: CUjit_option = CUjit_option(6);
/// Optimisation level.
pub const CU_JIT_OPTIMIZATION_LEVEL: CUjit_option = CUjit_option(7);
/// Target from the current context.
pub const CU_JIT_TARGET_FROM_CUCONTEXT: CUjit_option = CUjit_option(8);
/// Explicit target.
pub const CU_JIT_TARGET: CUjit_option = CUjit_option(9);
/// PTX/binary fallback strategy ([`CUjit_fallback`]).
pub const CU_JIT_FALLBACK_STRATEGY: CUjit_option = CUjit_option(10);
/// Debug info.
pub const CU_JIT_GENERATE_DEBUG_INFO: CUjit_option = CUjit_option(11);
/// Verbose log.
pub const CU_JIT_LOG_VERBOSE: CUjit_option = CUjit_option(12);
/// Line info.
pub const CU_JIT_GENERATE_LINE_INFO: CUjit_option = CUjit_option(13);
/// Cache mode.
pub const CU_JIT_CACHE_MODE: CUjit_option = CUjit_option(14);

/// JIT fallback strategy (C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CUjit_fallback(pub u32);
/// Prefer PTX.
pub const CU_PREFER_PTX: CUjit_fallback = CUjit_fallback(0);
/// Prefer a binary.
pub const CU_PREFER_BINARY: CUjit_fallback = CUjit_fallback(1);

// ---------------------------------------------------------------------------------------
// Functions (exported symbol names)
// ---------------------------------------------------------------------------------------

unsafe extern "C" {
    /// Initialises the driver; `Flags` must be 0.
    pub fn cuInit(Flags: c_uint) -> CUresult;
    /// Driver version (e.g. 12060).
    pub fn cuDriverGetVersion(driverVersion: *mut c_int) -> CUresult;
    /// Device handle of an ordinal.
    pub fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult;
    /// Number of devices.
    pub fn cuDeviceGetCount(count: *mut c_int) -> CUresult;
    /// NUL-terminated device name.
    pub fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult;
    /// Integer device attribute.
    pub fn cuDeviceGetAttribute(
        pi: *mut c_int,
        attrib: CUdevice_attribute,
        dev: CUdevice,
    ) -> CUresult;
    /// Device UUID.
    ///
    /// `cuda.h` 12.x does not rename this call, so this is the v1 symbol. CUDA 13's
    /// header maps `cuDeviceGetUuid` to `cuDeviceGetUuid_v2` (same signature); drivers
    /// keep exporting the v1 symbol (UNCONFIRMED for every driver branch).
    pub fn cuDeviceGetUuid(uuid: *mut CUuuid, dev: CUdevice) -> CUresult;
    /// Retains the device's primary context.
    pub fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult;
    /// Releases the primary context (`cuDevicePrimaryCtxRelease` in `cuda.h`).
    pub fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult;
    /// Binds a context to the calling thread.
    pub fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult;
    /// The calling thread's context.
    pub fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult;
    /// Waits for all work of the current context.
    pub fn cuCtxSynchronize() -> CUresult;
    /// Loads a cubin/fatbin image from memory (init phase only; never PTX here).
    pub fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    /// Unloads a module.
    pub fn cuModuleUnload(hmod: CUmodule) -> CUresult;
    /// Kernel handle by name.
    pub fn cuModuleGetFunction(
        hfunc: *mut CUfunction,
        hmod: CUmodule,
        name: *const c_char,
    ) -> CUresult;
    /// Launches a kernel.
    pub fn cuLaunchKernel(
        f: CUfunction,
        gridDimX: c_uint,
        gridDimY: c_uint,
        gridDimZ: c_uint,
        blockDimX: c_uint,
        blockDimY: c_uint,
        blockDimZ: c_uint,
        sharedMemBytes: c_uint,
        hStream: CUstream,
        kernelParams: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
    /// Creates a stream ([`CUstream_flags`] value).
    pub fn cuStreamCreate(phStream: *mut CUstream, Flags: c_uint) -> CUresult;
    /// Destroys a stream (`cuStreamDestroy` in `cuda.h`).
    pub fn cuStreamDestroy_v2(hStream: CUstream) -> CUresult;
    /// Waits for a stream.
    pub fn cuStreamSynchronize(hStream: CUstream) -> CUresult;
    /// `CUDA_SUCCESS` if the stream is idle, `CUDA_ERROR_NOT_READY` otherwise.
    pub fn cuStreamQuery(hStream: CUstream) -> CUresult;
    /// Stream waits on a 32-bit value (`cuStreamWaitValue32` in `cuda.h` 12.x).
    pub fn cuStreamWaitValue32_v2(
        stream: CUstream,
        addr: CUdeviceptr,
        value: cuuint32_t,
        flags: c_uint,
    ) -> CUresult;
    /// Stream writes a 32-bit value (`cuStreamWriteValue32` in `cuda.h` 12.x).
    pub fn cuStreamWriteValue32_v2(
        stream: CUstream,
        addr: CUdeviceptr,
        value: cuuint32_t,
        flags: c_uint,
    ) -> CUresult;
    /// Stream waits on a 64-bit value (`cuStreamWaitValue64` in `cuda.h` 12.x).
    pub fn cuStreamWaitValue64_v2(
        stream: CUstream,
        addr: CUdeviceptr,
        value: cuuint64_t,
        flags: c_uint,
    ) -> CUresult;
    /// Stream writes a 64-bit value (`cuStreamWriteValue64` in `cuda.h` 12.x).
    pub fn cuStreamWriteValue64_v2(
        stream: CUstream,
        addr: CUdeviceptr,
        value: cuuint64_t,
        flags: c_uint,
    ) -> CUresult;
    /// Starts capturing the work enqueued on `hStream` into a graph instead of running it
    /// (`cuStreamBeginCapture` in `cuda.h` 12.x).
    pub fn cuStreamBeginCapture_v2(hStream: CUstream, mode: CUstreamCaptureMode) -> CUresult;
    /// Ends a capture begun on `hStream` and returns the graph (NULL if it was invalidated).
    pub fn cuStreamEndCapture(hStream: CUstream, phGraph: *mut CUgraph) -> CUresult;
    /// Instantiates a graph into an executable graph (`flags`: `CUDA_GRAPH_INSTANTIATE_FLAG_*`,
    /// 0 for none).
    pub fn cuGraphInstantiateWithFlags(
        phGraphExec: *mut CUgraphExec,
        hGraph: CUgraph,
        flags: c_ulonglong,
    ) -> CUresult;
    /// Enqueues an executable graph on a stream.
    pub fn cuGraphLaunch(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult;
    /// Destroys an executable graph.
    pub fn cuGraphExecDestroy(hGraphExec: CUgraphExec) -> CUresult;
    /// Destroys a graph (its executable graphs stay valid).
    pub fn cuGraphDestroy(hGraph: CUgraph) -> CUresult;
    /// Allocates pinned host memory (`CU_MEMHOSTALLOC_*`).
    pub fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, Flags: c_uint) -> CUresult;
    /// Frees [`cuMemHostAlloc`] memory.
    pub fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    /// Device address of pinned host memory; `Flags` must be 0
    /// (`cuMemHostGetDevicePointer` in `cuda.h`).
    pub fn cuMemHostGetDevicePointer_v2(
        pdptr: *mut CUdeviceptr,
        p: *mut c_void,
        Flags: c_uint,
    ) -> CUresult;
    /// Pins an existing host range (`cuMemHostRegister` in `cuda.h`).
    pub fn cuMemHostRegister_v2(p: *mut c_void, bytesize: usize, Flags: c_uint) -> CUresult;
    /// Unpins a host range.
    pub fn cuMemHostUnregister(p: *mut c_void) -> CUresult;
    /// Frees device memory or an external-memory mapping (`cuMemFree` in `cuda.h`).
    pub fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    /// Creates an event ([`CUevent_flags`] value).
    pub fn cuEventCreate(phEvent: *mut CUevent, Flags: c_uint) -> CUresult;
    /// Records an event in a stream.
    pub fn cuEventRecord(hEvent: CUevent, hStream: CUstream) -> CUresult;
    /// `CUDA_SUCCESS` if the event completed, `CUDA_ERROR_NOT_READY` otherwise.
    pub fn cuEventQuery(hEvent: CUevent) -> CUresult;
    /// Waits for an event.
    pub fn cuEventSynchronize(hEvent: CUevent) -> CUresult;
    /// Milliseconds between two completed events.
    ///
    /// The v1 symbol, which `cuda.h` 12.x uses. CUDA 12.8 added `cuEventElapsedTime_v2`
    /// and CUDA 13's header maps the C name to it (UNCONFIRMED which drivers keep the
    /// v1 export; current ones do).
    pub fn cuEventElapsedTime(pMilliseconds: *mut f32, hStart: CUevent, hEnd: CUevent) -> CUresult;
    /// Destroys an event (`cuEventDestroy` in `cuda.h`).
    pub fn cuEventDestroy_v2(hEvent: CUevent) -> CUresult;
    /// Imports external memory (an NvSciBuf object on Orin).
    pub fn cuImportExternalMemory(
        extMem_out: *mut CUexternalMemory,
        memHandleDesc: *const CUDA_EXTERNAL_MEMORY_HANDLE_DESC,
    ) -> CUresult;
    /// Maps a buffer of imported memory (free with [`cuMemFree_v2`]).
    pub fn cuExternalMemoryGetMappedBuffer(
        devPtr: *mut CUdeviceptr,
        extMem: CUexternalMemory,
        bufferDesc: *const CUDA_EXTERNAL_MEMORY_BUFFER_DESC,
    ) -> CUresult;
    /// Destroys imported memory.
    pub fn cuDestroyExternalMemory(extMem: CUexternalMemory) -> CUresult;
    /// Imports an external semaphore (an NvSciSync object on Orin).
    pub fn cuImportExternalSemaphore(
        extSem_out: *mut CUexternalSemaphore,
        semHandleDesc: *const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC,
    ) -> CUresult;
    /// Enqueues signals; for NvSciSync it overwrites `*params.nvSciSync.fence`.
    pub fn cuSignalExternalSemaphoresAsync(
        extSemArray: *const CUexternalSemaphore,
        paramsArray: *const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS,
        numExtSems: c_uint,
        stream: CUstream,
    ) -> CUresult;
    /// Enqueues waits.
    pub fn cuWaitExternalSemaphoresAsync(
        extSemArray: *const CUexternalSemaphore,
        paramsArray: *const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS,
        numExtSems: c_uint,
        stream: CUstream,
    ) -> CUresult;
    /// Destroys an imported semaphore.
    pub fn cuDestroyExternalSemaphore(extSem: CUexternalSemaphore) -> CUresult;
    /// Fills an `NvSciSyncAttrList` for CUDA signal and/or wait
    /// (`CUDA_NVSCISYNC_ATTR_*`); sets `RequiredPerm` itself.
    pub fn cuDeviceGetNvSciSyncAttributes(
        nvSciSyncAttrList: *mut c_void,
        dev: CUdevice,
        flags: c_int,
    ) -> CUresult;
    /// Static NUL-terminated name of a code.
    pub fn cuGetErrorName(error: CUresult, pStr: *mut *const c_char) -> CUresult;
    /// Static NUL-terminated description of a code.
    pub fn cuGetErrorString(error: CUresult, pStr: *mut *const c_char) -> CUresult;
}

// ---------------------------------------------------------------------------------------
// Layout (LP64; values computed in api-facts §6)
// ---------------------------------------------------------------------------------------

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<CUresult>() == 4);
    assert!(size_of::<CUdeviceptr>() == 8);

    assert!(size_of::<CUuuid>() == 16);
    assert!(align_of::<CUuuid>() == 1);
    assert!(offset_of!(CUuuid, bytes) == 0);

    assert!(size_of::<CUstreamMemOpValue>() == 8);
    assert!(align_of::<CUstreamMemOpValue>() == 8);
    assert!(offset_of!(CUstreamMemOpValue, value) == 0);
    assert!(offset_of!(CUstreamMemOpValue, value64) == 0);

    assert!(size_of::<CUstreamMemOpWaitValueParams_st>() == 40);
    assert!(align_of::<CUstreamMemOpWaitValueParams_st>() == 8);
    assert!(offset_of!(CUstreamMemOpWaitValueParams_st, operation) == 0);
    assert!(offset_of!(CUstreamMemOpWaitValueParams_st, address) == 8);
    assert!(offset_of!(CUstreamMemOpWaitValueParams_st, value) == 16);
    assert!(offset_of!(CUstreamMemOpWaitValueParams_st, flags) == 24);
    assert!(offset_of!(CUstreamMemOpWaitValueParams_st, alias) == 32);

    assert!(size_of::<CUstreamMemOpWriteValueParams_st>() == 40);
    assert!(align_of::<CUstreamMemOpWriteValueParams_st>() == 8);
    assert!(offset_of!(CUstreamMemOpWriteValueParams_st, operation) == 0);
    assert!(offset_of!(CUstreamMemOpWriteValueParams_st, address) == 8);
    assert!(offset_of!(CUstreamMemOpWriteValueParams_st, value) == 16);
    assert!(offset_of!(CUstreamMemOpWriteValueParams_st, flags) == 24);
    assert!(offset_of!(CUstreamMemOpWriteValueParams_st, alias) == 32);

    assert!(size_of::<CUstreamMemOpFlushRemoteWritesParams_st>() == 8);
    assert!(align_of::<CUstreamMemOpFlushRemoteWritesParams_st>() == 4);
    assert!(offset_of!(CUstreamMemOpFlushRemoteWritesParams_st, operation) == 0);
    assert!(offset_of!(CUstreamMemOpFlushRemoteWritesParams_st, flags) == 4);

    assert!(size_of::<CUstreamMemOpMemoryBarrierParams_st>() == 8);
    assert!(align_of::<CUstreamMemOpMemoryBarrierParams_st>() == 4);
    assert!(offset_of!(CUstreamMemOpMemoryBarrierParams_st, operation) == 0);
    assert!(offset_of!(CUstreamMemOpMemoryBarrierParams_st, flags) == 4);

    assert!(size_of::<CUstreamBatchMemOpParams>() == 48);
    assert!(align_of::<CUstreamBatchMemOpParams>() == 8);
    assert!(offset_of!(CUstreamBatchMemOpParams, operation) == 0);
    assert!(offset_of!(CUstreamBatchMemOpParams, waitValue) == 0);
    assert!(offset_of!(CUstreamBatchMemOpParams, writeValue) == 0);
    assert!(offset_of!(CUstreamBatchMemOpParams, flushRemoteWrites) == 0);
    assert!(offset_of!(CUstreamBatchMemOpParams, memoryBarrier) == 0);
    assert!(offset_of!(CUstreamBatchMemOpParams, pad) == 0);

    assert!(size_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC_win32>() == 16);
    assert!(align_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC_win32>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC_win32, handle) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC_win32, name) == 8);

    assert!(size_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle>() == 16);
    assert!(align_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle, fd) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle, win32) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle, nvSciBufObject) == 0);

    assert!(size_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC>() == 104);
    assert!(align_of::<CUDA_EXTERNAL_MEMORY_HANDLE_DESC>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, r#type) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, handle) == 8);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, size) == 24);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, flags) == 32);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_HANDLE_DESC, reserved) == 36);

    assert!(size_of::<CUDA_EXTERNAL_MEMORY_BUFFER_DESC>() == 88);
    assert!(align_of::<CUDA_EXTERNAL_MEMORY_BUFFER_DESC>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, offset) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, size) == 8);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, flags) == 16);
    assert!(offset_of!(CUDA_EXTERNAL_MEMORY_BUFFER_DESC, reserved) == 20);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_win32>() == 16);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_win32>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_win32, handle) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_win32, name) == 8);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle>() == 16);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle, fd) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle, win32) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle, nvSciSyncObj) == 0);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC>() == 96);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, r#type) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, handle) == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, flags) == 24);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC, reserved) == 28);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_fence>() == 8);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_fence>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_fence, value) == 0);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync>() == 8);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync>() == 8);
    assert!(
        offset_of!(
            CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync,
            fence
        ) == 0
    );
    assert!(
        offset_of!(
            CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync,
            reserved
        ) == 0
    );

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_keyedMutex>() == 8);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_keyedMutex>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_keyedMutex, key) == 0);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params>() == 72);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params, fence) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params, nvSciSync) == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params, keyedMutex) == 16);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params, reserved) == 24);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS>() == 144);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, params) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, flags) == 72);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, reserved) == 76);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_fence>() == 8);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_fence>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_fence, value) == 0);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync>() == 8);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync, fence) == 0);
    assert!(
        offset_of!(
            CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync,
            reserved
        ) == 0
    );

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex>() == 16);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex, key) == 0);
    assert!(
        offset_of!(
            CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex,
            timeoutMs
        ) == 8
    );

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params>() == 72);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params, fence) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params, nvSciSync) == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params, keyedMutex) == 16);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params, reserved) == 32);

    assert!(size_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS>() == 144);
    assert!(align_of::<CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS>() == 8);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, params) == 0);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, flags) == 72);
    assert!(offset_of!(CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS, reserved) == 76);
};

/// Covers: REQ-FND-003
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_names() {
        assert_eq!(CUDA_SUCCESS.name(), Some("CUDA_SUCCESS"));
        assert_eq!(CUresult(911).name(), Some("CUDA_ERROR_EXTERNAL_DEVICE"));
        assert_eq!(CUresult(12345).name(), None);
        assert!(CUDA_SUCCESS.is_success());
        assert_eq!(CUDA_ERROR_NOT_READY.ok(), Err(CUDA_ERROR_NOT_READY));
        for (i, a) in CUresult::KNOWN.iter().enumerate() {
            assert!(a.name().is_some());
            for b in &CUresult::KNOWN[i + 1..] {
                assert_ne!(a, b, "duplicate value");
            }
        }
    }
}
