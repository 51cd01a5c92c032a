//! Safe wrappers over NvSciSync and NvSciBuf: the vendor libraries on `orin`, the SIL twins
//! elsewhere; the code is the same.
//!
//! Objects are released explicitly (`free`, `close`) by the runtime's ordered shutdown, never
//! in `Drop`: the order matters (fences before objects, engine imports before both). The order
//! is also checked (the engine's `keep` module): a module counts its attribute lists, objects
//! and wait contexts, an object or buffer counts the engine imports made from it, and
//! `close`/`free` of a parent with children left refuses (the parent stays open, so its
//! children stay valid).
//!
//! Raw handles never leave the engine layer: the fields are private and the `raw()` getters
//! are visible to the engine modules only.

use core::ffi::c_void;
use core::ptr;

use nvsci_sys as ns;

use crate::engine::keep::{Claim, Hold, Keep};
use crate::error::{Context, Error, FenceField, Misuse, Phase, Result, Status, Table};
use crate::table::{BufferKind, TensorType};

pub(crate) fn check(call: &'static str, status: ns::NvSciError, context: Context) -> Result<()> {
    Status::NvSci(status.0).check(status == ns::NvSciError_Success, call, context)
}

/// An open NvSciSync module.
#[derive(Debug)]
pub struct SyncModule {
    raw: ns::NvSciSyncModule,
    keep: Keep,
}

// SAFETY: NvSciSync modules may be used from any thread (the library serialises internally).
unsafe impl Send for SyncModule {}
// SAFETY: as above; every call through a shared reference is a thread-safe library call.
unsafe impl Sync for SyncModule {}

impl SyncModule {
    /// Open the module.
    pub fn open() -> Result<Self> {
        let keep = Keep::new()?;
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer.
        let status = unsafe { ns::NvSciSyncModuleOpen(&mut raw) };
        check("NvSciSyncModuleOpen", status, Context::Platform)?;
        Ok(SyncModule { raw, keep })
    }

    /// Close the module. Refused ([`Error::Shutdown`], the module stays open) while an
    /// attribute list, object or wait context made from it is alive.
    pub fn close(self) -> Result<()> {
        self.keep.release(Context::Platform)?;
        // SAFETY: the handle came from NvSciSyncModuleOpen and is closed once (self is
        // consumed); no child handle is left (checked above).
        unsafe { ns::NvSciSyncModuleClose(self.raw) };
        Ok(())
    }
}

/// The CPU's role on a semaphore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuRole {
    /// The CPU signals (CPU tasks).
    Signaler,
    /// The CPU waits and reads the signal timestamps (DLA-signalled semaphores).
    Waiter,
    /// The CPU waits; no timestamps (CPU- and GPU-signalled semaphores, whose times are
    /// measured otherwise).
    WaiterNoTimestamps,
}

/// An unreconciled NvSciSync attribute list.
#[derive(Debug)]
pub struct SyncAttrList {
    raw: ns::NvSciSyncAttrList,
    module: Hold,
}

impl SyncAttrList {
    /// An empty list.
    pub fn create(module: &SyncModule, context: Context) -> Result<Self> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid module handle and out-pointer.
        let status = unsafe { ns::NvSciSyncAttrListCreate(module.raw, &mut raw) };
        check("NvSciSyncAttrListCreate", status, context)?;
        Ok(SyncAttrList {
            raw,
            module: module.keep.hold(),
        })
    }

    /// The raw handle (for engine calls that fill a list, e.g. `cudlaGetNvSciSyncAttributes`).
    pub(super) fn raw(&self) -> ns::NvSciSyncAttrList {
        self.raw
    }

    fn set(&mut self, pairs: &[ns::NvSciSyncAttrKeyValuePair], context: Context) -> Result<()> {
        // SAFETY: `pairs` points to `pairs.len()` valid entries whose values outlive the call.
        let status =
            unsafe { ns::NvSciSyncAttrListSetAttrs(self.raw, pairs.as_ptr(), pairs.len()) };
        check("NvSciSyncAttrListSetAttrs", status, context)
    }

    /// Ask for deterministic fences (+1 per signal).
    pub fn require_deterministic(&mut self, context: Context) -> Result<()> {
        let yes = true;
        let pair = ns::NvSciSyncAttrKeyValuePair {
            attrKey: ns::NvSciSyncAttrKey_RequireDeterministicFences,
            value: (&yes as *const bool).cast(),
            len: size_of::<bool>(),
        };
        self.set(&[pair], context)
    }

    /// Describe the CPU as signaler or as waiter (waiters also ask for timestamps).
    pub fn cpu(&mut self, role: CpuRole, context: Context) -> Result<()> {
        let yes = true;
        let perm: ns::NvSciSyncAccessPerm = match role {
            CpuRole::Signaler => ns::NvSciSyncAccessPerm_SignalOnly,
            CpuRole::Waiter | CpuRole::WaiterNoTimestamps => ns::NvSciSyncAccessPerm_WaitOnly,
        };
        let flag = |key| ns::NvSciSyncAttrKeyValuePair {
            attrKey: key,
            value: (&yes as *const bool).cast(),
            len: 1,
        };
        let perm_pair = ns::NvSciSyncAttrKeyValuePair {
            attrKey: ns::NvSciSyncAttrKey_RequiredPerm,
            value: (&perm as *const u64).cast(),
            len: size_of::<ns::NvSciSyncAccessPerm>(),
        };
        match role {
            CpuRole::Signaler | CpuRole::WaiterNoTimestamps => self.set(
                &[flag(ns::NvSciSyncAttrKey_NeedCpuAccess), perm_pair],
                context,
            ),
            CpuRole::Waiter => self.set(
                &[
                    flag(ns::NvSciSyncAttrKey_NeedCpuAccess),
                    perm_pair,
                    flag(ns::NvSciSyncAttrKey_WaiterRequireTimestamps),
                ],
                context,
            ),
        }
    }

    /// Free the list.
    pub fn free(self) {
        // SAFETY: the list came from NvSciSyncAttrListCreate and is freed once.
        unsafe { ns::NvSciSyncAttrListFree(self.raw) }
    }
}

/// Reconcile the lists (signaler first) and allocate the object; the lists stay owned by the
/// caller. A failed reconciliation frees the conflict list and reports the status.
pub fn reconcile_and_alloc(lists: &[SyncAttrList], context: Context) -> Result<SyncObj> {
    const MAX_LISTS: usize = 8;
    let first = lists.first().ok_or(Error::Misuse {
        misuse: Misuse::NoAttributeList,
        context,
    })?;
    let mut raw_lists: heapless::Vec<ns::NvSciSyncAttrList, MAX_LISTS> = heapless::Vec::new();
    for l in lists {
        raw_lists.push(l.raw).map_err(|_| Error::Capacity {
            table: Table::AttributeListsPerSemaphore,
            limit: MAX_LISTS as u32,
        })?;
    }
    let keep = Keep::new()?;
    let mut reconciled = ptr::null_mut();
    let mut conflict = ptr::null_mut();
    // SAFETY: `raw_lists` holds live unreconciled lists (borrowed from `lists`); the
    // out-pointers are valid.
    let status = unsafe {
        ns::NvSciSyncAttrListReconcile(
            raw_lists.as_ptr(),
            raw_lists.len(),
            &mut reconciled,
            &mut conflict,
        )
    };
    if !conflict.is_null() {
        // SAFETY: the conflict list was produced by the failed reconcile and is ours to free.
        unsafe { ns::NvSciSyncAttrListFree(conflict) };
    }
    check("NvSciSyncAttrListReconcile", status, context)?;
    let mut raw = ptr::null_mut();
    // SAFETY: `reconciled` is a reconciled list; `raw` a valid out-pointer.
    let status = unsafe { ns::NvSciSyncObjAlloc(reconciled, &mut raw) };
    // SAFETY: the object keeps what it needs; the reconciled list is ours to free.
    unsafe { ns::NvSciSyncAttrListFree(reconciled) };
    check("NvSciSyncObjAlloc", status, context)?;
    let obj = SyncObj {
        raw,
        keep,
        module: Claim::from(first.module.clone()),
        id: None,
    };
    match obj.deterministic(context) {
        Ok(()) => Ok(obj),
        Err(e) => {
            // Not ours to keep: nothing has imported it yet.
            let _ = obj.free();
            Err(e)
        }
    }
}

/// An NvSciSync object with deterministic fences: a 64-bit semaphore that every signal moves
/// up by exactly one, so the fence of the `n`-th signal can be built before it happens.
#[derive(Debug)]
pub struct SyncObj {
    raw: ns::NvSciSyncObj,
    /// Counts the engine imports of this object.
    keep: Keep,
    module: Claim,
    /// The primitive id fences of this object carry, taken from a fence its signaler wrote
    /// ([`SyncObj::adopt`]); `None` until then.
    id: Option<u64>,
}

// SAFETY: NvSciSync objects are thread-safe handles; the library serialises signal/fence calls.
unsafe impl Send for SyncObj {}
// SAFETY: as above.
unsafe impl Sync for SyncObj {}

impl SyncObj {
    /// The raw handle.
    pub(super) fn raw(&self) -> ns::NvSciSyncObj {
        self.raw
    }

    /// Count an engine import of this object: the object cannot be freed while it exists.
    pub(super) fn hold(&self) -> Hold {
        self.keep.hold()
    }

    /// A second handle to the same object (for a CPU worker thread).
    pub fn dup(&self, context: Context) -> Result<SyncObj> {
        let keep = Keep::new()?;
        let mut raw = ptr::null_mut();
        // SAFETY: live object handle; valid out-pointer.
        let status = unsafe { ns::NvSciSyncObjDup(self.raw, &mut raw) };
        check("NvSciSyncObjDup", status, context)?;
        Ok(SyncObj {
            raw,
            keep,
            module: self.module.clone(),
            id: self.id,
        })
    }

    /// Refuse an object the runtime cannot build fences ahead for: its reconciled list must
    /// have `RequireDeterministicFences` and a 64-bit semaphore primitive (a sync point's
    /// thresholds move only with its signaler, so a waiter may not build its fences).
    fn deterministic(&self, context: Context) -> Result<()> {
        let mut list = ptr::null_mut();
        // SAFETY: live object handle; valid out-pointer. The list belongs to the object.
        let status = unsafe { ns::NvSciSyncObjGetAttrList(self.raw, &mut list) };
        check("NvSciSyncObjGetAttrList", status, context)?;
        let attr = |key| -> Result<&[u8]> {
            let mut value: *const c_void = ptr::null();
            let mut len = 0usize;
            // SAFETY: live reconciled list; valid out-pointers.
            let status = unsafe { ns::NvSciSyncAttrListGetAttr(list, key, &mut value, &mut len) };
            check("NvSciSyncAttrListGetAttr", status, context)?;
            if value.is_null() {
                return Ok(&[]);
            }
            // SAFETY: the library returned `len` readable bytes that live as long as the
            // object's list (longer than this function).
            Ok(unsafe { core::slice::from_raw_parts(value.cast::<u8>(), len) })
        };
        let requested = attr(ns::NvSciSyncAttrKey_RequireDeterministicFences)? == [1];
        let primitive = match attr(ns::NvSciSyncAttrKey_PrimitiveInfo)? {
            [a, b, c, d, ..] => u32::from_ne_bytes([*a, *b, *c, *d]),
            _ => 0,
        };
        if requested && primitive == ns::NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0 {
            return Ok(());
        }
        Err(Error::NotDeterministic {
            context,
            requested,
            primitive,
        })
    }

    /// Take the primitive id from `fence`, a fence the object's signaler wrote (an engine's
    /// EOF fence, or the CPU's [`SyncObj::cpu_fence`]) for the value the runtime computed as
    /// `expected`: the value must match, and so must the id if one was adopted before.
    pub(crate) fn adopt(
        &mut self,
        fence: &RawFence,
        expected: u64,
        context: Context,
    ) -> Result<()> {
        let (id, value) = fence.extract(context)?;
        if value != expected {
            return Err(Error::FenceDisagrees {
                context,
                field: FenceField::Value,
                expected,
                got: value,
            });
        }
        match self.id {
            Some(known) if known != id => Err(Error::FenceDisagrees {
                context,
                field: FenceField::Id,
                expected: known,
                got: id,
            }),
            _ => {
                self.id = Some(id);
                Ok(())
            }
        }
    }

    /// The CPU signaler's fence for its next signal (`NvSciSyncObjGenerateFence`), written
    /// into `fence`: the CPU signals after it, so the values stay paired.
    pub(crate) fn cpu_fence(&self, fence: &mut RawFence, context: Context) -> Result<()> {
        // SAFETY: live object handle; `fence` is a valid fence (cleared or filled).
        let status = unsafe { ns::NvSciSyncObjGenerateFence(self.raw, &mut fence.0) };
        check("NvSciSyncObjGenerateFence", status, context)
    }

    /// CPU signal: +1.
    pub fn signal(&self, context: Context) -> Result<()> {
        // SAFETY: live object handle.
        let status = unsafe { ns::NvSciSyncObjSignal(self.raw) };
        check("NvSciSyncObjSignal", status, context)
    }

    /// Write the fence for counter value `value` into `fence` (clearing what it held).
    /// Needs the primitive id ([`SyncObj::adopt`], done at init).
    pub fn fence_at(&self, value: u64, fence: &mut RawFence, context: Context) -> Result<()> {
        let id = self.id.ok_or(Error::Phase(Phase::FenceIdUnknown))?;
        // SAFETY: live object handle; `fence` is a valid fence (cleared or holding a reference).
        let status = unsafe { ns::NvSciSyncFenceUpdateFence(self.raw, id, value, &mut fence.0) };
        check("NvSciSyncFenceUpdateFence", status, context)
    }

    /// Free the object (fences filled from it keep their own reference). Refused
    /// ([`Error::Shutdown`], the object stays allocated) while an engine import of it exists.
    pub fn free(self) -> Result<()> {
        let SyncObj {
            raw, keep, module, ..
        } = self;
        // Refused: still allocated, and the dropped claim keeps the module open too.
        keep.release(Context::Semaphore("semaphore"))?;
        // SAFETY: the object came from NvSciSyncObjAlloc/Dup and is freed once (self is
        // consumed); no engine import of it is left (checked above).
        unsafe { ns::NvSciSyncObjFree(raw) };
        module.release();
        Ok(())
    }
}

/// An `NvSciSyncFence` owned by the runtime (48 bytes, all zero when cleared). Only the
/// library writes it; it holds its own reference to the object it was filled from.
#[derive(Debug)]
pub struct RawFence(ns::NvSciSyncFence);

// SAFETY: a fence is plain data plus a reference count kept by the thread-safe library.
unsafe impl Send for RawFence {}

impl RawFence {
    /// A cleared fence.
    pub const fn cleared() -> Self {
        RawFence(ns::NvSciSyncFenceInitializer)
    }

    /// Drop the reference it holds and zero it.
    pub fn clear(&mut self) {
        // SAFETY: `self.0` is a valid fence (cleared or filled by the library).
        unsafe { ns::NvSciSyncFenceClear(&mut self.0) }
    }

    /// Pointer for engine structs (`CudlaFence.fence`, CUDA wait/signal params).
    pub(super) fn as_mut_ptr(&mut self) -> *mut c_void {
        (&mut self.0 as *mut ns::NvSciSyncFence).cast()
    }

    /// The fence, for engine calls that read it (`CupvaFenceImport`).
    pub(super) fn as_raw(&self) -> *const ns::NvSciSyncFence {
        &self.0
    }

    /// The fence, for engine calls that fill it (`CupvaFenceExport`).
    pub(super) fn as_raw_mut(&mut self) -> *mut ns::NvSciSyncFence {
        &mut self.0
    }

    /// Whether it holds nothing.
    pub fn is_cleared(&self) -> bool {
        self.0.payload == ns::NvSciSyncFenceInitializer.payload
    }

    /// The primitive id and value the fence stands for (`NvSciSyncFenceExtractFence`).
    pub fn extract(&self, context: Context) -> Result<(u64, u64)> {
        let (mut id, mut value) = (0u64, 0u64);
        // SAFETY: valid fence and out-pointers.
        let status = unsafe { ns::NvSciSyncFenceExtractFence(&self.0, &mut id, &mut value) };
        check("NvSciSyncFenceExtractFence", status, context)?;
        Ok((id, value))
    }

    /// The timestamp of the signal that reached this fence, in µs of the signaler's clock
    /// (needs a CPU waiter list that asked for timestamps).
    pub fn timestamp_us(&self, context: Context) -> Result<u64> {
        let mut us = 0u64;
        // SAFETY: valid fence and out-pointer.
        let status = unsafe { ns::NvSciSyncFenceGetTimestamp(&self.0, &mut us) };
        check("NvSciSyncFenceGetTimestamp", status, context)?;
        Ok(us)
    }
}

/// How a CPU wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waited {
    /// The fence was reached.
    Reached,
    /// The timeout passed first.
    TimedOut,
}

/// A CPU wait context: one per waiting thread.
#[derive(Debug)]
pub struct CpuWaitContext {
    raw: ns::NvSciSyncCpuWaitContext,
    _module: Hold,
}

// SAFETY: a wait context may move between threads; it is used by one thread at a time (&mut).
unsafe impl Send for CpuWaitContext {}

impl CpuWaitContext {
    /// Allocate a context.
    pub fn alloc(module: &SyncModule) -> Result<Self> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid module and out-pointer.
        let status = unsafe { ns::NvSciSyncCpuWaitContextAlloc(module.raw, &mut raw) };
        check("NvSciSyncCpuWaitContextAlloc", status, Context::Platform)?;
        Ok(CpuWaitContext {
            raw,
            _module: module.keep.hold(),
        })
    }

    /// Wait up to `timeout_us` (0 = just check) for the fence.
    pub fn wait(&mut self, fence: &RawFence, timeout_us: u64, context: Context) -> Result<Waited> {
        let timeout = timeout_us.min(ns::NvSciSyncFenceMaxTimeout as u64) as i64;
        // SAFETY: valid fence and context; this context waits on one fence at a time (&mut self).
        let status = unsafe { ns::NvSciSyncFenceWait(&fence.0, self.raw, timeout) };
        if status == ns::NvSciError_Timeout {
            return Ok(Waited::TimedOut);
        }
        check("NvSciSyncFenceWait", status, context)?;
        Ok(Waited::Reached)
    }

    /// Wait up to `timeout_us` for the fence, spinning without yielding the CPU
    /// (`NvSciSyncFenceWaitWithMode` with `BusyNoYield`, NvSciSync 2.8): the completion is
    /// seen at once, at the cost of the CPU time spun.
    pub fn wait_spinning(
        &mut self,
        fence: &RawFence,
        timeout_us: u64,
        context: Context,
    ) -> Result<Waited> {
        let timeout = timeout_us.min(ns::NvSciSyncFenceMaxTimeout as u64) as i64;
        // SAFETY: valid fence and context; this context waits on one fence at a time (&mut self).
        let status = unsafe {
            ns::NvSciSyncFenceWaitWithMode(
                &fence.0,
                self.raw,
                timeout,
                ns::NvSciSyncWaitMode_BusyNoYield,
            )
        };
        if status == ns::NvSciError_Timeout {
            return Ok(Waited::TimedOut);
        }
        check("NvSciSyncFenceWaitWithMode", status, context)?;
        Ok(Waited::Reached)
    }

    /// Free the context.
    pub fn free(self) {
        // SAFETY: allocated by NvSciSyncCpuWaitContextAlloc, freed once.
        unsafe { ns::NvSciSyncCpuWaitContextFree(self.raw) }
    }
}

/// An open NvSciBuf module.
#[derive(Debug)]
pub struct BufModule {
    raw: ns::NvSciBufModule,
    keep: Keep,
}

// SAFETY: NvSciBuf modules are thread-safe library handles.
unsafe impl Send for BufModule {}
// SAFETY: as above.
unsafe impl Sync for BufModule {}

impl BufModule {
    /// Open the module.
    pub fn open() -> Result<Self> {
        let keep = Keep::new()?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer.
        let status = unsafe { ns::NvSciBufModuleOpen(&mut raw) };
        check("NvSciBufModuleOpen", status, Context::Platform)?;
        Ok(BufModule { raw, keep })
    }

    /// Close the module. Refused ([`Error::Shutdown`], the module stays open) while a buffer
    /// allocated from it is alive.
    pub fn close(self) -> Result<()> {
        self.keep.release(Context::Platform)?;
        // SAFETY: opened by NvSciBufModuleOpen, closed once; no buffer is left (checked).
        unsafe { ns::NvSciBufModuleClose(self.raw) };
        Ok(())
    }
}

/// What a buffer needs.
#[derive(Clone, Copy, Debug)]
pub struct BufSpec {
    /// Size, alignment and shape from the schedule.
    pub kind: BufferKind,
    /// Whether the CPU maps it.
    pub cpu_access: bool,
    /// Allocate as an NvSciBuf tensor (DLA-only buffers) rather than a raw buffer.
    pub as_tensor: bool,
    /// The CUDA device UUID when a GPU imports it.
    pub gpu_uuid: Option<[u8; 16]>,
    /// Whether the PVA imports it: cuPVA adds its attributes (`CupvaMemFillAttributes`).
    pub pva: bool,
}

/// An allocated NvSciBuf object.
#[derive(Debug)]
pub struct BufObj {
    raw: ns::NvSciBufObj,
    cpu: *mut u8,
    size: u64,
    /// Counts the engine imports and mappings of this buffer.
    keep: Keep,
    module: Claim,
}

// SAFETY: the handle is a thread-safe library object; the CPU mapping is only dereferenced
// through the engine layer's checked views.
unsafe impl Send for BufObj {}
// SAFETY: as above.
unsafe impl Sync for BufObj {}

fn data_type(t: TensorType) -> ns::NvSciBufAttrValDataType {
    match t {
        TensorType::Int8 => ns::NvSciDataType_Int8,
        TensorType::Uint8 => ns::NvSciDataType_Uint8,
        TensorType::Float16 => ns::NvSciDataType_Float16,
        TensorType::Float32 => ns::NvSciDataType_Float32,
    }
}

impl BufObj {
    /// Create, reconcile and allocate a buffer.
    pub fn alloc(module: &BufModule, spec: &BufSpec, context: Context) -> Result<Self> {
        let keep = Keep::new()?;
        let mut list = ptr::null_mut();
        // SAFETY: valid module and out-pointer.
        let status = unsafe { ns::NvSciBufAttrListCreate(module.raw, &mut list) };
        check("NvSciBufAttrListCreate", status, context)?;
        let result = Self::alloc_from(list, spec, context, keep, module.keep.hold());
        // SAFETY: the list is ours; the object (if any) keeps what it needs.
        unsafe { ns::NvSciBufAttrListFree(list) };
        result
    }

    fn alloc_from(
        list: ns::NvSciBufAttrList,
        spec: &BufSpec,
        context: Context,
        keep: Keep,
        module: Hold,
    ) -> Result<Self> {
        let pair = |key, value: *const c_void, len: usize| ns::NvSciBufAttrKeyValuePair {
            key,
            value,
            len,
        };
        let cpu = spec.cpu_access;
        let perm = ns::NvSciBufAccessPerm_ReadWrite;
        let size = spec.kind.size();
        let align = spec.kind.align().max(1);
        let mut pairs: heapless::Vec<ns::NvSciBufAttrKeyValuePair, 12> = heapless::Vec::new();
        let raw_type = ns::NvSciBufType_RawBuffer;
        let tensor_type = ns::NvSciBufType_Tensor;
        let (dims64, align_per_dim, num_dims, dtype);
        let mut push = |p| {
            pairs.push(p).map_err(|_| Error::Capacity {
                table: Table::BufferAttributes,
                limit: 12,
            })
        };
        match (spec.as_tensor, spec.kind) {
            (
                true,
                BufferKind::Tensor {
                    data_type: t, dims, ..
                },
            ) => {
                dims64 = dims.map(u64::from);
                align_per_dim = [1u32; 4];
                num_dims = 4u32;
                dtype = data_type(t);
                push(pair(
                    ns::NvSciBufGeneralAttrKey_Types,
                    (&tensor_type as *const ns::NvSciBufType).cast(),
                    4,
                ))?;
                push(pair(
                    ns::NvSciBufTensorAttrKey_DataType,
                    (&dtype as *const ns::NvSciBufAttrValDataType).cast(),
                    4,
                ))?;
                push(pair(
                    ns::NvSciBufTensorAttrKey_NumDims,
                    (&num_dims as *const u32).cast(),
                    4,
                ))?;
                push(pair(
                    ns::NvSciBufTensorAttrKey_SizePerDim,
                    dims64.as_ptr().cast(),
                    32,
                ))?;
                push(pair(
                    ns::NvSciBufTensorAttrKey_AlignmentPerDim,
                    align_per_dim.as_ptr().cast(),
                    16,
                ))?;
                push(pair(
                    ns::NvSciBufTensorAttrKey_BaseAddrAlign,
                    (&align as *const u64).cast(),
                    8,
                ))?;
            }
            _ => {
                push(pair(
                    ns::NvSciBufGeneralAttrKey_Types,
                    (&raw_type as *const ns::NvSciBufType).cast(),
                    4,
                ))?;
                push(pair(
                    ns::NvSciBufRawBufferAttrKey_Size,
                    (&size as *const u64).cast(),
                    8,
                ))?;
                push(pair(
                    ns::NvSciBufRawBufferAttrKey_Align,
                    (&align as *const u64).cast(),
                    8,
                ))?;
            }
        }
        push(pair(
            ns::NvSciBufGeneralAttrKey_NeedCpuAccess,
            (&cpu as *const bool).cast(),
            1,
        ))?;
        push(pair(
            ns::NvSciBufGeneralAttrKey_RequiredPerm,
            (&perm as *const ns::NvSciBufAttrValAccessPerm).cast(),
            4,
        ))?;
        if cpu {
            push(pair(
                ns::NvSciBufGeneralAttrKey_EnableCpuCache,
                (&cpu as *const bool).cast(),
                1,
            ))?;
        }
        let gpu_id;
        if let Some(uuid) = spec.gpu_uuid {
            gpu_id = ns::NvSciRmGpuId { bytes: uuid };
            push(pair(
                ns::NvSciBufGeneralAttrKey_GpuId,
                (&gpu_id as *const ns::NvSciRmGpuId).cast(),
                16,
            ))?;
        }
        // SAFETY: every pair points at a local that outlives the call; the count matches.
        let status = unsafe { ns::NvSciBufAttrListSetAttrs(list, pairs.as_mut_ptr(), pairs.len()) };
        check("NvSciBufAttrListSetAttrs", status, context)?;
        if spec.pva {
            // The PVA's own attributes join the list before reconciliation, as cuDLA's and
            // CUDA's requirements do through theirs (PVA SDK 2.8.1 NvSci interop group).
            crate::engine::pva::fill_buffer_attributes(list, context)?;
        }

        let mut raw = ptr::null_mut();
        let mut conflict = ptr::null_mut();
        let lists = [list];
        // SAFETY: one valid unreconciled list; valid out-pointers.
        let status = unsafe {
            ns::NvSciBufAttrListReconcileAndObjAlloc(lists.as_ptr(), 1, &mut raw, &mut conflict)
        };
        if !conflict.is_null() {
            // SAFETY: produced by the failed reconcile; ours to free.
            unsafe { ns::NvSciBufAttrListFree(conflict) };
        }
        check("NvSciBufAttrListReconcileAndObjAlloc", status, context)?;
        let mut obj = BufObj {
            raw,
            cpu: ptr::null_mut(),
            size,
            keep,
            module: Claim::from(module),
        };
        if cpu {
            let mut p = ptr::null_mut();
            // SAFETY: live object allocated with CPU access and read-write permission.
            let status = unsafe { ns::NvSciBufObjGetCpuPtr(raw, &mut p) };
            if let Err(e) = check("NvSciBufObjGetCpuPtr", status, context) {
                // Nothing was imported yet, so the free cannot be refused.
                let _ = obj.free();
                return Err(e);
            }
            obj.cpu = p.cast();
        }
        Ok(obj)
    }

    /// The raw handle.
    pub(super) fn raw(&self) -> ns::NvSciBufObj {
        self.raw
    }

    /// Count an engine import or mapping of this buffer: it cannot be freed while that
    /// exists.
    pub(super) fn hold(&self) -> Hold {
        self.keep.hold()
    }

    /// Size requested from the schedule (the allocation may be larger).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The CPU mapping (at least [`BufObj::size`] bytes, live until the buffer is freed), if
    /// it was allocated with CPU access.
    pub(super) fn cpu_ptr(&self) -> Option<*mut u8> {
        (!self.cpu.is_null()).then_some(self.cpu)
    }

    /// Free the buffer. Refused ([`Error::Shutdown`], the buffer stays allocated) while a GPU
    /// or DLA import of it exists.
    pub fn free(self) -> Result<()> {
        let BufObj {
            raw, keep, module, ..
        } = self;
        // Refused: still allocated, and the dropped claim keeps the module open too.
        keep.release(Context::Buffer("buffer"))?;
        // SAFETY: allocated by NvSciBufAttrListReconcileAndObjAlloc; freed once (self is
        // consumed); no engine import is left (checked above).
        unsafe { ns::NvSciBufObjFree(raw) };
        module.release();
        Ok(())
    }
}

#[cfg(all(test, any(platform = "sil", platform = "rig")))]
mod tests {
    use super::*;

    const CTX: Context = Context::Platform;

    /// Covers: REQ-API-004
    #[test]
    fn a_module_closes_only_after_its_lists_objects_and_contexts() {
        let module = SyncModule::open().unwrap();
        let mut signaler = SyncAttrList::create(&module, CTX).unwrap();
        signaler.require_deterministic(CTX).unwrap();
        signaler.cpu(CpuRole::Signaler, CTX).unwrap();
        let mut waiter = SyncAttrList::create(&module, CTX).unwrap();
        waiter.require_deterministic(CTX).unwrap();
        waiter.cpu(CpuRole::WaiterNoTimestamps, CTX).unwrap();
        let lists = [signaler, waiter];
        let mut obj = reconcile_and_alloc(&lists, CTX).unwrap();
        let mut first = RawFence::cleared();
        assert_eq!(
            obj.fence_at(1, &mut first, CTX),
            Err(Error::Phase(Phase::FenceIdUnknown))
        );
        obj.cpu_fence(&mut first, CTX).unwrap();
        obj.adopt(&first, 1, CTX).unwrap();
        first.clear();
        let dup = obj.dup(CTX).unwrap();
        let mut wait = CpuWaitContext::alloc(&module).unwrap();
        for l in lists {
            l.free();
        }
        // The object, its duplicate and the wait context still hold the module: they work.
        let mut fence = RawFence::cleared();
        obj.signal(CTX).unwrap();
        dup.fence_at(1, &mut fence, CTX).unwrap();
        assert_eq!(wait.wait(&fence, 0, CTX), Ok(Waited::Reached));
        fence.clear();
        obj.free().unwrap();
        dup.free().unwrap();
        wait.free();
        module.close().unwrap();
    }

    /// Lists for a CPU signaler and a CPU waiter, deterministic or not.
    fn cpu_lists(module: &SyncModule, deterministic: bool) -> [SyncAttrList; 2] {
        [CpuRole::Signaler, CpuRole::WaiterNoTimestamps].map(|role| {
            let mut l = SyncAttrList::create(module, CTX).unwrap();
            if deterministic {
                l.require_deterministic(CTX).unwrap();
            }
            l.cpu(role, CTX).unwrap();
            l
        })
    }

    /// Covers: REQ-RT-004
    #[test]
    fn only_deterministic_semaphores_are_accepted() {
        let module = SyncModule::open().unwrap();
        // Without RequireDeterministicFences the vendor (and the SIL) reconcile to a sync
        // point for the CPU: the runtime refuses it and says why.
        let lists = cpu_lists(&module, false);
        let refused = reconcile_and_alloc(&lists, CTX);
        assert!(
            matches!(
                refused,
                Err(Error::NotDeterministic {
                    requested: false,
                    ..
                })
            ),
            "{refused:?}"
        );
        let message = std::string::ToString::to_string(&refused.unwrap_err());
        assert!(
            message.contains("not a deterministic semaphore"),
            "{message}"
        );
        for l in lists {
            l.free();
        }
        // Refused objects are freed: the module closes.
        module.close().unwrap();
    }

    /// Covers: REQ-RT-004, REQ-RT-003
    #[test]
    fn fences_of_the_signaler_must_match_what_the_runtime_computes() {
        let module = SyncModule::open().unwrap();
        let lists = cpu_lists(&module, true);
        let mut obj = reconcile_and_alloc(&lists, CTX).unwrap();
        for l in lists {
            l.free();
        }
        let mut first = RawFence::cleared();
        obj.cpu_fence(&mut first, CTX).unwrap();
        // The first fence is for value 1: expecting 2 is refused, and nothing is adopted.
        assert!(matches!(
            obj.adopt(&first, 2, CTX),
            Err(Error::FenceDisagrees {
                field: FenceField::Value,
                expected: 2,
                got: 1,
                ..
            })
        ));
        assert!(obj.fence_at(1, &mut RawFence::cleared(), CTX).is_err());
        obj.adopt(&first, 1, CTX).unwrap();
        let (id, value) = first.extract(CTX).unwrap();
        assert_eq!(value, 1);
        // A fence built by the runtime carries the adopted id.
        let mut built = RawFence::cleared();
        obj.fence_at(7, &mut built, CTX).unwrap();
        assert_eq!(built.extract(CTX).unwrap(), (id, 7));
        assert!(RawFence::cleared().is_cleared() && !built.is_cleared());
        built.clear();
        first.clear();
        obj.free().unwrap();
        module.close().unwrap();
    }

    /// Covers: REQ-API-004
    #[test]
    fn a_refused_close_leaves_the_children_usable() {
        let module = SyncModule::open().unwrap();
        let mut list = SyncAttrList::create(&module, CTX).unwrap();
        assert_eq!(module.close(), Err(Error::Shutdown { context: CTX }));
        list.require_deterministic(CTX).unwrap();
        list.free();
        let buffers = BufModule::open().unwrap();
        let spec = BufSpec {
            kind: BufferKind::Raw {
                size: 64,
                align: 64,
            },
            cpu_access: true,
            as_tensor: false,
            gpu_uuid: None,
            pva: false,
        };
        let buf = BufObj::alloc(&buffers, &spec, Context::Buffer("b")).unwrap();
        assert_eq!(buffers.close(), Err(Error::Shutdown { context: CTX }));
        assert!(buf.cpu_ptr().is_some());
        assert_eq!(buf.size(), 64);
        buf.free().unwrap();
    }

    /// Covers: REQ-RT-010
    #[test]
    fn nothing_to_reconcile_is_an_error() {
        assert!(matches!(
            reconcile_and_alloc(&[], CTX),
            Err(Error::Misuse {
                misuse: Misuse::NoAttributeList,
                context: CTX,
            })
        ));
    }
}
