//! The C tables of a two-task CPU schedule built in Rust (what `tests/c/pipeline.toml`
//! generates): `producer` writes buffer 0, `consumer` reads it; a `task_error` of `consumer`
//! makes a safe stop. Tests take a copy and break one field.
#![allow(dead_code)]

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec_capi::*;

pub const PRODUCER: u16 = 0;
pub const CONSUMER: u16 = 1;
pub const VALUE: u16 = 0;

/// The arrays the tables point to (kept alive with them).
pub struct Pipeline {
    pub engines: Vec<orin_exec_engine_desc_t>,
    pub buffers: Vec<orin_exec_buffer_desc_t>,
    pub tasks: Vec<orin_exec_task_desc_t>,
    pub modes: Vec<orin_exec_mode_desc_t>,
    pub health: Vec<orin_exec_health_rule_t>,
    pub minor: Vec<u64>,
    pub reads: Vec<u16>,
    pub writes: Vec<u16>,
    pub waits_producer: Vec<orin_exec_wait_t>,
    pub waits_consumer: Vec<orin_exec_wait_t>,
}

const fn task(name: &'static std::ffi::CStr) -> orin_exec_task_desc_t {
    orin_exec_task_desc_t {
        name: name.as_ptr(),
        engine: 0,
        work: ORIN_EXEC_WORK_CPU,
        artifact: 0,
        kernel: std::ptr::null(),
        grid: [0; 3],
        block: [0; 3],
        shared_mem_bytes: 0,
        params: std::ptr::null(),
        params_len: 0,
        inputs: std::ptr::null(),
        inputs_len: 0,
        outputs: std::ptr::null(),
        outputs_len: 0,
        wcet_ns: 100_000,
        budget_ns: 100_000,
        deadline_ns: 400_000,
        release_ns: 0,
        reads: std::ptr::null(),
        reads_len: 0,
        writes: std::ptr::null(),
        writes_len: 0,
        waits: std::ptr::null(),
        waits_len: 0,
        modes: u32::MAX,
    }
}

impl Pipeline {
    pub fn new() -> Box<Pipeline> {
        let mut p = Box::new(Pipeline {
            engines: vec![orin_exec_engine_desc_t {
                name: c"cpu0".as_ptr(),
                kind: ORIN_EXEC_ENGINE_CPU,
                instance: 0,
                graph: false,
                queue_capacity: 4,
                vpu: ORIN_EXEC_VPU_NONE,
            }],
            buffers: vec![orin_exec_buffer_desc_t {
                name: c"value".as_ptr(),
                kind: ORIN_EXEC_BUFFER_RAW,
                data_type: 0,
                size: 8,
                align: 64,
                dims: [0; 4],
                multiplicity: 1,
                cpu_access: true,
            }],
            tasks: vec![task(c"producer"), task(c"consumer")],
            modes: vec![orin_exec_mode_desc_t {
                name: c"normal".as_ptr(),
            }],
            health: vec![orin_exec_health_rule_t {
                fault: ORIN_EXEC_FAULT_TASK_ERROR,
                scope: ORIN_EXEC_SCOPE_TASK,
                scope_id: CONSUMER,
                action: ORIN_EXEC_ACTION_SAFE_STOP,
                mode: 0,
            }],
            minor: vec![0],
            reads: vec![VALUE],
            writes: vec![VALUE],
            waits_producer: vec![orin_exec_wait_t {
                task: CONSUMER,
                lag: 1,
            }],
            waits_consumer: vec![orin_exec_wait_t {
                task: PRODUCER,
                lag: 0,
            }],
        });
        let p_ref = &mut *p;
        p_ref.tasks[0].writes = p_ref.writes.as_ptr();
        p_ref.tasks[0].writes_len = 1;
        p_ref.tasks[0].waits = p_ref.waits_producer.as_ptr();
        p_ref.tasks[0].waits_len = 1;
        p_ref.tasks[1].reads = p_ref.reads.as_ptr();
        p_ref.tasks[1].reads_len = 1;
        p_ref.tasks[1].waits = p_ref.waits_consumer.as_ptr();
        p_ref.tasks[1].waits_len = 1;
        p_ref.tasks[1].deadline_ns = 800_000;
        p
    }

    pub fn tables(&self) -> orin_exec_schedule_tables_t {
        orin_exec_schedule_tables_t {
            abi_version: ORIN_EXEC_ABI_VERSION,
            name: c"pipeline".as_ptr(),
            profile: c"sil".as_ptr(),
            period_ns: 1_000_000,
            minor_frames_ns: self.minor.as_ptr(),
            minor_frames_len: self.minor.len(),
            lookahead: 0,
            threads: std::ptr::null(),
            threads_len: 0,
            engines: self.engines.as_ptr(),
            engines_len: self.engines.len(),
            buffers: self.buffers.as_ptr(),
            buffers_len: self.buffers.len(),
            tasks: self.tasks.as_ptr(),
            tasks_len: self.tasks.len(),
            modes: self.modes.as_ptr(),
            modes_len: self.modes.len(),
            health: self.health.as_ptr(),
            health_len: self.health.len(),
            cubins: std::ptr::null(),
            cubins_len: 0,
            loadables: std::ptr::null(),
            loadables_len: 0,
            pva_programs: std::ptr::null(),
            pva_programs_len: 0,
            timeline: std::ptr::null(),
            timeline_len: 0,
            cpu_waits: std::ptr::null(),
            cpu_waits_len: 0,
        }
    }
}

/// The virtual-clock configuration without real-time priority (CI has no CAP_SYS_NICE).
pub fn config() -> orin_exec_config_t {
    let mut c = std::mem::MaybeUninit::uninit();
    // SAFETY: a valid pointer to write the defaults into.
    let status = unsafe { orin_exec_config_default(c.as_mut_ptr()) };
    assert_eq!(status, orin_exec_status_t::ORIN_EXEC_OK);
    // SAFETY: written above.
    let mut c = unsafe { c.assume_init() };
    c.virtual_clock = true;
    c.realtime_priority = 0;
    c
}

/// `orin_exec_create` of `tables`.
pub fn create(
    tables: &orin_exec_schedule_tables_t,
) -> Result<*mut orin_exec_runtime_t, orin_exec_status_t> {
    let mut rt = std::ptr::null_mut();
    let cfg = config();
    // SAFETY: valid tables (or broken on purpose in ways the API must detect), config, out.
    match unsafe { orin_exec_create(tables, &cfg, &mut rt) } {
        orin_exec_status_t::ORIN_EXEC_OK => Ok(rt),
        e => Err(e),
    }
}

/// The calling thread's last error message.
pub fn last_error() -> String {
    // SAFETY: a NUL-terminated thread-local string.
    unsafe { std::ffi::CStr::from_ptr(orin_exec_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// Frames the producer ran.
pub static PRODUCED: AtomicU64 = AtomicU64::new(0);

/// Writes the frame number into `value`.
pub unsafe extern "C" fn producer(ctx: *const orin_exec_task_ctx_t, _user: *mut c_void) -> i32 {
    let (mut p, mut n) = (std::ptr::null_mut(), 0usize);
    // SAFETY: the context of this run; valid out pointers.
    if unsafe { orin_exec_ctx_write(ctx, VALUE, &mut p, &mut n) }
        != orin_exec_status_t::ORIN_EXEC_OK
        || n != 8
    {
        return 1;
    }
    // SAFETY: the context of this run.
    let frame = unsafe { orin_exec_ctx_frame(ctx) };
    // SAFETY: 8 writable bytes, granted for this run.
    unsafe {
        p.cast::<u8>()
            .copy_from_nonoverlapping(frame.to_ne_bytes().as_ptr(), 8)
    };
    PRODUCED.fetch_add(1, Ordering::Relaxed);
    0
}

/// Reads `value`; returns 1 if it is not the frame number. `user`: NULL, or an `AtomicU64`
/// holding the frame in which to return 7 (a task error).
pub unsafe extern "C" fn consumer(ctx: *const orin_exec_task_ctx_t, user: *mut c_void) -> i32 {
    let (mut p, mut n) = (std::ptr::null(), 0usize);
    // SAFETY: the context of this run; valid out pointers.
    if unsafe { orin_exec_ctx_read(ctx, VALUE, &mut p, &mut n) } != orin_exec_status_t::ORIN_EXEC_OK
        || n != 8
    {
        return 1;
    }
    let mut v = [0u8; 8];
    // SAFETY: 8 readable bytes, granted for this run.
    unsafe { v.as_mut_ptr().copy_from_nonoverlapping(p.cast::<u8>(), 8) };
    // SAFETY: the context of this run.
    let frame = unsafe { orin_exec_ctx_frame(ctx) };
    if u64::from_ne_bytes(v) != frame {
        return 1;
    }
    if !user.is_null() {
        // SAFETY: the test passes a live `AtomicU64`.
        let stop = unsafe { &*user.cast::<AtomicU64>() };
        if stop.load(Ordering::Relaxed) == frame {
            return 7;
        }
    }
    0
}
