#![no_std]
//! Static schedule tables.
//!
//! `orin-exec-schedule` validates a `schedule.toml` and generates Rust source that builds the
//! tables ([`ScheduleTables`]) as a `static` and wraps them in a [`Schedule`]. The tables are
//! plain data: no parsing, no allocation, no pointers into the heap. Indices ([`TaskId`],
//! [`EngineId`], ...) refer to positions in the slices of the same tables.
//!
//! The runtime only takes a [`Schedule`], and the only way to make one is
//! [`Schedule::check`], which re-runs the validator's rules on the tables (ids in range,
//! submission order, engine kinds, buffer races, worst-case timeline, ...): the runtime's
//! unchecked buffer accesses rest on that proof, so hand-built tables cannot bypass it. It is
//! a `const fn`, so a `static` schedule is checked at compile time:
//!
//! ```
//! use orin_exec_table::*;
//!
//! static ENGINES: [EngineDesc; 1] = [EngineDesc {
//!     name: "cpu0",
//!     kind: EngineKind::Cpu,
//!     instance: 0,
//!     queue_capacity: 4,
//!     graph: false,
//!     vpu: None,
//! }];
//! static TASKS: [TaskDesc; 1] = [TaskDesc {
//!     name: "tick",
//!     engine: EngineId(0),
//!     work: Work::Cpu,
//!     wcet_ns: 100_000,
//!     budget_ns: 100_000,
//!     deadline_ns: 1_000_000,
//!     release_ns: 0,
//!     reads: &[],
//!     writes: &[],
//!     waits: &[],
//!     modes: ModeMask::ALL,
//! }];
//! static TABLES: ScheduleTables = ScheduleTables {
//!     name: "tick",
//!     profile: "sil",
//!     period_ns: 1_000_000,
//!     minor_frames_ns: &[0],
//!     lookahead: 0,
//!     threads: &[],
//!     engines: &ENGINES,
//!     buffers: &[],
//!     tasks: &TASKS,
//!     modes: &[ModeDesc { name: "normal" }],
//!     health: &[],
//!     cubins: &[],
//!     loadables: &[],
//!     pva_programs: &[],
//!     timeline: &[],
//!     cpu_waits: &[],
//! };
//! static SCHEDULE: Schedule = match Schedule::check(&TABLES) {
//!     Ok(s) => s,
//!     Err(e) => panic!("{}", e.message()),
//! };
//! // The tables are read through the schedule.
//! assert_eq!(SCHEDULE.task_by_name("tick"), Some(TaskId(0)));
//! assert_eq!(SCHEDULE.task(TaskId(0)).wcet_ns, 100_000);
//! ```

mod check;
mod error;
mod limits;

pub use check::{MAX_BUFFERS, MAX_MODES, MAX_STREAM_OPS, MAX_TASKS, STREAM_OPS_PER_TASK};
pub use error::TableError;
pub use limits::{
    Bound, DLA_ALIGN, Exceeded, FENCE_HISTORY, GRAPH_NODES_PER_TASK, Limit, MAX_COPIES,
    MAX_DLA_HANDLES_PER_BUFFER, MAX_DLA_HANDLES_PER_SEMAPHORE, MAX_DLA_IMPORTS, MAX_GRAPH_NODES,
    MAX_KERNEL_NAME, MAX_LAG, MAX_PARAMS, MAX_PVA_SYMBOL, MAX_TENSORS, MAX_WAITS,
};

/// Index of a task in [`ScheduleTables::tasks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TaskId(pub u16);

/// Index of an engine instance in [`ScheduleTables::engines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EngineId(pub u8);

/// Index of a buffer in [`ScheduleTables::buffers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BufferId(pub u16);

/// Index of a mode in [`ScheduleTables::modes`]; mode 0 is the initial mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ModeId(pub u8);

/// Index of a cubin in [`ScheduleTables::cubins`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CubinId(pub u16);

/// Index of a DLA loadable in [`ScheduleTables::loadables`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LoadableId(pub u16);

/// Index of a PVA program in [`ScheduleTables::pva_programs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PvaProgramId(pub u16);

/// The set of modes a task runs in (bit `m` = mode `m`; at most 32 modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ModeMask(pub u32);

impl ModeMask {
    /// Every mode.
    pub const ALL: ModeMask = ModeMask(u32::MAX);

    /// Whether `mode` is in the set.
    pub const fn contains(self, mode: ModeId) -> bool {
        mode.0 < 32 && self.0 & (1 << mode.0) != 0
    }
}

/// The kind of an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EngineKind {
    /// A CPU worker thread.
    Cpu,
    /// A non-blocking CUDA stream.
    Gpu,
    /// A DLA core driven through cuDLA in standalone mode.
    Dla,
    /// A PVA engine driven through cuPVA (one stream per engine, with its VPU affinity).
    Pva,
}

/// One engine instance: a FIFO queue of tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineDesc {
    /// Name used in the schedule and in messages (e.g. `dla0`).
    pub name: &'static str,
    /// What it is.
    pub kind: EngineKind,
    /// Instance number: DLA core, CUDA stream, CPU worker or PVA index.
    pub instance: u8,
    /// How many submitted-but-unfinished tasks its queue holds at most.
    pub queue_capacity: u16,
    /// GPU engines only: the executive submits each frame's work of this stream as one
    /// CUDA graph, built and instantiated at init, with the frame's semaphore values updated
    /// before each launch (schedule `submit = "graph"`); `false`: one driver call per
    /// operation (`submit = "stream"`, the default). Always `false` on other kinds.
    pub graph: bool,
    /// PVA engines only: the VPUs of PVA `instance` its cuPVA stream may run on (schedule
    /// `vpu`); `None` on other kinds. Two PVA engines of one instance never share a VPU
    /// ([`Schedule::check`] refuses it): each engine's FIFO is the only work on its VPUs.
    pub vpu: Option<VpuAffinity>,
}

/// The VPU affinity of a PVA engine's cuPVA stream (`cupvaAffinityType_t`: `VPU0`, `VPU1`,
/// `VPU_ANY`; api-facts §7.1, <https://docs.nvidia.com/pva/sdk/2.10.1/>). Each Orin PVA has
/// two VPUs.
///
/// ```
/// use orin_exec_table::VpuAffinity;
/// assert!(VpuAffinity::Any.overlaps(VpuAffinity::Vpu1));
/// assert!(!VpuAffinity::Vpu0.overlaps(VpuAffinity::Vpu1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum VpuAffinity {
    /// VPU 0 only.
    Vpu0,
    /// VPU 1 only.
    Vpu1,
    /// Whichever VPU of the instance the PVA firmware picks.
    Any,
}

impl VpuAffinity {
    /// Whether two streams with these affinities can run on one VPU.
    pub const fn overlaps(self, other: VpuAffinity) -> bool {
        !matches!(
            (self, other),
            (VpuAffinity::Vpu0, VpuAffinity::Vpu1) | (VpuAffinity::Vpu1, VpuAffinity::Vpu0)
        )
    }
}

/// Element type of a tensor buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TensorType {
    /// Signed 8-bit integers.
    Int8,
    /// Unsigned 8-bit integers.
    Uint8,
    /// IEEE half precision.
    Float16,
    /// IEEE single precision.
    Float32,
}

impl TensorType {
    /// Bytes per element.
    pub const fn size(self) -> u64 {
        match self {
            TensorType::Int8 | TensorType::Uint8 => 1,
            TensorType::Float16 => 2,
            TensorType::Float32 => 4,
        }
    }
}

/// What backs a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// An NvSciBuf raw buffer of `size` bytes, base aligned to `align`.
    Raw {
        /// Size in bytes.
        size: u64,
        /// Base-address alignment in bytes (a power of two).
        align: u64,
    },
    /// An NvSciBuf tensor (NCHW) of `dims`, base aligned to `align`.
    Tensor {
        /// Element type.
        data_type: TensorType,
        /// n, c, h, w.
        dims: [u32; 4],
        /// Base-address alignment in bytes (a power of two).
        align: u64,
    },
    /// Pinned host memory for CPU↔GPU staging.
    Pinned {
        /// Size in bytes.
        size: u64,
    },
}

impl BufferKind {
    /// The size in bytes the buffer must at least have, saturated at `u64::MAX` where a
    /// tensor's element count times its element size overflows (no [`Schedule`] has such a
    /// buffer: [`Schedule::check`] rejects it, see [`BufferKind::checked_size`]; an allocation
    /// of `u64::MAX` bytes fails with an error rather than wrapping to a small one).
    ///
    /// ```
    /// # use orin_exec_table::{BufferKind, TensorType};
    /// let huge = BufferKind::Tensor { data_type: TensorType::Int8, dims: [1 << 22; 4], align: 64 };
    /// assert_eq!(huge.size(), u64::MAX);
    /// ```
    pub const fn size(&self) -> u64 {
        match self.checked_size() {
            Some(size) => size,
            None => u64::MAX,
        }
    }

    /// The size in bytes, `None` where a tensor's size overflows `u64`.
    ///
    /// ```
    /// # use orin_exec_table::{BufferKind, TensorType};
    /// let t = BufferKind::Tensor { data_type: TensorType::Float16, dims: [1, 3, 4, 8], align: 64 };
    /// assert_eq!(t.checked_size(), Some(192));
    /// // 2^66 bytes: refused, not wrapped to 0.
    /// let huge = BufferKind::Tensor { data_type: TensorType::Int8, dims: [1 << 22, 1 << 22, 1 << 22, 1], align: 64 };
    /// assert_eq!(huge.checked_size(), None);
    /// ```
    pub const fn checked_size(&self) -> Option<u64> {
        match *self {
            BufferKind::Raw { size, .. } | BufferKind::Pinned { size } => Some(size),
            BufferKind::Tensor {
                data_type, dims, ..
            } => {
                let mut size = data_type.size();
                let mut k = 0;
                while k < dims.len() {
                    size = match size.checked_mul(dims[k] as u64) {
                        Some(v) => v,
                        None => return None,
                    };
                    k += 1;
                }
                Some(size)
            }
        }
    }

    /// Required base-address alignment in bytes.
    pub const fn align(&self) -> u64 {
        match *self {
            BufferKind::Raw { align, .. } | BufferKind::Tensor { align, .. } => align,
            BufferKind::Pinned { .. } => 4096,
        }
    }
}

/// One buffer, possibly multi-buffered: frame `f` uses copy `f % multiplicity`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    /// Name used in the schedule and in messages.
    pub name: &'static str,
    /// What backs it.
    pub kind: BufferKind,
    /// Number of copies (1 = single, 2 = double buffering, ...).
    pub multiplicity: u8,
    /// Whether CPU tasks touch it (it is then allocated with CPU access).
    pub cpu_access: bool,
}

/// A dependency of a task: it waits for `task` of frame `f - lag` to complete. When `task`
/// was not planned in that frame (it does not run in that frame's mode), the wait is dropped:
/// it orders nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// The task waited for.
    pub task: TaskId,
    /// 0 = the same frame, 1 = the previous frame, ...
    pub lag: u8,
}

/// A kernel launch parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Param {
    /// Device address of the frame's copy of a buffer.
    Buffer(BufferId),
    /// A 32-bit unsigned constant.
    U32(u32),
    /// A 32-bit signed constant.
    I32(i32),
    /// A 64-bit unsigned constant.
    U64(u64),
    /// A 32-bit float constant.
    F32(f32),
}

/// A GPU kernel launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuWork {
    /// The cubin holding the kernel.
    pub cubin: CubinId,
    /// The kernel's entry name.
    pub kernel: &'static str,
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared_mem_bytes: u32,
    /// Parameters in declaration order.
    pub params: &'static [Param],
}

/// Binds a loadable tensor (by name) to a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorBinding {
    /// Tensor name as in the loadable.
    pub tensor: &'static str,
    /// The buffer bound to it.
    pub buffer: BufferId,
}

/// A DLA submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DlaWork {
    /// The loadable to run.
    pub loadable: LoadableId,
    /// Input tensors, in the loadable's order.
    pub inputs: &'static [TensorBinding],
    /// Output tensors, in the loadable's order.
    pub outputs: &'static [TensorBinding],
}

/// What a task does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Work {
    /// A CPU function, bound by task name at init.
    Cpu,
    /// A GPU kernel launch.
    Gpu(GpuWork),
    /// A DLA loadable submission.
    Dla(DlaWork),
    /// A PVA program (VPU executable) launch.
    Pva(PvaWork),
}

/// How a PVA program uses a buffer a pointer parameter points to (the access it is imported
/// with, `CupvaMemImport`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PvaAccess {
    /// The program only reads it: the task lists it in `reads`.
    Read,
    /// The program only writes it: the task lists it in `writes`.
    Write,
    /// Both: the task lists it in `reads` and `writes`.
    ReadWrite,
}

/// The kind of a PVA program parameter, as the programs manifest declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum PvaParamKind {
    /// A pointer to a buffer (the task passes [`Param::Buffer`]), used with this access.
    Pointer(PvaAccess),
    /// `uint32_t` ([`Param::U32`]).
    U32,
    /// `int32_t` ([`Param::I32`]).
    I32,
    /// `uint64_t` ([`Param::U64`]).
    U64,
    /// `float` ([`Param::F32`]).
    F32,
}

impl PvaParamKind {
    /// Whether `value` is a value of this kind.
    ///
    /// ```
    /// use orin_exec_table::{BufferId, Param, PvaAccess, PvaParamKind};
    /// assert!(PvaParamKind::Pointer(PvaAccess::Read).admits(Param::Buffer(BufferId(0))));
    /// assert!(!PvaParamKind::U32.admits(Param::F32(1.0)));
    /// ```
    pub const fn admits(self, value: Param) -> bool {
        matches!(
            (self, value),
            (PvaParamKind::Pointer(_), Param::Buffer(_))
                | (PvaParamKind::U32, Param::U32(_))
                | (PvaParamKind::I32, Param::I32(_))
                | (PvaParamKind::U64, Param::U64(_))
                | (PvaParamKind::F32, Param::F32(_))
        )
    }
}

/// A parameter of a PVA program: a symbol of the VPU executable that the runtime sets before
/// each launch (cuPVA `CmdProgram` parameters are looked up by symbol name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PvaParamSpec {
    /// The symbol name in the VPU executable.
    pub name: &'static str,
    /// Its kind.
    pub kind: PvaParamKind,
}

/// A PVA program: a pre-built VPU ELF image from the PVA programs manifest (built with the
/// PVA SDK's VPU toolchain), its hash and its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PvaProgramDesc {
    /// Name in the programs manifest.
    pub name: &'static str,
    /// SHA-256 of `image` from the manifest (the generator checked the file against it; the
    /// SIL cuPVA identifies programs by it).
    pub sha256: [u8; 32],
    /// The VPU ELF image.
    pub image: &'static [u8],
    /// Its parameters, in the order tasks pass their values.
    pub params: &'static [PvaParamSpec],
}

/// A PVA submission: one launch of a program with its parameter values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PvaWork {
    /// The program.
    pub program: PvaProgramId,
    /// One value per parameter of the program, in the program's order: a scalar, or the
    /// buffer a pointer parameter points to (the frame's copy).
    pub params: &'static [Param],
}

/// One task of the periodic pipeline. Its position in its engine instance's FIFO is its order
/// among the tasks of that engine in [`ScheduleTables::tasks`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaskDesc {
    /// Name used in the schedule, in messages and in the trace.
    pub name: &'static str,
    /// The engine instance whose queue runs it.
    pub engine: EngineId,
    /// What it does.
    pub work: Work,
    /// Worst-case execution time used by the validator's timeline.
    pub wcet_ns: u64,
    /// Execution-time budget monitored at run time.
    pub budget_ns: u64,
    /// Deadline relative to the release of the major frame.
    pub deadline_ns: u64,
    /// CPU tasks: release offset within the major frame (0 for accelerator tasks).
    pub release_ns: u64,
    /// Buffers read.
    pub reads: &'static [BufferId],
    /// Buffers written.
    pub writes: &'static [BufferId],
    /// Tasks waited for (explicit dependencies, in- and cross-frame).
    pub waits: &'static [Wait],
    /// Modes in which the task runs.
    pub modes: ModeMask,
}

/// An operating mode (a subset of tasks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeDesc {
    /// Name used in the schedule and in messages.
    pub name: &'static str,
}

/// The faults the monitor detects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FaultKind {
    /// A task finished after its deadline.
    DeadlineMiss,
    /// A task ran longer than its budget.
    BudgetOverrun,
    /// A fence was not reached by its deadline.
    FenceTimeout,
    /// An engine reported an error (cuDLA sticky error, CUDA error).
    EngineError,
    /// A CPU task reported a failure (e.g. an implausible result).
    TaskError,
}

impl FaultKind {
    /// Every fault kind, in a fixed order.
    pub const ALL: [FaultKind; 5] = [
        FaultKind::DeadlineMiss,
        FaultKind::BudgetOverrun,
        FaultKind::FenceTimeout,
        FaultKind::EngineError,
        FaultKind::TaskError,
    ];

    /// The name used in schedules and in the trace.
    pub const fn name(self) -> &'static str {
        match self {
            FaultKind::DeadlineMiss => "deadline_miss",
            FaultKind::BudgetOverrun => "budget_overrun",
            FaultKind::FenceTimeout => "fence_timeout",
            FaultKind::EngineError => "engine_error",
            FaultKind::TaskError => "task_error",
        }
    }
}

/// Which faults a health rule applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum FaultScope {
    /// Faults of one task.
    Task(TaskId),
    /// Faults of any task on one engine instance.
    Engine(EngineId),
    /// Any task.
    Any,
}

/// The reaction to a fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Action {
    /// Record it in the trace and the fault counters.
    Log,
    /// Run the task as a no-op (its fences still signal) in the next frame not yet submitted.
    Skip,
    /// Switch to a mode at the next major-frame boundary not yet submitted.
    SwitchMode(ModeId),
    /// Call the safe-state function and stop releasing frames.
    SafeStop,
}

/// One row of the health-monitor table: the first matching row wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HealthRule {
    /// The fault kind.
    pub fault: FaultKind,
    /// The tasks it applies to.
    pub scope: FaultScope,
    /// What to do.
    pub action: Action,
}

/// One SASS image of a cubin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubinVariant {
    /// The SM it was built for (87 = Orin, 90 = H100/H200).
    pub sm: u32,
    /// SHA-256 of `image` from the kernels manifest.
    pub sha256: [u8; 32],
    /// The image (an ELF cubin).
    pub image: &'static [u8],
}

/// A GPU module, with one variant per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubinDesc {
    /// Module name from the kernels manifest.
    pub name: &'static str,
    /// The per-SM images; the one matching the device is loaded.
    pub variants: &'static [CubinVariant],
}

/// A tensor of a loadable, as recorded in the loadables manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorSpec {
    /// Tensor name.
    pub name: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// n, c, h, w.
    pub dims: [u32; 4],
    /// Element type.
    pub data_type: TensorType,
}

/// A DLA network: its ONNX model and, for `orin`, the real loadable TensorRT built from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadableDesc {
    /// Name from the loadables manifest.
    pub name: &'static str,
    /// SHA-256 of `onnx` from the manifest.
    pub onnx_sha256: [u8; 32],
    /// The ONNX model: what the SIL DLA runs (`sil`, `rig`) and what TensorRT compiles.
    pub onnx: &'static [u8],
    /// The real DLA loadable built from `onnx` (what `orin` loads), if the manifest names one.
    pub loadable: Option<RealLoadable>,
    /// Input tensors in order.
    pub inputs: &'static [TensorSpec],
    /// Output tensors in order.
    pub outputs: &'static [TensorSpec],
}

/// A real, TensorRT-built DLA loadable and its manifest hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RealLoadable {
    /// SHA-256 of `image` from the manifest.
    pub sha256: [u8; 32],
    /// The loadable.
    pub image: &'static [u8],
}

/// One row of the validator's worst-case timeline (for evidence and reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimelineEntry {
    /// The mode this row belongs to.
    pub mode: ModeId,
    /// The task.
    pub task: TaskId,
    /// Latest start relative to the frame release.
    pub latest_start_ns: u64,
    /// Latest finish relative to the frame release.
    pub latest_finish_ns: u64,
    /// Deadline minus latest finish.
    pub slack_ns: u64,
}

/// How a CPU thread waits for a task's completion fence (the executive monitoring it, or a CPU
/// task depending on it), on the real clock. The schedule sets it per engine or per task
/// (`cpu_wait`); the virtual clock always blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CpuWait {
    /// Sleep until the signal wakes the waiter (no CPU used while waiting).
    Block,
    /// Spin without yielding between `from_ns` and `until_ns` after the frame's release
    /// (`0..u64::MAX`: the whole wait), sleeping before and after the window: the
    /// completion is seen as soon as it happens, at the cost of the CPU time spun.
    Spin {
        /// Window start, relative to the frame's release.
        from_ns: u64,
        /// Window end, relative to the frame's release.
        until_ns: u64,
    },
}

impl CpuWait {
    /// Spin for the whole wait.
    pub const ALWAYS_SPIN: CpuWait = CpuWait::Spin {
        from_ns: 0,
        until_ns: u64::MAX,
    };
}

/// Which runtime thread a [`ThreadDesc`] configures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Thread {
    /// The executive: the thread that calls the runtime's `init` and runs the frames.
    Executive,
    /// The worker thread of a CPU engine.
    Worker(EngineId),
}

/// The highest `SCHED_FIFO` priority a schedule may give: Linux's maximum (`sched(7)`:
/// 1..=99); QNX 7.1 accepts 1..=255 (above 63 only with `PROCMGR_AID_PRIORITY`), so 1..=99
/// is valid on both.
pub const MAX_FIFO_PRIORITY: u8 = 99;

/// The real-time settings of one runtime thread (the schedule's `[executive]` table and the
/// `priority`/`cpus` of a CPU engine). A thread without an entry keeps the runtime's
/// defaults: `Config::realtime_priority` and no affinity.
///
/// ```
/// use orin_exec_table::*;
///
/// // Worker of engine 0 at SCHED_FIFO 70, on CPUs 1 and 2.
/// let t = ThreadDesc { thread: Thread::Worker(EngineId(0)), priority: 70, cpus: 0b110 };
/// assert!(t.cpus & (1 << 1) != 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ThreadDesc {
    /// The thread.
    pub thread: Thread,
    /// `SCHED_FIFO` priority, 1..=[`MAX_FIFO_PRIORITY`]; `0`: the runtime's default.
    pub priority: u8,
    /// The CPUs it may run on, bit n for CPU n; `0`: any CPU (the OS's default).
    pub cpus: u64,
}

/// The tables of a schedule, as plain data: what the generator emits. The runtime takes them
/// only as a [`Schedule`], made by [`Schedule::check`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScheduleTables {
    /// Application name.
    pub name: &'static str,
    /// Platform profile the schedule was validated for.
    pub profile: &'static str,
    /// Major frame period.
    pub period_ns: u64,
    /// Minor frame offsets within the major frame (the first is 0).
    pub minor_frames_ns: &'static [u64],
    /// How many frames ahead accelerator work is submitted (0 or 1).
    pub lookahead: u8,
    /// Real-time settings of the executive and CPU workers (at most one entry per thread;
    /// empty: the runtime's defaults for all).
    pub threads: &'static [ThreadDesc],
    /// Engine instances.
    pub engines: &'static [EngineDesc],
    /// Buffers.
    pub buffers: &'static [BufferDesc],
    /// Tasks, in a valid submission order (topological, FIFO order per engine).
    pub tasks: &'static [TaskDesc],
    /// Modes; mode 0 is the initial one.
    pub modes: &'static [ModeDesc],
    /// Health-monitor table.
    pub health: &'static [HealthRule],
    /// GPU modules.
    pub cubins: &'static [CubinDesc],
    /// DLA loadables.
    pub loadables: &'static [LoadableDesc],
    /// PVA programs.
    pub pva_programs: &'static [PvaProgramDesc],
    /// The validator's worst-case timeline.
    pub timeline: &'static [TimelineEntry],
    /// How CPU threads wait for each task's completion (indexed by task; empty: every task
    /// [`CpuWait::Block`]).
    pub cpu_waits: &'static [CpuWait],
}

impl ScheduleTables {
    /// The task with this name.
    pub fn task_by_name(&self, name: &str) -> Option<TaskId> {
        self.tasks
            .iter()
            .position(|t| t.name == name)
            .map(|i| TaskId(i as u16))
    }

    /// The mode with this name.
    pub fn mode_by_name(&self, name: &str) -> Option<ModeId> {
        self.modes
            .iter()
            .position(|m| m.name == name)
            .map(|i| ModeId(i as u8))
    }

    /// The engine with this name.
    pub fn engine_by_name(&self, name: &str) -> Option<EngineId> {
        self.engines
            .iter()
            .position(|e| e.name == name)
            .map(|i| EngineId(i as u8))
    }

    /// The buffer with this name.
    pub fn buffer_by_name(&self, name: &str) -> Option<BufferId> {
        self.buffers
            .iter()
            .position(|b| b.name == name)
            .map(|i| BufferId(i as u16))
    }

    /// The task's descriptor.
    pub fn task(&self, id: TaskId) -> &TaskDesc {
        &self.tasks[id.0 as usize]
    }

    /// The real-time settings of `thread` (priority 0 and no CPUs, the runtime's defaults,
    /// when the tables have no entry for it).
    pub fn thread(&self, thread: Thread) -> ThreadDesc {
        self.threads
            .iter()
            .find(|t| t.thread == thread)
            .copied()
            .unwrap_or(ThreadDesc {
                thread,
                priority: 0,
                cpus: 0,
            })
    }

    /// How CPU threads wait for the task's completion.
    pub fn cpu_wait(&self, id: TaskId) -> CpuWait {
        self.cpu_waits
            .get(id.0 as usize)
            .copied()
            .unwrap_or(CpuWait::Block)
    }

    /// The first health rule matching a fault of `task`, if any.
    pub fn health_rule(&self, fault: FaultKind, task: TaskId) -> Option<&HealthRule> {
        let engine = self.tasks.get(task.0 as usize).map(|t| t.engine);
        self.health.iter().find(|r| {
            r.fault == fault
                && match r.scope {
                    FaultScope::Task(t) => t == task,
                    FaultScope::Engine(e) => Some(e) == engine,
                    FaultScope::Any => true,
                }
        })
    }
}

/// A checked schedule: [`ScheduleTables`] that passed [`Schedule::check`], the only way to
/// make one. It reads like its tables (`Deref`), but cannot be built or changed by hand:
///
/// ```compile_fail
/// # use orin_exec_table::*;
/// # static TABLES: ScheduleTables = ScheduleTables { name: "s", profile: "sil",
/// #   period_ns: 1, minor_frames_ns: &[0], lookahead: 0, threads: &[], engines: &[], buffers: &[],
/// #   tasks: &[], modes: &[ModeDesc { name: "m" }], health: &[], cubins: &[],
/// #   loadables: &[], pva_programs: &[], timeline: &[], cpu_waits: &[] };
/// // error[E0451]: field `tables` of struct `Schedule` is private
/// static FORGED: Schedule = Schedule { tables: &TABLES };
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    tables: &'static ScheduleTables,
}

impl Schedule {
    /// The checked tables, for as long as the program runs.
    pub const fn tables(self) -> &'static ScheduleTables {
        self.tables
    }
}

impl core::ops::Deref for Schedule {
    type Target = ScheduleTables;

    fn deref(&self) -> &ScheduleTables {
        self.tables
    }
}
