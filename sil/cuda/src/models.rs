//! The registry of kernel models: SIL CUDA knows no kernel of its own. A model is registered
//! for (module name, kernel name) and bound to the SHA-256 of every cubin it may run for
//! (Rust: [`register_kernel_model`]; C: `cuSilRegisterKernelModel`). `cuModuleGetFunction`
//! looks a kernel up by (kernel name, the loaded image's SHA-256): the module name is not in
//! the cubin, the hash identifies it.

use core::ffi::{CStr, c_char, c_int, c_uint, c_void};
use core::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use cuda_sys::sil::*;
use cuda_sys::*;
use orin_exec_kernel_model::{KernelModel, MAX_PARAMS, ParamKind, param_offset};

/// Most cubin hashes one C registration (`cuSilRegisterKernelModel`) may name: checked before
/// the caller's array is read, so a count past a small array is refused instead of read and
/// copied (sil/README.md, "Hostile arguments"). A kernel is built for a few targets, not 64.
pub const MAX_CUBIN_HASHES: usize = 64;

use crate::ret;

/// Why [`register_kernel_model`] refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegisterError {
    /// The module or kernel name is empty or holds a NUL byte.
    BadName,
    /// No cubin SHA-256 was given: the model would be bound to nothing.
    NoCubinHash,
    /// The model declares more parameters than SIL CUDA decodes.
    TooManyParams {
        /// Parameters declared.
        count: usize,
        /// [`MAX_PARAMS`].
        limit: usize,
    },
    /// Another model is registered for this (module, kernel) and a function of it was already
    /// handed out by `cuModuleGetFunction`, so it cannot be replaced.
    InUse,
    /// Another module registered a model of this kernel for one of these cubins: the kernel
    /// name and the image's hash would not tell them apart.
    HashTaken,
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadName => f.write_str("the module or kernel name is empty or holds a NUL byte"),
            Self::NoCubinHash => f.write_str("no cubin SHA-256 given to bind the model to"),
            Self::TooManyParams { count, limit } => write!(
                f,
                "the model declares {count} parameters, SIL CUDA decodes at most {limit}"
            ),
            Self::InUse => f.write_str(
                "another model is registered for this module and kernel and a function of it \
                 was already handed out; register models before cuModuleGetFunction",
            ),
            Self::HashTaken => f.write_str(
                "another module registered a model of this kernel for one of these cubins",
            ),
        }
    }
}

impl std::error::Error for RegisterError {}

/// A C model: its callback, user pointer and parameter kinds.
pub(crate) struct CModel {
    pub(crate) callback: unsafe extern "C" fn(*mut c_void, *const cuSilKernelLaunch) -> c_int,
    /// The user pointer, as an address (the registrant vouches that the callback may use it
    /// from any thread).
    pub(crate) user: usize,
    kinds: [ParamKind; MAX_PARAMS],
    len: usize,
}

/// What runs for a kernel.
pub(crate) enum Model {
    /// A Rust [`KernelModel`].
    Rust(&'static dyn KernelModel),
    /// A C callback.
    C(CModel),
}

impl Model {
    /// The declared parameter kinds.
    pub(crate) fn params(&self) -> &[ParamKind] {
        match self {
            Model::Rust(m) => m.params(),
            Model::C(c) => &c.kinds[..c.len],
        }
    }

    /// The same model: the same Rust object (data and vtable), or the same callback, user
    /// pointer and kinds.
    fn same(&self, other: &Model) -> bool {
        match (self, other) {
            (Model::Rust(a), Model::Rust(b)) => core::ptr::eq(*a, *b),
            (Model::C(a), Model::C(b)) => {
                core::ptr::fn_addr_eq(a.callback, b.callback)
                    && a.user == b.user
                    && self.params() == other.params()
            }
            _ => false,
        }
    }
}

/// One registration.
pub(crate) struct Registration {
    module: String,
    kernel: String,
    hashes: Vec<[u8; 32]>,
    pub(crate) model: Model,
    /// `cuModuleGetFunction` handed out a function of it.
    handed_out: AtomicBool,
}

static REGISTRY: Mutex<Vec<Arc<Registration>>> = Mutex::new(Vec::new());

fn registry() -> MutexGuard<'static, Vec<Arc<Registration>>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

fn register(
    module: &str,
    kernel: &str,
    hashes: &[[u8; 32]],
    model: Model,
) -> Result<(), RegisterError> {
    if module.is_empty() || kernel.is_empty() || module.contains('\0') || kernel.contains('\0') {
        return Err(RegisterError::BadName);
    }
    if hashes.is_empty() {
        return Err(RegisterError::NoCubinHash);
    }
    let count = model.params().len();
    if count > MAX_PARAMS {
        return Err(RegisterError::TooManyParams {
            count,
            limit: MAX_PARAMS,
        });
    }
    let mut reg = registry();
    let clash = reg.iter().any(|r| {
        r.kernel == kernel && r.module != module && r.hashes.iter().any(|h| hashes.contains(h))
    });
    if clash {
        return Err(RegisterError::HashTaken);
    }
    let new = Arc::new(Registration {
        module: module.to_owned(),
        kernel: kernel.to_owned(),
        hashes: hashes.to_vec(),
        model,
        handed_out: AtomicBool::new(false),
    });
    match reg
        .iter()
        .position(|r| r.module == module && r.kernel == kernel)
    {
        Some(i) => {
            let old = &reg[i];
            let same_hashes =
                old.hashes.len() == hashes.len() && hashes.iter().all(|h| old.hashes.contains(h));
            if old.model.same(&new.model) && same_hashes {
                // Registering the same thing again (e.g. once per runtime init) changes nothing.
                return Ok(());
            }
            if old.handed_out.load(Ordering::Acquire) {
                return Err(RegisterError::InUse);
            }
            reg[i] = new;
        }
        None => reg.push(new),
    }
    Ok(())
}

/// Registers `model` for kernel `kernel` of module `module`, bound to the cubins whose SHA-256
/// is in `cubin_sha256` (typically one per SM). `cuModuleGetFunction` then hands out the
/// kernel of a module loaded from one of those images, if the model's parameter kinds match
/// the cubin's parameter sizes; `cuLaunchKernel` runs the model on the stream's worker.
///
/// Registering works at any time, also before `cuInit`. Registering the same (module, kernel)
/// again with the same model object and the same hashes is a no-op that always succeeds; with
/// anything else it replaces the registration, unless a function of the old one was already
/// handed out ([`RegisterError::InUse`]: a handed-out kernel keeps the model it was checked
/// with). A kernel name may have models of several modules only for disjoint cubins
/// ([`RegisterError::HashTaken`]).
///
/// ```
/// # use {nvscibuf as _, nvscisync as _};
/// use orin_exec_kernel_model::{KernelModel, Launch, ModelError, ParamKind};
///
/// struct Nop;
/// impl KernelModel for Nop {
///     fn params(&self) -> &[ParamKind] {
///         &[]
///     }
///     fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
///         Ok(())
///     }
/// }
/// static NOP: Nop = Nop;
/// let hash = [0x11; 32];
/// sil_cuda::register_kernel_model("doc", "nop", &[hash], &NOP).expect("registered");
/// assert_eq!(sil_cuda::kernel_model_params("nop", &hash).as_deref(), Some(&[][..]));
/// assert_eq!(
///     sil_cuda::register_kernel_model("doc", "nop", &[], &NOP),
///     Err(sil_cuda::RegisterError::NoCubinHash)
/// );
/// ```
pub fn register_kernel_model(
    module: &str,
    kernel: &str,
    cubin_sha256: &[[u8; 32]],
    model: &'static dyn KernelModel,
) -> Result<(), RegisterError> {
    register(module, kernel, cubin_sha256, Model::Rust(model))
}

/// The parameter kinds of the model registered for `kernel` and bound to the cubin with
/// this SHA-256, if there is one.
pub fn kernel_model_params(kernel: &str, cubin_sha256: &[u8; 32]) -> Option<Vec<ParamKind>> {
    find(kernel, cubin_sha256).map(|r| r.model.params().to_vec())
}

fn find(kernel: &str, hash: &[u8; 32]) -> Option<Arc<Registration>> {
    registry()
        .iter()
        .find(|r| r.kernel == kernel && r.hashes.contains(hash))
        .cloned()
}

/// The status of `kernel` in a cubin with this hash and parameter layout (`None`: the cubin
/// does not export it), and the registration when it is usable (`CU_SIL_KERNEL_MODEL_OK`).
pub(crate) fn lookup(
    kernel: &str,
    hash: &[u8; 32],
    layout: Option<&[(u16, u16)]>,
) -> (c_int, Option<Arc<Registration>>) {
    let Some(layout) = layout else {
        return (CU_SIL_KERNEL_MODEL_NOT_IN_CUBIN, None);
    };
    let Some(r) = find(kernel, hash) else {
        let any = registry().iter().any(|r| r.kernel == kernel);
        let status = if any {
            CU_SIL_KERNEL_MODEL_OTHER_CUBINS
        } else {
            CU_SIL_KERNEL_MODEL_NOT_REGISTERED
        };
        return (status, None);
    };
    let kinds = r.model.params();
    let fits = kinds.len() == layout.len()
        && layout.iter().enumerate().all(|(i, &(offset, size))| {
            usize::from(size) == kinds[i].size()
                && param_offset(kinds, i) == Some(usize::from(offset))
        });
    if fits {
        (CU_SIL_KERNEL_MODEL_OK, Some(r))
    } else {
        (CU_SIL_KERNEL_MODEL_KINDS_DISAGREE, None)
    }
}

impl Registration {
    /// Marks it handed out (it can no longer be replaced).
    pub(crate) fn hand_out(&self) {
        self.handed_out.store(true, Ordering::Release);
    }
}

/// Registers a C kernel model (see [`register_kernel_model`] for the rules): `kinds` are
/// `CU_SIL_PARAM_*` values. NULL names, hashes, kinds (with `numParams > 0`) or callback, no
/// hash, more than 16 parameters, an unknown kind or a name that is not UTF-8:
/// `CUDA_ERROR_INVALID_VALUE`; [`RegisterError::InUse`] and [`RegisterError::HashTaken`]:
/// `CUDA_ERROR_NOT_PERMITTED`.
///
/// # Safety
/// `module` and `kernel` must be NULL or NUL-terminated; `cubinSha256` valid for `numHashes`
/// arrays, `kinds` for `numParams` values. The callback must be callable with `user` from any
/// thread until the process ends.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilRegisterKernelModel(
    module: *const c_char,
    kernel: *const c_char,
    cubinSha256: *const [u8; 32],
    numHashes: c_uint,
    kinds: *const cuSilParamKind,
    numParams: c_uint,
    model: cuSilKernelModelFn,
    user: *mut c_void,
) -> CUresult {
    ret((|| {
        let Some(callback) = model else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        let (n, nh) = (numParams as usize, numHashes as usize);
        if module.is_null()
            || kernel.is_null()
            || cubinSha256.is_null()
            || nh == 0
            || nh > MAX_CUBIN_HASHES
            || n > MAX_PARAMS
            || (n > 0 && kinds.is_null())
        {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: non-null NUL-terminated strings (caller contract).
        let (module, kernel) = unsafe { (CStr::from_ptr(module), CStr::from_ptr(kernel)) };
        let (Ok(module), Ok(kernel)) = (module.to_str(), kernel.to_str()) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        // SAFETY: `numHashes` arrays (caller contract; checked non-null and non-zero).
        let hashes = unsafe { core::slice::from_raw_parts(cubinSha256, nh) };
        let mut c = CModel {
            callback,
            user: user as usize,
            kinds: [ParamKind::U32; MAX_PARAMS],
            len: n,
        };
        if n > 0 {
            // SAFETY: `numParams` values (caller contract; checked non-null).
            let given =
                unsafe { sil_common::ffi::slice(kinds, n).ok_or(CUDA_ERROR_INVALID_VALUE)? };
            for (slot, k) in c.kinds.iter_mut().zip(given) {
                *slot = *ParamKind::ALL
                    .get(k.0 as usize)
                    .ok_or(CUDA_ERROR_INVALID_VALUE)?;
            }
        }
        register(module, kernel, hashes, Model::C(c)).map_err(|e| match e {
            RegisterError::InUse | RegisterError::HashTaken => CUDA_ERROR_NOT_PERMITTED,
            _ => CUDA_ERROR_INVALID_VALUE,
        })
    })())
}

/// Covers: REQ-KM-002
#[cfg(test)]
mod tests {
    use super::*;
    use orin_exec_kernel_model::{Launch, ModelError};

    struct Kinds(&'static [ParamKind]);
    impl KernelModel for Kinds {
        fn params(&self) -> &[ParamKind] {
            self.0
        }
        fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
            Ok(())
        }
    }
    static PTR_U32: Kinds = Kinds(&[ParamKind::DevPtr, ParamKind::U32]);
    static F32_PTR: Kinds = Kinds(&[ParamKind::F32, ParamKind::DevPtr]);
    static TOO_MANY: Kinds = Kinds(&[ParamKind::U32; MAX_PARAMS + 1]);

    #[test]
    fn registration_rules() {
        let (h1, h2, h3) = ([0xA1; 32], [0xA2; 32], [0xA3; 32]);
        let r = |m, k, h: &[[u8; 32]], model: &'static Kinds| register_kernel_model(m, k, h, model);
        assert_eq!(r("", "k", &[h1], &PTR_U32), Err(RegisterError::BadName));
        assert_eq!(r("m", "k\0", &[h1], &PTR_U32), Err(RegisterError::BadName));
        assert_eq!(r("m", "k", &[], &PTR_U32), Err(RegisterError::NoCubinHash));
        assert_eq!(
            r("m", "k_rules", &[h1], &TOO_MANY),
            Err(RegisterError::TooManyParams {
                count: 17,
                limit: 16
            })
        );
        assert_eq!(r("m", "k_rules", &[h1, h2], &PTR_U32), Ok(()));
        // The same again: a no-op.
        assert_eq!(r("m", "k_rules", &[h2, h1], &PTR_U32), Ok(()));
        // Another module may not claim one of these cubins for the same kernel...
        assert_eq!(
            r("other", "k_rules", &[h2], &PTR_U32),
            Err(RegisterError::HashTaken)
        );
        // ...but another cubin, yes.
        assert_eq!(r("other", "k_rules", &[h3], &F32_PTR), Ok(()));
        let layout = [(0u16, 8u16), (8, 4)];
        assert_eq!(
            lookup("k_rules", &h1, Some(&layout)).0,
            CU_SIL_KERNEL_MODEL_OK
        );
        assert_eq!(
            lookup("k_rules", &h3, Some(&layout)).0,
            CU_SIL_KERNEL_MODEL_KINDS_DISAGREE
        );
        assert_eq!(
            lookup("k_rules", &[0; 32], Some(&layout)).0,
            CU_SIL_KERNEL_MODEL_OTHER_CUBINS
        );
        assert_eq!(
            lookup("k_unknown", &h1, Some(&layout)).0,
            CU_SIL_KERNEL_MODEL_NOT_REGISTERED
        );
        assert_eq!(
            lookup("k_rules", &h1, None).0,
            CU_SIL_KERNEL_MODEL_NOT_IN_CUBIN
        );
        // Replacing before anything was handed out is allowed...
        assert_eq!(r("m", "k_rules", &[h1], &F32_PTR), Ok(()));
        assert_eq!(
            kernel_model_params("k_rules", &h1),
            Some(vec![ParamKind::F32, ParamKind::DevPtr])
        );
        assert_eq!(kernel_model_params("k_rules", &h2), None, "h2 was dropped");
        // ...after a hand-out only the same registration is.
        let (status, reg) = lookup("k_rules", &h1, Some(&[(0, 4), (8, 8)]));
        assert_eq!(status, CU_SIL_KERNEL_MODEL_OK);
        reg.expect("usable").hand_out();
        assert_eq!(r("m", "k_rules", &[h1], &F32_PTR), Ok(()));
        assert_eq!(
            r("m", "k_rules", &[h1], &PTR_U32),
            Err(RegisterError::InUse)
        );
        assert_eq!(
            r("m", "k_rules", &[h1, h2], &F32_PTR),
            Err(RegisterError::InUse)
        );
        assert!(
            RegisterError::InUse
                .to_string()
                .contains("cuModuleGetFunction")
        );
    }
}
