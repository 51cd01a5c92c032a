//! Fixed sizes of the SIL cuPVA. Everything a stream's worker touches while running is
//! allocated when the stream is created, at these sizes.

/// Entries of a stream's queue (one per command; preallocated at `CupvaStreamCreate`). A
/// submit that finds it full waits up to its submit timeout.
pub const QUEUE_CAPACITY: usize = 256;
/// Most commands in one `CupvaStreamSubmit` (`MAX_NUM_COMMANDS_PER_SUBMIT` of
/// `cupva_host_common.hpp`, https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/program_listing_file_src_host_shared_include_install_cupva_host_common.hpp.html).
pub const MAX_CMDS_PER_SUBMIT: usize = 256;
/// Most fences of one RequestFences command (`MAX_CMD_REQUEST_FENCES_ARRAY_SIZE`, same file).
pub const MAX_REQUEST_FENCES: usize = 4;
/// Most fences of one WaitOnFences command (`MAX_CMD_WAIT_ON_FENCES_ARRAY_SIZE`, same file).
pub const MAX_WAIT_FENCES: usize = 8;
/// Fences one sync object can carry at once: "up to 512 fences at any given time" and
/// "less than 512" (https://docs.nvidia.com/pva/sdk/2.7.1/pva_sdk_apis/classcupva_1_1SyncObj.html);
/// the SIL takes the stricter reading: at most 511 requested and not yet signalled.
pub const MAX_FENCES_PER_SYNC_OBJ: u64 = 511;
/// Timestamps kept per native sync object (the last values signalled).
pub const TIMESTAMP_RING: usize = 512;
/// Command status slots kept per stream (older statuses are no longer valid).
pub const STATUS_SLOTS: usize = 1024;
/// Most VPU ELF hashes one C program model is bound to (`CupvaSilRegisterProgramModel`'s
/// `numHashes`, checked before the caller's array is read; the limit of SIL CUDA's
/// `cuSilRegisterKernelModel`).
pub const MAX_ELF_HASHES: usize = 64;
/// Faults queued per stream.
pub const MAX_FAULTS: usize = 8;
/// PVA instances on Orin (PVA0, PVA1) and VPUs per instance.
pub const ENGINES: usize = 2;
/// VPUs per PVA instance.
pub const VPUS: usize = 2;
/// Default execution time of a program on a VPU (fixed model).
pub const DEFAULT_EXEC_NS: u64 = 1_000_000;
/// Default seed of the timing models.
pub const DEFAULT_SEED: u64 = 0x5eed_c0f7_0000_0001;
/// Real-time poll of a worker that waits for the virtual clock.
pub const VIRTUAL_POLL: std::time::Duration = std::time::Duration::from_micros(200);
