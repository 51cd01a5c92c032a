//! SIL twin of libcudla in standalone mode (C ABI).
//!
//! Every cuDLA function that `cudla-sys` declares is exported here under its C name with
//! the same signature, plus the SIL extension calls of `cudla-sys::sil`. The crate builds as
//! an rlib (linked into the runtime on the `sil` and `rig` platforms) and as `libcudla.so`
//! for C programs.
//!
//! * Device handles ([`cudlaCreateDevice`]) each own a FIFO worker thread and a bounded task
//!   queue of [`limits::QUEUE_CAPACITY`] entries, preallocated at creation.
//! * Modules are ONNX networks (what TensorRT compiles into a DLA loadable; `sil-onnx`):
//!   validated at load, reported with the descriptors of an int8 `kDLA_LINEAR` loadable, and
//!   run by the worker on the CPU over the imported NvSciBuf memory.
//! * Sync points and deterministic semaphores are imported; pre-fences of either kind are
//!   waited for with `NvSciSyncSilFenceWaitEngine`; each signal event reserves its value with
//!   `NvSciSyncSilObjEngineFence` (which writes the SOF/EOF fence before [`cudlaSubmitTask`]
//!   returns) and is reached with `NvSciSyncSilObjSignalEngine` and a timestamp.
//! * Networks that declare layer statistics get per-layer records after each task; the export table
//!   ([`cudlaGetExternalExportTable`]) translates them to CSV.
//! * Tasks end at the task timeout ([`cudlaSetTaskTimeoutInMs`]); the fault-diagnostics
//!   module and task are modelled ([`CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS`],
//!   [`CUDLA_SUBMIT_DIAGNOSTICS_TASK`]).
//! * Timing follows a per-handle model ([`cudlaSilSetTimingModel`], default fixed 2 ms), in
//!   real time (the worker sleeps) or in virtual time (timestamps computed, no sleeping).
//! * Faults ([`cudlaSilInjectFault`]): hang, late, asynchronous error, corrupt output,
//!   permanent fault (seen by the diagnostics).
//!
//! `cudlaSubmitTask`, the worker loop and `cudlaGetLastError` allocate nothing. Every choice
//! where the cuDLA documentation is silent is listed in `sil/README.md` ("cuDLA").
#![deny(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![allow(non_snake_case)]

mod device;
pub mod diag;
mod etbl;
pub mod limits;
mod nvsci;
mod registry;
pub mod stats;
mod submit;
mod worker;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use cudla_sys::sil::{
    CUDLA_SIL_FAULT_ASYNC_ERROR, CUDLA_SIL_FAULT_CORRUPT_OUTPUT, CUDLA_SIL_FAULT_HANG,
    CUDLA_SIL_FAULT_LATE, CUDLA_SIL_FAULT_PERMANENT, CUDLA_SIL_TIMING_HISTOGRAM, cudlaSilFault,
    cudlaSilTimingModel,
};
use cudla_sys::*;
use nvsci_sys::{
    NvSciError_Success, NvSciSyncAccessPerm, NvSciSyncAccessPerm_SignalOnly,
    NvSciSyncAccessPerm_WaitOnly, NvSciSyncAccessPerm_WaitSignal, NvSciSyncAttrKey_RequiredPerm,
    NvSciSyncAttrKeyValuePair, NvSciSyncAttrList, NvSciSyncAttrListSetAttrs,
    NvSciSyncAttrValPrimitiveType_Syncpoint, NvSciSyncAttrValPrimitiveType_SysmemSemaphore,
    NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b, NvSciSyncObj,
};
use sil_common::timing::{MAX_BINS, TimingModel, TimingSampler};

pub use crate::etbl::cudlaGetExternalExportTable;

use crate::device::{Device, FaultRule, Import, LoadError, Mem, Module, Sem, SyncKind, lock};
use crate::limits::*;
use crate::registry::ModuleLookup;

/// Runs an API body, turning a panic into `cudlaErrorUnknown` (nothing unwinds into C).
fn guard(f: impl FnOnce() -> cudlaStatus) -> cudlaStatus {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or(cudlaErrorUnknown)
}

fn status(r: Result<(), cudlaStatus>) -> cudlaStatus {
    match r {
        Ok(()) => cudlaSuccess,
        Err(e) => e,
    }
}

static CREATE_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Returns the library version, 1000000·major + 1000·minor + patch (1.5.0 → 1005000).
///
/// # Safety
/// `version` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaGetVersion(version: *mut u64) -> cudlaStatus {
    if version.is_null() {
        return cudlaErrorInvalidParam;
    }
    // SAFETY: non-NULL, writable by contract.
    unsafe { *version = VERSION };
    cudlaSuccess
}

/// Returns the number of SIL DLA instances (default 2; `cudlaSilSetDeviceCount` or
/// `CUDLA_SIL_DEVICE_COUNT` before the first device handle).
///
/// # Safety
/// `pNumDevices` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaDeviceGetCount(pNumDevices: *mut u64) -> cudlaStatus {
    guard(|| {
        if pNumDevices.is_null() {
            return cudlaErrorInvalidParam;
        }
        // SAFETY: non-NULL, writable by contract.
        unsafe { *pNumDevices = registry::device_count() };
        cudlaSuccess
    })
}

/// Creates a standalone-mode device handle on DLA `device` and starts its worker.
///
/// `flags`: a mode (bit 0) OR-ed with a scratch-memory configuration (`cudla.h` 1.5):
/// `CUDLA_SCRATCH_MEMORY_SHARED_STATIC` is accepted (no effect: each SIL module keeps its own
/// scratch buffer, the header's fallback). Hybrid mode (`CUDLA_CUDA_DLA`) is
/// `cudlaErrorUnsupportedOperation` (no CUDA in SIL); other flag bits
/// `cudlaErrorInvalidParam`; a device index out of range `cudlaErrorInvalidParam` (the
/// header's return list; `cudlaErrorInvalidDevice` is for handles); a 17th
/// live handle on one DLA `cudlaErrorOutOfResources`. `*devHandle` is written on success
/// only.
///
/// # Safety
/// `devHandle` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaCreateDevice(
    device: u64,
    devHandle: *mut cudlaDevHandle,
    flags: u32,
) -> cudlaStatus {
    guard(|| {
        if devHandle.is_null() {
            return cudlaErrorInvalidParam;
        }
        let scratch = flags & !1;
        if scratch != CUDLA_SCRATCH_MEMORY_DEFAULT.0
            && scratch != CUDLA_SCRATCH_MEMORY_SHARED_STATIC.0
        {
            return cudlaErrorInvalidParam;
        }
        if flags & 1 == CUDLA_CUDA_DLA.0 {
            return cudlaErrorUnsupportedOperation;
        }
        let _g = lock(&CREATE_LOCK);
        if device >= registry::device_count() {
            return cudlaErrorInvalidParam;
        }
        if registry::handles_on(device) >= MAX_HANDLES_PER_DLA {
            return cudlaErrorOutOfResources;
        }
        let dev = Arc::new(Device::new(registry::new_device_token(), device));
        let d2 = dev.clone();
        let spawned = sil_common::thread::spawn_started(format!("sil-dla{device}"), move |ready| {
            worker::run(d2, ready)
        });
        match spawned {
            Ok(h) => *lock(&dev.worker) = Some(h),
            Err(_) => return cudlaErrorCreationFailed,
        }
        let h = dev.token as cudlaDevHandle;
        registry::insert(dev);
        // SAFETY: non-NULL, writable by contract.
        unsafe { *devHandle = h };
        cudlaSuccess
    })
}

/// Destroys a device handle: stops its worker (also when a task hangs or waits for a
/// pre-fence that is never signalled), drops queued tasks, releases its imports and module.
///
/// # Safety
/// Any value may be passed; unknown handles give `cudlaErrorInvalidDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaDestroyDevice(devHandle: cudlaDevHandle) -> cudlaStatus {
    guard(|| match registry::remove(devHandle) {
        Some(dev) => {
            dev.shutdown();
            cudlaSuccess
        }
        None => cudlaErrorInvalidDevice,
    })
}

/// Loads a SIL loadable, or with `CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS` (and `pModule`
/// NULL, `moduleSize` 0) the internal fault-diagnostics module; one module per handle
/// lifetime.
///
/// Corrupt image: `cudlaErrorInvalidModule`; unsupported format version:
/// `cudlaErrorIncompatibleDlaSWVersion`; a second load: `cudlaErrorUnsupportedOperation`;
/// other flags, or image arguments that do not match the flag: `cudlaErrorInvalidParam`.
/// `*hModule` is written on success only.
///
/// # Safety
/// `pModule` must be NULL or readable for `moduleSize` bytes; `hModule` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaModuleLoadFromMemory(
    devHandle: cudlaDevHandle,
    pModule: *const u8,
    moduleSize: usize,
    hModule: *mut cudlaModule,
    flags: u32,
) -> cudlaStatus {
    guard(|| {
        let Some(dev) = registry::lookup(devHandle) else {
            return cudlaErrorInvalidDevice;
        };
        if hModule.is_null() {
            return cudlaErrorInvalidParam;
        }
        let diagnostics = if flags == CUDLA_MODULE_DEFAULT.0 {
            if pModule.is_null() || moduleSize == 0 {
                return cudlaErrorInvalidParam;
            }
            false
        } else if flags == CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS.0 {
            if !pModule.is_null() || moduleSize != 0 {
                return cudlaErrorInvalidParam;
            }
            true
        } else {
            return cudlaErrorInvalidParam;
        };
        let mut st = lock(&dev.state);
        if st.module_loaded_once {
            return cudlaErrorUnsupportedOperation;
        }
        let token = dev.token + MODULE_TOKEN_OFFSET;
        let module = if diagnostics {
            Arc::new(Module::diagnostics(token))
        } else {
            // No slice can be that long: refused before the image is read.
            if !sil_common::ffi::fits::<u8>(moduleSize) {
                return cudlaErrorInvalidParam;
            }
            // SAFETY: non-NULL and readable for `moduleSize` bytes by contract, at most
            // `isize::MAX` bytes (checked above).
            let image = unsafe { std::slice::from_raw_parts(pModule, moduleSize) };
            match Module::load(image, token) {
                Ok(m) => Arc::new(m),
                // An operator set or IR version this library does not read.
                Err(LoadError::Onnx(sil_onnx::OnnxError::Opset { .. })) => {
                    return cudlaErrorIncompatibleDlaSWVersion;
                }
                Err(_) => return cudlaErrorInvalidModule,
            }
        };
        st.module = Some(module);
        st.module_loaded_once = true;
        // SAFETY: non-NULL, writable by contract.
        unsafe { *hModule = token as cudlaModule };
        cudlaSuccess
    })
}

/// The status for a module handle that does not name a loaded module.
fn module_error(e: ModuleLookup) -> cudlaStatus {
    match e {
        ModuleLookup::NotAModule => cudlaErrorInvalidModule,
        ModuleLookup::NotLoaded => cudlaErrorInvalidDevice,
    }
}

/// Copies descriptors into the caller's array.
///
/// # Safety
/// `dst` must be writable for `src.len()` descriptors.
unsafe fn copy_descs(dst: *mut cudlaModuleTensorDescriptor, src: &[cudlaModuleTensorDescriptor]) {
    for (i, d) in src.iter().enumerate() {
        // SAFETY: the caller allocated one descriptor per tensor (cuDLA contract).
        unsafe { dst.add(i).write_unaligned(*d) };
    }
}

/// Queries tensor counts or fills the caller's descriptor arrays (the caller allocates one
/// descriptor per tensor and stores the array pointer in the union first).
///
/// `CUDLA_NUM_OUTPUT_TASK_STATISTICS` is the number of layer-statistics buffers of a loadable
/// built with them (else 0), returned in `numOutputTensors`;
/// `CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS` fills the array at `outputTensorDesc` (nothing
/// is written when there are none). Errors: unknown handle `cudlaErrorInvalidModule`, a module
/// no longer loaded (unloaded, or its device destroyed) `cudlaErrorInvalidDevice`, NULL
/// `attribute`, or a NULL array pointer where there is at least one descriptor to write,
/// `cudlaErrorInvalidParam`, unknown `attrType`
/// `cudlaErrorInvalidAttribute`; nothing is written on an error.
///
/// # Safety
/// `attribute` must be NULL or valid; for the descriptor queries its pointer member must be
/// NULL or point to one writable descriptor per tensor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaModuleGetAttributes(
    hModule: cudlaModule,
    attrType: cudlaModuleAttributeType,
    attribute: *mut cudlaModuleAttribute,
) -> cudlaStatus {
    guard(|| {
        let m = match registry::lookup_module(hModule) {
            Ok((_dev, m)) => m,
            Err(e) => return module_error(e),
        };
        if attribute.is_null() {
            return cudlaErrorInvalidParam;
        }
        let a = attribute;
        // SAFETY (the reads of the pointer members below): `attribute` is non-NULL and valid
        // by contract; the caller stored the array pointer in the member it queries.
        let descs = |p: *mut cudlaModuleTensorDescriptor, src: &[cudlaModuleTensorDescriptor]| {
            if src.is_empty() {
                return cudlaSuccess;
            }
            if p.is_null() {
                return cudlaErrorInvalidParam;
            }
            // SAFETY: the caller allocated one descriptor per entry of `src`.
            unsafe { copy_descs(p, src) };
            cudlaSuccess
        };
        match attrType {
            CUDLA_NUM_INPUT_TENSORS => {
                // SAFETY: `attribute` is non-NULL and valid by contract.
                unsafe { (*a).numInputTensors = m.inputs.len() as u32 }
            }
            CUDLA_NUM_OUTPUT_TENSORS => {
                // SAFETY: as above.
                unsafe { (*a).numOutputTensors = m.outputs.len() as u32 }
            }
            CUDLA_NUM_OUTPUT_TASK_STATISTICS => {
                // SAFETY: as above.
                unsafe { (*a).numOutputTensors = m.stats.len() as u32 }
            }
            CUDLA_INPUT_TENSOR_DESCRIPTORS => {
                // SAFETY: as above; reading the pointer member the caller set.
                return descs(unsafe { (*a).inputTensorDesc }, &m.inputs);
            }
            CUDLA_OUTPUT_TENSOR_DESCRIPTORS => {
                // SAFETY: as above.
                return descs(unsafe { (*a).outputTensorDesc }, &m.outputs);
            }
            CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS => {
                // SAFETY: as above.
                return descs(unsafe { (*a).outputTensorDesc }, &m.stats);
            }
            _ => return cudlaErrorInvalidAttribute,
        }
        cudlaSuccess
    })
}

/// Unloads a module (`flags` must be 0). Queued tasks keep their own reference.
///
/// # Safety
/// Any value may be passed: an unknown handle gives `cudlaErrorInvalidModule`, a module no
/// longer loaded (unloaded, or its device destroyed) `cudlaErrorInvalidDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaModuleUnload(hModule: cudlaModule, flags: u32) -> cudlaStatus {
    guard(|| {
        let (dev, m) = match registry::lookup_module(hModule) {
            Ok(v) => v,
            Err(e) => return module_error(e),
        };
        if flags != 0 {
            return cudlaErrorInvalidParam;
        }
        let mut st = lock(&dev.state);
        if st.module.as_ref().is_some_and(|x| Arc::ptr_eq(x, &m)) {
            st.module = None;
        }
        cudlaSuccess
    })
}

/// Hybrid-mode registration of CUDA memory: `cudlaErrorUnsupportedOperation` in standalone
/// mode (use `cudlaImportExternalMemory`).
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaMemRegister(
    devHandle: cudlaDevHandle,
    ptr: *const u64,
    size: usize,
    devPtr: *mut *mut u64,
    flags: u32,
) -> cudlaStatus {
    let _ = (ptr, size, devPtr, flags);
    guard(|| match registry::lookup(devHandle) {
        Some(_) => cudlaErrorUnsupportedOperation,
        None => cudlaErrorInvalidDevice,
    })
}

/// Unregisters imported memory or an imported semaphore.
///
/// # Safety
/// Any value may be passed; unknown pointers give `cudlaErrorInvalidAddress`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaMemUnregister(
    devHandle: cudlaDevHandle,
    devPtr: *const u64,
) -> cudlaStatus {
    guard(|| {
        let Some(dev) = registry::lookup(devHandle) else {
            return cudlaErrorInvalidDevice;
        };
        let mut st = lock(&dev.state);
        match st.imports.iter().position(|i| i.token() == devPtr as u64) {
            Some(i) => {
                st.imports.swap_remove(i);
                cudlaSuccess
            }
            None => cudlaErrorInvalidAddress,
        }
    })
}

/// Imports an NvSciBuf object (RawBuffer or Tensor) and returns its device pointer token.
///
/// `flags`: `CUDLA_READ_WRITE_PERM`, `CUDLA_READ_ONLY_PERM` or `CUDLA_TASK_STATISTICS` (a
/// layer-statistics buffer, only usable in the statistics slots of a task); anything else
/// `cudlaErrorInvalidParam`. Importing the same memory twice on one handle returns
/// `cudlaErrorMemoryRegistered` with the existing token written to `*devPtr`; on every other
/// error `*devPtr` is not written.
///
/// # Safety
/// `desc` and `devPtr` must be NULL or valid; `desc->extBufObject` an NvSciBuf handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaImportExternalMemory(
    devHandle: cudlaDevHandle,
    desc: *const cudlaExternalMemoryHandleDesc,
    devPtr: *mut *mut u64,
    flags: u32,
) -> cudlaStatus {
    // SAFETY: forwarded contract.
    guard(|| status(unsafe { import_memory(devHandle, desc, devPtr, flags) }))
}

/// # Safety
/// As for [`cudlaImportExternalMemory`].
unsafe fn import_memory(
    devHandle: cudlaDevHandle,
    desc: *const cudlaExternalMemoryHandleDesc,
    devPtr: *mut *mut u64,
    flags: u32,
) -> Result<(), cudlaStatus> {
    let dev = registry::lookup(devHandle).ok_or(cudlaErrorInvalidDevice)?;
    if desc.is_null() || devPtr.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    // SAFETY: non-NULL, readable by contract.
    let d = unsafe { *desc };
    if d.extBufObject.is_null() || d.size == 0 {
        return Err(cudlaErrorInvalidParam);
    }
    let (read_only, stats) = match flags {
        f if f == CUDLA_READ_WRITE_PERM.0 => (false, false),
        f if f == CUDLA_READ_ONLY_PERM.0 => (true, false),
        f if f == CUDLA_TASK_STATISTICS.0 => (false, true),
        _ => return Err(cudlaErrorInvalidParam),
    };
    let obj = d.extBufObject as nvsci_sys::NvSciBufObj;
    let mut types = [0u32; 8];
    // SAFETY: the application passes an NvSciBuf handle; NvSciBuf validates it.
    let (n, size) = unsafe { nvsci::buf_types_and_size(obj, &mut types) }?;
    let supported =
        |t: u32| t == nvsci_sys::NvSciBufType_RawBuffer.0 || t == nvsci_sys::NvSciBufType_Tensor.0;
    if n == 0 || !types[..n].iter().all(|&t| supported(t)) {
        return Err(cudlaErrorUnsupportedOperation);
    }
    // SAFETY: as above.
    let dup = unsafe { nvsci::buf_obj_dup(obj) }?;
    // SAFETY: `dup` is our own handle to the same buffer.
    let (ptr, backing) = match unsafe { nvsci::buf_memory(dup) } {
        Ok(v) => v,
        Err(e) => {
            // SAFETY: `dup` is ours and not stored anywhere.
            unsafe { nvsci::buf_obj_free(dup) };
            return Err(e);
        }
    };
    let mem = Arc::new(Mem::new(dup, ptr, d.size, read_only, stats));
    if d.size > size.unwrap_or(backing).min(backing) {
        return Err(cudlaErrorInvalidParam);
    }
    if !(ptr as usize).is_multiple_of(DLA_ADDR_ALIGN) {
        return Err(cudlaErrorInvalidAddress);
    }
    let same = |i: &Import| matches!(i, Import::Mem(m) if m.ptr == ptr);
    // SAFETY: `devPtr` checked non-NULL, writable by contract.
    unsafe { add_import(&dev, Import::Mem(mem), same, devPtr) }
}

/// Adds an import to a device handle and writes its token to `*devPtr`. An import that is
/// already there (`same`) gives `cudlaErrorMemoryRegistered` with the existing token; a
/// full table gives `cudlaErrorOutOfResources`.
///
/// # Safety
/// `devPtr` is non-NULL and writable.
unsafe fn add_import(
    dev: &Device,
    import: Import,
    same: impl Fn(&Import) -> bool,
    devPtr: *mut *mut u64,
) -> Result<(), cudlaStatus> {
    let mut st = lock(&dev.state);
    if let Some(existing) = st.imports.iter().find(|i| same(i)).map(Import::token) {
        // SAFETY: non-NULL, writable by contract.
        unsafe { *devPtr = existing as *mut u64 };
        return Err(cudlaErrorMemoryRegistered);
    }
    if st.imports.len() >= MAX_IMPORTS {
        return Err(cudlaErrorOutOfResources);
    }
    let token = import.token();
    st.imports.push(import);
    // SAFETY: non-NULL, writable by contract.
    unsafe { *devPtr = token as *mut u64 };
    Ok(())
}

/// Imports an NvSciSync object and returns its device pointer token.
///
/// Accepted, as `cudla.h` 1.5 says: sync points, and semaphores whose reconciled list
/// requires deterministic fences. A regular (non-deterministic) semaphore or any other
/// primitive is `cudlaErrorInvalidParam`, the status real standalone cuDLA gives for a regular
/// semaphore. The same object (any duplicate handle of it) twice on one handle returns
/// `cudlaErrorMemoryRegistered` with the existing token written to `*devPtr`; on every other
/// error `*devPtr` is not written.
///
/// # Safety
/// `desc` and `devPtr` must be NULL or valid; `desc->extSyncObject` an NvSciSync handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaImportExternalSemaphore(
    devHandle: cudlaDevHandle,
    desc: *const cudlaExternalSemaphoreHandleDesc,
    devPtr: *mut *mut u64,
    flags: u32,
) -> cudlaStatus {
    // SAFETY: forwarded contract.
    guard(|| status(unsafe { import_semaphore(devHandle, desc, devPtr, flags) }))
}

/// # Safety
/// As for [`cudlaImportExternalSemaphore`].
unsafe fn import_semaphore(
    devHandle: cudlaDevHandle,
    desc: *const cudlaExternalSemaphoreHandleDesc,
    devPtr: *mut *mut u64,
    flags: u32,
) -> Result<(), cudlaStatus> {
    let dev = registry::lookup(devHandle).ok_or(cudlaErrorInvalidDevice)?;
    if desc.is_null() || devPtr.is_null() || flags != 0 {
        return Err(cudlaErrorInvalidParam);
    }
    // SAFETY: non-NULL, readable by contract.
    let obj = unsafe { (*desc).extSyncObject } as NvSciSyncObj;
    if obj.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    // SAFETY: the application passes an NvSciSync handle; NvSciSync validates it.
    let info = unsafe { nvsci::sync_obj_info(obj) }?;
    let kind = if info.primitive == NvSciSyncAttrValPrimitiveType_Syncpoint.0 {
        SyncKind::Syncpoint
    } else if info.deterministic
        && (info.primitive == NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0
            || info.primitive == NvSciSyncAttrValPrimitiveType_SysmemSemaphore.0)
    {
        SyncKind::DeterministicSemaphore
    } else {
        return Err(cudlaErrorInvalidParam);
    };
    // SAFETY: as above.
    let dup = unsafe { nvsci::sync_obj_dup(obj) }?;
    let identity = info.list as usize;
    let sem = Arc::new(Sem::new(dup, identity, kind));
    let same = |i: &Import| matches!(i, Import::Sem(s) if s.identity == identity);
    // SAFETY: `devPtr` checked non-NULL, writable by contract.
    unsafe { add_import(&dev, Import::Sem(sem), same, devPtr) }
}

/// Fills an `NvSciSyncAttrList` (passed cast to `uint64_t*`) with cuDLA's attributes:
/// `RequiredPerm` (WAIT → WaitOnly, SIGNAL → SignalOnly, both → WaitSignal) and
/// `PrimitiveInfo` = [`Syncpoint`, `SysmemSemaphorePayload64b`]: sync points first, as
/// `cudla.h` 1.5 says cuDLA prioritises them; the semaphore serves regular and deterministic
/// semaphores. `RequireDeterministicFences` is not set (the application sets it for a
/// deterministic semaphore). A list that already has `RequiredPerm` is
/// `cudlaErrorInvalidParam`.
///
/// # Safety
/// `attrList` must be NULL or an `NvSciSyncAttrList` handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaGetNvSciSyncAttributes(
    attrList: *mut u64,
    flags: u32,
) -> cudlaStatus {
    // SAFETY: forwarded contract.
    guard(|| status(unsafe { sync_attributes(attrList as NvSciSyncAttrList, flags) }))
}

/// # Safety
/// As for [`cudlaGetNvSciSyncAttributes`].
unsafe fn sync_attributes(list: NvSciSyncAttrList, flags: u32) -> Result<(), cudlaStatus> {
    if list.is_null() {
        return Err(cudlaErrorInvalidParam);
    }
    let perm: NvSciSyncAccessPerm = match flags {
        f if f == CUDLA_NVSCISYNC_ATTR_WAIT.0 => NvSciSyncAccessPerm_WaitOnly,
        f if f == CUDLA_NVSCISYNC_ATTR_SIGNAL.0 => NvSciSyncAccessPerm_SignalOnly,
        f if f == CUDLA_NVSCISYNC_ATTR_WAIT.0 | CUDLA_NVSCISYNC_ATTR_SIGNAL.0 => {
            NvSciSyncAccessPerm_WaitSignal
        }
        _ => return Err(cudlaErrorInvalidParam),
    };
    // SAFETY: the application passes a list handle; NvSciSync validates it.
    if unsafe { nvsci::sync_get_attr(list, NvSciSyncAttrKey_RequiredPerm) }?.is_some() {
        return Err(cudlaErrorInvalidParam);
    }
    let primitives = [
        NvSciSyncAttrValPrimitiveType_Syncpoint,
        NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b,
    ];
    let pairs = [
        NvSciSyncAttrKeyValuePair {
            attrKey: NvSciSyncAttrKey_RequiredPerm,
            value: &perm as *const u64 as *const core::ffi::c_void,
            len: core::mem::size_of::<NvSciSyncAccessPerm>(),
        },
        NvSciSyncAttrKeyValuePair {
            attrKey: nvsci_sys::NvSciSyncAttrKey_PrimitiveInfo,
            value: primitives.as_ptr() as *const core::ffi::c_void,
            len: core::mem::size_of_val(&primitives),
        },
    ];
    // SAFETY: two valid pairs whose values outlive the call; the list handle as above.
    let e = unsafe { NvSciSyncAttrListSetAttrs(list, pairs.as_ptr(), pairs.len()) };
    if e == NvSciError_Success {
        Ok(())
    } else {
        Err(nvsci::map_err(e))
    }
}

/// Submits tasks to the handle's FIFO (standalone mode: `stream` must be NULL).
///
/// On success the EOF/SOF fences of the signal events have been written (each with the
/// object's primitive id and the value its signal reaches). See `sil/README.md` for the
/// validation rules and limits.
///
/// # Safety
/// `ptrToTasks` must be NULL or point to `numTasks` tasks whose pointers are valid as the
/// cuDLA documentation requires.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaSubmitTask(
    devHandle: cudlaDevHandle,
    ptrToTasks: *const cudlaTask,
    numTasks: u32,
    stream: *mut core::ffi::c_void,
    flags: u32,
) -> cudlaStatus {
    guard(|| {
        let Some(dev) = registry::lookup(devHandle) else {
            return cudlaErrorInvalidDevice;
        };
        // SAFETY: forwarded contract.
        unsafe { submit::submit(&dev, ptrToTasks, numTasks, stream, flags) }
    })
}

/// Device attributes: unified addressing is not supported (0); the device version is 2
/// (Orin). Other attributes: `cudlaErrorInvalidAttribute`.
///
/// # Safety
/// `pAttribute` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaDeviceGetAttribute(
    devHandle: cudlaDevHandle,
    attrib: cudlaDevAttributeType,
    pAttribute: *mut cudlaDevAttribute,
) -> cudlaStatus {
    guard(|| {
        if registry::lookup(devHandle).is_none() {
            return cudlaErrorInvalidDevice;
        }
        if pAttribute.is_null() {
            return cudlaErrorInvalidParam;
        }
        let value = match attrib {
            CUDLA_UNIFIED_ADDRESSING => 0,
            CUDLA_DEVICE_VERSION => DEVICE_VERSION,
            _ => return cudlaErrorInvalidAttribute,
        };
        // SAFETY: non-NULL, writable by contract. For unified addressing the low byte (the
        // `unifiedAddressingSupported` member) is 0 as well.
        unsafe {
            *pAttribute = cudlaDevAttribute {
                deviceVersion: value,
            }
        };
        cudlaSuccess
    })
}

/// Returns and clears the latched asynchronous error of the handle's tasks (the most
/// recent failing task's status; `cudlaSuccess` when none since the last call).
///
/// # Safety
/// Any value may be passed; unknown handles give `cudlaErrorInvalidDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaGetLastError(devHandle: cudlaDevHandle) -> cudlaStatus {
    guard(|| match registry::lookup(devHandle) {
        Some(dev) => cudlaStatus(dev.last_error.swap(0, Ordering::AcqRel)),
        None => cudlaErrorInvalidDevice,
    })
}

/// Sets the task timeout (1..=1000000 ms, default 30000). A hung task (fault kind hang), and
/// a task whose modelled execution time exceeds the timeout, ends at start + timeout with
/// `cudlaErrorDlaErrEngineTimeout` (reported by `cudlaGetLastError`), its outputs not
/// written and its EOF fences signalled. A bad handle or a timeout out of range is
/// `cudlaErrorInvalidParam`. Applies to tasks that start after the call.
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaSetTaskTimeoutInMs(
    devHandle: cudlaDevHandle,
    timeout: u32,
) -> cudlaStatus {
    guard(|| {
        let Some(dev) = registry::lookup(devHandle) else {
            return cudlaErrorInvalidParam;
        };
        if timeout == 0 || timeout > MAX_TIMEOUT_MS {
            return cudlaErrorInvalidParam;
        }
        dev.timeout_ms.store(timeout, Ordering::Relaxed);
        cudlaSuccess
    })
}

// ---------------------------------------------------------------------------------------
// SIL extension calls
// ---------------------------------------------------------------------------------------

/// Sets the number of SIL DLA instances (1..=16) before the first device handle exists;
/// afterwards `cudlaErrorUnsupportedOperation`.
#[unsafe(no_mangle)]
pub extern "C" fn cudlaSilSetDeviceCount(count: u64) -> cudlaStatus {
    guard(|| {
        if count == 0 || count > MAX_DEVICES {
            return cudlaErrorInvalidParam;
        }
        if registry::set_device_count(count) {
            cudlaSuccess
        } else {
            cudlaErrorUnsupportedOperation
        }
    })
}

/// Sets the execution-time model of a handle (applies to tasks that start afterwards).
///
/// # Safety
/// `model` must be NULL or valid; for a histogram its arrays must hold `numBins` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaSilSetTimingModel(
    dev: cudlaDevHandle,
    model: *const cudlaSilTimingModel,
) -> cudlaStatus {
    guard(|| {
        let Some(d) = registry::lookup(dev) else {
            return cudlaErrorInvalidDevice;
        };
        if model.is_null() {
            return cudlaErrorInvalidParam;
        }
        // SAFETY: non-NULL, readable by contract.
        let m = unsafe { *model };
        let (upper, weights): (&[u64], &[u32]) = if m.kind == CUDLA_SIL_TIMING_HISTOGRAM {
            let n = m.numBins as usize;
            if n == 0 || n > MAX_BINS || m.binUpperNs.is_null() || m.binWeights.is_null() {
                return cudlaErrorInvalidParam;
            }
            // SAFETY: both arrays hold `numBins` entries by contract.
            unsafe {
                match (
                    sil_common::ffi::slice(m.binUpperNs, n),
                    sil_common::ffi::slice(m.binWeights, n),
                ) {
                    (Some(u), Some(w)) => (u, w),
                    // Misaligned arrays: refused, not read.
                    _ => return cudlaErrorInvalidParam,
                }
            }
        } else {
            (&[], &[])
        };
        match TimingModel::from_parts(m.kind, m.minNs, m.maxNs, upper, weights) {
            Ok(tm) => {
                *lock(&d.sampler) = TimingSampler::new(tm, m.seed);
                cudlaSuccess
            }
            Err(_) => cudlaErrorInvalidParam,
        }
    })
}

/// Queues a fault rule on a handle (at most 16 live rules).
///
/// # Safety
/// `fault` must be NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaSilInjectFault(
    dev: cudlaDevHandle,
    fault: *const cudlaSilFault,
) -> cudlaStatus {
    guard(|| {
        let Some(d) = registry::lookup(dev) else {
            return cudlaErrorInvalidDevice;
        };
        if fault.is_null() {
            return cudlaErrorInvalidParam;
        }
        // SAFETY: non-NULL, readable by contract.
        let f = unsafe { *fault };
        let known = [
            CUDLA_SIL_FAULT_HANG,
            CUDLA_SIL_FAULT_LATE,
            CUDLA_SIL_FAULT_ASYNC_ERROR,
            CUDLA_SIL_FAULT_CORRUPT_OUTPUT,
            CUDLA_SIL_FAULT_PERMANENT,
        ];
        if !known.contains(&f.kind) || (f.kind == CUDLA_SIL_FAULT_ASYNC_ERROR && f.status == 0) {
            return cudlaErrorInvalidParam;
        }
        let mut st = lock(&d.state);
        match st.faults.iter_mut().find(|s| s.is_none()) {
            Some(slot) => {
                *slot = Some(FaultRule {
                    kind: f.kind,
                    status: f.status,
                    skip: f.skipTasks,
                    remaining: f.count,
                    extra_ns: f.extraDelayNs,
                });
                cudlaSuccess
            }
            None => cudlaErrorOutOfResources,
        }
    })
}

/// Removes every fault rule of a handle (tasks already submitted keep their faults).
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaSilClearFaults(dev: cudlaDevHandle) -> cudlaStatus {
    guard(|| {
        let Some(d) = registry::lookup(dev) else {
            return cudlaErrorInvalidDevice;
        };
        lock(&d.state).faults = [None; MAX_FAULTS];
        cudlaSuccess
    })
}

/// Copies what the DLA workers used (summed over every worker started, exited ones
/// included) into `*stats`, whose `size` the caller sets to `sizeof(cudlaSilThreadStats)`;
/// `size` comes back as the bytes written. NULL, misaligned or a `size` below 40:
/// `cudlaErrorInvalidParam`, nothing written.
///
/// ```c
/// cudlaSilThreadStats st = { .size = sizeof st };
/// cudlaSilGetThreadStats(&st);   /* st.cpuNs - st.computeNs: the workers' own overhead */
/// ```
///
/// # Safety
/// `stats` is NULL or readable and writable for `stats->size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudlaSilGetThreadStats(
    stats: *mut cudla_sys::sil::cudlaSilThreadStats,
) -> cudlaStatus {
    use cudla_sys::sil::cudlaSilThreadStats;
    const SIZE: u32 = core::mem::size_of::<cudlaSilThreadStats>() as u32;
    guard(|| {
        if stats.is_null() || !stats.is_aligned() {
            return cudlaErrorInvalidParam;
        }
        // SAFETY: non-NULL and aligned; the caller passes a readable struct (its `size`).
        if unsafe { stats.read().size } < SIZE {
            return cudlaErrorInvalidParam;
        }
        let t = worker::TOTALS.snapshot();
        // SAFETY: checked non-NULL, aligned and at least `SIZE` bytes per the caller.
        unsafe {
            stats.write(cudlaSilThreadStats {
                size: SIZE,
                threads: u32::try_from(t.threads).unwrap_or(u32::MAX),
                cpuNs: t.cpu_ns,
                computeNs: t.compute_ns,
                wakeups: t.wakeups,
                ops: t.ops,
            })
        };
        cudlaSuccess
    })
}
