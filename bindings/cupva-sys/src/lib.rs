//! Hand-written FFI declarations for the cuPVA host C API (PVA SDK, headers
//! `cupva_host.h` / `cupva_host_types.h`, library `libcupva_host.so`), api-facts §7.
//!
//! Target: PVA SDK 2.8 (the C headers published as "program listings" in the 2.8.0/2.8.1
//! API reference, <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/>), checked against
//! the 2.7.1 and 2.10.1 references and the DRIVE OS 7.0.3 API reference
//! (<https://developer.nvidia.com/docs/drive/drive-os/7.0.3/public/drive-os-linux-sdk-api-ref/>).
//! Every name is the vendor's C name. C enums and the status code are
//! `#[repr(transparent)]` newtypes with one constant per enumerator, so the library may
//! return a value this crate does not know. The declarations are written by hand from the
//! documented names, values, signatures and layouts; no header text is copied.
//!
//! The docs label each call's allowed execution state. "Init" calls (creation, allocation,
//! import) belong before the runtime's `seal()`; "operational" calls (submit, fence wait,
//! status check, fence import/export) may run in the cyclic phase. Each function's doc says
//! which, from the page cited next to it.
//!
//! Declarations whose C form the public docs do not show completely are marked
//! **UNCONFIRMED** in their docs and in `bindings/README.md`; `check-against-sdk.sh` on a
//! real PVA SDK include directory settles them.
//!
//! Layouts are asserted at compile time for 64-bit (LP64) targets only.
//!
//! With feature `sil-ext`, module `sil` declares the SIL-only extension calls.
//!
//! ```
//! use cupva_sys::*;
//! assert_eq!(CUPVA_ERROR_NONE.ok(), Ok(()));
//! assert_eq!(CUPVA_COMMAND_EXECUTION_TIMEOUT.name(), Some("CUPVA_COMMAND_EXECUTION_TIMEOUT"));
//! assert_eq!(core::mem::size_of::<cupvaFence_t>(), 48);
//! ```
#![no_std]
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use core::ffi::{c_char, c_void};
use core::fmt;

use nvsci_sys::{NvSciBufAttrList, NvSciBufObj, NvSciSyncAttrList, NvSciSyncFence, NvSciSyncObj};

#[cfg(feature = "sil-ext")]
pub mod sil;

// ---------------------------------------------------------------------------------------
// Status
// ---------------------------------------------------------------------------------------

/// Status code of every cuPVA call (`cupvaError_t`, a C enum).
///
/// Values: `CUPVA_ERROR_NONE` = 0 and the following enumerators count up by one; the
/// PSFD/safety group starts at `0x10000`. Source: `cupva_host_types_detail.h` (2.8.1
/// program listing,
/// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_cupva_host_types_detail.h.html>)
/// and the DRIVE OS 7.0.3 group `CUPVA_Host_System_C`. 2.10 adds `CUPVA_INVALID_CONTEXT`
/// (structcupvaStatus__t page), whose value is not published: it is not declared and
/// shows up as an unknown code.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct cupvaError_t(pub u32);

// sdk-check: codes cupvaError_t
macro_rules! cupva_error_codes {
    ($($(#[$m:meta])* $name:ident = $val:expr;)*) => {
        $(
            $(#[$m])*
            #[doc = concat!("\n\n`", stringify!($name), "` = `", stringify!($val), "`.")]
            pub const $name: cupvaError_t = cupvaError_t($val);
        )*

        impl cupvaError_t {
            /// Every code this crate declares, in declaration order.
            pub const KNOWN: &'static [cupvaError_t] = &[$($name),*];

            /// The vendor name of this code (e.g. `"CUPVA_INVALID_ARGUMENT"`), or `None`
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

cupva_error_codes! {
    /// The call succeeded.
    CUPVA_ERROR_NONE = 0;
    /// The feature is not supported.
    CUPVA_UNSUPPORTED_FEATURE = 1;
    /// Internal error of the runtime.
    CUPVA_INTERNAL_ERROR = 2;
    /// The object or runtime is in the wrong state for this call.
    CUPVA_INVALID_STATE = 3;
    /// A parameter is invalid.
    CUPVA_INVALID_ARGUMENT = 4;
    /// An object was used before it was initialised.
    CUPVA_UNINITIALIZED_OBJECT = 5;
    /// The PVA driver returned an error.
    CUPVA_DRIVER_API_ERROR = 6;
    /// A command ran past its execution timeout.
    CUPVA_COMMAND_EXECUTION_TIMEOUT = 7;
    /// A submission did not get queue space within its submit timeout.
    CUPVA_COMMAND_SUBMISSION_TIMEOUT = 8;
    /// The engine is in a bad state.
    CUPVA_ENGINE_IN_BAD_STATE = 9;
    /// The fence status buffer failed.
    CUPVA_FENCE_STATUS_BUFFER_FAILURE = 10;
    /// The VPU application reported an error.
    CUPVA_VPU_APPLICATION_ERROR = 11;
    /// VPU divide by zero.
    CUPVA_VPU_DIVIDE_BY_ZERO = 12;
    /// VPU floating-point NaN.
    CUPVA_VPU_FLOATING_POINT_NAN = 13;
    /// VPU illegal instruction.
    CUPVA_VPU_ILLEGAL_INSTRUCTION = 14;
    /// The VPU halted.
    CUPVA_VPU_HALTED = 15;
    /// VPU debugging is not allowed.
    CUPVA_VPU_DEBUG_NOT_ALLOWED = 16;
    /// The VPU program was aborted.
    CUPVA_VPU_ABORTED = 17;
    /// The command is still executing ([`CupvaCheckCommandStatus`]).
    CUPVA_OPERATION_PENDING = 18;
    /// VPU buffer overflow.
    CUPVA_VPU_BUFFER_OVERFLOW = 19;
    /// Permanent-fault software diagnostic: check mismatch.
    CUPVA_PSFD_CHECK_MISMATCH = 0x0001_0000;
    /// Permanent-fault software diagnostic: timeout.
    CUPVA_PSFD_TIMEOUT = 0x0001_0001;
    /// An init-only call was made while the (DRIVE OS) system is operational.
    CUPVA_NOT_ALLOWED_IN_OPERATIONAL_STATE = 0x0001_0002;
    /// Incompatible versions.
    CUPVA_INCOMPATIBLE_VERSION = 0x0001_0003;
    /// CUDA interop is disabled.
    CUPVA_CUDA_DISABLED = 0x0001_0004;
    /// The PVA driver is too old for this runtime.
    CUPVA_INSUFFICIENT_DRIVER_VERSION = 0x0001_0005;
    /// One past the last code (not an error).
    CUPVA_ERROR_TYPE_MAX = 0x0001_0006;
}

impl cupvaError_t {
    /// `true` for [`CUPVA_ERROR_NONE`].
    #[inline]
    pub const fn is_success(self) -> bool {
        self.0 == CUPVA_ERROR_NONE.0
    }

    /// `Ok(())` for success, `Err(self)` otherwise.
    #[inline]
    pub const fn ok(self) -> Result<(), cupvaError_t> {
        if self.is_success() { Ok(()) } else { Err(self) }
    }

    /// `true` for the errors the VPU program itself raised (`CUPVA_VPU_*`).
    #[inline]
    pub const fn is_vpu_error(self) -> bool {
        (self.0 >= CUPVA_VPU_APPLICATION_ERROR.0 && self.0 <= CUPVA_VPU_ABORTED.0)
            || self.0 == CUPVA_VPU_BUFFER_OVERFLOW.0
    }
}

impl fmt::Debug for cupvaError_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n}({:#x})", self.0),
            None => write!(f, "cupvaError_t({:#x})", self.0),
        }
    }
}

impl fmt::Display for cupvaError_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "unknown cupvaError_t {:#x}", self.0),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Enums (cupva_host_types_scheduling.h, cupva_host_mem_alloc.h, sync group)
// ---------------------------------------------------------------------------------------

/// Order of the commands of one [`CupvaStreamSubmit`] call (`cupvaOrderType_t`).
/// Source: 2.7.1 listing of `cupva_host_types_scheduling.h`; DRIVE OS 7.0.3
/// `CUPVA_Stream_C`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaOrderType_t(pub u32);
/// Invalid.
pub const CUPVA_ORDER_TYPE_INVALID: cupvaOrderType_t = cupvaOrderType_t(0);
/// Commands start in submission order.
pub const CUPVA_IN_ORDER: cupvaOrderType_t = cupvaOrderType_t(1);
/// Commands may start in any order.
pub const CUPVA_OUT_OF_ORDER: cupvaOrderType_t = cupvaOrderType_t(2);
/// One past the last value.
pub const CUPVA_ORDER_TYPE_MAX: cupvaOrderType_t = cupvaOrderType_t(3);

/// PVA hardware generation (`cupvaGenType_t`; Orin is GEN2). Source: 2.7.1 listing
/// of `cupva_host_types_scheduling.h`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaGenType_t(pub u32);
/// Invalid.
pub const CUPVA_GEN_TYPE_INVALID: cupvaGenType_t = cupvaGenType_t(0);
/// Generation 1.
pub const CUPVA_GEN1: cupvaGenType_t = cupvaGenType_t(1);
/// Generation 2 (Orin).
pub const CUPVA_GEN2: cupvaGenType_t = cupvaGenType_t(2);
/// Generation 3.
pub const CUPVA_GEN3: cupvaGenType_t = cupvaGenType_t(3);
/// One past the last value.
pub const CUPVA_GEN_TYPE_MAX: cupvaGenType_t = cupvaGenType_t(4);

/// PVA instance of a stream (`cupvaEngineType_t`). Source: DRIVE OS 7.0.3
/// `CUPVA_Stream_C`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaEngineType_t(pub u32);
/// Invalid.
pub const CUPVA_ENGINE_TYPE_INVALID: cupvaEngineType_t = cupvaEngineType_t(0);
/// PVA instance 0.
pub const CUPVA_PVA0: cupvaEngineType_t = cupvaEngineType_t(1);
/// PVA instance 1.
pub const CUPVA_PVA1: cupvaEngineType_t = cupvaEngineType_t(2);
/// One past the last value.
pub const CUPVA_ENGINE_TYPE_MAX: cupvaEngineType_t = cupvaEngineType_t(3);

/// VPU affinity of a stream (`cupvaAffinityType_t`). Source: DRIVE OS 7.0.3
/// `CUPVA_Stream_C`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaAffinityType_t(pub u32);
/// Invalid.
pub const CUPVA_AFFINITY_TYPE_INVALID: cupvaAffinityType_t = cupvaAffinityType_t(0);
/// VPU 0 of the instance.
pub const CUPVA_VPU0: cupvaAffinityType_t = cupvaAffinityType_t(1);
/// VPU 1 of the instance.
pub const CUPVA_VPU1: cupvaAffinityType_t = cupvaAffinityType_t(2);
/// Either VPU.
pub const CUPVA_VPU_ANY: cupvaAffinityType_t = cupvaAffinityType_t(3);
/// One past the last value.
pub const CUPVA_AFFINITY_TYPE_MAX: cupvaAffinityType_t = cupvaAffinityType_t(4);

/// Role of a sync object (`cupvaSyncClientType_t`). Source: DRIVE OS 7.0.3
/// `CUPVA_Synchronization_C`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaSyncClientType_t(pub u32);
/// Invalid.
pub const CUPVA_SYNC_CLIENT_TYPE_INVALID: cupvaSyncClientType_t = cupvaSyncClientType_t(0);
/// The PVA signals.
pub const CUPVA_SIGNALER: cupvaSyncClientType_t = cupvaSyncClientType_t(1);
/// The PVA waits.
pub const CUPVA_WAITER: cupvaSyncClientType_t = cupvaSyncClientType_t(2);
/// The PVA signals and waits.
pub const CUPVA_SIGNALER_WAITER: cupvaSyncClientType_t = cupvaSyncClientType_t(3);
/// One past the last value.
pub const CUPVA_SYNC_CLIENT_TYPE_MAX: cupvaSyncClientType_t = cupvaSyncClientType_t(4);

/// How a CPU wait on a fence of the sync object waits (`cupvaSyncWaitMode_t`).
/// Source: DRIVE OS 7.0.3 `CUPVA_Synchronization_C`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaSyncWaitMode_t(pub u32);
/// Invalid.
pub const CUPVA_SYNC_WAIT_MODE_INVALID: cupvaSyncWaitMode_t = cupvaSyncWaitMode_t(0);
/// Yield the CPU while waiting.
pub const CUPVA_SYNC_YIELD: cupvaSyncWaitMode_t = cupvaSyncWaitMode_t(1);
/// Spin while waiting.
pub const CUPVA_SYNC_SPIN: cupvaSyncWaitMode_t = cupvaSyncWaitMode_t(2);
/// One past the last value.
pub const CUPVA_SYNC_WAIT_MODE_MAX: cupvaSyncWaitMode_t = cupvaSyncWaitMode_t(3);

/// PVA access to a buffer (`cupvaMemAccessType_t`). Source: 2.9.0 listing of
/// `cupva_host_mem_alloc.h`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaMemAccessType_t(pub u32);
/// Invalid.
pub const CUPVA_MEM_ACCESS_TYPE_INVALID: cupvaMemAccessType_t = cupvaMemAccessType_t(0);
/// Read only.
pub const CUPVA_READ: cupvaMemAccessType_t = cupvaMemAccessType_t(1);
/// Write only.
pub const CUPVA_WRITE: cupvaMemAccessType_t = cupvaMemAccessType_t(2);
/// Read and write.
pub const CUPVA_READ_WRITE: cupvaMemAccessType_t = cupvaMemAccessType_t(3);
/// One past the last value.
pub const CUPVA_MEM_ACCESS_TYPE_MAX: cupvaMemAccessType_t = cupvaMemAccessType_t(4);

/// Memory kind of [`CupvaMemAlloc`] (`cupvaMemAllocType_t`). Source: 2.9.0 listing of
/// `cupva_host_mem_alloc.h`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaMemAllocType_t(pub u32);
/// Invalid.
pub const CUPVA_MEM_ALLOC_TYPE_INVALID: cupvaMemAllocType_t = cupvaMemAllocType_t(0);
/// System DRAM.
pub const CUPVA_ALLOC_DRAM: cupvaMemAllocType_t = cupvaMemAllocType_t(1);
/// CVSRAM (falls back to DRAM; "not available in this release", 2.8.1).
pub const CUPVA_ALLOC_CVSRAM: cupvaMemAllocType_t = cupvaMemAllocType_t(2);
/// One past the last value.
pub const CUPVA_MEM_ALLOC_TYPE_MAX: cupvaMemAllocType_t = cupvaMemAllocType_t(3);

// sdk-check: subset
/// Kind of a dataflow added to a program (`cupvaDataFlowType_t`, a C enum).
///
/// **UNCONFIRMED** values: the public pages give the type in the signature of
/// [`CupvaCmdProgramAddDataFlow`] but not its enumerators, so none is declared; take the
/// value from the SDK header.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct cupvaDataFlowType_t(pub u32);

// ---------------------------------------------------------------------------------------
// Handles and by-value structs (cupva_host_types.h)
// ---------------------------------------------------------------------------------------

/// Opaque record behind [`cupvaContext_t`].
#[repr(C)]
pub struct cupvaContextRec {
    _opaque: [u8; 0],
}
/// A cuPVA context (holds the resources of the other calls).
pub type cupvaContext_t = *mut cupvaContextRec;
/// Opaque record behind [`cupvaCmdBuffer_t`].
#[repr(C)]
pub struct cupvaCmdBufferRec {
    _opaque: [u8; 0],
}
/// A pre-built list of commands.
pub type cupvaCmdBuffer_t = *mut cupvaCmdBufferRec;
/// Opaque record behind [`cupvaExecutable_t`].
#[repr(C)]
pub struct cupvaExecutableRec {
    _opaque: [u8; 0],
}
/// A loaded VPU executable ([`CupvaExecutableCreate`]).
pub type cupvaExecutable_t = *mut cupvaExecutableRec;
/// Opaque record behind [`cupvaStream_t`].
#[repr(C)]
pub struct cupvaStreamRec {
    _opaque: [u8; 0],
}
/// A submission queue on one PVA instance and VPU affinity ([`CupvaStreamCreate`]).
pub type cupvaStream_t = *mut cupvaStreamRec;
/// Opaque record behind [`cupvaDataFlow_t`].
#[repr(C)]
pub struct cupvaDataFlowRec {
    _opaque: [u8; 0],
}
/// A DMA dataflow of a program.
pub type cupvaDataFlow_t = *mut cupvaDataFlowRec;
/// Opaque record behind [`cupvaSyncObj_t`].
#[repr(C)]
pub struct cupvaSyncObjRec {
    _opaque: [u8; 0],
}
/// A synchronisation object that fences are taken from ([`CupvaSyncObjCreate`]).
pub type cupvaSyncObj_t = *mut cupvaSyncObjRec;
/// Opaque record behind [`cupvaCmdStatus_t`].
#[repr(C)]
pub struct cupvaCmdStatusRec {
    _opaque: [u8; 0],
}
/// The completion status of a submitted command ([`CupvaStreamSubmit`],
/// [`CupvaCheckCommandStatus`]).
pub type cupvaCmdStatus_t = *mut cupvaCmdStatusRec;

/// A fence: storage the caller provides, filled by [`CupvaFenceInit`] and a
/// request-fences command, or by [`CupvaFenceImport`].
///
/// Layout: six `uint64_t` words (48 bytes, 8-aligned), from the `cupva_host_types.h`
/// program listing of PVA SDK 2.8.0
/// (<https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_cupva_host_types.h.html>).
/// The 2.10.1 and DRIVE OS 7.0.3 pages name the struct without fields: the layout for
/// those releases is **UNCONFIRMED** (the SDK check compares it).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct cupvaFence_t {
    /// Opaque words.
    pub data: [u64; 6],
}

/// A handle to a named symbol (parameter) of a program, filled by
/// [`CupvaCmdProgramGetParameter`]. Layout: two `uint64_t` words (16 bytes), 2.8.0
/// `cupva_host_types.h` listing.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct cupvaParameter_t {
    /// Opaque words.
    pub data: [u64; 2],
}

/// A command (program, barrier, fence request or wait, ...): storage the caller provides,
/// filled by the `...Init`/`...Create` calls and released by [`CupvaCmdDestroy`].
/// Layout: three `uint64_t` words (24 bytes), 2.8.0 `cupva_host_types.h` listing.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct cupvaCmd_t {
    /// Opaque words.
    pub data: [u64; 3],
}

/// An offset pointer (device pointer plus offset, used by dataflow parameters).
/// Layout: four `uint64_t` words (32 bytes), 2.8.0 `cupva_host_types.h` listing.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct cupvaOffsetPointer_t {
    /// Opaque words.
    pub data: [u64; 4],
}

// ---------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------

unsafe extern "C" {
    // ---- System (group CUPVA_Host_System_C) ------------------------------------------

    /// Writes the PVA driver version to `*driverVersion`.
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__System__C.html>
    pub fn CupvaGetDriverVersion(driverVersion: *mut u32) -> cupvaError_t;

    /// Writes the cuPVA runtime library version to `*runtimeVersion`.
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__System__C.html>
    pub fn CupvaGetRuntimeVersion(runtimeVersion: *mut u32) -> cupvaError_t;

    /// Returns the last error of the calling thread and points `*errorMsg` at its message
    /// (owned by the runtime).
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__System__C.html>
    pub fn CupvaGetLastError(errorMsg: *mut *const c_char) -> cupvaError_t;

    // ---- Executables and programs (group CUPVA_Program_C / CUPVA_Resource_C) ---------

    /// Init-time: loads a pre-built VPU executable image (`data`, `size` bytes) into
    /// `*exec`. With PVA authentication on, an image that is not in the allowlist is
    /// refused. The image is copied; `data` may be freed afterwards.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_workloads_cupva_host_executable.h.html>
    pub fn CupvaExecutableCreate(
        exec: *mut cupvaExecutable_t,
        data: *const c_void,
        size: i32,
    ) -> cupvaError_t;

    /// Init/deinit: destroys an executable; every program made from it must be destroyed
    /// first.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_workloads_cupva_host_executable.h.html>
    pub fn CupvaExecutableDestroy(exec: cupvaExecutable_t) -> cupvaError_t;

    /// Init-time: creates a program command (`*cmdProg`) that runs `exec` on a VPU.
    /// Release it with [`CupvaCmdDestroy`].
    /// <https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/group__CUPVA__Program__C.html>
    pub fn CupvaCmdProgramCreate(cmdProg: *mut cupvaCmd_t, exec: cupvaExecutable_t)
    -> cupvaError_t;

    /// Init-time: adds dataflow `*df` of kind `dfType` to program `prog`.
    /// <https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/group__CUPVA__Program__C.html>
    pub fn CupvaCmdProgramAddDataFlow(
        prog: *mut cupvaCmd_t,
        df: *mut cupvaDataFlow_t,
        dfType: cupvaDataFlowType_t,
    ) -> cupvaError_t;

    /// Init-time: compiles the dataflows of a program (after all are added, before the
    /// first submit).
    /// <https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/group__CUPVA__Program__C.html>
    pub fn CupvaCmdProgramCompileDataFlows(cmdProg: *mut cupvaCmd_t) -> cupvaError_t;

    /// Fills `*parameter` with the handle of the VPU symbol `paramName` (NUL-terminated,
    /// at most 64 bytes per the C++ `MAX_SYMBOL_LENGTH`) of program `cmdProg`; the program
    /// must outlive the handle.
    ///
    /// **UNCONFIRMED** C signature: the C++ equivalent is `CmdProgram::operator[]`
    /// (<https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/classcupva_1_1Parameter.html>);
    /// the public pages cut the C group listing before this call.
    pub fn CupvaCmdProgramGetParameter(
        cmdProg: *mut cupvaCmd_t,
        parameter: *mut cupvaParameter_t,
        paramName: *const c_char,
    ) -> cupvaError_t;

    /// Sets a parameter to `size` bytes at `value`, copied now and written to VMEM when
    /// the program launches (adds to the launch overhead; use DMA for large data).
    ///
    /// **UNCONFIRMED** C signature (C++ `Parameter::set`,
    /// <https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/classcupva_1_1Parameter.html>).
    pub fn CupvaParameterSetValueScalar(
        parameter: *mut cupvaParameter_t,
        value: *const c_void,
        size: i32,
    ) -> cupvaError_t;

    /// Sets a pointer parameter to the device pointer `value` (the VPU sees its IOVA).
    ///
    /// **UNCONFIRMED** C signature (C++ `Parameter::operator=` with a pointer,
    /// <https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/classcupva_1_1Parameter.html>).
    pub fn CupvaParameterSetValuePointer(
        parameter: *mut cupvaParameter_t,
        value: *const c_void,
    ) -> cupvaError_t;

    // ---- Memory (group CUPVA_Resource_C, cupva_host_mem_alloc.h) ---------------------

    /// Init-time (not allowed in the DRIVE OS operational state): allocates `size` bytes
    /// the PVA can reach and writes the device pointer to `*ptr` (not dereferenceable on
    /// the CPU; see [`CupvaMemGetHostPointer`]). Argument order as NVIDIA's DriveWorks
    /// sample uses it; the 2.10.1 C++ page says access must be `CUPVA_READ_WRITE`.
    /// <https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/function_group__CUPVA__Resource_1ga9a7d5635a661e066557aa40cd849f18b.html>
    pub fn CupvaMemAlloc(
        ptr: *mut *mut c_void,
        size: i64,
        accessType: cupvaMemAccessType_t,
        allocType: cupvaMemAllocType_t,
    ) -> cupvaError_t;

    /// Deinit: frees memory from [`CupvaMemAlloc`] or an import.
    ///
    /// **UNCONFIRMED** C signature (C++ `cupva::mem::Free(void *devicePtr)`,
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/namespace_cupva__mem.html>).
    pub fn CupvaMemFree(devicePtr: *mut c_void) -> cupvaError_t;

    /// Init-time: writes the CPU mapping of device pointer `devicePtr` to `*hostPtr`
    /// (always available for [`CupvaMemAlloc`] memory; for NvSciBuf imports deprecated,
    /// map through NvSciBuf instead).
    /// <https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/function_group__CUPVA__Resource_1ga38cfbf226db0e9d0b95d72772944bd2d.html>
    pub fn CupvaMemGetHostPointer(
        hostPtr: *mut *mut c_void,
        devicePtr: *mut c_void,
    ) -> cupvaError_t;

    // ---- Streams and commands (group CUPVA_Stream_C) ---------------------------------

    /// Init-time: creates a stream on PVA instance `absEngine` with VPU affinity
    /// `vpuAffinity`.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_stream.h.html>
    pub fn CupvaStreamCreate(
        stream: *mut cupvaStream_t,
        absEngine: cupvaEngineType_t,
        vpuAffinity: cupvaAffinityType_t,
    ) -> cupvaError_t;

    /// Deinit: destroys a stream.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_stream.h.html>
    pub fn CupvaStreamDestroy(stream: cupvaStream_t) -> cupvaError_t;

    /// Operational: submits `count` commands (`command[i]`, at most 256 per call) in
    /// `order`. `status` is NULL or an array of `count` status handles to poll with
    /// [`CupvaCheckCommandStatus`]. `executionTimeout` bounds each command's run and
    /// `submitTimeout` the wait for queue space, both in milliseconds, `-1` for none.
    /// The first task after start-up may hit a power-up delay: submit one fence request
    /// and wait on it at init to avoid `CUPVA_COMMAND_SUBMISSION_TIMEOUT`.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_stream.h.html>,
    /// <https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/classcupva_1_1Stream.html>
    pub fn CupvaStreamSubmit(
        stream: cupvaStream_t,
        command: *const *const cupvaCmd_t,
        status: *mut cupvaCmdStatus_t,
        count: i32,
        order: cupvaOrderType_t,
        executionTimeout: i32,
        submitTimeout: i32,
    ) -> cupvaError_t;

    /// Operational: writes the completion state of a submitted command to `*errorCode`:
    /// `CUPVA_ERROR_NONE` done, `CUPVA_OPERATION_PENDING` still running, another code for
    /// the failure it reported (e.g. `CUPVA_COMMAND_EXECUTION_TIMEOUT`, `CUPVA_VPU_*`).
    /// The return value is the call's own status.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_cmd.h.html>,
    /// <https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/function_group__CUPVA__Stream_1gaa7f5135a9f9e5ad344b2287922051cc5.html>
    pub fn CupvaCheckCommandStatus(
        status: cupvaCmdStatus_t,
        errorCode: *mut cupvaError_t,
    ) -> cupvaError_t;

    /// Deinit: releases a command's resources.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_cmd.h.html>
    pub fn CupvaCmdDestroy(command: *mut cupvaCmd_t) -> cupvaError_t;

    /// Init-time: makes `*cmdBarrier` a barrier command (later commands of the stream
    /// start after the earlier ones finish).
    /// <https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_cmd_barrier.h.html>
    pub fn CupvaCmdBarrierInit(cmdBarrier: *mut cupvaCmd_t) -> cupvaError_t;

    /// Init-time: makes `*command` a request for `count` fences (at most 4, C++
    /// `MAX_CMD_REQUEST_FENCES_ARRAY_SIZE`); each `fence[i]` (initialised with
    /// [`CupvaFenceInit`]) is filled at submit and signalled when the earlier commands
    /// finish.
    /// <https://docs.nvidia.com/pva/sdk/2.8.0/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_cmd_request_fences.h.html>
    pub fn CupvaCmdRequestFencesInit(
        command: *mut cupvaCmd_t,
        fence: *mut cupvaFence_t,
        count: i32,
    ) -> cupvaError_t;

    /// Init-time: makes `*command` wait on `count` fences (at most 8, C++
    /// `MAX_CMD_WAIT_ON_FENCES_ARRAY_SIZE`) before the stream goes on.
    /// <https://developer.nvidia.com/docs/drive/drive-os/7.0.3/public/drive-os-linux-sdk-api-ref/group__CUPVA__Synchronization__C.html>
    pub fn CupvaCmdWaitOnFencesInit(
        command: *mut cupvaCmd_t,
        fence: *const cupvaFence_t,
        count: i32,
    ) -> cupvaError_t;

    // ---- Synchronisation (group CUPVA_Synchronization_C) -----------------------------

    /// Init-time: creates an empty sync object; `isTimeStamp` enables fence timestamps.
    /// <https://developer.nvidia.com/docs/drive/drive-os/7.0.3/public/drive-os-linux-sdk-api-ref/group__CUPVA__Synchronization__C.html>
    pub fn CupvaSyncObjCreate(
        syncObj: *mut cupvaSyncObj_t,
        isTimeStamp: bool,
        clientType: cupvaSyncClientType_t,
        waitMode: cupvaSyncWaitMode_t,
    ) -> cupvaError_t;

    /// Deinit: destroys a sync object.
    /// <https://developer.nvidia.com/docs/drive/drive-os/7.0.3/public/drive-os-linux-sdk-api-ref/group__CUPVA__Synchronization__C.html>
    pub fn CupvaSyncObjDestroy(syncObj: cupvaSyncObj_t) -> cupvaError_t;

    /// Initialises `*fence` to take its values from `syncObj`.
    /// <https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_fence.h.html>
    pub fn CupvaFenceInit(fence: *mut cupvaFence_t, syncObj: cupvaSyncObj_t) -> cupvaError_t;

    /// Operational: writes the time the fence was signalled (ns) to `*timeStamp`; the
    /// sync object must have been created with timestamps.
    /// <https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_fence.h.html>
    pub fn CupvaFenceGetTimeStamp(fence: *const cupvaFence_t, timeStamp: *mut u64) -> cupvaError_t;

    /// Operational: waits on the CPU up to `timeout` (µs, `-1` forever) for the fence;
    /// `*waitSuccess` is `false` when the time ran out.
    /// <https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/program_listing_file_src_host_c_api_include_detail_scheduling_cupva_host_fence.h.html>
    pub fn CupvaFenceWait(
        fence: *const cupvaFence_t,
        timeout: i64,
        waitSuccess: *mut bool,
    ) -> cupvaError_t;

    // ---- NvSci interop (group CUPVA_Host_NvSci_Interop_C, cupva_host_nvsci.h) --------

    /// Init-time: adds the PVA's attributes to an NvSciBuf attribute list (before
    /// reconciliation).
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__NvSci__Interop__C.html>
    pub fn CupvaMemFillAttributes(sciBufAttr: NvSciBufAttrList) -> cupvaError_t;

    /// Init-time: maps an NvSciBuf object for the PVA and writes the device pointer to
    /// `*pvaPtr` (free with [`CupvaMemFree`]).
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__NvSci__Interop__C.html>
    pub fn CupvaMemImport(
        pvaPtr: *mut *mut c_void,
        buff: NvSciBufObj,
        accessType: cupvaMemAccessType_t,
    ) -> cupvaError_t;

    /// Operational: fills `*fence` from an NvSciSync fence (its sync object must have
    /// been imported with [`CupvaSyncObjCreateFromNvsci`]).
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__NvSci__Interop__C.html>
    pub fn CupvaFenceImport(
        fence: *mut cupvaFence_t,
        sciFence: *const NvSciSyncFence,
    ) -> cupvaError_t;

    /// Operational: fills `*sciFence` from a cuPVA fence whose sync object came from
    /// NvSci and which a request-fences command has filled.
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__NvSci__Interop__C.html>
    pub fn CupvaFenceExport(
        fence: *const cupvaFence_t,
        sciFence: *mut NvSciSyncFence,
    ) -> cupvaError_t;

    /// Init-time: wraps an NvSciSync object as a cuPVA sync object with role
    /// `clientType`.
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__NvSci__Interop__C.html>
    pub fn CupvaSyncObjCreateFromNvsci(
        syncObj: *mut cupvaSyncObj_t,
        sciSyncobj: NvSciSyncObj,
        clientType: cupvaSyncClientType_t,
    ) -> cupvaError_t;

    /// Init-time: adds the PVA's attributes for role `clientType` to the NvSciSync
    /// attribute list `*attrList` (the C API takes a pointer to the list; the 2.7.1 C++
    /// API takes the list itself).
    /// <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__NvSci__Interop__C.html>
    pub fn CupvaSyncObjFillAttributes(
        attrList: *mut NvSciSyncAttrList,
        clientType: cupvaSyncClientType_t,
    ) -> cupvaError_t;
}

// ---------------------------------------------------------------------------------------
// Layout asserts (LP64; values from the 2.8.0 cupva_host_types.h listing)
// ---------------------------------------------------------------------------------------

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<cupvaError_t>() == 4);
    assert!(size_of::<cupvaOrderType_t>() == 4);
    assert!(size_of::<cupvaEngineType_t>() == 4);
    assert!(size_of::<cupvaAffinityType_t>() == 4);

    assert!(size_of::<cupvaFence_t>() == 48);
    assert!(align_of::<cupvaFence_t>() == 8);
    assert!(offset_of!(cupvaFence_t, data) == 0);

    assert!(size_of::<cupvaParameter_t>() == 16);
    assert!(align_of::<cupvaParameter_t>() == 8);
    assert!(offset_of!(cupvaParameter_t, data) == 0);

    assert!(size_of::<cupvaCmd_t>() == 24);
    assert!(align_of::<cupvaCmd_t>() == 8);
    assert!(offset_of!(cupvaCmd_t, data) == 0);

    assert!(size_of::<cupvaOffsetPointer_t>() == 32);
    assert!(align_of::<cupvaOffsetPointer_t>() == 8);
    assert!(offset_of!(cupvaOffsetPointer_t, data) == 0);
};
