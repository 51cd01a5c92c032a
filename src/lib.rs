//! orin-exec: a no-heap, real-time cyclic executive for fixed periodic pipelines across the
//! CPU, GPU, DLA and PVA of NVIDIA DRIVE/Jetson Orin.
#![no_std]

#[cfg(feature = "std")]
extern crate std;

// On `sil` and `rig` the SIL libraries provide the NvSci and cuDLA symbols (and, on `sil`,
// the CUDA ones) that the bindings declare.
#[cfg(platform = "sil")]
use sil_cuda as _;
#[cfg(any(platform = "sil", platform = "rig"))]
use {cudla as _, nvscibuf as _, nvscisync as _};

pub mod error;
pub mod exec;
pub mod limits;
pub mod mem;
pub mod sync;
pub mod trace;

/// The static schedule tables (the `orin-exec-table` crate): what the generator emits and the
/// runtime executes.
pub use orin_exec_table as table;

/// Kernel reference models (the `orin-exec-kernel-model` crate): the `KernelModel` trait that
/// SIL CUDA runs in place of the GPU ([`sil::register_kernel_model`]) and that back-to-back
/// tests run on host copies (`HostMemory`) as the GPU's oracle.
pub use orin_exec_kernel_model as kernel_model;

#[cfg(any(feature = "sil", feature = "rig"))]
pub mod sil;

pub use error::{Error, Result};
pub mod engine;
