//! The GPU engine: the CUDA driver API (the real driver on `rig` and `orin`, SIL CUDA on `sil`).
//!
//! GPU code comes only from cubins: each image is hash-checked against its manifest entry and
//! checked by [`cubin_check`] (ELF, CUDA machine, the device's SM, no PTX) before
//! `cuModuleLoadData` sees it. Every module is loaded and every kernel is warmed up at init.
//! Launches go to non-blocking streams with parameter blocks prepared at init.
//!
//! Synchronisation with the other engines:
//! * `sil` and `orin`: NvSciSync objects imported as external semaphores
//!   (`cuWaitExternalSemaphoresAsync` / `cuSignalExternalSemaphoresAsync`), NvSciBuf buffers
//!   as external memory;
//! * `rig` (a discrete GPU next to the SIL NvSci libraries): the semaphore's 64-bit counter,
//!   host-registered and mapped, with `cuStreamWaitValue64` / `cuStreamWriteValue64`; buffers
//!   are host-registered.

use core::ffi::{c_char, c_void};
use core::ptr;

use cuda_sys as cu;

use crate::engine::dla::hash_matches;
use crate::engine::nvsci::{BufObj, RawFence, SyncAttrList, SyncObj};
use crate::error::{Context, Error, Result, Status};
use crate::limits::MAX_PARAMS;
use crate::table::CubinDesc;

pub(crate) fn check(call: &'static str, status: cu::CUresult, context: Context) -> Result<()> {
    Status::Cuda(status.0).check(status == cu::CUDA_SUCCESS, call, context)
}

/// The device, its primary context and its facts.
#[derive(Debug)]
pub struct Gpu {
    device: cu::CUdevice,
    context: cu::CUcontext,
    sm: u32,
    uuid: [u8; 16],
    driver_version: i32,
}

// SAFETY: the primary context may be made current on any thread (`make_current`).
unsafe impl Send for Gpu {}
// SAFETY: the &self methods only read plain data or bind the context to the calling thread.
unsafe impl Sync for Gpu {}

impl Gpu {
    /// Initialise the driver, open device `ordinal` and make its primary context current.
    pub fn open(ordinal: i32) -> Result<Self> {
        let ctx = Context::Platform;
        // SAFETY: plain driver calls with valid out-pointers.
        unsafe {
            check("cuInit", cu::cuInit(0), ctx)?;
            let mut driver_version = 0;
            check(
                "cuDriverGetVersion",
                cu::cuDriverGetVersion(&mut driver_version),
                ctx,
            )?;
            let mut device = 0;
            check("cuDeviceGet", cu::cuDeviceGet(&mut device, ordinal), ctx)?;
            let (mut major, mut minor) = (0, 0);
            check(
                "cuDeviceGetAttribute",
                cu::cuDeviceGetAttribute(
                    &mut major,
                    cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                    device,
                ),
                ctx,
            )?;
            check(
                "cuDeviceGetAttribute",
                cu::cuDeviceGetAttribute(
                    &mut minor,
                    cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                    device,
                ),
                ctx,
            )?;
            let mut uuid = cu::CUuuid { bytes: [0; 16] };
            check(
                "cuDeviceGetUuid",
                cu::cuDeviceGetUuid(&mut uuid, device),
                ctx,
            )?;
            let mut context = ptr::null_mut();
            check(
                "cuDevicePrimaryCtxRetain",
                cu::cuDevicePrimaryCtxRetain(&mut context, device),
                ctx,
            )?;
            let gpu = Gpu {
                device,
                context,
                sm: (major * 10 + minor) as u32,
                uuid: uuid.bytes.map(|b| b as u8),
                driver_version,
            };
            gpu.make_current()?;
            Ok(gpu)
        }
    }

    /// Bind the primary context to the calling thread.
    pub fn make_current(&self) -> Result<()> {
        // SAFETY: the context is retained for the life of `self`.
        let status = unsafe { cu::cuCtxSetCurrent(self.context) };
        check("cuCtxSetCurrent", status, Context::Platform)
    }

    /// The device's SM, e.g. 87 for Orin, 90 for H100/H200.
    pub fn sm(&self) -> u32 {
        self.sm
    }

    /// The device UUID (NvSciBuf `GpuId`).
    pub fn uuid(&self) -> [u8; 16] {
        self.uuid
    }

    /// The driver version (e.g. 13000).
    pub fn driver_version(&self) -> i32 {
        self.driver_version
    }

    /// The device name, NUL-padded.
    pub fn name(&self) -> [u8; 64] {
        let mut name = [0 as c_char; 64];
        // SAFETY: the buffer holds 64 bytes; the driver NUL-terminates within `len`.
        let _ = unsafe { cu::cuDeviceGetName(name.as_mut_ptr(), 64, self.device) };
        name.map(|c| c as u8)
    }

    /// Let CUDA fill a list with its waiter or signaler attributes (`sil`, `orin`).
    pub fn fill_sync_attributes(
        &self,
        list: &mut SyncAttrList,
        signal: bool,
        context: Context,
    ) -> Result<()> {
        let flags = if signal {
            cu::CUDA_NVSCISYNC_ATTR_SIGNAL
        } else {
            cu::CUDA_NVSCISYNC_ATTR_WAIT
        };
        // SAFETY: a live unreconciled list handle passed as `void*`, as the API documents.
        let status =
            unsafe { cu::cuDeviceGetNvSciSyncAttributes(list.raw().cast(), self.device, flags) };
        check("cuDeviceGetNvSciSyncAttributes", status, context)
    }

    /// Wait until all work of the context is done.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: plain driver call on the current context.
        let status = unsafe { cu::cuCtxSynchronize() };
        check("cuCtxSynchronize", status, Context::Platform)
    }

    /// Release the primary context.
    pub fn close(self) -> Result<()> {
        // SAFETY: retained in `open`, released once (self is consumed).
        let status = unsafe { cu::cuDevicePrimaryCtxRelease_v2(self.device) };
        check("cuDevicePrimaryCtxRelease", status, Context::Platform)
    }
}

/// A loaded GPU module.
#[derive(Debug)]
pub struct GpuModule {
    raw: cu::CUmodule,
    name: &'static str,
}

// SAFETY: module handles are usable from any thread with the context current.
unsafe impl Send for GpuModule {}
// SAFETY: as above.
unsafe impl Sync for GpuModule {}

impl GpuModule {
    /// Pick the variant for `sm`, check its hash and that it is a PTX-free cubin for `sm`,
    /// then load it.
    pub fn load(desc: &CubinDesc, sm: u32) -> Result<Self> {
        let variant = desc
            .variants
            .iter()
            .find(|v| v.sm == sm)
            .ok_or(Error::NoCubinForSm {
                module: desc.name,
                sm,
            })?;
        Self::load_image(desc.name, sm, &variant.sha256, variant.image)
    }

    /// Check `image` (hash, ELF cubin for `sm`, no PTX), then load it.
    pub fn load_image(
        name: &'static str,
        sm: u32,
        sha256: &[u8; 32],
        image: &'static [u8],
    ) -> Result<Self> {
        if !hash_matches(image, sha256) {
            return Err(Error::HashMismatch {
                context: Context::Cubin(name),
            });
        }
        cubin_check::check_cubin(image, sm).map_err(|cause| Error::Cubin {
            module: name,
            cause,
        })?;
        let mut raw = ptr::null_mut();
        // SAFETY: the image is a checked, 'static ELF cubin; valid out-pointer.
        let status = unsafe { cu::cuModuleLoadData(&mut raw, image.as_ptr().cast()) };
        check("cuModuleLoadData", status, Context::Cubin(name))?;
        Ok(GpuModule { raw, name })
    }

    /// Look up a kernel by its entry name.
    pub fn function(&self, kernel: &'static str, context: Context) -> Result<Function> {
        let mut name = [0u8; 128];
        if kernel.len() >= name.len() {
            return Err(Error::Capacity {
                what: "bytes in a kernel name",
                limit: 127,
            });
        }
        name[..kernel.len()].copy_from_slice(kernel.as_bytes());
        let mut raw = ptr::null_mut();
        // SAFETY: live module; `name` is NUL-terminated; valid out-pointer.
        let status = unsafe { cu::cuModuleGetFunction(&mut raw, self.raw, name.as_ptr().cast()) };
        check("cuModuleGetFunction", status, context)?;
        Ok(Function { raw })
    }

    /// Unload the module.
    pub fn unload(self) -> Result<()> {
        // SAFETY: loaded in `load`, unloaded once.
        let status = unsafe { cu::cuModuleUnload(self.raw) };
        check("cuModuleUnload", status, Context::Cubin(self.name))
    }
}

/// A kernel handle.
#[derive(Clone, Copy, Debug)]
pub struct Function {
    raw: cu::CUfunction,
}

// SAFETY: function handles are immutable driver objects.
unsafe impl Send for Function {}
// SAFETY: as above.
unsafe impl Sync for Function {}

/// A kernel's parameter values, prepared at init. Each value is stored in a 64-bit slot; the
/// driver reads as many bytes from a slot as the kernel's parameter has (little-endian).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParamBlock {
    values: [u64; MAX_PARAMS],
    len: usize,
}

impl ParamBlock {
    /// An empty block.
    pub const fn new() -> Self {
        ParamBlock {
            values: [0; MAX_PARAMS],
            len: 0,
        }
    }

    /// Append a parameter value.
    pub fn push(&mut self, value: u64) -> Result<()> {
        let slot = self.values.get_mut(self.len).ok_or(Error::Capacity {
            what: "kernel parameters",
            limit: MAX_PARAMS as u32,
        })?;
        *slot = value;
        self.len += 1;
        Ok(())
    }
}

/// How a stream reaches a semaphore.
#[derive(Debug)]
pub enum GpuSemaphore {
    /// Imported NvSciSync object (`sil`, `orin`).
    External(cu::CUexternalSemaphore),
    /// Mapped counter (`rig`): device address of the host-registered 64-bit counter.
    Counter {
        /// Device address.
        device_addr: u64,
        /// Host address (for unregistering).
        host: *mut c_void,
    },
}

// SAFETY: driver handles / addresses usable from any thread with the context current.
unsafe impl Send for GpuSemaphore {}
// SAFETY: as above.
unsafe impl Sync for GpuSemaphore {}

impl GpuSemaphore {
    /// Import an NvSciSync object (`sil`, `orin`).
    pub fn import(obj: &SyncObj, context: Context) -> Result<Self> {
        let desc = cu::CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
            r#type: cu::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC,
            handle: cu::CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle {
                nvSciSyncObj: obj.raw() as *const c_void,
            },
            flags: 0,
            reserved: [0; 16],
        };
        let mut raw = ptr::null_mut();
        // SAFETY: valid descriptor for a live object; valid out-pointer.
        let status = unsafe { cu::cuImportExternalSemaphore(&mut raw, &desc) };
        check("cuImportExternalSemaphore", status, context)?;
        Ok(GpuSemaphore::External(raw))
    }

    /// Map the SIL semaphore's counter into the GPU (`rig`; it sits alone in its page).
    pub fn map_counter(obj: &SyncObj, context: Context) -> Result<Self> {
        let host = crate::engine::platform::sil_counter(obj, context)?.cast::<c_void>();
        // SAFETY: the counter lives in its own page for the life of the semaphore object,
        // which outlives this registration (released before the object is freed).
        unsafe {
            check(
                "cuMemHostRegister",
                cu::cuMemHostRegister_v2(
                    host,
                    size_of::<u64>(),
                    cu::CU_MEMHOSTREGISTER_DEVICEMAP | cu::CU_MEMHOSTREGISTER_PORTABLE,
                ),
                context,
            )?;
            let mut device_addr = 0;
            check(
                "cuMemHostGetDevicePointer",
                cu::cuMemHostGetDevicePointer_v2(&mut device_addr, host, 0),
                context,
            )?;
            Ok(GpuSemaphore::Counter { device_addr, host })
        }
    }

    /// Release the import or mapping.
    pub fn release(self, context: Context) -> Result<()> {
        match self {
            // SAFETY: imported in `import`, destroyed once.
            GpuSemaphore::External(raw) => check(
                "cuDestroyExternalSemaphore",
                unsafe { cu::cuDestroyExternalSemaphore(raw) },
                context,
            ),
            // SAFETY: registered in `map_counter`, unregistered once.
            GpuSemaphore::Counter { host, .. } => check(
                "cuMemHostUnregister",
                unsafe { cu::cuMemHostUnregister(host) },
                context,
            ),
        }
    }
}

/// GPU access to a buffer.
#[derive(Debug)]
pub enum GpuMemory {
    /// NvSciBuf imported as external memory (`sil`, `orin`).
    External {
        /// The import.
        raw: cu::CUexternalMemory,
        /// The mapped device address.
        device_addr: u64,
    },
    /// Host memory registered with the GPU (`rig`).
    Registered {
        /// Host address.
        host: *mut c_void,
        /// Device address.
        device_addr: u64,
    },
    /// Pinned host memory from `cuMemHostAlloc`.
    Pinned {
        /// Host address.
        host: *mut u8,
        /// Length in bytes.
        len: usize,
        /// Device address.
        device_addr: u64,
    },
}

// SAFETY: driver handles and addresses; host memory is only touched through checked views.
unsafe impl Send for GpuMemory {}
// SAFETY: as above.
unsafe impl Sync for GpuMemory {}

impl GpuMemory {
    /// Import an NvSciBuf buffer (`sil`, `orin`).
    pub fn import(buf: &BufObj, context: Context) -> Result<Self> {
        let desc = cu::CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
            r#type: cu::CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF,
            handle: cu::CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle {
                nvSciBufObject: buf.raw() as *const c_void,
            },
            size: buf.size(),
            flags: 0,
            reserved: [0; 16],
        };
        let mut raw = ptr::null_mut();
        // SAFETY: valid descriptor for a live buffer; valid out-pointer.
        let status = unsafe { cu::cuImportExternalMemory(&mut raw, &desc) };
        check("cuImportExternalMemory", status, context)?;
        let map = cu::CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
            offset: 0,
            size: buf.size(),
            flags: 0,
            reserved: [0; 16],
        };
        let mut device_addr = 0;
        // SAFETY: live import, range within the buffer, valid out-pointer.
        let status = unsafe { cu::cuExternalMemoryGetMappedBuffer(&mut device_addr, raw, &map) };
        if let Err(e) = check("cuExternalMemoryGetMappedBuffer", status, context) {
            // SAFETY: imported above; destroyed once on this error path.
            unsafe { cu::cuDestroyExternalMemory(raw) };
            return Err(e);
        }
        Ok(GpuMemory::External { raw, device_addr })
    }

    /// Register a SIL buffer's memory with the GPU (`rig`). SIL buffers are page-aligned
    /// and padded to whole pages, so no two registrations share a page.
    pub fn register(buf: &BufObj, context: Context) -> Result<Self> {
        let (host, len) = crate::engine::platform::sil_buffer_memory(buf, context)?;
        // SAFETY: the buffer's memory stays allocated until it is freed, after `release`.
        unsafe {
            check(
                "cuMemHostRegister",
                cu::cuMemHostRegister_v2(
                    host,
                    len as usize,
                    cu::CU_MEMHOSTREGISTER_DEVICEMAP | cu::CU_MEMHOSTREGISTER_PORTABLE,
                ),
                context,
            )?;
            let mut device_addr = 0;
            check(
                "cuMemHostGetDevicePointer",
                cu::cuMemHostGetDevicePointer_v2(&mut device_addr, host, 0),
                context,
            )?;
            Ok(GpuMemory::Registered { host, device_addr })
        }
    }

    /// Allocate pinned, device-mapped host memory, zero-filled.
    pub fn pinned(len: u64, context: Context) -> Result<Self> {
        let mut host = ptr::null_mut();
        // SAFETY: valid out-pointers; the memory is freed in `release`.
        unsafe {
            check(
                "cuMemHostAlloc",
                cu::cuMemHostAlloc(
                    &mut host,
                    len as usize,
                    cu::CU_MEMHOSTALLOC_DEVICEMAP | cu::CU_MEMHOSTALLOC_PORTABLE,
                ),
                context,
            )?;
            ptr::write_bytes(host.cast::<u8>(), 0, len as usize);
            let mut device_addr = 0;
            if let Err(e) = check(
                "cuMemHostGetDevicePointer",
                cu::cuMemHostGetDevicePointer_v2(&mut device_addr, host, 0),
                context,
            ) {
                cu::cuMemFreeHost(host);
                return Err(e);
            }
            Ok(GpuMemory::Pinned {
                host: host.cast(),
                len: len as usize,
                device_addr,
            })
        }
    }

    /// The device address.
    pub fn device_addr(&self) -> u64 {
        match *self {
            GpuMemory::External { device_addr, .. }
            | GpuMemory::Registered { device_addr, .. }
            | GpuMemory::Pinned { device_addr, .. } => device_addr,
        }
    }

    /// Read the `index`-th u64 of pinned memory that the GPU writes (timer stamps).
    pub fn read_u64(&self, index: usize) -> Option<u64> {
        let GpuMemory::Pinned { host, len, .. } = *self else {
            return None;
        };
        if (index + 1) * 8 > len {
            return None;
        }
        // SAFETY: in bounds (checked), 8-aligned (page-aligned allocation, index·8), and the
        // allocation lives as long as `self`; a volatile read because the GPU writes it.
        Some(unsafe { core::ptr::read_volatile(host.cast::<u64>().add(index)) })
    }

    /// Copy `src` into pinned memory at `offset` (for tests and tools: no GPU work may be
    /// using the range, or it reads a mix of old and new bytes).
    pub fn write_bytes(&self, offset: usize, src: &[u8]) -> Result<()> {
        let (host, _) = self.pinned_range(offset, src.len())?;
        // SAFETY: the range lies inside the live allocation (checked); no Rust reference to
        // pinned memory exists, so `src` cannot overlap it.
        unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), host.add(offset), src.len()) };
        Ok(())
    }

    /// Copy pinned memory at `offset` into `dst` (after the GPU work writing it finished).
    pub fn read_bytes(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        let (host, _) = self.pinned_range(offset, dst.len())?;
        // SAFETY: as in `write_bytes`.
        unsafe { core::ptr::copy_nonoverlapping(host.add(offset), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn pinned_range(&self, offset: usize, n: usize) -> Result<(*mut u8, usize)> {
        let GpuMemory::Pinned { host, len, .. } = *self else {
            return Err(Error::Platform {
                what: "not pinned host memory",
            });
        };
        if offset.checked_add(n).is_none_or(|end| end > len) {
            return Err(Error::BufferTooSmall {
                buffer: "pinned memory",
                need: (offset + n) as u64,
                have: len as u64,
            });
        }
        Ok((host, len))
    }

    /// Host address of pinned memory.
    pub fn pinned_host(&self) -> Option<*mut u8> {
        match *self {
            GpuMemory::Pinned { host, .. } => Some(host),
            _ => None,
        }
    }

    /// Release the import, registration or allocation.
    pub fn release(self, context: Context) -> Result<()> {
        match self {
            GpuMemory::External { raw, device_addr } => {
                // SAFETY: the mapping and the import were made in `import`; released once.
                let status = unsafe { cu::cuMemFree_v2(device_addr) };
                let unmap = check("cuMemFree", status, context);
                // SAFETY: as above.
                let status = unsafe { cu::cuDestroyExternalMemory(raw) };
                let destroy = check("cuDestroyExternalMemory", status, context);
                unmap.and(destroy)
            }
            // SAFETY: registered in `register`; unregistered once.
            GpuMemory::Registered { host, .. } => check(
                "cuMemHostUnregister",
                unsafe { cu::cuMemHostUnregister(host) },
                context,
            ),
            // SAFETY: allocated in `pinned`; freed once.
            GpuMemory::Pinned { host, .. } => check(
                "cuMemFreeHost",
                unsafe { cu::cuMemFreeHost(host.cast()) },
                context,
            ),
        }
    }
}

/// A non-blocking stream (the default stream is never used).
#[derive(Debug)]
pub struct Stream {
    raw: cu::CUstream,
    engine: &'static str,
}

// SAFETY: stream handles are usable from any thread with the context current; orin-exec
// enqueues on a stream from one thread.
unsafe impl Send for Stream {}
// SAFETY: the &self methods are thread-safe driver calls.
unsafe impl Sync for Stream {}

impl Stream {
    /// Create a non-blocking stream.
    pub fn create(engine: &'static str) -> Result<Self> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer.
        let status = unsafe { cu::cuStreamCreate(&mut raw, cu::CU_STREAM_NON_BLOCKING.0) };
        check("cuStreamCreate", status, Context::Engine(engine))?;
        Ok(Stream { raw, engine })
    }

    fn ctx(&self) -> Context {
        Context::Engine(self.engine)
    }

    /// The engine instance this stream is.
    pub fn engine(&self) -> &'static str {
        self.engine
    }

    /// Launch a kernel with a prepared parameter block. Never allocates.
    pub fn launch(
        &self,
        f: Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        params: &ParamBlock,
        context: Context,
    ) -> Result<()> {
        let mut slots = params.values;
        let mut ptrs = [ptr::null_mut::<c_void>(); MAX_PARAMS];
        for (p, slot) in ptrs.iter_mut().zip(slots.iter_mut()) {
            *p = (slot as *mut u64).cast();
        }
        let ptrs_arg = if params.len == 0 {
            ptr::null_mut()
        } else {
            ptrs.as_mut_ptr()
        };
        // SAFETY: `ptrs` points at `slots`, which outlive the call (the driver copies the
        // parameter values at enqueue time); the stream is a live non-default stream.
        let status = unsafe {
            cu::cuLaunchKernel(
                f.raw,
                grid[0],
                grid[1],
                grid[2],
                block[0],
                block[1],
                block[2],
                shared,
                self.raw,
                ptrs_arg,
                ptr::null_mut(),
            )
        };
        check("cuLaunchKernel", status, context)
    }

    /// Wait on a semaphore reaching `value` (the fence storage is used for external semaphores).
    pub fn wait(
        &self,
        sem: &GpuSemaphore,
        value: u64,
        fence: &mut RawFence,
        context: Context,
    ) -> Result<()> {
        match *sem {
            GpuSemaphore::External(raw) => {
                let mut params: cu::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS = zeroed_wait_params();
                params.params.nvSciSync.fence = fence.as_mut_ptr();
                let sems = [raw];
                // SAFETY: the fence was filled for `value` by the caller and outlives the call.
                let status = unsafe {
                    cu::cuWaitExternalSemaphoresAsync(sems.as_ptr(), &params, 1, self.raw)
                };
                check("cuWaitExternalSemaphoresAsync", status, context)
            }
            GpuSemaphore::Counter { device_addr, .. } => {
                // SAFETY: a mapped counter and a live stream.
                let status = unsafe {
                    cu::cuStreamWaitValue64_v2(
                        self.raw,
                        device_addr,
                        value,
                        cu::CU_STREAM_WAIT_VALUE_GEQ.0,
                    )
                };
                check("cuStreamWaitValue64", status, context)
            }
        }
    }

    /// Signal a semaphore (to `value` for counters; +1 for external semaphores).
    pub fn signal(
        &self,
        sem: &GpuSemaphore,
        value: u64,
        fence: &mut RawFence,
        context: Context,
    ) -> Result<()> {
        match *sem {
            GpuSemaphore::External(raw) => {
                let mut params: cu::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS = zeroed_signal_params();
                params.params.nvSciSync.fence = fence.as_mut_ptr();
                let sems = [raw];
                // SAFETY: the fence storage outlives the call; the driver writes it at enqueue.
                let status = unsafe {
                    cu::cuSignalExternalSemaphoresAsync(sems.as_ptr(), &params, 1, self.raw)
                };
                check("cuSignalExternalSemaphoresAsync", status, context)
            }
            GpuSemaphore::Counter { device_addr, .. } => {
                // SAFETY: a mapped counter and a live stream; the default flag orders earlier
                // writes (the task's outputs) before the counter write.
                let status = unsafe {
                    cu::cuStreamWriteValue64_v2(
                        self.raw,
                        device_addr,
                        value,
                        cu::CU_STREAM_WRITE_VALUE_DEFAULT.0,
                    )
                };
                check("cuStreamWriteValue64", status, context)
            }
        }
    }

    /// Wait until the stream is idle.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: live stream.
        let status = unsafe { cu::cuStreamSynchronize(self.raw) };
        check("cuStreamSynchronize", status, self.ctx())
    }

    /// Whether the stream is idle (`Err` carries a sticky stream error).
    pub fn idle(&self) -> Result<bool> {
        // SAFETY: live stream.
        let status = unsafe { cu::cuStreamQuery(self.raw) };
        if status == cu::CUDA_ERROR_NOT_READY {
            return Ok(false);
        }
        check("cuStreamQuery", status, self.ctx()).map(|()| true)
    }

    /// Destroy the stream.
    pub fn destroy(self) -> Result<()> {
        // SAFETY: created in `create`, destroyed once.
        let status = unsafe { cu::cuStreamDestroy_v2(self.raw) };
        check("cuStreamDestroy", status, Context::Engine(self.engine))
    }
}

fn zeroed_wait_params() -> cu::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
    // SAFETY: an all-zero bit pattern is valid for this plain-data C struct (integers, a
    // union of a pointer and an integer, arrays of integers).
    unsafe { core::mem::zeroed() }
}

fn zeroed_signal_params() -> cu::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
    // SAFETY: as in `zeroed_wait_params`.
    unsafe { core::mem::zeroed() }
}
