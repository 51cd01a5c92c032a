//! The SIL DLA loadable format.
//!
//! A SIL DLA loadable is what the SIL libcudla accepts in `cudlaModuleLoadFromMemory` in
//! place of a real DLA loadable: a little-endian binary with a fixed header, the I/O tensor
//! descriptors (the same fields as `cudlaModuleTensorDescriptor`), a small int8 network
//! (conv2d, relu, maxpool, avgpool, dense over numbered tensor "slots") with its weights, and
//! a SHA-256 trailer. The specification is `loadables/README.md` in the repository.
//!
//! * [`Loadable::parse`] validates everything (never panics, never reads out of bounds,
//!   allocates nothing) and gives a zero-copy view;
//! * [`Loadable::input`] / [`Loadable::output`] give [`TensorDesc`]s to copy into
//!   `cudlaModuleTensorDescriptor`;
//! * [`Loadable::run`] runs the network on the CPU with caller-provided scratch memory
//!   ([`Loadable::scratch_size`]);
//! * loadables built with layer statistics ([`FLAG_LAYER_STATS`]) describe their statistics
//!   buffers ([`Loadable::stats`]); [`stats`] writes the raw per-layer records after a task
//!   and translates them to CSV.
//!
//! The `std` feature adds [`builder`] (TOML network description → binary), [`describe`] (text
//! dump) and the `build-loadable` tool.
#![no_std]

#[cfg(feature = "std")]
extern crate std;

mod error;
mod exec;
mod format;
pub mod stats;

#[cfg(feature = "std")]
pub mod builder;
#[cfg(feature = "std")]
pub mod describe;

pub use error::{LoadableError, TensorField};
pub use exec::{pool_average, requantize};
pub use format::*;
