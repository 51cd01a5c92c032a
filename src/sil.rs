//! What exists only on the SIL platforms: registering the kernel models that SIL CUDA runs in
//! place of the GPU (`sil`), and the PVA program models that the SIL cuPVA runs in place of
//! the VPUs (`sil` and `rig`: the rig has a real GPU but no PVA).
//!
//! SIL CUDA knows no kernel of its own. Before init, register a [`KernelModel`] for every
//! kernel the schedule launches: [`register_kernel_model`] binds it to the cubin's SHA-256 of
//! every SM variant, so SIL CUDA runs it only for those exact images, and only if its
//! parameter kinds match the cubin's parameter sizes. A kernel without a usable model fails
//! init with [`Error::NoKernelModel`]. C applications register with
//! `cuSilRegisterKernelModel` (see `sil/README.md`, "Kernel models").
//!
//! The SIL PVA runs its programs (VPU ELF images) the same way: register a [`KernelModel`]
//! per program with [`register_pva_program_model`] (bound to the image's SHA-256, with the
//! names of its parameters) and allowlist the image with [`allow_pva_program`]; see
//! `sil/README.md`, "cuPVA".
//!
//! ```no_run
//! use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind, write};
//!
//! /// `fill(uint32_t* dst, uint32_t n)`: `dst[i] = i`.
//! struct Fill;
//!
//! impl KernelModel for Fill {
//!     fn params(&self) -> &[ParamKind] {
//!         &[ParamKind::DevPtr, ParamKind::U32]
//!     }
//!     fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
//!         let n = l.u32(1)?;
//!         for (d, i) in l.buffers(write::<u32>(0, n as usize))?.iter_mut().zip(0..) {
//!             *d = i;
//!         }
//!         Ok(())
//!     }
//! }
//!
//! static FILL: Fill = Fill;
//!
//! /// Before init: the schedule's cubin `mine` exports `fill`.
//! fn register(schedule: &'static orin_exec::table::Schedule) -> orin_exec::Result<()> {
//!     let mine = schedule.cubins.iter().find(|c| c.name == "mine").expect("cubin `mine`");
//!     orin_exec::sil::register_kernel_model(mine, "fill", &FILL)
//! }
//! ```

pub use cupva_host::RegisterError as PvaRegisterError;

use crate::error::{Error, PvaRegisterFault, Result};
#[cfg(feature = "sil")]
use crate::error::{RegisterFault, Table};
use crate::kernel_model::KernelModel;
#[cfg(feature = "sil")]
use crate::table::CubinDesc;

/// Most SM variants of one cubin a model is bound to at once.
#[cfg(feature = "sil")]
const MAX_VARIANTS: usize = 8;

/// Registers `model` as what SIL CUDA runs for kernel `kernel` of `cubin`, bound to the
/// SHA-256 of every variant of `cubin`. Call it before init (the runtime's init looks every
/// kernel up). Registering the same model again is a no-op; another model for the same cubin
/// and kernel replaces it until a runtime has looked the kernel up
/// ([`RegisterFault::InUse`] after that).
///
/// Errors: [`Error::KernelModelRefused`] (see [`RegisterFault`]), [`Error::Capacity`] for a
/// cubin of more than 8 variants.
#[cfg(feature = "sil")]
pub fn register_kernel_model(
    cubin: &'static CubinDesc,
    kernel: &'static str,
    model: &'static dyn KernelModel,
) -> Result<()> {
    let mut hashes: heapless::Vec<[u8; 32], MAX_VARIANTS> = heapless::Vec::new();
    for v in cubin.variants {
        hashes.push(v.sha256).map_err(|_| Error::Capacity {
            table: Table::CubinVariants,
            limit: MAX_VARIANTS as u32,
        })?;
    }
    sil_cuda::register_kernel_model(cubin.name, kernel, &hashes, model).map_err(|e| {
        use sil_cuda::RegisterError as E;
        Error::KernelModelRefused {
            module: cubin.name,
            kernel,
            why: match e {
                E::BadName => RegisterFault::BadName,
                E::NoCubinHash => RegisterFault::NoCubinHash,
                E::TooManyParams { .. } => RegisterFault::TooManyParams,
                E::InUse => RegisterFault::InUse,
                E::HashTaken => RegisterFault::HashTaken,
            },
        }
    })
}

/// Registers `model` as what the SIL PVA runs for VPU program `program`, bound to the SHA-256
/// of each of its ELF images, with `param_names[i]` the name of `model.params()[i]` (the
/// names the schedule's task sets parameters by). Call it before init; registering a program
/// again replaces its model for executables created afterwards. A PVA task whose program has
/// no model fails init with [`Error::NoPvaProgramModel`].
///
/// Errors: [`Error::PvaModelRefused`] (see [`PvaRegisterFault`]).
///
/// ```no_run
/// use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
///
/// /// `copy(const uint8_t* src, uint8_t* dst, uint32_t n)`.
/// struct Copy;
/// impl KernelModel for Copy {
///     fn params(&self) -> &[ParamKind] {
///         &[ParamKind::DevPtr, ParamKind::DevPtr, ParamKind::U32]
///     }
///     fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
///         let n = l.u32(2)? as usize;
///         let (src, dst) = l.buffers((read::<u8>(0, n), write::<u8>(1, n)))?;
///         dst.copy_from_slice(src);
///         Ok(())
///     }
/// }
/// static COPY: Copy = Copy;
/// let elf = [0u8; 32]; // the SHA-256 of the program's VPU ELF
/// orin_exec::sil::register_pva_program_model("copy", &[elf], &["src", "dst", "n"], &COPY)
///     .expect("one name per parameter");
/// orin_exec::sil::allow_pva_program(elf);
/// ```
pub fn register_pva_program_model(
    program: &'static str,
    elf_sha256: &[[u8; 32]],
    param_names: &[&str],
    model: &'static dyn KernelModel,
) -> Result<()> {
    cupva_host::register_program_model(program, elf_sha256, param_names, model).map_err(|e| {
        let why = match e {
            PvaRegisterError::BadName => PvaRegisterFault::BadName,
            PvaRegisterError::NoElfHash => PvaRegisterFault::NoElfHash,
            PvaRegisterError::ParamCount { names, params } => PvaRegisterFault::ParamCount {
                names: names.min(255) as u8,
                params: params.min(255) as u8,
            },
            PvaRegisterError::HashTaken => PvaRegisterFault::HashTaken,
        };
        Error::PvaModelRefused { program, why }
    })
}

/// Adds a VPU ELF image (by SHA-256) to the SIL PVA's allowlist: the SIL models PVA
/// authentication as on, so an image outside it is refused at init as on a target.
pub fn allow_pva_program(elf_sha256: [u8; 32]) {
    cupva_host::allow_program(elf_sha256);
}
