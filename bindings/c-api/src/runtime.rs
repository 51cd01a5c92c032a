//! Runtime handles and their life cycle: create → bind → init → seal → step/run → shutdown →
//! destroy.
//!
//! A handle is a token (slot and generation), never a pointer the library dereferences: it
//! is looked up in a fixed table of live runtimes, so a forged, stale or destroyed handle is
//! refused. Each slot has a lock taken with `try_lock`: a second call on the same runtime
//! while one runs (another thread, or a callback calling back in) gets `ORIN_EXEC_E_BUSY`.

use core::ffi::c_void;
use std::sync::{Mutex, TryLockError};

use orin_exec::exec::{
    Builder, Config, Executive, FaultRecord, FrameReport, Initialized, SafeStop,
};
use orin_exec::table::{EngineKind, Schedule, TaskId};

use crate::arena::Arena;
use crate::ctx::{CBody, orin_exec_task_fn};
use crate::status::{Fail, fail, orin_exec_status_t, status};
use crate::tables::{Convert, action_code, fault_code, orin_exec_schedule_tables_t};

/// A runtime (opaque). Made by `orin_exec_create`, released by `orin_exec_destroy`.
pub struct orin_exec_runtime_t {
    _opaque: [u8; 0],
}

/// How many runtimes may exist at once in one process.
pub const ORIN_EXEC_MAX_RUNTIMES: u32 = 4;
const SLOTS_LEN: usize = ORIN_EXEC_MAX_RUNTIMES as usize;

/// The largest schedule a runtime of the C API holds: the runtime's limits of 64 tasks and
/// 64 buffers, up to 4 copies each, 8 CPU engines; and a trace ring of 512 records (the C API
/// has no trace drainer yet).
///
/// cbindgen:ignore
type CStorage = orin_exec::exec::Storage<64, 64, 256, 8, 512>;

/// Runtime options (`orin_exec_config_default` fills the defaults).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_config_t {
    /// Run on the SIL virtual clock (SIL builds only): deterministic, as fast as the CPU
    /// allows. Such a runtime must be the only one of its process while it runs (the SIL
    /// keeps one clock per process): init refuses it beside another runtime, and another
    /// beside it, with `ORIN_EXEC_E_INIT`.
    pub virtual_clock: bool,
    /// Record GPU start/end times with timer-stamp kernels around each launch.
    pub gpu_timestamps: bool,
    /// `SCHED_FIFO` priority 1..=99 of the executive and of workers the schedule gives none;
    /// 0: leave their scheduling policy as it is.
    pub realtime_priority: i32,
    /// CUDA device ordinal.
    pub gpu_ordinal: i32,
    /// Virtual clock only: real-time cap of one wait before it counts as a timeout, µs.
    pub virtual_wait_cap_us: u64,
}

/// What one major frame did (`orin_exec_step`, the health callback).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct orin_exec_frame_report_t {
    /// The frame.
    pub frame: u64,
    /// Its release error (actual minus planned), ns.
    pub release_error_ns: i64,
    /// Faults detected while monitoring it.
    pub faults: u32,
    /// Its mode.
    pub mode: u8,
    /// Whether the executive made a safe stop.
    pub stopped: bool,
}

/// A fault and the health monitor's reaction (fault callback, safe-state hook).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct orin_exec_fault_t {
    /// The frame it was detected in.
    pub frame: u64,
    /// The task.
    pub task: u16,
    /// `ORIN_EXEC_FAULT_*`.
    pub kind: u32,
    /// `ORIN_EXEC_ACTION_*`: the reaction taken.
    pub action: u32,
    /// `ORIN_EXEC_ACTION_SWITCH_MODE`: the mode switched to.
    pub mode: u8,
}

/// Per-task counters.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct orin_exec_task_counters_t {
    /// Completed runs (not skipped).
    pub runs: u64,
    /// Deadline misses.
    pub deadline_misses: u64,
    /// Budget overruns.
    pub overruns: u64,
    /// Fence timeouts.
    pub timeouts: u64,
    /// Engine or task errors.
    pub errors: u64,
    /// Runs skipped by the health monitor.
    pub skipped: u64,
}

/// Called once per detected fault, from `orin_exec_step`, after the frame (on the caller's
/// thread). Must not call `orin_exec_*` functions on the same runtime (`ORIN_EXEC_E_BUSY`).
pub type orin_exec_fault_fn =
    Option<unsafe extern "C" fn(fault: *const orin_exec_fault_t, user: *mut c_void)>;

/// Called once per frame, from `orin_exec_step`, with its report (on the caller's thread).
pub type orin_exec_health_fn =
    Option<unsafe extern "C" fn(report: *const orin_exec_frame_report_t, user: *mut c_void)>;

/// The safe-state hook: called by the health monitor on a safe stop, right after detection,
/// on the thread running `orin_exec_step`; no frame is released after it.
pub type orin_exec_safe_state_fn =
    Option<unsafe extern "C" fn(fault: *const orin_exec_fault_t, user: *mut c_void)>;

/// A C callback and its user pointer.
///
/// cbindgen:ignore
#[derive(Clone, Copy)]
struct Hook<F> {
    f: F,
    user: *mut c_void,
}

// SAFETY: the header documents on which thread each callback runs; the caller that registers
// it guarantees that `user` may be used there.
unsafe impl<F: Send> Send for Hook<F> {}

// One per runtime, inside its boxed `Instance`: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
enum Phase {
    Created,
    Initialized(Initialized),
    Sealed(Executive),
    /// Shut down, or init/seal failed: only destroy is left.
    Done,
}

struct Instance {
    arena: Arena,
    schedule: &'static Schedule,
    config: Config,
    phase: Phase,
    bodies: Vec<(TaskId, &'static mut CBody)>,
    bound: u64,
    costs: Vec<(TaskId, u64)>,
    fault: Option<Hook<unsafe extern "C" fn(*const orin_exec_fault_t, *mut c_void)>>,
    health: Option<Hook<unsafe extern "C" fn(*const orin_exec_frame_report_t, *mut c_void)>>,
    /// Whether the arena can be freed at destroy (no thread or engine can still use it).
    reclaimable: bool,
}

struct Slot {
    generation: u32,
    instance: Option<Box<Instance>>,
}

static SLOTS: [Mutex<Slot>; SLOTS_LEN] = [const {
    Mutex::new(Slot {
        generation: 0,
        instance: None,
    })
}; SLOTS_LEN];

/// The safe-state hooks, per slot, with the schedule (for the task id): apart from `SLOTS`,
/// whose lock the stepping thread holds while the monitor calls the hook.
///
/// cbindgen:ignore
type SafeHook = (
    Hook<unsafe extern "C" fn(*const orin_exec_fault_t, *mut c_void)>,
    &'static Schedule,
);
static SAFE_HOOKS: [Mutex<Option<SafeHook>>; SLOTS_LEN] = [const { Mutex::new(None) }; SLOTS_LEN];

/// The runtime's safe-state function of slot `I` (a plain `fn`: it finds its hook by slot).
fn safe_state<const I: usize>(stop: &SafeStop) {
    let hook = match SAFE_HOOKS[I].lock() {
        Ok(h) => *h,
        Err(poisoned) => *poisoned.into_inner(),
    };
    if let Some((hook, schedule)) = hook {
        let fault = orin_exec_fault_t {
            frame: stop.frame,
            task: schedule.task_by_name(stop.task).map_or(u16::MAX, |t| t.0),
            kind: fault_code(stop.fault),
            action: crate::tables::ORIN_EXEC_ACTION_SAFE_STOP,
            mode: 0,
        };
        // SAFETY: the function and user pointer registered by `orin_exec_set_safe_state`, with
        // the documented signature; `fault` lives across the call.
        unsafe { (hook.f)(&fault, hook.user) };
    }
}

const SAFE_STATE: [fn(&SafeStop); SLOTS_LEN] = [
    safe_state::<0>,
    safe_state::<1>,
    safe_state::<2>,
    safe_state::<3>,
];

/// Slot bits of a handle token; the rest is the generation.
const SLOT_BITS: u32 = 3;

fn token(slot: usize, generation: u32) -> *mut orin_exec_runtime_t {
    let bits = ((generation as usize) << SLOT_BITS) | (slot + 1);
    core::ptr::without_provenance_mut(bits)
}

/// The slot and generation of a handle, if it has the shape of one.
fn decode(handle: *const orin_exec_runtime_t) -> Option<(usize, u32)> {
    let bits = handle.addr();
    let slot = (bits & ((1 << SLOT_BITS) - 1)).checked_sub(1)?;
    (slot < SLOTS_LEN).then_some((slot, (bits >> SLOT_BITS) as u32))
}

/// The generation after `g`, as it fits a handle.
fn next_generation(g: u32) -> u32 {
    g.wrapping_add(1) & (usize::MAX >> SLOT_BITS) as u32
}

/// Runs `f` on the live runtime behind `handle`, holding its slot.
fn with<T>(
    handle: *const orin_exec_runtime_t,
    what: &str,
    f: impl FnOnce(&mut Instance, usize) -> Result<T, Fail>,
) -> Result<T, Fail> {
    let Some((slot, generation)) = decode(handle) else {
        fail!(
            ORIN_EXEC_E_HANDLE,
            "{what}: the handle is not a runtime of orin_exec_create"
        );
    };
    let mut guard = match SLOTS[slot].try_lock() {
        Ok(g) => g,
        Err(TryLockError::WouldBlock) => {
            fail!(
                ORIN_EXEC_E_BUSY,
                "{what}: another call is using this runtime"
            );
        }
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
    };
    let live = guard.generation == generation;
    match guard.instance.as_mut() {
        Some(i) if live => f(i, slot),
        _ => fail!(
            ORIN_EXEC_E_HANDLE,
            "{what}: the runtime was destroyed (or never created)"
        ),
    }
}

/// Fills `config` with the defaults: real clock, SCHED_FIFO 10, GPU 0 with timestamps, a
/// 2 s virtual wait cap.
///
/// # Safety
/// `config` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_config_default(
    config: *mut orin_exec_config_t,
) -> orin_exec_status_t {
    status((|| {
        if config.is_null() {
            fail!(
                ORIN_EXEC_E_NULL,
                "orin_exec_config_default: `config` is NULL"
            );
        }
        let d = Config::default();
        let c = orin_exec_config_t {
            virtual_clock: d.virtual_clock,
            gpu_timestamps: d.gpu_timestamps,
            realtime_priority: d.realtime_priority.unwrap_or(0),
            gpu_ordinal: d.gpu_ordinal,
            virtual_wait_cap_us: d.virtual_wait_cap_us,
        };
        // SAFETY: non-NULL and valid for writes by the caller's contract.
        unsafe { config.write(c) };
        Ok(())
    })())
}

fn config(c: &orin_exec_config_t) -> Result<Config, Fail> {
    let realtime_priority = match c.realtime_priority {
        0 => None,
        p @ 1..=99 => Some(p),
        p => fail!(
            ORIN_EXEC_E_ARGUMENT,
            "config.realtime_priority is {p}: give 1..=99, or 0 to leave the policy as it is"
        ),
    };
    if cfg!(not(feature = "sil")) && c.virtual_clock {
        fail!(
            ORIN_EXEC_E_UNSUPPORTED,
            "config.virtual_clock needs a SIL build of liborin_exec_capi"
        );
    }
    Ok(Config {
        virtual_clock: c.virtual_clock,
        realtime_priority,
        gpu_ordinal: c.gpu_ordinal,
        gpu_timestamps: c.gpu_timestamps,
        virtual_wait_cap_us: c.virtual_wait_cap_us,
    })
}

/// Creates a runtime from generated tables: copies them, checks them (`Schedule::check`, the
/// validator's rules) and sets `*out`. `config` may be NULL (the defaults). Nothing runs yet:
/// bind the CPU tasks, then `orin_exec_init`.
///
/// Errors: `ORIN_EXEC_E_NULL`, `ORIN_EXEC_E_ABI`, `ORIN_EXEC_E_TABLES`, `ORIN_EXEC_E_SCHEDULE`,
/// `ORIN_EXEC_E_ARGUMENT` (config), `ORIN_EXEC_E_CAPACITY` (`ORIN_EXEC_MAX_RUNTIMES` exist).
///
/// # Safety
/// `tables` is NULL or valid tables as the header documents them (what `orin-exec generate
/// --lang c` emits); `config` is NULL or valid; `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_create(
    tables: *const orin_exec_schedule_tables_t,
    config: *const orin_exec_config_t,
    out: *mut *mut orin_exec_runtime_t,
) -> orin_exec_status_t {
    status((|| {
        if tables.is_null() || out.is_null() {
            fail!(
                ORIN_EXEC_E_NULL,
                "orin_exec_create: `tables` or `out` is NULL"
            );
        }
        let config = if config.is_null() {
            Config::default()
        } else {
            // SAFETY: non-NULL and valid by the caller's contract.
            self::config(unsafe { &*config })?
        };
        let mut arena = Arena::default();
        // SAFETY: non-NULL; the caller's contract covers what the tables point to.
        let tables = unsafe { Convert { arena: &mut arena }.tables(&*tables) }?;
        let schedule = Schedule::check(tables).map_err(|e| {
            Fail::new(
                orin_exec_status_t::ORIN_EXEC_E_SCHEDULE,
                format_args!("the schedule `{}` is refused: {}", tables.name, e.message()),
            )
        })?;
        let schedule: &'static Schedule = arena.keep(schedule);
        let mut instance = Some(Box::new(Instance {
            arena,
            schedule,
            config,
            phase: Phase::Created,
            bodies: Vec::new(),
            bound: 0,
            costs: Vec::new(),
            fault: None,
            health: None,
            reclaimable: true,
        }));
        for (i, slot) in SLOTS.iter().enumerate() {
            let Ok(mut slot) = slot.try_lock() else {
                continue;
            };
            if slot.instance.is_none() {
                slot.generation = next_generation(slot.generation);
                slot.instance = instance.take();
                // SAFETY: `out` is non-NULL and valid for writes by the caller's contract.
                unsafe { out.write(token(i, slot.generation)) };
                return Ok(());
            }
        }
        if let Some(i) = instance {
            // SAFETY: nothing borrows the arena: the runtime was never built.
            unsafe { i.arena.free() };
        }
        fail!(
            ORIN_EXEC_E_CAPACITY,
            "orin_exec_create: {ORIN_EXEC_MAX_RUNTIMES} runtimes exist; destroy one first"
        );
    })())
}

impl Instance {
    fn created(&self, what: &str) -> Result<(), Fail> {
        match self.phase {
            Phase::Created => Ok(()),
            _ => fail!(ORIN_EXEC_E_PHASE, "{what}: only before orin_exec_init"),
        }
    }

    /// The index of CPU task `task`.
    fn cpu_task(&self, task: u16, what: &str) -> Result<usize, Fail> {
        let s = self.schedule;
        let Some(t) = s.tasks.get(task as usize) else {
            fail!(
                ORIN_EXEC_E_TASK,
                "{what}: task id {task} is out of range (the schedule `{}` has {} tasks)",
                s.name,
                s.tasks.len()
            );
        };
        if s.engines.get(t.engine.0 as usize).map(|e| e.kind) != Some(EngineKind::Cpu) {
            fail!(
                ORIN_EXEC_E_TASK,
                "{what}: task `{}` is not a CPU task",
                t.name
            );
        }
        Ok(task as usize)
    }
}

/// An empty storage on the heap. It is some MiB, and an unoptimized build makes it on the
/// stack before moving it: that is done on a helper thread with a stack large enough, not on
/// the caller's (which may be small).
fn new_storage() -> Result<Box<CStorage>, Fail> {
    /// A fresh, empty storage: no handle, no body, no borrow of anything yet.
    struct Empty(Box<CStorage>);
    // SAFETY: the storage is empty (as `Storage::new` makes it): it holds no OS, driver or
    // task object that would be tied to the thread that made it.
    unsafe impl Send for Empty {}
    std::thread::Builder::new()
        .name("orin-exec-storage".into())
        .stack_size(4 * CStorage::footprint() + (1 << 20))
        .spawn(|| Empty(Box::new(CStorage::new())))
        .ok()
        .and_then(|t| t.join().ok())
        .map(|e| e.0)
        .ok_or_else(|| {
            Fail::new(
                orin_exec_status_t::ORIN_EXEC_E_INIT,
                format_args!("orin_exec_init: cannot start the thread that allocates the storage"),
            )
        })
}

/// Binds the C function of CPU task `task` (an id from the generated header). Each CPU task
/// needs exactly one binding before `orin_exec_init`.
///
/// Errors: `ORIN_EXEC_E_HANDLE`, `ORIN_EXEC_E_NULL` (`task_fn`), `ORIN_EXEC_E_TASK` (out of range or
/// not a CPU task), `ORIN_EXEC_E_BINDING` (bound already), `ORIN_EXEC_E_PHASE` (after init).
///
/// `user` is passed to every call of `task_fn`, on the task's worker thread.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_bind(
    rt: *mut orin_exec_runtime_t,
    task: u16,
    task_fn: orin_exec_task_fn,
    user: *mut c_void,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_bind", |i, _| {
        i.created("orin_exec_bind")?;
        let t = i.cpu_task(task, "orin_exec_bind")?;
        let Some(f) = task_fn else {
            fail!(
                ORIN_EXEC_E_NULL,
                "orin_exec_bind: the task function is NULL"
            );
        };
        if i.bound & (1 << t) != 0 {
            fail!(
                ORIN_EXEC_E_BINDING,
                "orin_exec_bind: task `{}` is bound already",
                i.schedule.tasks[t].name
            );
        }
        let body = i.arena.keep_mut(Box::new(CBody { f, user }));
        i.bodies.push((TaskId(task), body));
        i.bound |= 1 << t;
        Ok(())
    }))
}

/// Virtual clock only: how long CPU task `task` takes, ns (default: half its WCET).
///
/// Errors: `ORIN_EXEC_E_HANDLE`, `ORIN_EXEC_E_TASK`, `ORIN_EXEC_E_PHASE` (after init).
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_set_virtual_cost(
    rt: *mut orin_exec_runtime_t,
    task: u16,
    ns: u64,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_set_virtual_cost", |i, _| {
        i.created("orin_exec_set_virtual_cost")?;
        i.cpu_task(task, "orin_exec_set_virtual_cost")?;
        i.costs.push((TaskId(task), ns));
        Ok(())
    }))
}

/// Sets (or, with NULL, clears) the fault callback. Allowed in any phase before shutdown.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_set_fault_callback(
    rt: *mut orin_exec_runtime_t,
    callback: orin_exec_fault_fn,
    user: *mut c_void,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_set_fault_callback", |i, _| {
        i.fault = callback.map(|f| Hook { f, user });
        Ok(())
    }))
}

/// Sets (or, with NULL, clears) the per-frame health callback. Allowed in any phase.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_set_health_callback(
    rt: *mut orin_exec_runtime_t,
    callback: orin_exec_health_fn,
    user: *mut c_void,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_set_health_callback", |i, _| {
        i.health = callback.map(|f| Hook { f, user });
        Ok(())
    }))
}

/// Sets (or, with NULL, clears) the safe-state hook. Only before `orin_exec_init`
/// (`ORIN_EXEC_E_PHASE`).
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_set_safe_state(
    rt: *mut orin_exec_runtime_t,
    callback: orin_exec_safe_state_fn,
    user: *mut c_void,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_set_safe_state", |i, slot| {
        i.created("orin_exec_set_safe_state")?;
        let hook = callback.map(|f| (Hook { f, user }, i.schedule));
        match SAFE_HOOKS[slot].lock() {
            Ok(mut h) => *h = hook,
            Err(p) => *p.into_inner() = hook,
        }
        Ok(())
    }))
}

/// Builds every object of the schedule, warms every work item up and starts the CPU workers.
/// Call it on the thread that will call `orin_exec_step` (it becomes the executive).
///
/// Errors: `ORIN_EXEC_E_HANDLE`, `ORIN_EXEC_E_PHASE` (not just created), `ORIN_EXEC_E_BINDING`
/// (a CPU task without binding; the message names it), `ORIN_EXEC_E_INIT` (the platform
/// failed; only destroy is left).
///
/// A failed init releases what it had built (joins the workers it started, releases the
/// engine objects); `orin_exec_destroy` then frees all of the runtime's memory, so a partition
/// may create and init again without losing any. Only if that release failed too (a hung
/// engine) may something still use the memory: destroy then keeps it (a leak, never freed
/// under a thread), and the message of this call says so.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_init(rt: *mut orin_exec_runtime_t) -> orin_exec_status_t {
    status(with(rt, "orin_exec_init", |i, slot| {
        i.created("orin_exec_init")?;
        let s = i.schedule;
        for (t, task) in s.tasks.iter().enumerate() {
            let cpu =
                s.engines.get(task.engine.0 as usize).map(|e| e.kind) == Some(EngineKind::Cpu);
            if cpu && i.bound & (1 << t) == 0 {
                fail!(
                    ORIN_EXEC_E_BINDING,
                    "orin_exec_init: CPU task `{}` (id {t}) has no function: call orin_exec_bind",
                    task.name
                );
            }
        }
        let storage = i.arena.keep_mut(new_storage()?);
        let mut b = Builder::new(s, storage)
            .config(i.config)
            .safe_state(SAFE_STATE[slot]);
        for (task, body) in i.bodies.drain(..) {
            b = b.bind(task, body);
        }
        for &(task, ns) in &i.costs {
            b = b.virtual_cost(task, ns);
        }
        match b.try_init() {
            Ok(r) => {
                i.phase = Phase::Initialized(r);
                Ok(())
            }
            Err(f) => {
                i.phase = Phase::Done;
                let fail = Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_INIT, &f.error);
                match f.release {
                    // Every worker joined and every engine object released: nothing uses the
                    // arena any more, and destroy frees it.
                    Ok(()) => Err(fail),
                    Err(release) => {
                        // Some engine (a library thread) may still use the storage, the
                        // tables or the bodies: destroy leaks the arena rather than free it
                        // under them.
                        i.reclaimable = false;
                        Err(Fail::new(
                            fail.status,
                            format_args!(
                                "orin_exec_init failed and releasing what it built failed too ({release}): destroy keeps this runtime's memory; init: {}",
                                f.error
                            ),
                        ))
                    }
                }
            }
        }
    }))
}

/// Between init and seal: copies `len` bytes from `data` into copy `copy` of CPU-visible buffer
/// `buffer` (inputs, constants).
///
/// # Safety
/// `data` is NULL or valid for `len` bytes of reads.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_write_buffer(
    rt: *mut orin_exec_runtime_t,
    buffer: u16,
    copy: u32,
    data: *const c_void,
    len: usize,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_write_buffer", |i, _| {
        let Phase::Initialized(r) = &mut i.phase else {
            fail!(
                ORIN_EXEC_E_PHASE,
                "orin_exec_write_buffer: only between init and seal"
            );
        };
        if data.is_null() && len > 0 {
            fail!(ORIN_EXEC_E_NULL, "orin_exec_write_buffer: `data` is NULL");
        }
        let bytes = if len == 0 {
            &[][..]
        } else {
            // SAFETY: non-NULL and valid for `len` bytes by the caller's contract.
            unsafe { core::slice::from_raw_parts(data.cast::<u8>(), len) }
        };
        r.write_buffer(orin_exec::table::BufferId(buffer), copy as usize, bytes)
            .map_err(|e| Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_BUFFER, &e))?;
        Ok(())
    }))
}

/// Seals the runtime: from now on no call of this API allocates, loads or registers
/// anything. Call `orin_exec_step` from this thread.
///
/// Errors: `ORIN_EXEC_E_HANDLE`, `ORIN_EXEC_E_PHASE` (not initialized), `ORIN_EXEC_E_INIT`.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_seal(rt: *mut orin_exec_runtime_t) -> orin_exec_status_t {
    status(with(
        rt,
        "orin_exec_seal",
        |i, _| match core::mem::replace(&mut i.phase, Phase::Done) {
            Phase::Initialized(r) => match r.seal() {
                Ok(e) => {
                    i.phase = Phase::Sealed(e);
                    Ok(())
                }
                Err(e) => {
                    i.reclaimable = false;
                    Err(Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_INIT, &e))
                }
            },
            other => {
                i.phase = other;
                fail!(
                    ORIN_EXEC_E_PHASE,
                    "orin_exec_seal: only after orin_exec_init, once"
                )
            }
        },
    ))
}

fn report(r: &FrameReport) -> orin_exec_frame_report_t {
    orin_exec_frame_report_t {
        frame: r.frame,
        release_error_ns: r.release_error_ns,
        faults: r.faults,
        mode: r.mode.0,
        stopped: r.stopped,
    }
}

fn fault(r: &FaultRecord) -> orin_exec_fault_t {
    let (action, mode) = action_code(r.action);
    orin_exec_fault_t {
        frame: r.frame,
        task: r.task.0,
        kind: fault_code(r.kind),
        action,
        mode,
    }
}

impl Instance {
    /// One frame, then the callbacks. Allocation-free.
    fn step(&mut self) -> Result<orin_exec_frame_report_t, Fail> {
        let Phase::Sealed(exec) = &mut self.phase else {
            fail!(
                ORIN_EXEC_E_PHASE,
                "orin_exec_step: only after orin_exec_seal"
            );
        };
        let r = exec
            .step()
            .map_err(|e| Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_RUNTIME, &e))?;
        if let Some(h) = self.fault {
            // The frame's faults are the newest records (the executive keeps the last 16).
            let kept = exec.recent_faults().count();
            let skip = kept.saturating_sub(r.faults as usize);
            for f in exec.recent_faults().skip(skip) {
                let f = fault(f);
                // SAFETY: the callback registered with its documented signature.
                unsafe { (h.f)(&f, h.user) };
            }
        }
        let report = report(&r);
        if let Some(h) = self.health {
            // SAFETY: the callback registered with its documented signature.
            unsafe { (h.f)(&report, h.user) };
        }
        Ok(report)
    }
}

/// Runs one major frame: releases it at its time, submits, monitors, reacts; then calls the
/// fault callback per fault and the health callback. `report` may be NULL.
///
/// Errors: `ORIN_EXEC_E_HANDLE`, `ORIN_EXEC_E_PHASE` (not sealed), `ORIN_EXEC_E_SAFE_STOPPED`,
/// `ORIN_EXEC_E_RUNTIME`, `ORIN_EXEC_E_BUSY`.
///
/// # Safety
/// `report` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_step(
    rt: *mut orin_exec_runtime_t,
    report: *mut orin_exec_frame_report_t,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_step", |i, _| {
        let r = i.step()?;
        if !report.is_null() {
            // SAFETY: non-NULL and valid for writes by the caller's contract.
            unsafe { report.write(r) };
        }
        Ok(())
    }))
}

/// Runs `frames` frames (stops early after a safe stop, which is then reported in `last`
/// and is not an error). `last` (may be NULL) receives the last frame's report.
///
/// # Safety
/// `last` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_run(
    rt: *mut orin_exec_runtime_t,
    frames: u64,
    last: *mut orin_exec_frame_report_t,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_run", |i, _| {
        for _ in 0..frames {
            let r = i.step()?;
            if !last.is_null() {
                // SAFETY: non-NULL and valid for writes by the caller's contract.
                unsafe { last.write(r) };
            }
            if r.stopped {
                break;
            }
        }
        Ok(())
    }))
}

/// The counters of task `task` (after seal).
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_task_counters(
    rt: *const orin_exec_runtime_t,
    task: u16,
    out: *mut orin_exec_task_counters_t,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_task_counters", |i, _| {
        if out.is_null() {
            fail!(ORIN_EXEC_E_NULL, "orin_exec_task_counters: `out` is NULL");
        }
        let Phase::Sealed(exec) = &i.phase else {
            fail!(
                ORIN_EXEC_E_PHASE,
                "orin_exec_task_counters: only after orin_exec_seal"
            );
        };
        if task as usize >= i.schedule.tasks.len() {
            fail!(
                ORIN_EXEC_E_TASK,
                "orin_exec_task_counters: task id {task} is out of range"
            );
        }
        let c = exec.counters(TaskId(task));
        let c = orin_exec_task_counters_t {
            runs: c.runs,
            deadline_misses: c.deadline_misses,
            overruns: c.overruns,
            timeouts: c.timeouts,
            errors: c.errors,
            skipped: c.skipped,
        };
        // SAFETY: non-NULL and valid for writes by the caller's contract.
        unsafe { out.write(c) };
        Ok(())
    }))
}

impl Instance {
    /// Stops the workers and engines and releases everything (after init); the first failure.
    fn shutdown(&mut self) -> Result<(), Fail> {
        let exec = match core::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Sealed(e) => e,
            // Sealing allocates nothing and makes the executive that knows how to stop.
            Phase::Initialized(r) => match r.seal() {
                Ok(e) => e,
                Err(e) => {
                    self.reclaimable = false;
                    return Err(Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_SHUTDOWN, &e));
                }
            },
            Phase::Created | Phase::Done => return Ok(()),
        };
        exec.shutdown().map_err(|e| {
            self.reclaimable = false;
            Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_SHUTDOWN, &e)
        })
    }
}

/// Stops the workers and engines and releases every object of the runtime; the handle stays
/// valid for `orin_exec_destroy` only. Nothing to do before init.
///
/// Errors: `ORIN_EXEC_E_HANDLE`, `ORIN_EXEC_E_SHUTDOWN` (released everything, but something
/// failed on the way; the message says what).
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_shutdown(rt: *mut orin_exec_runtime_t) -> orin_exec_status_t {
    status(with(rt, "orin_exec_shutdown", |i, _| i.shutdown()))
}

/// Shuts the runtime down if needed and frees it; the handle is invalid afterwards (any later
/// use is `ORIN_EXEC_E_HANDLE`). NULL is accepted and does nothing.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_destroy(rt: *mut orin_exec_runtime_t) -> orin_exec_status_t {
    if rt.is_null() {
        return orin_exec_status_t::ORIN_EXEC_OK;
    }
    status((|| {
        let (mut instance, slot) = with(rt, "orin_exec_destroy", |_, slot| Ok(slot))
            .and_then(|slot| take(slot).map(|i| (i, slot)))?;
        let shut = instance.shutdown();
        match SAFE_HOOKS[slot].lock() {
            Ok(mut h) => *h = None,
            Err(p) => *p.into_inner() = None,
        }
        let Instance {
            arena,
            reclaimable,
            phase,
            bodies,
            ..
        } = *instance;
        drop((phase, bodies));
        if reclaimable {
            // SAFETY: the runtime is shut down (its threads joined, its engines released) or
            // was never built, and its phase and bodies are dropped: nothing borrows the arena.
            unsafe { arena.free() };
        }
        shut
    })())
}

/// Takes the instance out of `slot` and invalidates its handles.
fn take(slot: usize) -> Result<Box<Instance>, Fail> {
    let mut guard = match SLOTS[slot].try_lock() {
        Ok(g) => g,
        Err(TryLockError::WouldBlock) => {
            fail!(
                ORIN_EXEC_E_BUSY,
                "orin_exec_destroy: another call is using this runtime"
            )
        }
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
    };
    guard.generation = next_generation(guard.generation);
    match guard.instance.take() {
        Some(i) => Ok(i),
        None => fail!(
            ORIN_EXEC_E_HANDLE,
            "orin_exec_destroy: the runtime was destroyed"
        ),
    }
}

/// SIL only: registers the project's kernel reference models (`orin-exec-kernels`) for every
/// GPU kernel of the schedule, so SIL CUDA runs them (what the Rust AEB demo does). Before
/// `orin_exec_init`. Other builds: `ORIN_EXEC_E_UNSUPPORTED`.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_sil_register_kernel_models(
    rt: *mut orin_exec_runtime_t,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_sil_register_kernel_models", |_i, _| {
        #[cfg(feature = "sil")]
        {
            _i.created("orin_exec_sil_register_kernel_models")?;
            orin_exec_kernels::register_models(
                _i.schedule.tables(),
                orin_exec::sil::register_kernel_model,
            )
            .map_err(|e| Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_INIT, &e))?;
            Ok(())
        }
        #[cfg(not(feature = "sil"))]
        fail!(
            ORIN_EXEC_E_UNSUPPORTED,
            "orin_exec_sil_register_kernel_models: SIL builds only"
        )
    }))
}

/// SIL and rig only (both run the SIL cuPVA), before `orin_exec_init`: the schedule's PVA
/// program `program` runs on the SIL cuPVA as the project's reference model `kernel` of module
/// `module` (`orin-exec-kernels`; the Rust AEB demo runs its VPU program `aeb_preprocess` as
/// the model of the GPU kernel `aeb`/`aeb_preprocess`), bound to the SHA-256 of the program's
/// VPU image and the parameter names of its manifest, and the image is allowlisted (as PVA
/// authentication would on a target). On `orin` the VPU runs the image:
/// `ORIN_EXEC_E_UNSUPPORTED`.
///
/// # Safety
/// `program`, `module` and `kernel` are NULL or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_sil_register_pva_model(
    rt: *mut orin_exec_runtime_t,
    program: *const core::ffi::c_char,
    module: *const core::ffi::c_char,
    kernel: *const core::ffi::c_char,
) -> orin_exec_status_t {
    const WHAT: &str = "orin_exec_sil_register_pva_model";
    status(with(rt, WHAT, |_i, _| {
        let mut text = [""; 3];
        for (slot, (p, name)) in
            text.iter_mut()
                .zip([(program, "program"), (module, "module"), (kernel, "kernel")])
        {
            if p.is_null() {
                fail!(ORIN_EXEC_E_NULL, "{WHAT}: `{name}` is NULL");
            }
            // SAFETY: non-NULL and NUL-terminated by the caller's contract.
            let c = unsafe { core::ffi::CStr::from_ptr(p) };
            let Ok(text) = c.to_str() else {
                fail!(ORIN_EXEC_E_ARGUMENT, "{WHAT}: `{name}` is not UTF-8");
            };
            *slot = text;
        }
        #[cfg(any(feature = "sil", feature = "rig"))]
        {
            _i.created(WHAT)?;
            let [program, module, kernel] = text;
            let Some(desc) = _i
                .schedule
                .tables()
                .pva_programs
                .iter()
                .find(|p| p.name == program)
            else {
                fail!(
                    ORIN_EXEC_E_ARGUMENT,
                    "{WHAT}: the schedule has no PVA program `{program}`"
                );
            };
            let Some(model) = orin_exec_kernels::model(module, kernel) else {
                fail!(
                    ORIN_EXEC_E_ARGUMENT,
                    "{WHAT}: orin-exec-kernels has no model `{module}`/`{kernel}`"
                );
            };
            let names: Vec<&str> = desc.params.iter().map(|p| p.name).collect();
            orin_exec::sil::register_pva_program_model(desc.name, &[desc.sha256], &names, model)
                .map_err(|e| Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_INIT, &e))?;
            orin_exec::sil::allow_pva_program(desc.sha256);
            Ok(())
        }
        #[cfg(not(any(feature = "sil", feature = "rig")))]
        {
            let _ = text;
            fail!(ORIN_EXEC_E_UNSUPPORTED, "{WHAT}: SIL and rig builds only");
        }
    }))
}

/// SIL and rig only, between init and seal: the SIL DLA of engine `engine` takes a uniformly
/// drawn time in `[min_ns, max_ns]` per task, from a generator seeded with `seed` (what the
/// Rust AEB demo sets). Other builds: `ORIN_EXEC_E_UNSUPPORTED`.
#[unsafe(no_mangle)]
pub extern "C" fn orin_exec_sil_set_dla_timing(
    rt: *mut orin_exec_runtime_t,
    engine: u8,
    min_ns: u64,
    max_ns: u64,
    seed: u64,
) -> orin_exec_status_t {
    status(with(rt, "orin_exec_sil_set_dla_timing", |_i, _| {
        #[cfg(any(feature = "sil", feature = "rig"))]
        {
            let Phase::Initialized(r) = &_i.phase else {
                fail!(
                    ORIN_EXEC_E_PHASE,
                    "orin_exec_sil_set_dla_timing: only between init and seal"
                );
            };
            if min_ns > max_ns {
                fail!(
                    ORIN_EXEC_E_ARGUMENT,
                    "orin_exec_sil_set_dla_timing: min_ns > max_ns"
                );
            }
            let model =
                orin_exec::engine::platform::dla_sil::TimingModel::uniform(min_ns, max_ns, seed);
            r.set_dla_timing(orin_exec::table::EngineId(engine), &model)
                .map_err(|e| Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_ARGUMENT, &e))?;
            Ok(())
        }
        #[cfg(not(any(feature = "sil", feature = "rig")))]
        {
            let _ = (engine, min_ns, max_ns, seed);
            fail!(
                ORIN_EXEC_E_UNSUPPORTED,
                "orin_exec_sil_set_dla_timing: SIL and rig builds only"
            )
        }
    }))
}
