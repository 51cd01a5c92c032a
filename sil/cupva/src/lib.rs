//! SIL twin of the cuPVA host runtime (`libcupva_host`, PVA SDK) with the C ABI of
//! `cupva-sys`.
//!
//! Every function that `cupva-sys` declares is exported here under its C name with the same
//! signature, plus the SIL extension calls of `cupva-sys::sil`. The crate builds as an rlib
//! (linked into the runtime on the `sil` and `rig` platforms) and as `libcupva_host.so` for
//! C programs.
//!
//! * Executables are VPU ELF images identified by their SHA-256: PVA authentication is on,
//!   so an image must be in the allowlist ([`allow_program`], `CupvaSilAllowProgram`) and
//!   runs as the reference model registered for it ([`register_program_model`],
//!   `CupvaSilRegisterProgramModel`), the [`KernelModel`](orin_exec_kernel_model::KernelModel)
//!   trait of SIL CUDA's kernels. Parameters are set by name on command programs.
//! * Streams are in order: one worker thread each and a queue of
//!   [`limits::QUEUE_CAPACITY`] commands preallocated at creation; a full queue makes a
//!   submit wait up to its submit timeout.
//! * Sync objects are native or imported from NvSciSync: waits on imported fences go
//!   through `NvSciSyncSilFenceWaitEngineAbortable`, requested fences reserve the engine's
//!   next signal with `NvSciSyncSilObjEngineFence` (deterministic values) and are reached
//!   with `NvSciSyncSilObjSignalEngine`; at most 511 fences per sync object are outstanding.
//! * Each program ends at the submit's execution timeout; its command status carries the
//!   asynchronous error. Timing follows a model per VPU ([`CupvaSilSetTimingModel`]), in
//!   real or virtual time; faults ([`CupvaSilInjectFault`]): hang, late, error, corrupt.
//!
//! `CupvaStreamSubmit` and the workers allocate nothing. Every choice where the PVA SDK
//! documentation is silent is listed in `sil/README.md` ("cuPVA").
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![allow(non_snake_case)]

mod api;
mod code;
pub mod limits;
mod mem;
mod models;
mod nvsci;
mod stream;
mod sync;

pub use api::*;
pub use models::{RegisterError, allow_program, register_program_model};
