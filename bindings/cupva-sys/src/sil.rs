//! SIL-only extension calls of the cuPVA twin (`sil/cupva`); only the SIL library defines
//! them. Stubs, the link test and the SDK check ignore this module. See `sil/README.md`
//! ("cuPVA").

use core::ffi::{c_char, c_void};

use crate::{cupvaAffinityType_t, cupvaEngineType_t, cupvaError_t, cupvaStream_t};

/// [`CupvaSilTimingModel::kind`]: a fixed time, `minNs`.
pub const CUPVA_SIL_TIMING_FIXED: u32 = 0;
/// [`CupvaSilTimingModel::kind`]: uniform in `[minNs, maxNs]`.
pub const CUPVA_SIL_TIMING_UNIFORM: u32 = 1;
/// [`CupvaSilTimingModel::kind`]: histogram (`numBins`, `binUpperNs`, `binWeights`).
pub const CUPVA_SIL_TIMING_HISTOGRAM: u32 = 2;

/// [`CupvaSilFault::kind`]: the program never ends by itself; the submit's execution
/// timeout ends it (`CUPVA_COMMAND_EXECUTION_TIMEOUT`), or the stream's destruction.
pub const CUPVA_SIL_FAULT_HANG: u32 = 1;
/// [`CupvaSilFault::kind`]: the program is late by `extraDelayNs`.
pub const CUPVA_SIL_FAULT_LATE: u32 = 2;
/// [`CupvaSilFault::kind`]: the program's command status reports `status` (a
/// `cupvaError_t` value other than `CUPVA_ERROR_NONE`).
pub const CUPVA_SIL_FAULT_ERROR: u32 = 3;
/// [`CupvaSilFault::kind`]: after the program ran, the bytes it wrote are flipped (a Rust
/// model: every range it borrowed for writing; a C model: from its last pointer argument to
/// the end of that buffer).
pub const CUPVA_SIL_FAULT_CORRUPT_OUTPUT: u32 = 4;

/// Parameter kinds of a C program model ([`CupvaSilProgramRun::kinds`], and the `kinds` of
/// [`CupvaSilRegisterProgramModel`]): the order of `orin_exec_kernel_model::ParamKind`.
/// A PVA pointer (in the SIL, the host address of PVA memory).
pub const CUPVA_SIL_PARAM_PTR: u32 = 0;
/// `uint32_t`.
pub const CUPVA_SIL_PARAM_U32: u32 = 1;
/// `int32_t`.
pub const CUPVA_SIL_PARAM_I32: u32 = 2;
/// `uint64_t`.
pub const CUPVA_SIL_PARAM_U64: u32 = 3;
/// `float` (its bits in the low 32 bits of the value).
pub const CUPVA_SIL_PARAM_F32: u32 = 4;

/// Execution-time model of a SIL VPU (48 bytes, the layout of `cudlaSilTimingModel`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CupvaSilTimingModel {
    /// `CUPVA_SIL_TIMING_*`.
    pub kind: u32,
    /// Histogram: number of bins (at most 32).
    pub numBins: u32,
    /// Fixed: the time; uniform: lower bound; histogram: lower edge of bin 0.
    pub minNs: u64,
    /// Uniform: upper bound.
    pub maxNs: u64,
    /// Histogram: upper edge of each bin.
    pub binUpperNs: *const u64,
    /// Histogram: relative weight of each bin.
    pub binWeights: *const u32,
    /// RNG seed; the same seed gives the same sequence.
    pub seed: u64,
}

/// A fault to inject into a SIL stream (32 bytes, the layout of `cudlaSilFault`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CupvaSilFault {
    /// `CUPVA_SIL_FAULT_*`.
    pub kind: u32,
    /// [`CUPVA_SIL_FAULT_ERROR`]: the `cupvaError_t` value the command status reports.
    pub status: u32,
    /// Apply to the program submitted after this many more programs (0 = the next).
    pub skipPrograms: u64,
    /// Number of consecutive programs affected (0 = all from then on).
    pub count: u64,
    /// [`CUPVA_SIL_FAULT_LATE`]: extra delay.
    pub extraDelayNs: u64,
}

/// One program run as a C model sees it (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CupvaSilProgramRun {
    /// Number of arguments (the model's parameters).
    pub numArgs: u32,
    /// `CUPVA_SIL_PARAM_*` of each argument.
    pub kinds: *const u32,
    /// Each argument's value, zero-extended to 64 bits (pointers: host addresses).
    pub values: *const u64,
    /// SIL clock at program start (ns).
    pub nowNs: u64,
}

/// A C program model: runs one program with the user pointer given at registration; 0 on
/// success, anything else fails the command with `CUPVA_VPU_APPLICATION_ERROR`.
pub type CupvaSilProgramModelFn =
    Option<unsafe extern "C" fn(user: *mut c_void, run: *const CupvaSilProgramRun) -> i32>;

unsafe extern "C" {
    /// Adds the VPU ELF image with this SHA-256 (32 bytes) to the allowlist (PVA
    /// authentication is on in the SIL: `CupvaExecutableCreate` refuses unlisted images).
    pub fn CupvaSilAllowProgram(elfSha256: *const u8) -> cupvaError_t;
    /// Registers a C model for program `name`, bound to `numHashes` ELF SHA-256 values,
    /// with `numParams` (at most 16) parameter names and `CUPVA_SIL_PARAM_*` kinds.
    pub fn CupvaSilRegisterProgramModel(
        name: *const c_char,
        elfSha256: *const [u8; 32],
        numHashes: u32,
        paramNames: *const *const c_char,
        kinds: *const u32,
        numParams: u32,
        model: CupvaSilProgramModelFn,
        user: *mut c_void,
    ) -> cupvaError_t;
    /// Sets the timing model of VPU `vpu` (`CUPVA_VPU0` or `CUPVA_VPU1`) of PVA `engine`.
    pub fn CupvaSilSetTimingModel(
        engine: cupvaEngineType_t,
        vpu: cupvaAffinityType_t,
        model: *const CupvaSilTimingModel,
    ) -> cupvaError_t;
    /// Queues a fault on a stream (at most 8 live rules).
    pub fn CupvaSilInjectFault(stream: cupvaStream_t, fault: *const CupvaSilFault) -> cupvaError_t;
    /// Removes every queued fault of a stream.
    pub fn CupvaSilClearFaults(stream: cupvaStream_t) -> cupvaError_t;
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{offset_of, size_of};

    assert!(size_of::<CupvaSilTimingModel>() == 48);
    assert!(offset_of!(CupvaSilTimingModel, minNs) == 8);
    assert!(offset_of!(CupvaSilTimingModel, binUpperNs) == 24);
    assert!(offset_of!(CupvaSilTimingModel, seed) == 40);
    assert!(size_of::<CupvaSilFault>() == 32);
    assert!(offset_of!(CupvaSilFault, skipPrograms) == 8);
    assert!(offset_of!(CupvaSilFault, extraDelayNs) == 24);
    assert!(size_of::<CupvaSilProgramRun>() == 32);
    assert!(offset_of!(CupvaSilProgramRun, kinds) == 8);
    assert!(offset_of!(CupvaSilProgramRun, values) == 16);
    assert!(offset_of!(CupvaSilProgramRun, nowNs) == 24);
};
