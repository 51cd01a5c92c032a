//! What a C task function sees: `orin_exec_task_ctx_t` and its accessors. The generated
//! `<schedule>_<task>_ctx()` functions fill a task's typed context through them.

use core::ffi::c_void;

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{CpuTask, TaskFault};
use orin_exec::table::BufferId;

use crate::status::{Fail, fail, orin_exec_status_t, status};

/// The context of one run of a CPU task (opaque). Valid only during the call of the task
/// function that received it.
pub struct orin_exec_task_ctx_t {
    _opaque: [u8; 0],
}

/// A CPU task: returns 0 on success, any other value is a `task_error` fault with that code.
/// Runs on the worker thread of the task's CPU engine.
pub type orin_exec_task_fn =
    Option<unsafe extern "C" fn(ctx: *const orin_exec_task_ctx_t, user: *mut c_void) -> i32>;

/// A bound C task function and its user pointer.
pub(crate) struct CBody {
    pub f: unsafe extern "C" fn(*const orin_exec_task_ctx_t, *mut c_void) -> i32,
    pub user: *mut c_void,
}

// SAFETY: the header documents that task functions run on worker threads; the caller of
// `orin_exec_bind` guarantees that `user` may be used there.
unsafe impl Send for CBody {}

impl CpuTask for CBody {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let c = core::ptr::from_ref(ctx).cast::<orin_exec_task_ctx_t>();
        // SAFETY: `f` is the function the caller of `orin_exec_bind` gave for this task, with
        // its documented signature; `c` is valid for the call (the accessors turn it back into
        // the `CpuCtx` borrowed here).
        match unsafe { (self.f)(c, self.user) } {
            0 => Ok(()),
            code => Err(TaskFault::App { code: code as u32 }),
        }
    }
}

/// The `CpuCtx` behind a context pointer.
///
/// # Safety
/// `ctx` is NULL or a context passed to a task function that is still running.
unsafe fn cpu_ctx<'a>(ctx: *const orin_exec_task_ctx_t) -> Result<&'a CpuCtx<'a>, Fail> {
    if ctx.is_null() {
        fail!(ORIN_EXEC_E_NULL, "the task context is NULL");
    }
    // SAFETY: the caller's contract: the pointer is `CBody::run`'s `&CpuCtx`, alive.
    Ok(unsafe { &*ctx.cast::<CpuCtx<'a>>() })
}

/// The major frame being run (0 if `ctx` is NULL).
///
/// # Safety
/// `ctx` is NULL or the context of a running task function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_ctx_frame(ctx: *const orin_exec_task_ctx_t) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { cpu_ctx(ctx) }.map_or(0, CpuCtx::frame)
}

/// Whether every dependency of this run completed in time (false: inputs may be stale; also
/// false if `ctx` is NULL).
///
/// # Safety
/// `ctx` is NULL or the context of a running task function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_ctx_inputs_valid(ctx: *const orin_exec_task_ctx_t) -> bool {
    // SAFETY: the caller's contract.
    unsafe { cpu_ctx(ctx) }.is_ok_and(|c| c.inputs_valid())
}

/// Read access to the frame's copy of `buffer`: sets `*data` and `*size`. Refused
/// (`ORIN_EXEC_E_BUFFER`) unless the task declares `buffer` under `reads`, or if it already
/// took write access to it in this run. The memory is valid until the task function returns.
///
/// # Safety
/// `ctx` is NULL or the context of a running task function; `data` and `size` are NULL or
/// valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_ctx_read(
    ctx: *const orin_exec_task_ctx_t,
    buffer: u16,
    data: *mut *const c_void,
    size: *mut usize,
) -> orin_exec_status_t {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        hand_out("orin_exec_ctx_read", ctx, data, size, |c| {
            c.read(BufferId(buffer))
                .map(|s| (s.as_ptr().cast::<c_void>(), s.len()))
        })
    }
}

/// Write access to the frame's copy of `buffer` (once per run): sets `*data` and `*size`.
/// Refused (`ORIN_EXEC_E_BUFFER`) unless the task declares `buffer` under `writes`. The
/// memory is valid until the task function returns.
///
/// # Safety
/// As `orin_exec_ctx_read`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn orin_exec_ctx_write(
    ctx: *const orin_exec_task_ctx_t,
    buffer: u16,
    data: *mut *mut c_void,
    size: *mut usize,
) -> orin_exec_status_t {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        hand_out("orin_exec_ctx_write", ctx, data, size, |c| {
            c.write(BufferId(buffer))
                .map(|s| (s.as_mut_ptr().cast::<c_void>(), s.len()))
        })
    }
}

/// What `orin_exec_ctx_read` and `_write` share: checks the output pointers, takes the access
/// (`take`: the buffer's pointer and length) and writes them into `*data` and `*size`.
///
/// # Safety
/// `ctx` is NULL or the context of a running task function; `data` and `size` are NULL or
/// valid for writes.
unsafe fn hand_out<P>(
    call: &'static str,
    ctx: *const orin_exec_task_ctx_t,
    data: *mut P,
    size: *mut usize,
    take: impl FnOnce(&CpuCtx<'_>) -> orin_exec::Result<(P, usize)>,
) -> orin_exec_status_t {
    status((|| {
        if data.is_null() || size.is_null() {
            fail!(ORIN_EXEC_E_NULL, "{call}: `data` or `size` is NULL");
        }
        // SAFETY: the caller's contract.
        let c = unsafe { cpu_ctx(ctx) }?;
        let (ptr, len) =
            take(c).map_err(|e| Fail::runtime(orin_exec_status_t::ORIN_EXEC_E_BUFFER, &e))?;
        // SAFETY: both non-NULL and valid for writes by the caller's contract.
        unsafe {
            data.write(ptr);
            size.write(len);
        }
        Ok(())
    })())
}
