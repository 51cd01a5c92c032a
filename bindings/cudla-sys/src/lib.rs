//! Hand-written FFI declarations for cuDLA (`cudla.h`, `libcudla.so.1`), api-facts §4.
//!
//! Target: cuDLA 1.5 (CUDA 13.5: `cudla.h` 1.5 and `cudlaExternalEtbl.hpp`, the headers of
//! the PyPI package `nvidia-cudla`), i.e. [`CUDLA_VER_MAJOR`].[`CUDLA_VER_MINOR`].[`CUDLA_VER_PATCH`].
//! Everything newer than the public 1.2.1 header (task statistics and the export table,
//! fault diagnostics, [`cudlaSetTaskTimeoutInMs`], the scratch-memory flags,
//! [`cudlaErrorDriverNotFound`]) says so in its docs.
//! Every name is the vendor's C name. C enums are `#[repr(transparent)]` newtypes with
//! one constant per enumerator. The declarations are written by hand from the facts of the
//! headers (names, values, field orders); no header text is copied.
//!
//! Layouts are asserted at compile time for 64-bit (LP64) targets only; 32-bit targets
//! only compile the declarations.
//!
//! With feature `sil-ext`, module `sil` declares the SIL-only extension calls.
#![no_std]
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use core::ffi::{c_char, c_ulonglong, c_void};
use core::fmt;

#[cfg(feature = "sil-ext")]
pub mod sil;

// ---------------------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------------------

// sdk-check: version
/// cuDLA major version these declarations target.
pub const CUDLA_VER_MAJOR: u32 = 1;
// sdk-check: version
/// cuDLA minor version these declarations target.
pub const CUDLA_VER_MINOR: u32 = 5;
// sdk-check: version
/// cuDLA patch version these declarations target.
pub const CUDLA_VER_PATCH: u32 = 0;

/// The value [`cudlaGetVersion`] reports for a version (1000000·major + 1000·minor + patch).
pub const fn cudla_version(major: u64, minor: u64, patch: u64) -> u64 {
    major * 1_000_000 + minor * 1000 + patch
}

// ---------------------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------------------

/// Status code of every cuDLA call (a C enum, `int`).
///
/// A newtype, not a Rust enum: unknown codes (e.g. `cudlaErrorNotPermittedOperation`,
/// which the docs mention without a value) stay representable.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct cudlaStatus(pub i32);

// sdk-check: codes cudlaStatus
macro_rules! cudla_status_codes {
    ($($(#[$m:meta])* $name:ident = $val:expr;)*) => {
        $(
            $(#[$m])*
            #[doc = concat!("\n\n`", stringify!($name), "` = `", stringify!($val), "`.")]
            pub const $name: cudlaStatus = cudlaStatus($val);
        )*

        impl cudlaStatus {
            /// Every code this crate declares, in declaration order.
            pub const KNOWN: &'static [cudlaStatus] = &[$($name),*];

            /// The vendor name of this code (e.g. `"cudlaErrorInvalidParam"`), or `None`
            /// for a code this crate does not declare.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    $(v if v == $val => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        }
    };
}

cudla_status_codes! {
    /// The call succeeded.
    cudlaSuccess = 0;
    /// A parameter is invalid.
    cudlaErrorInvalidParam = 1;
    /// Out of resources.
    cudlaErrorOutOfResources = 2;
    /// Creation failed.
    cudlaErrorCreationFailed = 3;
    /// An address is invalid.
    cudlaErrorInvalidAddress = 4;
    /// Operating-system error.
    cudlaErrorOs = 5;
    /// CUDA error (hybrid mode).
    cudlaErrorCuda = 6;
    /// DLA user-mode driver error.
    cudlaErrorUmd = 7;
    /// Invalid device.
    cudlaErrorInvalidDevice = 8;
    /// Invalid attribute.
    cudlaErrorInvalidAttribute = 9;
    /// The DLA software versions are incompatible.
    cudlaErrorIncompatibleDlaSWVersion = 10;
    /// The memory is already registered (the only recoverable error).
    cudlaErrorMemoryRegistered = 11;
    /// Invalid module.
    cudlaErrorInvalidModule = 12;
    /// The operation is not supported (e.g. in this mode).
    cudlaErrorUnsupportedOperation = 13;
    /// An NvSci call failed.
    cudlaErrorNvSci = 14;
    /// The dependent driver is not found or not loaded (`cudla.h` 1.5; not in 1.2.1).
    cudlaErrorDriverNotFound = 15;
    /// DLA hardware: invalid input.
    cudlaErrorDlaErrInvalidInput = 0x4000_0001;
    /// DLA hardware: invalid pre-action.
    cudlaErrorDlaErrInvalidPreAction = 0x4000_0002;
    /// DLA hardware: out of memory.
    cudlaErrorDlaErrNoMem = 0x4000_0003;
    /// DLA hardware: processor busy.
    cudlaErrorDlaErrProcessorBusy = 0x4000_0004;
    /// DLA hardware: task status mismatch.
    cudlaErrorDlaErrTaskStatusMismatch = 0x4000_0005;
    /// DLA hardware: engine timeout.
    cudlaErrorDlaErrEngineTimeout = 0x4000_0006;
    /// DLA hardware: data mismatch.
    cudlaErrorDlaErrDataMismatch = 0x4000_0007;
    /// Unknown error.
    cudlaErrorUnknown = 0x7fff_ffff;
}

impl cudlaStatus {
    /// `true` for [`cudlaSuccess`].
    #[inline]
    pub const fn is_success(self) -> bool {
        self.0 == cudlaSuccess.0
    }

    /// `Ok(())` for success, `Err(self)` otherwise.
    #[inline]
    pub const fn ok(self) -> Result<(), cudlaStatus> {
        if self.is_success() { Ok(()) } else { Err(self) }
    }

    /// `true` for the asynchronous DLA hardware errors (`cudlaErrorDlaErr*`).
    #[inline]
    pub const fn is_dla_hw_error(self) -> bool {
        self.0 >= 0x4000_0001 && self.0 <= 0x4000_0007
    }
}

impl fmt::Debug for cudlaStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({:#x})", self.0),
            None => write!(f, "cudlaStatus({:#x})", self.0),
        }
    }
}

impl fmt::Display for cudlaStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown cudlaStatus {:#x}", self.0),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------------------

/// Device mode, the `flags` of [`cudlaCreateDevice`] (a C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaMode(pub u32);
/// Hybrid mode (DLA inside a CUDA context).
pub const CUDLA_CUDA_DLA: cudlaMode = cudlaMode(0);
/// Standalone mode (no CUDA; NvSci buffers and fences).
pub const CUDLA_STANDALONE: cudlaMode = cudlaMode(1);

/// Scratch-memory configuration, OR-ed with a [`cudlaMode`] into the `flags` of
/// [`cudlaCreateDevice`] (a C enum; `cudla.h` 1.5, not in 1.2.1). Bit 0 of the flags is the
/// mode, the configuration uses bit 1 and up.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaScratchMemoryConfig(pub u32);
/// A private scratch buffer per loadable (the default).
pub const CUDLA_SCRATCH_MEMORY_DEFAULT: cudlaScratchMemoryConfig = cudlaScratchMemoryConfig(0);
/// The handle's modules share one fixed-size scratch pool (loadables that do not fit get a
/// private buffer); must be OR-ed with a mode.
pub const CUDLA_SCRATCH_MEMORY_SHARED_STATIC: cudlaScratchMemoryConfig =
    cudlaScratchMemoryConfig(1 << 1);
/// Pins the C enum to 32 bits (not a configuration).
pub const CUDLA_SCRATCH_MEMORY_CONFIG_MAX: cudlaScratchMemoryConfig =
    cudlaScratchMemoryConfig(0x7FFF_FFFF);

/// `flags` of [`cudlaGetNvSciSyncAttributes`] (a C enum; may be OR-ed).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaNvSciSyncAttributes(pub u32);
/// The DLA waits on the object (working assumption: yields `WaitOnly`; api-facts §4.4).
pub const CUDLA_NVSCISYNC_ATTR_WAIT: cudlaNvSciSyncAttributes = cudlaNvSciSyncAttributes(1);
/// The DLA signals the object (working assumption: yields `SignalOnly`).
pub const CUDLA_NVSCISYNC_ATTR_SIGNAL: cudlaNvSciSyncAttributes = cudlaNvSciSyncAttributes(2);

/// Module attribute selector for [`cudlaModuleGetAttributes`] (a C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaModuleAttributeType(pub u32);
/// Number of input tensors (`numInputTensors`).
pub const CUDLA_NUM_INPUT_TENSORS: cudlaModuleAttributeType = cudlaModuleAttributeType(0);
/// Number of output tensors (`numOutputTensors`).
pub const CUDLA_NUM_OUTPUT_TENSORS: cudlaModuleAttributeType = cudlaModuleAttributeType(1);
/// Input descriptors into the caller's array at `inputTensorDesc`.
pub const CUDLA_INPUT_TENSOR_DESCRIPTORS: cudlaModuleAttributeType = cudlaModuleAttributeType(2);
/// Output descriptors into the caller's array at `outputTensorDesc`.
pub const CUDLA_OUTPUT_TENSOR_DESCRIPTORS: cudlaModuleAttributeType = cudlaModuleAttributeType(3);
/// Number of task-statistics outputs (in `numOutputTensors`). Newer than 1.2.1.
pub const CUDLA_NUM_OUTPUT_TASK_STATISTICS: cudlaModuleAttributeType = cudlaModuleAttributeType(4);
/// Task-statistics descriptors (into `outputTensorDesc`). Newer than 1.2.1.
pub const CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS: cudlaModuleAttributeType =
    cudlaModuleAttributeType(5);

/// Kind of a [`CudlaFence`] (a C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaFenceType(pub u32);
/// An NvSciSync fence (pre-fence or end-of-frame fence).
pub const CUDLA_NVSCISYNC_FENCE: cudlaFenceType = cudlaFenceType(1);
/// An NvSciSync start-of-frame fence.
pub const CUDLA_NVSCISYNC_FENCE_SOF: cudlaFenceType = cudlaFenceType(2);

/// `flags` of [`cudlaModuleLoadFromMemory`] (a C enum). Not in the 1.2.1 header.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaModuleLoadFlags(pub u32);
/// Default load.
pub const CUDLA_MODULE_DEFAULT: cudlaModuleLoadFlags = cudlaModuleLoadFlags(0);
/// Load the internal fault-diagnostics module (`pModule` NULL, `moduleSize` 0).
pub const CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS: cudlaModuleLoadFlags = cudlaModuleLoadFlags(1);

/// `flags` of [`cudlaSubmitTask`] (a C enum; may be OR-ed).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaSubmissionFlags(pub u32);
/// Skip the work but keep the wait/signal semantics.
pub const CUDLA_SUBMIT_NOOP: cudlaSubmissionFlags = cudlaSubmissionFlags(1);
/// Skip cuDLA's global lock (single submitter only).
pub const CUDLA_SUBMIT_SKIP_LOCK_ACQUIRE: cudlaSubmissionFlags = cudlaSubmissionFlags(2);
/// Run the permanent-fault diagnostic task. Not in the 1.2.1 header.
pub const CUDLA_SUBMIT_DIAGNOSTICS_TASK: cudlaSubmissionFlags = cudlaSubmissionFlags(4);

/// `flags` of [`cudlaImportExternalMemory`] / [`cudlaMemRegister`] (a C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaAccessPermissionFlags(pub u32);
/// Read-write mapping.
pub const CUDLA_READ_WRITE_PERM: cudlaAccessPermissionFlags = cudlaAccessPermissionFlags(0);
/// Read-only mapping.
pub const CUDLA_READ_ONLY_PERM: cudlaAccessPermissionFlags = cudlaAccessPermissionFlags(1);
/// A layer-wise task-statistics buffer. Newer than 1.2.1.
pub const CUDLA_TASK_STATISTICS: cudlaAccessPermissionFlags = cudlaAccessPermissionFlags(2);

/// Device attribute selector for [`cudlaDeviceGetAttribute`] (a C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaDevAttributeType(pub u32);
/// Unified addressing support (`unifiedAddressingSupported`).
pub const CUDLA_UNIFIED_ADDRESSING: cudlaDevAttributeType = cudlaDevAttributeType(0);
/// DLA hardware version (`deviceVersion`: 1 Xavier, 2 Orin).
pub const CUDLA_DEVICE_VERSION: cudlaDevAttributeType = cudlaDevAttributeType(1);

// ---------------------------------------------------------------------------------------
// Tensor descriptor macros (values of the u8 fields of cudlaModuleTensorDescriptor)
// ---------------------------------------------------------------------------------------

/// Number of entries of [`cudlaModuleTensorDescriptor::stride`].
pub const CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES: u32 = 8;
/// Longest tensor name; [`cudlaModuleTensorDescriptor::name`] has room for one more byte.
pub const CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN: u32 = 80;

/// Data format: unknown.
pub const CUDLA_DATA_FORMAT_UNKNOWN: u8 = 0;
/// Data format: NCHW.
pub const CUDLA_DATA_FORMAT_NCHW: u8 = 1;
/// Data format: NHWC.
pub const CUDLA_DATA_FORMAT_NHWC: u8 = 2;
/// Data format: NCxHWx (channel-interleaved).
pub const CUDLA_DATA_FORMAT_NCxHWx: u8 = 3;

/// Data type: unknown.
pub const CUDLA_DATA_TYPE_UNKNOWN: u8 = 0;
/// Data type: fp32.
pub const CUDLA_DATA_TYPE_FLOAT: u8 = 1;
/// Data type: fp16.
pub const CUDLA_DATA_TYPE_HALF: u8 = 2;
/// Data type: int16.
pub const CUDLA_DATA_TYPE_INT16: u8 = 3;
/// Data type: int8.
pub const CUDLA_DATA_TYPE_INT8: u8 = 4;
/// Data type: uint8.
pub const CUDLA_DATA_TYPE_UINT8: u8 = 5;
/// Data type: uint16.
pub const CUDLA_DATA_TYPE_UINT16: u8 = 6;

/// Data category: image.
pub const CUDLA_DATA_CATEGORY_IMAGE: u8 = 0;
/// Data category: weight.
pub const CUDLA_DATA_CATEGORY_WEIGHT: u8 = 1;
/// Data category: feature.
pub const CUDLA_DATA_CATEGORY_FEATURE: u8 = 2;
/// Data category: planar.
pub const CUDLA_DATA_CATEGORY_PLANAR: u8 = 3;
/// Data category: bias.
pub const CUDLA_DATA_CATEGORY_BIAS: u8 = 4;

// Pixel formats (`CUDLA_PIXEL_FORMAT_*`, the values of `pixelFormat`).
/// Pixel format R8.
pub const CUDLA_PIXEL_FORMAT_R8: u8 = 0;
/// Pixel format R10.
pub const CUDLA_PIXEL_FORMAT_R10: u8 = 1;
/// Pixel format R12.
pub const CUDLA_PIXEL_FORMAT_R12: u8 = 2;
/// Pixel format R16.
pub const CUDLA_PIXEL_FORMAT_R16: u8 = 3;
/// Pixel format R16_I.
pub const CUDLA_PIXEL_FORMAT_R16_I: u8 = 4;
/// Pixel format R16_F.
pub const CUDLA_PIXEL_FORMAT_R16_F: u8 = 5;
/// Pixel format A16B16G16R16.
pub const CUDLA_PIXEL_FORMAT_A16B16G16R16: u8 = 6;
/// Pixel format X16B16G16R16.
pub const CUDLA_PIXEL_FORMAT_X16B16G16R16: u8 = 7;
/// Pixel format A16B16G16R16_F.
pub const CUDLA_PIXEL_FORMAT_A16B16G16R16_F: u8 = 8;
/// Pixel format A16Y16U16V16.
pub const CUDLA_PIXEL_FORMAT_A16Y16U16V16: u8 = 9;
/// Pixel format V16U16Y16A16.
pub const CUDLA_PIXEL_FORMAT_V16U16Y16A16: u8 = 10;
/// Pixel format A16Y16U16V16_F.
pub const CUDLA_PIXEL_FORMAT_A16Y16U16V16_F: u8 = 11;
/// Pixel format A8B8G8R8.
pub const CUDLA_PIXEL_FORMAT_A8B8G8R8: u8 = 12;
/// Pixel format A8R8G8B8.
pub const CUDLA_PIXEL_FORMAT_A8R8G8B8: u8 = 13;
/// Pixel format B8G8R8A8.
pub const CUDLA_PIXEL_FORMAT_B8G8R8A8: u8 = 14;
/// Pixel format R8G8B8A8.
pub const CUDLA_PIXEL_FORMAT_R8G8B8A8: u8 = 15;
/// Pixel format X8B8G8R8.
pub const CUDLA_PIXEL_FORMAT_X8B8G8R8: u8 = 16;
/// Pixel format X8R8G8B8.
pub const CUDLA_PIXEL_FORMAT_X8R8G8B8: u8 = 17;
/// Pixel format B8G8R8X8.
pub const CUDLA_PIXEL_FORMAT_B8G8R8X8: u8 = 18;
/// Pixel format R8G8B8X8.
pub const CUDLA_PIXEL_FORMAT_R8G8B8X8: u8 = 19;
/// Pixel format A2B10G10R10.
pub const CUDLA_PIXEL_FORMAT_A2B10G10R10: u8 = 20;
/// Pixel format A2R10G10B10.
pub const CUDLA_PIXEL_FORMAT_A2R10G10B10: u8 = 21;
/// Pixel format B10G10R10A2.
pub const CUDLA_PIXEL_FORMAT_B10G10R10A2: u8 = 22;
/// Pixel format R10G10B10A2.
pub const CUDLA_PIXEL_FORMAT_R10G10B10A2: u8 = 23;
/// Pixel format A2Y10U10V10.
pub const CUDLA_PIXEL_FORMAT_A2Y10U10V10: u8 = 24;
/// Pixel format V10U10Y10A2.
pub const CUDLA_PIXEL_FORMAT_V10U10Y10A2: u8 = 25;
/// Pixel format A8Y8U8V8.
pub const CUDLA_PIXEL_FORMAT_A8Y8U8V8: u8 = 26;
/// Pixel format V8U8Y8A8.
pub const CUDLA_PIXEL_FORMAT_V8U8Y8A8: u8 = 27;
/// Pixel format Y8___U8V8_N444.
pub const CUDLA_PIXEL_FORMAT_Y8___U8V8_N444: u8 = 28;
/// Pixel format Y8___V8U8_N444.
pub const CUDLA_PIXEL_FORMAT_Y8___V8U8_N444: u8 = 29;
/// Pixel format Y10___U10V10_N444.
pub const CUDLA_PIXEL_FORMAT_Y10___U10V10_N444: u8 = 30;
/// Pixel format Y10___V10U10_N444.
pub const CUDLA_PIXEL_FORMAT_Y10___V10U10_N444: u8 = 31;
/// Pixel format Y12___U12V12_N444.
pub const CUDLA_PIXEL_FORMAT_Y12___U12V12_N444: u8 = 32;
/// Pixel format Y12___V12U12_N444.
pub const CUDLA_PIXEL_FORMAT_Y12___V12U12_N444: u8 = 33;
/// Pixel format Y16___U16V16_N444.
pub const CUDLA_PIXEL_FORMAT_Y16___U16V16_N444: u8 = 34;
/// Pixel format Y16___V16U16_N444.
pub const CUDLA_PIXEL_FORMAT_Y16___V16U16_N444: u8 = 35;
/// Pixel format: feature data (not an image).
pub const CUDLA_PIXEL_FORMAT_FEATURE: u8 = 36;
/// Pixel format: unknown (the largest value).
pub const CUDLA_PIXEL_FORMAT_UNKNOWN: u8 = 37;

/// Pixel mapping: pitch linear.
pub const CUDLA_PIXEL_MAPPING_PITCH_LINEAR: u8 = 0;
/// Pixel mapping: block linear (cuDLA release notes: not supported for I/O).
pub const CUDLA_PIXEL_MAPPING_BLOCK_LINEAR: u8 = 1;

// ---------------------------------------------------------------------------------------
// Handles
// ---------------------------------------------------------------------------------------

/// Opaque device (only used behind [`cudlaDevHandle`]).
#[repr(C)]
pub struct cudlaDevHandle_t {
    _opaque: [u8; 0],
}
/// Opaque module (only used behind [`cudlaModule`]).
#[repr(C)]
pub struct cudlaModule_t {
    _opaque: [u8; 0],
}
/// Handle of a DLA device instance (at most 16 per DLA).
pub type cudlaDevHandle = *mut cudlaDevHandle_t;
/// Handle of a loaded module (one per device handle).
pub type cudlaModule = *mut cudlaModule_t;

// ---------------------------------------------------------------------------------------
// Structs
// ---------------------------------------------------------------------------------------

/// External memory to import (standalone mode): an NvSciBuf object.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaExternalMemoryHandleDesc {
    /// The `NvSciBufObj`.
    pub extBufObject: *const c_void,
    /// Size in bytes.
    pub size: c_ulonglong,
}

/// External semaphore to import (standalone mode): an NvSciSync object.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaExternalSemaphoreHandleDesc {
    /// The `NvSciSyncObj`.
    pub extSyncObject: *const c_void,
}

/// Description of one module input or output tensor.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaModuleTensorDescriptor {
    /// NUL-terminated tensor name.
    pub name: [c_char; CUDLA_RUNTIME_TENSOR_DESC_NAME_MAX_LEN as usize + 1],
    /// Buffer size in bytes.
    pub size: u64,
    /// Batch.
    pub n: u64,
    /// Channels.
    pub c: u64,
    /// Height.
    pub h: u64,
    /// Width.
    pub w: u64,
    /// A `CUDLA_DATA_FORMAT_*` value.
    pub dataFormat: u8,
    /// A `CUDLA_DATA_TYPE_*` value.
    pub dataType: u8,
    /// A `CUDLA_DATA_CATEGORY_*` value.
    pub dataCategory: u8,
    /// A `CUDLA_PIXEL_FORMAT_*` value.
    pub pixelFormat: u8,
    /// A `CUDLA_PIXEL_MAPPING_*` value.
    pub pixelMapping: u8,
    /// Strides in bytes.
    pub stride: [u32; CUDLA_LOADABLE_TENSOR_DESC_NUM_STRIDES as usize],
}

/// Value of a module attribute (which member is valid depends on the query).
///
/// For the `*_DESCRIPTORS` queries the caller stores a pointer to its own array of
/// descriptors before the call; cuDLA fills the array.
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudlaModuleAttribute {
    /// [`CUDLA_NUM_INPUT_TENSORS`].
    pub numInputTensors: u32,
    /// [`CUDLA_NUM_OUTPUT_TENSORS`] and [`CUDLA_NUM_OUTPUT_TASK_STATISTICS`].
    pub numOutputTensors: u32,
    /// [`CUDLA_INPUT_TENSOR_DESCRIPTORS`].
    pub inputTensorDesc: *mut cudlaModuleTensorDescriptor,
    /// [`CUDLA_OUTPUT_TENSOR_DESCRIPTORS`] and [`CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS`].
    pub outputTensorDesc: *mut cudlaModuleTensorDescriptor,
}

/// Value of a device attribute.
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudlaDevAttribute {
    /// [`CUDLA_UNIFIED_ADDRESSING`].
    pub unifiedAddressingSupported: u8,
    /// [`CUDLA_DEVICE_VERSION`].
    pub deviceVersion: u32,
}

/// One fence of a wait or signal list.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CudlaFence {
    /// Points to an `NvSciSyncFence`.
    pub fence: *mut c_void,
    /// What kind of fence this is.
    pub r#type: cudlaFenceType,
}

/// Fences the task waits for before it starts.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaWaitEvents {
    /// `numEvents` pre-fences (at most 29 pre-fences and SOF fences together).
    pub preFences: *const CudlaFence,
    /// Number of entries of `preFences`.
    pub numEvents: u32,
}

/// Fences the task signals.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaSignalEvents {
    /// Registered semaphore pointers from [`cudlaImportExternalSemaphore`].
    pub devPtrs: *const *mut u64,
    /// Fence placeholders (EOF or SOF) that cuDLA fills before [`cudlaSubmitTask`] returns
    /// (deterministic semaphores need none).
    pub eofFences: *mut CudlaFence,
    /// Number of events: any number of semaphores and at most one sync point; at most 29
    /// EOF fences, and at most 29 pre-fences plus SOF fences per task (`cudla.h` 1.5).
    pub numEvents: u32,
}

/// One inference task. Note the field order: outputs come before inputs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaTask {
    /// The loaded module.
    pub moduleHandle: cudlaModule,
    /// Registered output pointers (then the task-statistics buffers).
    pub outputTensor: *const *mut u64,
    /// Number of entries of `outputTensor`.
    pub numOutputTensors: u32,
    /// Number of entries of `inputTensor`.
    pub numInputTensors: u32,
    /// Registered input pointers.
    pub inputTensor: *const *const u64,
    /// Pre-fences, or NULL.
    pub waitEvents: *const cudlaWaitEvents,
    /// Signal fences, or NULL.
    pub signalEvents: *mut cudlaSignalEvents,
}

// ---------------------------------------------------------------------------------------
// Functions (api-facts §4.4)
// ---------------------------------------------------------------------------------------

unsafe extern "C" {
    /// cuDLA version as 1000000·major + 1000·minor + patch.
    pub fn cudlaGetVersion(version: *mut u64) -> cudlaStatus;
    /// Number of DLA devices.
    pub fn cudlaDeviceGetCount(pNumDevices: *mut u64) -> cudlaStatus;
    /// Creates a device handle; `flags` is a [`cudlaMode`] value.
    pub fn cudlaCreateDevice(
        device: u64,
        devHandle: *mut cudlaDevHandle,
        flags: u32,
    ) -> cudlaStatus;
    /// Destroys a device handle (every submitted task must have completed).
    pub fn cudlaDestroyDevice(devHandle: cudlaDevHandle) -> cudlaStatus;
    /// Loads a loadable (one per device handle); `flags` is a [`cudlaModuleLoadFlags`].
    pub fn cudlaModuleLoadFromMemory(
        devHandle: cudlaDevHandle,
        pModule: *const u8,
        moduleSize: usize,
        hModule: *mut cudlaModule,
        flags: u32,
    ) -> cudlaStatus;
    /// Queries a module attribute.
    pub fn cudlaModuleGetAttributes(
        hModule: cudlaModule,
        attrType: cudlaModuleAttributeType,
        attribute: *mut cudlaModuleAttribute,
    ) -> cudlaStatus;
    /// Unloads a module; `flags` must be 0.
    pub fn cudlaModuleUnload(hModule: cudlaModule, flags: u32) -> cudlaStatus;
    /// Registers CUDA memory (hybrid mode).
    pub fn cudlaMemRegister(
        devHandle: cudlaDevHandle,
        ptr: *const u64,
        size: usize,
        devPtr: *mut *mut u64,
        flags: u32,
    ) -> cudlaStatus;
    /// Unregisters memory or a semaphore.
    pub fn cudlaMemUnregister(devHandle: cudlaDevHandle, devPtr: *const u64) -> cudlaStatus;
    /// Imports an NvSciBuf object (standalone mode); `flags` is a
    /// [`cudlaAccessPermissionFlags`] value (1.2.1: must be 0).
    pub fn cudlaImportExternalMemory(
        devHandle: cudlaDevHandle,
        desc: *const cudlaExternalMemoryHandleDesc,
        devPtr: *mut *mut u64,
        flags: u32,
    ) -> cudlaStatus;
    /// Imports an NvSciSync object (standalone mode); `flags` must be 0.
    pub fn cudlaImportExternalSemaphore(
        devHandle: cudlaDevHandle,
        desc: *const cudlaExternalSemaphoreHandleDesc,
        devPtr: *mut *mut u64,
        flags: u32,
    ) -> cudlaStatus;
    /// Fills an `NvSciSyncAttrList` (passed cast to `*mut u64`) for DLA wait and/or
    /// signal ([`cudlaNvSciSyncAttributes`]); sets `RequiredPerm` itself.
    pub fn cudlaGetNvSciSyncAttributes(attrList: *mut u64, flags: u32) -> cudlaStatus;
    /// Submits tasks; `stream` must be NULL in standalone mode.
    pub fn cudlaSubmitTask(
        devHandle: cudlaDevHandle,
        ptrToTasks: *const cudlaTask,
        numTasks: u32,
        stream: *mut c_void,
        flags: u32,
    ) -> cudlaStatus;
    /// Queries a device attribute.
    pub fn cudlaDeviceGetAttribute(
        devHandle: cudlaDevHandle,
        attrib: cudlaDevAttributeType,
        pAttribute: *mut cudlaDevAttribute,
    ) -> cudlaStatus;
    /// Asynchronous hardware error of the most recent task.
    pub fn cudlaGetLastError(devHandle: cudlaDevHandle) -> cudlaStatus;
    /// Sets the task timeout (1..=1_000_000 ms; default 30 s).
    ///
    /// Declared by `cudla.h` 1.5 and exported by its `libcudla.so.1` (`readelf`), but absent
    /// from the public 1.2.1 header: an older JetPack's libcudla may lack it. A binary that
    /// calls it and is linked with `-z now` (Rust's default full RELRO) then fails to load
    /// there, so resolve it at run time where that matters.
    pub fn cudlaSetTaskTimeoutInMs(devHandle: cudlaDevHandle, timeout: u32) -> cudlaStatus;
    /// The table of extra entry points (task-statistics translation); `flags` must be 0
    /// (`cudlaExternalEtbl.hpp`, cuDLA 1.5).
    pub fn cudlaGetExternalExportTable(
        exportTable: *mut *const cudlaExternalEtbl,
        flags: u32,
    ) -> cudlaStatus;
}

// ---------------------------------------------------------------------------------------
// Export table (`cudlaExternalEtbl.hpp`)
// ---------------------------------------------------------------------------------------

/// What `etiTranslateStats` returns (a C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cudlaTranslateAttributeType(pub u32);
/// The length of the CSV stream (`csvStreamLength`).
pub const CUDLA_GET_CSV_LENGTH: cudlaTranslateAttributeType = cudlaTranslateAttributeType(0);
/// The CSV stream, written to the caller's buffer at `csvStreamStats`.
pub const CUDLA_GET_CSV_STATS: cudlaTranslateAttributeType = cudlaTranslateAttributeType(1);

/// In/out value of the statistics translation (which member depends on the query).
#[repr(C)]
#[derive(Clone, Copy)]
pub union cudlaTranslateCsvAttribute {
    /// [`CUDLA_GET_CSV_LENGTH`]: the stream length, written by cuDLA.
    pub csvStreamLength: u64,
    /// [`CUDLA_GET_CSV_STATS`]: the caller's buffer of `csvStreamLength` bytes.
    pub csvStreamStats: *mut c_void,
}

/// The export table of [`cudlaGetExternalExportTable`] (C struct tag `cudlaExernalEtbl_t`,
/// spelled so in the header). Function pointers are `Option` so a NULL entry stays
/// representable.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaExternalEtbl {
    /// Translates a raw statistics buffer of the handle's (only) module into CSV (length
    /// query, then the stream).
    // Written out, not generated by a macro: the SDK checker reads these declarations as
    // the C header states them.
    pub etiTranslateStats: Option<
        unsafe extern "C" fn(
            devHandle: cudlaDevHandle,
            input: *mut u8,
            dlaFreqMHz: u32,
            idx: u32,
            csvAttrType: cudlaTranslateAttributeType,
            csvAttribute: *mut cudlaTranslateCsvAttribute,
        ) -> cudlaStatus,
    >,
    /// The same for a given module of the handle.
    pub etiTranslateStatsForMultiModule: Option<
        unsafe extern "C" fn(
            devHandle: cudlaDevHandle,
            hModule: cudlaModule,
            input: *mut u8,
            dlaFreqMHz: u32,
            idx: u32,
            csvAttrType: cudlaTranslateAttributeType,
            csvAttribute: *mut cudlaTranslateCsvAttribute,
        ) -> cudlaStatus,
    >,
}

// ---------------------------------------------------------------------------------------
// Layout (LP64; values computed in api-facts §4.3)
// ---------------------------------------------------------------------------------------

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<cudlaStatus>() == 4);
    assert!(size_of::<cudlaFenceType>() == 4);
    assert!(size_of::<cudlaScratchMemoryConfig>() == 4);
    assert!(size_of::<cudlaTranslateAttributeType>() == 4);

    assert!(size_of::<cudlaTranslateCsvAttribute>() == 8);
    assert!(align_of::<cudlaTranslateCsvAttribute>() == 8);
    assert!(offset_of!(cudlaTranslateCsvAttribute, csvStreamLength) == 0);
    assert!(offset_of!(cudlaTranslateCsvAttribute, csvStreamStats) == 0);

    assert!(size_of::<cudlaExternalEtbl>() == 16);
    assert!(align_of::<cudlaExternalEtbl>() == 8);
    assert!(offset_of!(cudlaExternalEtbl, etiTranslateStats) == 0);
    assert!(offset_of!(cudlaExternalEtbl, etiTranslateStatsForMultiModule) == 8);

    assert!(size_of::<cudlaExternalMemoryHandleDesc>() == 16);
    assert!(align_of::<cudlaExternalMemoryHandleDesc>() == 8);
    assert!(offset_of!(cudlaExternalMemoryHandleDesc, extBufObject) == 0);
    assert!(offset_of!(cudlaExternalMemoryHandleDesc, size) == 8);

    assert!(size_of::<cudlaExternalSemaphoreHandleDesc>() == 8);
    assert!(align_of::<cudlaExternalSemaphoreHandleDesc>() == 8);
    assert!(offset_of!(cudlaExternalSemaphoreHandleDesc, extSyncObject) == 0);

    assert!(size_of::<cudlaModuleTensorDescriptor>() == 168);
    assert!(align_of::<cudlaModuleTensorDescriptor>() == 8);
    assert!(offset_of!(cudlaModuleTensorDescriptor, name) == 0);
    assert!(offset_of!(cudlaModuleTensorDescriptor, size) == 88);
    assert!(offset_of!(cudlaModuleTensorDescriptor, n) == 96);
    assert!(offset_of!(cudlaModuleTensorDescriptor, c) == 104);
    assert!(offset_of!(cudlaModuleTensorDescriptor, h) == 112);
    assert!(offset_of!(cudlaModuleTensorDescriptor, w) == 120);
    assert!(offset_of!(cudlaModuleTensorDescriptor, dataFormat) == 128);
    assert!(offset_of!(cudlaModuleTensorDescriptor, dataType) == 129);
    assert!(offset_of!(cudlaModuleTensorDescriptor, dataCategory) == 130);
    assert!(offset_of!(cudlaModuleTensorDescriptor, pixelFormat) == 131);
    assert!(offset_of!(cudlaModuleTensorDescriptor, pixelMapping) == 132);
    assert!(offset_of!(cudlaModuleTensorDescriptor, stride) == 136);

    assert!(size_of::<cudlaModuleAttribute>() == 8);
    assert!(align_of::<cudlaModuleAttribute>() == 8);
    assert!(offset_of!(cudlaModuleAttribute, numInputTensors) == 0);
    assert!(offset_of!(cudlaModuleAttribute, numOutputTensors) == 0);
    assert!(offset_of!(cudlaModuleAttribute, inputTensorDesc) == 0);
    assert!(offset_of!(cudlaModuleAttribute, outputTensorDesc) == 0);

    assert!(size_of::<cudlaDevAttribute>() == 4);
    assert!(align_of::<cudlaDevAttribute>() == 4);
    assert!(offset_of!(cudlaDevAttribute, unifiedAddressingSupported) == 0);
    assert!(offset_of!(cudlaDevAttribute, deviceVersion) == 0);

    assert!(size_of::<CudlaFence>() == 16);
    assert!(align_of::<CudlaFence>() == 8);
    assert!(offset_of!(CudlaFence, fence) == 0);
    assert!(offset_of!(CudlaFence, r#type) == 8);

    assert!(size_of::<cudlaWaitEvents>() == 16);
    assert!(align_of::<cudlaWaitEvents>() == 8);
    assert!(offset_of!(cudlaWaitEvents, preFences) == 0);
    assert!(offset_of!(cudlaWaitEvents, numEvents) == 8);

    assert!(size_of::<cudlaSignalEvents>() == 24);
    assert!(align_of::<cudlaSignalEvents>() == 8);
    assert!(offset_of!(cudlaSignalEvents, devPtrs) == 0);
    assert!(offset_of!(cudlaSignalEvents, eofFences) == 8);
    assert!(offset_of!(cudlaSignalEvents, numEvents) == 16);

    assert!(size_of::<cudlaTask>() == 48);
    assert!(align_of::<cudlaTask>() == 8);
    assert!(offset_of!(cudlaTask, moduleHandle) == 0);
    assert!(offset_of!(cudlaTask, outputTensor) == 8);
    assert!(offset_of!(cudlaTask, numOutputTensors) == 16);
    assert!(offset_of!(cudlaTask, numInputTensors) == 20);
    assert!(offset_of!(cudlaTask, inputTensor) == 24);
    assert!(offset_of!(cudlaTask, waitEvents) == 32);
    assert!(offset_of!(cudlaTask, signalEvents) == 40);
};

/// Covers: REQ-FND-003
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names() {
        assert_eq!(cudlaSuccess.name(), Some("cudlaSuccess"));
        assert_eq!(
            cudlaStatus(0x4000_0006).name(),
            Some("cudlaErrorDlaErrEngineTimeout")
        );
        assert_eq!(cudlaErrorUnknown.0, 0x7fff_ffff);
        assert_eq!(cudlaStatus(-42).name(), None);
        assert!(cudlaErrorDlaErrNoMem.is_dla_hw_error());
        assert!(!cudlaErrorUnknown.is_dla_hw_error());
        assert!(cudlaSuccess.is_success());
        assert_eq!(
            cudlaErrorMemoryRegistered.ok(),
            Err(cudlaErrorMemoryRegistered)
        );
        for (i, a) in cudlaStatus::KNOWN.iter().enumerate() {
            assert!(a.name().is_some());
            for b in &cudlaStatus::KNOWN[i + 1..] {
                assert_ne!(a, b, "duplicate value");
            }
        }
    }

    #[test]
    fn version() {
        assert_eq!(
            cudla_version(
                CUDLA_VER_MAJOR as u64,
                CUDLA_VER_MINOR as u64,
                CUDLA_VER_PATCH as u64
            ),
            1_005_000
        );
    }

    #[test]
    fn header_1_5_values() {
        assert_eq!(cudlaErrorDriverNotFound.0, 15);
        assert_eq!(
            cudlaErrorDriverNotFound.name(),
            Some("cudlaErrorDriverNotFound")
        );
        assert_eq!(CUDLA_SCRATCH_MEMORY_SHARED_STATIC.0 | CUDLA_STANDALONE.0, 3);
        assert_eq!(CUDLA_TASK_STATISTICS.0, 2);
        assert_eq!(CUDLA_SUBMIT_DIAGNOSTICS_TASK.0, 4);
        assert_eq!(CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS.0, 1);
        assert_eq!((CUDLA_GET_CSV_LENGTH.0, CUDLA_GET_CSV_STATS.0), (0, 1));
        assert_eq!(CUDLA_PIXEL_FORMAT_Y16___V16U16_N444, 35);
        assert_eq!(CUDLA_PIXEL_FORMAT_A2B10G10R10, 20);
    }
}
