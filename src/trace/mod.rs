//! The trace: fixed-size records in a static, lock-free ring (the export is the
//! `orin-exec-trace` crate).
//!
//! The executive and the CPU workers write records; a reader (on hosted builds, a drainer
//! thread) takes them out. Writers never block and never allocate: when the ring is full the
//! oldest unread record is overwritten and the loss is counted, never silent.
pub mod record;
pub mod ring;

pub use record::{Event, Record};
pub use ring::{TraceLog, TraceRing};
