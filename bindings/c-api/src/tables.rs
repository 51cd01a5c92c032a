//! The schedule tables as C data (`orin_exec_schedule_tables_t` and the descriptors it points
//! to), and their conversion into the runtime's tables.
//!
//! The generator (`orin-exec generate --lang c`) emits them as `const` arrays in
//! `<schedule>_tables.c`. Every enumerated field is a plain integer (a C enum from hostile
//! memory must never become a Rust enum with an invalid value): the conversion checks each
//! one, each string (NUL-terminated UTF-8) and each pointer/count pair, copies everything into
//! memory the runtime owns, and then `Schedule::check` re-runs the validator's rules.

use core::ffi::{CStr, c_char};

use orin_exec::table as t;

use crate::arena::Arena;
use crate::status::Fail;

/// The version of the C tables layout and of this API; `orin_exec_schedule_tables_t::abi_version`
/// must equal it. Raised on every incompatible change of a struct or a function.
pub const ORIN_EXEC_ABI_VERSION: u32 = 1;

/// Engine kind: a CPU worker thread.
pub const ORIN_EXEC_ENGINE_CPU: u32 = 0;
/// Engine kind: a CUDA stream.
pub const ORIN_EXEC_ENGINE_GPU: u32 = 1;
/// Engine kind: a DLA core (cuDLA standalone mode).
pub const ORIN_EXEC_ENGINE_DLA: u32 = 2;
/// Engine kind: a PVA engine (cuPVA stream).
pub const ORIN_EXEC_ENGINE_PVA: u32 = 3;

/// VPU affinity of a PVA engine: none (every other engine kind).
pub const ORIN_EXEC_VPU_NONE: u32 = 0;
/// VPU affinity of a PVA engine: VPU 0 only.
pub const ORIN_EXEC_VPU_0: u32 = 1;
/// VPU affinity of a PVA engine: VPU 1 only.
pub const ORIN_EXEC_VPU_1: u32 = 2;
/// VPU affinity of a PVA engine: either VPU.
pub const ORIN_EXEC_VPU_ANY: u32 = 3;

/// Buffer kind: an NvSciBuf raw buffer (`size`, `align`).
pub const ORIN_EXEC_BUFFER_RAW: u32 = 0;
/// Buffer kind: an NvSciBuf NCHW tensor (`data_type`, `dims`, `align`).
pub const ORIN_EXEC_BUFFER_TENSOR: u32 = 1;
/// Buffer kind: pinned host memory (`size`).
pub const ORIN_EXEC_BUFFER_PINNED: u32 = 2;

/// Tensor element type: signed 8-bit integers.
pub const ORIN_EXEC_TENSOR_INT8: u32 = 0;
/// Tensor element type: unsigned 8-bit integers.
pub const ORIN_EXEC_TENSOR_UINT8: u32 = 1;
/// Tensor element type: IEEE half precision.
pub const ORIN_EXEC_TENSOR_FLOAT16: u32 = 2;
/// Tensor element type: IEEE single precision.
pub const ORIN_EXEC_TENSOR_FLOAT32: u32 = 3;

/// Work kind: a C function bound with `orin_exec_bind`.
pub const ORIN_EXEC_WORK_CPU: u32 = 0;
/// Work kind: a GPU kernel launch (`artifact` = cubin index, `kernel`, `grid`, `block`, ...).
pub const ORIN_EXEC_WORK_GPU: u32 = 1;
/// Work kind: a DLA loadable (`artifact` = loadable index, `inputs`, `outputs`).
pub const ORIN_EXEC_WORK_DLA: u32 = 2;
/// Work kind: a PVA program (`artifact` = program index, `params`).
pub const ORIN_EXEC_WORK_PVA: u32 = 3;

/// Kernel/program parameter: the device address of the frame's copy of buffer `buffer`.
pub const ORIN_EXEC_PARAM_BUFFER: u32 = 0;
/// Kernel/program parameter: `uint32_t` in the low 32 bits of `bits`.
pub const ORIN_EXEC_PARAM_U32: u32 = 1;
/// Kernel/program parameter: `int32_t` (two's complement) in the low 32 bits of `bits`.
pub const ORIN_EXEC_PARAM_I32: u32 = 2;
/// Kernel/program parameter: `uint64_t` in `bits`.
pub const ORIN_EXEC_PARAM_U64: u32 = 3;
/// Kernel/program parameter: `float` (its IEEE bits) in the low 32 bits of `bits`.
pub const ORIN_EXEC_PARAM_F32: u32 = 4;

/// PVA parameter kind: a pointer the program reads.
pub const ORIN_EXEC_PVA_POINTER_READ: u32 = 0;
/// PVA parameter kind: a pointer the program writes.
pub const ORIN_EXEC_PVA_POINTER_WRITE: u32 = 1;
/// PVA parameter kind: a pointer the program reads and writes.
pub const ORIN_EXEC_PVA_POINTER_READ_WRITE: u32 = 2;
/// PVA parameter kind: `uint32_t`.
pub const ORIN_EXEC_PVA_U32: u32 = 3;
/// PVA parameter kind: `int32_t`.
pub const ORIN_EXEC_PVA_I32: u32 = 4;
/// PVA parameter kind: `uint64_t`.
pub const ORIN_EXEC_PVA_U64: u32 = 5;
/// PVA parameter kind: `float`.
pub const ORIN_EXEC_PVA_F32: u32 = 6;

/// Fault kind: a task finished after its deadline.
pub const ORIN_EXEC_FAULT_DEADLINE_MISS: u32 = 0;
/// Fault kind: a task ran longer than its budget.
pub const ORIN_EXEC_FAULT_BUDGET_OVERRUN: u32 = 1;
/// Fault kind: a fence was not reached by its deadline.
pub const ORIN_EXEC_FAULT_FENCE_TIMEOUT: u32 = 2;
/// Fault kind: an engine reported an error.
pub const ORIN_EXEC_FAULT_ENGINE_ERROR: u32 = 3;
/// Fault kind: a CPU task returned non-zero.
pub const ORIN_EXEC_FAULT_TASK_ERROR: u32 = 4;

/// Health rule scope: faults of task `scope_id`.
pub const ORIN_EXEC_SCOPE_TASK: u32 = 0;
/// Health rule scope: faults of any task on engine `scope_id`.
pub const ORIN_EXEC_SCOPE_ENGINE: u32 = 1;
/// Health rule scope: any task.
pub const ORIN_EXEC_SCOPE_ANY: u32 = 2;

/// Reaction: record the fault.
pub const ORIN_EXEC_ACTION_LOG: u32 = 0;
/// Reaction: run the task as a no-op in the next frame not yet submitted.
pub const ORIN_EXEC_ACTION_SKIP: u32 = 1;
/// Reaction: switch to mode `mode` at the next major-frame boundary not yet submitted.
pub const ORIN_EXEC_ACTION_SWITCH_MODE: u32 = 2;
/// Reaction: call the safe-state hook and release no further frame.
pub const ORIN_EXEC_ACTION_SAFE_STOP: u32 = 3;

/// CPU wait policy: sleep until the completion signal.
pub const ORIN_EXEC_CPU_WAIT_BLOCK: u32 = 0;
/// CPU wait policy: spin between `from_ns` and `until_ns` after the frame's release.
pub const ORIN_EXEC_CPU_WAIT_SPIN: u32 = 1;

/// Thread: the executive (the thread that calls `orin_exec_init` and `orin_exec_step`).
pub const ORIN_EXEC_THREAD_EXECUTIVE: u32 = 0;
/// Thread: the worker of CPU engine `engine`.
pub const ORIN_EXEC_THREAD_WORKER: u32 = 1;

/// Real-time settings of one runtime thread.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_thread_desc_t {
    /// `ORIN_EXEC_THREAD_*`.
    pub thread: u32,
    /// The CPU engine, for `ORIN_EXEC_THREAD_WORKER`.
    pub engine: u8,
    /// `SCHED_FIFO` priority 1..=99; 0: the runtime's default.
    pub priority: u8,
    /// CPU affinity, bit n for CPU n; 0: any CPU.
    pub cpus: u64,
}

/// One engine instance (a FIFO queue of tasks).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_engine_desc_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// `ORIN_EXEC_ENGINE_*`.
    pub kind: u32,
    /// DLA core, CUDA stream, CPU worker or PVA index.
    pub instance: u8,
    /// GPU only: submit each frame's work as one CUDA graph.
    pub graph: bool,
    /// Most submitted-but-unfinished tasks in its queue.
    pub queue_capacity: u16,
    /// PVA only: `ORIN_EXEC_VPU_*` (`ORIN_EXEC_VPU_NONE` on other kinds).
    pub vpu: u32,
}

/// One buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_buffer_desc_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// `ORIN_EXEC_BUFFER_*`.
    pub kind: u32,
    /// Tensors: `ORIN_EXEC_TENSOR_*`; 0 otherwise.
    pub data_type: u32,
    /// Raw and pinned buffers: size in bytes; 0 for tensors.
    pub size: u64,
    /// Raw and tensor buffers: base alignment in bytes (a power of two); 0 for pinned.
    pub align: u64,
    /// Tensors: n, c, h, w.
    pub dims: [u32; 4],
    /// Copies (1: single, 2: double buffering, ...).
    pub multiplicity: u8,
    /// Whether CPU tasks touch it.
    pub cpu_access: bool,
}

/// A dependency: wait for task `task` of frame `f - lag`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_wait_t {
    /// The task waited for.
    pub task: u16,
    /// 0: the same frame, 1: the previous one, ...
    pub lag: u8,
}

/// A kernel or PVA program parameter.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_param_t {
    /// `ORIN_EXEC_PARAM_*`.
    pub kind: u32,
    /// `ORIN_EXEC_PARAM_BUFFER`: the buffer id.
    pub buffer: u16,
    /// The value of a scalar (see the kinds).
    pub bits: u64,
}

/// A loadable tensor bound to a buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_tensor_binding_t {
    /// Tensor name as in the loadable (NUL-terminated UTF-8).
    pub tensor: *const c_char,
    /// The buffer bound to it.
    pub buffer: u16,
}

/// One task. Arrays are a pointer and a count; a count of 0 may come with NULL.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_task_desc_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// The engine whose queue runs it.
    pub engine: u8,
    /// `ORIN_EXEC_WORK_*`.
    pub work: u32,
    /// GPU: cubin index; DLA: loadable index; PVA: program index; CPU: 0.
    pub artifact: u16,
    /// GPU: the kernel's entry name; NULL otherwise.
    pub kernel: *const c_char,
    /// GPU: grid dimensions.
    pub grid: [u32; 3],
    /// GPU: block dimensions.
    pub block: [u32; 3],
    /// GPU: dynamic shared memory in bytes.
    pub shared_mem_bytes: u32,
    /// GPU and PVA: parameters in order.
    pub params: *const orin_exec_param_t,
    /// Number of `params`.
    pub params_len: usize,
    /// DLA: input tensors in the loadable's order.
    pub inputs: *const orin_exec_tensor_binding_t,
    /// Number of `inputs`.
    pub inputs_len: usize,
    /// DLA: output tensors in the loadable's order.
    pub outputs: *const orin_exec_tensor_binding_t,
    /// Number of `outputs`.
    pub outputs_len: usize,
    /// Worst-case execution time, ns.
    pub wcet_ns: u64,
    /// Execution-time budget, ns.
    pub budget_ns: u64,
    /// Deadline relative to the major frame's release, ns.
    pub deadline_ns: u64,
    /// CPU tasks: release offset in the major frame, ns.
    pub release_ns: u64,
    /// Buffer ids read.
    pub reads: *const u16,
    /// Number of `reads`.
    pub reads_len: usize,
    /// Buffer ids written.
    pub writes: *const u16,
    /// Number of `writes`.
    pub writes_len: usize,
    /// Dependencies.
    pub waits: *const orin_exec_wait_t,
    /// Number of `waits`.
    pub waits_len: usize,
    /// Modes it runs in (bit m: mode m).
    pub modes: u32,
}

/// An operating mode.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_mode_desc_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
}

/// One health-monitor rule (the first matching rule wins).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_health_rule_t {
    /// `ORIN_EXEC_FAULT_*`.
    pub fault: u32,
    /// `ORIN_EXEC_SCOPE_*`.
    pub scope: u32,
    /// The task (`ORIN_EXEC_SCOPE_TASK`) or engine (`ORIN_EXEC_SCOPE_ENGINE`) id.
    pub scope_id: u16,
    /// `ORIN_EXEC_ACTION_*`.
    pub action: u32,
    /// `ORIN_EXEC_ACTION_SWITCH_MODE`: the mode.
    pub mode: u8,
}

/// One SASS image of a cubin.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_cubin_variant_t {
    /// The SM it was built for (87: Orin).
    pub sm: u32,
    /// SHA-256 of the image.
    pub sha256: [u8; 32],
    /// The ELF image.
    pub image: *const u8,
    /// Its size in bytes.
    pub image_len: usize,
}

/// A GPU module.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_cubin_desc_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// One image per SM.
    pub variants: *const orin_exec_cubin_variant_t,
    /// Number of `variants`.
    pub variants_len: usize,
}

/// A tensor of a DLA loadable.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_tensor_spec_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// Size in bytes.
    pub size: u64,
    /// n, c, h, w.
    pub dims: [u32; 4],
    /// `ORIN_EXEC_TENSOR_*`.
    pub data_type: u32,
}

/// A DLA network: its ONNX model and, for `orin`, the TensorRT-built loadable.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_loadable_desc_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// SHA-256 of `onnx`.
    pub onnx_sha256: [u8; 32],
    /// The ONNX model.
    pub onnx: *const u8,
    /// Its size in bytes.
    pub onnx_len: usize,
    /// SHA-256 of `loadable`.
    pub loadable_sha256: [u8; 32],
    /// The real DLA loadable; NULL when there is none.
    pub loadable: *const u8,
    /// Its size in bytes.
    pub loadable_len: usize,
    /// Input tensors in order.
    pub inputs: *const orin_exec_tensor_spec_t,
    /// Number of `inputs`.
    pub inputs_len: usize,
    /// Output tensors in order.
    pub outputs: *const orin_exec_tensor_spec_t,
    /// Number of `outputs`.
    pub outputs_len: usize,
}

/// A parameter of a PVA program.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_pva_param_spec_t {
    /// The symbol name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// `ORIN_EXEC_PVA_*`.
    pub kind: u32,
}

/// A PVA program (VPU ELF image).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_pva_program_desc_t {
    /// Name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// SHA-256 of `image`.
    pub sha256: [u8; 32],
    /// The image.
    pub image: *const u8,
    /// Its size in bytes.
    pub image_len: usize,
    /// Parameters in order.
    pub params: *const orin_exec_pva_param_spec_t,
    /// Number of `params`.
    pub params_len: usize,
}

/// One row of the validator's worst-case timeline.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_timeline_entry_t {
    /// The mode.
    pub mode: u8,
    /// The task.
    pub task: u16,
    /// Latest start after the frame release, ns.
    pub latest_start_ns: u64,
    /// Latest finish after the frame release, ns.
    pub latest_finish_ns: u64,
    /// Deadline minus latest finish, ns.
    pub slack_ns: u64,
}

/// How CPU threads wait for one task's completion.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_cpu_wait_t {
    /// `ORIN_EXEC_CPU_WAIT_*`.
    pub kind: u32,
    /// Spin window start after the frame's release, ns.
    pub from_ns: u64,
    /// Spin window end after the frame's release, ns.
    pub until_ns: u64,
}

/// The tables of one schedule, as `orin-exec generate --lang c` emits them
/// (`<schedule>_tables.c`). `orin_exec_create` copies and checks them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct orin_exec_schedule_tables_t {
    /// Must be `ORIN_EXEC_ABI_VERSION` of the header the tables were compiled with.
    pub abi_version: u32,
    /// Application name (NUL-terminated UTF-8).
    pub name: *const c_char,
    /// The platform profile the schedule was validated for.
    pub profile: *const c_char,
    /// Major frame period, ns.
    pub period_ns: u64,
    /// Minor frame offsets (the first is 0).
    pub minor_frames_ns: *const u64,
    /// Number of `minor_frames_ns`.
    pub minor_frames_len: usize,
    /// Frames of accelerator work submitted ahead (0 or 1).
    pub lookahead: u8,
    /// Real-time settings per thread.
    pub threads: *const orin_exec_thread_desc_t,
    /// Number of `threads`.
    pub threads_len: usize,
    /// Engines.
    pub engines: *const orin_exec_engine_desc_t,
    /// Number of `engines`.
    pub engines_len: usize,
    /// Buffers.
    pub buffers: *const orin_exec_buffer_desc_t,
    /// Number of `buffers`.
    pub buffers_len: usize,
    /// Tasks, in submission order.
    pub tasks: *const orin_exec_task_desc_t,
    /// Number of `tasks`.
    pub tasks_len: usize,
    /// Modes; mode 0 is the initial one.
    pub modes: *const orin_exec_mode_desc_t,
    /// Number of `modes`.
    pub modes_len: usize,
    /// Health-monitor rules.
    pub health: *const orin_exec_health_rule_t,
    /// Number of `health`.
    pub health_len: usize,
    /// GPU modules.
    pub cubins: *const orin_exec_cubin_desc_t,
    /// Number of `cubins`.
    pub cubins_len: usize,
    /// DLA loadables.
    pub loadables: *const orin_exec_loadable_desc_t,
    /// Number of `loadables`.
    pub loadables_len: usize,
    /// PVA programs.
    pub pva_programs: *const orin_exec_pva_program_desc_t,
    /// Number of `pva_programs`.
    pub pva_programs_len: usize,
    /// The worst-case timeline.
    pub timeline: *const orin_exec_timeline_entry_t,
    /// Number of `timeline`.
    pub timeline_len: usize,
    /// Per task (or none): how CPU threads wait for it.
    pub cpu_waits: *const orin_exec_cpu_wait_t,
    /// Number of `cpu_waits`.
    pub cpu_waits_len: usize,
}

/// Most entries of any one C array the conversion accepts (far above the runtime's limits,
/// which `Schedule::check` enforces; this bound only keeps a hostile count from making the
/// copy huge).
const MAX_ARRAY: usize = 1 << 16;
/// Most bytes of one image (cubin, ONNX model, loadable, VPU program).
const MAX_IMAGE: usize = 256 << 20;
/// Longest string, in bytes.
const MAX_STRING: usize = 4096;

/// Converts C tables into runtime tables owned by `arena`.
pub(crate) struct Convert<'a> {
    pub arena: &'a mut Arena,
}

impl Convert<'_> {
    /// # Safety
    /// `c` and everything it points to must be valid for reads as the header documents (every
    /// pointer with a non-zero count points to that many elements; every string pointer is
    /// NULL or a NUL-terminated string).
    pub(crate) unsafe fn tables(
        &mut self,
        c: &orin_exec_schedule_tables_t,
    ) -> Result<&'static t::ScheduleTables, Fail> {
        if c.abi_version != ORIN_EXEC_ABI_VERSION {
            return Err(Fail::abi(c.abi_version));
        }
        // SAFETY: for every call below, the caller's contract covers each pointer of `c`.
        let tables = unsafe {
            t::ScheduleTables {
                name: self.str(c.name, "tables.name")?,
                profile: self.str(c.profile, "tables.profile")?,
                period_ns: c.period_ns,
                minor_frames_ns: self.copy(
                    c.minor_frames_ns,
                    c.minor_frames_len,
                    "minor_frames_ns",
                )?,
                lookahead: c.lookahead,
                threads: self.map(c.threads, c.threads_len, "threads", |_, d| thread(d))?,
                engines: self.map(c.engines, c.engines_len, "engines", |s, d| s.engine(d))?,
                buffers: self.map(c.buffers, c.buffers_len, "buffers", |s, d| s.buffer(d))?,
                tasks: self.map(c.tasks, c.tasks_len, "tasks", |s, d| s.task(d))?,
                modes: self.map(c.modes, c.modes_len, "modes", |s, d| {
                    Ok(t::ModeDesc {
                        name: s.str(d.name, "mode.name")?,
                    })
                })?,
                health: self.map(c.health, c.health_len, "health", |_, d| health(d))?,
                cubins: self.map(c.cubins, c.cubins_len, "cubins", |s, d| s.cubin(d))?,
                loadables: self.map(c.loadables, c.loadables_len, "loadables", |s, d| {
                    s.loadable(d)
                })?,
                pva_programs: self.map(
                    c.pva_programs,
                    c.pva_programs_len,
                    "pva_programs",
                    |s, d| s.pva_program(d),
                )?,
                timeline: self.map(c.timeline, c.timeline_len, "timeline", |_, d| {
                    Ok(t::TimelineEntry {
                        mode: t::ModeId(d.mode),
                        task: t::TaskId(d.task),
                        latest_start_ns: d.latest_start_ns,
                        latest_finish_ns: d.latest_finish_ns,
                        slack_ns: d.slack_ns,
                    })
                })?,
                cpu_waits: self.map(c.cpu_waits, c.cpu_waits_len, "cpu_waits", |_, d| {
                    cpu_wait(d)
                })?,
            }
        };
        Ok(self.arena.keep(tables))
    }

    /// # Safety
    /// `p` is NULL or a NUL-terminated string.
    unsafe fn str(&mut self, p: *const c_char, what: &'static str) -> Result<&'static str, Fail> {
        if p.is_null() {
            return Err(Fail::tables(
                what,
                "is NULL; give a NUL-terminated UTF-8 string",
            ));
        }
        // SAFETY: non-NULL and NUL-terminated by the caller's contract.
        let s = unsafe { CStr::from_ptr(p) };
        if s.count_bytes() > MAX_STRING {
            return Err(Fail::tables(what, "is longer than 4096 bytes"));
        }
        let s = s.to_str().map_err(|_| Fail::tables(what, "is not UTF-8"))?;
        Ok(self.arena.keep_str(s))
    }

    /// An optional string (NULL: `None`).
    ///
    /// # Safety
    /// As [`Self::str`].
    unsafe fn opt_str(
        &mut self,
        p: *const c_char,
        what: &'static str,
    ) -> Result<Option<&'static str>, Fail> {
        if p.is_null() {
            Ok(None)
        } else {
            // SAFETY: the caller's contract.
            unsafe { self.str(p, what) }.map(Some)
        }
    }

    /// The C array `p[..len]` as a slice (empty for `len == 0`, whatever `p` is).
    ///
    /// # Safety
    /// With `len > 0`, `p` points to `len` valid elements.
    unsafe fn slice<'s, T>(p: *const T, len: usize, what: &'static str) -> Result<&'s [T], Fail> {
        if len == 0 {
            return Ok(&[]);
        }
        if p.is_null() {
            return Err(Fail::tables(what, "is NULL with a non-zero count"));
        }
        if len > MAX_ARRAY {
            return Err(Fail::tables(what, "has more than 65536 entries"));
        }
        if !(p as usize).is_multiple_of(align_of::<T>()) {
            return Err(Fail::tables(what, "is misaligned for its element type"));
        }
        // SAFETY: non-NULL, aligned, and `len` valid elements by the caller's contract.
        Ok(unsafe { core::slice::from_raw_parts(p, len) })
    }

    /// # Safety
    /// As [`Self::slice`].
    unsafe fn copy<T: Copy + 'static>(
        &mut self,
        p: *const T,
        len: usize,
        what: &'static str,
    ) -> Result<&'static [T], Fail> {
        // SAFETY: the caller's contract.
        let s = unsafe { Self::slice(p, len, what) }?;
        Ok(self.arena.keep_slice(s.to_vec()))
    }

    /// A byte image (cubin, model, program).
    ///
    /// # Safety
    /// As [`Self::slice`].
    unsafe fn image(
        &mut self,
        p: *const u8,
        len: usize,
        what: &'static str,
    ) -> Result<&'static [u8], Fail> {
        if len > MAX_IMAGE {
            return Err(Fail::tables(what, "is larger than 256 MiB"));
        }
        if len > 0 && p.is_null() {
            return Err(Fail::tables(what, "is NULL with a non-zero size"));
        }
        if len == 0 {
            return Ok(&[]);
        }
        // SAFETY: non-NULL with `len` bytes by the caller's contract.
        let s = unsafe { core::slice::from_raw_parts(p, len) };
        Ok(self.arena.keep_slice(s.to_vec()))
    }

    /// Each element of `p[..len]` converted by `f`.
    ///
    /// # Safety
    /// As [`Self::slice`], and `f` relies on the caller's contract for what the elements
    /// point to.
    unsafe fn map<C: Copy, R: 'static>(
        &mut self,
        p: *const C,
        len: usize,
        what: &'static str,
        mut f: impl FnMut(&mut Self, &C) -> Result<R, Fail>,
    ) -> Result<&'static [R], Fail> {
        // SAFETY: the caller's contract.
        let src = unsafe { Self::slice(p, len, what) }?;
        let mut out = Vec::with_capacity(src.len());
        for d in src {
            out.push(f(self, d)?);
        }
        Ok(self.arena.keep_slice(out))
    }

    /// # Safety
    /// As [`Self::tables`], for what this descriptor points to.
    unsafe fn engine(&mut self, d: &orin_exec_engine_desc_t) -> Result<t::EngineDesc, Fail> {
        let kind = engine_kind(d.kind)?;
        let vpu = match d.vpu {
            ORIN_EXEC_VPU_NONE => None,
            ORIN_EXEC_VPU_0 => Some(t::VpuAffinity::Vpu0),
            ORIN_EXEC_VPU_1 => Some(t::VpuAffinity::Vpu1),
            ORIN_EXEC_VPU_ANY => Some(t::VpuAffinity::Any),
            _ => {
                return Err(Fail::tables(
                    "engine.vpu",
                    "is not an ORIN_EXEC_VPU_* value",
                ));
            }
        };
        Ok(t::EngineDesc {
            // SAFETY: the contract of `tables` covers the engine's name.
            name: unsafe { self.str(d.name, "engine.name") }?,
            kind,
            instance: d.instance,
            queue_capacity: d.queue_capacity,
            graph: d.graph,
            vpu,
        })
    }

    /// # Safety
    /// As [`Self::tables`], for what this descriptor points to.
    unsafe fn buffer(&mut self, d: &orin_exec_buffer_desc_t) -> Result<t::BufferDesc, Fail> {
        let kind = match d.kind {
            ORIN_EXEC_BUFFER_RAW => t::BufferKind::Raw {
                size: d.size,
                align: d.align,
            },
            ORIN_EXEC_BUFFER_TENSOR => t::BufferKind::Tensor {
                data_type: tensor_type(d.data_type)?,
                dims: d.dims,
                align: d.align,
            },
            ORIN_EXEC_BUFFER_PINNED => t::BufferKind::Pinned { size: d.size },
            _ => {
                return Err(Fail::tables(
                    "buffer.kind",
                    "is not an ORIN_EXEC_BUFFER_* value",
                ));
            }
        };
        Ok(t::BufferDesc {
            // SAFETY: the contract of `tables` covers the buffer's name.
            name: unsafe { self.str(d.name, "buffer.name") }?,
            kind,
            multiplicity: d.multiplicity,
            cpu_access: d.cpu_access,
        })
    }

    /// # Safety
    /// As [`Self::tables`], for what this descriptor points to.
    unsafe fn params(
        &mut self,
        p: *const orin_exec_param_t,
        len: usize,
    ) -> Result<&'static [t::Param], Fail> {
        // SAFETY: the contract of `tables` covers the task's parameter array.
        unsafe { self.map(p, len, "task.params", |_, d| param(d)) }
    }

    fn bindings(
        &mut self,
        p: *const orin_exec_tensor_binding_t,
        len: usize,
    ) -> Result<&'static [t::TensorBinding], Fail> {
        // SAFETY: the contract of `tables` covers the task's tensor bindings and their names.
        unsafe {
            self.map(p, len, "task.inputs/outputs", |s, d| {
                Ok(t::TensorBinding {
                    tensor: s.str(d.tensor, "tensor_binding.tensor")?,
                    buffer: t::BufferId(d.buffer),
                })
            })
        }
    }

    /// # Safety
    /// As [`Self::tables`], for what this descriptor points to.
    unsafe fn task(&mut self, d: &orin_exec_task_desc_t) -> Result<t::TaskDesc, Fail> {
        // SAFETY: for every call in the match, the contract of `tables` covers the task's work.
        let work = unsafe {
            match d.work {
                ORIN_EXEC_WORK_CPU => t::Work::Cpu,
                ORIN_EXEC_WORK_GPU => t::Work::Gpu(t::GpuWork {
                    cubin: t::CubinId(d.artifact),
                    kernel: self
                        .opt_str(d.kernel, "task.kernel")?
                        .ok_or(Fail::tables("task.kernel", "is NULL for a GPU task"))?,
                    grid: d.grid,
                    block: d.block,
                    shared_mem_bytes: d.shared_mem_bytes,
                    params: self.params(d.params, d.params_len)?,
                }),
                ORIN_EXEC_WORK_DLA => t::Work::Dla(t::DlaWork {
                    loadable: t::LoadableId(d.artifact),
                    inputs: self.bindings(d.inputs, d.inputs_len)?,
                    outputs: self.bindings(d.outputs, d.outputs_len)?,
                }),
                ORIN_EXEC_WORK_PVA => t::Work::Pva(t::PvaWork {
                    program: t::PvaProgramId(d.artifact),
                    params: self.params(d.params, d.params_len)?,
                }),
                _ => {
                    return Err(Fail::tables(
                        "task.work",
                        "is not an ORIN_EXEC_WORK_* value",
                    ));
                }
            }
        };
        // SAFETY: for every call below, the contract of `tables` covers the task's arrays.
        unsafe {
            Ok(t::TaskDesc {
                name: self.str(d.name, "task.name")?,
                engine: t::EngineId(d.engine),
                work,
                wcet_ns: d.wcet_ns,
                budget_ns: d.budget_ns,
                deadline_ns: d.deadline_ns,
                release_ns: d.release_ns,
                reads: self.map(d.reads, d.reads_len, "task.reads", |_, b| {
                    Ok(t::BufferId(*b))
                })?,
                writes: self.map(d.writes, d.writes_len, "task.writes", |_, b| {
                    Ok(t::BufferId(*b))
                })?,
                waits: self.map(d.waits, d.waits_len, "task.waits", |_, w| {
                    Ok(t::Wait {
                        task: t::TaskId(w.task),
                        lag: w.lag,
                    })
                })?,
                modes: t::ModeMask(d.modes),
            })
        }
    }

    /// # Safety
    /// As [`Self::tables`], for what this descriptor points to.
    unsafe fn cubin(&mut self, d: &orin_exec_cubin_desc_t) -> Result<t::CubinDesc, Fail> {
        // SAFETY: the contract of `tables` covers the cubin's name, variants and images.
        unsafe {
            Ok(t::CubinDesc {
                name: self.str(d.name, "cubin.name")?,
                variants: self.map(d.variants, d.variants_len, "cubin.variants", |s, v| {
                    Ok(t::CubinVariant {
                        sm: v.sm,
                        sha256: v.sha256,
                        image: s.image(v.image, v.image_len, "cubin_variant.image")?,
                    })
                })?,
            })
        }
    }

    fn tensor_specs(
        &mut self,
        p: *const orin_exec_tensor_spec_t,
        len: usize,
    ) -> Result<&'static [t::TensorSpec], Fail> {
        // SAFETY: the contract of `tables` covers the loadable's tensor specs.
        unsafe {
            self.map(p, len, "loadable.inputs/outputs", |s, d| {
                Ok(t::TensorSpec {
                    name: s.str(d.name, "tensor_spec.name")?,
                    size: d.size,
                    dims: d.dims,
                    data_type: tensor_type(d.data_type)?,
                })
            })
        }
    }

    /// # Safety
    /// As [`Self::tables`], for what this descriptor points to.
    unsafe fn loadable(&mut self, d: &orin_exec_loadable_desc_t) -> Result<t::LoadableDesc, Fail> {
        // SAFETY: for every call below, the contract of `tables` covers the loadable's data.
        unsafe {
            let loadable = if d.loadable.is_null() {
                None
            } else {
                Some(t::RealLoadable {
                    sha256: d.loadable_sha256,
                    image: self.image(d.loadable, d.loadable_len, "loadable.loadable")?,
                })
            };
            Ok(t::LoadableDesc {
                name: self.str(d.name, "loadable.name")?,
                onnx_sha256: d.onnx_sha256,
                onnx: self.image(d.onnx, d.onnx_len, "loadable.onnx")?,
                loadable,
                inputs: self.tensor_specs(d.inputs, d.inputs_len)?,
                outputs: self.tensor_specs(d.outputs, d.outputs_len)?,
            })
        }
    }

    /// # Safety
    /// As [`Self::tables`], for what this descriptor points to.
    unsafe fn pva_program(
        &mut self,
        d: &orin_exec_pva_program_desc_t,
    ) -> Result<t::PvaProgramDesc, Fail> {
        // SAFETY: for every call below, the contract of `tables` covers the program's data.
        unsafe {
            Ok(t::PvaProgramDesc {
                name: self.str(d.name, "pva_program.name")?,
                sha256: d.sha256,
                image: self.image(d.image, d.image_len, "pva_program.image")?,
                params: self.map(d.params, d.params_len, "pva_program.params", |s, p| {
                    Ok(t::PvaParamSpec {
                        name: s.str(p.name, "pva_param_spec.name")?,
                        kind: pva_param_kind(p.kind)?,
                    })
                })?,
            })
        }
    }
}

fn engine_kind(v: u32) -> Result<t::EngineKind, Fail> {
    Ok(match v {
        ORIN_EXEC_ENGINE_CPU => t::EngineKind::Cpu,
        ORIN_EXEC_ENGINE_GPU => t::EngineKind::Gpu,
        ORIN_EXEC_ENGINE_DLA => t::EngineKind::Dla,
        ORIN_EXEC_ENGINE_PVA => t::EngineKind::Pva,
        _ => {
            return Err(Fail::tables(
                "engine.kind",
                "is not an ORIN_EXEC_ENGINE_* value",
            ));
        }
    })
}

fn tensor_type(v: u32) -> Result<t::TensorType, Fail> {
    Ok(match v {
        ORIN_EXEC_TENSOR_INT8 => t::TensorType::Int8,
        ORIN_EXEC_TENSOR_UINT8 => t::TensorType::Uint8,
        ORIN_EXEC_TENSOR_FLOAT16 => t::TensorType::Float16,
        ORIN_EXEC_TENSOR_FLOAT32 => t::TensorType::Float32,
        _ => {
            return Err(Fail::tables(
                "data_type",
                "is not an ORIN_EXEC_TENSOR_* value",
            ));
        }
    })
}

fn param(d: &orin_exec_param_t) -> Result<t::Param, Fail> {
    // The scalar kinds keep their value in the low bits of `bits` (truncation intended).
    Ok(match d.kind {
        ORIN_EXEC_PARAM_BUFFER => t::Param::Buffer(t::BufferId(d.buffer)),
        ORIN_EXEC_PARAM_U32 => t::Param::U32(d.bits as u32),
        ORIN_EXEC_PARAM_I32 => t::Param::I32(d.bits as u32 as i32),
        ORIN_EXEC_PARAM_U64 => t::Param::U64(d.bits),
        ORIN_EXEC_PARAM_F32 => t::Param::F32(f32::from_bits(d.bits as u32)),
        _ => {
            return Err(Fail::tables(
                "param.kind",
                "is not an ORIN_EXEC_PARAM_* value",
            ));
        }
    })
}

fn pva_param_kind(v: u32) -> Result<t::PvaParamKind, Fail> {
    use t::{PvaAccess as A, PvaParamKind as K};
    Ok(match v {
        ORIN_EXEC_PVA_POINTER_READ => K::Pointer(A::Read),
        ORIN_EXEC_PVA_POINTER_WRITE => K::Pointer(A::Write),
        ORIN_EXEC_PVA_POINTER_READ_WRITE => K::Pointer(A::ReadWrite),
        ORIN_EXEC_PVA_U32 => K::U32,
        ORIN_EXEC_PVA_I32 => K::I32,
        ORIN_EXEC_PVA_U64 => K::U64,
        ORIN_EXEC_PVA_F32 => K::F32,
        _ => {
            return Err(Fail::tables(
                "pva_param_spec.kind",
                "is not an ORIN_EXEC_PVA_* value",
            ));
        }
    })
}

/// The C value of a fault kind.
pub(crate) fn fault_kind(v: u32) -> Result<t::FaultKind, Fail> {
    t::FaultKind::ALL
        .get(v as usize)
        .copied()
        .ok_or(Fail::tables("fault", "is not an ORIN_EXEC_FAULT_* value"))
}

/// The C value of a fault kind (its position in `FaultKind::ALL`, as the constants).
pub(crate) fn fault_code(k: t::FaultKind) -> u32 {
    t::FaultKind::ALL.iter().position(|&x| x == k).unwrap_or(0) as u32
}

/// The C value of an action, and its mode.
pub(crate) fn action_code(a: t::Action) -> (u32, u8) {
    match a {
        t::Action::Log => (ORIN_EXEC_ACTION_LOG, 0),
        t::Action::Skip => (ORIN_EXEC_ACTION_SKIP, 0),
        t::Action::SwitchMode(m) => (ORIN_EXEC_ACTION_SWITCH_MODE, m.0),
        t::Action::SafeStop => (ORIN_EXEC_ACTION_SAFE_STOP, 0),
    }
}

fn health(d: &orin_exec_health_rule_t) -> Result<t::HealthRule, Fail> {
    let scope = match d.scope {
        ORIN_EXEC_SCOPE_TASK => t::FaultScope::Task(t::TaskId(d.scope_id)),
        ORIN_EXEC_SCOPE_ENGINE => {
            let e = u8::try_from(d.scope_id)
                .map_err(|_| Fail::tables("health.scope_id", "is not an engine id (0..=255)"))?;
            t::FaultScope::Engine(t::EngineId(e))
        }
        ORIN_EXEC_SCOPE_ANY => t::FaultScope::Any,
        _ => {
            return Err(Fail::tables(
                "health.scope",
                "is not an ORIN_EXEC_SCOPE_* value",
            ));
        }
    };
    let action = match d.action {
        ORIN_EXEC_ACTION_LOG => t::Action::Log,
        ORIN_EXEC_ACTION_SKIP => t::Action::Skip,
        ORIN_EXEC_ACTION_SWITCH_MODE => t::Action::SwitchMode(t::ModeId(d.mode)),
        ORIN_EXEC_ACTION_SAFE_STOP => t::Action::SafeStop,
        _ => {
            return Err(Fail::tables(
                "health.action",
                "is not an ORIN_EXEC_ACTION_* value",
            ));
        }
    };
    Ok(t::HealthRule {
        fault: fault_kind(d.fault)?,
        scope,
        action,
    })
}

fn cpu_wait(d: &orin_exec_cpu_wait_t) -> Result<t::CpuWait, Fail> {
    Ok(match d.kind {
        ORIN_EXEC_CPU_WAIT_BLOCK => t::CpuWait::Block,
        ORIN_EXEC_CPU_WAIT_SPIN => t::CpuWait::Spin {
            from_ns: d.from_ns,
            until_ns: d.until_ns,
        },
        _ => {
            return Err(Fail::tables(
                "cpu_wait.kind",
                "is not an ORIN_EXEC_CPU_WAIT_* value",
            ));
        }
    })
}

fn thread(d: &orin_exec_thread_desc_t) -> Result<t::ThreadDesc, Fail> {
    let thread = match d.thread {
        ORIN_EXEC_THREAD_EXECUTIVE => t::Thread::Executive,
        ORIN_EXEC_THREAD_WORKER => t::Thread::Worker(t::EngineId(d.engine)),
        _ => {
            return Err(Fail::tables(
                "thread.thread",
                "is not an ORIN_EXEC_THREAD_* value",
            ));
        }
    };
    Ok(t::ThreadDesc {
        thread,
        priority: d.priority,
        cpus: d.cpus,
    })
}
