//! Static capacities. Every table and queue of the runtime is sized by these constants, so the
//! memory the runtime needs is known at build time. The schedule validator rejects schedules
//! that exceed them.

/// Tasks per schedule (task sets are 64-bit masks).
pub const MAX_TASKS: usize = 64;
/// Engine instances per schedule.
pub const MAX_ENGINES: usize = 16;
/// Buffers per schedule.
pub const MAX_BUFFERS: usize = 64;
/// Copies of one buffer (multiplicity).
pub const MAX_COPIES: usize = 4;
/// Fences one task waits for per frame (cuDLA allows 29 pre-fences).
pub const MAX_WAITS: usize = 16;
/// Kernel parameters per launch.
pub const MAX_PARAMS: usize = 16;
/// Tensors (inputs plus outputs) per loadable.
pub const MAX_TENSORS: usize = 8;
/// GPU modules per schedule.
pub const MAX_CUBINS: usize = 8;
/// DLA loadables per schedule (each one needs its own device handle per DLA core).
pub const MAX_LOADABLES: usize = 8;
/// CPU worker threads.
pub const MAX_CPU_WORKERS: usize = 8;
/// Frames of fence history kept per task (must exceed the largest dependency lag plus lookahead).
pub const FENCE_HISTORY: usize = 8;
/// Modes per schedule.
pub const MAX_MODES: usize = 32;
