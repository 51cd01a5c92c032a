//! What differs between the platforms. Everything else in the runtime is the same code on
//! `sil`, `rig` and `orin`.
//!
//! * the clock: real `CLOCK_MONOTONIC` everywhere; on `sil` also a virtual clock for
//!   deterministic tests (the SIL libraries stamp and time everything on it);
//! * how the GPU reaches semaphores and buffers (see [`super::gpu`]);
//! * SIL-only extension calls: virtual time, timing models and fault injection.

use crate::error::{Context, Error, PlatformFact, Result};
use core::sync::atomic::{AtomicU32, Ordering};

/// The platform this build runs on.
pub const NAME: &str = if cfg!(platform = "sil") {
    "sil"
} else if cfg!(platform = "rig") {
    "rig"
} else {
    "orin"
};

/// How the GPU synchronises with NvSciSync semaphores on this platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuSyncMode {
    /// External semaphores and external memory (`sil`, `orin`).
    External,
    /// Host-registered counters and host-registered buffers (`rig`).
    Counter,
}

/// The GPU synchronisation of this build.
pub const GPU_SYNC: GpuSyncMode = if cfg!(platform = "rig") {
    GpuSyncMode::Counter
} else {
    GpuSyncMode::External
};

/// Whether the platform's libraries are the SIL twins (fault injection and timing models
/// available for the DLA).
pub const SIL_DLA: bool = cfg!(any(platform = "sil", platform = "rig"));

/// The clock the executive and the CPU workers run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// `CLOCK_MONOTONIC`; absolute sleeps with `clock_nanosleep`.
    Real,
    /// The SIL virtual clock (`sil` only): it moves only when the executive advances it.
    Virtual,
}

impl Clock {
    /// Set up the clock: a virtual clock starts at `start_ns`. The lease holds the SIL clock
    /// for this runtime until it is dropped ([`ClockLease`]).
    pub fn start(virtual_time: bool, start_ns: u64) -> Result<(Clock, ClockLease)> {
        let lease = ClockLease::take(virtual_time)?;
        if !virtual_time {
            return Ok((Clock::Real, lease));
        }
        // On failure the lease is dropped, which gives the claim back.
        sil::set_virtual(true, start_ns)?;
        Ok((Clock::Virtual, lease))
    }

    /// Now, in ns.
    pub fn now_ns(self) -> u64 {
        match self {
            Clock::Real => super::os::monotonic_ns(),
            Clock::Virtual => sil::now_ns(),
        }
    }

    /// Sleep until `deadline_ns` (real), or move virtual time there.
    pub fn sleep_until(self, deadline_ns: u64) {
        match self {
            Clock::Real => super::os::sleep_until(deadline_ns),
            Clock::Virtual => sil::advance_to(deadline_ns),
        }
    }
}

/// The runtimes of this process that hold the clock: the number on the real clock, or
/// [`VIRTUAL_HOLDER`] while one runs on the virtual clock.
static CLOCK_HOLDERS: AtomicU32 = AtomicU32::new(0);
/// [`CLOCK_HOLDERS`] while a runtime on the virtual clock holds it.
const VIRTUAL_HOLDER: u32 = u32::MAX;

/// One runtime's hold on the process's clock. The SIL libraries keep one clock per process,
/// so virtual time is a process-wide state: a runtime on the virtual clock must be the only
/// runtime in the process (another's frames would move its time, and its time would stamp the
/// other's engines), while any number may run on the real clock side by side. A lease that
/// cannot be had is [`PlatformFact::ClockInUse`]; dropping the lease leaves virtual time and
/// gives the clock back.
#[derive(Debug)]
pub struct ClockLease {
    virtual_time: bool,
}

impl ClockLease {
    fn take(virtual_time: bool) -> Result<ClockLease> {
        let taken = CLOCK_HOLDERS.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            match (virtual_time, n) {
                (true, 0) => Some(VIRTUAL_HOLDER),
                (false, n) if n < VIRTUAL_HOLDER - 1 => Some(n + 1),
                _ => None,
            }
        });
        match taken {
            Ok(_) => Ok(ClockLease { virtual_time }),
            Err(_) => Err(Error::Platform(PlatformFact::ClockInUse)),
        }
    }
}

impl Drop for ClockLease {
    fn drop(&mut self) {
        if self.virtual_time {
            // Fails only when virtual time is off already (or on `orin`, where it never was).
            let _ = sil::set_virtual(false, 0);
            CLOCK_HOLDERS.store(0, Ordering::Release);
        } else {
            CLOCK_HOLDERS.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// The SIL extension calls (virtual time, explicit-timestamp signals, counters).
#[cfg(any(platform = "sil", platform = "rig"))]
pub mod sil {
    use super::*;
    use crate::engine::nvsci::{BufObj, SyncObj};
    use nvsci_sys as ns;

    fn check(call: &'static str, s: ns::NvSciError, context: Context) -> Result<()> {
        crate::engine::nvsci::check(call, s, context)
    }

    /// Turn the SIL virtual clock on or off.
    pub fn set_virtual(enable: bool, start_ns: u64) -> Result<()> {
        // SAFETY: plain SIL call.
        let status = unsafe { ns::sil::NvSciSilClockSetVirtual(enable, start_ns) };
        check("NvSciSilClockSetVirtual", status, Context::Platform)
    }

    /// The SIL clock.
    pub fn now_ns() -> u64 {
        // SAFETY: plain SIL call.
        unsafe { ns::sil::NvSciSilClockNowNs() }
    }

    /// Move virtual time forward.
    pub fn advance_to(ns: u64) {
        // SAFETY: plain SIL call; an error only means virtual time is off.
        let _ = unsafe { ns::sil::NvSciSilClockAdvanceTo(ns) };
    }

    /// Signal as an engine with an explicit timestamp (virtual-time CPU tasks).
    pub(crate) fn signal_at(obj: &SyncObj, timestamp_ns: u64, context: Context) -> Result<()> {
        // SAFETY: live object.
        let status = unsafe { ns::sil::NvSciSyncSilObjSignalEngine(obj.raw(), timestamp_ns) };
        check("NvSciSyncSilObjSignalEngine", status, context)
    }

    /// Nanosecond timestamp of the signal that produced `value`.
    pub(crate) fn signal_timestamp_ns(obj: &SyncObj, value: u64, context: Context) -> Result<u64> {
        let mut ts = 0;
        // SAFETY: live object, valid out-pointer.
        let s = unsafe { ns::sil::NvSciSyncSilObjGetSignalTimestamp(obj.raw(), value, &mut ts) };
        check("NvSciSyncSilObjGetSignalTimestamp", s, context)?;
        Ok(ts)
    }

    /// The semaphore's counter (alone in its page, live as long as the object), for mapping
    /// into a GPU.
    pub(in crate::engine) fn counter(obj: &SyncObj, context: Context) -> Result<*mut u64> {
        let mut p = core::ptr::null_mut();
        // SAFETY: live object, valid out-pointer.
        let status = unsafe { ns::sil::NvSciSyncSilObjGetCounter(obj.raw(), &mut p) };
        check("NvSciSyncSilObjGetCounter", status, context)?;
        Ok(p)
    }

    /// A buffer's backing memory (page-aligned, whole pages, live as long as the buffer), for
    /// host registration.
    pub(in crate::engine) fn buffer_memory(
        buf: &BufObj,
        context: Context,
    ) -> Result<(*mut core::ffi::c_void, u64)> {
        let (mut p, mut size) = (core::ptr::null_mut(), 0);
        // SAFETY: live buffer, valid out-pointers.
        let status = unsafe { ns::sil::NvSciBufSilObjGetMemory(buf.raw(), &mut p, &mut size) };
        check("NvSciBufSilObjGetMemory", status, context)?;
        Ok((p, size))
    }
}

/// Stand-ins on `orin`: the SIL calls do not exist there.
#[cfg(not(any(platform = "sil", platform = "rig")))]
pub mod sil {
    use super::*;

    const NOT_SIL: crate::error::Error =
        crate::error::Error::Platform(crate::error::PlatformFact::SilOnly);

    /// Not available on this platform.
    pub fn set_virtual(_enable: bool, _start_ns: u64) -> Result<()> {
        Err(NOT_SIL)
    }

    /// The real clock.
    pub fn now_ns() -> u64 {
        crate::engine::os::monotonic_ns()
    }

    /// Nothing to advance.
    pub fn advance_to(_ns: u64) {}

    /// Not available on this platform.
    pub(crate) fn signal_at(
        _obj: &crate::engine::nvsci::SyncObj,
        _ts: u64,
        _context: Context,
    ) -> Result<()> {
        Err(NOT_SIL)
    }

    /// Not available on this platform.
    pub(crate) fn signal_timestamp_ns(
        _obj: &crate::engine::nvsci::SyncObj,
        _value: u64,
        _context: Context,
    ) -> Result<u64> {
        Err(NOT_SIL)
    }
}

/// The SIL semaphore counter (`rig` maps it into the GPU).
#[cfg(any(platform = "sil", platform = "rig"))]
pub(super) fn sil_counter(
    obj: &crate::engine::nvsci::SyncObj,
    context: Context,
) -> Result<*mut u64> {
    sil::counter(obj, context)
}

/// Tell the SIL that a real device writes the semaphore's counter without notifying anybody
/// (`rig`: the GPU signals through the mapped counter), so CPU waits watch it (yielding
/// between reads, as NVIDIA documents for semaphore waits) instead of sleeping until notified.
#[cfg(any(platform = "sil", platform = "rig"))]
pub(crate) fn mark_device_written(
    obj: &crate::engine::nvsci::SyncObj,
    context: Context,
) -> Result<()> {
    // SAFETY: live object.
    let status = unsafe { nvsci_sys::sil::NvSciSyncSilObjSetDeviceWritten(obj.raw()) };
    crate::engine::nvsci::check("NvSciSyncSilObjSetDeviceWritten", status, context)
}

/// Not on `orin`: the real NvSciSync knows its primitives.
#[cfg(not(any(platform = "sil", platform = "rig")))]
pub(crate) fn mark_device_written(
    _obj: &crate::engine::nvsci::SyncObj,
    _context: Context,
) -> Result<()> {
    Err(crate::error::Error::Platform(
        crate::error::PlatformFact::CountersOnlyOnRig,
    ))
}

/// Not on `orin`: the GPU imports NvSciSync objects there.
#[cfg(not(any(platform = "sil", platform = "rig")))]
pub(super) fn sil_counter(
    _obj: &crate::engine::nvsci::SyncObj,
    _context: Context,
) -> Result<*mut u64> {
    Err(crate::error::Error::Platform(
        crate::error::PlatformFact::CountersOnlyOnRig,
    ))
}

/// A SIL buffer's memory (`rig` host-registers it).
#[cfg(any(platform = "sil", platform = "rig"))]
pub(super) fn sil_buffer_memory(
    buf: &crate::engine::nvsci::BufObj,
    context: Context,
) -> Result<(*mut core::ffi::c_void, u64)> {
    sil::buffer_memory(buf, context)
}

/// Not on `orin`: the GPU imports NvSciBuf buffers there.
#[cfg(not(any(platform = "sil", platform = "rig")))]
pub(super) fn sil_buffer_memory(
    _buf: &crate::engine::nvsci::BufObj,
    _context: Context,
) -> Result<(*mut core::ffi::c_void, u64)> {
    Err(crate::error::Error::Platform(
        crate::error::PlatformFact::HostRegistrationOnlyOnRig,
    ))
}

/// What the SIL engine threads (SIL CUDA's stream workers, SIL cuDLA's device workers) used,
/// summed over every such thread the process started: the simulator's own cost, to tell it
/// apart from the runtime's. Subtract two snapshots for a stretch of frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineThreadStats {
    /// Threads started.
    pub threads: u32,
    /// Their CPU time, in ns.
    pub cpu_ns: u64,
    /// The part of `cpu_ns` spent computing kernel models or networks, in ns.
    pub compute_ns: u64,
    /// Times they woke from a wait.
    pub wakeups: u64,
    /// Operations they executed.
    pub ops: u64,
}

impl EngineThreadStats {
    /// The usage from `earlier` to `self` (saturating).
    pub fn since(self, earlier: EngineThreadStats) -> EngineThreadStats {
        EngineThreadStats {
            threads: self.threads.saturating_sub(earlier.threads),
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            compute_ns: self.compute_ns.saturating_sub(earlier.compute_ns),
            wakeups: self.wakeups.saturating_sub(earlier.wakeups),
            ops: self.ops.saturating_sub(earlier.ops),
        }
    }

    /// CPU time outside computing: what the simulator's machinery cost.
    pub fn overhead_ns(self) -> u64 {
        self.cpu_ns.saturating_sub(self.compute_ns)
    }
}

/// Read one SIL library's engine-thread totals: `$call` fills a `$stats` struct (the same
/// 40-byte layout in both libraries) whose `size` is set, and returns `$ok` on success.
#[cfg(any(platform = "sil", platform = "rig"))]
macro_rules! sil_thread_stats {
    ($call:path, $stats:ty, $ok:expr) => {{
        let mut s = <$stats>::default();
        s.size = core::mem::size_of::<$stats>() as u32;
        // SAFETY: a valid, writable struct whose `size` is set.
        if unsafe { $call(&mut s) } != $ok {
            return None;
        }
        Some(EngineThreadStats {
            threads: s.threads,
            cpu_ns: s.cpuNs,
            compute_ns: s.computeNs,
            wakeups: s.wakeups,
            ops: s.ops,
        })
    }};
}

/// The SIL CUDA stream workers' usage (`cuSilGetThreadStats`); `None` where CUDA is not the
/// SIL (`rig`: the real driver; `orin`).
pub fn sil_gpu_threads() -> Option<EngineThreadStats> {
    #[cfg(platform = "sil")]
    {
        use cuda_sys::sil::{cuSilGetThreadStats, cuSilThreadStats};
        sil_thread_stats!(
            cuSilGetThreadStats,
            cuSilThreadStats,
            cuda_sys::CUDA_SUCCESS
        )
    }
    #[cfg(not(platform = "sil"))]
    {
        None
    }
}

/// The SIL cuDLA device workers' usage (`cudlaSilGetThreadStats`); `None` on `orin`.
pub fn sil_dla_threads() -> Option<EngineThreadStats> {
    #[cfg(any(platform = "sil", platform = "rig"))]
    {
        use cudla_sys::sil::{cudlaSilGetThreadStats, cudlaSilThreadStats};
        sil_thread_stats!(
            cudlaSilGetThreadStats,
            cudlaSilThreadStats,
            cudla_sys::cudlaSuccess
        )
    }
    #[cfg(not(any(platform = "sil", platform = "rig")))]
    {
        None
    }
}

/// DLA fault injection and timing models (SIL cuDLA on `sil` and `rig`).
#[cfg(any(platform = "sil", platform = "rig"))]
pub mod dla_sil {
    use cudla_sys as cd;

    use crate::error::{Context, Error, Misuse, Result, Table};

    pub use cd::sil::cudlaSilFault as Fault;

    /// Histogram bins a timing model may have (the SIL's limit).
    pub const MAX_BINS: usize = 32;

    /// A SIL DLA's execution-time model. The C struct it becomes points at the histogram's
    /// arrays; those live in this value, and the pointers are made only for the call that
    /// reads them.
    ///
    /// ```
    /// use orin_exec::engine::platform::dla_sil::TimingModel;
    ///
    /// let fixed = TimingModel::fixed(2_000_000, 1);
    /// let uniform = TimingModel::uniform(1_000_000, 3_000_000, 7);
    /// let histogram = TimingModel::histogram(1_000_000, &[(2_000_000, 9), (5_000_000, 1)], 7)?;
    /// assert_ne!(fixed, uniform);
    /// assert_eq!(histogram.bins(), 2);
    /// # Ok::<(), orin_exec::Error>(())
    /// ```
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct TimingModel {
        kind: u32,
        min_ns: u64,
        max_ns: u64,
        upper_ns: heapless::Vec<u64, MAX_BINS>,
        weights: heapless::Vec<u32, MAX_BINS>,
        seed: u64,
    }

    impl TimingModel {
        /// Every task takes `ns`.
        pub const fn fixed(ns: u64, seed: u64) -> Self {
            Self::simple(cd::sil::CUDLA_SIL_TIMING_FIXED, ns, 0, seed)
        }

        /// Uniform in `[min_ns, max_ns]`; the same seed gives the same sequence.
        pub const fn uniform(min_ns: u64, max_ns: u64, seed: u64) -> Self {
            Self::simple(cd::sil::CUDLA_SIL_TIMING_UNIFORM, min_ns, max_ns, seed)
        }

        const fn simple(kind: u32, min_ns: u64, max_ns: u64, seed: u64) -> Self {
            TimingModel {
                kind,
                min_ns,
                max_ns,
                upper_ns: heapless::Vec::new(),
                weights: heapless::Vec::new(),
                seed,
            }
        }

        /// A histogram from `min_ns`: each bin is (upper edge in ns, relative weight);
        /// 1 to [`MAX_BINS`] bins.
        pub fn histogram(min_ns: u64, bins: &[(u64, u32)], seed: u64) -> Result<Self> {
            let mut model = Self::simple(cd::sil::CUDLA_SIL_TIMING_HISTOGRAM, min_ns, 0, seed);
            let too_many = Error::Capacity {
                table: Table::TimingModelBins,
                limit: MAX_BINS as u32,
            };
            if bins.is_empty() {
                return Err(Error::Misuse {
                    misuse: Misuse::EmptyTimingHistogram,
                    context: Context::Platform,
                });
            }
            for &(upper, weight) in bins {
                model.upper_ns.push(upper).map_err(|_| too_many)?;
                model.weights.push(weight).map_err(|_| too_many)?;
            }
            Ok(model)
        }

        /// Number of histogram bins (0 for fixed and uniform models).
        pub fn bins(&self) -> usize {
            self.upper_ns.len()
        }

        /// The C struct, pointing into `self` (valid while `self` is borrowed).
        pub(crate) fn to_c(&self) -> cd::sil::cudlaSilTimingModel {
            let (upper, weights) = if self.upper_ns.is_empty() {
                (core::ptr::null(), core::ptr::null())
            } else {
                (self.upper_ns.as_ptr(), self.weights.as_ptr())
            };
            cd::sil::cudlaSilTimingModel {
                kind: self.kind,
                numBins: self.upper_ns.len() as u32,
                minNs: self.min_ns,
                maxNs: self.max_ns,
                binUpperNs: upper,
                binWeights: weights,
                seed: self.seed,
            }
        }
    }

    /// Injected fault kinds.
    pub const HANG: u32 = 1;
    /// Late completion.
    pub const LATE: u32 = 2;
    /// Asynchronous error reported by `cudlaGetLastError` after the fence.
    pub const ASYNC_ERROR: u32 = 3;
    /// Corrupted output.
    pub const CORRUPT: u32 = 4;
}
