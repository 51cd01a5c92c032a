//! The operating system: the monotonic clock, absolute sleeps, real-time scheduling and
//! memory locking (Linux and QNX).

use crate::error::{Error, PlatformFact, Result};

/// `CLOCK_MONOTONIC` in ns.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid timespec out-pointer; CLOCK_MONOTONIC exists on Linux and QNX.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleep until `CLOCK_MONOTONIC` reaches `deadline_ns` (`clock_nanosleep`, `TIMER_ABSTIME`):
/// absolute release times do not drift. Retries after signals.
pub fn sleep_until(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: valid timespec; a NULL remainder is allowed with TIMER_ABSTIME.
        let rc = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME as libc::c_int,
                &ts,
                core::ptr::null_mut(),
            )
        };
        if rc != libc::EINTR {
            return;
        }
    }
}

/// What real-time settings took effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RealtimeStatus {
    /// `SCHED_FIFO` at the requested priority is active for the calling thread.
    pub fifo: bool,
    /// Why `SCHED_FIFO` failed (errno), if it did.
    pub fifo_errno: i32,
    /// `mlockall(MCL_CURRENT | MCL_FUTURE)` succeeded.
    pub locked: bool,
    /// Why `mlockall` failed (errno), if it did.
    pub lock_errno: i32,
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Lock all of the process's memory (`mlockall(MCL_CURRENT | MCL_FUTURE)`): whether it
/// succeeded and, if not, why (errno). Failures are reported, not fatal: a desktop user
/// usually lacks the permission.
pub fn lock_memory() -> (bool, i32) {
    // SAFETY: plain system call.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if rc == 0 { (true, 0) } else { (false, errno()) }
}

fn zeroed_param() -> libc::sched_param {
    // SAFETY: sched_param is plain data; all-zero is valid.
    unsafe { core::mem::zeroed() }
}

/// A scheduling policy, as the OS reports it for a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// `SCHED_FIFO`.
    Fifo,
    /// `SCHED_RR`.
    RoundRobin,
    /// Anything else (`SCHED_OTHER` on Linux, `SCHED_SPORADIC` on QNX), by its value.
    Other(i32),
}

impl Policy {
    fn from_raw(policy: i32) -> Policy {
        match policy {
            libc::SCHED_FIFO => Policy::Fifo,
            libc::SCHED_RR => Policy::RoundRobin,
            other => Policy::Other(other),
        }
    }
}

/// The real-time settings asked for one of the runtime's threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadRequest {
    /// `SCHED_FIFO` at this priority (`None`: leave the policy as it is).
    pub priority: Option<i32>,
    /// The CPUs it may run on, bit n for CPU n (`0`: leave the affinity as it is).
    pub cpus: u64,
}

/// What the OS granted one of the runtime's threads, read back from the OS after asking
/// (`pthread_getschedparam`; `pthread_getaffinity_np` on Linux, the runmask on QNX). A
/// refusal is reported here, not as an error: an unprivileged user gets `SCHED_OTHER`.
///
/// ```
/// use orin_exec::engine::os::{self, ThreadRequest};
///
/// // Nothing asked: nothing to refuse.
/// let g = os::apply_thread("main", ThreadRequest::default());
/// assert!(g.fifo_granted() && g.affinity_granted());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadGrant {
    /// `executive`, or the CPU engine whose worker it is.
    pub name: &'static str,
    /// What was asked.
    pub requested: ThreadRequest,
    /// Why setting `SCHED_FIFO` failed (errno; `0`: it did not fail, or was not asked).
    pub fifo_errno: i32,
    /// Why setting the affinity failed (errno; `0`: it did not fail, or was not asked).
    pub affinity_errno: i32,
    /// The policy in effect afterwards.
    pub policy: Policy,
    /// The priority in effect afterwards.
    pub priority: i32,
    /// The CPUs it may run on afterwards (bit n for CPU n, CPUs 0..64); `None` where the OS
    /// was not asked (QNX with no affinity requested: its runmask cannot be read without
    /// setting it) or could not say.
    pub cpus: Option<u64>,
}

impl ThreadGrant {
    /// `SCHED_FIFO` at the requested priority is in effect (or none was requested).
    pub fn fifo_granted(&self) -> bool {
        self.requested
            .priority
            .is_none_or(|p| self.policy == Policy::Fifo && self.priority == p)
    }

    /// The thread runs on exactly the requested CPUs (or none were requested).
    pub fn affinity_granted(&self) -> bool {
        self.requested.cpus == 0 || self.cpus == Some(self.requested.cpus)
    }
}

impl core::fmt::Display for ThreadGrant {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: ", self.name)?;
        match self.policy {
            Policy::Fifo => write!(f, "SCHED_FIFO {}", self.priority)?,
            Policy::RoundRobin => write!(f, "SCHED_RR {}", self.priority)?,
            Policy::Other(libc::SCHED_OTHER) => write!(f, "SCHED_OTHER {}", self.priority)?,
            Policy::Other(p) => write!(f, "policy {p} priority {}", self.priority)?,
        }
        if let Some(p) = self.requested.priority
            && !self.fifo_granted()
        {
            write!(
                f,
                " (asked SCHED_FIFO {p}: not granted, {})",
                std::io::Error::from_raw_os_error(self.fifo_errno)
            )?;
        }
        match self.cpus {
            Some(cpus) => write!(f, ", CPUs {}", CpuSet(cpus))?,
            None => write!(f, ", CPUs as inherited")?,
        }
        if self.requested.cpus != 0 && !self.affinity_granted() {
            write!(
                f,
                " (asked {}: not granted, {})",
                CpuSet(self.requested.cpus),
                std::io::Error::from_raw_os_error(self.affinity_errno)
            )?;
        }
        Ok(())
    }
}

/// A CPU mask as a list: `{0,2,3}`.
struct CpuSet(u64);

impl core::fmt::Display for CpuSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("{")?;
        let mut first = true;
        for cpu in (0..64).filter(|c| self.0 & (1 << c) != 0) {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{cpu}")?;
        }
        f.write_str("}")
    }
}

/// Apply `request` to the calling thread (`SCHED_FIFO` through `pthread_setschedparam`, the
/// affinity through `pthread_setaffinity_np` on Linux or the runmask on QNX) and read back
/// what is in effect. Refusals are reported in the [`ThreadGrant`], never fatal.
pub fn apply_thread(name: &'static str, request: ThreadRequest) -> ThreadGrant {
    let mut fifo_errno = 0;
    if let Some(p) = request.priority {
        let mut param = zeroed_param();
        param.sched_priority = p;
        // SAFETY: valid sched_param for the calling thread.
        fifo_errno =
            unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
    }
    let affinity_errno = if request.cpus == 0 {
        0
    } else {
        set_cpus(request.cpus)
    };
    let mut policy = 0;
    let mut param = zeroed_param();
    // SAFETY: valid out-pointers, the calling thread.
    let rc = unsafe { libc::pthread_getschedparam(libc::pthread_self(), &mut policy, &mut param) };
    let (policy, priority) = if rc == 0 {
        (Policy::from_raw(policy), param.sched_priority)
    } else {
        (Policy::Other(-1), 0)
    };
    ThreadGrant {
        name,
        requested: request,
        fifo_errno,
        affinity_errno,
        policy,
        priority,
        cpus: get_cpus(request.cpus),
    }
}

/// Restrict the calling thread to `mask`; the errno (0: done).
#[cfg(target_os = "linux")]
fn set_cpus(mask: u64) -> i32 {
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
    for cpu in (0..64).filter(|c| mask & (1 << c) != 0) {
        // SAFETY: CPU numbers below 64 are within the set's 1024 bits.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: a valid set of the size passed, the calling thread.
    unsafe {
        libc::pthread_setaffinity_np(
            libc::pthread_self(),
            core::mem::size_of::<libc::cpu_set_t>(),
            &set,
        )
    }
}

/// The calling thread's CPUs (the first 64), whatever was requested.
#[cfg(target_os = "linux")]
fn get_cpus(_requested: u64) -> Option<u64> {
    // SAFETY: as in `set_cpus`.
    let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
    // SAFETY: a valid set of the size passed, the calling thread.
    let rc = unsafe {
        libc::pthread_getaffinity_np(
            libc::pthread_self(),
            core::mem::size_of::<libc::cpu_set_t>(),
            &mut set,
        )
    };
    (rc == 0).then(|| {
        (0..64)
            // SAFETY: CPU numbers below 64 are within the set's 1024 bits.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .fold(0u64, |m, c| m | 1 << c)
    })
}

/// QNX: the runmask (`ThreadCtl`, `_NTO_TCTL_RUNMASK_GET_AND_SET`: `data` points to the new
/// mask and receives the old one), 32 CPUs at most; the errno (0: done).
/// <https://www.qnx.com/developers/docs/7.1/com.qnx.doc.neutrino.lib_ref/topic/t/threadctl.html>
#[cfg(target_os = "nto")]
fn runmask_swap(mask: u64) -> core::result::Result<u32, i32> {
    let Ok(mut m) = u32::try_from(mask) else {
        return Err(libc::EINVAL);
    };
    // SAFETY: `data` points to a live u32 for the duration of the call, as the command needs;
    // the `_r` form returns EOK or a negative errno.
    let rc = unsafe {
        libc::ThreadCtl_r(
            libc::_NTO_TCTL_RUNMASK_GET_AND_SET as libc::c_int,
            (&mut m as *mut u32).cast(),
        )
    };
    if rc == 0 { Ok(m) } else { Err(-rc) }
}

#[cfg(target_os = "nto")]
fn set_cpus(mask: u64) -> i32 {
    runmask_swap(mask).err().unwrap_or(0)
}

/// QNX cannot read the runmask without setting it: setting the requested mask again returns
/// the one in effect.
#[cfg(target_os = "nto")]
fn get_cpus(requested: u64) -> Option<u64> {
    if requested == 0 {
        return None;
    }
    runmask_swap(requested).ok().map(u64::from)
}

#[cfg(not(any(target_os = "linux", target_os = "nto")))]
fn set_cpus(_mask: u64) -> i32 {
    libc::ENOSYS
}

#[cfg(not(any(target_os = "linux", target_os = "nto")))]
fn get_cpus(_requested: u64) -> Option<u64> {
    None
}

/// The CPUs the calling thread may run on (bit n for CPU n, CPUs 0..64), where the OS can
/// say without changing them (Linux; `None` on QNX, whose runmask is read only by writing).
pub fn thread_cpus() -> Option<u64> {
    get_cpus(0)
}

/// The CPU the calling thread runs on now (`sched_getcpu`, Linux); `None` elsewhere or on
/// failure. A thread restricted to one CPU always sees that one.
pub fn current_cpu() -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain call without arguments.
        u32::try_from(unsafe { libc::sched_getcpu() }).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Let this thread's absolute sleeps end on time. Linux defers a normal thread's timer by up
/// to its timer slack (50 µs by default) to batch wake-ups, which shows up as release jitter
/// of every frame; `SCHED_FIFO` threads have no slack, and a thread that cannot get
/// `SCHED_FIFO` (a desktop user, the rig) sets it to 1 ns (`PR_SET_TIMERSLACK`). Returns
/// whether it took effect (`true` where there is no such setting, e.g. QNX, whose timers
/// fire at the clock tick).
pub fn tighten_timer_slack() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_SET_TIMERSLACK takes a plain integer and affects only this thread.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        true
    }
}

/// The CUDA driver settings orin-exec runs with: never JIT-compile PTX, load every module
/// eagerly (the driver reads them once, at `cuInit`).
const CUDA_ENVIRONMENT: [(&str, &str); 2] = [
    ("CUDA_DISABLE_PTX_JIT", "1"),
    ("CUDA_MODULE_LOADING", "EAGER"),
];

/// Whether every CUDA variable has its value (`Ok(false)`: one is unset); a contradicting
/// value is an error.
fn cuda_environment_set() -> Result<bool> {
    let mut all = true;
    for (name, want) in CUDA_ENVIRONMENT {
        match std::env::var(name) {
            Ok(v) if v == want => {}
            Ok(_) => {
                return Err(Error::Platform(if name == "CUDA_DISABLE_PTX_JIT" {
                    PlatformFact::PtxJitNotDisabled
                } else {
                    PlatformFact::ModuleLoadingNotEager
                }));
            }
            Err(_) => all = false,
        }
    }
    Ok(all)
}

/// Make sure the CUDA driver never JIT-compiles and loads modules eagerly: set
/// `CUDA_DISABLE_PTX_JIT=1` and `CUDA_MODULE_LOADING=EAGER` if they are unset, and refuse
/// contradicting values. Must run before the driver is initialised.
///
/// [`require_cuda_environment`] does the same without `unsafe` where it can prove the
/// condition below; call this one at the top of `main` when threads start before the runtime.
///
/// # Safety
///
/// No other thread may read or write the environment during the call (the contract of
/// [`std::env::set_var`]: C code such as the CUDA driver reads it without Rust's lock). Call
/// it before the program starts any thread, e.g. first thing in `main`.
pub unsafe fn enforce_cuda_environment() -> Result<()> {
    if cuda_environment_set()? {
        return Ok(());
    }
    for (name, want) in CUDA_ENVIRONMENT {
        if std::env::var_os(name).is_none() {
            // SAFETY: the caller guarantees that no other thread touches the environment.
            unsafe { std::env::set_var(name, want) };
        }
    }
    Ok(())
}

/// Check the CUDA environment before the driver is initialised (what
/// [`enforce_cuda_environment`] sets), without `unsafe`:
///
/// * both variables set as required: fine; a contradicting value: an error;
/// * a variable unset: set it if this thread is the process's only thread (Linux,
///   `/proc/self/task`), since then nothing else can read the environment meanwhile;
/// * otherwise, on `sil`: fine, the SIL driver has no JIT and loads modules eagerly anyway;
///   on `rig` and `orin`: an error (set the variables in the environment, or call
///   [`enforce_cuda_environment`] before starting threads).
pub fn require_cuda_environment() -> Result<()> {
    if cuda_environment_set()? {
        return Ok(());
    }
    if only_thread() {
        // SAFETY: this is the process's only thread, so no other thread reads or writes the
        // environment during the call (and only this thread could start one).
        return unsafe { enforce_cuda_environment() };
    }
    if cfg!(platform = "sil") {
        return Ok(());
    }
    Err(Error::Platform(PlatformFact::CudaEnvironmentNotSet))
}

/// Whether the calling thread is the only thread of the process.
fn only_thread() -> bool {
    if cfg!(target_os = "linux") {
        std::fs::read_dir("/proc/self/task").is_ok_and(|tasks| tasks.take(2).count() == 1)
    } else {
        // No cheap proof elsewhere (QNX): assume other threads.
        false
    }
}

/// Find out, without changing this process's settings, whether `SCHED_FIFO` and memory
/// locking would be granted (tried on a short-lived thread and one locked page).
pub fn probe_realtime() -> RealtimeStatus {
    let fifo = std::thread::spawn(|| {
        let mut param = zeroed_param();
        param.sched_priority = 1;
        // SAFETY: valid sched_param for the calling (throwaway) thread.
        unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) }
    })
    .join()
    .unwrap_or(libc::EPERM);
    let page = [0u8; 64];
    // SAFETY: locks and unlocks the pages of a live local array.
    let rc = unsafe { libc::mlock(page.as_ptr().cast(), page.len()) };
    let (locked, lock_errno) = if rc == 0 {
        // SAFETY: as above.
        unsafe { libc::munlock(page.as_ptr().cast(), page.len()) };
        (true, 0)
    } else {
        (false, errno())
    };
    RealtimeStatus {
        fifo: fifo == 0,
        fifo_errno: fifo,
        locked,
        lock_errno,
    }
}

/// CPU time and context switches of one thread, for budgets such as the executive's CPU time
/// per frame: take one before and one after the frames and subtract.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadUsage {
    /// User plus system CPU time, in ns.
    pub cpu_ns: u64,
    /// Voluntary context switches: how often the thread blocked and was woken.
    pub wakeups: u64,
    /// Involuntary context switches: how often it was preempted.
    pub preempted: u64,
}

impl ThreadUsage {
    /// The usage from `earlier` to `self` (saturating, so a wrong order gives zeros).
    pub fn since(self, earlier: ThreadUsage) -> ThreadUsage {
        ThreadUsage {
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            wakeups: self.wakeups.saturating_sub(earlier.wakeups),
            preempted: self.preempted.saturating_sub(earlier.preempted),
        }
    }
}

/// A thread that only sleeps and wakes, `per_period` times in every period, until it is
/// finished: what waking alone costs this machine.
///
/// Run beside a thread whose CPU time per period is measured, it is that figure's baseline
/// in the same run: on a virtual machine a wake-up from an idle core alone costs tens of µs
/// of the woken thread's CPU time, whatever the thread then does.
///
/// ```
/// # #[cfg(target_os = "linux")] {
/// let baseline = orin_exec::engine::os::SleepOnly::start(1_000_000, 2).unwrap();
/// let figures = baseline.finish().unwrap();
/// assert!(figures.periods >= 1);
/// assert!(figures.wakeups_per_period() <= 2.0);
/// # }
/// ```
#[derive(Debug)]
pub struct SleepOnly {
    stop: std::sync::Arc<core::sync::atomic::AtomicBool>,
    /// Taken by `finish`; dropped unfinished, the thread is told to stop and left to end.
    thread: Option<std::thread::JoinHandle<Option<SleepOnlyFigures>>>,
}

/// What a [`SleepOnly`] thread used, over the periods it went through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SleepOnlyFigures {
    /// Its CPU time and wake-ups in all.
    pub usage: ThreadUsage,
    /// The periods it went through.
    pub periods: u64,
}

impl SleepOnlyFigures {
    /// CPU time per period, µs.
    pub fn cpu_us_per_period(&self) -> f64 {
        self.usage.cpu_ns as f64 / self.periods.max(1) as f64 / 1e3
    }

    /// Wake-ups per period.
    pub fn wakeups_per_period(&self) -> f64 {
        self.usage.wakeups as f64 / self.periods.max(1) as f64
    }
}

impl SleepOnly {
    /// Start the thread: it sleeps until `per_period` evenly spaced instants of every period
    /// of `period_ns` (the first period starts one period after the call; each instant half a
    /// step in, clear of the instants a measured thread of the same period uses). Allocates
    /// (the thread): start it before counting allocations.
    pub fn start(period_ns: u64, per_period: u32) -> std::io::Result<SleepOnly> {
        use core::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("sleep-only".into())
            .spawn(move || {
                let per_period = u64::from(per_period.max(1));
                let step = (period_ns / per_period).max(1);
                let start = monotonic_ns() + period_ns;
                let before = thread_usage()?;
                let mut periods = 0;
                loop {
                    let release = start + periods * period_ns;
                    for k in 0..per_period {
                        sleep_until(release + k * step + step / 2);
                    }
                    periods += 1;
                    if flag.load(Ordering::Acquire) {
                        break;
                    }
                }
                let usage = thread_usage()?.since(before);
                Some(SleepOnlyFigures { usage, periods })
            })?;
        Ok(SleepOnly {
            stop,
            thread: Some(thread),
        })
    }

    /// Stop the thread after its current period and return its figures (`None` where the
    /// system has no per-thread usage).
    pub fn finish(mut self) -> Option<SleepOnlyFigures> {
        self.stop.store(true, core::sync::atomic::Ordering::Release);
        self.thread.take()?.join().ok().flatten()
    }
}

impl Drop for SleepOnly {
    /// Left unfinished (an early return between start and finish): the thread stops after its
    /// current period instead of sleeping on for the rest of the process. No join: a drop
    /// does not wait.
    fn drop(&mut self) {
        self.stop.store(true, core::sync::atomic::Ordering::Release);
    }
}

/// The calling thread's usage so far (`getrusage(RUSAGE_THREAD)`, Linux); `None` where the
/// system has no per-thread usage (QNX).
///
/// ```
/// # #[cfg(target_os = "linux")] {
/// let before = orin_exec::engine::os::thread_usage().unwrap();
/// let spent = orin_exec::engine::os::thread_usage().unwrap().since(before);
/// assert!(spent.cpu_ns < 1_000_000_000);
/// # }
/// ```
pub fn thread_usage() -> Option<ThreadUsage> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: an all-zero `rusage` is valid plain data.
        let mut ru: libc::rusage = unsafe { core::mem::zeroed() };
        // SAFETY: RUSAGE_THREAD exists on Linux; valid out-pointer.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) } != 0 {
            return None;
        }
        let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
        Some(ThreadUsage {
            cpu_ns: ns(ru.ru_utime) + ns(ru.ru_stime),
            wakeups: ru.ru_nvcsw as u64,
            preempted: ru.ru_nivcsw as u64,
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}
