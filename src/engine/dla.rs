//! The DLA engine: cuDLA in standalone mode.
//!
//! One device handle per (DLA core, loadable), because cuDLA allows one loadable per handle.
//! Loadables are checked against their manifest hash before cuDLA sees them; their tensor
//! descriptors are checked against the buffers the schedule binds. Buffers and semaphores are
//! imported from NvSciBuf/NvSciSync; submissions use the NULL stream and deterministic fences.
//! Errors follow the documented model: after a task's fence is reached, `cudlaGetLastError`
//! tells whether it failed; any error except `cudlaErrorMemoryRegistered` marks the device
//! failed until it is re-initialised.

use core::ffi::c_void;
use core::ptr;

use cudla_sys as cd;
use sha2::{Digest, Sha256};

use crate::engine::nvsci::{BufObj, RawFence, SyncAttrList, SyncObj};
use crate::error::{Context, Error, Result, Status, TensorMismatch};
use crate::limits::{MAX_TENSORS, MAX_WAITS};
use crate::table::{LoadableDesc, TensorSpec};

pub(crate) fn check(call: &'static str, status: cd::cudlaStatus, context: Context) -> Result<()> {
    Status::Cudla(status.0).check(status == cd::cudlaSuccess, call, context)
}

/// Whether `image` hashes to `expected`.
pub fn hash_matches(image: &[u8], expected: &[u8; 32]) -> bool {
    Sha256::digest(image).as_slice() == expected
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

/// An imported buffer or semaphore: the pointer cuDLA gave back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DlaPtr(pub(crate) *mut u64);

// SAFETY: the pointer is an opaque token owned by cuDLA; orin-exec never dereferences it.
unsafe impl Send for DlaPtr {}
// SAFETY: as above.
unsafe impl Sync for DlaPtr {}

/// The fences and tensors of one submission.
pub struct Submission<'a> {
    /// Imported input tensors, in the loadable's order.
    pub inputs: &'a [DlaPtr],
    /// Imported output tensors, in the loadable's order.
    pub outputs: &'a [DlaPtr],
    /// Pre-fences (already filled).
    pub waits: &'a mut [RawFence],
    /// The imported completion semaphore this task signals.
    pub signal: DlaPtr,
    /// Storage for the EOF fence cuDLA writes.
    pub eof: &'a mut RawFence,
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
}

// SAFETY: cuDLA device handles may be used from any thread; orin-exec submits to one handle
// from one thread at a time (&mut self) and only queries errors through &self.
unsafe impl Send for DlaDevice {}
// SAFETY: the &self methods are thread-safe cuDLA queries.
unsafe impl Sync for DlaDevice {}

impl DlaDevice {
    /// Open DLA core `core` in standalone mode and load `loadable` after checking its hash.
    pub fn open(core: u8, engine: &'static str, loadable: &LoadableDesc) -> Result<Self> {
        let ctx = Context::Engine(engine);
        if !hash_matches(loadable.image, &loadable.sha256) {
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
                loadable.image.as_ptr(),
                loadable.image.len(),
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
        Ok(DlaDevice {
            handle,
            module,
            engine,
            loadable: loadable.name,
            failed: None,
        })
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
                what: "tensors per loadable",
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
        let zero = cd::cudlaModuleTensorDescriptor {
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
            let mut descs = [zero; MAX_TENSORS];
            self.descriptors(desc_attr, count, &mut descs)?;
            for ((d, spec), &have) in descs.iter().zip(specs).zip(bound) {
                check_descriptor(desc.name, d, spec, have)?;
            }
        }
        Ok(())
    }

    /// Import a buffer; `read_only` for inputs.
    pub fn import_memory(&self, buf: &BufObj, read_only: bool, context: Context) -> Result<DlaPtr> {
        let desc = cd::cudlaExternalMemoryHandleDesc {
            extBufObject: buf.raw() as *const c_void,
            size: buf.size(),
        };
        let flags = if read_only {
            cd::CUDLA_READ_ONLY_PERM
        } else {
            cd::CUDLA_READ_WRITE_PERM
        };
        let mut dev = ptr::null_mut();
        // SAFETY: live handle, a live NvSciBuf object and a valid out-pointer.
        let status =
            unsafe { cd::cudlaImportExternalMemory(self.handle, &desc, &mut dev, flags.0) };
        check("cudlaImportExternalMemory", status, context)?;
        Ok(DlaPtr(dev))
    }

    /// Import a semaphore (it must have deterministic fences).
    pub fn import_semaphore(&self, obj: &SyncObj, context: Context) -> Result<DlaPtr> {
        let desc = cd::cudlaExternalSemaphoreHandleDesc {
            extSyncObject: obj.raw() as *const c_void,
        };
        let mut dev = ptr::null_mut();
        // SAFETY: live handle and object; valid out-pointer; flags must be 0.
        let status = unsafe { cd::cudlaImportExternalSemaphore(self.handle, &desc, &mut dev, 0) };
        check("cudlaImportExternalSemaphore", status, context)?;
        Ok(DlaPtr(dev))
    }

    /// Release an imported buffer or semaphore.
    pub fn unregister(&self, p: DlaPtr, context: Context) -> Result<()> {
        // SAFETY: `p` was returned by an import on this handle.
        let status = unsafe { cd::cudlaMemUnregister(self.handle, p.0) };
        check("cudlaMemUnregister", status, context)
    }

    /// Submit one task. Never allocates.
    pub fn submit(&mut self, s: Submission<'_>) -> Result<()> {
        let context = Context::Engine(self.engine);
        let fence = |f: &mut RawFence| cd::CudlaFence {
            fence: f.as_mut_ptr(),
            r#type: cd::CUDLA_NVSCISYNC_FENCE,
        };
        let mut pre: heapless::Vec<cd::CudlaFence, MAX_WAITS> = heapless::Vec::new();
        for w in s.waits.iter_mut() {
            pre.push(fence(w)).map_err(|_| Error::Capacity {
                what: "DLA pre-fences",
                limit: MAX_WAITS as u32,
            })?;
        }
        let wait_events = cd::cudlaWaitEvents {
            preFences: pre.as_ptr(),
            numEvents: pre.len() as u32,
        };
        let sem = [s.signal.0];
        let mut eof = [fence(s.eof)];
        let mut signal_events = cd::cudlaSignalEvents {
            devPtrs: sem.as_ptr(),
            eofFences: eof.as_mut_ptr(),
            numEvents: 1,
        };
        let mut inputs: heapless::Vec<*const u64, MAX_TENSORS> = heapless::Vec::new();
        let mut outputs: heapless::Vec<*mut u64, MAX_TENSORS> = heapless::Vec::new();
        for p in s.inputs {
            inputs.push(p.0).map_err(|_| Error::Capacity {
                what: "DLA tensors",
                limit: MAX_TENSORS as u32,
            })?;
        }
        for p in s.outputs {
            outputs.push(p.0).map_err(|_| Error::Capacity {
                what: "DLA tensors",
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
        // call; the stream is NULL as standalone mode requires.
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

    /// Unload the module and destroy the handle (after every import was released and every
    /// submitted task completed).
    pub fn close(self) -> Result<()> {
        let context = Context::Engine(self.engine);
        // SAFETY: the module was loaded on this handle; flags must be 0.
        let status = unsafe { cd::cudlaModuleUnload(self.module, 0) };
        let unload = check("cudlaModuleUnload", status, context);
        // SAFETY: the handle is destroyed once (self is consumed).
        let status = unsafe { cd::cudlaDestroyDevice(self.handle) };
        let destroy = check("cudlaDestroyDevice", status, context);
        unload.and(destroy)
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
        // SAFETY: live handle and a valid model whose bin arrays outlive the call.
        let status = unsafe { cd::sil::cudlaSilSetTimingModel(self.handle, model) };
        check(
            "cudlaSilSetTimingModel",
            status,
            Context::Engine(self.engine),
        )
    }
}
