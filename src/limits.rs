//! Per-item limits of the engines and of the runtime's data layout. The tables of one
//! application are not sized here: the generated `Storage` sizes them to its schedule (tasks
//! per CPU worker, buffer copies, CPU workers, the trace ring cannot overflow). What remains
//! are limits per schedule, task, buffer, loadable or submission, and the width of the bit
//! sets. They are defined once, in `orin-exec-table` (`orin_exec_table::Limit` lists them):
//! `Schedule::check` refuses tables beyond them, and the schedule validator (`orin-exec
//! check`, an application's `build.rs`) refuses a schedule beyond them with the line and
//! column of the item; init's own checks are a second line. `docs/schedule.md` ("Runtime
//! limits") is generated from the same list.

/// Tasks per schedule and buffers per schedule: task and buffer sets are 64-bit masks; modes
/// per schedule: mode sets are 32-bit masks; operations one GPU stream holds (frames in flight
/// x (`STREAM_OPS_PER_TASK` + waits) per task), kept below the depth at which the driver
/// blocks the enqueuer.
pub use crate::table::{MAX_BUFFERS, MAX_MODES, MAX_STREAM_OPS, MAX_TASKS, STREAM_OPS_PER_TASK};

/// Copies of one buffer (a multiplicity divides it), fences one task waits for per frame,
/// kernel parameters per launch, input (and output) tensors per loadable, frames of fence
/// history per task (the largest lag is `MAX_LAG`), nodes per CUDA graph, bytes of a kernel
/// name.
pub use crate::table::{
    FENCE_HISTORY, MAX_COPIES, MAX_GRAPH_NODES, MAX_KERNEL_NAME, MAX_LAG, MAX_PARAMS, MAX_TENSORS,
    MAX_WAITS,
};
/// DLA device handles (one per network and core) a buffer copy or a task's semaphore is
/// imported into, and imports into one handle.
pub use crate::table::{
    MAX_DLA_HANDLES_PER_BUFFER, MAX_DLA_HANDLES_PER_SEMAPHORE, MAX_DLA_IMPORTS,
};

/// Runs of CPU tasks that may owe their signals at once, per worker thread and in the core
/// (REQ-RT-019): runs that ended before their dependencies did. More means an engine has
/// hung for many frames: a worker waits for the oldest to be given, the core's
/// [`Cycle::step`](crate::exec::cycle::Cycle::step) returns a capacity error.
pub const OWED_SIGNALS: usize = 16;

/// While runs owe their signals, the core waits and sleeps in slices of this long and looks
/// at their dependencies between them (ns).
pub const OWED_POLL_NS: u64 = 100_000;
