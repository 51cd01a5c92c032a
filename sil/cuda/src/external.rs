//! NvSciBuf external memory, NvSciSync external semaphores, and
//! `cuDeviceGetNvSciSyncAttributes`. Every NvSci call goes through the C ABI (`nvsci-sys`).

use core::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use cuda_sys::*;
use nvsci_sys::sil::{NvSciBufSilObjGetMemory, NvSciSyncSilObjEngineFence};
use nvsci_sys::*;

use crate::driver::{DEVICE_UUID, out, require_ctx, require_init};
use crate::graph::Step;
use crate::memory;
use crate::registry::Registry;
use crate::stream::{Op, ready_stream};
use crate::{CuResult, ret};

/// Imported NvSciBuf memory.
pub(crate) struct ExtMem {
    ptr: usize,
    size: u64,
}

/// An imported NvSciSync object (a sync point or a 64-bit semaphore).
pub(crate) struct ExtSem {
    obj: usize,
}

static EXT_MEMS: Registry<ExtMem> = Registry::new();
static EXT_SEMS: Registry<ExtSem> = Registry::new();

/// The checks both imports start with: a current context, non-NULL `out` and `desc`.
/// Returns `*desc`.
///
/// # Safety
/// `desc` is NULL or valid for reads.
unsafe fn import_desc<O, D: Copy>(out: *mut O, desc: *const D) -> CuResult<D> {
    require_ctx()?;
    if out.is_null() || desc.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: non-null and valid (caller contract).
    Ok(unsafe { *desc })
}

/// An import's handle type: `nvsci` is the one supported; the other known types
/// (`1..=known_max`) are `CUDA_ERROR_NOT_SUPPORTED`, anything else
/// `CUDA_ERROR_INVALID_VALUE`.
fn import_type(t: u32, nvsci: u32, known_max: u32) -> CuResult<()> {
    if t == nvsci {
        Ok(())
    } else if (1..=known_max).contains(&t) {
        Err(CUDA_ERROR_NOT_SUPPORTED)
    } else {
        Err(CUDA_ERROR_INVALID_VALUE)
    }
}

/// Imports an NvSciBuf object (`CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF` only; the other known
/// types are `CUDA_ERROR_NOT_SUPPORTED`). Its memory comes from `NvSciBufSilObjGetMemory`;
/// `desc.size` must be non-zero and fit in it. Flags: 0 or `CUDA_EXTERNAL_MEMORY_DEDICATED`.
///
/// # Safety
/// `extMem_out` and `memHandleDesc` must be NULL or valid; the NvSciBuf object must stay alive
/// while it is imported.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuImportExternalMemory(
    extMem_out: *mut CUexternalMemory,
    memHandleDesc: *const CUDA_EXTERNAL_MEMORY_HANDLE_DESC,
) -> CUresult {
    ret((|| {
        // SAFETY: forwarded caller contract.
        let d = unsafe { import_desc(extMem_out, memHandleDesc) }?;
        import_type(d.r#type.0, CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF.0, 7)?;
        if d.flags & !CUDA_EXTERNAL_MEMORY_DEDICATED != 0 || d.size == 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: the union member for type NVSCIBUF.
        let obj = unsafe { d.handle.nvSciBufObject };
        if obj.is_null() {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let (mut ptr, mut size) = (core::ptr::null_mut::<c_void>(), 0u64);
        // SAFETY: an NvSciBuf object handle (checked by the callee); out pointers are locals.
        let r = unsafe { NvSciBufSilObjGetMemory(obj as NvSciBufObj, &mut ptr, &mut size) };
        if r != NvSciError_Success || ptr.is_null() {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        if d.size > size {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let h = EXT_MEMS.insert(Arc::new(ExtMem {
            ptr: ptr as usize,
            size: d.size,
        }));
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(extMem_out, h as CUexternalMemory) }
    })())
}

/// Maps `[offset, offset + size)` of imported memory (flags 0, size non-zero, inside the
/// imported size). The device pointer is the host address; free it with `cuMemFree`.
///
/// # Safety
/// `devPtr` and `bufferDesc` must be NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuExternalMemoryGetMappedBuffer(
    devPtr: *mut CUdeviceptr,
    extMem: CUexternalMemory,
    bufferDesc: *const CUDA_EXTERNAL_MEMORY_BUFFER_DESC,
) -> CUresult {
    ret((|| {
        require_init()?;
        let m = EXT_MEMS
            .get(extMem as usize)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        if devPtr.is_null() || bufferDesc.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: non-null and valid (caller contract).
        let d = unsafe { *bufferDesc };
        let end = d.offset.checked_add(d.size);
        if d.flags != 0 || d.size == 0 || end.is_none_or(|e| e > m.size) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let start = m.ptr + d.offset as usize;
        memory::add_mapping(start, d.size as usize, extMem as usize);
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(devPtr, start as CUdeviceptr) }
    })())
}

/// Destroys imported memory; its remaining mappings are removed with it.
///
/// # Safety
/// No stream operation may still use its mappings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDestroyExternalMemory(extMem: CUexternalMemory) -> CUresult {
    ret((|| {
        require_init()?;
        EXT_MEMS
            .remove(extMem as usize)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)?;
        memory::remove_mappings_of(extMem as usize);
        Ok(())
    })())
}

/// The primitive types CUDA imports and offers (`cuDeviceGetNvSciSyncAttributes`), in
/// its order of preference: sync points first, then the 64-bit sysmem semaphore.
const CUDA_PRIMITIVES: [NvSciSyncAttrValPrimitiveType; 2] = [
    NvSciSyncAttrValPrimitiveType_Syncpoint,
    NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b,
];

/// The primitive type of an object (`PrimitiveInfo` of its reconciled list).
fn obj_primitive(obj: NvSciSyncObj) -> CuResult<Option<u32>> {
    let mut list: NvSciSyncAttrList = core::ptr::null_mut();
    // SAFETY: `obj` is an NvSciSync handle (checked by the callee); `list` is a local.
    if unsafe { NvSciSyncObjGetAttrList(obj, &mut list) } != NvSciError_Success {
        return Err(CUDA_ERROR_INVALID_HANDLE);
    }
    let (mut v, mut len) = (core::ptr::null::<c_void>(), 0usize);
    let key = NvSciSyncAttrKey_PrimitiveInfo;
    // SAFETY: `list` came from the library; out pointers are locals.
    if unsafe { NvSciSyncAttrListGetAttr(list, key, &mut v, &mut len) } != NvSciError_Success {
        return Err(CUDA_ERROR_INVALID_HANDLE);
    }
    if v.is_null() || len < 4 {
        return Ok(None);
    }
    // SAFETY: a set PrimitiveInfo points to `len` >= 4 bytes owned by the list.
    Ok(Some(unsafe { v.cast::<u32>().read_unaligned() }))
}

/// Imports an NvSciSync object (`CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC` only; other
/// known types: `CUDA_ERROR_NOT_SUPPORTED`). Its primitive (the reconciled
/// `PrimitiveInfo`) must be a sync point or a 64-bit sysmem semaphore (deterministic or
/// not), else `CUDA_ERROR_NOT_SUPPORTED`.
///
/// # Safety
/// `extSem_out` and `semHandleDesc` must be NULL or valid; the object must stay alive while it
/// is imported.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuImportExternalSemaphore(
    extSem_out: *mut CUexternalSemaphore,
    semHandleDesc: *const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC,
) -> CUresult {
    ret((|| {
        // SAFETY: forwarded caller contract.
        let d = unsafe { import_desc(extSem_out, semHandleDesc) }?;
        import_type(
            d.r#type.0,
            CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC.0,
            10,
        )?;
        if d.flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: the union member for type NVSCISYNC.
        let obj = unsafe { d.handle.nvSciSyncObj } as NvSciSyncObj;
        if obj.is_null() {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let prim = obj_primitive(obj)?;
        if !CUDA_PRIMITIVES.iter().any(|p| Some(p.0) == prim) {
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        let h = EXT_SEMS.insert(Arc::new(ExtSem { obj: obj as usize }));
        // SAFETY: forwarded caller contract (checked non-null).
        unsafe { out(extSem_out, h as CUexternalSemaphore) }
    })())
}

/// Destroys an imported semaphore (signals and waits already enqueued still execute).
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDestroyExternalSemaphore(extSem: CUexternalSemaphore) -> CUresult {
    ret((|| {
        require_init()?;
        EXT_SEMS
            .remove(extSem as usize)
            .map(drop)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)
    })())
}

/// The per-semaphore parameters of the signal and wait calls (and graph nodes).
pub(crate) trait SemParams {
    /// The flags the call accepts.
    const ALLOWED_FLAGS: c_uint;
    /// The fence pointer and the flags.
    fn fence_and_flags(&self) -> (*mut c_void, c_uint);
}

/// The same `SemParams` for the signal and the wait parameters (same layout, other types).
macro_rules! sem_params {
    ($($t:ty => $allowed:expr),* $(,)?) => {$(
        impl SemParams for $t {
            const ALLOWED_FLAGS: c_uint = $allowed;
            fn fence_and_flags(&self) -> (*mut c_void, c_uint) {
                // SAFETY: reading the union's pointer member (every member is a pointer).
                (unsafe { self.params.nvSciSync.fence }, self.flags)
            }
        }
    )*};
}

sem_params!(
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS => CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC,
    CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS => CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC,
);

/// One semaphore of a signal or wait: the handle must be live (`CUDA_ERROR_INVALID_HANDLE`),
/// the fence pointer non-NULL and the flags known (`CUDA_ERROR_INVALID_VALUE`). Returns the
/// imported object and the fence pointer. Allocates nothing.
pub(crate) fn check_sem<P: SemParams>(
    h: CUexternalSemaphore,
    p: &P,
) -> CuResult<(usize, *mut NvSciSyncFence)> {
    let sem = EXT_SEMS.get(h as usize).ok_or(CUDA_ERROR_INVALID_HANDLE)?;
    let (fence, flags) = p.fence_and_flags();
    if fence.is_null() || flags & !P::ALLOWED_FLAGS != 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    Ok((sem.obj, fence.cast()))
}

/// The two arrays of a signal or wait (empty for `num` 0); NULL with `num > 0`:
/// `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// Both arrays valid for `num` elements when `num > 0` and non-NULL.
pub(crate) unsafe fn sem_arrays<'a, P>(
    sems: *const CUexternalSemaphore,
    params: *const P,
    num: c_uint,
) -> CuResult<(&'a [CUexternalSemaphore], &'a [P])> {
    let n = num as usize;
    if n == 0 {
        return Ok((&[], &[]));
    }
    if sems.is_null() || params.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: both arrays hold `n` elements (caller contract), non-NULL (checked).
    Ok(unsafe {
        (
            sil_common::ffi::slice(sems, n).ok_or(CUDA_ERROR_INVALID_VALUE)?,
            sil_common::ffi::slice(params, n).ok_or(CUDA_ERROR_INVALID_VALUE)?,
        )
    })
}

/// The operation of one signal of `obj`: reserves the engine's next signal NOW with
/// `NvSciSyncSilObjEngineFence`, which writes its fence to `*fence`.
///
/// # Safety
/// `obj` is an imported NvSciSync object; `fence` is valid for an `NvSciSyncFence` read and
/// write.
pub(crate) unsafe fn signal_op(obj: usize, fence: *mut NvSciSyncFence) -> CuResult<Op> {
    // SAFETY: caller contract.
    let r = unsafe { NvSciSyncSilObjEngineFence(obj as NvSciSyncObj, fence) };
    if r != NvSciError_Success {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    Ok(Op::ExtSignal { obj })
}

/// The operation of one wait: on a copy of `*fence`, read NOW.
///
/// # Safety
/// `fence` is valid for an `NvSciSyncFence` read.
pub(crate) unsafe fn wait_op(fence: *const NvSciSyncFence) -> Op {
    // SAFETY: caller contract (unaligned-safe read).
    let fence = unsafe { fence.read_unaligned() };
    Op::ExtWait { fence }
}

/// The common part of the signal and wait calls: once the stream is ready, validates the
/// arrays ([`check_sem`] for each), then submits `step(object, fence)` for each semaphore, in
/// order. `num` 0 is a no-op.
///
/// # Safety
/// Both arrays valid for `num` elements when `num > 0`.
unsafe fn enqueue_sems<P: SemParams>(
    sems: *const CUexternalSemaphore,
    params: *const P,
    num: c_uint,
    stream: CUstream,
    step: impl Fn(usize, usize) -> Step,
) -> CuResult<()> {
    let s = ready_stream(stream)?;
    // SAFETY: forwarded caller contract.
    let (sems, params) = unsafe { sem_arrays(sems, params, num) }?;
    for (&h, p) in sems.iter().zip(params) {
        check_sem(h, p)?;
    }
    s.submit(sems.len(), |i| {
        let (obj, fence) = check_sem(sems[i], &params[i])?;
        Ok(step(obj, fence as usize))
    })
}

/// Enqueues one signal per semaphore (while the stream captures: adds one signal node per
/// semaphore, and the fence is written at each launch of the graph instead). Each call
/// overwrites `*params[i].nvSciSync.fence` NOW (at enqueue) with the fence of the value this
/// signal will reach: the engine reserves its next signal with `NvSciSyncSilObjEngineFence`,
/// which writes the object's primitive id (the sync-point id, 0 for a semaphore) and the value
/// (the object's threshold + 1). At execution the worker calls
/// `NvSciSyncSilObjSignalEngine(obj, t)` with the stream time `t`.
/// `CUDA_EXTERNAL_SEMAPHORE_SIGNAL_SKIP_NVSCIBUF_MEMSYNC` is accepted (no cache to sync).
///
/// # Safety
/// Both arrays valid for `numExtSems` elements; each fence pointer valid for an
/// `NvSciSyncFence` write (while capturing: as long as the graph and its executable graphs).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSignalExternalSemaphoresAsync(
    extSemArray: *const CUexternalSemaphore,
    paramsArray: *const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS,
    numExtSems: c_uint,
    stream: CUstream,
) -> CUresult {
    let signal = |obj, fence| Step::ExtSignal { obj, fence };
    // SAFETY: forwarded caller contract.
    ret(unsafe { enqueue_sems(extSemArray, paramsArray, numExtSems, stream, signal) })
}

/// Enqueues one wait per semaphore on a copy of `*params[i].nvSciSync.fence` (read at
/// enqueue; while the stream captures, at each launch of the graph); the worker waits with
/// `NvSciSyncSilFenceWaitEngine` and starts later work no earlier than the signal's
/// timestamp. `CUDA_EXTERNAL_SEMAPHORE_WAIT_SKIP_NVSCIBUF_MEMSYNC` is accepted.
///
/// # Safety
/// Both arrays valid for `numExtSems` elements; each fence pointer valid for a read (while
/// capturing: as long as the graph and its executable graphs).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuWaitExternalSemaphoresAsync(
    extSemArray: *const CUexternalSemaphore,
    paramsArray: *const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS,
    numExtSems: c_uint,
    stream: CUstream,
) -> CUresult {
    let wait = |_, fence| Step::ExtWait { fence };
    // SAFETY: forwarded caller contract.
    ret(unsafe { enqueue_sems(extSemArray, paramsArray, numExtSems, stream, wait) })
}

/// Fills an unreconciled NvSciSync attribute list for CUDA: `RequiredPerm` (SIGNAL →
/// SignalOnly, WAIT → WaitOnly, both → WaitSignal), `PrimitiveInfo` = {Syncpoint,
/// SysmemSemaphorePayload64b} (sync points preferred), `GpuId` = the device UUID. No flag, an unknown flag, or
/// `RequiredPerm` already set: `CUDA_ERROR_INVALID_VALUE`; a list the library refuses:
/// `CUDA_ERROR_INVALID_HANDLE`.
///
/// # Safety
/// `nvSciSyncAttrList` must be NULL or an `NvSciSyncAttrList`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetNvSciSyncAttributes(
    nvSciSyncAttrList: *mut c_void,
    dev: CUdevice,
    flags: c_int,
) -> CUresult {
    ret((|| {
        require_init()?;
        if dev != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        let both = CUDA_NVSCISYNC_ATTR_SIGNAL | CUDA_NVSCISYNC_ATTR_WAIT;
        if flags & both == 0 || flags & !both != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let list = nvSciSyncAttrList as NvSciSyncAttrList;
        if list.is_null() {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        let (mut v, mut len) = (core::ptr::null::<c_void>(), 0usize);
        // SAFETY: `list` is an attribute list (checked by the callee); out pointers are locals.
        let r = unsafe {
            NvSciSyncAttrListGetAttr(list, NvSciSyncAttrKey_RequiredPerm, &mut v, &mut len)
        };
        if r != NvSciError_Success {
            return Err(CUDA_ERROR_INVALID_HANDLE);
        }
        if len != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let perm: NvSciSyncAccessPerm = match (
            flags & CUDA_NVSCISYNC_ATTR_SIGNAL != 0,
            flags & CUDA_NVSCISYNC_ATTR_WAIT != 0,
        ) {
            (true, true) => NvSciSyncAccessPerm_WaitSignal,
            (true, false) => NvSciSyncAccessPerm_SignalOnly,
            _ => NvSciSyncAccessPerm_WaitOnly,
        };
        let prim = CUDA_PRIMITIVES;
        let gpu = [NvSciRmGpuId { bytes: DEVICE_UUID }];
        let pairs = [
            NvSciSyncAttrKeyValuePair {
                attrKey: NvSciSyncAttrKey_RequiredPerm,
                value: (&raw const perm).cast(),
                len: size_of_val(&perm),
            },
            NvSciSyncAttrKeyValuePair {
                attrKey: NvSciSyncAttrKey_PrimitiveInfo,
                value: prim.as_ptr().cast(),
                len: size_of_val(&prim),
            },
            NvSciSyncAttrKeyValuePair {
                attrKey: NvSciSyncAttrKey_GpuId,
                value: gpu.as_ptr().cast(),
                len: size_of_val(&gpu),
            },
        ];
        // SAFETY: the pairs point to live locals of the stated lengths.
        let r = unsafe { NvSciSyncAttrListSetAttrs(list, pairs.as_ptr(), pairs.len()) };
        if r != NvSciError_Success {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        Ok(())
    })())
}
