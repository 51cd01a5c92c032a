//! CUDA kernels and their reference models.
//!
//! * [`CUBINS`]: every committed cubin (SASS only, sm_87 for Orin and sm_90 for the H100/H200
//!   rig), with its sha256 from `kernels/manifest.toml`. `build.rs` checked each one before
//!   this crate compiled: file and source hashes, [`cubin_check::check_cubin`] for its SM (no
//!   PTX, no fatbin), its kernel list, and every kernel's parameter layout against the kinds
//!   the manifest lists; with the pinned nvcc (13.0.88) present it also rebuilt every cubin
//!   and compared the hashes ([`CUBIN_PROVENANCE`] says which happened). [`CUBIN_DESCS`]
//!   describes the same images as the schedule tables do (one [`CubinDesc`] per module).
//! * [`MODELS`]: one [`KernelModel`] per kernel, the same public mechanism an application
//!   uses for its own kernels: SIL CUDA runs them once registered (see [`register_models`]),
//!   and the back-to-back tests run them on host copies as the GPU's oracle.
//! * Beneath the models, one safe reference function per kernel, over slices:
//!   [`aeb_preprocess`], [`aeb_postprocess`], [`stamp_globaltimer`], [`fill_pattern_u32`],
//!   [`saxpy_f32`]; the tolerance policy of the comparisons is in [`fp`].
//!
//! The crate is `no_std`, allocation-free and contains no `unsafe`.
#![no_std]
#![forbid(unsafe_code)]

mod aeb;
pub mod fp;
mod models;
mod selftest;
mod timing;

pub use aeb::{Detection, PostprocessParams, aeb_postprocess, aeb_preprocess};
pub use cubin_check::{CubinError, CubinInfo};
pub use models::{MODELS, model, register_models};
pub use orin_exec_kernel_model::{self as kernel_model, KernelModel, ModelError, ParamKind};
pub use orin_exec_table::{CubinDesc, CubinVariant};
pub use selftest::{fill_pattern_u32, pattern_u32, saxpy_f32};
pub use timing::stamp_globaltimer;

/// One committed cubin (an entry of `kernels/manifest.toml`).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Cubin {
    /// The source's base name (`aeb` for `cuda/aeb.cu`).
    pub name: &'static str,
    /// The SM the SASS is for (87: Orin, 90: H100/H200).
    pub sm: u32,
    /// The file, relative to `kernels/` (e.g. `cubins/aeb.sm_87.cubin`).
    pub file: &'static str,
    /// The CUDA source, relative to `kernels/`.
    pub source: &'static str,
    /// sha256 of [`Cubin::image`], from the manifest.
    pub sha256: [u8; 32],
    /// sha256 of the source, from the manifest.
    pub source_sha256: [u8; 32],
    /// The nvcc version that built it (e.g. `V13.0.88`).
    pub nvcc_version: &'static str,
    /// The exact nvcc flags (the command is `nvcc <flags> -o <file> <source>`).
    pub flags: &'static [&'static str],
    /// The kernel entry points it exports.
    pub kernels: &'static [&'static str],
    /// The image, 128-byte aligned, for `cuModuleLoadData`.
    pub image: &'static [u8],
}

impl Cubin {
    /// Runs [`cubin_check::check_cubin`] on the image for [`Cubin::sm`] (the runtime does this
    /// again at init, before `cuModuleLoadData`).
    pub fn check(&self) -> Result<CubinInfo<'static>, CubinError> {
        cubin_check::check_cubin(self.image, self.sm)
    }

    /// True if the image's sha256 equals the manifest's.
    pub fn sha256_matches(&self) -> bool {
        use sha2::Digest as _;
        let digest: [u8; 32] = sha2::Sha256::digest(self.image).into();
        digest == self.sha256
    }
}

/// `#[repr(align)]` wrapper that gives the embedded images a 128-byte alignment.
#[repr(C, align(128))]
struct Aligned<T: ?Sized>(T);

include!(concat!(env!("OUT_DIR"), "/cubins.rs"));

/// How `build.rs` obtained and checked the cubins: rebuilt with the pinned nvcc and found
/// identical to the manifest, or the committed files checked against the manifest's hashes
/// (pinned nvcc not found, or disabled with `ORIN_EXEC_NVCC=none`).
pub const CUBIN_PROVENANCE: &str = env!("ORIN_EXEC_KERNELS_CUBIN_PROVENANCE");

/// The cubin built from source `name` (e.g. `"aeb"`) for `sm`.
pub fn cubin(name: &str, sm: u32) -> Option<&'static Cubin> {
    CUBINS.iter().find(|c| c.name == name && c.sm == sm)
}

/// The module `name` (e.g. `"selftest"`) as the schedule tables describe it.
pub fn cubin_desc(name: &str) -> Option<&'static CubinDesc> {
    CUBIN_DESCS.iter().find(|c| c.name == name)
}

/// The cubin for `sm` that exports `kernel`.
pub fn cubin_for_kernel(kernel: &str, sm: u32) -> Option<&'static Cubin> {
    CUBINS
        .iter()
        .find(|c| c.sm == sm && c.kernels.contains(&kernel))
}
