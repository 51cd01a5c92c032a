//! Program models and the allowlist. The SIL has no VPU: a program (a VPU ELF image) runs as
//! the reference model registered for its SHA-256, through the same [`KernelModel`] trait as
//! SIL CUDA's kernels (Rust: [`register_program_model`]; C: `CupvaSilRegisterProgramModel`).
//! Its parameters are set by name on a command program, so a registration names every
//! parameter, in the model's order.
//!
//! PVA authentication is modelled on: `CupvaExecutableCreate` refuses an image whose SHA-256
//! is not in the allowlist ([`allow_program`], `CupvaSilAllowProgram`), as the driver refuses
//! to register an unlisted VPU ELF (see `sil/README.md`, "cuPVA").

use core::ffi::c_void;
use core::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use orin_exec_kernel_model::{KernelModel, MAX_PARAMS, ParamKind};
use sha2::{Digest, Sha256};

/// Why [`register_program_model`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegisterError {
    /// The program name or a parameter name is empty or holds a NUL byte, or two
    /// parameters share a name.
    BadName,
    /// No ELF SHA-256 was given: the model would be bound to nothing.
    NoElfHash,
    /// The number of names differs from the model's parameters, or there are more than
    /// [`MAX_PARAMS`].
    ParamCount {
        /// Names given.
        names: usize,
        /// Parameters the model declares.
        params: usize,
    },
    /// Another program's model is bound to one of these images.
    HashTaken,
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadName => f.write_str(
                "the program or a parameter name is empty, holds a NUL byte or is given twice",
            ),
            Self::NoElfHash => f.write_str("no VPU ELF SHA-256 given to bind the model to"),
            Self::ParamCount { names, params } => write!(
                f,
                "{names} parameter names for a model of {params} parameters (one name per \
                 parameter, at most {MAX_PARAMS})"
            ),
            Self::HashTaken => {
                f.write_str("another program's model is bound to one of these VPU ELF images")
            }
        }
    }
}

impl std::error::Error for RegisterError {}

/// A C program model: called with its user pointer and the run's arguments; returns 0 on
/// success (anything else fails the command with `CUPVA_VPU_APPLICATION_ERROR`).
pub(crate) type CModelFn =
    unsafe extern "C" fn(*mut c_void, *const cupva_sys::sil::CupvaSilProgramRun) -> i32;

/// What runs for a program.
pub(crate) enum Model {
    /// A Rust [`KernelModel`].
    Rust(&'static dyn KernelModel),
    /// A C callback, its user pointer (as an address; the registrant vouches it may be used
    /// from any thread) and parameter kinds.
    C {
        callback: CModelFn,
        user: usize,
        kinds: [ParamKind; MAX_PARAMS],
        len: usize,
    },
}

impl Model {
    /// The declared parameter kinds.
    pub(crate) fn params(&self) -> &[ParamKind] {
        match self {
            Model::Rust(m) => m.params(),
            Model::C { kinds, len, .. } => &kinds[..*len],
        }
    }
}

/// One program: its name, images, parameter names and model.
pub(crate) struct Program {
    /// The name given at registration (diagnostics).
    pub(crate) name: String,
    hashes: Vec<[u8; 32]>,
    /// Parameter names, in the model's order.
    pub(crate) names: Vec<String>,
    /// The model.
    pub(crate) model: Model,
}

impl Program {
    /// The index of parameter `name`.
    pub(crate) fn param_index(&self, name: &[u8]) -> Option<usize> {
        self.names.iter().position(|n| n.as_bytes() == name)
    }
}

struct Registry {
    programs: Vec<Arc<Program>>,
    allowed: Vec<[u8; 32]>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    programs: Vec::new(),
    allowed: Vec::new(),
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn register(
    name: &str,
    hashes: &[[u8; 32]],
    names: &[&str],
    model: Model,
) -> Result<(), RegisterError> {
    let bad = |s: &str| s.is_empty() || s.contains('\0');
    if bad(name) || names.iter().any(|n| bad(n)) {
        return Err(RegisterError::BadName);
    }
    if names
        .iter()
        .enumerate()
        .any(|(i, n)| names[..i].contains(n))
    {
        return Err(RegisterError::BadName);
    }
    if hashes.is_empty() {
        return Err(RegisterError::NoElfHash);
    }
    let params = model.params().len();
    if names.len() != params || params > MAX_PARAMS {
        return Err(RegisterError::ParamCount {
            names: names.len(),
            params,
        });
    }
    let mut reg = registry();
    if reg
        .programs
        .iter()
        .any(|p| p.name != name && p.hashes.iter().any(|h| hashes.contains(h)))
    {
        return Err(RegisterError::HashTaken);
    }
    let new = Arc::new(Program {
        name: name.to_owned(),
        hashes: hashes.to_vec(),
        names: names.iter().map(|n| (*n).to_owned()).collect(),
        model,
    });
    // Executables already created keep the registration they were created with.
    match reg.programs.iter().position(|p| p.name == name) {
        Some(i) => reg.programs[i] = new,
        None => reg.programs.push(new),
    }
    Ok(())
}

/// Registers `model` as what the SIL PVA runs for the VPU program `name`, bound to the
/// SHA-256 of every ELF image of it (`elf_sha256`), with the names of its parameters in the
/// model's order (`param_names[i]` names `model.params()[i]`). Registering a program again
/// replaces its registration for executables created afterwards.
///
/// Registering does not allowlist the images: see [`allow_program`].
///
/// ```
/// # use {nvscibuf as _, nvscisync as _};
/// use orin_exec_kernel_model::{KernelModel, Launch, ModelError, ParamKind};
///
/// /// `scale(const uint8_t* src, uint8_t* dst, uint32_t n)`.
/// struct Scale;
/// impl KernelModel for Scale {
///     fn params(&self) -> &[ParamKind] {
///         &[ParamKind::DevPtr, ParamKind::DevPtr, ParamKind::U32]
///     }
///     fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
///         Ok(())
///     }
/// }
/// static SCALE: Scale = Scale;
/// let elf = [0x42; 32];
/// cupva_host::register_program_model("scale", &[elf], &["src", "dst", "n"], &SCALE)
///     .expect("registered");
/// assert_eq!(
///     cupva_host::register_program_model("scale", &[elf], &["src", "dst"], &SCALE),
///     Err(cupva_host::RegisterError::ParamCount { names: 2, params: 3 })
/// );
/// ```
pub fn register_program_model(
    name: &str,
    elf_sha256: &[[u8; 32]],
    param_names: &[&str],
    model: &'static dyn KernelModel,
) -> Result<(), RegisterError> {
    register(name, elf_sha256, param_names, Model::Rust(model))
}

/// Adds the VPU ELF image with this SHA-256 to the allowlist of the SIL PVA (what
/// `pvasdkAllowlist.py` / `nvidia-pva-allow` deploy on a target with PVA authentication on).
/// Idempotent.
pub fn allow_program(elf_sha256: [u8; 32]) {
    let mut reg = registry();
    if !reg.allowed.contains(&elf_sha256) {
        reg.allowed.push(elf_sha256);
    }
}

/// Why an image cannot become an executable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LookupError {
    /// Not in the allowlist (PVA authentication refuses it).
    NotAllowed,
    /// Allowlisted, but no model is registered for it.
    NoModel,
}

/// The program of an ELF image, if the image is allowlisted and has a model.
pub(crate) fn lookup(image: &[u8]) -> Result<Arc<Program>, LookupError> {
    let hash: [u8; 32] = Sha256::digest(image).into();
    let reg = registry();
    if !reg.allowed.contains(&hash) {
        return Err(LookupError::NotAllowed);
    }
    reg.programs
        .iter()
        .find(|p| p.hashes.contains(&hash))
        .cloned()
        .ok_or(LookupError::NoModel)
}
