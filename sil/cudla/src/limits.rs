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
/// Pre-fences plus SOF fences per task, queued event-only events included (`cudla.h` 1.5,
/// `cudlaSubmitTask`: 29).
pub const MAX_PRE_AND_SOF: usize = 29;
/// EOF fences per task, queued event-only events included (`cudla.h` 1.5: 29).
pub const MAX_EOF: usize = 29;
/// Sync points among the signal events of a task (`cudla.h` 1.5: one).
pub const MAX_SYNCPOINT_SIGNALS: usize = 1;
/// Signal events a task (or an event-only submission) can carry: 29 EOF + 29 SOF.
pub const MAX_SIGNALS: usize = MAX_EOF + MAX_PRE_AND_SOF;
/// Input or output tensors per task (the SIL DLA network's limit).
pub const MAX_IO: usize = sil_onnx::MAX_IO;
/// Statistics buffers per task (the SIL DLA network's limit).
pub const MAX_STATS: usize = sil_onnx::stats::MAX_STATS;
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
/// Required alignment of imported memory (DLA rule: 32 bytes).
pub const DLA_ADDR_ALIGN: usize = 32;
/// First device handle value (handles are never-reused tokens, not addresses).
pub const DEV_TOKEN_BASE: u64 = 0x00de_0000_0000;
/// Distance between two device handle values.
pub const DEV_TOKEN_STRIDE: u64 = 0x1000;
/// A device handle's module handle is the device handle plus this (one module per handle
/// lifetime).
pub const MODULE_TOKEN_OFFSET: u64 = 0x800;
/// Modelled execution time of a diagnostics task (not drawn from the timing model).
pub const DIAG_EXEC_NS: u64 = 1_000_000;
/// Real-time slice in which a worker re-reads the virtual clock while a hung task waits for
/// its timeout.
pub const VIRTUAL_POLL: core::time::Duration = core::time::Duration::from_millis(1);
/// First device pointer token.
pub const TOKEN_BASE: u64 = 0xd1a0_0000_0000;
/// Distance between two tokens.
pub const TOKEN_STRIDE: u64 = 0x1000;
/// `cudlaGetVersion`: 1.5.0 (the `cudla.h` these declarations follow).
pub const VERSION: u64 = cudla_sys::cudla_version(
    cudla_sys::CUDLA_VER_MAJOR as u64,
    cudla_sys::CUDLA_VER_MINOR as u64,
    cudla_sys::CUDLA_VER_PATCH as u64,
);
/// `CUDLA_DEVICE_VERSION`: 2 (Orin).
pub const DEVICE_VERSION: u32 = 2;
