//! Deterministic semaphores and fences.
//!
//! Every task has one completion semaphore, signalled exactly once per frame in which the
//! task is planned (also when it is skipped: a skipped task signals without doing work).
//! Because each signal adds exactly one, the fence value a task's frame-`f` signal produces is
//! known when frame `f` is planned, before anything is submitted; waiters can be enqueued
//! before their signaler.
pub mod fence;
pub mod semaphore;

pub use fence::Fence;
pub use semaphore::SemaphoreLedger;
