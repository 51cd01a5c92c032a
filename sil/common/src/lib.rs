//! Shared pieces of the SIL ("software in the loop") libraries.
//!
//! Every SIL library of one process uses the same [`clock`], so timestamps written by the SIL
//! cuDLA, the SIL CUDA and the SIL NvSciSync are comparable, and a test can switch the whole
//! process to virtual time. [`timing`] holds the execution-time models behind the
//! `*SilSetTimingModel` extension calls, [`rng`] their seeded generator, and [`wait`] the
//! poll-and-sleep waiting that SIL semaphores need (a real GPU writes counters without
//! notifying anybody).
pub mod clock;
pub mod rng;
pub mod timing;
pub mod wait;
