//! The hand-written baseline of the AEB chain CPU -> GPU -> DLA -> GPU -> CPU: what an
//! integrator writes with the driver APIs alone (NvSciSync, NvSciBuf, CUDA, cuDLA standalone,
//! through the project's `*-sys` bindings), no executive. `hil bench` divides the runtime's
//! figures for the same chain by these.
//!
//! Per frame `f` (`period_ns` apart, CLOCK_MONOTONIC):
//!
//! 1. CPU `src` renders the scenario's camera frame into the `camera` buffer and signals the
//!    `src` semaphore (`NvSciSyncObjSignal`); latency starts here.
//! 2. The GPU stream, enqueued in frame `f - 1`, was waiting for it: `aeb_preprocess`
//!    (`camera` -> `image`), then signals `pre`.
//! 3. The DLA task (`cudlaSubmitTask`, enqueued in frame `f - 1` with `pre`'s fence as its
//!    pre-fence) runs the detector (`image` -> `obstacle_map`, `presence`) and signals `dla`.
//! 4. The GPU stream waits for `dla`, runs `aeb_postprocess` (`obstacle_map` -> `detection`)
//!    and signals `post`.
//! 5. CPU `sink` busy-polls `post`'s fence (`NvSciSyncFenceWaitWithMode`, `BusyNoYield`);
//!    latency ends when it returns. The sink reads `detection` and `presence` and checks them
//!    against the reference models (the kernels' models and the network on the SIL ONNX
//!    interpreter, on the CPU), then decides: brake when the time to collision is below 2 s.
//! 6. Frame `f + 1`'s accelerator work is enqueued (timed: the frame's host enqueue cost), so
//!    it is already queued when `src` of `f + 1` signals.
//!
//! The enqueue of one frame is 7 driver stream/queue operations: on the GPU stream a
//! semaphore wait, a launch and a semaphore signal for each of the two kernels (6), and one
//! `cudlaSubmitTask` carrying the DLA's wait and signal events (1). Building the fences around
//! them (`NvSciSyncObjGenerateFence`, `NvSciSyncFenceUpdateFence`, `NvSciSyncFenceClear`) is
//! library work, not a queue operation, and is in the enqueue time.
//!
//! How the GPU reaches the semaphores and buffers depends on the platform, as in the runtime
//! (`src/engine/gpu.rs`): on `sil` and `orin`, NvSciSync objects imported as external
//! semaphores (`cuWait/SignalExternalSemaphoresAsync`, whose signal writes the fence the next
//! engine waits on) and NvSciBuf buffers imported as external memory; on `rig` (a discrete
//! GPU next to the SIL NvSci libraries), the SIL semaphore's 64-bit counter and the SIL
//! buffers' memory host-registered with CUDA (`cuStreamWaitValue64`, `cuStreamWriteValue64`,
//! fences for the counter values built with `NvSciSyncFenceUpdateFence`).
//!
//! Everything is released in reverse order of creation, at the end and on every error; if
//! the accelerators cannot be brought to idle (a hung engine), the objects they may still
//! touch are left allocated and the error says so.
//!
//! ```no_run
//! let samples = hil_tests::raw_dla::run(&hil_tests::raw_dla::Options {
//!     frames: 200,
//!     warmup: 10,
//!     period_ns: 4_000_000,
//! })?;
//! assert_eq!(samples.latency_ns.len(), 200);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::ffi::c_void;
use core::ptr;
use std::fmt;

use cuda_sys as cu;
use cudla_sys as cd;
use nvsci_sys as ns;
use orin_exec::engine::os;
use sha2::{Digest, Sha256};

use crate::scenario;

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Frames measured.
    pub frames: u64,
    /// Frames run before them and not counted.
    pub warmup: u64,
    /// Frame period in ns (frame `f` starts at `start + f * period_ns`, or at once if late).
    pub period_ns: u64,
}

/// What was measured, one entry per measured frame.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// End of `src` (after its signal) to the start of `sink` (its busy-poll returned), ns.
    pub latency_ns: Vec<u64>,
    /// Host time to enqueue the frame's accelerator work (fences and 7 driver calls), ns.
    pub enqueue_ns: Vec<u64>,
    /// Driver stream/queue operations per frame (GPU waits, launches, signals; DLA submits).
    pub stream_ops_per_frame: u32,
}

/// Why the chain failed.
#[derive(Debug)]
pub enum RawDlaError {
    /// A driver or library call failed.
    Call {
        /// The call.
        call: &'static str,
        /// Its status, as the library names it.
        status: String,
    },
    /// The sink read another detection than the reference models compute.
    WrongDetection {
        /// The frame.
        frame: u64,
        /// `{found, row, score, distance_mm}` read.
        got: [i32; 4],
        /// What the reference models compute.
        expected: [i32; 4],
    },
    /// An engine did not finish in time (the objects it may touch are left allocated).
    Hung {
        /// What was waited for.
        what: &'static str,
    },
    /// The build has no cubin, loadable or tensor the chain needs.
    Missing(String),
}

impl fmt::Display for RawDlaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RawDlaError::Call { call, status } => {
                write!(f, "raw DLA chain: {call} failed with {status}")
            }
            RawDlaError::WrongDetection {
                frame,
                got,
                expected,
            } => write!(
                f,
                "raw DLA chain: frame {frame}: the sink read detection {got:?}, the reference \
                 models give {expected:?} (a synchronisation or buffer binding is wrong)"
            ),
            RawDlaError::Hung { what } => write!(
                f,
                "raw DLA chain: {what} did not finish within 5 s; the buffers and semaphores \
                 it may still use are left allocated"
            ),
            RawDlaError::Missing(what) => write!(f, "raw DLA chain: {what}"),
        }
    }
}

impl std::error::Error for RawDlaError {}

type Result<T> = core::result::Result<T, RawDlaError>;

fn nvsci(call: &'static str, s: ns::NvSciError) -> Result<()> {
    s.ok().map_err(|e| RawDlaError::Call {
        call,
        status: e.to_string(),
    })
}

fn cuda(call: &'static str, s: cu::CUresult) -> Result<()> {
    s.ok().map_err(|e| RawDlaError::Call {
        call,
        status: e.to_string(),
    })
}

fn cudla(call: &'static str, s: cd::cudlaStatus) -> Result<()> {
    s.ok().map_err(|e| RawDlaError::Call {
        call,
        status: e.to_string(),
    })
}

/// How long teardown waits for an engine to go idle, and the sink for a frame, µs.
const TIMEOUT_US: i64 = 5_000_000;

/// On `rig` the GPU reaches SIL semaphores and buffers through host-registered memory.
const COUNTER_MODE: bool = cfg!(feature = "rig");

// The chain's semaphores.
const SRC: usize = 0;
const PRE: usize = 1;
const DLA: usize = 2;
const POST: usize = 3;

// The chain's buffers: name, size, CPU access, GPU access (the AEB demo's layout).
const CAMERA: usize = 0;
const IMAGE: usize = 1;
const MAP: usize = 2;
const PRESENCE: usize = 3;
const DETECTION: usize = 4;
const BUFFERS: [(&str, u64, bool, bool); 5] = [
    ("camera", 12288, true, true),
    ("image", 3072, false, true),
    ("obstacle_map", 1536, false, true),
    ("presence", 128, true, false),
    ("detection", 16, true, true),
];

/// Who takes part in a semaphore, for its attribute lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    CpuSignal,
    CpuWait,
    GpuSignal,
    GpuWait,
    DlaSignal,
    DlaWait,
}

/// How the GPU reaches one semaphore.
#[derive(Clone, Copy)]
enum GpuSem {
    None,
    /// An imported NvSciSync object (`sil`, `orin`); not built on `rig`.
    #[cfg_attr(feature = "rig", allow(dead_code))]
    External(cu::CUexternalSemaphore),
    /// The host-registered SIL counter (`rig`): its device address and host address. Built
    /// on `rig` only; the other builds keep the arms that release and use it.
    #[cfg_attr(not(feature = "rig"), allow(dead_code))]
    Counter {
        dev: cu::CUdeviceptr,
        host: *mut c_void,
    },
}

struct Sem {
    obj: ns::NvSciSyncObj,
    /// The primitive id of the object's fences (for the fences built ahead on `rig`).
    id: u64,
    gpu: GpuSem,
    dla: *mut u64,
}

struct Buf {
    obj: ns::NvSciBufObj,
    cpu: *mut c_void,
    gpu_ext: cu::CUexternalMemory,
    /// Host memory registered with CUDA (`rig`).
    gpu_host: *mut c_void,
    gpu_ptr: cu::CUdeviceptr,
    dla: *mut u64,
}

/// The fences of the frame in flight: each is filled by its signaler (or built ahead) and
/// read by its waiter during the enqueue.
struct Fences {
    src: ns::NvSciSyncFence,
    pre: ns::NvSciSyncFence,
    dla: ns::NvSciSyncFence,
    post: ns::NvSciSyncFence,
}

impl Fences {
    const CLEARED: Fences = Fences {
        src: ns::NvSciSyncFenceInitializer,
        pre: ns::NvSciSyncFenceInitializer,
        dla: ns::NvSciSyncFenceInitializer,
        post: ns::NvSciSyncFenceInitializer,
    };
}

/// Every object of the chain; null or zero where not (yet) created.
struct Chain {
    sync_module: ns::NvSciSyncModule,
    buf_module: ns::NvSciBufModule,
    wait_ctx: ns::NvSciSyncCpuWaitContext,
    sems: [Sem; 4],
    bufs: [Buf; 5],
    device: cu::CUdevice,
    ctx: cu::CUcontext,
    module: cu::CUmodule,
    preprocess: cu::CUfunction,
    postprocess: cu::CUfunction,
    stream: cu::CUstream,
    dla: cd::cudlaDevHandle,
    dla_module: cd::cudlaModule,
    /// Output tensor order of the loadable: `[obstacle_map, presence]` as buffer indices.
    dla_outputs: [usize; 2],
    fences: Fences,
    /// Frames whose accelerator work is enqueued, and `src` signals so far.
    enqueued: u64,
    signalled: u64,
    /// Whether the last submitted DLA task and GPU stream finished (teardown may release).
    idle: bool,
}

impl Chain {
    fn new() -> Chain {
        let sem = || Sem {
            obj: ptr::null_mut(),
            id: 0,
            gpu: GpuSem::None,
            dla: ptr::null_mut(),
        };
        let buf = || Buf {
            obj: ptr::null_mut(),
            cpu: ptr::null_mut(),
            gpu_ext: ptr::null_mut(),
            gpu_host: ptr::null_mut(),
            gpu_ptr: 0,
            dla: ptr::null_mut(),
        };
        Chain {
            sync_module: ptr::null_mut(),
            buf_module: ptr::null_mut(),
            wait_ctx: ptr::null_mut(),
            sems: [sem(), sem(), sem(), sem()],
            bufs: [buf(), buf(), buf(), buf(), buf()],
            device: 0,
            ctx: ptr::null_mut(),
            module: ptr::null_mut(),
            preprocess: ptr::null_mut(),
            postprocess: ptr::null_mut(),
            stream: ptr::null_mut(),
            dla: ptr::null_mut(),
            dla_module: ptr::null_mut(),
            dla_outputs: [MAP, PRESENCE],
            fences: Fences::CLEARED,
            enqueued: 0,
            signalled: 0,
            idle: true,
        }
    }
}

/// Run the chain for `opts.warmup + opts.frames` frames; every frame's detection is checked
/// against the reference models (a wrong one is an error).
pub fn run(opts: &Options) -> core::result::Result<Samples, Box<dyn std::error::Error>> {
    os::require_cuda_environment()?;
    let total = opts.warmup + opts.frames;
    let expected = reference_detections(total)?;
    let mut chain = Chain::new();
    let result = chain.open().and_then(|()| chain.frames(opts, &expected));
    let released = chain.release();
    let samples = result?;
    released?;
    Ok(samples)
}

/// The detection of frames `0..frames` of the chain as the reference models compute it: the
/// kernels' models and the network on the SIL ONNX interpreter (bit-exact with onnxruntime),
/// with the buffers' DLA layout (line pitch 64 bytes) in between. The bench checks the
/// runtime's DLA chain against it too.
pub fn reference_detections(
    frames: u64,
) -> core::result::Result<Vec<[i32; 4]>, Box<dyn std::error::Error>> {
    let net = detector()?;
    let model = sil_onnx::Model::load(net.onnx)?;
    let mut scratch = model.scratch();
    let map_index = model
        .outputs()
        .iter()
        .position(|t| t.name == "obstacle_map")
        .ok_or("the AEB network has no `obstacle_map` output")?;
    let map_desc = sil_onnx::dla::linear_desc(&model.outputs()[map_index]);
    let mut camera = vec![0u8; 12288];
    let mut image = vec![0i8; 3072];
    let mut dense: Vec<Vec<u8>> = model.outputs().iter().map(|t| vec![0u8; t.len()]).collect();
    let mut map = vec![0u8; 1536];
    let params = postprocess_params();
    let mut out = Vec::with_capacity(frames as usize);
    for f in 0..frames {
        scenario::render(f, &mut camera);
        orin_exec_kernels::aeb_preprocess(&camera, &mut image, 128, 96)?;
        let input: Vec<u8> = image.iter().map(|&v| v as u8).collect();
        let mut outs: Vec<&mut [u8]> = dense.iter_mut().map(|d| d.as_mut_slice()).collect();
        model.run(&[&input], &mut outs, &mut scratch)?;
        sil_onnx::dla::pack(&map_desc, &dense[map_index], &mut map);
        let map_i8: Vec<i8> = map.iter().map(|&v| v as i8).collect();
        let mut det = [0i32; 4];
        orin_exec_kernels::aeb_postprocess(&map_i8, 64, 24, &params, &mut det)?;
        out.push(det);
    }
    Ok(out)
}

/// `aeb_postprocess`'s scalar parameters in the AEB schedule.
fn postprocess_params() -> orin_exec_kernels::PostprocessParams {
    orin_exec_kernels::PostprocessParams {
        threshold: 32,
        lane_x0: 12,
        lane_x1: 20,
        row_scale: 4.0,
        row_offset: 3.5,
        horizon: 24.0,
        fh: 240.0,
    }
}

/// The AEB detector network as the AEB schedule's loadables manifest has it.
fn detector() -> Result<&'static orin_exec::table::LoadableDesc> {
    ::aeb::schedule::SCHEDULE
        .tables()
        .loadables
        .iter()
        .find(|l| l.name == "aeb_detector")
        .ok_or_else(|| RawDlaError::Missing("the AEB schedule has no `aeb_detector`".into()))
}

/// The image cuDLA loads and its manifest hash: the ONNX model for the SIL cuDLA (`sil`,
/// `rig`), the TensorRT-built loadable on `orin`.
fn dla_image() -> Result<(&'static [u8], [u8; 32])> {
    let net = detector()?;
    if cfg!(feature = "orin") {
        let l = net.loadable.ok_or_else(|| {
            RawDlaError::Missing(
                "`aeb_detector` has no real loadable (loadables/build_real_loadable.sh)".into(),
            )
        })?;
        return Ok((l.image, l.sha256));
    }
    Ok((net.onnx, net.onnx_sha256))
}

/// The sink's wait: a spin on the fence (NvSciSync 2.8, DRIVE OS 6.0.10; the SIL twin spins
/// on the semaphore's counter).
const WAIT_MODE: ns::NvSciSyncWaitMode = ns::NvSciSyncWaitMode_BusyNoYield;

impl Chain {
    /// Open every library object the chain uses, in dependency order.
    fn open(&mut self) -> Result<()> {
        self.open_cuda()?;
        self.open_dla()?;
        // SAFETY: valid out-pointers.
        unsafe {
            nvsci(
                "NvSciSyncModuleOpen",
                ns::NvSciSyncModuleOpen(&mut self.sync_module),
            )?;
            nvsci(
                "NvSciBufModuleOpen",
                ns::NvSciBufModuleOpen(&mut self.buf_module),
            )?;
            nvsci(
                "NvSciSyncCpuWaitContextAlloc",
                ns::NvSciSyncCpuWaitContextAlloc(self.sync_module, &mut self.wait_ctx),
            )?;
        }
        self.alloc_buffers()?;
        self.alloc_semaphores()?;
        self.warm_up()
    }

    fn open_cuda(&mut self) -> Result<()> {
        let aeb = orin_exec_kernels::cubin_desc("aeb")
            .ok_or_else(|| RawDlaError::Missing("no `aeb` cubin in orin-exec-kernels".into()))?;
        // SIL CUDA runs the kernels' reference models in place of the GPU.
        crate::register_cubin_models(aeb).map_err(|e| RawDlaError::Missing(e.to_string()))?;
        let (mut major, mut minor) = (0, 0);
        // SAFETY: plain driver calls with valid out-pointers.
        unsafe {
            cuda("cuInit", cu::cuInit(0))?;
            cuda("cuDeviceGet", cu::cuDeviceGet(&mut self.device, 0))?;
            cuda(
                "cuDeviceGetAttribute",
                cu::cuDeviceGetAttribute(
                    &mut major,
                    cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                    self.device,
                ),
            )?;
            cuda(
                "cuDeviceGetAttribute",
                cu::cuDeviceGetAttribute(
                    &mut minor,
                    cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                    self.device,
                ),
            )?;
            cuda(
                "cuDevicePrimaryCtxRetain",
                cu::cuDevicePrimaryCtxRetain(&mut self.ctx, self.device),
            )?;
            cuda("cuCtxSetCurrent", cu::cuCtxSetCurrent(self.ctx))?;
        }
        let sm = (major * 10 + minor) as u32;
        let variant = aeb
            .variants
            .iter()
            .find(|v| v.sm == sm)
            .ok_or_else(|| RawDlaError::Missing(format!("no `aeb` cubin for sm_{sm}")))?;
        if Sha256::digest(variant.image).as_slice() != variant.sha256 {
            return Err(RawDlaError::Missing(
                "the `aeb` cubin does not match its manifest hash".into(),
            ));
        }
        // SAFETY: a 'static, hash-checked cubin image; valid out-pointers; NUL-terminated
        // names.
        unsafe {
            cuda(
                "cuModuleLoadData",
                cu::cuModuleLoadData(&mut self.module, variant.image.as_ptr().cast()),
            )?;
            cuda(
                "cuModuleGetFunction",
                cu::cuModuleGetFunction(
                    &mut self.preprocess,
                    self.module,
                    c"aeb_preprocess".as_ptr(),
                ),
            )?;
            cuda(
                "cuModuleGetFunction",
                cu::cuModuleGetFunction(
                    &mut self.postprocess,
                    self.module,
                    c"aeb_postprocess".as_ptr(),
                ),
            )?;
            cuda(
                "cuStreamCreate",
                cu::cuStreamCreate(&mut self.stream, cu::CU_STREAM_NON_BLOCKING.0),
            )?;
        }
        Ok(())
    }

    fn open_dla(&mut self) -> Result<()> {
        let (image, sha256) = dla_image()?;
        if Sha256::digest(image).as_slice() != sha256 {
            return Err(RawDlaError::Missing(
                "the `aeb_detector` image does not match its manifest hash".into(),
            ));
        }
        // SAFETY: valid out-pointers; standalone mode needs no CUDA context; the image is
        // 'static and outlives the module.
        unsafe {
            cudla(
                "cudlaCreateDevice",
                cd::cudlaCreateDevice(0, &mut self.dla, cd::CUDLA_STANDALONE.0),
            )?;
            cudla(
                "cudlaModuleLoadFromMemory",
                cd::cudlaModuleLoadFromMemory(
                    self.dla,
                    image.as_ptr(),
                    image.len(),
                    &mut self.dla_module,
                    cd::CUDLA_MODULE_DEFAULT.0,
                ),
            )?;
        }
        // The loadable's tensors: one input `image` (3072 bytes), the two outputs by name.
        let inputs = self.dla_tensors(
            cd::CUDLA_NUM_INPUT_TENSORS,
            cd::CUDLA_INPUT_TENSOR_DESCRIPTORS,
        )?;
        let outputs = self.dla_tensors(
            cd::CUDLA_NUM_OUTPUT_TENSORS,
            cd::CUDLA_OUTPUT_TENSOR_DESCRIPTORS,
        )?;
        let fits =
            |(name, size): &(String, u64), b: usize| name == BUFFERS[b].0 && *size <= BUFFERS[b].1;
        if inputs.len() != 1 || !fits(&inputs[0], IMAGE) || outputs.len() != 2 {
            return Err(RawDlaError::Missing(format!(
                "`aeb_detector` has tensors {inputs:?} -> {outputs:?}, not image -> \
                 obstacle_map, presence"
            )));
        }
        for (slot, t) in self.dla_outputs.iter_mut().zip(&outputs) {
            *slot = [MAP, PRESENCE]
                .into_iter()
                .find(|&b| fits(t, b))
                .ok_or_else(|| RawDlaError::Missing(format!("unexpected DLA output {t:?}")))?;
        }
        Ok(())
    }

    /// Name and size of each input or output tensor of the loaded module.
    fn dla_tensors(
        &self,
        count: cd::cudlaModuleAttributeType,
        descs: cd::cudlaModuleAttributeType,
    ) -> Result<Vec<(String, u64)>> {
        let mut n = cd::cudlaModuleAttribute { numInputTensors: 0 };
        // SAFETY: live module; the union is the out-parameter of the count attributes.
        unsafe {
            cudla(
                "cudlaModuleGetAttributes",
                cd::cudlaModuleGetAttributes(self.dla_module, count, &mut n),
            )?;
        }
        // SAFETY: both count attributes are returned in the u32 member.
        let n = unsafe { n.numInputTensors } as usize;
        if n > 8 {
            return Err(RawDlaError::Missing(format!("{n} DLA tensors (at most 8)")));
        }
        // SAFETY: an all-zero descriptor is valid plain data (integers and a char array).
        let mut table: [cd::cudlaModuleTensorDescriptor; 8] = unsafe { core::mem::zeroed() };
        let mut value = cd::cudlaModuleAttribute {
            inputTensorDesc: table.as_mut_ptr(),
        };
        // SAFETY: `table` holds 8 >= n descriptors for cuDLA to fill (the caller allocates
        // them, cudla.h).
        unsafe {
            cudla(
                "cudlaModuleGetAttributes",
                cd::cudlaModuleGetAttributes(self.dla_module, descs, &mut value),
            )?;
        }
        Ok(table[..n]
            .iter()
            .map(|d| {
                let name: Vec<u8> = d
                    .name
                    .iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| c as u8)
                    .collect();
                (String::from_utf8_lossy(&name).into_owned(), d.size)
            })
            .collect())
    }

    /// The NvSciBuf buffers, mapped for the CPU where it reads or writes them, and imported
    /// into CUDA and cuDLA where those use them.
    fn alloc_buffers(&mut self) -> Result<()> {
        let mut uuid = cu::CUuuid { bytes: [0; 16] };
        // SAFETY: valid out-pointer, a device from cuDeviceGet.
        unsafe {
            cuda(
                "cuDeviceGetUuid",
                cu::cuDeviceGetUuid(&mut uuid, self.device),
            )?
        };
        let gpu_id = ns::NvSciRmGpuId {
            bytes: uuid.bytes.map(|b| b as u8),
        };
        for (i, &(_, size, cpu, gpu)) in BUFFERS.iter().enumerate() {
            let raw_type = ns::NvSciBufType_RawBuffer;
            let align = 256u64;
            let perm = ns::NvSciBufAccessPerm_ReadWrite;
            let pair =
                |key, value: *const c_void, len| ns::NvSciBufAttrKeyValuePair { key, value, len };
            let mut pairs = vec![
                pair(
                    ns::NvSciBufGeneralAttrKey_Types,
                    (&raw_type as *const ns::NvSciBufType).cast(),
                    4,
                ),
                pair(
                    ns::NvSciBufRawBufferAttrKey_Size,
                    (&size as *const u64).cast(),
                    8,
                ),
                pair(
                    ns::NvSciBufRawBufferAttrKey_Align,
                    (&align as *const u64).cast(),
                    8,
                ),
                pair(
                    ns::NvSciBufGeneralAttrKey_NeedCpuAccess,
                    (&cpu as *const bool).cast(),
                    1,
                ),
                pair(
                    ns::NvSciBufGeneralAttrKey_RequiredPerm,
                    (&perm as *const ns::NvSciBufAttrValAccessPerm).cast(),
                    4,
                ),
            ];
            if gpu {
                pairs.push(pair(
                    ns::NvSciBufGeneralAttrKey_GpuId,
                    (&gpu_id as *const ns::NvSciRmGpuId).cast(),
                    16,
                ));
            }
            let mut list = ptr::null_mut();
            // SAFETY: live module, valid out-pointer.
            unsafe {
                nvsci(
                    "NvSciBufAttrListCreate",
                    ns::NvSciBufAttrListCreate(self.buf_module, &mut list),
                )?;
            }
            let b = &mut self.bufs[i];
            let mut conflict = ptr::null_mut();
            // SAFETY: every pair points at a local that outlives the calls; one live list;
            // valid out-pointers. The list and any conflict list are ours to free.
            let status = unsafe {
                let set = ns::NvSciBufAttrListSetAttrs(list, pairs.as_mut_ptr(), pairs.len());
                let status = if set == ns::NvSciError_Success {
                    ns::NvSciBufAttrListReconcileAndObjAlloc(&list, 1, &mut b.obj, &mut conflict)
                } else {
                    set
                };
                if !conflict.is_null() {
                    ns::NvSciBufAttrListFree(conflict);
                }
                ns::NvSciBufAttrListFree(list);
                status
            };
            nvsci("NvSciBufAttrListReconcileAndObjAlloc", status)?;
            if cpu {
                // SAFETY: live buffer allocated with CPU access and read-write permission.
                unsafe {
                    nvsci(
                        "NvSciBufObjGetCpuPtr",
                        ns::NvSciBufObjGetCpuPtr(b.obj, &mut b.cpu),
                    )?
                };
            }
            if gpu {
                import_buffer_into_cuda(b, size)?;
            }
        }
        // The DLA's tensors: its input and both outputs.
        for i in [IMAGE, MAP, PRESENCE] {
            let b = &mut self.bufs[i];
            let desc = cd::cudlaExternalMemoryHandleDesc {
                extBufObject: b.obj as *const c_void,
                size: BUFFERS[i].1,
            };
            // SAFETY: live handle and buffer, valid out-pointer; flags 0 (read-write, the one
            // value every cuDLA version accepts).
            unsafe {
                cudla(
                    "cudlaImportExternalMemory",
                    cd::cudlaImportExternalMemory(
                        self.dla,
                        &desc,
                        &mut b.dla,
                        cd::CUDLA_READ_WRITE_PERM.0,
                    ),
                )?;
            }
        }
        Ok(())
    }

    /// The four deterministic semaphores: attribute lists of the signaler and the waiters
    /// (each with a CPU waiter, as the runtime does), reconciled, allocated and imported.
    fn alloc_semaphores(&mut self) -> Result<()> {
        // The GPU's part is a CPU signaler or nothing when it writes the counter (`rig`).
        let (gpu_signal, gpu_wait) = if COUNTER_MODE {
            (Some(Role::CpuSignal), None)
        } else {
            (Some(Role::GpuSignal), Some(Role::GpuWait))
        };
        let roles: [[Option<Role>; 3]; 4] = [
            [Some(Role::CpuSignal), Some(Role::CpuWait), gpu_wait],
            [gpu_signal, Some(Role::CpuWait), Some(Role::DlaWait)],
            [Some(Role::DlaSignal), Some(Role::CpuWait), gpu_wait],
            [gpu_signal, Some(Role::CpuWait), None],
        ];
        for (i, roles) in roles.iter().enumerate() {
            self.sems[i].obj = self.reconcile(roles)?;
            // The CPU-signalled objects: the primitive id from the first fence (the src's
            // own first fence is generated in the first enqueue, paired with its signal).
            if roles[0] == Some(Role::CpuSignal) && i != SRC {
                let mut first = ns::NvSciSyncFenceInitializer;
                let (mut id, mut value) = (0, 0);
                // SAFETY: live object with a CPU signaler; a cleared fence; valid out-pointers;
                // the fence is cleared again before it goes.
                unsafe {
                    let g = ns::NvSciSyncObjGenerateFence(self.sems[i].obj, &mut first);
                    let e = ns::NvSciSyncFenceExtractFence(&first, &mut id, &mut value);
                    ns::NvSciSyncFenceClear(&mut first);
                    nvsci("NvSciSyncObjGenerateFence", g)?;
                    nvsci("NvSciSyncFenceExtractFence", e)?;
                }
                self.sems[i].id = id;
            }
        }
        // Imports: the DLA waits on `pre` and signals `dla`; the GPU everything else.
        for i in [PRE, DLA] {
            let s = &mut self.sems[i];
            let desc = cd::cudlaExternalSemaphoreHandleDesc {
                extSyncObject: s.obj as *const c_void,
            };
            // SAFETY: live handle and object; valid out-pointer; flags must be 0.
            unsafe {
                cudla(
                    "cudlaImportExternalSemaphore",
                    cd::cudlaImportExternalSemaphore(self.dla, &desc, &mut s.dla, 0),
                )?;
            }
        }
        for i in [SRC, PRE, DLA, POST] {
            import_semaphore_into_cuda(&mut self.sems[i])?;
        }
        Ok(())
    }

    /// One attribute list per role (signaler first), reconciled into a deterministic object.
    fn reconcile(&self, roles: &[Option<Role>]) -> Result<ns::NvSciSyncObj> {
        let mut lists: Vec<ns::NvSciSyncAttrList> = vec![];
        let filled = roles
            .iter()
            .flatten()
            .try_for_each(|&role| self.attr_list(role, &mut lists));
        let mut obj = ptr::null_mut();
        let result = filled.and_then(|()| {
            let (mut reconciled, mut conflict) = (ptr::null_mut(), ptr::null_mut());
            // SAFETY: live unreconciled lists; valid out-pointers; the reconciled and
            // conflict lists are ours to free (the object keeps what it needs).
            unsafe {
                let status = ns::NvSciSyncAttrListReconcile(
                    lists.as_ptr(),
                    lists.len(),
                    &mut reconciled,
                    &mut conflict,
                );
                if !conflict.is_null() {
                    ns::NvSciSyncAttrListFree(conflict);
                }
                nvsci("NvSciSyncAttrListReconcile", status)?;
                let status = ns::NvSciSyncObjAlloc(reconciled, &mut obj);
                ns::NvSciSyncAttrListFree(reconciled);
                nvsci("NvSciSyncObjAlloc", status)
            }
        });
        for l in lists {
            // SAFETY: created by NvSciSyncAttrListCreate, freed once.
            unsafe { ns::NvSciSyncAttrListFree(l) };
        }
        result.map(|()| obj)
    }

    /// A list for `role` (pushed to `lists` as soon as it exists, so that it is freed).
    fn attr_list(&self, role: Role, lists: &mut Vec<ns::NvSciSyncAttrList>) -> Result<()> {
        let mut list = ptr::null_mut();
        // SAFETY: live module, valid out-pointer.
        unsafe {
            nvsci(
                "NvSciSyncAttrListCreate",
                ns::NvSciSyncAttrListCreate(self.sync_module, &mut list),
            )?;
        }
        lists.push(list);
        let yes = true;
        let flag = |key| ns::NvSciSyncAttrKeyValuePair {
            attrKey: key,
            value: (&yes as *const bool).cast(),
            len: 1,
        };
        let perm = match role {
            Role::CpuSignal => ns::NvSciSyncAccessPerm_SignalOnly,
            _ => ns::NvSciSyncAccessPerm_WaitOnly,
        };
        let mut pairs = vec![flag(ns::NvSciSyncAttrKey_RequireDeterministicFences)];
        if matches!(role, Role::CpuSignal | Role::CpuWait) {
            pairs.push(flag(ns::NvSciSyncAttrKey_NeedCpuAccess));
            pairs.push(ns::NvSciSyncAttrKeyValuePair {
                attrKey: ns::NvSciSyncAttrKey_RequiredPerm,
                value: (&perm as *const ns::NvSciSyncAccessPerm).cast(),
                len: size_of::<ns::NvSciSyncAccessPerm>(),
            });
        }
        // SAFETY: the pairs point at locals that outlive the call; live list. The engine
        // calls take the list handle as a pointer, as their documentation says.
        unsafe {
            nvsci(
                "NvSciSyncAttrListSetAttrs",
                ns::NvSciSyncAttrListSetAttrs(list, pairs.as_ptr(), pairs.len()),
            )?;
            match role {
                Role::GpuSignal | Role::GpuWait => cuda(
                    "cuDeviceGetNvSciSyncAttributes",
                    cu::cuDeviceGetNvSciSyncAttributes(
                        list.cast(),
                        self.device,
                        if role == Role::GpuSignal {
                            cu::CUDA_NVSCISYNC_ATTR_SIGNAL
                        } else {
                            cu::CUDA_NVSCISYNC_ATTR_WAIT
                        },
                    ),
                ),
                Role::DlaSignal | Role::DlaWait => cudla(
                    "cudlaGetNvSciSyncAttributes",
                    cd::cudlaGetNvSciSyncAttributes(
                        list.cast(),
                        if role == Role::DlaSignal {
                            cd::CUDLA_NVSCISYNC_ATTR_SIGNAL.0
                        } else {
                            cd::CUDLA_NVSCISYNC_ATTR_WAIT.0
                        },
                    ),
                ),
                Role::CpuSignal | Role::CpuWait => Ok(()),
            }
        }
    }

    /// Launch each kernel once and wait, before any stream waits on a semaphore the CPU
    /// signals: a module the driver loads lazily at the first launch would otherwise load
    /// behind a blocked stream.
    fn warm_up(&mut self) -> Result<()> {
        self.launch_preprocess()?;
        self.launch_postprocess()?;
        // SAFETY: live stream.
        unsafe { cuda("cuStreamSynchronize", cu::cuStreamSynchronize(self.stream)) }
    }

    fn launch_preprocess(&self) -> Result<()> {
        let (mut src, mut dst) = (self.bufs[CAMERA].gpu_ptr, self.bufs[IMAGE].gpu_ptr);
        let (mut w, mut h) = (128u32, 96u32);
        let mut args: [*mut c_void; 4] = [
            (&mut src as *mut u64).cast(),
            (&mut dst as *mut u64).cast(),
            (&mut w as *mut u32).cast(),
            (&mut h as *mut u32).cast(),
        ];
        // SAFETY: the values match the kernel's parameters (two device pointers to live
        // mappings of at least 12288 and 3072 bytes, two u32) and outlive the call (the
        // driver copies them at enqueue); live function and stream.
        unsafe {
            cuda(
                "cuLaunchKernel",
                cu::cuLaunchKernel(
                    self.preprocess,
                    4,
                    3,
                    1,
                    16,
                    16,
                    1,
                    0,
                    self.stream,
                    args.as_mut_ptr(),
                    ptr::null_mut(),
                ),
            )
        }
    }

    fn launch_postprocess(&self) -> Result<()> {
        let p = postprocess_params();
        let (mut map, mut out) = (self.bufs[MAP].gpu_ptr, self.bufs[DETECTION].gpu_ptr);
        let (mut pitch, mut rows, mut threshold) = (64u32, 24u32, p.threshold);
        let (mut x0, mut x1) = (p.lane_x0, p.lane_x1);
        let (mut scale, mut offset, mut horizon, mut fh) =
            (p.row_scale, p.row_offset, p.horizon, p.fh);
        let mut args: [*mut c_void; 11] = [
            (&mut map as *mut u64).cast(),
            (&mut pitch as *mut u32).cast(),
            (&mut rows as *mut u32).cast(),
            (&mut threshold as *mut i32).cast(),
            (&mut x0 as *mut u32).cast(),
            (&mut x1 as *mut u32).cast(),
            (&mut scale as *mut f32).cast(),
            (&mut offset as *mut f32).cast(),
            (&mut horizon as *mut f32).cast(),
            (&mut fh as *mut f32).cast(),
            (&mut out as *mut u64).cast(),
        ];
        // SAFETY: the values match the kernel's parameters (map pointer to a live 1536-byte
        // mapping, 64 x 24 map, scalars, detection pointer to a live 16-byte mapping) and
        // outlive the call; live function and stream.
        unsafe {
            cuda(
                "cuLaunchKernel",
                cu::cuLaunchKernel(
                    self.postprocess,
                    1,
                    1,
                    1,
                    256,
                    1,
                    1,
                    0,
                    self.stream,
                    args.as_mut_ptr(),
                    ptr::null_mut(),
                ),
            )
        }
    }

    /// The GPU stream waits for `sem` to reach `value`, whose fence is `fence`.
    fn gpu_wait(&self, sem: usize, value: u64, fence: *mut ns::NvSciSyncFence) -> Result<()> {
        match self.sems[sem].gpu {
            GpuSem::External(ext) => {
                let mut params: cu::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS = zeroed_wait();
                params.params.nvSciSync.fence = fence.cast();
                // SAFETY: a filled fence that outlives the call (the driver reads it at
                // enqueue); a live import and stream.
                unsafe {
                    cuda(
                        "cuWaitExternalSemaphoresAsync",
                        cu::cuWaitExternalSemaphoresAsync(&ext, &params, 1, self.stream),
                    )
                }
            }
            // SAFETY: a registered counter (kept so until teardown) and a live stream.
            GpuSem::Counter { dev, .. } => unsafe {
                cuda(
                    "cuStreamWaitValue64",
                    cu::cuStreamWaitValue64_v2(
                        self.stream,
                        dev,
                        value,
                        cu::CU_STREAM_WAIT_VALUE_GEQ.0,
                    ),
                )
            },
            GpuSem::None => Err(RawDlaError::Missing(
                "a semaphore the GPU does not reach".into(),
            )),
        }
    }

    /// The GPU stream signals `sem` (to `value`); `fence` receives the fence of that value.
    fn gpu_signal(&self, sem: usize, value: u64, fence: *mut ns::NvSciSyncFence) -> Result<()> {
        match self.sems[sem].gpu {
            GpuSem::External(ext) => {
                let mut params: cu::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS = zeroed_signal();
                params.params.nvSciSync.fence = fence.cast();
                // SAFETY: writable fence storage that outlives the call (the driver writes it
                // at enqueue); a live import and stream.
                unsafe {
                    cuda(
                        "cuSignalExternalSemaphoresAsync",
                        cu::cuSignalExternalSemaphoresAsync(&ext, &params, 1, self.stream),
                    )
                }
            }
            GpuSem::Counter { dev, .. } => {
                // SAFETY: a registered counter and a live stream; the default flag orders the
                // kernel's writes before the counter write. The fence is built for the value
                // the write will store (the object has a CPU signaler list, so its id is
                // known).
                unsafe {
                    cuda(
                        "cuStreamWriteValue64",
                        cu::cuStreamWriteValue64_v2(
                            self.stream,
                            dev,
                            value,
                            cu::CU_STREAM_WRITE_VALUE_DEFAULT.0,
                        ),
                    )?;
                    nvsci(
                        "NvSciSyncFenceUpdateFence",
                        ns::NvSciSyncFenceUpdateFence(
                            self.sems[sem].obj,
                            self.sems[sem].id,
                            value,
                            fence,
                        ),
                    )
                }
            }
            GpuSem::None => Err(RawDlaError::Missing(
                "a semaphore the GPU does not reach".into(),
            )),
        }
    }

    /// Enqueue frame `f`'s accelerator work; returns the driver stream/queue operations it
    /// made. The fences move out of `self` for the calls (they are plain data; the libraries
    /// write them during the calls and keep no pointer to them) and always move back, so
    /// that teardown clears them.
    fn enqueue(&mut self, f: u64) -> Result<u32> {
        let mut fences = core::mem::replace(&mut self.fences, Fences::CLEARED);
        let mut ops = 0;
        let result = self.enqueue_with(f + 1, &mut fences, &mut ops);
        self.fences = fences;
        result.map(|()| ops)
    }

    fn enqueue_with(&mut self, value: u64, fences: &mut Fences, ops: &mut u32) -> Result<()> {
        // SAFETY: valid fences (cleared or library-filled); clearing drops their references.
        // The object is live and has a CPU signaler.
        unsafe {
            ns::NvSciSyncFenceClear(&mut fences.pre);
            ns::NvSciSyncFenceClear(&mut fences.dla);
            ns::NvSciSyncFenceClear(&mut fences.post);
            // The CPU signaler's next point: paired with the `src` signal of this frame.
            nvsci(
                "NvSciSyncObjGenerateFence",
                ns::NvSciSyncObjGenerateFence(self.sems[SRC].obj, &mut fences.src),
            )?;
        }
        // From here the stream may wait for `src`: teardown must signal it.
        self.enqueued = value;
        let mut op = |r: Result<()>| {
            *ops += 1;
            r
        };
        op(self.gpu_wait(SRC, value, &mut fences.src))?;
        op(self.launch_preprocess())?;
        op(self.gpu_signal(PRE, value, &mut fences.pre))?;
        op(self.submit_dla(&mut fences.pre, &mut fences.dla))?;
        op(self.gpu_wait(DLA, value, &mut fences.dla))?;
        op(self.launch_postprocess())?;
        op(self.gpu_signal(POST, value, &mut fences.post))
    }

    /// One DLA task: waits for `pre`, signals the `dla` semaphore (its EOF fence into `eof`).
    fn submit_dla(&self, pre: &mut ns::NvSciSyncFence, eof: &mut ns::NvSciSyncFence) -> Result<()> {
        let wait = [cd::CudlaFence {
            fence: (pre as *mut ns::NvSciSyncFence).cast(),
            r#type: cd::CUDLA_NVSCISYNC_FENCE,
        }];
        let wait_events = cd::cudlaWaitEvents {
            preFences: wait.as_ptr(),
            numEvents: 1,
        };
        let sems = [self.sems[DLA].dla];
        let mut signal = [cd::CudlaFence {
            fence: (eof as *mut ns::NvSciSyncFence).cast(),
            r#type: cd::CUDLA_NVSCISYNC_FENCE,
        }];
        let mut signal_events = cd::cudlaSignalEvents {
            devPtrs: sems.as_ptr(),
            eofFences: signal.as_mut_ptr(),
            numEvents: 1,
        };
        let inputs = [self.bufs[IMAGE].dla as *const u64];
        let outputs = self.dla_outputs.map(|b| self.bufs[b].dla);
        let task = cd::cudlaTask {
            moduleHandle: self.dla_module,
            outputTensor: outputs.as_ptr(),
            numOutputTensors: 2,
            numInputTensors: 1,
            inputTensor: inputs.as_ptr(),
            waitEvents: &wait_events,
            signalEvents: &mut signal_events,
        };
        // SAFETY: every pointer in `task` refers to locals or chain storage that outlive the
        // call; the tensors are live imports of this handle as large as the module's
        // tensors (checked at open) in the module's order; the signal is a live semaphore
        // import; the stream is NULL as standalone mode requires.
        unsafe {
            cudla(
                "cudlaSubmitTask",
                cd::cudlaSubmitTask(self.dla, &task, 1, ptr::null_mut(), 0),
            )
        }
    }

    /// The measured loop.
    fn frames(&mut self, opts: &Options, expected: &[[i32; 4]]) -> Result<Samples> {
        let total = opts.warmup + opts.frames;
        let mut samples = Samples {
            latency_ns: Vec::with_capacity(opts.frames as usize),
            enqueue_ns: Vec::with_capacity(opts.frames as usize),
            stream_ops_per_frame: 0,
        };
        if total == 0 {
            return Ok(samples);
        }
        let mut camera = vec![0u8; 12288];
        self.idle = false;
        let t = os::monotonic_ns();
        let ops = self.enqueue(0)?;
        let mut enqueue_ns = os::monotonic_ns() - t;
        let start = os::monotonic_ns() + opts.period_ns;
        for f in 0..total {
            os::sleep_until(start + f * opts.period_ns);
            // src: the camera frame, then the signal the GPU stream waits for.
            scenario::render(f, &mut camera);
            // SAFETY: the CPU mapping holds 12288 bytes; no engine reads `camera` now (frame
            // f - 1's chain finished, frame f's waits for the signal below).
            unsafe {
                ptr::copy_nonoverlapping(
                    camera.as_ptr(),
                    self.bufs[CAMERA].cpu.cast(),
                    camera.len(),
                )
            };
            // SAFETY: live object with a CPU signaler.
            unsafe {
                nvsci(
                    "NvSciSyncObjSignal",
                    ns::NvSciSyncObjSignal(self.sems[SRC].obj),
                )?
            };
            self.signalled += 1;
            let src_end = os::monotonic_ns();
            // sink: busy-poll the postprocess's fence.
            // SAFETY: a library-filled fence; this thread's wait context.
            let status = unsafe {
                ns::NvSciSyncFenceWaitWithMode(
                    &self.fences.post,
                    self.wait_ctx,
                    TIMEOUT_US,
                    WAIT_MODE,
                )
            };
            let sink_start = os::monotonic_ns();
            if status == ns::NvSciError_Timeout {
                return Err(RawDlaError::Hung {
                    what: "the frame's chain",
                });
            }
            nvsci("NvSciSyncFenceWaitWithMode", status)?;
            let (got, obstacle) = self.read_sink();
            if got != expected[f as usize] || (got[0] == 1) != obstacle {
                return Err(RawDlaError::WrongDetection {
                    frame: f,
                    got,
                    expected: expected[f as usize],
                });
            }
            let _brake = decide(got);
            if f >= opts.warmup {
                samples.latency_ns.push(sink_start - src_end);
                samples.enqueue_ns.push(enqueue_ns);
            }
            if f + 1 < total {
                let t = os::monotonic_ns();
                let n = self.enqueue(f + 1)?;
                enqueue_ns = os::monotonic_ns() - t;
                samples.stream_ops_per_frame = samples.stream_ops_per_frame.max(n);
            }
        }
        samples.stream_ops_per_frame = samples.stream_ops_per_frame.max(ops);
        Ok(samples)
    }

    /// The sink's reads: the detection, and whether the DLA's presence head says obstacle.
    fn read_sink(&self) -> ([i32; 4], bool) {
        let mut det = [0i32; 4];
        let mut presence = [0i8; 128];
        // SAFETY: the CPU mappings hold 16 and 128 bytes; the engines writing them finished
        // (the sink's fence was reached). Volatile: an engine wrote them.
        unsafe {
            let d = self.bufs[DETECTION].cpu.cast::<i32>();
            for (i, v) in det.iter_mut().enumerate() {
                *v = ptr::read_volatile(d.add(i));
            }
            let p = self.bufs[PRESENCE].cpu.cast::<i8>();
            for (i, v) in presence.iter_mut().enumerate() {
                *v = ptr::read_volatile(p.add(i));
            }
        }
        // Logits [no obstacle, obstacle], channel pitch 64.
        (det, presence[64] > presence[0])
    }

    /// Bring the engines to idle: frames enqueued but not released by `src` get their
    /// signal (stale inputs, never read), then the GPU stream and the last DLA task must
    /// finish within the timeout.
    fn drain(&mut self) -> Result<()> {
        if self.idle {
            return Ok(());
        }
        while self.signalled < self.enqueued {
            // SAFETY: live object with a CPU signaler.
            unsafe {
                nvsci(
                    "NvSciSyncObjSignal",
                    ns::NvSciSyncObjSignal(self.sems[SRC].obj),
                )?
            };
            self.signalled += 1;
        }
        if !self.wait_ctx.is_null() {
            for (fence, what) in [
                (&self.fences.dla, "the DLA"),
                (&self.fences.post, "the GPU stream"),
            ] {
                // SAFETY: library-filled (or cleared) fences; this thread's wait context.
                let s = unsafe { ns::NvSciSyncFenceWait(fence, self.wait_ctx, TIMEOUT_US) };
                if s == ns::NvSciError_Timeout {
                    return Err(RawDlaError::Hung { what });
                }
            }
        }
        if !self.stream.is_null() {
            let deadline = os::monotonic_ns() + TIMEOUT_US as u64 * 1000;
            // SAFETY: live stream.
            while unsafe { cu::cuStreamQuery(self.stream) } == cu::CUDA_ERROR_NOT_READY {
                if os::monotonic_ns() > deadline {
                    return Err(RawDlaError::Hung {
                        what: "the GPU stream",
                    });
                }
                std::thread::yield_now();
            }
        }
        self.idle = true;
        Ok(())
    }

    /// Release everything that exists, children before parents: fences, the cuDLA imports,
    /// module and device; the CUDA imports, registrations, stream, module and context; the
    /// NvSciSync/NvSciBuf objects, wait context and modules. The first failure is returned;
    /// the rest is still released. With an engine hung, what it may touch stays allocated.
    fn release(&mut self) -> Result<()> {
        let mut first: Result<()> = self.drain();
        let mut keep = |r: Result<()>| {
            if first.is_ok() {
                first = r;
            }
        };
        let hung = !self.idle;
        // SAFETY: (the whole block) every handle below was created by the matching call, is
        // released once (nulled after), and no engine work that uses it is pending (`idle`,
        // checked above; with a hung engine only what it cannot reach is released).
        unsafe {
            for f in [
                &mut self.fences.src,
                &mut self.fences.pre,
                &mut self.fences.dla,
                &mut self.fences.post,
            ] {
                ns::NvSciSyncFenceClear(f);
            }
            if !hung {
                for b in &mut self.bufs {
                    if !b.dla.is_null() {
                        keep(cudla(
                            "cudlaMemUnregister",
                            cd::cudlaMemUnregister(self.dla, b.dla),
                        ));
                        b.dla = ptr::null_mut();
                    }
                }
                for s in &mut self.sems {
                    if !s.dla.is_null() {
                        keep(cudla(
                            "cudlaMemUnregister",
                            cd::cudlaMemUnregister(self.dla, s.dla),
                        ));
                        s.dla = ptr::null_mut();
                    }
                }
                if !self.dla_module.is_null() {
                    keep(cudla(
                        "cudlaModuleUnload",
                        cd::cudlaModuleUnload(self.dla_module, 0),
                    ));
                    self.dla_module = ptr::null_mut();
                }
                if !self.dla.is_null() {
                    keep(cudla(
                        "cudlaDestroyDevice",
                        cd::cudlaDestroyDevice(self.dla),
                    ));
                    self.dla = ptr::null_mut();
                }
                for s in &mut self.sems {
                    match s.gpu {
                        GpuSem::External(ext) => keep(cuda(
                            "cuDestroyExternalSemaphore",
                            cu::cuDestroyExternalSemaphore(ext),
                        )),
                        GpuSem::Counter { host, .. } => {
                            keep(cuda("cuMemHostUnregister", cu::cuMemHostUnregister(host)))
                        }
                        GpuSem::None => {}
                    }
                    s.gpu = GpuSem::None;
                }
                for b in &mut self.bufs {
                    if !b.gpu_ext.is_null() {
                        if b.gpu_ptr != 0 {
                            keep(cuda("cuMemFree", cu::cuMemFree_v2(b.gpu_ptr)));
                        }
                        keep(cuda(
                            "cuDestroyExternalMemory",
                            cu::cuDestroyExternalMemory(b.gpu_ext),
                        ));
                    }
                    if !b.gpu_host.is_null() {
                        keep(cuda(
                            "cuMemHostUnregister",
                            cu::cuMemHostUnregister(b.gpu_host),
                        ));
                    }
                    (b.gpu_ext, b.gpu_host, b.gpu_ptr) = (ptr::null_mut(), ptr::null_mut(), 0);
                }
                if !self.stream.is_null() {
                    keep(cuda("cuStreamDestroy", cu::cuStreamDestroy_v2(self.stream)));
                    self.stream = ptr::null_mut();
                }
                if !self.module.is_null() {
                    keep(cuda("cuModuleUnload", cu::cuModuleUnload(self.module)));
                    (self.module, self.preprocess, self.postprocess) =
                        (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
                }
                if !self.ctx.is_null() {
                    keep(cuda(
                        "cuDevicePrimaryCtxRelease",
                        cu::cuDevicePrimaryCtxRelease_v2(self.device),
                    ));
                    self.ctx = ptr::null_mut();
                }
                for s in &mut self.sems {
                    if !s.obj.is_null() {
                        ns::NvSciSyncObjFree(s.obj);
                        s.obj = ptr::null_mut();
                    }
                }
                for b in &mut self.bufs {
                    if !b.obj.is_null() {
                        ns::NvSciBufObjFree(b.obj);
                        (b.obj, b.cpu) = (ptr::null_mut(), ptr::null_mut());
                    }
                }
                if !self.buf_module.is_null() {
                    ns::NvSciBufModuleClose(self.buf_module);
                    self.buf_module = ptr::null_mut();
                }
            }
            if !self.wait_ctx.is_null() {
                ns::NvSciSyncCpuWaitContextFree(self.wait_ctx);
                self.wait_ctx = ptr::null_mut();
            }
            if !hung && !self.sync_module.is_null() {
                ns::NvSciSyncModuleClose(self.sync_module);
                self.sync_module = ptr::null_mut();
            }
        }
        first
    }
}

/// The sink's decision: brake when the obstacle is closer than 2 s at the ego speed (the AEB
/// demo's rule).
fn decide(det: [i32; 4]) -> bool {
    det[0] == 1
        && det[3] >= 0
        && (f64::from(det[3]) / 1000.0) / scenario::EGO_SPEED < scenario::TTC_BRAKE_S
}

/// Map an NvSciBuf buffer for the GPU: external memory (`sil`, `orin`) or its SIL memory
/// host-registered (`rig`).
fn import_buffer_into_cuda(b: &mut Buf, size: u64) -> Result<()> {
    #[cfg(feature = "rig")]
    {
        let _ = size;
        let (mut host, mut len) = (ptr::null_mut(), 0);
        // SAFETY: live buffer, valid out-pointers; the memory is page-aligned whole pages,
        // live as long as the buffer, which outlives the registration (released first).
        unsafe {
            nvsci(
                "NvSciBufSilObjGetMemory",
                ns::sil::NvSciBufSilObjGetMemory(b.obj, &mut host, &mut len),
            )?;
            cuda(
                "cuMemHostRegister",
                cu::cuMemHostRegister_v2(
                    host,
                    len as usize,
                    cu::CU_MEMHOSTREGISTER_DEVICEMAP | cu::CU_MEMHOSTREGISTER_PORTABLE,
                ),
            )?;
            b.gpu_host = host;
            cuda(
                "cuMemHostGetDevicePointer",
                cu::cuMemHostGetDevicePointer_v2(&mut b.gpu_ptr, host, 0),
            )
        }
    }
    #[cfg(not(feature = "rig"))]
    {
        let desc = cu::CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
            r#type: cu::CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF,
            handle: cu::CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle {
                nvSciBufObject: b.obj as *const c_void,
            },
            size,
            flags: 0,
            reserved: [0; 16],
        };
        let map = cu::CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
            offset: 0,
            size,
            flags: 0,
            reserved: [0; 16],
        };
        // SAFETY: valid descriptors for a live buffer; valid out-pointers.
        unsafe {
            cuda(
                "cuImportExternalMemory",
                cu::cuImportExternalMemory(&mut b.gpu_ext, &desc),
            )?;
            cuda(
                "cuExternalMemoryGetMappedBuffer",
                cu::cuExternalMemoryGetMappedBuffer(&mut b.gpu_ptr, b.gpu_ext, &map),
            )
        }
    }
}

/// Let the GPU reach a semaphore: import it (`sil`, `orin`) or map its SIL counter (`rig`).
fn import_semaphore_into_cuda(s: &mut Sem) -> Result<()> {
    #[cfg(feature = "rig")]
    {
        let mut counter = ptr::null_mut();
        // SAFETY: live object, valid out-pointers; the counter sits alone in its page for the
        // life of the object, which outlives the registration (released first).
        unsafe {
            nvsci(
                "NvSciSyncSilObjGetCounter",
                ns::sil::NvSciSyncSilObjGetCounter(s.obj, &mut counter),
            )?;
            let host = counter.cast::<c_void>();
            cuda(
                "cuMemHostRegister",
                cu::cuMemHostRegister_v2(
                    host,
                    size_of::<u64>(),
                    cu::CU_MEMHOSTREGISTER_DEVICEMAP | cu::CU_MEMHOSTREGISTER_PORTABLE,
                ),
            )?;
            s.gpu = GpuSem::Counter { dev: 0, host };
            let mut dev = 0;
            cuda(
                "cuMemHostGetDevicePointer",
                cu::cuMemHostGetDevicePointer_v2(&mut dev, host, 0),
            )?;
            s.gpu = GpuSem::Counter { dev, host };
            // The real GPU writes mapped counters without notifying the SIL: waits on them
            // (the DLA's pre-fence, the sink) must watch the counter.
            nvsci(
                "NvSciSyncSilObjSetDeviceWritten",
                ns::sil::NvSciSyncSilObjSetDeviceWritten(s.obj),
            )?;
            Ok(())
        }
    }
    #[cfg(not(feature = "rig"))]
    {
        let desc = cu::CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
            r#type: cu::CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC,
            handle: cu::CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle {
                nvSciSyncObj: s.obj as *const c_void,
            },
            flags: 0,
            reserved: [0; 16],
        };
        let mut ext = ptr::null_mut();
        // SAFETY: a valid descriptor for a live object; valid out-pointer.
        unsafe {
            cuda(
                "cuImportExternalSemaphore",
                cu::cuImportExternalSemaphore(&mut ext, &desc),
            )?;
        }
        s.gpu = GpuSem::External(ext);
        Ok(())
    }
}

fn zeroed_wait() -> cu::CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
    // SAFETY: all-zero is a valid value of this plain-data C struct (integers, a union of a
    // pointer and integers, integer arrays).
    unsafe { core::mem::zeroed() }
}

fn zeroed_signal() -> cu::CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
    // SAFETY: as in `zeroed_wait`.
    unsafe { core::mem::zeroed() }
}
