//! Buffer ownership.
//!
//! Buffers are NvSciBuf objects (or pinned host memory for CPU↔GPU staging), created at init
//! from the schedule's buffer table into the application's storage (sized to the schedule:
//! one entry per buffer copy), each with `multiplicity` copies. Frame `f` uses copy
//! `f % multiplicity`; `BufferId` is the typed handle. The [`ledger`] decides, from the
//! schedule alone, which engine work must have completed before the CPU may touch a buffer
//! copy.
pub mod ledger;

pub use ledger::{AccessLedger, BufferUsers, Prerequisite};
