//! The engine layer: every call into NvSciSync, NvSciBuf, cuDLA, CUDA and the operating
//! system. It is the only part of the runtime with `unsafe` code; each block says why it is
//! sound. Above it, `mem`, `sync` and `exec` are safe Rust.
//!
//! Its safe API cannot be used to corrupt memory: handles are opaque (no public field, raw
//! handle or address), children count on their parents so that no parent is released under
//! a live child (`keep::Keep`, `keep::Hold`), kernels are launched only with parameter blocks
//! checked against the kernel's parameter list, and what must stay `unsafe` (setting the
//! process environment) is an `unsafe fn` with its conditions. NvSciSync, NvSciBuf and cuDLA
//! objects are the executive's business and not public.
#[cfg(feature = "std")]
pub mod cpu;
#[cfg(feature = "std")]
pub(crate) mod dla;
#[cfg(feature = "std")]
pub mod gpu;
#[cfg(feature = "std")]
pub(crate) mod graph;
#[cfg(feature = "std")]
mod keep;
#[cfg(feature = "std")]
pub(crate) mod nvsci;
#[cfg(feature = "std")]
pub mod os;
#[cfg(feature = "std")]
pub mod platform;
#[cfg(feature = "std")]
pub(crate) mod pva;
#[cfg(feature = "std")]
pub mod report;
