//! Deterministic semaphores and fences, and the seqlock that shares state between threads.
//!
//! Every task has one completion semaphore, signalled exactly once per frame in which the
//! task is planned (also when it is skipped: a skipped task signals without doing work).
//! Because each signal adds exactly one, the fence value a task's frame-`f` signal produces is
//! known when frame `f` is planned, before anything is submitted; waiters can be enqueued
//! before their signaler.
//!
//! [`SeqLock`] is the one lock-free versioned slot the board, the trace ring and applications
//! (the AEB demo's decision log) publish through.
pub(crate) mod atomic;
pub mod fence;
pub mod semaphore;
pub mod seqlock;

pub use fence::Fence;
pub use semaphore::SemaphoreLedger;
pub use seqlock::{SeqLock, SeqState};
