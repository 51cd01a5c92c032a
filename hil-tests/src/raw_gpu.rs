//! The hand-written baselines of the `gpu_bench` pipeline (CPU `src` → GPU `aeb_preprocess` →
//! GPU `aeb_postprocess` → CPU `sink`) for `hil bench`: the CUDA driver API called directly
//! through `cuda-sys`, no runtime code on the measured path, so that the runtime's numbers can
//! be divided by what the same driver can do in the same process.
//!
//! Every baseline runs one frame per period on the thread that calls it: sleep until the
//! release, the CPU `src` renders the AEB scenario's camera frame into pinned, device-mapped
//! memory, then the GPU work runs and the CPU `sink` reads the detection (checked against the
//! reference models every frame). Latency = end of `src` to start of `sink` (`CLOCK_MONOTONIC`).
//! What differs is how the GPU work is submitted and how the sink learns that it finished:
//!
//! * [`Baseline::PreEnqueued`]: frame f+1's stream work is enqueued during frame f (after its
//!   sink): `cuStreamWaitValue64(go ≥ f+2)`, the two `cuLaunchKernel`s,
//!   `cuStreamWriteValue64(done = f+2)`. The src publishes `go` with a host store; the sink
//!   spins on the host-mapped `done` word. 4 driver calls per frame, none between src and sink.
//! * [`Baseline::Graph`]: one CUDA graph (captured once: the two launches and a
//!   `cuStreamWriteValue64(done = 1)`, instantiated once) launched per frame after the src with
//!   one `cuGraphLaunch`; the sink clears `done` before the launch and spins on it (on `sil`
//!   too: SIL CUDA captures launches and stream memory operations into graphs).
//! * [`Baseline::LaunchSync`]: after the src, the two `cuLaunchKernel`s and
//!   `cuStreamSynchronize` (3 calls per frame on the critical path).
//! * [`Baseline::RuntimeShape`]: pre-enqueued like `PreEnqueued`, in the runtime's stream shape
//!   for this schedule without its elision (one semaphore wait per `after` edge, in the
//!   schedule's order, one write per task): preprocess = wait(sink ≥ f), wait(src ≥ f+1),
//!   launch, write(pre = f+1); postprocess = wait(pre ≥ f+1), launch, write(done = f+1). The
//!   host enqueue of each task is timed alone: the raw cost of a GPU task's enqueue in the
//!   runtime's shape.
//!
//! Before any stream waits on a word the CPU writes, both kernels are launched and the stream
//! synchronised once (a module loaded lazily at the first launch behind a wait would deadlock
//! the stream), and the graph is instantiated.
//!
//! `unsafe` is used here (the project keeps it to `bindings/`, `sil/` and `src/engine/`
//! otherwise): a baseline of the driver cannot go through the runtime's safe wrappers it is
//! compared with. Every handle and pointer stays inside [`RawGpu`], which releases them in
//! order when dropped.

use core::ffi::c_void;
use core::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

use cuda_sys as cu;
use orin_exec::engine::os;

use crate::scenario;

/// A driver error or a wrong result of a baseline.
pub type Error = Box<dyn std::error::Error>;

fn check(call: &str, status: cu::CUresult) -> Result<(), Error> {
    if status == cu::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!("raw baseline: {call} failed: {status}").into())
    }
}

/// Which hand-written baseline (see the module docs for the calls of each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Pre-enqueued stream work, busy-polling sink.
    PreEnqueued,
    /// One CUDA graph launch per frame, busy-polling sink.
    Graph,
    /// Two launches and `cuStreamSynchronize` per frame.
    LaunchSync,
    /// Pre-enqueued in the runtime's stream shape (3 waits, 2 writes per frame).
    RuntimeShape,
}

impl Baseline {
    /// Every baseline, in the order `hil bench` runs them (the synchronous one first: it warms
    /// the stream up without any wait on a CPU-written word).
    pub const ALL: [Baseline; 4] = [
        Baseline::LaunchSync,
        Baseline::Graph,
        Baseline::PreEnqueued,
        Baseline::RuntimeShape,
    ];

    /// A short name for the tables.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::PreEnqueued => "raw pre-enqueued + busy-poll",
            Baseline::Graph => "raw CUDA graph per frame",
            Baseline::LaunchSync => "raw launch + synchronize",
            Baseline::RuntimeShape => "raw runtime shape (3 waits, 2 writes)",
        }
    }

    /// Stream memory operations (waits and writes, not launches) per frame.
    pub fn stream_ops_per_frame(self) -> u32 {
        match self {
            Baseline::PreEnqueued | Baseline::Graph => 2,
            Baseline::LaunchSync => 0,
            Baseline::RuntimeShape => 5,
        }
    }

    /// Host driver calls per frame.
    pub fn calls_per_frame(self) -> u32 {
        match self {
            Baseline::PreEnqueued => 4,
            Baseline::Graph => 1,
            Baseline::LaunchSync => 3,
            Baseline::RuntimeShape => 7,
        }
    }
}

/// Options of a baseline run.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Measured frames.
    pub frames: u64,
    /// Frames run before them and not counted.
    pub warmup: u64,
    /// Frame period, ns.
    pub period_ns: u64,
}

/// What one baseline measured (measured frames only).
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// End of `src` to start of `sink`, ns, per frame.
    pub latency_ns: Vec<u64>,
    /// Host time of the frame's driver calls, ns, per frame.
    pub enqueue_ns: Vec<u64>,
    /// [`Baseline::RuntimeShape`] only: the host enqueue of each GPU task (wait(s), launch,
    /// write), ns.
    pub task_enqueue_ns: Vec<u64>,
    /// [`Baseline::Graph`] only: the host time of the `cuGraphLaunch` call alone, ns, per
    /// frame (what the runtime's graph submission of a frame is compared with).
    pub launch_ns: Vec<u64>,
}

/// The postprocess parameters of `schedules/gpu_bench.toml` (the preprocessed image as a score
/// map): threshold, lane, row scale/offset, horizon, f·h.
const POST: (u32, u32, i32, u32, u32, [f32; 4]) = (64, 48, 100, 24, 40, [2.0, 1.0, 24.0, 240.0]);

/// The detection the gpu_bench pipeline computes for `frame` (reference models).
pub fn expected(frame: u64) -> [i32; 4] {
    let mut cam = vec![0u8; CAMERA];
    scenario::render(frame, &mut cam);
    let mut image = vec![0i8; IMAGE];
    let _ = orin_exec_kernels::aeb_preprocess(&cam, &mut image, 128, 96);
    let (_, _, threshold, lane_x0, lane_x1, [row_scale, row_offset, horizon, fh]) = POST;
    let p = orin_exec_kernels::PostprocessParams {
        threshold,
        lane_x0,
        lane_x1,
        row_scale,
        row_offset,
        horizon,
        fh,
    };
    let mut out = [0i32; 4];
    let _ = orin_exec_kernels::aeb_postprocess(&image, POST.0, POST.1, &p, &mut out);
    out
}

const CAMERA: usize = 12288;
const IMAGE: usize = 3072;
/// Words of the flags buffer.
const GO: usize = 0;
const PRE: usize = 1;
const SINK: usize = 2;
const DONE: usize = 3;
const FLAGS: usize = 4;

/// Pinned, device-mapped host memory.
struct HostBuf {
    host: *mut c_void,
    dev: cu::CUdeviceptr,
}

impl HostBuf {
    /// No allocation (before `alloc`, after the release).
    const NONE: HostBuf = HostBuf {
        host: ptr::null_mut(),
        dev: 0,
    };

    fn alloc(len: usize) -> Result<HostBuf, Error> {
        let mut host = ptr::null_mut();
        // SAFETY: valid out-pointer; DEVICEMAP | PORTABLE is a documented flag set.
        let s = unsafe {
            cu::cuMemHostAlloc(
                &mut host,
                len,
                cu::CU_MEMHOSTALLOC_DEVICEMAP | cu::CU_MEMHOSTALLOC_PORTABLE,
            )
        };
        check("cuMemHostAlloc", s)?;
        let mut buf = HostBuf { host, dev: 0 };
        // SAFETY: `host` was just allocated with DEVICEMAP; flags must be 0.
        let s = unsafe { cu::cuMemHostGetDevicePointer_v2(&mut buf.dev, host, 0) };
        check("cuMemHostGetDevicePointer", s)?;
        // SAFETY: `len` bytes were allocated at `host`.
        unsafe { ptr::write_bytes(buf.host.cast::<u8>(), 0, len) };
        Ok(buf)
    }
}

impl Drop for HostBuf {
    fn drop(&mut self) {
        if !self.host.is_null() {
            // SAFETY: allocated by cuMemHostAlloc, freed once; the GPU work using it has
            // finished (RawGpu synchronises its stream before its buffers are freed).
            let _ = unsafe { cu::cuMemFreeHost(self.host) };
        }
    }
}

/// An instantiated graph of one frame's work.
struct Graph {
    graph: cu::CUgraph,
    exec: cu::CUgraphExec,
}

/// The driver objects of the baselines: the primary context, the `aeb` module, one
/// non-blocking stream, the pipeline's buffers and a flags buffer of 64-bit words.
pub struct RawGpu {
    device: cu::CUdevice,
    module: cu::CUmodule,
    pre: cu::CUfunction,
    post: cu::CUfunction,
    stream: cu::CUstream,
    camera: HostBuf,
    image: HostBuf,
    detection: HostBuf,
    flags: HostBuf,
    graph: Option<Graph>,
    ctx_retained: bool,
}

impl RawGpu {
    /// Open device 0, load the `aeb` cubin for its SM (on SIL: with the kernels' reference
    /// models registered), allocate the buffers and warm both kernels up.
    pub fn open() -> Result<RawGpu, Error> {
        os::require_cuda_environment()?;
        let mut device = 0;
        // SAFETY: flags 0; valid out-pointers.
        check("cuInit", unsafe { cu::cuInit(0) })?;
        // SAFETY: valid out-pointer.
        check("cuDeviceGet", unsafe { cu::cuDeviceGet(&mut device, 0) })?;
        let mut ctx = ptr::null_mut();
        // SAFETY: valid out-pointer, a device from cuDeviceGet.
        check("cuDevicePrimaryCtxRetain", unsafe {
            cu::cuDevicePrimaryCtxRetain(&mut ctx, device)
        })?;
        let mut gpu = RawGpu {
            device,
            module: ptr::null_mut(),
            pre: ptr::null_mut(),
            post: ptr::null_mut(),
            stream: ptr::null_mut(),
            camera: HostBuf::NONE,
            image: HostBuf::NONE,
            detection: HostBuf::NONE,
            flags: HostBuf::NONE,
            graph: None,
            ctx_retained: true,
        };
        // SAFETY: a context retained above.
        check("cuCtxSetCurrent", unsafe { cu::cuCtxSetCurrent(ctx) })?;
        let (mut major, mut minor) = (0, 0);
        // SAFETY: valid out-pointers and device.
        check("cuDeviceGetAttribute", unsafe {
            cu::cuDeviceGetAttribute(
                &mut major,
                cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                device,
            )
        })?;
        // SAFETY: as above.
        check("cuDeviceGetAttribute", unsafe {
            cu::cuDeviceGetAttribute(
                &mut minor,
                cu::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                device,
            )
        })?;
        let sm = (major * 10 + minor) as u32;
        let desc = orin_exec_kernels::cubin_desc("aeb").ok_or("no `aeb` cubin")?;
        crate::register_cubin_models(desc)?;
        let image = desc
            .variants
            .iter()
            .find(|v| v.sm == sm)
            .ok_or_else(|| format!("no `aeb` cubin for sm_{sm}"))?
            .image;
        // SAFETY: a 'static ELF cubin from the kernels crate; valid out-pointer.
        check("cuModuleLoadData", unsafe {
            cu::cuModuleLoadData(&mut gpu.module, image.as_ptr().cast())
        })?;
        // SAFETY: a loaded module, NUL-terminated names, valid out-pointers.
        check("cuModuleGetFunction", unsafe {
            cu::cuModuleGetFunction(&mut gpu.pre, gpu.module, c"aeb_preprocess".as_ptr())
        })?;
        // SAFETY: as above.
        check("cuModuleGetFunction", unsafe {
            cu::cuModuleGetFunction(&mut gpu.post, gpu.module, c"aeb_postprocess".as_ptr())
        })?;
        // SAFETY: valid out-pointer; documented flag.
        check("cuStreamCreate", unsafe {
            cu::cuStreamCreate(&mut gpu.stream, cu::CU_STREAM_NON_BLOCKING.0)
        })?;
        gpu.camera = HostBuf::alloc(CAMERA)?;
        gpu.image = HostBuf::alloc(IMAGE)?;
        gpu.detection = HostBuf::alloc(16)?;
        gpu.flags = HostBuf::alloc(8 * FLAGS)?;
        // Warm-up: every kernel runs once before any stream waits on a CPU-written word.
        gpu.launch_pre()?;
        gpu.launch_post()?;
        gpu.synchronize()?;
        Ok(gpu)
    }

    fn launch(
        &self,
        f: cu::CUfunction,
        grid: [u32; 3],
        block: [u32; 3],
        params: &mut [u64],
    ) -> Result<(), Error> {
        let mut ptrs: [*mut c_void; 16] = [ptr::null_mut(); 16];
        for (p, v) in ptrs.iter_mut().zip(params.iter_mut()) {
            *p = (v as *mut u64).cast();
        }
        // SAFETY: `ptrs` points at `params`, which outlive the call (the driver copies the
        // values at enqueue); each parameter of both kernels is 4 or 8 bytes little-endian,
        // read from the start of its 8-byte slot; the pointers are the device addresses of
        // live pinned buffers of the sizes the kernels are given.
        let s = unsafe {
            cu::cuLaunchKernel(
                f,
                grid[0],
                grid[1],
                grid[2],
                block[0],
                block[1],
                block[2],
                0,
                self.stream,
                ptrs.as_mut_ptr(),
                ptr::null_mut(),
            )
        };
        check("cuLaunchKernel", s)
    }

    /// `aeb_preprocess` (camera → image, 128 × 96), the schedule's launch shape.
    fn launch_pre(&self) -> Result<(), Error> {
        let mut p = [self.camera.dev, self.image.dev, 128, 96];
        self.launch(self.pre, [4, 3, 1], [16, 16, 1], &mut p)
    }

    /// `aeb_postprocess` (image → detection), the schedule's parameters and shape.
    fn launch_post(&self) -> Result<(), Error> {
        let (w, h, threshold, x0, x1, f) = POST;
        let mut p = [
            self.image.dev,
            u64::from(w),
            u64::from(h),
            u64::from(threshold as u32),
            u64::from(x0),
            u64::from(x1),
            u64::from(f[0].to_bits()),
            u64::from(f[1].to_bits()),
            u64::from(f[2].to_bits()),
            u64::from(f[3].to_bits()),
            self.detection.dev,
        ];
        self.launch(self.post, [1, 1, 1], [256, 1, 1], &mut p)
    }

    fn flag_addr(&self, i: usize) -> cu::CUdeviceptr {
        self.flags.dev + 8 * i as u64
    }

    fn wait(&self, i: usize, value: u64) -> Result<(), Error> {
        // SAFETY: a mapped word of the live flags buffer; a live stream.
        let s = unsafe {
            cu::cuStreamWaitValue64_v2(
                self.stream,
                self.flag_addr(i),
                value,
                cu::CU_STREAM_WAIT_VALUE_GEQ.0,
            )
        };
        check("cuStreamWaitValue64", s)
    }

    fn write(&self, i: usize, value: u64) -> Result<(), Error> {
        // SAFETY: as in `wait`; the default flag orders the kernels' writes before it.
        let s = unsafe {
            cu::cuStreamWriteValue64_v2(
                self.stream,
                self.flag_addr(i),
                value,
                cu::CU_STREAM_WRITE_VALUE_DEFAULT.0,
            )
        };
        check("cuStreamWriteValue64", s)
    }

    fn flag(&self, i: usize) -> &AtomicU64 {
        assert!(i < FLAGS);
        // SAFETY: word `i` of the 8-byte aligned (page-aligned) pinned buffer, live as long as
        // `self`; the CPU and the GPU only access it atomically (64-bit stores and loads).
        unsafe { AtomicU64::from_ptr(self.flags.host.cast::<u64>().add(i)) }
    }

    fn synchronize(&self) -> Result<(), Error> {
        // SAFETY: a live stream.
        check("cuStreamSynchronize", unsafe {
            cu::cuStreamSynchronize(self.stream)
        })
    }

    /// The CPU `src`: render `frame` into the camera buffer (no GPU work reads it now).
    fn src(&self, frame: u64, scratch: &mut [u8]) {
        scenario::render(frame, scratch);
        // SAFETY: CAMERA bytes at `camera.host`; the previous frame's GPU work has finished
        // (its sink saw it complete), so nothing reads them concurrently.
        unsafe {
            ptr::copy_nonoverlapping(scratch.as_ptr(), self.camera.host.cast::<u8>(), CAMERA)
        };
    }

    /// The CPU `sink`: the detection (after the frame's GPU work completed).
    fn detection(&self) -> [i32; 4] {
        let mut d = [0i32; 4];
        for (k, v) in d.iter_mut().enumerate() {
            // SAFETY: 16 bytes at `detection.host`, written by a finished kernel.
            *v = unsafe { ptr::read_volatile(self.detection.host.cast::<i32>().add(k)) };
        }
        d
    }

    /// Spin until flag `i` reaches `value` (1 s limit: a stuck stream is an error).
    fn spin(&self, i: usize, value: u64, frame: u64) -> Result<(), Error> {
        let start = os::monotonic_ns();
        let mut n = 0u32;
        while self.flag(i).load(Ordering::Acquire) < value {
            core::hint::spin_loop();
            n = n.wrapping_add(1);
            if n.is_multiple_of(4096) && os::monotonic_ns() - start > 1_000_000_000 {
                return Err(format!(
                    "raw baseline: frame {frame}: the stream did not complete within 1 s"
                )
                .into());
            }
        }
        Ok(())
    }

    /// Capture one frame's work (the two launches and `done = 1`) into a graph and
    /// instantiate it, once.
    fn graph(&mut self) -> Result<(), Error> {
        if self.graph.is_some() {
            return Ok(());
        }
        // SAFETY: a live stream not in capture mode.
        check("cuStreamBeginCapture", unsafe {
            cu::cuStreamBeginCapture_v2(self.stream, cu::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        })?;
        let captured = self
            .launch_pre()
            .and_then(|()| self.launch_post())
            .and_then(|()| self.write(DONE, 1));
        let mut graph = ptr::null_mut();
        // SAFETY: the capture begun above, ended once on the same thread.
        let ended = check("cuStreamEndCapture", unsafe {
            cu::cuStreamEndCapture(self.stream, &mut graph)
        });
        let result = captured.and(ended).and_then(|()| {
            if graph.is_null() {
                return Err("raw baseline: the stream capture was invalidated".into());
            }
            let mut exec = ptr::null_mut();
            // SAFETY: a captured graph; valid out-pointer; no flags.
            check("cuGraphInstantiateWithFlags", unsafe {
                cu::cuGraphInstantiateWithFlags(&mut exec, graph, 0)
            })?;
            Ok(exec)
        });
        match result {
            Ok(exec) => {
                self.graph = Some(Graph { graph, exec });
                Ok(())
            }
            Err(e) => {
                if !graph.is_null() {
                    // SAFETY: the graph returned by the capture, destroyed once.
                    let _ = unsafe { cu::cuGraphDestroy(graph) };
                }
                Err(e)
            }
        }
    }

    fn launch_graph(&self) -> Result<(), Error> {
        let g = self.graph.as_ref().ok_or("raw baseline: no graph")?;
        // SAFETY: an instantiated graph and a live stream.
        check("cuGraphLaunch", unsafe {
            cu::cuGraphLaunch(g.exec, self.stream)
        })
    }

    /// Enqueue frame `f`'s work (`f` counts from 0) in `shape`; per task host times pushed to
    /// `tasks` for the runtime shape.
    fn enqueue(&self, shape: Baseline, f: u64, tasks: &mut Vec<u64>) -> Result<(), Error> {
        let v = f + 1;
        match shape {
            Baseline::PreEnqueued => {
                self.wait(GO, v)?;
                self.launch_pre()?;
                self.launch_post()?;
                self.write(DONE, v)
            }
            Baseline::RuntimeShape => {
                let t0 = os::monotonic_ns();
                self.wait(SINK, f)?;
                self.wait(GO, v)?;
                self.launch_pre()?;
                self.write(PRE, v)?;
                let t1 = os::monotonic_ns();
                self.wait(PRE, v)?;
                self.launch_post()?;
                self.write(DONE, v)?;
                let t2 = os::monotonic_ns();
                tasks.extend([t1 - t0, t2 - t1]);
                Ok(())
            }
            _ => Err("raw baseline: not a pre-enqueued shape".into()),
        }
    }

    /// Run `baseline` for `opts.warmup + opts.frames` frames; every frame's detection is
    /// checked against the reference models (a wrong one is an error).
    pub fn run(&mut self, baseline: Baseline, opts: &Options) -> Result<Samples, Error> {
        if baseline == Baseline::Graph {
            self.graph()?;
        }
        for i in 0..FLAGS {
            self.flag(i).store(0, Ordering::Release);
        }
        let mut out = Samples::default();
        let mut scratch = vec![0u8; CAMERA];
        let total = opts.warmup + opts.frames;
        let pre_enqueued = matches!(baseline, Baseline::PreEnqueued | Baseline::RuntimeShape);
        let mut tasks = Vec::new();
        if pre_enqueued {
            self.enqueue(baseline, 0, &mut tasks)?;
        }
        let t0 = os::monotonic_ns() + opts.period_ns;
        let result = (|| -> Result<(), Error> {
            for f in 0..total {
                os::sleep_until(t0 + f * opts.period_ns);
                self.src(f, &mut scratch);
                let end_src = os::monotonic_ns();
                let mut enqueue = 0;
                let mut launch = None;
                match baseline {
                    Baseline::PreEnqueued | Baseline::RuntimeShape => {
                        self.flag(GO).store(f + 1, Ordering::Release);
                        self.spin(DONE, f + 1, f)?;
                    }
                    Baseline::Graph => {
                        self.flag(DONE).store(0, Ordering::Release);
                        let t = os::monotonic_ns();
                        self.launch_graph()?;
                        let done = os::monotonic_ns();
                        launch = Some(done - t);
                        enqueue = done - end_src;
                        self.spin(DONE, 1, f)?;
                    }
                    Baseline::LaunchSync => {
                        self.launch_pre()?;
                        self.launch_post()?;
                        enqueue = os::monotonic_ns() - end_src;
                        self.synchronize()?;
                    }
                }
                let start_sink = os::monotonic_ns();
                let got = self.detection();
                let want = expected(f);
                if got != want {
                    return Err(format!(
                        "{}: frame {f}: detection {got:?}, reference {want:?}",
                        baseline.name()
                    )
                    .into());
                }
                self.flag(SINK).store(f + 1, Ordering::Release);
                if pre_enqueued {
                    tasks.clear();
                    let t = os::monotonic_ns();
                    self.enqueue(baseline, f + 1, &mut tasks)?;
                    enqueue = os::monotonic_ns() - t;
                }
                if f >= opts.warmup {
                    out.latency_ns.push(start_sink - end_src);
                    out.enqueue_ns.push(enqueue);
                    out.task_enqueue_ns.extend_from_slice(&tasks);
                    out.launch_ns.extend(launch);
                }
            }
            Ok(())
        })();
        // The last pre-enqueued frame waits for a src that never comes: release it (GEQ is
        // wrap-aware, `(i64)(*addr - value) >= 0`, so not u64::MAX), then leave the stream
        // idle.
        self.flag(GO).store(total + 1, Ordering::Release);
        self.flag(SINK).store(total + 1, Ordering::Release);
        let synced = self.synchronize();
        result?;
        synced?;
        Ok(out)
    }
}

impl Drop for RawGpu {
    fn drop(&mut self) {
        // Children first: the stream's work, the graph, the stream, the buffers (HostBuf's
        // own Drop, after this), the module, the context.
        // SAFETY (each call): handles created in `open`/`graph`, released once here; null
        // handles (a failed `open`) are skipped.
        if !self.stream.is_null() {
            // SAFETY: see above.
            let _ = unsafe { cu::cuStreamSynchronize(self.stream) };
        }
        if let Some(g) = self.graph.take() {
            // SAFETY: see above.
            let _ = unsafe { cu::cuGraphExecDestroy(g.exec) };
            // SAFETY: see above.
            let _ = unsafe { cu::cuGraphDestroy(g.graph) };
        }
        if !self.stream.is_null() {
            // SAFETY: see above.
            let _ = unsafe { cu::cuStreamDestroy_v2(self.stream) };
        }
        for b in [
            &mut self.camera,
            &mut self.image,
            &mut self.detection,
            &mut self.flags,
        ] {
            // Freed now (before the context goes), not by the field's later drop.
            drop(core::mem::replace(b, HostBuf::NONE));
        }
        if !self.module.is_null() {
            // SAFETY: see above.
            let _ = unsafe { cu::cuModuleUnload(self.module) };
        }
        if self.ctx_retained {
            // SAFETY: see above.
            let _ = unsafe { cu::cuDevicePrimaryCtxRelease_v2(self.device) };
        }
    }
}
