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

/// Ask for `SCHED_FIFO` at `priority` for the calling thread and lock all memory. Failures
/// are reported, not fatal: a desktop user usually lacks the permission.
pub fn request_realtime(priority: i32) -> RealtimeStatus {
    let mut param = zeroed_param();
    param.sched_priority = priority;
    // SAFETY: valid sched_param for the calling thread.
    let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
    let (fifo, fifo_errno) = (rc == 0, rc);
    // SAFETY: plain system call.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    let (locked, lock_errno) = if rc == 0 { (true, 0) } else { (false, errno()) };
    RealtimeStatus {
        fifo,
        fifo_errno,
        locked,
        lock_errno,
    }
}

fn zeroed_param() -> libc::sched_param {
    // SAFETY: sched_param is plain data; all-zero is valid.
    unsafe { core::mem::zeroed() }
}

/// Ask for `SCHED_FIFO` at `priority` for the calling thread only (CPU workers).
pub fn request_fifo(priority: i32) -> bool {
    let mut param = zeroed_param();
    param.sched_priority = priority;
    // SAFETY: valid sched_param for the calling thread.
    unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) == 0 }
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
