//! Static buffer pools and buffer ownership.
//!
//! Buffers are NvSciBuf objects (or pinned host memory for CPU↔GPU staging), created at init
//! from the schedule's buffer table, each with `multiplicity` copies. Frame `f` uses copy
//! `f % multiplicity`. The [`ledger`] decides, from the schedule alone, which engine work must
//! have completed before the CPU may touch a buffer copy.
pub mod ledger;
pub mod pool;

pub use ledger::{AccessLedger, Prerequisite};
pub use pool::Pool;
