//! SIL-only extension calls and structs (feature `sil-ext`), as specified in
//! `docs/architecture.md` ("SIL extension calls"). Only `sil-cuda` defines these
//! symbols; the link stubs and `check-against-sdk.sh` ignore this module.

use core::ffi::{c_char, c_int, c_uint, c_void};

use crate::{CUfunction, CUmodule, CUresult};

/// Execution-time model of a SIL kernel: the same layout and meaning as cuDLA's
/// `cudlaSilTimingModel` (48 bytes; `kind` 0 fixed, 1 uniform, 2 histogram).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cuSilTimingModel {
    /// 0 fixed (`minNs`), 1 uniform (`[minNs, maxNs]`), 2 histogram.
    pub kind: u32,
    /// Histogram: number of bins.
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

/// The kind of one kernel parameter of a C kernel model (a C enum, 4 bytes); the value is the
/// index of the kind in `orin_exec_kernel_model::ParamKind::ALL`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct cuSilParamKind(pub c_uint);
/// A device pointer (8 bytes).
pub const CU_SIL_PARAM_PTR: cuSilParamKind = cuSilParamKind(0);
/// `uint32_t`.
pub const CU_SIL_PARAM_U32: cuSilParamKind = cuSilParamKind(1);
/// `int32_t`.
pub const CU_SIL_PARAM_I32: cuSilParamKind = cuSilParamKind(2);
/// `uint64_t`.
pub const CU_SIL_PARAM_U64: cuSilParamKind = cuSilParamKind(3);
/// `float`.
pub const CU_SIL_PARAM_F32: cuSilParamKind = cuSilParamKind(4);

/// One launch as a C kernel model sees it (opaque; valid only during the callback, on the
/// thread that called it).
#[repr(C)]
pub struct cuSilKernelLaunch {
    _opaque: [u8; 0],
}

/// A C kernel model: runs one launch; 0 for success, anything else fails the launch
/// (`CUDA_ERROR_LAUNCH_FAILED`, sticky on the stream). Called on a stream's worker thread,
/// possibly on several threads at once.
pub type cuSilKernelModelFn =
    Option<unsafe extern "C" fn(user: *mut c_void, launch: *const cuSilKernelLaunch) -> c_int>;

/// `cuSilGetKernelModelStatus`: the kernel is handed out (a model is bound to this cubin and
/// its kinds match the cubin's parameters).
pub const CU_SIL_KERNEL_MODEL_OK: c_int = 0;
/// No model is registered for a kernel of this name.
pub const CU_SIL_KERNEL_MODEL_NOT_REGISTERED: c_int = 1;
/// Models of this kernel are registered, but none for this cubin's SHA-256.
pub const CU_SIL_KERNEL_MODEL_OTHER_CUBINS: c_int = 2;
/// The model's parameter kinds disagree with the cubin's parameter count or sizes.
pub const CU_SIL_KERNEL_MODEL_KINDS_DISAGREE: c_int = 3;
/// The cubin does not export the kernel.
pub const CU_SIL_KERNEL_MODEL_NOT_IN_CUBIN: c_int = 4;

/// What the SIL CUDA stream worker threads used, summed over every worker the library
/// started (exited ones included), for `cuSilGetThreadStats` (40 bytes). Each worker adds its
/// figures whenever its stream goes idle and when it exits, so after `cuStreamSynchronize`
/// the sums include all work done so far.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cuSilThreadStats {
    /// In: `sizeof(cuSilThreadStats)` (at least 40); out: the bytes the library wrote (40).
    pub size: u32,
    /// Worker threads started.
    pub threads: u32,
    /// Their thread CPU time (`CLOCK_THREAD_CPUTIME_ID`), in ns.
    pub cpuNs: u64,
    /// The part of `cpuNs` spent running kernel models, in ns.
    pub computeNs: u64,
    /// Times they woke from a wait (voluntary context switches).
    pub wakeups: u64,
    /// Stream operations they executed (kernels, memory operations, semaphores, events).
    pub ops: u64,
}

unsafe extern "C" {
    /// Copies the stream workers' totals into `*stats` (set `stats->size` first). NULL or
    /// a `size` below 40: `CUDA_ERROR_INVALID_VALUE`, nothing written. Works before `cuInit`.
    pub fn cuSilGetThreadStats(stats: *mut cuSilThreadStats) -> CUresult;

    /// Sets the timing model of a kernel (default: fixed 20 µs).
    pub fn cuSilSetKernelTimingModel(f: CUfunction, model: *const cuSilTimingModel) -> CUresult;

    /// Registers a C kernel model for kernel `kernel` of module `module`, bound to the cubins
    /// whose SHA-256 is one of `cubinSha256[0..numHashes]`, with parameter kinds
    /// `kinds[0..numParams]`. Works before `cuInit`.
    pub fn cuSilRegisterKernelModel(
        module: *const c_char,
        kernel: *const c_char,
        cubinSha256: *const [u8; 32],
        numHashes: c_uint,
        kinds: *const cuSilParamKind,
        numParams: c_uint,
        model: cuSilKernelModelFn,
        user: *mut c_void,
    ) -> CUresult;

    /// Why `cuModuleGetFunction(hmod, kernel)` does or does not hand the kernel out
    /// (`CU_SIL_KERNEL_MODEL_*`).
    pub fn cuSilGetKernelModelStatus(
        hmod: CUmodule,
        kernel: *const c_char,
        status: *mut c_int,
    ) -> CUresult;

    /// In a C model: the device pointer argument `index`, checked for `bytes` bytes aligned to
    /// `align`, read or (`writable` non-zero) written.
    pub fn cuSilLaunchBuffer(
        launch: *const cuSilKernelLaunch,
        index: c_uint,
        bytes: usize,
        align: usize,
        writable: c_int,
        ptr: *mut *mut c_void,
    ) -> CUresult;

    /// In a C model: copies argument `index` (`size` must be its kind's size) to `value`.
    pub fn cuSilLaunchGetParam(
        launch: *const cuSilKernelLaunch,
        index: c_uint,
        value: *mut c_void,
        size: usize,
    ) -> CUresult;

    /// In a C model: the grid and block dimensions (three each).
    pub fn cuSilLaunchGetDims(
        launch: *const cuSilKernelLaunch,
        grid: *mut c_uint,
        block: *mut c_uint,
    ) -> CUresult;

    /// In a C model: the stream clock at kernel start, in ns.
    pub fn cuSilLaunchGetTime(launch: *const cuSilKernelLaunch, nowNs: *mut u64) -> CUresult;
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<cuSilTimingModel>() == 48);
    assert!(align_of::<cuSilTimingModel>() == 8);
    assert!(offset_of!(cuSilTimingModel, kind) == 0);
    assert!(offset_of!(cuSilTimingModel, numBins) == 4);
    assert!(offset_of!(cuSilTimingModel, minNs) == 8);
    assert!(offset_of!(cuSilTimingModel, maxNs) == 16);
    assert!(offset_of!(cuSilTimingModel, binUpperNs) == 24);
    assert!(offset_of!(cuSilTimingModel, binWeights) == 32);
    assert!(offset_of!(cuSilTimingModel, seed) == 40);

    assert!(size_of::<cuSilThreadStats>() == 40);
    assert!(offset_of!(cuSilThreadStats, threads) == 4);
    assert!(offset_of!(cuSilThreadStats, cpuNs) == 8);
    assert!(offset_of!(cuSilThreadStats, computeNs) == 16);
    assert!(offset_of!(cuSilThreadStats, wakeups) == 24);
    assert!(offset_of!(cuSilThreadStats, ops) == 32);
};
