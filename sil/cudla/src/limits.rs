//! Fixed capacities and defaults of the SIL libcudla (documented in `sil/README.md`).

/// Most SIL DLA instances (`cudlaSilSetDeviceCount` / `CUDLA_SIL_DEVICE_COUNT`).
pub const MAX_DEVICES: u64 = 16;
/// DLA instances when nothing else is configured (Orin has two).
pub const DEFAULT_DEVICE_COUNT: u64 = 2;
/// Live handles per DLA instance (cuDLA docs: at most 16).
pub const MAX_HANDLES_PER_DLA: usize = 16;
/// Tasks a handle's queue holds (submitted, not yet started); preallocated at create.
pub const QUEUE_CAPACITY: usize = 64;
/// Imports (memory + semaphores) per handle; preallocated at create.
pub const MAX_IMPORTS: usize = 256;
/// Pre-fences plus SOF fences per task (cuDLA docs: 29).
pub const MAX_WAIT_EVENTS: usize = 29;
/// Signal events per task (cuDLA 1.2.1 release notes: one).
pub const MAX_SIGNAL_EVENTS: usize = 1;
/// Input or output tensors per task (the SIL loadable format's limit).
pub const MAX_IO: usize = sil_loadable::MAX_IO_TENSORS;
/// Pre-fences a queued task can carry: its own plus those of an event-only submission.
pub const MAX_ENTRY_WAITS: usize = 2 * MAX_WAIT_EVENTS;
/// Signals a queued task can carry: its own plus those of an event-only submission.
pub const MAX_ENTRY_SIGNALS: usize = 2 * MAX_SIGNAL_EVENTS;
/// Fault rules per handle.
pub const MAX_FAULTS: usize = 16;
/// Default task timeout (cuDLA docs: 30 s).
pub const DEFAULT_TIMEOUT_MS: u32 = 30_000;
/// Largest task timeout accepted by `cudlaSetTaskTimeoutInMs` (1000 s).
pub const MAX_TIMEOUT_MS: u32 = 1_000_000;
/// Default execution time of a task: fixed 2 ms.
pub const DEFAULT_EXEC_NS: u64 = 2_000_000;
/// Seed of the default timing model.
pub const DEFAULT_SEED: u64 = 0;
/// Slice of a pre-fence wait between two checks of the stop flag, in µs.
pub const FENCE_POLL_US: i64 = 5_000;
/// Required alignment of imported memory (DLA rule: 32 bytes).
pub const DLA_ADDR_ALIGN: usize = 32;
/// First device pointer token.
pub const TOKEN_BASE: u64 = 0xd1a0_0000_0000;
/// Distance between two tokens.
pub const TOKEN_STRIDE: u64 = 0x1000;
/// `cudlaGetVersion`: 1.2.1.
pub const VERSION: u64 = cudla_sys::cudla_version(
    cudla_sys::CUDLA_VER_MAJOR as u64,
    cudla_sys::CUDLA_VER_MINOR as u64,
    cudla_sys::CUDLA_VER_PATCH as u64,
);
/// `CUDLA_DEVICE_VERSION`: 2 (Orin).
pub const DEVICE_VERSION: u32 = 2;
