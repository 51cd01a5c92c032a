//! The DLA engine: cuDLA in standalone mode.
//!
//! One device handle per (DLA core, loadable), because cuDLA allows one loadable per handle.
//! A DLA network ([`LoadableDesc`]) is loaded as its ONNX model on `sil` and `rig` (the SIL
//! cuDLA runs ONNX) and as its real, TensorRT-built loadable on `orin` ([`image_for_platform`]).
//! The image is checked against its manifest hash before cuDLA sees it; its tensor
//! descriptors are checked against the buffers the schedule binds. Buffers and semaphores are
//! imported from NvSciBuf/NvSciSync; submissions use the NULL stream and deterministic fences.
//! Errors follow the documented model: after a task's fence is reached, `cudlaGetLastError`
//! tells whether it failed; any error except `cudlaErrorMemoryRegistered` marks the device
//! failed until it is re-initialised.
//!
//! The pointers cuDLA returns for imports never leave this module: a [`DlaPtr`] is a token
//! that the device which made it checks against its table of live imports before it hands
//! the pointer to cuDLA again (in a submission or at unregistering). A forged, stale or
//! foreign token is refused. Each import holds the buffer or semaphore it maps, so neither
//! can be freed while the DLA may still reach it.

use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{AtomicU32, Ordering};

use cudla_sys as cd;
use sha2::{Digest, Sha256};

use crate::engine::keep::Hold;
use crate::engine::nvsci::{BufObj, RawFence, SyncAttrList, SyncObj};
use crate::error::{Context, Error, Misuse, Result, Status, Table, TensorMismatch};
use crate::limits::{MAX_TENSORS, MAX_WAITS};
use crate::table::{LoadableDesc, TensorSpec};

pub(crate) fn check(call: &'static str, status: cd::cudlaStatus, context: Context) -> Result<()> {
    Status::Cudla(status.0).check(status == cd::cudlaSuccess, call, context)
}

/// Whether `image` hashes to `expected`.
pub fn hash_matches(image: &[u8], expected: &[u8; 32]) -> bool {
    Sha256::digest(image).as_slice() == expected
}

/// The image this platform's cuDLA loads for a network, with its manifest hash: the ONNX
/// model on `sil` and `rig`, the real loadable on `orin` (a network without one is
/// [`Error::NoRealLoadable`]).
pub fn image_for_platform(network: &LoadableDesc) -> Result<(&'static [u8], [u8; 32])> {
    image_for(network, cfg!(platform = "orin"))
}

/// The ONNX model (`real` false) or the real loadable of a network.
fn image_for(network: &LoadableDesc, real: bool) -> Result<(&'static [u8], [u8; 32])> {
    match (real, network.loadable) {
        (false, _) => Ok((network.onnx, network.onnx_sha256)),
        (true, Some(l)) => Ok((l.image, l.sha256)),
        (true, None) => Err(Error::NoRealLoadable {
            network: network.name,
        }),
    }
}

/// Which DLA semaphore attributes to ask cuDLA for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DlaSyncRole {
    /// The DLA waits on the semaphore.
    Waiter,
    /// The DLA signals it.
    Signaler,
}

/// Let cuDLA fill a list with its waiter or signaler attributes.
pub fn fill_sync_attributes(
    list: &mut SyncAttrList,
    role: DlaSyncRole,
    context: Context,
) -> Result<()> {
    let flag = match role {
        DlaSyncRole::Waiter => cd::CUDLA_NVSCISYNC_ATTR_WAIT,
        DlaSyncRole::Signaler => cd::CUDLA_NVSCISYNC_ATTR_SIGNAL,
    };
    // SAFETY: cuDLA takes the NvSciSyncAttrList handle cast to `uint64_t*` (as the samples do);
    // the list is live and unreconciled.
    let status = unsafe { cd::cudlaGetNvSciSyncAttributes(list.raw().cast(), flag.0) };
    check("cudlaGetNvSciSyncAttributes", status, context)
}

/// An imported buffer or semaphore: a token for the pointer cuDLA gave back, valid on the
/// device that made it while the import is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DlaPtr {
    raw: *mut u64,
    device: u32,
}

// SAFETY: the pointer is an opaque token owned by cuDLA; orin-exec never dereferences it.
unsafe impl Send for DlaPtr {}
// SAFETY: as above.
unsafe impl Sync for DlaPtr {}

impl DlaPtr {
    /// A token no device accepts (a placeholder in fixed-size tables).
    pub const NONE: DlaPtr = DlaPtr {
        raw: ptr::null_mut(),
        device: 0,
    };
}

/// Live imports per device handle: the semaphores and buffer copies its tasks use.
const MAX_IMPORTS: usize = crate::limits::MAX_DLA_IMPORTS;

/// Device ids for [`DlaPtr`] tokens; 0 is [`DlaPtr::NONE`]'s.
static NEXT_DEVICE_ID: AtomicU32 = AtomicU32::new(1);

/// What an import maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Imported {
    /// A buffer of this many bytes (a tensor).
    Memory { size: u64 },
    /// A semaphore (what a task signals).
    Semaphore,
}

/// One registered import: the pointer cuDLA gave back, what it maps, and the buffer or object
/// it maps (held so that it cannot be freed first).
#[derive(Debug)]
struct Import {
    raw: *mut u64,
    what: Imported,
    _source: Hold,
}

/// A descriptor for cuDLA to fill.
const EMPTY_DESCRIPTOR: cd::cudlaModuleTensorDescriptor = cd::cudlaModuleTensorDescriptor {
    name: [0; 81],
    size: 0,
    n: 0,
    c: 0,
    h: 0,
    w: 0,
    dataFormat: 0,
    dataType: 0,
    dataCategory: 0,
    pixelFormat: 0,
    pixelMapping: 0,
    stride: [0; 8],
};

/// The fences and tensors of one submission.
pub struct Submission<'a> {
    /// Imported input tensors, in the loadable's order.
    pub inputs: &'a [DlaPtr],
    /// Imported output tensors, in the loadable's order.
    pub outputs: &'a [DlaPtr],
    /// Pre-fences (already filled).
    pub waits: &'a mut [RawFence],
    /// The imported completion semaphore this task signals at its end.
    pub signal: DlaPtr,
    /// Storage for the EOF fence cuDLA writes.
    pub eof: &'a mut RawFence,
    /// An imported semaphore signalled when the task starts (its SOF fence, whose
    /// timestamp is the task's start), with storage for that fence.
    pub start: Option<(DlaPtr, &'a mut RawFence)>,
    /// Run as a no-op (the fences keep their meaning).
    pub noop: bool,
}

/// A standalone cuDLA device handle with one loaded module.
#[derive(Debug)]
pub struct DlaDevice {
    handle: cd::cudlaDevHandle,
    module: cd::cudlaModule,
    engine: &'static str,
    loadable: &'static str,
    failed: Option<Status>,
    /// Tags the tokens of this device's imports.
    id: u32,
    imports: heapless::Vec<Import, MAX_IMPORTS>,
    /// Bytes of each input and output tensor of the module: a submission binds buffers at
    /// least this large.
    input_sizes: heapless::Vec<u64, MAX_TENSORS>,
    output_sizes: heapless::Vec<u64, MAX_TENSORS>,
}

// SAFETY: cuDLA device handles may be used from any thread; orin-exec submits to, imports
// into and unregisters from one handle from one thread at a time (&mut self) and only
// queries through &self.
unsafe impl Send for DlaDevice {}
// SAFETY: the &self methods are thread-safe cuDLA queries.
unsafe impl Sync for DlaDevice {}

impl DlaDevice {
    /// Open DLA core `core` in standalone mode and load `loadable` after checking its hash.
    pub fn open(core: u8, engine: &'static str, loadable: &LoadableDesc) -> Result<Self> {
        let ctx = Context::Engine(engine);
        let (image, sha256) = image_for_platform(loadable)?;
        if !hash_matches(image, &sha256) {
            return Err(Error::HashMismatch {
                context: Context::Loadable(loadable.name),
            });
        }
        let mut handle = ptr::null_mut();
        // SAFETY: valid out-pointer; CUDLA_STANDALONE needs no CUDA context.
        let status =
            unsafe { cd::cudlaCreateDevice(core as u64, &mut handle, cd::CUDLA_STANDALONE.0) };
        check("cudlaCreateDevice", status, ctx)?;
        let mut module = ptr::null_mut();
        // SAFETY: live handle; the image is 'static and outlives the module.
        let status = unsafe {
            cd::cudlaModuleLoadFromMemory(
                handle,
                image.as_ptr(),
                image.len(),
                &mut module,
                cd::CUDLA_MODULE_DEFAULT.0,
            )
        };
        if let Err(e) = check(
            "cudlaModuleLoadFromMemory",
            status,
            Context::Loadable(loadable.name),
        ) {
            // SAFETY: the handle was created above and nothing is submitted on it.
            unsafe { cd::cudlaDestroyDevice(handle) };
            return Err(e);
        }
        let mut device = DlaDevice {
            handle,
            module,
            engine,
            loadable: loadable.name,
            failed: None,
            id: NEXT_DEVICE_ID.fetch_add(1, Ordering::Relaxed),
            imports: heapless::Vec::new(),
            input_sizes: heapless::Vec::new(),
            output_sizes: heapless::Vec::new(),
        };
        let sizes = device
            .tensor_sizes(
                cd::CUDLA_NUM_INPUT_TENSORS,
                cd::CUDLA_INPUT_TENSOR_DESCRIPTORS,
            )
            .and_then(|inputs| {
                let outputs = device.tensor_sizes(
                    cd::CUDLA_NUM_OUTPUT_TENSORS,
                    cd::CUDLA_OUTPUT_TENSOR_DESCRIPTORS,
                )?;
                Ok((inputs, outputs))
            });
        match sizes {
            Ok((inputs, outputs)) => {
                device.input_sizes = inputs;
                device.output_sizes = outputs;
                Ok(device)
            }
            Err(e) => {
                let _ = device.close();
                Err(e)
            }
        }
    }

    /// The byte sizes of the module's input or output tensors.
    fn tensor_sizes(
        &self,
        count_attr: cd::cudlaModuleAttributeType,
        desc_attr: cd::cudlaModuleAttributeType,
    ) -> Result<heapless::Vec<u64, MAX_TENSORS>> {
        let count = self.tensor_count(count_attr)?;
        let mut descs = [EMPTY_DESCRIPTOR; MAX_TENSORS];
        self.descriptors(desc_attr, count, &mut descs)?;
        Ok(descs.iter().take(count as usize).map(|d| d.size).collect())
    }

    fn tensor_count(&self, attr: cd::cudlaModuleAttributeType) -> Result<u32> {
        let mut value = cd::cudlaModuleAttribute { numInputTensors: 0 };
        // SAFETY: live module; the union is a valid out-parameter for the count attributes.
        let status = unsafe { cd::cudlaModuleGetAttributes(self.module, attr, &mut value) };
        check(
            "cudlaModuleGetAttributes",
            status,
            Context::Loadable(self.loadable),
        )?;
        // SAFETY: both count attributes are returned in the u32 member.
        Ok(unsafe { value.numInputTensors })
    }

    fn descriptors(
        &self,
        attr: cd::cudlaModuleAttributeType,
        count: u32,
        out: &mut [cd::cudlaModuleTensorDescriptor; MAX_TENSORS],
    ) -> Result<()> {
        if count as usize > MAX_TENSORS {
            return Err(Error::Capacity {
                table: Table::DlaTensors,
                limit: MAX_TENSORS as u32,
            });
        }
        // The caller allocates the array and passes it through the union (as the samples do).
        let value = cd::cudlaModuleAttribute {
            inputTensorDesc: out.as_mut_ptr(),
        };
        let mut value = value;
        // SAFETY: `out` holds MAX_TENSORS >= count descriptors for cuDLA to fill.
        let status = unsafe { cd::cudlaModuleGetAttributes(self.module, attr, &mut value) };
        check(
            "cudlaModuleGetAttributes",
            status,
            Context::Loadable(self.loadable),
        )
    }

    /// Check the module's tensors against the manifest and the bound buffer sizes
    /// (`bound[i]` = size of the buffer bound to tensor `i`, inputs then outputs).
    pub fn check_tensors(
        &self,
        desc: &LoadableDesc,
        bound_inputs: &[u64],
        bound_outputs: &[u64],
    ) -> Result<()> {
        for (count_attr, desc_attr, specs, bound) in [
            (
                cd::CUDLA_NUM_INPUT_TENSORS,
                cd::CUDLA_INPUT_TENSOR_DESCRIPTORS,
                desc.inputs,
                bound_inputs,
            ),
            (
                cd::CUDLA_NUM_OUTPUT_TENSORS,
                cd::CUDLA_OUTPUT_TENSOR_DESCRIPTORS,
                desc.outputs,
                bound_outputs,
            ),
        ] {
            let count = self.tensor_count(count_attr)?;
            let first = specs.first().map_or("(none)", |s| s.name);
            if count as usize != specs.len() || count as usize != bound.len() {
                return Err(Error::Tensor {
                    loadable: desc.name,
                    tensor: first,
                    mismatch: TensorMismatch::Count {
                        expected: count,
                        found: bound.len() as u32,
                    },
                });
            }
            let mut descs = [EMPTY_DESCRIPTOR; MAX_TENSORS];
            self.descriptors(desc_attr, count, &mut descs)?;
            for ((d, spec), &have) in descs.iter().zip(specs).zip(bound) {
                check_descriptor(desc.name, d, spec, have)?;
            }
        }
        Ok(())
    }

    fn room_for_import(&self) -> Result<()> {
        if self.imports.is_full() {
            return Err(Error::Capacity {
                table: Table::ImportsPerDlaDevice,
                limit: MAX_IMPORTS as u32,
            });
        }
        Ok(())
    }

    /// Record a registered import and give out its token.
    fn registered(&mut self, raw: *mut u64, what: Imported, source: Hold) -> DlaPtr {
        // Room was checked before the import; a full table cannot happen here.
        let _ = self.imports.push(Import {
            raw,
            what,
            _source: source,
        });
        DlaPtr {
            raw,
            device: self.id,
        }
    }

    /// The table index of a live import of this device, or an error for any other token.
    fn lookup(&self, p: DlaPtr) -> Result<usize> {
        if p.device == self.id
            && let Some(i) = self.imports.iter().position(|i| i.raw == p.raw)
        {
            return Ok(i);
        }
        Err(Error::Misuse {
            misuse: Misuse::NotALiveDlaImport,
            context: Context::Engine(self.engine),
        })
    }

    /// Check that `tensors` are live buffer imports at least as large as the module's
    /// tensors (`sizes`), one per tensor.
    fn check_bound(&self, tensors: &[DlaPtr], sizes: &[u64]) -> Result<()> {
        if tensors.len() != sizes.len() {
            return Err(Error::Tensor {
                loadable: self.loadable,
                tensor: "(count)",
                mismatch: TensorMismatch::Count {
                    expected: sizes.len() as u32,
                    found: tensors.len() as u32,
                },
            });
        }
        for (p, &need) in tensors.iter().zip(sizes) {
            match self.imports[self.lookup(*p)?].what {
                Imported::Memory { size } if size >= need => {}
                Imported::Memory { size } => {
                    return Err(Error::BufferTooSmall {
                        buffer: "DLA tensor",
                        need,
                        have: size,
                    });
                }
                Imported::Semaphore => {
                    return Err(Error::Misuse {
                        misuse: Misuse::SemaphoreAsTensor,
                        context: Context::Engine(self.engine),
                    });
                }
            }
        }
        Ok(())
    }

    /// Import a buffer. The import keeps the buffer allocated.
    ///
    /// The flags are `CUDLA_READ_WRITE_PERM` (0) for inputs too: cuDLA 1.2.1 documents
    /// the flags as reserved, to be 0, and later versions read 0 as read-write, so 0 is the
    /// one value every version accepts. Inputs stay read-only to the DLA because no task
    /// binds them as outputs (the schedule's access ledger, checked at init).
    pub fn import_memory(&mut self, buf: &BufObj, context: Context) -> Result<DlaPtr> {
        self.room_for_import()?;
        let desc = cd::cudlaExternalMemoryHandleDesc {
            extBufObject: buf.raw() as *const c_void,
            size: buf.size(),
        };
        let mut dev = ptr::null_mut();
        // SAFETY: live handle, a live NvSciBuf object and a valid out-pointer.
        let status = unsafe {
            cd::cudlaImportExternalMemory(self.handle, &desc, &mut dev, cd::CUDLA_READ_WRITE_PERM.0)
        };
        check("cudlaImportExternalMemory", status, context)?;
        let what = Imported::Memory { size: buf.size() };
        Ok(self.registered(dev, what, buf.hold()))
    }

    /// Import a semaphore (it must have deterministic fences). The import keeps the object
    /// allocated.
    pub fn import_semaphore(&mut self, obj: &SyncObj, context: Context) -> Result<DlaPtr> {
        self.room_for_import()?;
        let desc = cd::cudlaExternalSemaphoreHandleDesc {
            extSyncObject: obj.raw() as *const c_void,
        };
        let mut dev = ptr::null_mut();
        // SAFETY: live handle and object; valid out-pointer; flags must be 0.
        let status = unsafe { cd::cudlaImportExternalSemaphore(self.handle, &desc, &mut dev, 0) };
        check("cudlaImportExternalSemaphore", status, context)?;
        Ok(self.registered(dev, Imported::Semaphore, obj.hold()))
    }

    /// Whether `p` is a live import of this device.
    pub fn owns(&self, p: DlaPtr) -> bool {
        self.lookup(p).is_ok()
    }

    /// Release an imported buffer or semaphore (a token of another device, or one already
    /// released, is refused).
    pub fn unregister(&mut self, p: DlaPtr, context: Context) -> Result<()> {
        let i = self.lookup(p)?;
        // SAFETY: `p` is a live import on this handle (looked up in its table).
        let status = unsafe { cd::cudlaMemUnregister(self.handle, p.raw) };
        check("cudlaMemUnregister", status, context)?;
        // Unregistered: the buffer or object may go.
        self.imports.swap_remove(i);
        Ok(())
    }

    /// Submit one task. Never allocates. The tensors must be live buffer imports of this
    /// device, one per tensor of the module and at least as large, and the signal a live
    /// semaphore import.
    pub fn submit(&mut self, s: Submission<'_>) -> Result<()> {
        let context = Context::Engine(self.engine);
        self.check_bound(s.inputs, &self.input_sizes)?;
        self.check_bound(s.outputs, &self.output_sizes)?;
        let start_sem = s.start.as_ref().map(|(p, _)| *p);
        for p in core::iter::once(s.signal).chain(start_sem) {
            if self.imports[self.lookup(p)?].what != Imported::Semaphore {
                return Err(Error::Misuse {
                    misuse: Misuse::BufferAsSignal,
                    context: Context::Engine(self.engine),
                });
            }
        }
        let typed = |f: &mut RawFence, kind: cd::cudlaFenceType| cd::CudlaFence {
            fence: f.as_mut_ptr(),
            r#type: kind,
        };
        let fence = |f: &mut RawFence| typed(f, cd::CUDLA_NVSCISYNC_FENCE);
        let mut pre: heapless::Vec<cd::CudlaFence, MAX_WAITS> = heapless::Vec::new();
        for w in s.waits.iter_mut() {
            pre.push(fence(w)).map_err(|_| Error::Capacity {
                table: Table::DlaPreFences,
                limit: MAX_WAITS as u32,
            })?;
        }
        let wait_events = cd::cudlaWaitEvents {
            preFences: pre.as_ptr(),
            numEvents: pre.len() as u32,
        };
        // The EOF signal first, then the optional SOF one (cuDLA takes any number of
        // semaphores in one signal list, cudla.h 1.5 `cudlaSubmitTask`).
        let mut sems = [s.signal.raw, ptr::null_mut()];
        let unused = cd::CudlaFence {
            fence: ptr::null_mut(),
            r#type: cd::CUDLA_NVSCISYNC_FENCE,
        };
        let mut signals = [fence(s.eof), unused];
        let mut n_signals = 1;
        if let Some((p, f)) = s.start {
            sems[1] = p.raw;
            signals[1] = typed(f, cd::CUDLA_NVSCISYNC_FENCE_SOF);
            n_signals = 2;
        }
        let mut signal_events = cd::cudlaSignalEvents {
            devPtrs: sems.as_ptr(),
            eofFences: signals.as_mut_ptr(),
            numEvents: n_signals,
        };
        let mut inputs: heapless::Vec<*const u64, MAX_TENSORS> = heapless::Vec::new();
        let mut outputs: heapless::Vec<*mut u64, MAX_TENSORS> = heapless::Vec::new();
        for p in s.inputs {
            inputs.push(p.raw).map_err(|_| Error::Capacity {
                table: Table::DlaTensors,
                limit: MAX_TENSORS as u32,
            })?;
        }
        for p in s.outputs {
            outputs.push(p.raw).map_err(|_| Error::Capacity {
                table: Table::DlaTensors,
                limit: MAX_TENSORS as u32,
            })?;
        }
        let task = cd::cudlaTask {
            moduleHandle: self.module,
            outputTensor: outputs.as_ptr(),
            numOutputTensors: outputs.len() as u32,
            numInputTensors: inputs.len() as u32,
            inputTensor: inputs.as_ptr(),
            waitEvents: if pre.is_empty() {
                ptr::null()
            } else {
                &wait_events
            },
            signalEvents: &mut signal_events,
        };
        let flags = if s.noop { cd::CUDLA_SUBMIT_NOOP.0 } else { 0 };
        // SAFETY: every pointer in `task` refers to locals or runtime storage that outlive the
        // call; the tensors are live buffer imports of this handle at least as large as the
        // module's tensors, and the signal a live semaphore import (checked above); the
        // stream is NULL as standalone mode requires.
        let status = unsafe { cd::cudlaSubmitTask(self.handle, &task, 1, ptr::null_mut(), flags) };
        check("cudlaSubmitTask", status, context)
    }

    /// After a task's fence was reached: the device's asynchronous error, if any. Any error
    /// except `cudlaErrorMemoryRegistered` marks the device failed (sticky).
    pub fn poll_error(&mut self) -> Option<Status> {
        if let Some(s) = self.failed {
            return Some(s);
        }
        // SAFETY: live handle.
        let status = unsafe { cd::cudlaGetLastError(self.handle) };
        if status == cd::cudlaSuccess || status == cd::cudlaErrorMemoryRegistered {
            return None;
        }
        let s = Status::Cudla(status.0);
        self.failed = Some(s);
        Some(s)
    }

    /// The sticky failure, if the device failed.
    pub fn failure(&self) -> Option<Status> {
        self.failed
    }

    /// Unload the module and destroy the handle (after every submitted task completed).
    /// Imports still registered are unregistered first.
    pub fn close(mut self) -> Result<()> {
        let context = Context::Engine(self.engine);
        let mut left = Ok(());
        while let Some(import) = self.imports.pop() {
            // SAFETY: a live import of this handle, unregistered once (popped).
            let status = unsafe { cd::cudlaMemUnregister(self.handle, import.raw) };
            left = left.and(check("cudlaMemUnregister", status, context));
        }
        // SAFETY: the module was loaded on this handle; flags must be 0.
        let status = unsafe { cd::cudlaModuleUnload(self.module, 0) };
        let unload = check("cudlaModuleUnload", status, context);
        // SAFETY: the handle is destroyed once (self is consumed).
        let status = unsafe { cd::cudlaDestroyDevice(self.handle) };
        let destroy = check("cudlaDestroyDevice", status, context);
        left.and(unload).and(destroy)
    }
}

fn tensor_name(d: &cd::cudlaModuleTensorDescriptor) -> &[u8] {
    // SAFETY: `c_char` and `u8` have the same size and alignment; the array is initialised.
    let bytes: &[u8; 81] = unsafe { &*(&d.name as *const _ as *const [u8; 81]) };
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..len]
}

fn check_descriptor(
    loadable: &'static str,
    d: &cd::cudlaModuleTensorDescriptor,
    spec: &TensorSpec,
    bound: u64,
) -> Result<()> {
    let err = |mismatch| Error::Tensor {
        loadable,
        tensor: spec.name,
        mismatch,
    };
    if tensor_name(d) != spec.name.as_bytes() {
        return Err(err(TensorMismatch::Missing));
    }
    let dims = [d.n, d.c, d.h, d.w];
    if d.size != spec.size || dims != spec.dims.map(u64::from) {
        return Err(err(TensorMismatch::Shape));
    }
    if bound < d.size {
        return Err(err(TensorMismatch::Size {
            expected: d.size,
            found: bound,
        }));
    }
    Ok(())
}

#[cfg(any(platform = "sil", platform = "rig"))]
impl DlaDevice {
    /// SIL only: inject a fault into this device's next task(s).
    pub fn inject_fault(&self, fault: &crate::engine::platform::dla_sil::Fault) -> Result<()> {
        // SAFETY: live handle and a valid fault description.
        let status = unsafe { cd::sil::cudlaSilInjectFault(self.handle, fault) };
        check("cudlaSilInjectFault", status, Context::Engine(self.engine))
    }

    /// SIL only: set this device's execution-time model.
    pub fn set_timing_model(
        &self,
        model: &crate::engine::platform::dla_sil::TimingModel,
    ) -> Result<()> {
        let c = model.to_c();
        // SAFETY: live handle; `c` points at `numBins` entries of each of `model`'s bin
        // arrays (or at none), and `model` is borrowed for the whole call.
        let status = unsafe { cd::sil::cudlaSilSetTimingModel(self.handle, &c) };
        check(
            "cudlaSilSetTimingModel",
            status,
            Context::Engine(self.engine),
        )
    }
}

/// Covers: REQ-API-004
#[cfg(all(test, any(platform = "sil", platform = "rig")))]
mod tests {
    use super::*;
    use crate::engine::nvsci::{BufModule, BufSpec};
    use crate::table::BufferKind;

    static IMAGE: &[u8] = include_bytes!("../../loadables/aeb_detector.onnx");

    /// The committed AEB network (its tensors are not checked here).
    fn loadable() -> LoadableDesc {
        LoadableDesc {
            name: "aeb_detector",
            onnx_sha256: Sha256::digest(IMAGE).into(),
            onnx: IMAGE,
            loadable: None,
            inputs: &[],
            outputs: &[],
        }
    }

    /// The ONNX model on `sil`/`rig`, the real loadable on `orin`, and a typed error that
    /// says how to build one when a network has none.
    ///
    /// Covers: REQ-LDB-010
    #[test]
    fn the_platform_picks_the_image() {
        let net = loadable();
        assert_eq!(image_for(&net, false).unwrap().0.as_ptr(), IMAGE.as_ptr());
        let e = image_for(&net, true).unwrap_err();
        assert_eq!(
            e,
            Error::NoRealLoadable {
                network: "aeb_detector"
            }
        );
        let text = std::format!("{e}");
        assert!(
            text.contains("build_real_loadable.sh") && text.contains("aeb_detector"),
            "{text}"
        );
        static REAL: &[u8] = b"a real loadable";
        let with_real = LoadableDesc {
            loadable: Some(crate::table::RealLoadable {
                sha256: Sha256::digest(REAL).into(),
                image: REAL,
            }),
            ..net
        };
        let (image, sha) = image_for(&with_real, true).unwrap();
        assert_eq!(image, REAL);
        assert!(hash_matches(image, &sha));
        // sil and rig load the ONNX model even when a real loadable is registered.
        assert_eq!(image_for_platform(&with_real).unwrap().0, IMAGE);
    }

    #[test]
    fn tokens_work_only_on_their_device_while_registered() {
        let desc = loadable();
        let mut dla = DlaDevice::open(0, "dla0", &desc).unwrap();
        let mut other = DlaDevice::open(1, "dla1", &desc).unwrap();
        let buffers = BufModule::open().unwrap();
        let spec = BufSpec {
            kind: BufferKind::Raw {
                size: 4096,
                align: 256,
            },
            cpu_access: false,
            as_tensor: false,
            gpu_uuid: None,
            pva: false,
        };
        let ctx = Context::Buffer("b");
        let buf = BufObj::alloc(&buffers, &spec, ctx).unwrap();
        let p = dla.import_memory(&buf, ctx).unwrap();
        let small_spec = BufSpec {
            kind: BufferKind::Raw {
                size: 256,
                align: 256,
            },
            ..spec
        };
        let small_buf = BufObj::alloc(&buffers, &small_spec, ctx).unwrap();
        let small = dla.import_memory(&small_buf, ctx).unwrap();
        // Forged, foreign, mistyped, too small and (below) stale tokens are refused before
        // cuDLA sees them. The loadable has one input (3072 bytes) and two outputs.
        let mut eof = RawFence::cleared();
        let mut submit = |inputs: &[DlaPtr], signal| {
            dla.submit(Submission {
                inputs,
                outputs: &[p, p],
                waits: &mut [],
                signal,
                eof: &mut eof,
                start: None,
                noop: true,
            })
        };
        assert!(matches!(
            submit(&[DlaPtr::NONE], p),
            Err(Error::Misuse {
                misuse: Misuse::NotALiveDlaImport,
                ..
            })
        ));
        assert!(matches!(
            submit(&[small], p),
            Err(Error::BufferTooSmall { need: 3072, .. })
        ));
        assert!(matches!(submit(&[p, p], p), Err(Error::Tensor { .. })));
        // A buffer import as the signal.
        assert!(matches!(
            submit(&[p], p),
            Err(Error::Misuse {
                misuse: Misuse::BufferAsSignal,
                ..
            })
        ));
        assert!(other.unregister(p, ctx).is_err());
        dla.unregister(small, ctx).unwrap();
        small_buf.free().unwrap();
        // The import holds the buffer.
        let buf = match buf.free() {
            Err(Error::Shutdown { .. }) => BufObj::alloc(&buffers, &spec, ctx).unwrap(),
            other => panic!("freed under a DLA import: {other:?}"),
        };
        dla.unregister(p, ctx).unwrap();
        assert!(matches!(
            dla.unregister(p, ctx),
            Err(Error::Misuse {
                misuse: Misuse::NotALiveDlaImport,
                ..
            })
        ));
        buf.free().unwrap();
        dla.close().unwrap();
        other.close().unwrap();
    }
}
