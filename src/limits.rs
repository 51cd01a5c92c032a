//! Per-item limits of the engines and of the runtime's data layout. The tables of one
//! application are not sized here: the generated `Storage` sizes them to its schedule. What
//! remains are limits per task, buffer or submission, and the width of the bit sets, which the
//! schedule validator and `Schedule::check` enforce.

/// Tasks per schedule and buffers per schedule: task and buffer sets are 64-bit masks; modes
/// per schedule: mode sets are 32-bit masks; operations one GPU stream holds (frames in flight
/// x (`STREAM_OPS_PER_TASK` + waits) per task), kept below the depth at which the driver
/// blocks the enqueuer (from `orin-exec-table`, which checks them all).
pub use crate::table::{MAX_BUFFERS, MAX_MODES, MAX_STREAM_OPS, MAX_TASKS, STREAM_OPS_PER_TASK};

/// Copies of one buffer (multiplicity): submission data is prepared per copy index.
pub const MAX_COPIES: usize = 4;
/// Fences one task waits for per frame (cuDLA allows 29 pre-fences).
pub const MAX_WAITS: usize = 16;
/// Kernel parameters per launch.
pub const MAX_PARAMS: usize = 16;
/// Tensors (inputs plus outputs) per loadable.
pub const MAX_TENSORS: usize = 8;
/// Frames of fence history kept per task (must exceed the largest dependency lag plus lookahead).
pub const FENCE_HISTORY: usize = 8;
