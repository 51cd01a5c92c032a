//! The engine layer: every call into NvSciSync, NvSciBuf, cuDLA, CUDA and the operating
//! system. It is the only part of the runtime with `unsafe` code; each block says why it is
//! sound. Above it, `mem`, `sync` and `exec` are safe Rust.
#[cfg(feature = "std")]
pub mod cpu;
#[cfg(feature = "std")]
pub mod dla;
#[cfg(feature = "std")]
pub mod gpu;
#[cfg(feature = "std")]
pub mod nvsci;
#[cfg(feature = "std")]
pub mod os;
#[cfg(feature = "std")]
pub mod platform;
#[cfg(feature = "std")]
pub mod report;
