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
//!
//! # What safe code can and cannot do here
//!
//! * No handle, address or host pointer is public: [`Gpu`], [`GpuModule`], [`Function`],
//!   [`Stream`] and [`GpuMemory`] are opaque.
//! * Children count on their parent (the engine's `keep` module): a module, stream or memory
//!   made from a [`Gpu`] keeps [`Gpu::close`] from releasing the context; a [`Function`] keeps
//!   its module loaded; a [`ParamBlock`] keeps the memory it points at allocated. A refused
//!   close reports [`Error::Shutdown`] and leaves the parent open, so no child handle dangles.
//! * A kernel's arguments are a [`ParamBlock`] built by [`ParamBuilder`] for that kernel: the
//!   count and size of each value are checked against the cubin's parameter table, and its
//!   kinds are the ones declared to [`GpuModule::function_with_kinds`] (the schedule's
//!   `params` at init; on SIL they must equal the registered kernel model's), so a pointer
//!   parameter only ever receives the device address of a live [`GpuMemory`]. Without declared
//!   kinds ([`GpuModule::function`]) every 8-byte parameter is a pointer: there is no way to
//!   pass a number where nothing says it is not a pointer. A finished block names its kernel
//!   and keeps that kernel's module loaded, so [`Stream::launch`] refuses any other kernel
//!   with one comparison ([`Misuse::ParamBlockMismatch`]) instead of re-checking every value.
//! * On SIL, a kernel runs only with a reference model registered for its cubin
//!   ([`crate::sil::register_kernel_model`]); without one, [`GpuModule::function`] fails with
//!   [`Error::NoKernelModel`], which says why and how to register one.
//!
//! What the types do not check: a kernel is trusted code (it must stay inside the memory it is
//! given, for the sizes it is given), and GPU work is asynchronous, so the CPU copies of a
//! [`GpuMemory`] and its release must come after the work using it has finished
//! ([`Stream::synchronize`]; the executive waits for its fences and, at shutdown, for its
//! streams).
//!
//! ```no_run
//! use orin_exec::engine::gpu::{Gpu, GpuMemory, GpuModule, ParamBlock, Stream};
//! use orin_exec::error::Context;
//!
//! # fn main() -> orin_exec::Result<()> {
//! let selftest = orin_exec_kernels::cubin_desc("selftest").expect("the selftest cubin");
//! // SIL CUDA runs the kernel's reference model, registered before the kernel is looked up.
//! #[cfg(feature = "sil")]
//! orin_exec::sil::register_kernel_model(
//!     selftest,
//!     "fill_pattern_u32",
//!     orin_exec_kernels::model("selftest", "fill_pattern_u32").expect("its model"),
//! )?;
//! let gpu = Gpu::open(0)?;
//! let module = GpuModule::load(&gpu, selftest)?;
//! let fill = module.function("fill_pattern_u32", Context::Cubin("selftest"))?;
//! let mut out = GpuMemory::pinned(&gpu, 4096, Context::Buffer("out"))?;
//! let params = ParamBlock::builder(&fill)
//!     .memory(&out)?
//!     .u32(1024)?
//!     .u32(7)?
//!     .finish()?;
//! let stream = Stream::create(&gpu, "example")?;
//! stream.launch(&fill, [4, 1, 1], [256, 1, 1], 0, &params, Context::Cubin("fill"))?;
//! stream.synchronize()?;
//! let mut first = [0u8; 4];
//! out.read_bytes(0, &mut first)?;
//! out.write_bytes(0, &[0; 4])?;
//! // Children first: the block holds `out`, the function holds the module.
//! drop(params);
//! out.release(Context::Buffer("out"))?;
//! stream.destroy()?;
//! drop(fill);
//! module.unload()?;
//! gpu.close()?;
//! # Ok(())
//! # }
//! ```

use core::ffi::{c_char, c_void};
use core::mem::MaybeUninit;
use core::ptr;

use cuda_sys as cu;

use crate::engine::dla::hash_matches;
use crate::engine::keep::{Claim, Hold, Keep};
use crate::engine::nvsci::{BufObj, RawFence, SyncAttrList, SyncObj};
use crate::error::{Context, Error, Misuse, ParamMismatch, Result, ScheduleFault, Status, Table};
use crate::kernel_model::ParamKind;
use crate::limits::{MAX_KERNEL_NAME, MAX_PARAMS};
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
    /// Counts the modules, streams, memory and semaphores made in the context.
    keep: Keep,
}
// SAFETY: the primary context may be made current on any thread (`make_current`).
unsafe impl Send for Gpu {}
// SAFETY: the &self methods only read plain data or bind the context to the calling thread.
unsafe impl Sync for Gpu {}

impl Gpu {
    /// Initialise the driver, open device `ordinal` and make its primary context current.
    pub fn open(ordinal: i32) -> Result<Self> {
        let keep = Keep::new()?;
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
                keep,
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
    pub(crate) fn fill_sync_attributes(
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

    /// The primary context (for graph nodes that name theirs).
    pub(super) fn raw_context(&self) -> cu::CUcontext {
        self.context
    }

    /// A claim on the context: it cannot be closed while the claim lives.
    pub(super) fn hold(&self) -> Hold {
        self.keep.hold()
    }

    /// Wait until all work of the context is done.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: plain driver call on the current context.
        let status = unsafe { cu::cuCtxSynchronize() };
        check("cuCtxSynchronize", status, Context::Platform)
    }

    /// Release the primary context. Refused ([`Error::Shutdown`], the context stays
    /// retained) while a module, stream, memory or semaphore made from this `Gpu` is alive.
    pub fn close(self) -> Result<()> {
        let Gpu { device, keep, .. } = self;
        keep.release(Context::Platform)?;
        // SAFETY: retained in `open`, released once (self is consumed); nothing made in the
        // context is left (checked above).
        let status = unsafe { cu::cuDevicePrimaryCtxRelease_v2(device) };
        check("cuDevicePrimaryCtxRelease", status, Context::Platform)
    }
}

/// A loaded GPU module.
#[derive(Debug)]
pub struct GpuModule {
    raw: cu::CUmodule,
    name: &'static str,
    /// The checked image: its parameter tables describe the kernels.
    image: &'static [u8],
    /// Its SHA-256 (SIL CUDA binds kernel models to it).
    #[cfg_attr(not(platform = "sil"), allow(dead_code))]
    sha256: [u8; 32],
    sm: u32,
    /// Counts the kernel handles looked up in it.
    keep: Keep,
    gpu: Claim,
}

// SAFETY: module handles are usable from any thread with the context current.
unsafe impl Send for GpuModule {}
// SAFETY: as above.
unsafe impl Sync for GpuModule {}

impl GpuModule {
    /// Pick the variant for the device's SM, check its hash and that it is a PTX-free cubin
    /// for that SM, then load it.
    pub fn load(gpu: &Gpu, desc: &CubinDesc) -> Result<Self> {
        let sm = gpu.sm();
        let variant = desc
            .variants
            .iter()
            .find(|v| v.sm == sm)
            .ok_or(Error::NoCubinForSm {
                module: desc.name,
                sm,
            })?;
        Self::load_image(gpu, desc.name, &variant.sha256, variant.image)
    }

    /// Check `image` (hash, ELF cubin for the device's SM, no PTX), then load it.
    pub fn load_image(
        gpu: &Gpu,
        name: &'static str,
        sha256: &[u8; 32],
        image: &'static [u8],
    ) -> Result<Self> {
        let sm = gpu.sm();
        if !hash_matches(image, sha256) {
            return Err(Error::HashMismatch {
                context: Context::Cubin(name),
            });
        }
        cubin_check::check_cubin(image, sm).map_err(|cause| Error::Cubin {
            module: name,
            cause,
        })?;
        let keep = Keep::new()?;
        let mut raw = ptr::null_mut();
        // SAFETY: the image is a checked, 'static ELF cubin; valid out-pointer.
        let status = unsafe { cu::cuModuleLoadData(&mut raw, image.as_ptr().cast()) };
        check("cuModuleLoadData", status, Context::Cubin(name))?;
        Ok(GpuModule {
            raw,
            name,
            image,
            sha256: *sha256,
            sm,
            keep,
            gpu: gpu.keep.hold().into(),
        })
    }

    /// Look up a kernel by its entry name. Its parameter list comes from the cubin: a 4-byte
    /// parameter takes a `u32`, `i32` or `f32`, an 8-byte one only memory (nothing says it
    /// is not a pointer); [`GpuModule::function_with_kinds`] declares the kinds.
    ///
    /// On SIL, a kernel without a usable reference model fails with
    /// [`Error::NoKernelModel`].
    pub fn function(&self, kernel: &'static str, context: Context) -> Result<Function> {
        self.lookup(kernel, None, context)
    }

    /// Look up a kernel by its entry name, with the kinds of its parameters: their count and
    /// sizes must be the cubin's ([`Error::KernelParam`] names the first one that is not) and,
    /// on SIL, they must equal the registered kernel model's. A [`ParamKind::U64`] parameter
    /// then takes a number, a [`ParamKind::DevPtr`] one only memory.
    ///
    /// ```no_run
    /// # use orin_exec::engine::gpu::{Function, GpuModule};
    /// # use orin_exec::error::Context;
    /// use orin_exec::kernel_model::ParamKind::{DevPtr, F32, U32};
    /// # fn f(module: &GpuModule) -> orin_exec::Result<Function> {
    /// // saxpy_f32(float a, const float* x, float* y, uint32_t n)
    /// module.function_with_kinds("saxpy_f32", &[F32, DevPtr, DevPtr, U32], Context::Cubin("selftest"))
    /// # }
    /// ```
    pub fn function_with_kinds(
        &self,
        kernel: &'static str,
        kinds: &[ParamKind],
        context: Context,
    ) -> Result<Function> {
        self.lookup(kernel, Some(kinds), context)
    }

    fn lookup(
        &self,
        kernel: &'static str,
        kinds: Option<&[ParamKind]>,
        context: Context,
    ) -> Result<Function> {
        let mut name = [0u8; MAX_KERNEL_NAME + 1];
        if kernel.len() > MAX_KERNEL_NAME {
            return Err(Error::Capacity {
                table: Table::KernelNameBytes,
                limit: MAX_KERNEL_NAME as u32,
            });
        }
        name[..kernel.len()].copy_from_slice(kernel.as_bytes());
        let mut raw = ptr::null_mut();
        // SAFETY: live module; `name` is NUL-terminated; valid out-pointer.
        let status = unsafe { cu::cuModuleGetFunction(&mut raw, self.raw, name.as_ptr().cast()) };
        #[cfg(platform = "sil")]
        if status == cu::CUDA_ERROR_NOT_FOUND
            && let Some(why) = self.model_status(&name)
        {
            return Err(Error::NoKernelModel {
                module: self.name,
                kernel,
                why,
            });
        }
        check("cuModuleGetFunction", status, context)?;
        let params = Signature::of(self.name, self.image, self.sm, kernel, kinds, context)?;
        #[cfg(platform = "sil")]
        if let Some(kinds) = kinds {
            self.check_model_kinds(kernel, kinds, context)?;
        }
        Ok(Function {
            raw,
            kernel,
            params,
            _module: self.keep.hold(),
        })
    }

    /// Why SIL CUDA did not hand out the kernel named by the NUL-terminated `name`.
    #[cfg(platform = "sil")]
    fn model_status(&self, name: &[u8; 128]) -> Option<crate::error::ModelStatus> {
        use crate::error::ModelStatus;
        use cu::sil::*;
        let mut status = -1;
        // SAFETY: live module; `name` is NUL-terminated; valid out-pointer.
        let r = unsafe { cuSilGetKernelModelStatus(self.raw, name.as_ptr().cast(), &mut status) };
        if r != cu::CUDA_SUCCESS {
            return None;
        }
        match status {
            CU_SIL_KERNEL_MODEL_NOT_REGISTERED => Some(ModelStatus::NotRegistered),
            CU_SIL_KERNEL_MODEL_OTHER_CUBINS => Some(ModelStatus::OtherCubins),
            CU_SIL_KERNEL_MODEL_KINDS_DISAGREE => Some(ModelStatus::KindsDisagree),
            CU_SIL_KERNEL_MODEL_NOT_IN_CUBIN => Some(ModelStatus::NotInCubin),
            _ => None,
        }
    }

    /// On SIL the declared kinds must be the registered model's (a buffer where the model
    /// reads a number, or the other way round, is refused here rather than at the launch).
    #[cfg(platform = "sil")]
    fn check_model_kinds(
        &self,
        kernel: &'static str,
        kinds: &[ParamKind],
        context: Context,
    ) -> Result<()> {
        let Some(model) = sil_cuda::kernel_model_params(kernel, &self.sha256) else {
            return Ok(());
        };
        let key = |k: Option<&ParamKind>| k.map_or("none", |k| k.key());
        for index in 0..model.len().max(kinds.len()) {
            let (m, g) = (model.get(index), kinds.get(index));
            if m != g {
                return Err(Error::KernelParam {
                    context,
                    kernel,
                    index: index as u8,
                    mismatch: ParamMismatch::Kind {
                        model: key(m),
                        given: key(g),
                    },
                });
            }
        }
        Ok(())
    }

    /// Unload the module. Refused ([`Error::Shutdown`], the module stays loaded) while a
    /// [`Function`] of it is alive.
    pub fn unload(self) -> Result<()> {
        let GpuModule {
            raw,
            name,
            keep,
            gpu,
            ..
        } = self;
        // Refused: still loaded, and the dropped claim keeps the context too.
        keep.release(Context::Cubin(name))?;
        // SAFETY: loaded in `load_image`, unloaded once (self is consumed); no kernel handle
        // of it is left (checked above).
        let status = unsafe { cu::cuModuleUnload(raw) };
        gpu.release();
        check("cuModuleUnload", status, Context::Cubin(name))
    }
}

/// What a kernel parameter takes. The kinds of 4-byte values (`uint32_t`, `int32_t`,
/// `float`) are the kernel's business; what matters here is that a pointer parameter never
/// receives a number and that every value has the parameter's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A device pointer: only the address of a [`GpuMemory`].
    Pointer,
    /// Four bytes: `uint32_t`, `int32_t` or `float`.
    Bits32,
    /// Eight bytes that are not a pointer: `uint64_t`.
    Bits64,
}

/// A kernel's parameter list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Signature {
    slots: [Slot; MAX_PARAMS],
    len: usize,
}

impl Signature {
    /// The parameters of `kernel` in a checked image. Sizes come from the cubin
    /// (`EIATTR_KPARAM_INFO`); kinds from `kinds` if given (their count and sizes must be the
    /// cubin's), else a 4-byte parameter takes 32 bits and an 8-byte one only memory (a
    /// number could be a forged pointer). Other sizes are refused: every value is passed in an
    /// 8-byte slot.
    fn of(
        module: &'static str,
        image: &'static [u8],
        sm: u32,
        kernel: &'static str,
        kinds: Option<&[ParamKind]>,
        context: Context,
    ) -> Result<Self> {
        let info =
            cubin_check::check_cubin(image, sm).map_err(|cause| Error::Cubin { module, cause })?;
        let k = info.kernel(kernel).ok_or(Error::BadSchedule {
            fault: ScheduleFault::KernelNotInCubin,
            context: Context::Cubin(module),
        })?;
        let len = k.param_count();
        if len > MAX_PARAMS || kinds.is_some_and(|k| k.len() > MAX_PARAMS) {
            return Err(Error::Capacity {
                table: Table::KernelParams,
                limit: MAX_PARAMS as u32,
            });
        }
        let fault = |index: usize, mismatch| Error::KernelParam {
            context,
            kernel,
            index: index as u8,
            mismatch,
        };
        if let Some(kinds) = kinds
            && kinds.len() != len
        {
            let mismatch = ParamMismatch::Count {
                cubin: len as u8,
                given: kinds.len() as u8,
            };
            return Err(fault(len.min(kinds.len()), mismatch));
        }
        let mut sig = Signature {
            slots: [Slot::Bits32; MAX_PARAMS],
            len,
        };
        for (i, (p, slot)) in k.params().zip(sig.slots.iter_mut()).enumerate() {
            *slot = match (kinds.map(|k| k[i]), p.size) {
                (None, 4) => Slot::Bits32,
                (None, 8) => Slot::Pointer,
                (None, size) => return Err(fault(i, ParamMismatch::Unsupported { size })),
                (Some(kind), size) if kind.size() != usize::from(size) => {
                    let given = kind.key();
                    return Err(fault(i, ParamMismatch::Size { cubin: size, given }));
                }
                (Some(ParamKind::DevPtr), _) => Slot::Pointer,
                (Some(ParamKind::U64), _) => Slot::Bits64,
                (Some(ParamKind::U32 | ParamKind::I32 | ParamKind::F32), _) => Slot::Bits32,
                (Some(_), size) => return Err(fault(i, ParamMismatch::Unsupported { size })),
            };
        }
        Ok(sig)
    }
}

/// A kernel handle. It keeps its module loaded ([`GpuModule::unload`] refuses while one
/// exists).
#[derive(Clone, Debug)]
pub struct Function {
    raw: cu::CUfunction,
    kernel: &'static str,
    params: Signature,
    _module: Hold,
}

// SAFETY: function handles are immutable driver objects.
unsafe impl Send for Function {}
// SAFETY: as above.
unsafe impl Sync for Function {}

impl Function {
    /// The kernel's entry name.
    pub fn name(&self) -> &'static str {
        self.kernel
    }

    /// How many parameters the kernel takes.
    pub fn param_count(&self) -> usize {
        self.params.len
    }

    /// The driver handle (valid while this `Function` lives: it holds its module).
    pub(super) fn raw(&self) -> cu::CUfunction {
        self.raw
    }
}

/// A kernel's parameter values, prepared at init by a [`ParamBuilder`]. Each value is stored
/// in a 64-bit slot; the driver reads as many bytes from a slot as the kernel's parameter has
/// (4 or 8, little-endian). The block keeps every [`GpuMemory`] it points at allocated, and
/// the module of the kernel it was built for loaded: it names that kernel, so a launch checks
/// the pair with one comparison (the handle cannot be reused by another kernel while the
/// block keeps its module loaded).
#[derive(Clone, Debug)]
pub struct ParamBlock {
    values: [u64; MAX_PARAMS],
    len: usize,
    /// The kernel the values were checked against (null for [`ParamBlock::empty`]).
    function: cu::CUfunction,
    module: Option<Hold>,
    memory: [Option<Hold>; MAX_PARAMS],
}

// SAFETY: the function handle is an immutable driver object, only compared here.
unsafe impl Send for ParamBlock {}
// SAFETY: as above.
unsafe impl Sync for ParamBlock {}

impl Default for ParamBlock {
    fn default() -> Self {
        ParamBlock::empty()
    }
}

impl ParamBlock {
    /// The block of a kernel without parameters.
    pub const fn empty() -> Self {
        ParamBlock {
            values: [0; MAX_PARAMS],
            len: 0,
            function: ptr::null_mut(),
            module: None,
            memory: [const { None }; MAX_PARAMS],
        }
    }

    /// Start a block for `function`: its parameters, in order.
    pub fn builder(function: &Function) -> ParamBuilder<'_> {
        ParamBuilder {
            function,
            block: ParamBlock::empty(),
        }
    }

    /// The slot values, if the block fits `function` (else the typed misuse).
    pub(super) fn values_for(
        &self,
        function: &Function,
        context: Context,
    ) -> Result<&[u64; MAX_PARAMS]> {
        if self.fits(function) {
            Ok(&self.values)
        } else {
            Err(Error::Misuse {
                misuse: Misuse::ParamBlockMismatch,
                context,
            })
        }
    }

    /// Whether this block fits `function`'s parameter list: it was built (and checked) for
    /// that kernel, or both have no parameters.
    fn fits(&self, function: &Function) -> bool {
        self.function == function.raw || (self.len == 0 && function.params.len == 0)
    }
}

/// Builds the [`ParamBlock`] of one kernel, checking each value against the kernel's
/// parameter list as it is added.
///
/// ```no_run
/// # use orin_exec::engine::gpu::{Function, GpuMemory, ParamBlock};
/// # fn f(saxpy: &Function, x: &GpuMemory, y: &GpuMemory) -> orin_exec::Result<ParamBlock> {
/// // saxpy_f32(float a, const float* x, float* y, uint32_t n)
/// ParamBlock::builder(saxpy).f32(2.0)?.memory(x)?.memory(y)?.u32(256)?.finish()
/// # }
/// ```
#[derive(Debug)]
pub struct ParamBuilder<'f> {
    function: &'f Function,
    block: ParamBlock,
}

impl ParamBuilder<'_> {
    fn push(mut self, given: Slot, value: u64, memory: Option<Hold>) -> Result<Self> {
        let i = self.block.len;
        let sig = &self.function.params;
        if i >= sig.len || sig.slots[i] != given {
            return Err(Error::Misuse {
                misuse: Misuse::ParamValueMismatch,
                context: Context::Cubin(self.function.kernel),
            });
        }
        self.block.values[i] = value;
        self.block.memory[i] = memory;
        self.block.len += 1;
        Ok(self)
    }

    /// The device address of `memory` (a pointer parameter).
    pub fn memory(self, memory: &GpuMemory) -> Result<Self> {
        self.memory_at(memory, 0)
    }

    /// The device address of byte `offset` of `memory` (a pointer parameter); `offset` must
    /// lie inside it.
    pub fn memory_at(self, memory: &GpuMemory, offset: u64) -> Result<Self> {
        if offset >= memory.len as u64 {
            return Err(Error::BufferTooSmall {
                buffer: "kernel parameter memory",
                need: offset + 1,
                have: memory.len as u64,
            });
        }
        self.push(
            Slot::Pointer,
            memory.device_addr + offset,
            Some(memory.keep.hold()),
        )
    }

    /// A `uint32_t`.
    pub fn u32(self, value: u32) -> Result<Self> {
        self.push(Slot::Bits32, u64::from(value), None)
    }

    /// An `int32_t`.
    pub fn i32(self, value: i32) -> Result<Self> {
        self.push(Slot::Bits32, u64::from(value as u32), None)
    }

    /// A `uint64_t` (never a pointer parameter: those take [`ParamBuilder::memory`]).
    pub fn u64(self, value: u64) -> Result<Self> {
        self.push(Slot::Bits64, value, None)
    }

    /// A `float`.
    pub fn f32(self, value: f32) -> Result<Self> {
        self.push(Slot::Bits32, u64::from(value.to_bits()), None)
    }

    /// The block, once every parameter has a value.
    pub fn finish(mut self) -> Result<ParamBlock> {
        if self.block.len != self.function.params.len {
            return Err(Error::Misuse {
                misuse: Misuse::ParamMissing,
                context: Context::Cubin(self.function.kernel),
            });
        }
        // Every value matched the kernel's list: the block may now name the kernel.
        self.block.function = self.function.raw;
        self.block.module = Some(self.function._module.clone());
        Ok(self.block)
    }
}

/// A kernel whose one parameter points at an 8-byte slot of one memory, launched as a single
/// thread at any slot: the runtime's timer stamps. The pair is checked once, when made; a
/// launch only bounds the slot and passes its address (no parameter block is built per
/// launch). It keeps the memory allocated and the kernel's module loaded.
#[derive(Debug)]
pub(crate) struct SlotKernel {
    function: Function,
    base: u64,
    slots: usize,
    _memory: Hold,
}

impl SlotKernel {
    /// The kernel (for graph nodes, which take a parameter block).
    pub(crate) fn function(&self) -> &Function {
        &self.function
    }

    /// Pair `function` (one pointer parameter) with `memory`'s 8-byte slots.
    pub(crate) fn new(function: Function, memory: &GpuMemory) -> Result<Self> {
        // The builder checks that the kernel takes exactly one pointer.
        ParamBlock::builder(&function).memory(memory)?.finish()?;
        Ok(SlotKernel {
            base: memory.device_addr,
            slots: memory.len / 8,
            _memory: memory.keep.hold(),
            function,
        })
    }

    /// Enqueue the kernel on `stream` (one thread) with the address of slot `slot`.
    pub(crate) fn launch(&self, stream: &Stream, slot: usize, context: Context) -> Result<()> {
        if slot >= self.slots {
            return Err(Error::BufferTooSmall {
                buffer: "kernel parameter memory",
                need: (slot as u64 + 1) * 8,
                have: self.slots as u64 * 8,
            });
        }
        let mut value = self.base + 8 * slot as u64;
        let mut ptrs = [ptr::from_mut(&mut value).cast::<c_void>()];
        // SAFETY: the kernel's only parameter is a pointer (checked in `new`); `value` is the
        // address of an 8-byte slot inside memory this kernel keeps allocated (bounded
        // above) and outlives the call (the driver copies it at enqueue); the function (kept
        // loaded) and the stream are live.
        let status = unsafe {
            cu::cuLaunchKernel(
                self.function.raw,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                stream.raw,
                ptrs.as_mut_ptr(),
                ptr::null_mut(),
            )
        };
        check("cuLaunchKernel", status, context)
    }
}

/// How a stream reaches a semaphore.
#[derive(Debug)]
pub(super) enum SemaphoreKind {
    /// Imported NvSciSync object (`sil`, `orin`).
    External(cu::CUexternalSemaphore),
    /// Mapped counter (`rig`): the device address of the host-registered 64-bit counter, and
    /// its host address (for unregistering).
    Counter { device_addr: u64, host: *mut c_void },
}

/// A semaphore as the GPU reaches it. It keeps its NvSciSync object and the context alive.
#[derive(Debug)]
pub(crate) struct GpuSemaphore {
    kind: SemaphoreKind,
    obj: Hold,
    gpu: Hold,
}

// SAFETY: driver handles / addresses usable from any thread with the context current.
unsafe impl Send for GpuSemaphore {}
// SAFETY: as above.
unsafe impl Sync for GpuSemaphore {}

impl GpuSemaphore {
    /// Import an NvSciSync object (`sil`, `orin`).
    pub(crate) fn import(gpu: &Gpu, obj: &SyncObj, context: Context) -> Result<Self> {
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
        Ok(GpuSemaphore {
            kind: SemaphoreKind::External(raw),
            obj: obj.hold(),
            gpu: gpu.keep.hold(),
        })
    }

    /// Map the SIL semaphore's counter into the GPU (`rig`; it sits alone in its page).
    pub(crate) fn map_counter(gpu: &Gpu, obj: &SyncObj, context: Context) -> Result<Self> {
        let host = crate::engine::platform::sil_counter(obj, context)?.cast::<c_void>();
        // SAFETY: the counter lives in its own page for the life of the semaphore object,
        // which outlives this registration (the registration holds the object).
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
            if let Err(e) = check(
                "cuMemHostGetDevicePointer",
                cu::cuMemHostGetDevicePointer_v2(&mut device_addr, host, 0),
                context,
            ) {
                cu::cuMemHostUnregister(host);
                return Err(e);
            }
            Ok(GpuSemaphore {
                kind: SemaphoreKind::Counter { device_addr, host },
                obj: obj.hold(),
                gpu: gpu.keep.hold(),
            })
        }
    }

    /// How the GPU reaches it.
    pub(super) fn kind(&self) -> &SemaphoreKind {
        &self.kind
    }

    /// Release the import or mapping.
    pub(crate) fn release(self, context: Context) -> Result<()> {
        let GpuSemaphore { kind, obj, gpu } = self;
        let result = match kind {
            // SAFETY: imported in `import`, destroyed once (self is consumed).
            SemaphoreKind::External(raw) => check(
                "cuDestroyExternalSemaphore",
                unsafe { cu::cuDestroyExternalSemaphore(raw) },
                context,
            ),
            // SAFETY: registered in `map_counter`, unregistered once (self is consumed).
            SemaphoreKind::Counter { host, .. } => check(
                "cuMemHostUnregister",
                unsafe { cu::cuMemHostUnregister(host) },
                context,
            ),
        };
        drop((obj, gpu));
        result
    }
}

/// Where a [`GpuMemory`] lives.
#[derive(Debug)]
enum MemoryKind {
    /// NvSciBuf imported as external memory (`sil`, `orin`).
    External { raw: cu::CUexternalMemory },
    /// Host memory of a buffer, registered with the GPU (`rig`).
    Registered { host: *mut c_void },
    /// Pinned host memory from `cuMemHostAlloc`, mapped into the GPU.
    Pinned { host: *mut u8 },
}

/// GPU access to a buffer: an NvSciBuf import or registration, or pinned host memory. Its
/// device address only reaches kernels through a [`ParamBlock`], which keeps it allocated.
#[derive(Debug)]
pub struct GpuMemory {
    kind: MemoryKind,
    device_addr: u64,
    len: usize,
    /// Counts the parameter blocks pointing into it.
    keep: Keep,
    gpu: Claim,
    /// The NvSciBuf buffer it maps, if any.
    buffer: Option<Claim>,
}

// SAFETY: driver handles and addresses; host memory is only touched through the checked
// copies below (`write_bytes` takes `&mut self`, so CPU writes never race CPU reads).
unsafe impl Send for GpuMemory {}
// SAFETY: as above.
unsafe impl Sync for GpuMemory {}

impl GpuMemory {
    /// Import an NvSciBuf buffer (`sil`, `orin`).
    pub(crate) fn import(gpu: &Gpu, buf: &BufObj, context: Context) -> Result<Self> {
        let keep = Keep::new()?;
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
        Ok(GpuMemory {
            kind: MemoryKind::External { raw },
            device_addr,
            len: buf.size() as usize,
            keep,
            gpu: gpu.keep.hold().into(),
            buffer: Some(buf.hold().into()),
        })
    }

    /// Register a SIL buffer's memory with the GPU (`rig`). SIL buffers are page-aligned
    /// and padded to whole pages, so no two registrations share a page.
    pub(crate) fn register(gpu: &Gpu, buf: &BufObj, context: Context) -> Result<Self> {
        let keep = Keep::new()?;
        let (host, len) = crate::engine::platform::sil_buffer_memory(buf, context)?;
        // SAFETY: the buffer's memory stays allocated while this registration holds it.
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
            if let Err(e) = check(
                "cuMemHostGetDevicePointer",
                cu::cuMemHostGetDevicePointer_v2(&mut device_addr, host, 0),
                context,
            ) {
                cu::cuMemHostUnregister(host);
                return Err(e);
            }
            Ok(GpuMemory {
                kind: MemoryKind::Registered { host },
                device_addr,
                len: len as usize,
                keep,
                gpu: gpu.keep.hold().into(),
                buffer: Some(buf.hold().into()),
            })
        }
    }

    /// Allocate `len` bytes of pinned, device-mapped host memory, zero-filled.
    pub fn pinned(gpu: &Gpu, len: u64, context: Context) -> Result<Self> {
        let keep = Keep::new()?;
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
            Ok(GpuMemory {
                kind: MemoryKind::Pinned { host: host.cast() },
                device_addr,
                len: len as usize,
                keep,
                gpu: gpu.keep.hold().into(),
                buffer: None,
            })
        }
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Read the `index`-th u64 of pinned memory that the GPU writes (timer stamps).
    pub fn read_u64(&self, index: usize) -> Option<u64> {
        let (host, len) = self.pinned_host()?;
        if index.checked_add(1)?.checked_mul(8)? > len {
            return None;
        }
        // SAFETY: in bounds (checked), 8-aligned (page-aligned allocation, index·8), and the
        // allocation lives as long as `self`; a volatile read because the GPU writes it.
        Some(unsafe { core::ptr::read_volatile(host.cast::<u64>().add(index)) })
    }

    /// Copy `src` into pinned memory at `offset` (for tests and tools: no GPU work may be
    /// using the range, or it reads a mix of old and new bytes).
    pub fn write_bytes(&mut self, offset: usize, src: &[u8]) -> Result<()> {
        let host = self.pinned_range(offset, src.len())?;
        // SAFETY: the range lies inside the live allocation (checked); no Rust reference to
        // pinned memory exists, so `src` cannot overlap it; `&mut self` excludes other CPU
        // copies of this memory.
        unsafe { core::ptr::copy_nonoverlapping(src.as_ptr(), host.add(offset), src.len()) };
        Ok(())
    }

    /// Copy pinned memory at `offset` into `dst` (after the GPU work writing it finished).
    pub fn read_bytes(&self, offset: usize, dst: &mut [u8]) -> Result<()> {
        let host = self.pinned_range(offset, dst.len())?;
        // SAFETY: as in `write_bytes`; CPU writes need `&mut self`, so none runs now.
        unsafe { core::ptr::copy_nonoverlapping(host.add(offset), dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn pinned_range(&self, offset: usize, n: usize) -> Result<*mut u8> {
        let (host, len) = self.pinned_host().ok_or(Error::Misuse {
            misuse: Misuse::NotPinnedHost,
            context: Context::Buffer("pinned memory"),
        })?;
        if offset.checked_add(n).is_none_or(|end| end > len) {
            return Err(Error::BufferTooSmall {
                buffer: "pinned memory",
                need: (offset as u64).saturating_add(n as u64),
                have: len as u64,
            });
        }
        Ok(host)
    }

    /// Host address and length of pinned memory (for the CPU views of pinned buffers).
    pub(super) fn pinned_host(&self) -> Option<(*mut u8, usize)> {
        match self.kind {
            MemoryKind::Pinned { host } => Some((host, self.len)),
            _ => None,
        }
    }

    /// Release the import, registration or allocation. Refused ([`Error::Shutdown`], the
    /// memory stays) while a [`ParamBlock`] points into it.
    pub fn release(self, context: Context) -> Result<()> {
        let GpuMemory {
            kind,
            device_addr,
            keep,
            gpu,
            buffer,
            ..
        } = self;
        // Refused: still mapped, and the dropped claims keep the context and buffer too.
        keep.release(context)?;
        let result = match kind {
            MemoryKind::External { raw } => {
                // SAFETY: the mapping and the import were made in `import`; released once.
                let status = unsafe { cu::cuMemFree_v2(device_addr) };
                let unmap = check("cuMemFree", status, context);
                // SAFETY: as above.
                let status = unsafe { cu::cuDestroyExternalMemory(raw) };
                let destroy = check("cuDestroyExternalMemory", status, context);
                unmap.and(destroy)
            }
            // SAFETY: registered in `register`; unregistered once.
            MemoryKind::Registered { host } => check(
                "cuMemHostUnregister",
                unsafe { cu::cuMemHostUnregister(host) },
                context,
            ),
            // SAFETY: allocated in `pinned`; freed once.
            MemoryKind::Pinned { host } => check(
                "cuMemFreeHost",
                unsafe { cu::cuMemFreeHost(host.cast()) },
                context,
            ),
        };
        gpu.release();
        if let Some(b) = buffer {
            b.release();
        }
        result
    }
}

/// A non-blocking stream (the default stream is never used). It keeps the context alive.
#[derive(Debug)]
pub struct Stream {
    raw: cu::CUstream,
    engine: &'static str,
    gpu: Hold,
}

// SAFETY: stream handles are usable from any thread with the context current; orin-exec
// enqueues on a stream from one thread.
unsafe impl Send for Stream {}
// SAFETY: the &self methods are thread-safe driver calls.
unsafe impl Sync for Stream {}

impl Stream {
    /// Create a non-blocking stream in `gpu`'s context (current on this thread).
    pub fn create(gpu: &Gpu, engine: &'static str) -> Result<Self> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer.
        let status = unsafe { cu::cuStreamCreate(&mut raw, cu::CU_STREAM_NON_BLOCKING.0) };
        check("cuStreamCreate", status, Context::Engine(engine))?;
        Ok(Stream {
            raw,
            engine,
            gpu: gpu.keep.hold(),
        })
    }

    fn ctx(&self) -> Context {
        Context::Engine(self.engine)
    }

    /// The driver handle (valid while this `Stream` lives).
    pub(super) fn raw(&self) -> cu::CUstream {
        self.raw
    }

    /// The engine instance this stream is.
    pub fn engine(&self) -> &'static str {
        self.engine
    }

    /// Launch `f` with a parameter block built for it. Never allocates.
    pub fn launch(
        &self,
        f: &Function,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        params: &ParamBlock,
        context: Context,
    ) -> Result<()> {
        if !params.fits(f) {
            return Err(Error::Misuse {
                misuse: Misuse::ParamBlockMismatch,
                context,
            });
        }
        // The driver reads each value through its pointer and copies it at enqueue. Only the
        // block's `len` pointers are written (and read: the kernel has `len` parameters).
        let mut ptrs = [const { MaybeUninit::<*mut c_void>::uninit() }; MAX_PARAMS];
        let values = params.values.as_ptr().cast_mut();
        // A plain counted loop: the iterator adapters cost more than the three stores.
        let len = params.len.min(MAX_PARAMS);
        #[allow(clippy::needless_range_loop)]
        for i in 0..len {
            ptrs[i] = MaybeUninit::new(values.wrapping_add(i).cast());
        }
        let ptrs_arg = if params.len == 0 {
            ptr::null_mut()
        } else {
            ptrs.as_mut_ptr().cast::<*mut c_void>()
        };
        // SAFETY: the first `len` entries of `ptrs` are written and point at the block's
        // values, which outlive the call (the driver copies the parameter values at enqueue
        // time and never writes through the pointers); it reads no entry past `len`;
        // each slot holds 8 bytes and the kernel's parameters are 4 or 8 bytes each, as many
        // as the block has (the block was checked against `f` when built, and names it);
        // every pointer parameter is the address of memory the block keeps allocated; the
        // function (kept loaded by `f`) and the stream are live.
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
    pub(crate) fn wait(
        &self,
        sem: &GpuSemaphore,
        value: u64,
        fence: &mut RawFence,
        context: Context,
    ) -> Result<()> {
        match sem.kind {
            SemaphoreKind::External(raw) => {
                let mut params: cu::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS = zeroed_wait_params();
                params.params.nvSciSync.fence = fence.as_mut_ptr();
                let sems = [raw];
                // SAFETY: the fence is a library-written fence that outlives the call (the
                // driver reads it at enqueue); the semaphore import is live.
                let status = unsafe {
                    cu::cuWaitExternalSemaphoresAsync(sems.as_ptr(), &params, 1, self.raw)
                };
                check("cuWaitExternalSemaphoresAsync", status, context)
            }
            SemaphoreKind::Counter { device_addr, .. } => {
                // SAFETY: a mapped counter (kept registered by `sem`) and a live stream.
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
    pub(crate) fn signal(
        &self,
        sem: &GpuSemaphore,
        value: u64,
        fence: &mut RawFence,
        context: Context,
    ) -> Result<()> {
        match sem.kind {
            SemaphoreKind::External(raw) => {
                let mut params: cu::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS = zeroed_signal_params();
                params.params.nvSciSync.fence = fence.as_mut_ptr();
                let sems = [raw];
                // SAFETY: the fence storage outlives the call; the driver writes it at enqueue.
                let status = unsafe {
                    cu::cuSignalExternalSemaphoresAsync(sems.as_ptr(), &params, 1, self.raw)
                };
                check("cuSignalExternalSemaphoresAsync", status, context)
            }
            SemaphoreKind::Counter { device_addr, .. } => {
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
        let Stream { raw, engine, gpu } = self;
        // SAFETY: created in `create`, destroyed once (self is consumed).
        let status = unsafe { cu::cuStreamDestroy_v2(raw) };
        drop(gpu);
        check("cuStreamDestroy", status, Context::Engine(engine))
    }
}

pub(super) fn zeroed_wait_params() -> cu::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
    // SAFETY: an all-zero bit pattern is valid for this plain-data C struct (integers, a
    // union of a pointer and an integer, arrays of integers).
    unsafe { core::mem::zeroed() }
}

pub(super) fn zeroed_signal_params() -> cu::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
    // SAFETY: as in `zeroed_wait_params`.
    unsafe { core::mem::zeroed() }
}

/// Covers: REQ-API-004
#[cfg(all(test, platform = "sil"))]
mod tests {
    use super::*;

    const CTX: Context = Context::Platform;

    /// Loads the project's cubin `name`, its kernels' models registered first.
    fn load(gpu: &Gpu, name: &str) -> GpuModule {
        let desc = orin_exec_kernels::cubin_desc(name).expect("a cubin of the project");
        for &(module, kernel, model) in orin_exec_kernels::MODELS {
            if module == name {
                crate::sil::register_kernel_model(desc, kernel, model).expect("registered");
            }
        }
        GpuModule::load(gpu, desc).expect("load")
    }

    /// Covers: REQ-RT-007
    #[test]
    fn a_launch_writes_through_a_checked_block() {
        let gpu = Gpu::open(0).unwrap();
        let timing = load(&gpu, "timing");
        let stamp = timing.function("stamp_globaltimer", CTX).unwrap();
        assert_eq!(stamp.param_count(), 1);
        let mut slots = GpuMemory::pinned(&gpu, 64, CTX).unwrap();
        slots.write_bytes(0, &[0; 64]).unwrap();
        let stream = Stream::create(&gpu, "test").unwrap();
        let at_1 = ParamBlock::builder(&stamp)
            .memory_at(&slots, 8)
            .unwrap()
            .finish()
            .unwrap();
        stream
            .launch(&stamp, [1; 3], [1; 3], 0, &at_1, CTX)
            .unwrap();
        stream.synchronize().unwrap();
        assert_eq!(slots.read_u64(0), Some(0));
        assert_ne!(slots.read_u64(1), Some(0));
        assert_eq!(slots.read_u64(8), None);
        // Children first, then every parent closes.
        drop(at_1);
        slots.release(CTX).unwrap();
        stream.destroy().unwrap();
        drop(stamp);
        timing.unload().unwrap();
        gpu.close().unwrap();
    }

    /// Covers: REQ-RT-007
    #[test]
    fn blocks_take_only_what_the_kernel_declares() {
        let gpu = Gpu::open(0).unwrap();
        let selftest = load(&gpu, "selftest");
        // fill_pattern_u32(uint32_t* dst, uint32_t n, uint32_t seed)
        let fill = selftest.function("fill_pattern_u32", CTX).unwrap();
        let saxpy = selftest.function("saxpy_f32", CTX).unwrap();
        let out = GpuMemory::pinned(&gpu, 256, CTX).unwrap();
        let bad = |r: Result<ParamBuilder<'_>>| assert!(r.is_err());
        // A number is never a pointer, whatever its width.
        bad(ParamBlock::builder(&fill).u64(0x1000));
        bad(ParamBlock::builder(&fill).u32(0x1000));
        // Values of the wrong size, and pointers outside the memory.
        bad(ParamBlock::builder(&fill).memory(&out).unwrap().u64(4));
        bad(ParamBlock::builder(&fill).memory_at(&out, 256));
        // Too few and too many.
        let short = ParamBlock::builder(&fill)
            .memory(&out)
            .unwrap()
            .u32(64)
            .unwrap();
        assert!(matches!(
            short.finish(),
            Err(Error::Misuse {
                misuse: Misuse::ParamMissing,
                ..
            })
        ));
        let full = ParamBlock::builder(&fill)
            .memory(&out)
            .unwrap()
            .u32(64)
            .unwrap()
            .u32(7)
            .unwrap();
        bad(ParamBlock::builder(&fill)
            .memory(&out)
            .unwrap()
            .u32(64)
            .unwrap()
            .u32(7)
            .unwrap()
            .u32(8));
        let block = full.finish().unwrap();
        // A block fits only a kernel with its parameter list.
        let stream = Stream::create(&gpu, "test").unwrap();
        let mismatch = |r: Result<()>| {
            assert!(matches!(
                r,
                Err(Error::Misuse {
                    misuse: Misuse::ParamBlockMismatch,
                    context: CTX,
                })
            ))
        };
        mismatch(stream.launch(&saxpy, [1; 3], [1; 3], 0, &block, CTX));
        mismatch(stream.launch(&fill, [1; 3], [1; 3], 0, &ParamBlock::empty(), CTX));
        stream
            .launch(&fill, [1; 3], [64, 1, 1], 0, &block, CTX)
            .unwrap();
        stream.synchronize().unwrap();
        drop(block);
        out.release(CTX).unwrap();
        stream.destroy().unwrap();
        drop((fill, saxpy));
        selftest.unload().unwrap();
        gpu.close().unwrap();
    }

    #[test]
    fn parents_refuse_to_close_under_live_children() {
        let gpu = Gpu::open(0).unwrap();
        let timing = load(&gpu, "timing");
        let stamp = timing.function("stamp_globaltimer", CTX).unwrap();
        let slots = GpuMemory::pinned(&gpu, 64, CTX).unwrap();
        let block = ParamBlock::builder(&stamp)
            .memory(&slots)
            .unwrap()
            .finish()
            .unwrap();
        // Each refusal leaves the parent open (leaked), so its children stay valid.
        let refused = Err(Error::Shutdown { context: CTX });
        assert_eq!(slots.release(CTX), refused);
        assert_eq!(
            timing.unload(),
            Err(Error::Shutdown {
                context: Context::Cubin("timing")
            })
        );
        let stream = Stream::create(&gpu, "test").unwrap();
        assert_eq!(gpu.close(), refused);
        // The kernel, its memory and the stream still work.
        stream
            .launch(&stamp, [1; 3], [1; 3], 0, &block, CTX)
            .unwrap();
        stream.synchronize().unwrap();
        stream.destroy().unwrap();
    }
}
