//! `cuModuleLoadData` (cubins only, checked with `cubin_check`), `cuModuleGetFunction`
//! (kernels with a registered model only), `cuModuleUnload`, `cuSilSetKernelTimingModel`,
//! `cuSilGetKernelModelStatus`.

use core::ffi::{CStr, c_char, c_int, c_void};
use std::sync::{Arc, Mutex};

use cubin_check::CubinError;
use cuda_sys::sil::cuSilTimingModel;
use cuda_sys::*;
use sha2::{Digest, Sha256};
use sil_common::timing::{MAX_BINS, TimingModel, TimingSampler};

use crate::driver::{device_sm, out, require_ctx, require_init};
use crate::models::{self, Registration};
use crate::registry::Registry;
use crate::{CuResult, ret};

/// Default kernel execution time (fixed model).
pub(crate) const DEFAULT_KERNEL_TIME_NS: u64 = 20_000;
/// Largest image `cuModuleLoadData` will read (its extent comes from the ELF headers).
pub(crate) const MAX_IMAGE_BYTES: u64 = 64 << 20;

/// A loaded cubin: its SHA-256, its kernel entries with their parameter layouts (offset,
/// size), and the functions handed out so far.
pub(crate) struct Module {
    sha256: [u8; 32],
    kernels: Vec<(String, Vec<(u16, u16)>)>,
    /// (handle, function) of every function handed out.
    functions: Mutex<Vec<(usize, Arc<Function>)>>,
}

impl Module {
    /// `cuSilGetKernelModelStatus` of `kernel`, and its registration if it is usable.
    fn model_of(&self, kernel: &str) -> (c_int, Option<Arc<Registration>>) {
        let layout = self
            .kernels
            .iter()
            .find(|k| k.0 == kernel)
            .map(|k| k.1.as_slice());
        models::lookup(kernel, &self.sha256, layout)
    }
}

/// A kernel of a loaded module with its registered model.
pub(crate) struct Function {
    /// The module's handle value.
    module: usize,
    /// The model that runs.
    pub(crate) reg: Arc<Registration>,
    /// Its execution-time model.
    sampler: Mutex<TimingSampler>,
}

impl Function {
    /// Draws the execution time of the next launch (in enqueue order).
    pub(crate) fn sample_ns(&self) -> u64 {
        self.sampler
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .sample()
    }
}

static MODULES: Registry<Module> = Registry::new();
/// Every live function.
pub(crate) static FUNCTIONS: Registry<Function> = Registry::new();

/// The `CUresult` for a rejected image (see `sil/README.md`).
pub(crate) fn load_error(e: CubinError) -> CUresult {
    match e {
        // The SIL has no JIT at all: any PTX (text, or inside an ELF) is refused as if
        // CUDA_DISABLE_PTX_JIT=1 were set.
        CubinError::ContainsPtx { .. } => CUDA_ERROR_JIT_COMPILATION_DISABLED,
        CubinError::WrongSm { .. } => CUDA_ERROR_NO_BINARY_FOR_GPU,
        _ => CUDA_ERROR_INVALID_IMAGE,
    }
}

fn rd_u16(h: &[u8], o: usize) -> u64 {
    u64::from(u16::from_le_bytes([h[o], h[o + 1]]))
}

fn rd_u32(h: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([h[o], h[o + 1], h[o + 2], h[o + 3]])
}

fn rd_u64(h: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&h[o..o + 8]);
    u64::from_le_bytes(a)
}

fn extent(off: u64, n: u64, size: u64) -> CuResult<u64> {
    let e = n
        .checked_mul(size)
        .and_then(|b| b.checked_add(off))
        .ok_or(CUDA_ERROR_INVALID_IMAGE)?;
    if e > MAX_IMAGE_BYTES {
        Err(CUDA_ERROR_INVALID_IMAGE)
    } else {
        Ok(e)
    }
}

/// The image `cuModuleLoadData` was given, whose length the API does not pass: an ELF's
/// extent comes from its headers (header, program and section header tables, every section's
/// and segment's file range), anything else is read as a NUL-terminated string (PTX text; a
/// fatbin's first bytes suffice to recognise it).
///
/// # Safety
/// `image` must point to a complete ELF image, or to NUL-terminated bytes. A corrupt ELF whose
/// headers point past the end of its allocation is read out of bounds (as by the real driver),
/// unless the extent exceeds [`MAX_IMAGE_BYTES`].
unsafe fn image_bytes<'a>(image: *const u8) -> CuResult<&'a [u8]> {
    const ELF_MAGIC: [u8; 4] = [0x7f, b'E', b'L', b'F'];
    let mut is_elf = true;
    for (i, m) in ELF_MAGIC.iter().enumerate() {
        // SAFETY: bytes 0..i matched the (NUL-free) magic, so byte i exists in either an ELF
        // image or a NUL-terminated string.
        if unsafe { *image.add(i) } != *m {
            is_elf = false;
            break;
        }
    }
    if !is_elf {
        let mut n = 0usize;
        // SAFETY: the image is NUL-terminated (caller contract); stop at the NUL.
        while unsafe { *image.add(n) } != 0 {
            n += 1;
            if n as u64 >= MAX_IMAGE_BYTES {
                return Err(CUDA_ERROR_INVALID_IMAGE);
            }
        }
        // SAFETY: the `n` bytes before the NUL were just read.
        return Ok(unsafe { core::slice::from_raw_parts(image, n) });
    }
    // SAFETY: a complete ELF64 image has at least its 64-byte header (caller contract). An
    // ELF32 header is 52 bytes; such images are rejected right after.
    let h = unsafe { core::slice::from_raw_parts(image, 64) };
    if h[4] != 2 || h[5] != 1 {
        return Ok(h);
    }
    let (phoff, phent, phnum) = (rd_u64(h, 32), rd_u16(h, 54), rd_u16(h, 56));
    let (shoff, shent, shnum) = (rd_u64(h, 40), rd_u16(h, 58), rd_u16(h, 60));
    let mut end = 64u64
        .max(extent(phoff, phnum, phent)?)
        .max(extent(shoff, shnum, shent)?);
    // SAFETY: the header tables lie inside the image (caller contract: complete image).
    let tables = unsafe { core::slice::from_raw_parts(image, end as usize) };
    if shent == 64 {
        for i in 0..shnum {
            let b = (shoff + i * 64) as usize;
            if rd_u32(tables, b + 4) != 8 {
                // not SHT_NOBITS
                end = end.max(extent(rd_u64(tables, b + 24), 1, rd_u64(tables, b + 32))?);
            }
        }
    }
    if phent == 56 {
        for i in 0..phnum {
            let b = (phoff + i * 56) as usize;
            end = end.max(extent(rd_u64(tables, b + 8), 1, rd_u64(tables, b + 32))?);
        }
    }
    // SAFETY: `end` is the extent the headers declare (caller contract: complete image).
    Ok(unsafe { core::slice::from_raw_parts(image, end as usize) })
}

/// Loads a module from an in-memory image: only an ELF cubin of SASS for the device's SM
/// (`cubin_check::check_cubin`, exactly the runtime's check). PTX (text or embedded):
/// `CUDA_ERROR_JIT_COMPILATION_DISABLED`; another SM: `CUDA_ERROR_NO_BINARY_FOR_GPU`;
/// anything else (not ELF, corrupt, fatbin): `CUDA_ERROR_INVALID_IMAGE`.
///
/// # Safety
/// `image` must be NULL, a complete ELF image, or NUL-terminated bytes; `module` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult {
    ret((|| {
        require_ctx()?;
        if module.is_null() || image.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: forwarded caller contract.
        let bytes = unsafe { image_bytes(image.cast()) }?;
        let info = cubin_check::check_cubin(bytes, device_sm()).map_err(load_error)?;
        let kernels = info
            .kernels()
            .map(|k| {
                let layout = k.params().map(|p| (p.offset, p.size)).collect();
                (k.name().to_owned(), layout)
            })
            .collect();
        let m = Arc::new(Module {
            sha256: Sha256::digest(bytes).into(),
            kernels,
            functions: Mutex::new(Vec::new()),
        });
        let h = MODULES.insert(m);
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(module, h as CUmodule) }
    })())
}

/// Unloads a module; its functions become invalid handles. Launches already enqueued still
/// run (they do not reference the module).
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleUnload(hmod: CUmodule) -> CUresult {
    ret((|| {
        require_init()?;
        let m = MODULES
            .remove(hmod as usize)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        let h = hmod as usize;
        FUNCTIONS.remove_if(|f| f.module == h);
        m.functions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        Ok(())
    })())
}

/// The live module `hmod` and the kernel name `name` (NULL: `CUDA_ERROR_INVALID_VALUE`; not
/// UTF-8: `not_utf8`; an unknown module: `CUDA_ERROR_INVALID_HANDLE`).
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string that outlives the returned name.
unsafe fn module_and_kernel<'a>(
    hmod: CUmodule,
    name: *const c_char,
    not_utf8: CUresult,
) -> CuResult<(Arc<Module>, &'a str)> {
    require_init()?;
    let m = MODULES
        .get(hmod as usize)
        .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    if name.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: a non-null NUL-terminated string (caller contract).
    let name = unsafe { CStr::from_ptr(name) }
        .to_str()
        .map_err(|_| not_utf8)?;
    Ok((m, name))
}

/// The kernel `name` of a module: it must be an entry of the cubin AND have a model registered
/// for it and bound to this image's SHA-256 (`cuSilRegisterKernelModel`,
/// `sil_cuda::register_kernel_model`) AND the model's parameter kinds must have the cubin's
/// parameter count, sizes and offsets; else `CUDA_ERROR_NOT_FOUND`
/// (`cuSilGetKernelModelStatus` says which). The same name gives the same handle. Once handed
/// out, the registration cannot be replaced.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string; `hfunc` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunction(
    hfunc: *mut CUfunction,
    hmod: CUmodule,
    name: *const c_char,
) -> CUresult {
    ret((|| {
        // A name that is not UTF-8 names no kernel.
        // SAFETY: forwarded caller contract.
        let (m, name) = unsafe { module_and_kernel(hmod, name, CUDA_ERROR_NOT_FOUND) }?;
        if hfunc.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let (_, reg) = m.model_of(name);
        let reg = reg.ok_or(CUDA_ERROR_NOT_FOUND)?;
        reg.hand_out();
        let mut fns = m.functions.lock().unwrap_or_else(|e| e.into_inner());
        let h = match fns.iter().find(|f| Arc::ptr_eq(&f.1.reg, &reg)) {
            Some(f) => f.0,
            None => {
                let f = Arc::new(Function {
                    module: hmod as usize,
                    reg,
                    sampler: Mutex::new(TimingSampler::new(
                        TimingModel::Fixed(DEFAULT_KERNEL_TIME_NS),
                        0,
                    )),
                });
                let h = FUNCTIONS.insert(f.clone());
                fns.push((h, f));
                h
            }
        };
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(hfunc, h as CUfunction) }
    })())
}

/// Why `cuModuleGetFunction(hmod, kernel)` does or does not hand the kernel out:
/// `CU_SIL_KERNEL_MODEL_OK`, `_NOT_REGISTERED` (no model of a kernel of this name),
/// `_OTHER_CUBINS` (models of it exist, bound to other cubins), `_KINDS_DISAGREE` (the model's
/// parameter kinds do not match the cubin's parameter count, sizes or offsets),
/// `_NOT_IN_CUBIN` (the cubin does not export it).
///
/// # Safety
/// `kernel` must be NULL or NUL-terminated; `status` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilGetKernelModelStatus(
    hmod: CUmodule,
    kernel: *const c_char,
    status: *mut c_int,
) -> CUresult {
    ret((|| {
        // SAFETY: forwarded caller contract.
        let (m, kernel) = unsafe { module_and_kernel(hmod, kernel, CUDA_ERROR_INVALID_VALUE) }?;
        if status.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let (code, _) = m.model_of(kernel);
        // SAFETY: non-null and writable (caller contract).
        unsafe { status.write(code) };
        Ok(())
    })())
}

/// Sets a kernel's execution-time model (`cuSilTimingModel`: 0 fixed, 1 uniform, 2 histogram
/// with at most 32 bins). An invalid model is `CUDA_ERROR_INVALID_VALUE` and changes nothing.
/// Times are drawn at enqueue (launch order), so a run is reproducible for a given seed.
///
/// # Safety
/// `model` must be NULL or valid; for a histogram, `binUpperNs` and `binWeights` must be valid
/// for `numBins` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilSetKernelTimingModel(
    f: CUfunction,
    model: *const cuSilTimingModel,
) -> CUresult {
    ret((|| {
        require_init()?;
        let func = FUNCTIONS.get(f as usize).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        if model.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: non-null and valid (caller contract).
        let m = unsafe { *model };
        let n = m.numBins as usize;
        let (upper, weights): (&[u64], &[u32]) = if m.kind == 2 {
            if n == 0 || n > MAX_BINS || m.binUpperNs.is_null() || m.binWeights.is_null() {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
            // SAFETY: both arrays are valid for `numBins` elements (caller contract).
            unsafe {
                (
                    sil_common::ffi::slice(m.binUpperNs, n).ok_or(CUDA_ERROR_INVALID_VALUE)?,
                    sil_common::ffi::slice(m.binWeights, n).ok_or(CUDA_ERROR_INVALID_VALUE)?,
                )
            }
        } else {
            (&[], &[])
        };
        let tm = TimingModel::from_parts(m.kind, m.minNs, m.maxNs, upper, weights)
            .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        *func.sampler.lock().unwrap_or_else(|e| e.into_inner()) = TimingSampler::new(tm, m.seed);
        Ok(())
    })())
}

/// Covers: REQ-GPU-007
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_extent_of_committed_cubins() {
        for c in orin_exec_kernels::CUBINS {
            // SAFETY: a complete ELF image.
            let b = unsafe { image_bytes(c.image.as_ptr()) }.expect("extent");
            assert!(b.len() <= c.image.len(), "{}", c.file);
            assert!(cubin_check::check_cubin(b, c.sm).is_ok(), "{}", c.file);
        }
    }

    #[test]
    fn text_images_stop_at_nul() {
        let ptx = b"// c\n.version 9.0\n.target sm_87\n\0trailing";
        // SAFETY: NUL-terminated.
        let b = unsafe { image_bytes(ptx.as_ptr()) }.expect("text");
        assert_eq!(b.len(), ptx.iter().position(|&c| c == 0).unwrap_or(0));
        assert_eq!(
            cubin_check::check_cubin(b, 87).map_err(load_error).err(),
            Some(CUDA_ERROR_JIT_COMPILATION_DISABLED)
        );
        let short = b"\x7f\0";
        // SAFETY: NUL-terminated.
        let b = unsafe { image_bytes(short.as_ptr()) }.expect("short");
        assert_eq!(b, b"\x7f");
    }
}
