//! The cyclic executive, the deadline/budget monitor, the health monitor and modes.
#[cfg(feature = "std")]
pub mod bind;
#[cfg(feature = "std")]
pub mod board;
pub mod cycle;
#[cfg(feature = "std")]
pub mod executive;
#[cfg(feature = "std")]
mod graphs;
pub mod health;
#[cfg(feature = "std")]
mod init;
pub mod plan;
#[cfg(feature = "std")]
pub mod runtime;
#[cfg(feature = "std")]
mod state;
#[cfg(feature = "std")]
mod wait;
#[cfg(feature = "std")]
pub mod worker;

#[cfg(feature = "std")]
pub use crate::engine::cpu::{Buf, BufMut};
#[cfg(feature = "std")]
pub use bind::{BodySet, TaskContext};
#[cfg(feature = "std")]
pub use executive::{
    Executive, FaultRecord, FrameReport, Injection, NotApplied, SubmitStats, TaskCounters,
};
#[cfg(feature = "std")]
pub use runtime::{Builder, Config, InitFailure, Initialized, SafeStop, Storage};
#[cfg(feature = "std")]
pub use worker::{CpuTask, TRACE_CAPACITY, TaskFault};
