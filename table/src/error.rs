//! [`TableError`]: why [`Schedule::check`](crate::Schedule::check) refused a set of tables.

use core::fmt;

use crate::{
    BufferId, CubinId, EngineId, EngineKind, FaultScope, Limit, LoadableId, ModeId, PvaProgramId,
    TaskId,
};

/// Why [`Schedule::check`](crate::Schedule::check) refused a set of tables: the first rule
/// the tables break, with the ids and names of what is involved.
///
/// [`TableError::message`] is a static description of the variant (for a `const` panic);
/// `Display` adds the names.
///
/// ```
/// use orin_exec_table::{BufferId, TableError};
///
/// let e = TableError::BufferAlign { buffer: BufferId(0), buffer_name: "image", align: 100 };
/// assert_eq!(e.message(), "a buffer's alignment is not a power of two");
/// assert_eq!(e.to_string(), "buffer `image`: alignment 100 is not a power of two");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TableError {
    /// More tasks than [`MAX_TASKS`](crate::MAX_TASKS).
    TooManyTasks {
        /// How many the tables have.
        count: usize,
    },
    /// More buffers than [`MAX_BUFFERS`](crate::MAX_BUFFERS).
    TooManyBuffers {
        /// How many the tables have.
        count: usize,
    },
    /// A GPU engine's stream would hold more than
    /// [`MAX_STREAM_OPS`](crate::MAX_STREAM_OPS) operations: its tasks' operations per frame
    /// (a kernel, two timer stamps, a signal and one per wait, in every mode together) times
    /// the frames in flight (lookahead + 1).
    StreamOps {
        /// The engine.
        engine: EngineId,
        /// Its name.
        engine_name: &'static str,
        /// Operations it would hold.
        ops: usize,
    },
    /// A task, buffer, loadable or engine exceeds one of the runtime's capacities.
    Limit {
        /// Which.
        limit: Limit,
        /// The name of the task, buffer, loadable or engine.
        name: &'static str,
        /// Its value in the tables (a count, a lag, an alignment).
        value: u64,
    },
    /// No mode, or more than [`MAX_MODES`](crate::MAX_MODES).
    ModeCount {
        /// How many the tables have.
        count: usize,
    },
    /// The period is zero.
    ZeroPeriod,
    /// The lookahead is neither 0 nor 1.
    Lookahead {
        /// The value in the tables.
        lookahead: u8,
    },
    /// There is no minor frame.
    NoMinorFrame,
    /// A minor frame offset does not start at 0, does not increase or is not within the period.
    MinorFrame {
        /// Position in `minor_frames_ns`.
        index: usize,
        /// The offset.
        offset_ns: u64,
    },
    /// A buffer has size 0, or its tensor size overflows `u64`.
    BufferSize {
        /// The buffer.
        buffer: BufferId,
        /// Its name.
        buffer_name: &'static str,
    },
    /// A buffer's alignment is not a power of two.
    BufferAlign {
        /// The buffer.
        buffer: BufferId,
        /// Its name.
        buffer_name: &'static str,
        /// The alignment in the tables.
        align: u64,
    },
    /// A buffer has multiplicity 0.
    Multiplicity {
        /// The buffer.
        buffer: BufferId,
        /// Its name.
        buffer_name: &'static str,
    },
    /// A task's engine does not exist.
    EngineOutOfRange {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The engine id it names.
        engine: EngineId,
    },
    /// A task names a buffer that does not exist (in its reads, writes, kernel parameters or
    /// tensor bindings).
    BufferOutOfRange {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The buffer id it names.
        buffer: BufferId,
    },
    /// A task waits for a task that does not exist.
    WaitOutOfRange {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The task id it waits for.
        waited: TaskId,
    },
    /// A GPU task names a cubin that does not exist.
    CubinOutOfRange {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The cubin id it names.
        cubin: CubinId,
    },
    /// A DLA task names a loadable that does not exist.
    LoadableOutOfRange {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The loadable id it names.
        loadable: LoadableId,
    },
    /// A PVA task names a program that does not exist.
    PvaProgramOutOfRange {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The program id it names.
        program: PvaProgramId,
    },
    /// A PVA task passes a different number of parameter values than its program declares,
    /// or a value of another kind than the program's parameter at `index` (a scalar for a
    /// pointer, an `f32` for a `u32`, ...).
    PvaParam {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The first parameter that does not match (the shorter length on a count mismatch).
        index: usize,
    },
    /// A PVA program parameter whose symbol name is empty or holds a NUL byte: cuPVA looks a
    /// parameter up by its NUL-terminated symbol name.
    PvaSymbolName {
        /// The program.
        program: PvaProgramId,
        /// Its name.
        program_name: &'static str,
        /// The parameter's index in the program.
        index: usize,
    },
    /// A PVA engine without a VPU affinity, or another engine with one.
    VpuAffinity {
        /// The engine.
        engine: EngineId,
        /// Its name.
        engine_name: &'static str,
    },
    /// Two PVA engines of one PVA instance whose VPU affinities overlap: their work would
    /// contend for a VPU in an order the worst-case timeline does not know.
    SharedVpu {
        /// The later engine.
        engine: EngineId,
        /// Its name.
        engine_name: &'static str,
        /// The earlier engine it shares a VPU with.
        other: EngineId,
        /// Its name.
        other_name: &'static str,
    },
    /// A task's work does not fit the kind of its engine (a CPU task on a DLA engine, ...).
    WrongEngineKind {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// Its engine.
        engine: EngineId,
        /// The engine's name.
        engine_name: &'static str,
        /// The engine's kind.
        engine_kind: EngineKind,
    },
    /// A kernel parameter or tensor binding uses a buffer that the task does not list in its
    /// `reads` or `writes` (DLA inputs in `reads`, DLA outputs in `writes`), so the race check
    /// would not see the access.
    UndeclaredAccess {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The buffer.
        buffer: BufferId,
        /// Its name.
        buffer_name: &'static str,
    },
    /// A task waits within the frame for itself or for a later task: the tasks are not in a
    /// submission order, or their same-frame dependencies form a cycle.
    WaitOutOfOrder {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The task it waits for.
        waited: TaskId,
        /// Its name.
        waited_name: &'static str,
    },
    /// A task's deadline is 0 or after the end of the period.
    Deadline {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The deadline in the tables.
        deadline_ns: u64,
    },
    /// A task's release offset is not before its deadline, or an accelerator task has one.
    Release {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The release offset in the tables.
        release_ns: u64,
    },
    /// A health rule's scope names a task or engine that does not exist.
    HealthScopeOutOfRange {
        /// Position of the rule in `health`.
        rule: usize,
        /// The scope.
        scope: FaultScope,
    },
    /// A health rule switches to a mode that does not exist.
    HealthModeOutOfRange {
        /// Position of the rule in `health`.
        rule: usize,
        /// The mode id.
        mode: ModeId,
    },
    /// A timeline entry names a task or mode that does not exist.
    TimelineOutOfRange {
        /// Position of the entry in `timeline`.
        entry: usize,
        /// Its task id.
        task: TaskId,
        /// Its mode id.
        mode: ModeId,
    },
    /// `cpu_waits` is neither empty nor one entry per task, or a spin window ends before it
    /// starts.
    CpuWaitOutOfRange {
        /// Position of the entry in `cpu_waits` (its length when the length is wrong).
        entry: usize,
    },
    /// A `threads` entry names a worker of an engine that does not exist or is not a CPU
    /// engine, configures a thread an earlier entry configures too, or has a priority above
    /// [`MAX_FIFO_PRIORITY`](crate::MAX_FIFO_PRIORITY).
    ThreadOutOfRange {
        /// Position of the entry in `threads`.
        entry: usize,
    },
    /// Two tasks of a frame touch a buffer, at least one writes it, and neither a chain of
    /// same-frame waits nor the FIFO order of an engine orders them.
    RaceWithinFrame {
        /// The buffer.
        buffer: BufferId,
        /// Its name.
        buffer_name: &'static str,
        /// The mode in which they race.
        mode: ModeId,
        /// Its name.
        mode_name: &'static str,
        /// One task (a writer).
        first: TaskId,
        /// Its name.
        first_name: &'static str,
        /// The other task.
        second: TaskId,
        /// Its name.
        second_name: &'static str,
    },
    /// `first` of frame `f` and `second` of frame `f + distance` (the buffer's multiplicity)
    /// touch the same copy of a buffer, at least one writes it, and no chain of waits and FIFO
    /// order within `distance` frames leads from `first` to `second`.
    RaceAcrossFrames {
        /// The buffer.
        buffer: BufferId,
        /// Its name.
        buffer_name: &'static str,
        /// The mode in which they race.
        mode: ModeId,
        /// Its name.
        mode_name: &'static str,
        /// The task of frame `f`.
        first: TaskId,
        /// Its name.
        first_name: &'static str,
        /// The task of frame `f + distance`.
        second: TaskId,
        /// Its name.
        second_name: &'static str,
        /// Frames between them: the buffer's multiplicity.
        distance: u8,
    },
    /// In the worst-case timeline (every engine a FIFO, every task at its WCET) a task finishes
    /// after its deadline.
    DeadlineMiss {
        /// The task.
        task: TaskId,
        /// Its name.
        task_name: &'static str,
        /// The mode.
        mode: ModeId,
        /// Its name.
        mode_name: &'static str,
        /// Its worst-case finish, relative to the frame release (saturated to `u64`).
        finish_ns: u64,
        /// Its deadline.
        deadline_ns: u64,
    },
}

impl TableError {
    /// A static description of the variant (what `Display` says without the names); usable in
    /// `const` contexts, e.g. `panic!("{}", e.message())` in a `static` initializer.
    pub const fn message(&self) -> &'static str {
        match self {
            TableError::TooManyTasks { .. } => "the schedule has more than 64 tasks",
            TableError::StreamOps { .. } => {
                "a GPU stream would hold more than 768 operations (frames in flight x operations per frame)"
            }
            TableError::TooManyBuffers { .. } => "the schedule has more than 64 buffers",
            TableError::Limit { .. } => "the schedule exceeds one of the runtime's capacities",
            TableError::ModeCount { .. } => "the schedule has no mode or more than 32 modes",
            TableError::ZeroPeriod => "the period is zero",
            TableError::Lookahead { .. } => "the lookahead is neither 0 nor 1",
            TableError::NoMinorFrame => "the schedule has no minor frame",
            TableError::MinorFrame { .. } => {
                "minor frame offsets must start at 0, increase, and lie within the period"
            }
            TableError::BufferSize { .. } => {
                "a buffer has size 0, or its tensor size overflows 64 bits"
            }
            TableError::BufferAlign { .. } => "a buffer's alignment is not a power of two",
            TableError::Multiplicity { .. } => "a buffer has multiplicity 0",
            TableError::EngineOutOfRange { .. } => "a task's engine does not exist",
            TableError::BufferOutOfRange { .. } => "a task names a buffer that does not exist",
            TableError::WaitOutOfRange { .. } => "a task waits for a task that does not exist",
            TableError::CubinOutOfRange { .. } => "a GPU task names a cubin that does not exist",
            TableError::LoadableOutOfRange { .. } => {
                "a DLA task names a loadable that does not exist"
            }
            TableError::PvaProgramOutOfRange { .. } => {
                "a PVA task names a program that does not exist"
            }
            TableError::PvaParam { .. } => {
                "a PVA task's parameter values do not match its program's parameters (count or kind)"
            }
            TableError::PvaSymbolName { .. } => {
                "a PVA program parameter's symbol name is empty or holds a NUL byte"
            }
            TableError::VpuAffinity { .. } => {
                "a PVA engine has no VPU affinity, or another engine has one"
            }
            TableError::SharedVpu { .. } => {
                "two PVA engines of one PVA instance can run on the same VPU"
            }
            TableError::WrongEngineKind { .. } => {
                "a task's work does not fit the kind of its engine"
            }
            TableError::UndeclaredAccess { .. } => {
                "a kernel parameter or tensor binding uses a buffer missing from the task's reads/writes"
            }
            TableError::WaitOutOfOrder { .. } => {
                "a task waits within the frame for itself or a later task: not a submission order, or a dependency cycle"
            }
            TableError::Deadline { .. } => "a task's deadline is 0 or after the end of the period",
            TableError::Release { .. } => {
                "a task's release offset is not before its deadline, or an accelerator task has one"
            }
            TableError::HealthScopeOutOfRange { .. } => {
                "a health rule names a task or engine that does not exist"
            }
            TableError::HealthModeOutOfRange { .. } => {
                "a health rule switches to a mode that does not exist"
            }
            TableError::TimelineOutOfRange { .. } => {
                "a timeline entry names a task or mode that does not exist"
            }
            TableError::CpuWaitOutOfRange { .. } => {
                "a CPU wait policy is out of range (one per task; a spin window that ends before it starts)"
            }
            TableError::ThreadOutOfRange { .. } => {
                "a thread entry names no CPU engine, repeats a thread, or has a priority above 99"
            }
            TableError::RaceWithinFrame { .. } => {
                "buffer race within a frame: two tasks touch a buffer, one writes, and nothing orders them"
            }
            TableError::RaceAcrossFrames { .. } => {
                "buffer race across frames: two tasks touch the same buffer copy, one writes, and nothing orders them"
            }
            TableError::DeadlineMiss { .. } => {
                "infeasible timeline: a task can finish after its deadline"
            }
        }
    }
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TableError::TooManyTasks { count } => {
                write!(
                    f,
                    "the schedule has {count} tasks; at most 64 fit a task set"
                )
            }
            TableError::StreamOps {
                engine_name, ops, ..
            } => write!(
                f,
                "GPU engine `{engine_name}` would hold {ops} stream operations (frames in flight x (4 + waits) per task); at most {} fit the stream queue: move tasks to another GPU engine, drop waits or set lookahead = 0",
                crate::MAX_STREAM_OPS
            ),
            TableError::TooManyBuffers { count } => {
                write!(
                    f,
                    "the schedule has {count} buffers; at most 64 fit a buffer set"
                )
            }
            TableError::Limit { limit, name, value } => limit.exceeded(name, value).fmt(f),
            TableError::ModeCount { count } => {
                write!(f, "the schedule has {count} modes; it needs 1 to 32")
            }
            TableError::ZeroPeriod => f.write_str("the period is zero"),
            TableError::Lookahead { lookahead } => {
                write!(f, "the lookahead is {lookahead}; it must be 0 or 1")
            }
            TableError::NoMinorFrame => f.write_str("the schedule has no minor frame"),
            TableError::MinorFrame { index, offset_ns } => write!(
                f,
                "minor frame {index} at {offset_ns} ns: offsets must start at 0, increase, and lie within the period"
            ),
            TableError::BufferSize { buffer_name, .. } => write!(
                f,
                "buffer `{buffer_name}` has size 0, or its tensor size overflows 64 bits"
            ),
            TableError::BufferAlign {
                buffer_name, align, ..
            } => write!(
                f,
                "buffer `{buffer_name}`: alignment {align} is not a power of two"
            ),
            TableError::Multiplicity { buffer_name, .. } => {
                write!(f, "buffer `{buffer_name}` has multiplicity 0")
            }
            TableError::EngineOutOfRange {
                task_name, engine, ..
            } => write!(
                f,
                "task `{task_name}` runs on engine {}, which does not exist",
                engine.0
            ),
            TableError::BufferOutOfRange {
                task_name, buffer, ..
            } => write!(
                f,
                "task `{task_name}` names buffer {}, which does not exist",
                buffer.0
            ),
            TableError::WaitOutOfRange {
                task_name, waited, ..
            } => write!(
                f,
                "task `{task_name}` waits for task {}, which does not exist",
                waited.0
            ),
            TableError::CubinOutOfRange {
                task_name, cubin, ..
            } => write!(
                f,
                "task `{task_name}` names cubin {}, which does not exist",
                cubin.0
            ),
            TableError::LoadableOutOfRange {
                task_name,
                loadable,
                ..
            } => write!(
                f,
                "task `{task_name}` names loadable {}, which does not exist",
                loadable.0
            ),
            TableError::PvaProgramOutOfRange {
                task_name, program, ..
            } => write!(
                f,
                "task `{task_name}` names PVA program {}, which does not exist",
                program.0
            ),
            TableError::PvaParam {
                task_name, index, ..
            } => write!(
                f,
                "task `{task_name}`: PVA parameter {index} is missing, extra, or of another kind than its program declares"
            ),
            TableError::PvaSymbolName {
                program_name,
                index,
                ..
            } => write!(
                f,
                "PVA program `{program_name}`: the symbol name of parameter {index} is empty or holds a NUL byte (cuPVA looks parameters up by NUL-terminated name)"
            ),
            TableError::VpuAffinity { engine_name, .. } => write!(
                f,
                "engine `{engine_name}`: a PVA engine needs a VPU affinity, other engines have none"
            ),
            TableError::SharedVpu {
                engine_name,
                other_name,
                ..
            } => write!(
                f,
                "PVA engines `{other_name}` and `{engine_name}` can run on the same VPU of one PVA: give them different VPUs (`vpu0`, `vpu1`) or one engine"
            ),
            TableError::WrongEngineKind {
                task_name,
                engine_name,
                engine_kind,
                ..
            } => write!(
                f,
                "task `{task_name}`: its work does not run on {engine_kind:?} engine `{engine_name}`"
            ),
            TableError::UndeclaredAccess {
                task_name,
                buffer_name,
                ..
            } => write!(
                f,
                "task `{task_name}` passes buffer `{buffer_name}` to its work but does not list it in its reads/writes"
            ),
            TableError::WaitOutOfOrder {
                task_name,
                waited_name,
                ..
            } => write!(
                f,
                "task `{task_name}` waits within the frame for `{waited_name}`, which is not before it: the tasks are not in a submission order, or their dependencies form a cycle"
            ),
            TableError::Deadline {
                task_name,
                deadline_ns,
                ..
            } => write!(
                f,
                "task `{task_name}`: deadline {deadline_ns} ns is 0 or after the end of the period"
            ),
            TableError::Release {
                task_name,
                release_ns,
                ..
            } => write!(
                f,
                "task `{task_name}`: release offset {release_ns} ns is not before its deadline, or the task runs on an accelerator"
            ),
            TableError::HealthScopeOutOfRange { rule, scope } => write!(
                f,
                "health rule {rule}: scope {scope:?} names a task or engine that does not exist"
            ),
            TableError::HealthModeOutOfRange { rule, mode } => write!(
                f,
                "health rule {rule} switches to mode {}, which does not exist",
                mode.0
            ),
            TableError::TimelineOutOfRange { entry, task, mode } => write!(
                f,
                "timeline entry {entry} names task {} in mode {}, one of which does not exist",
                task.0, mode.0
            ),
            TableError::ThreadOutOfRange { entry } => write!(
                f,
                "threads entry {entry}: name the executive or a CPU engine's worker once each, with a SCHED_FIFO priority of at most {}",
                crate::MAX_FIFO_PRIORITY
            ),
            TableError::CpuWaitOutOfRange { entry } => write!(
                f,
                "cpu_waits entry {entry}: give one policy per task, each spin window starting no later than it ends"
            ),
            TableError::RaceWithinFrame {
                buffer_name,
                mode_name,
                first_name,
                second_name,
                ..
            } => write!(
                f,
                "buffer race on `{buffer_name}` within a frame (mode `{mode_name}`): `{first_name}` writes it, `{second_name}` touches it, and nothing orders them"
            ),
            TableError::RaceAcrossFrames {
                buffer_name,
                mode_name,
                first_name,
                second_name,
                distance,
                ..
            } => write!(
                f,
                "buffer race on `{buffer_name}` across frames (mode `{mode_name}`): `{first_name}` of frame f and `{second_name}` of frame f+{distance} touch the same copy, one writes, and nothing orders them"
            ),
            TableError::DeadlineMiss {
                task_name,
                mode_name,
                finish_ns,
                deadline_ns,
                ..
            } => write!(
                f,
                "task `{task_name}` can finish at {finish_ns} ns in mode `{mode_name}`, after its deadline {deadline_ns} ns"
            ),
        }
    }
}

impl core::error::Error for TableError {}
