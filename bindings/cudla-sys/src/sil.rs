//! SIL-only extension calls and structs (feature `sil-ext`), as specified in
//! `docs/architecture.md` ("SIL extension calls"). Only `sil-cudla` defines these
//! symbols; the link stubs and `check-against-sdk.sh` ignore this module.

use crate::{cudlaDevHandle, cudlaStatus};

/// [`cudlaSilTimingModel::kind`]: a fixed time, `minNs`.
pub const CUDLA_SIL_TIMING_FIXED: u32 = 0;
/// [`cudlaSilTimingModel::kind`]: uniform in `[minNs, maxNs]`.
pub const CUDLA_SIL_TIMING_UNIFORM: u32 = 1;
/// [`cudlaSilTimingModel::kind`]: histogram (`numBins`, `binUpperNs`, `binWeights`).
pub const CUDLA_SIL_TIMING_HISTOGRAM: u32 = 2;

/// [`cudlaSilFault::kind`]: the task hangs: its SOF is signalled, then nothing until the
/// handle's task timeout ends it (`cudlaErrorDlaErrEngineTimeout`, EOF signalled).
pub const CUDLA_SIL_FAULT_HANG: u32 = 1;
/// [`cudlaSilFault::kind`]: the task is late by `extraDelayNs`.
pub const CUDLA_SIL_FAULT_LATE: u32 = 2;
/// [`cudlaSilFault::kind`]: `cudlaGetLastError` reports `status` after the fence.
pub const CUDLA_SIL_FAULT_ASYNC_ERROR: u32 = 3;
/// [`cudlaSilFault::kind`]: bytes of output tensor 0 are flipped.
pub const CUDLA_SIL_FAULT_CORRUPT_OUTPUT: u32 = 4;
/// [`cudlaSilFault::kind`]: the DLA has a permanent fault: a diagnostics task
/// (`CUDLA_SUBMIT_DIAGNOSTICS_TASK`) reports it, with `status` as the failed-check mask
/// (0 means check 0). Regular tasks are not affected.
pub const CUDLA_SIL_FAULT_PERMANENT: u32 = 5;

/// Execution-time model of a SIL DLA (48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaSilTimingModel {
    /// `CUDLA_SIL_TIMING_*`.
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

/// A fault to inject into a SIL DLA (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cudlaSilFault {
    /// `CUDLA_SIL_FAULT_*`.
    pub kind: u32,
    /// [`CUDLA_SIL_FAULT_ASYNC_ERROR`]: the `cudlaStatus` value to report;
    /// [`CUDLA_SIL_FAULT_PERMANENT`]: the failed-check mask the diagnostics report.
    pub status: i32,
    /// Apply to the task submitted after this many more tasks (0 = the next).
    pub skipTasks: u64,
    /// Number of consecutive tasks affected (0 = all from then on).
    pub count: u64,
    /// [`CUDLA_SIL_FAULT_LATE`]: extra delay.
    pub extraDelayNs: u64,
}

/// What the SIL DLA worker threads used, summed over every worker the library started
/// (exited ones included), for `cudlaSilGetThreadStats` (40 bytes; the layout of CUDA's
/// `cuSilThreadStats`). A worker adds its figures whenever its queue runs empty (before
/// that task's EOF is signalled) and when it exits.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct cudlaSilThreadStats {
    /// In: `sizeof(cudlaSilThreadStats)` (at least 40); out: the bytes written (40).
    pub size: u32,
    /// Worker threads started (one per device handle).
    pub threads: u32,
    /// Their thread CPU time (`CLOCK_THREAD_CPUTIME_ID`), in ns.
    pub cpuNs: u64,
    /// The part of `cpuNs` spent running networks (and diagnostics), in ns.
    pub computeNs: u64,
    /// Times they woke from a wait (voluntary context switches).
    pub wakeups: u64,
    /// Tasks (and event-only submissions) they executed.
    pub ops: u64,
}

unsafe extern "C" {
    /// Copies the DLA workers' totals into `*stats` (set `stats->size` first). NULL or a
    /// `size` below 40: `cudlaErrorInvalidParam`, nothing written.
    pub fn cudlaSilGetThreadStats(stats: *mut cudlaSilThreadStats) -> cudlaStatus;
    /// Number of SIL DLA devices (before the first device; env `CUDLA_SIL_DEVICE_COUNT`;
    /// default 2).
    pub fn cudlaSilSetDeviceCount(count: u64) -> cudlaStatus;
    /// Sets the timing model of a device.
    pub fn cudlaSilSetTimingModel(
        dev: cudlaDevHandle,
        model: *const cudlaSilTimingModel,
    ) -> cudlaStatus;
    /// Queues a fault on a device.
    pub fn cudlaSilInjectFault(dev: cudlaDevHandle, fault: *const cudlaSilFault) -> cudlaStatus;
    /// Removes every queued fault of a device.
    pub fn cudlaSilClearFaults(dev: cudlaDevHandle) -> cudlaStatus;
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<cudlaSilTimingModel>() == 48);
    assert!(align_of::<cudlaSilTimingModel>() == 8);
    assert!(offset_of!(cudlaSilTimingModel, kind) == 0);
    assert!(offset_of!(cudlaSilTimingModel, numBins) == 4);
    assert!(offset_of!(cudlaSilTimingModel, minNs) == 8);
    assert!(offset_of!(cudlaSilTimingModel, maxNs) == 16);
    assert!(offset_of!(cudlaSilTimingModel, binUpperNs) == 24);
    assert!(offset_of!(cudlaSilTimingModel, binWeights) == 32);
    assert!(offset_of!(cudlaSilTimingModel, seed) == 40);

    assert!(size_of::<cudlaSilFault>() == 32);
    assert!(align_of::<cudlaSilFault>() == 8);
    assert!(offset_of!(cudlaSilFault, kind) == 0);
    assert!(offset_of!(cudlaSilFault, status) == 4);
    assert!(offset_of!(cudlaSilFault, skipTasks) == 8);
    assert!(offset_of!(cudlaSilFault, count) == 16);
    assert!(offset_of!(cudlaSilFault, extraDelayNs) == 24);

    assert!(size_of::<cudlaSilThreadStats>() == 40);
    assert!(offset_of!(cudlaSilThreadStats, threads) == 4);
    assert!(offset_of!(cudlaSilThreadStats, cpuNs) == 8);
    assert!(offset_of!(cudlaSilThreadStats, computeNs) == 16);
    assert!(offset_of!(cudlaSilThreadStats, wakeups) == 24);
    assert!(offset_of!(cudlaSilThreadStats, ops) == 32);
};
