//! What the GPU timestamps (`Config::gpu_timestamps`: a `stamp_globaltimer` launch before and
//! after every GPU task) cost, measured with them on and off in the same process, in
//! alternating blocks (order on, off, off, on, ... so that a slow drift of clocks or load
//! cancels out).
//!
//! Two measurements:
//!
//! * **stream** (the driver API directly, no executive): one AEB frame's GPU work
//!   (`aeb_preprocess` on the 128 × 96 camera image, then `aeb_postprocess` on a 64 × 24 map,
//!   the demo's launch shapes) on one non-blocking stream, bracketed by two *outer*
//!   `stamp_globaltimer` launches in both modes; "on" adds the runtime's two inner stamps
//!   around each kernel. Per frame it records the GPU span between the outer stamps (GPU
//!   `%globaltimer`, ns), the host time to enqueue the launches, and the host time from the
//!   first enqueue to `cuStreamSynchronize` returning. The outer stamps cost the same in both
//!   modes, so on − off is the cost of the four inner stamps; per task it is half of that.
//! * **pipeline** (the executive): `schedules/gpu_bench.toml` (CPU `src` → GPU `preprocess` →
//!   GPU `postprocess` → CPU `sink`, period 4 ms) built with `gpu_timestamps` on and off. Per
//!   frame it records the time from the end of `src` to the start of `sink` (CPU clock, trace
//!   records): the GPU chain as the pipeline sees it, including the semaphore wake-ups (on
//!   `rig`, the SIL semaphore wait polls the GPU-written counter at least every 50 µs, which
//!   adds up to 50 µs of noise to each sample). With timestamps on it also reports the GPU
//!   task durations the runtime records. The sink's detection is checked against the
//!   reference models every frame.
//!
//! On `sil`, SIL CUDA sleeps for every kernel's modelled duration (the stamp kernel's too;
//! default 20 µs), so the numbers there test the harness, not a GPU.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use orin_exec::engine::gpu::{Function, Gpu, GpuModule, ParamBlock, Stream};
use orin_exec::engine::os;
use orin_exec::error::Context;
use orin_exec::exec::{Builder, Config, TaskFault};
use orin_exec::table::Schedule;
use orin_exec::trace::Event;
use orin_exec::trace::TraceLog;
use orin_exec::trace::ring::Pop;
use serde::Serialize;

use crate::bench_schedule::{Bodies, SCHEDULE as BENCH, Storage, body, cx, task};
use crate::leak;
use crate::outputs::{detection_from_words, detection_words};
use crate::pinned::HostMapped;
use crate::scenario;
use crate::stats::Summary;
use crate::tasks::FrameLog;

/// Options of the benchmark.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Pipeline frames per mode (split over the blocks).
    pub frames: u64,
    /// Blocks per measurement (half with timestamps on, half off).
    pub blocks: u32,
    /// Stream iterations (frames) per mode (split over the blocks).
    pub iterations: u64,
    /// Frames (or iterations) at the start of each block that are not counted.
    pub warmup: u64,
    /// `SCHED_FIFO` priority of the executive and workers (`None`: leave alone).
    pub realtime_priority: Option<i32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frames: 2000,
            blocks: 8,
            iterations: 4000,
            warmup: 10,
            realtime_priority: Some(10),
        }
    }
}

/// On and off side by side.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Pair {
    /// What is measured, and its unit.
    pub metric: String,
    /// With timestamps.
    pub on: Summary,
    /// Without (the baseline).
    pub off: Summary,
    /// Difference of the medians (on − off).
    pub diff_median: f64,
    /// Difference of the means (on − off) ± its ~95% confidence half-width.
    pub diff_mean: f64,
    /// ~95% confidence half-width of `diff_mean`.
    pub diff_mean_ci95: f64,
    /// `diff_median` per GPU task (two GPU tasks per frame).
    pub diff_median_per_task: f64,
    /// Median ratio on / off.
    pub ratio_median: f64,
    /// Per block: (timestamps on, mean) in block order (drift check).
    pub block_means: Vec<(bool, f64)>,
}

impl Pair {
    /// `samples[usize::from(timestamps on)]`, and the block means.
    fn new(metric: &str, samples: &[Vec<f64>; 2], blocks: Vec<(bool, f64)>) -> Pair {
        let (on, off) = (Summary::of(&samples[1]), Summary::of(&samples[0]));
        Pair {
            metric: metric.to_string(),
            diff_median: on.p50 - off.p50,
            diff_mean: on.mean - off.mean,
            diff_mean_ci95: on.diff_ci95(&off),
            diff_median_per_task: (on.p50 - off.p50) / 2.0,
            ratio_median: if off.p50 > 0.0 {
                on.p50 / off.p50
            } else {
                f64::NAN
            },
            block_means: blocks,
            on,
            off,
        }
    }
}

/// The samples of one metric by mode (`[off, on]`), and the mean of each block.
#[derive(Default)]
struct Samples {
    by_mode: [Vec<f64>; 2],
    block_means: Vec<(bool, f64)>,
    block_sum: f64,
    block_n: f64,
}

impl Samples {
    fn push(&mut self, on: bool, v: f64) {
        self.by_mode[usize::from(on)].push(v);
        self.block_sum += v;
        self.block_n += 1.0;
    }

    /// Close the block (timestamps `on`): record its mean.
    fn end_block(&mut self, on: bool) {
        self.block_means.push((on, self.block_sum / self.block_n));
        (self.block_sum, self.block_n) = (0.0, 0.0);
    }

    fn pair(self, metric: &str) -> Pair {
        Pair::new(metric, &self.by_mode, self.block_means)
    }
}

/// Results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// `sil`, `rig` or `orin`.
    pub platform: &'static str,
    /// GPU name.
    pub device: String,
    /// Stream measurement: GPU span of one frame's GPU work (outer stamps), ns.
    pub stream_gpu_span: Pair,
    /// Stream measurement: host time to enqueue one frame's launches, ns.
    pub stream_enqueue: Pair,
    /// Stream measurement: host time from the first enqueue to the synchronisation, ns.
    pub stream_latency: Pair,
    /// Stream measurement, timestamps on: the kernels' own durations between their inner
    /// stamps (what the runtime records as the GPU task time), ns.
    pub stream_task_gpu_ns: Vec<(String, Summary)>,
    /// Pipeline: end of `src` to start of `sink`, ns.
    pub pipeline_chain: Pair,
    /// Pipeline, timestamps on: recorded GPU task durations, ns.
    pub pipeline_task_gpu_ns: Vec<(String, Summary)>,
    /// Pipeline: faults per mode (on, off).
    pub pipeline_faults: (u64, u64),
    /// Pipeline: frames without fault or skipped task whose detection differed from the
    /// reference models.
    pub pipeline_wrong_outputs: u64,
    /// Pipeline: frames without fault or skipped task whose sink recorded no detection.
    pub pipeline_missing_outputs: u64,
    /// Pipeline: the first wrong detection (block, frame, got, expected).
    pub pipeline_first_wrong: Option<String>,
    /// Pipeline: frames counted per mode (on, off).
    pub pipeline_frames: (u64, u64),
}

fn block_on(b: u32) -> bool {
    // on, off, off, on, on, off, off, on, ...
    matches!(b % 4, 0 | 3)
}

struct StreamKernels {
    preprocess: Function,
    postprocess: Function,
    stamp: Function,
}

const SLOTS: usize = 8;

/// The stream measurement.
fn stream_part(opts: &Options, report: &mut Report) -> Result<(), Box<dyn std::error::Error>> {
    os::require_cuda_environment()?;
    let gpu = Gpu::open(0)?;
    report.device = crate::b2b::c_name(&gpu.name());
    let sm = gpu.sm();
    let load = |name: &str| -> Result<GpuModule, Box<dyn std::error::Error>> {
        let c = orin_exec_kernels::cubin_desc(name)
            .ok_or_else(|| format!("no `{name}` cubin for sm_{sm}"))?;
        crate::register_cubin_models(c)?;
        Ok(GpuModule::load(&gpu, c)?)
    };
    let (aeb, timing) = (load("aeb")?, load("timing")?);
    let k = StreamKernels {
        preprocess: aeb.function("aeb_preprocess", Context::Cubin("aeb"))?,
        postprocess: aeb.function("aeb_postprocess", Context::Cubin("aeb"))?,
        stamp: timing.function("stamp_globaltimer", Context::Cubin("timing"))?,
    };
    let stream = Stream::create(&gpu, "overhead")?;
    let mut camera = HostMapped::alloc(&gpu, 12288, "camera")?;
    let image = HostMapped::alloc(&gpu, 3072, "image")?;
    let detection = HostMapped::alloc(&gpu, 64, "detection")?;
    let mut stamps = HostMapped::alloc(&gpu, 8 * SLOTS, "stamps")?;
    let mut frame = vec![0u8; 12288];
    scenario::render(60, &mut frame);
    camera.write(0, &frame);

    let pre = ParamBlock::builder(&k.preprocess)
        .memory(camera.memory())?
        .memory(image.memory())?
        .u32(128)?
        .u32(96)?
        .finish()?;
    let post = ParamBlock::builder(&k.postprocess)
        .memory(image.memory())?
        .u32(64)?
        .u32(24)?
        .i32(32)?
        .u32(12)?
        .u32(20)?
        .f32(4.0)?
        .f32(3.5)?
        .f32(24.0)?
        .f32(240.0)?
        .memory(detection.memory())?
        .finish()?;
    let stamp_p: Vec<ParamBlock> = (0..SLOTS as u64)
        .map(|i| {
            ParamBlock::builder(&k.stamp)
                .memory_at(stamps.memory(), 8 * i)?
                .finish()
        })
        .collect::<orin_exec::Result<_>>()?;
    let ctx = Context::Engine("overhead");
    // A stamp into slot `i`.
    let stamp = |i: usize| stream.launch(&k.stamp, [1; 3], [1; 3], 0, &stamp_p[i], ctx);
    // One frame: outer stamp 0, [1] preprocess [2], [3] postprocess [4], outer stamp 5.
    let iteration = |on: bool| -> orin_exec::Result<(u64, u64)> {
        let t0 = Instant::now();
        stamp(0)?;
        if on {
            stamp(1)?;
        }
        stream.launch(&k.preprocess, [4, 3, 1], [16, 16, 1], 0, &pre, ctx)?;
        if on {
            stamp(2)?;
            stamp(3)?;
        }
        stream.launch(&k.postprocess, [1, 1, 1], [256, 1, 1], 0, &post, ctx)?;
        if on {
            stamp(4)?;
        }
        stamp(5)?;
        let t1 = Instant::now();
        stream.synchronize()?;
        let t2 = Instant::now();
        Ok(((t1 - t0).as_nanos() as u64, (t2 - t0).as_nanos() as u64))
    };
    let result = (|| -> Result<(), Box<dyn std::error::Error>> {
        for _ in 0..100 {
            iteration(true)?;
            iteration(false)?;
        }
        let blocks = opts.blocks.max(2);
        let per_block = (opts.iterations * 2 / u64::from(blocks)).max(1);
        let (mut span, mut enq, mut lat) =
            (Samples::default(), Samples::default(), Samples::default());
        let (mut pre_ns, mut post_ns) = (vec![], vec![]);
        for b in 0..blocks {
            let on = block_on(b);
            for i in 0..per_block + opts.warmup {
                stamps.write_words(0, &[0u64; SLOTS]);
                let (e, l) = iteration(on)?;
                let st: Vec<u64> = stamps.read_words(0, SLOTS);
                if i < opts.warmup {
                    continue;
                }
                if st[0] == 0 || st[5] < st[0] {
                    return Err(format!("stamp slots not written: {st:?}").into());
                }
                span.push(on, (st[5] - st[0]) as f64);
                enq.push(on, e as f64);
                lat.push(on, l as f64);
                if on {
                    pre_ns.push(st[2].saturating_sub(st[1]) as f64);
                    post_ns.push(st[4].saturating_sub(st[3]) as f64);
                }
            }
            for m in [&mut span, &mut enq, &mut lat] {
                m.end_block(on);
            }
        }
        report.stream_gpu_span = span
            .pair("GPU span of one frame's GPU work between the outer stamps (%globaltimer), ns");
        report.stream_enqueue =
            enq.pair("host time to enqueue one frame's launches (cuLaunchKernel calls), ns");
        report.stream_latency =
            lat.pair("host time from the first enqueue until cuStreamSynchronize returns, ns");
        report.stream_task_gpu_ns = vec![
            ("aeb_preprocess".into(), Summary::of(&pre_ns)),
            ("aeb_postprocess".into(), Summary::of(&post_ns)),
        ];
        Ok(())
    })();
    // Children first: the parameter blocks hold the memory, the kernels their modules.
    drop((pre, post, stamp_p, k));
    let released = camera
        .release()
        .and(image.release())
        .and(detection.release())
        .and(stamps.release())
        .and(stream.destroy())
        .and(aeb.unload())
        .and(timing.unload())
        .and(gpu.close());
    result?;
    released?;
    Ok(())
}

/// The sink's view of each frame: the detection it read (`detection_words`).
type SinkLog = FrameLog<2, 64>;

struct Sink {
    log: &'static SinkLog,
}

impl body::Sink for Sink {
    fn run(&mut self, cx: cx::Sink<'_>) -> Result<(), TaskFault> {
        let d = cx.detection.as_slice::<i32>()?;
        if cx.inputs_valid && d.len() >= 4 {
            self.log
                .record(cx.frame, detection_words([d[0], d[1], d[2], d[3]]));
        }
        Ok(())
    }
}

/// The source: the AEB scenario's camera frame.
struct Src;

impl body::Src for Src {
    fn run(&mut self, mut cx: cx::Src<'_>) -> Result<(), TaskFault> {
        scenario::render(cx.frame, cx.camera.bytes());
        Ok(())
    }
}

/// The detection the bench pipeline must produce for `frame` (reference models).
fn expected(frame: u64) -> [i32; 4] {
    let mut cam = vec![0u8; 12288];
    scenario::render(frame, &mut cam);
    let mut image = vec![0i8; 3072];
    let _ = orin_exec_kernels::aeb_preprocess(&cam, &mut image, 128, 96);
    let p = orin_exec_kernels::PostprocessParams {
        threshold: 100,
        lane_x0: 24,
        lane_x1: 40,
        row_scale: 2.0,
        row_offset: 1.0,
        horizon: 24.0,
        fh: 240.0,
    };
    let mut out = [0i32; 4];
    let _ = orin_exec_kernels::aeb_postprocess(&image, 64, 48, &p, &mut out);
    out
}

/// Task start (`true`) and end times by (task, frame).
type Times = HashMap<(u16, u64, bool), u64>;

/// Take every record out of the trace ring: task start/end times, and the frames in which a
/// task was skipped (a CPU task its worker reached after the deadline is skipped, with no
/// fault).
fn drain(ring: &TraceLog, times: &mut Times, skipped: &mut HashSet<u64>) {
    loop {
        match ring.pop() {
            Pop::Record(r) => match r.event {
                Event::TaskStart => {
                    times.insert((r.task, r.frame, true), r.time_ns);
                }
                Event::TaskEnd => {
                    times.insert((r.task, r.frame, false), r.time_ns);
                }
                Event::TaskSkipped => {
                    skipped.insert(r.frame);
                }
                _ => {}
            },
            Pop::Lost(_) => {}
            Pop::Empty => break,
        }
    }
}

/// One pipeline block: samples of (chain, preprocess GPU, postprocess GPU), faults, wrong
/// outputs.
#[allow(clippy::type_complexity)]
fn pipeline_block(
    opts: &Options,
    on: bool,
    frames: u64,
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>, u64, [u64; 2], Option<String>), Box<dyn std::error::Error>>
{
    let s: &'static Schedule = &BENCH;
    #[cfg(feature = "sil")]
    orin_exec_kernels::register_models(s.tables(), orin_exec::sil::register_kernel_model)?;
    let log: &'static SinkLog = leak(SinkLog::new());
    let runtime = Builder::new(s, leak(Storage::new()))
        .config(Config {
            virtual_clock: false,
            realtime_priority: opts.realtime_priority,
            gpu_timestamps: on,
            ..Config::default()
        })
        .bodies(leak(Bodies {
            src: leak(Src),
            sink: leak(Sink { log }),
        }))
        .init()?;
    let mut exec = runtime.seal()?;
    let ring = exec.trace();
    let mut times: Times = HashMap::new();
    let (mut faults, mut wrong, mut missing) = (0u64, 0u64, 0u64);
    let mut first_wrong = None;
    let mut skipped: HashSet<u64> = HashSet::new();
    let mut step_error = None;
    for _ in 0..frames + opts.warmup {
        let step = exec.step();
        drain(ring, &mut times, &mut skipped);
        match step {
            Ok(r) => {
                faults += u64::from(r.faults) * u64::from(r.frame >= opts.warmup);
                // Frames with a fault or a skipped task (e.g. a late `src` that its worker
                // skipped, leaving an older image in the camera copy) are not checked: stale
                // is not wrong.
                if r.frame >= opts.warmup && r.faults == 0 && !skipped.contains(&r.frame) {
                    match log.get(r.frame).map(detection_from_words) {
                        Some(d) if d == expected(r.frame) => {}
                        Some(d) => {
                            wrong += 1;
                            first_wrong.get_or_insert(format!(
                                "timestamps {}, frame {}: got {d:?}, expected {:?}",
                                if on { "on" } else { "off" },
                                r.frame,
                                expected(r.frame)
                            ));
                        }
                        None => missing += 1,
                    }
                }
            }
            Err(e) => {
                step_error = Some(e);
                break;
            }
        }
    }
    let shutdown = exec.shutdown();
    drain(ring, &mut times, &mut skipped);
    if let Some(e) = step_error {
        return Err(e.into());
    }
    shutdown?;
    let (mut chain, mut pre, mut post) = (vec![], vec![], vec![]);
    let get = |t: orin_exec::table::TaskId, f: u64, start: bool| times.get(&(t.0, f, start));
    for f in opts.warmup..frames + opts.warmup {
        if let (Some(&e), Some(&st)) = (get(task::SRC, f, false), get(task::SINK, f, true)) {
            chain.push(st as f64 - e as f64);
        }
        if on {
            for (t, v) in [(task::PREPROCESS, &mut pre), (task::POSTPROCESS, &mut post)] {
                if let (Some(&a), Some(&b)) = (get(t, f, true), get(t, f, false)) {
                    v.push(b as f64 - a as f64);
                }
            }
        }
    }
    Ok((chain, pre, post, faults, [wrong, missing], first_wrong))
}

fn pipeline_part(opts: &Options, report: &mut Report) -> Result<(), Box<dyn std::error::Error>> {
    let blocks = opts.blocks.max(2);
    let per_block = (opts.frames * 2 / u64::from(blocks)).max(1);
    let mut chain = [vec![], vec![]];
    let (mut pre, mut post) = (vec![], vec![]);
    let mut bmeans = vec![];
    let mut faults = [0u64; 2];
    for b in 0..blocks {
        let on = block_on(b);
        let (c, p, q, f, w, first) = pipeline_block(opts, on, per_block)?;
        if report.pipeline_first_wrong.is_none() {
            report.pipeline_first_wrong = first;
        }
        bmeans.push((on, Summary::of(&c).mean));
        chain[usize::from(on)].extend(c);
        pre.extend(p);
        post.extend(q);
        faults[usize::from(on)] += f;
        report.pipeline_wrong_outputs += w[0];
        report.pipeline_missing_outputs += w[1];
    }
    report.pipeline_frames = (chain[1].len() as u64, chain[0].len() as u64);
    report.pipeline_chain = Pair::new(
        "end of CPU `src` to start of CPU `sink` (the GPU chain as the pipeline sees it, CPU clock), ns",
        &chain,
        bmeans,
    );
    report.pipeline_task_gpu_ns = vec![
        ("preprocess".into(), Summary::of(&pre)),
        ("postprocess".into(), Summary::of(&post)),
    ];
    report.pipeline_faults = (faults[1], faults[0]);
    Ok(())
}

/// Run both measurements.
pub fn run(opts: &Options) -> Result<Report, Box<dyn std::error::Error>> {
    let mut report = Report {
        platform: orin_exec::engine::platform::NAME,
        ..Report::default()
    };
    stream_part(opts, &mut report)?;
    pipeline_part(opts, &mut report)?;
    Ok(report)
}

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1e3)
}

fn pair_lines(out: &mut String, title: &str, p: &Pair) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "{title}\n  {}", p.metric);
    let _ = writeln!(
        out,
        "  {:<14} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "us", "n", "mean", "stddev", "p10", "median", "p90", "p99"
    );
    for (name, s) in [("timestamps on", &p.on), ("off (baseline)", &p.off)] {
        let _ = writeln!(
            out,
            "  {:<14} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            name,
            s.n,
            us(s.mean),
            us(s.stddev),
            us(s.p10),
            us(s.p50),
            us(s.p90),
            us(s.p99)
        );
    }
    let _ = writeln!(
        out,
        "  on - off: median {} us ({} us per GPU task), mean {} ± {} us (95%); median ratio on/off {:.3}",
        us(p.diff_median),
        us(p.diff_median_per_task),
        us(p.diff_mean),
        us(p.diff_mean_ci95),
        p.ratio_median
    );
    let blocks: Vec<String> = p
        .block_means
        .iter()
        .map(|(on, m)| format!("{}{}", if *on { "+" } else { "-" }, us(*m)))
        .collect();
    let _ = writeln!(out, "  block means (+ on, - off), us: {}", blocks.join(" "));
}

fn task_lines(out: &mut String, title: &str, tasks: &[(String, Summary)]) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "{title}");
    for (k, s) in tasks {
        let _ = writeln!(
            out,
            "  {k:<16} median {} p99 {} max {}",
            us(s.p50),
            us(s.p99),
            us(s.max)
        );
    }
}

/// The benchmark printout.
pub fn text(r: &Report) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "GPU timestamp overhead on `{}` ({}): two stamp_globaltimer launches per GPU task",
        r.platform, r.device
    );
    if r.platform == "sil" {
        let _ = writeln!(
            out,
            "NOTE: sil = SIL CUDA, which sleeps for each kernel's modelled duration (the stamp kernel's too; default model 20 us): these numbers test the harness, not a GPU"
        );
    }
    pair_lines(
        &mut out,
        "\n[stream] one AEB frame's GPU work (2 kernels) on one stream",
        &r.stream_gpu_span,
    );
    pair_lines(
        &mut out,
        "\n[stream] enqueue cost on the host",
        &r.stream_enqueue,
    );
    pair_lines(
        &mut out,
        "\n[stream] launch-to-completion latency on the host",
        &r.stream_latency,
    );
    task_lines(
        &mut out,
        "\n[stream] kernel time between the inner stamps (timestamps on), us:",
        &r.stream_task_gpu_ns,
    );
    pair_lines(
        &mut out,
        "\n[pipeline] gpu_bench schedule through the executive",
        &r.pipeline_chain,
    );
    task_lines(
        &mut out,
        "\n[pipeline] GPU task time recorded by the runtime (timestamps on), us:",
        &r.pipeline_task_gpu_ns,
    );
    let _ = writeln!(
        out,
        "\n[pipeline] frames counted: {} on, {} off; faults: {} on, {} off; frames without fault or skipped task whose detection differs from the reference models: {} (without a detection: {})",
        r.pipeline_frames.0,
        r.pipeline_frames.1,
        r.pipeline_faults.0,
        r.pipeline_faults.1,
        r.pipeline_wrong_outputs,
        r.pipeline_missing_outputs
    );
    if let Some(w) = &r.pipeline_first_wrong {
        let _ = writeln!(out, "[pipeline] first wrong detection: {w}");
    }
    out
}
