//! Kernel reference models for orin-exec: what a CUDA kernel computes, in safe Rust, run by
//! SIL CUDA in place of the GPU and by the rig's back-to-back tests as the oracle.
//!
//! * [`KernelModel`]: a model declares its parameter kinds ([`ParamKind`], which must match
//!   the cubin's parameter sizes) and runs one [`Launch`].
//! * [`Launch`]: the launch's arguments (typed getters that check the kind:
//!   [`Launch::u32`], [`Launch::f32`], ...), its grid and block, the stream clock at kernel
//!   start ([`Launch::now_ns`], for timer-like kernels), and [`Launch::buffers`], which
//!   borrows several device buffers at once as `&[T]` / `&mut [T]` (any [`Pod`] `T`), by
//!   parameter index and length in elements. A written buffer that overlaps another one is
//!   refused (kernel pointers are `__restrict__`).
//! * [`LaunchMemory`]: the memory behind the pointers. SIL CUDA implements it over the memory
//!   it knows, with its region checks; [`HostMemory`] implements it over slices the caller
//!   lends, so the same model runs on host copies.
//! * [`ModelError`]: what went wrong, with the parameter index and what was expected.
//!
//! Register a model with SIL CUDA (`orin_exec::sil::register_kernel_model` in Rust,
//! `cuSilRegisterKernelModel` in C) before the runtime's init; see `sil/README.md`.
//!
//! `no_std`, no allocation, no `unsafe`.
//!
//! # Example: a user's saxpy
//!
//! ```
//! use orin_exec_kernel_model::{
//!     HostMemory, KernelModel, Launch, ModelError, ParamKind::{self, *}, read, write,
//! };
//!
//! /// `saxpy(float a, const float* x, float* y, uint32_t n)`: `y[i] = a * x[i] + y[i]`.
//! struct Saxpy;
//!
//! impl KernelModel for Saxpy {
//!     fn params(&self) -> &[ParamKind] {
//!         &[F32, DevPtr, DevPtr, U32]
//!     }
//!
//!     fn launch(&self, launch: &mut Launch<'_>) -> Result<(), ModelError> {
//!         let (a, n) = (launch.f32(0)?, launch.u32(3)? as usize);
//!         let (x, y) = launch.buffers((read::<f32>(1, n), write::<f32>(2, n)))?;
//!         for (y, x) in y.iter_mut().zip(x) {
//!             *y = a * x + *y;
//!         }
//!         Ok(())
//!     }
//! }
//!
//! // Run it on host copies (what a back-to-back test compares the GPU with).
//! let x = [1.0f32, 2.0, 3.0, 4.0];
//! let mut y = [10.0f32; 4];
//! let mut mem = HostMemory::new();
//! let args = [2.0f32.into(), mem.read(&x)?, mem.write(&mut y)?, 4u32.into()];
//! Launch::new(&args, &mut mem).with_dims([1, 1, 1], [256, 1, 1]).run(&Saxpy)?;
//! drop(mem);
//! assert_eq!(y, [12.0, 14.0, 16.0, 18.0]);
//!
//! // A launch whose arguments do not match the declared kinds is refused before it runs.
//! let mut mem = HostMemory::new();
//! let args = [2u32.into(), mem.read(&x)?, mem.write(&mut y)?, 4u32.into()];
//! assert_eq!(
//!     Launch::new(&args, &mut mem).run(&Saxpy),
//!     Err(ModelError::ArgKind { index: 0, expected: F32, given: U32 })
//! );
//! # Ok::<(), ModelError>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]

mod error;
mod host;
mod kind;
mod launch;

pub use bytemuck::{self, Pod};
pub use error::ModelError;
pub use host::{HOST_BUFFERS, HostMemory};
pub use kind::{ParamKind, param_offset};
pub use launch::{
    Access, Arg, Borrowed, BufferSet, Launch, LaunchMemory, Read, Request, Spec, Write, check_args,
    check_disjoint, read, write,
};

/// The most parameters a kernel model may declare, and the most buffers one
/// [`Launch::buffers`] call borrows.
pub const MAX_PARAMS: usize = 16;

/// A kernel's reference model: its parameter kinds and what one launch computes.
///
/// Models run on SIL CUDA's stream worker threads (several streams at once), hence
/// `Send + Sync`; SIL CUDA calls [`KernelModel::launch`] only after the launch's arguments
/// matched [`KernelModel::params`] (see [`Launch::run`]). A model must not allocate if the
/// application counts allocations after its init (orin-exec's `no_alloc_after_seal`).
pub trait KernelModel: Send + Sync {
    /// The kinds of the kernel's parameters, in order. Their sizes must equal the cubin's
    /// parameter sizes, or SIL CUDA does not hand out the kernel.
    fn params(&self) -> &[ParamKind];

    /// Runs one launch: reads the arguments and the buffers, writes the outputs.
    fn launch(&self, launch: &mut Launch<'_>) -> Result<(), ModelError>;
}
