//! `hil bench`: the runtime against hand-written driver code, measured in one process.
//!
//! Two pipelines, each run by the raw baselines and then by the executive:
//!
//! * `gpu_bench` (`schedules/gpu_bench.toml`: CPU `src` → GPU `preprocess` → GPU `postprocess`
//!   → CPU `sink`, 4 ms): the baselines of [`crate::raw_gpu`] (pre-enqueued + busy-poll, one
//!   CUDA graph per frame, launch + synchronize, the runtime's stream shape), then the
//!   executive with `Config::gpu_timestamps` off and on;
//! * `dla_bench` (`schedules/dla_bench.toml`: CPU → GPU → DLA → GPU → CPU, 8 ms): the
//!   hand-written chain of `raw_dla` (once it is merged) and the executive (timestamps off).
//!
//! Latency = end of `src` to start of `sink` (the runtime's: from its trace records, CPU
//! clock). Every frame's detection is checked against the reference models (GPU kernels:
//! `orin-exec-kernels`; the DLA network: the `sil-onnx` interpreter). Per runtime run it also
//! reports the host enqueue per GPU/DLA task and the stream operations per GPU task
//! (`Executive::submit_stats`), and the executive thread's CPU time and wake-ups (voluntary
//! context switches) per frame (`orin_exec::engine::os::thread_usage` around the measured
//! frames, in the thread that calls `step()`).
//!
//! A benchmark, not a test: no ratio fails it. It fails on a wrong detection (exit 1) or an
//! error (exit 2).

use std::collections::{HashMap, HashSet};

use orin_exec::engine::os::{SleepOnly, ThreadUsage};
use orin_exec::exec::{Builder, Config, Executive, SubmitStats, TaskFault};
use orin_exec::table::{Schedule, TaskId, Work};
use orin_exec::trace::ring::Pop;
use orin_exec::trace::{Event, TraceLog};
use serde::Serialize;

use crate::leak;
use crate::outputs::{detection_from_words, detection_words};
use crate::raw_gpu::{self, Baseline, RawGpu};
use crate::scenario;
use crate::stats::Summary;
use crate::tasks::FrameLog;

/// Options of the benchmark.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Measured frames per run.
    pub frames: u64,
    /// Frames before them that are not counted.
    pub warmup: u64,
    /// Period of the raw `gpu_bench` baselines (`None`: the schedule's, 4 ms). The
    /// executive always runs at its schedule's period.
    pub period_ns: Option<u64>,
    /// `SCHED_FIFO` priority of the executive and workers (`None`: leave alone, as on the rig).
    pub realtime_priority: Option<i32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frames: 2000,
            warmup: 20,
            period_ns: None,
            realtime_priority: None,
        }
    }
}

/// `exec`'s submission counters (cumulative since `seal()`).
fn submit_stats(exec: &Executive) -> Option<SubmitStats> {
    Some(exec.submit_stats())
}

/// Stream operations per GPU task of today's runtime, from the schedule: one semaphore wait
/// per `after` edge and one signal per task.
fn schedule_stream_ops_per_task(s: &Schedule) -> f64 {
    let t = s.tables();
    let gpu: Vec<_> = t
        .tasks
        .iter()
        .filter(|task| matches!(task.work, Work::Gpu(_)))
        .collect();
    if gpu.is_empty() {
        return f64::NAN;
    }
    gpu.iter().map(|g| g.waits.len() + 1).sum::<usize>() as f64 / gpu.len() as f64
}

/// GPU tasks in one frame of `s`.
fn gpu_tasks_per_frame(s: &Schedule) -> u64 {
    s.tables()
        .tasks
        .iter()
        .filter(|task| matches!(task.work, Work::Gpu(_)))
        .count() as u64
}

/// The calling thread's CPU time and wake-ups (zeros where the system has no per-thread
/// usage).
fn thread_usage() -> ThreadUsage {
    orin_exec::engine::os::thread_usage().unwrap_or_default()
}

/// One line of a pipeline's table.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Line {
    /// What ran.
    pub name: String,
    /// Why there are no numbers (e.g. "not available on SIL"); empty when measured.
    pub not_available: String,
    /// End of `src` to start of `sink`, ns.
    pub latency_ns: Summary,
    /// Host enqueue of a frame's accelerator work, ns (runtime: from `submit_stats`; empty
    /// when not available).
    pub enqueue_ns_per_frame: Summary,
    /// Host enqueue per GPU task, ns: the mean of the runtime shape's per-task times (raw) or
    /// `gpu_enqueue_ns / gpu_tasks` (runtime).
    pub gpu_enqueue_ns_per_task: Option<f64>,
    /// DLA: `dla_enqueue_ns / dla_tasks` (runtime).
    pub dla_enqueue_ns_per_task: Option<f64>,
    /// Host submission of a frame's GPU chain, ns: the runtime's mean (stream mode: the sum
    /// of the per-task enqueues; graph mode: the updates and the `cuGraphLaunch`), the raw
    /// graph baseline's mean `cuGraphLaunch` call (means on both sides).
    pub gpu_submit_ns_per_frame: Option<f64>,
    /// Runtime: graph launches in the measured frames (`submit = "graph"`).
    pub graph_launches: u64,
    /// Stream operations (waits and writes) per GPU task.
    pub stream_ops_per_task: Option<f64>,
    /// Where `stream_ops_per_task` comes from.
    pub stream_ops_source: String,
    /// Runtime: executive thread CPU time per frame, µs.
    pub exec_cpu_us_per_frame: Option<f64>,
    /// Runtime: executive thread context switches (wake-ups) per frame.
    pub exec_wakeups_per_frame: Option<f64>,
    /// Runtime: the baseline of the two figures above in the same run, `[CPU µs, wake-ups]`
    /// per frame of a thread that only sleeps and wakes (`os::SleepOnly`, four times a
    /// frame): what waking alone costs on this host.
    pub sleep_only_per_frame: Option<[f64; 2]>,
    /// Runtime: faults in the measured frames.
    pub faults: u64,
    /// Frames whose detection differed from the reference models.
    pub wrong: u64,
    /// Runtime: frames without fault or skipped task whose sink saw no detection.
    pub missing: u64,
    /// The first wrong detection.
    pub first_wrong: Option<String>,
}

/// A ratio of a runtime line to a baseline line.
#[derive(Clone, Debug, Serialize)]
pub struct Ratio {
    /// The runtime line.
    pub runtime: String,
    /// The baseline line.
    pub baseline: String,
    /// What is divided.
    pub metric: String,
    /// Ratio of the medians.
    pub p50: f64,
    /// Ratio of the 99th percentiles.
    pub p99: f64,
}

/// One pipeline's results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Pipeline {
    /// Schedule name.
    pub name: String,
    /// The executive's period, ns.
    pub period_ns: u64,
    /// The raw baselines' period, ns.
    pub raw_period_ns: u64,
    /// Baselines, then runtime runs.
    pub lines: Vec<Line>,
    /// Runtime / baseline.
    pub ratios: Vec<Ratio>,
}

/// Everything `hil bench` measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// `sil`, `rig` or `orin`.
    pub platform: &'static str,
    /// Measured frames per run.
    pub frames: u64,
    /// The pipelines.
    pub pipelines: Vec<Pipeline>,
    /// CPU time of the SIL engine threads (stream, DLA) per frame, outside kernels and
    /// networks; empty until the SIL libraries report it.
    pub sil_engine_threads: String,
}

impl Report {
    /// Frames whose detection was wrong, over every run.
    pub fn wrong_outputs(&self) -> u64 {
        self.pipelines
            .iter()
            .flat_map(|p| &p.lines)
            .map(|l| l.wrong)
            .sum()
    }
}

fn summary(v: &[u64]) -> Summary {
    Summary::of(&v.iter().map(|&x| x as f64).collect::<Vec<_>>())
}

/// The raw `gpu_bench` baselines.
fn raw_gpu_lines(opts: &Options, period_ns: u64) -> Result<Vec<Line>, Box<dyn std::error::Error>> {
    let mut gpu = RawGpu::open()?;
    let o = raw_gpu::Options {
        frames: opts.frames,
        warmup: opts.warmup,
        period_ns,
    };
    let mut lines = vec![];
    for b in Baseline::ALL {
        let mut line = Line {
            name: b.name().into(),
            stream_ops_per_task: Some(f64::from(b.stream_ops_per_frame()) / 2.0),
            stream_ops_source: format!("{} driver calls per frame", b.calls_per_frame()),
            ..Line::default()
        };
        let s = match gpu.run(b, &o) {
            Ok(s) => s,
            // A graph the driver cannot capture is reported, not fatal: the other lines
            // still mean something.
            Err(e) if b == Baseline::Graph => {
                line.not_available = format!("not available: {e}");
                lines.push(line);
                continue;
            }
            Err(e) => return Err(e),
        };
        line.latency_ns = summary(&s.latency_ns);
        line.enqueue_ns_per_frame = summary(&s.enqueue_ns);
        if !s.task_enqueue_ns.is_empty() {
            // Means on both sides: the runtime reports sums (`SubmitStats`), so its figure is a mean.
            line.gpu_enqueue_ns_per_task = Some(summary(&s.task_enqueue_ns).mean);
        }
        if !s.launch_ns.is_empty() {
            line.gpu_submit_ns_per_frame = Some(summary(&s.launch_ns).mean);
        }
        lines.push(line);
    }
    drop(gpu);
    Ok(lines)
}

/// The sink's view of each frame: the detection it read.
type SinkLog = FrameLog<2, 64>;

/// Task start (`true`) and end times by (task, frame).
type Times = HashMap<(u16, u64, bool), u64>;

/// Take every record out of the trace ring.
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

/// Step a sealed executive through the warm-up and measured frames and fill a line.
fn measure(
    mut exec: Executive,
    name: String,
    opts: &Options,
    log: &'static SinkLog,
    expected: &dyn Fn(u64) -> [i32; 4],
    (src, sink): (TaskId, TaskId),
) -> Result<Line, Box<dyn std::error::Error>> {
    let s = exec.schedule();
    let ring = exec.trace();
    let (mut times, mut skipped) = (Times::new(), HashSet::new());
    let mut line = Line {
        name,
        ..Line::default()
    };
    let (mut before, mut stats_before) = (ThreadUsage::default(), None);
    let mut step_error = None;
    let total = opts.warmup + opts.frames;
    let sleeper = SleepOnly::start(s.period_ns, 4)?;
    for i in 0..total {
        if i == opts.warmup {
            before = thread_usage();
            stats_before = submit_stats(&exec);
        }
        let step = exec.step();
        drain(ring, &mut times, &mut skipped);
        let r = match step {
            Ok(r) => r,
            Err(e) => {
                step_error = Some(e);
                break;
            }
        };
        if r.frame < opts.warmup {
            continue;
        }
        line.faults += u64::from(r.faults);
        // A frame with a fault or a skipped task may read an older camera copy: stale is
        // not wrong, so it is not checked.
        if r.faults == 0 && !skipped.contains(&r.frame) {
            match log.get(r.frame).map(detection_from_words) {
                Some(d) if d == expected(r.frame) => {}
                Some(d) => {
                    line.wrong += 1;
                    line.first_wrong.get_or_insert(format!(
                        "frame {}: got {d:?}, expected {:?}",
                        r.frame,
                        expected(r.frame)
                    ));
                }
                None => line.missing += 1,
            }
        }
    }
    let after = thread_usage();
    line.sleep_only_per_frame = sleeper
        .finish()
        .map(|f| [f.cpu_us_per_period(), f.wakeups_per_period()]);
    let stats_after = submit_stats(&exec);
    let shutdown = exec.shutdown();
    drain(ring, &mut times, &mut skipped);
    if let Some(e) = step_error {
        return Err(e.into());
    }
    shutdown?;
    let mut chain = vec![];
    for f in opts.warmup..total {
        if let (Some(&e), Some(&st)) =
            (times.get(&(src.0, f, false)), times.get(&(sink.0, f, true)))
        {
            chain.push(st.saturating_sub(e));
        }
    }
    line.latency_ns = summary(&chain);
    let n = opts.frames.max(1) as f64;
    line.exec_cpu_us_per_frame = Some(after.cpu_ns.saturating_sub(before.cpu_ns) as f64 / 1e3 / n);
    line.exec_wakeups_per_frame = Some(after.since(before).wakeups as f64 / n);
    match (stats_before, stats_after) {
        (Some(a), Some(b)) => {
            let per = |ns: u64, tasks: u64| (tasks > 0).then(|| ns as f64 / tasks as f64);
            let (gt, dt) = (b.gpu_tasks - a.gpu_tasks, b.dla_tasks - a.dla_tasks);
            let (gn, dn) = (
                b.gpu_enqueue_ns - a.gpu_enqueue_ns,
                b.dla_enqueue_ns - a.dla_enqueue_ns,
            );
            line.gpu_enqueue_ns_per_task = per(gn, gt);
            line.dla_enqueue_ns_per_task = per(dn, dt);
            line.stream_ops_per_task = per(b.stream_ops - a.stream_ops, gt);
            // Frames submitted = GPU tasks / GPU tasks per frame (every frame runs them all).
            let per_frame = gpu_tasks_per_frame(s);
            line.gpu_submit_ns_per_frame = per(gn * per_frame, gt);
            line.graph_launches = b.graph_launches - a.graph_launches;
            line.stream_ops_source = format!(
                "submit_stats ({} waits elided, {} graph launches)",
                b.waits_elided - a.waits_elided,
                line.graph_launches
            );
        }
        _ => {
            line.stream_ops_per_task = Some(schedule_stream_ops_per_task(s));
            line.stream_ops_source =
                "schedule: one wait per `after` edge + one signal (no submit_stats yet)".into();
        }
    }
    Ok(line)
}

fn config(opts: &Options, gpu_timestamps: bool) -> Config {
    Config {
        virtual_clock: false,
        realtime_priority: opts.realtime_priority,
        gpu_timestamps,
        ..Config::default()
    }
}

/// The `src` and `sink` bodies, the same in both bench schedules (each schedule has its own
/// generated `body` traits, so each module instantiates them): `src` renders the scenario's
/// camera frame, `sink` records the detection.
macro_rules! src_and_sink {
    () => {
        struct Src;
        impl body::Src for Src {
            fn run(&mut self, mut cx: cx::Src<'_>) -> Result<(), TaskFault> {
                scenario::render(cx.frame, cx.camera.bytes());
                Ok(())
            }
        }

        struct Sink(&'static SinkLog);
        impl body::Sink for Sink {
            fn run(&mut self, cx: cx::Sink<'_>) -> Result<(), TaskFault> {
                let d = cx.detection.as_slice::<i32>()?;
                if cx.inputs_valid && d.len() >= 4 {
                    self.0
                        .record(cx.frame, detection_words([d[0], d[1], d[2], d[3]]));
                }
                Ok(())
            }
        }
    };
}

/// The runtime on one of the `gpu_bench` schedules (`$tables`: its generated module).
macro_rules! gpu_pipeline {
    ($module:ident, $tables:ident, $doc:literal) => {
        #[doc = $doc]
        mod $module {
            use super::*;
            use crate::$tables::{Bodies, SCHEDULE, Storage, body, cx, task};

            src_and_sink!();

            /// The executive on the schedule, timestamps on or off, as line `name`.
            pub(super) fn run(
                opts: &Options,
                timestamps: bool,
                name: String,
            ) -> Result<Line, Box<dyn std::error::Error>> {
                let s: &'static Schedule = &SCHEDULE;
                #[cfg(feature = "sil")]
                orin_exec_kernels::register_models(
                    s.tables(),
                    orin_exec::sil::register_kernel_model,
                )?;
                let log: &'static SinkLog = leak(SinkLog::new());
                let exec = Builder::new(s, leak(Storage::new()))
                    .config(config(opts, timestamps))
                    .bodies(leak(Bodies {
                        src: leak(Src),
                        sink: leak(Sink(log)),
                    }))
                    .init()?
                    .seal()?;
                measure(
                    exec,
                    name,
                    opts,
                    log,
                    &raw_gpu::expected,
                    (task::SRC, task::SINK),
                )
            }

            pub(super) fn period_ns() -> u64 {
                SCHEDULE.tables().period_ns
            }
        }
    };
}

gpu_pipeline!(
    gpu_pipeline,
    bench_schedule,
    "`gpu_bench`: the GPU engine in stream mode."
);
gpu_pipeline!(
    gpu_spin_pipeline,
    bench_spin_schedule,
    "`gpu_bench_spin`: the same pipeline, `cpu_wait = \"spin\"` on the GPU engine."
);
gpu_pipeline!(
    gpu_graph_pipeline,
    bench_graph_schedule,
    "`gpu_bench_graph`: the same pipeline, the GPU engine in graph mode."
);

mod dla_pipeline {
    use super::*;
    use crate::dla_schedule::{Bodies, SCHEDULE, Storage, body, cx, task};

    src_and_sink!();

    /// The executive on `dla_bench` (timestamps off; the SIL DLA's default timing model).
    pub(super) fn run(opts: &Options) -> Result<Line, Box<dyn std::error::Error>> {
        let s: &'static Schedule = &SCHEDULE;
        #[cfg(feature = "sil")]
        orin_exec_kernels::register_models(s.tables(), orin_exec::sil::register_kernel_model)?;
        // Every frame the run can reach: warm-up, measured, and the lookahead at the end.
        let reference = crate::raw_dla::reference_detections(opts.warmup + opts.frames + 2)?;
        let log: &'static SinkLog = leak(SinkLog::new());
        let exec = Builder::new(s, leak(Storage::new()))
            .config(config(opts, false))
            .bodies(leak(Bodies {
                src: leak(Src),
                sink: leak(Sink(log)),
            }))
            .init()?
            .seal()?;
        let expected = |f: u64| reference.get(f as usize).copied().unwrap_or([i32::MIN; 4]);
        measure(
            exec,
            "orin-exec, gpu_timestamps off".into(),
            opts,
            log,
            &expected,
            (task::SRC, task::SINK),
        )
    }

    pub(super) fn period_ns() -> u64 {
        SCHEDULE.tables().period_ns
    }
}

/// The DLA chain's hand-written baseline.
fn raw_dla_line(opts: &Options, period_ns: u64) -> Result<Line, Box<dyn std::error::Error>> {
    let s = crate::raw_dla::run(&crate::raw_dla::Options {
        frames: opts.frames,
        warmup: opts.warmup,
        period_ns,
    })?;
    Ok(Line {
        name: "raw CPU->GPU->DLA->GPU->CPU, pre-enqueued + busy-poll".into(),
        latency_ns: summary(&s.latency_ns),
        enqueue_ns_per_frame: summary(&s.enqueue_ns),
        stream_ops_per_task: Some(f64::from(s.stream_ops_per_frame) / 3.0),
        stream_ops_source: "raw_dla: per frame / 3 accelerator tasks".into(),
        ..Line::default()
    })
}

/// Runtime / baseline ratios of every measured pair.
fn ratios(lines: &[Line]) -> Vec<Ratio> {
    let measured = |l: &&Line| l.not_available.is_empty() && l.latency_ns.n > 0;
    let (runtime, raw): (Vec<&Line>, Vec<&Line>) = lines
        .iter()
        .filter(measured)
        .partition(|l| l.name.starts_with("orin-exec"));
    let mut out = vec![];
    for r in &runtime {
        for b in &raw {
            out.push(Ratio {
                runtime: r.name.clone(),
                baseline: b.name.clone(),
                metric: "latency".into(),
                p50: r.latency_ns.p50 / b.latency_ns.p50,
                p99: r.latency_ns.p99 / b.latency_ns.p99,
            });
            let enq = |l: &Line| l.gpu_enqueue_ns_per_task;
            if let (Some(x), Some(y)) = (enq(r), enq(b)) {
                out.push(Ratio {
                    runtime: r.name.clone(),
                    baseline: b.name.clone(),
                    metric: "host enqueue per GPU task (mean / raw mean)".into(),
                    p50: x / y,
                    p99: f64::NAN,
                });
            }
            if let (Some(x), Some(y)) = (r.gpu_submit_ns_per_frame, b.gpu_submit_ns_per_frame) {
                out.push(Ratio {
                    runtime: r.name.clone(),
                    baseline: b.name.clone(),
                    metric: "GPU chain submission per frame (mean / raw cuGraphLaunch mean)".into(),
                    p50: x / y,
                    p99: f64::NAN,
                });
            }
            if r.enqueue_ns_per_frame.n > 0 && b.enqueue_ns_per_frame.n > 0 {
                out.push(Ratio {
                    runtime: r.name.clone(),
                    baseline: b.name.clone(),
                    metric: "host enqueue per frame".into(),
                    p50: r.enqueue_ns_per_frame.p50 / b.enqueue_ns_per_frame.p50,
                    p99: r.enqueue_ns_per_frame.p99 / b.enqueue_ns_per_frame.p99,
                });
            }
        }
    }
    out
}

/// Run everything.
pub fn run(opts: &Options) -> Result<Report, Box<dyn std::error::Error>> {
    let mut report = Report {
        platform: orin_exec::engine::platform::NAME,
        frames: opts.frames,
        ..Report::default()
    };
    let gpu_period = gpu_pipeline::period_ns();
    let raw_period = opts.period_ns.unwrap_or(gpu_period);
    let mut lines = raw_gpu_lines(opts, raw_period)?;
    let before = sil_threads::totals();
    let name = |mode: &str| format!("orin-exec, {mode}");
    lines.push(gpu_pipeline::run(opts, false, name("gpu_timestamps off"))?);
    lines.push(gpu_pipeline::run(opts, true, name("gpu_timestamps on"))?);
    if gpu_graph_pipeline::period_ns() != gpu_period || gpu_spin_pipeline::period_ns() != gpu_period
    {
        return Err("schedules/gpu_bench_{graph,spin}.toml must keep gpu_bench's period".into());
    }
    lines.push(gpu_spin_pipeline::run(opts, false, name("cpu_wait spin"))?);
    lines.push(gpu_graph_pipeline::run(
        opts,
        false,
        name("graph submission"),
    )?);
    report.sil_engine_threads =
        sil_threads::per_frame(before, sil_threads::totals(), 4 * opts.frames);
    report.pipelines.push(Pipeline {
        name: "gpu_bench: CPU src -> GPU preprocess -> GPU postprocess -> CPU sink".into(),
        period_ns: gpu_period,
        raw_period_ns: raw_period,
        ratios: ratios(&lines),
        lines,
    });
    let dla_period = dla_pipeline::period_ns();
    let mut lines = vec![raw_dla_line(opts, dla_period)?];
    let before = sil_threads::totals();
    lines.push(dla_pipeline::run(opts)?);
    report.sil_engine_threads += &format!(
        "; dla_bench: {}",
        sil_threads::per_frame(before, sil_threads::totals(), opts.frames)
    );
    report.pipelines.push(Pipeline {
        name: "dla_bench: CPU src -> GPU preprocess -> DLA detector -> GPU postprocess -> CPU sink"
            .into(),
        period_ns: dla_period,
        raw_period_ns: dla_period,
        ratios: ratios(&lines),
        lines,
    });
    Ok(report)
}

fn us(ns: f64) -> String {
    if ns.is_nan() {
        "-".into()
    } else {
        format!("{:.1}", ns / 1e3)
    }
}

fn opt(v: Option<f64>, scale: f64, digits: usize) -> String {
    match v {
        Some(x) if !x.is_nan() => format!("{:.*}", digits, x / scale),
        _ => "n/a".into(),
    }
}

/// The printout: per pipeline a latency table (µs), the submission and CPU columns, and the
/// ratios.
pub fn text(r: &Report) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "hil bench on `{}`: {} measured frames per run; latency = end of src to start of sink",
        r.platform, r.frames
    );
    if r.platform == "sil" {
        let _ = writeln!(
            out,
            "NOTE: sil = SIL CUDA and SIL DLA on the CPU: the ratios compare the runtime with the same raw calls on the SIL libraries, not a GPU"
        );
    }
    for p in &r.pipelines {
        let _ = writeln!(
            out,
            "\n[{}]\nperiod {} us (raw baselines {} us)",
            p.name,
            us(p.period_ns as f64),
            us(p.raw_period_ns as f64)
        );
        let _ = writeln!(
            out,
            "  {:<44} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8}",
            "latency (us)", "n", "min", "p50", "p99", "p99.9", "max"
        );
        for l in &p.lines {
            if !l.not_available.is_empty() {
                let _ = writeln!(out, "  {:<44} {}", l.name, l.not_available);
                continue;
            }
            let s = &l.latency_ns;
            let _ = writeln!(
                out,
                "  {:<44} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8}",
                l.name,
                s.n,
                us(s.min),
                us(s.p50),
                us(s.p99),
                us(s.p999),
                us(s.max)
            );
        }
        let _ = writeln!(
            out,
            "  {:<44} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "submission and CPU", "enq/frame", "GPU enq/t", "DLA enq/t", "ops/task", "exec/frame"
        );
        for l in p.lines.iter().filter(|l| l.not_available.is_empty()) {
            let enq = if l.enqueue_ns_per_frame.n > 0 {
                us(l.enqueue_ns_per_frame.p50)
            } else {
                "n/a".into()
            };
            let exec = match (l.exec_cpu_us_per_frame, l.exec_wakeups_per_frame) {
                (Some(c), Some(w)) => format!("{c:.1} us, {w:.1} wake-ups"),
                _ => "-".into(),
            };
            let exec = match l.sleep_only_per_frame {
                Some([c, w]) => format!("{exec} (sleep-only thread: {c:.1} us, {w:.1})"),
                None => exec,
            };
            let _ = writeln!(
                out,
                "  {:<44} {:>10} {:>10} {:>10} {:>10} {:>10}",
                l.name,
                enq,
                opt(l.gpu_enqueue_ns_per_task, 1e3, 2),
                opt(l.dla_enqueue_ns_per_task, 1e3, 2),
                opt(l.stream_ops_per_task, 1.0, 2),
                exec
            );
            let _ = writeln!(out, "  {:<44}   ops: {}", "", l.stream_ops_source);
            if let Some(ns) = l.gpu_submit_ns_per_frame {
                let what = if l.name.starts_with("orin-exec") {
                    "host submission per frame of the GPU chain (mean)"
                } else {
                    "host time of one cuGraphLaunch (mean)"
                };
                let _ = writeln!(out, "  {:<44}   {what}: {} us", "", us(ns));
            }
            if l.name.starts_with("orin-exec") {
                let _ = writeln!(
                    out,
                    "  {:<44}   faults {}, wrong detections {}, frames without detection {}",
                    "", l.faults, l.wrong, l.missing
                );
            }
            if let Some(w) = &l.first_wrong {
                let _ = writeln!(out, "  {:<44}   first wrong detection: {w}", "");
            }
        }
        let _ = writeln!(out, "  ratios runtime / raw (p50, p99):");
        if p.ratios.is_empty() {
            let _ = writeln!(out, "    none (no measured baseline)");
        }
        for q in &p.ratios {
            let _ = writeln!(
                out,
                "    {:<32} / {:<40} {:<44} {:>7.2} {:>7.2}",
                q.runtime, q.baseline, q.metric, q.p50, q.p99
            );
        }
    }
    let _ = writeln!(out, "\nSIL engine threads: {}", r.sil_engine_threads);
    out
}

/// The SIL engine threads' CPU use (SIL CUDA stream workers, SIL cuDLA workers), from the SIL
/// libraries' own accounting; on `rig` CUDA is the real driver and only the DLA is counted.
mod sil_threads {
    use orin_exec::engine::platform::{EngineThreadStats, sil_dla_threads, sil_gpu_threads};

    /// `[cpu_ns, compute_ns, wakeups]` of the CUDA stream workers, then of the DLA workers.
    pub(super) type Totals = [[u64; 3]; 2];

    pub(super) fn totals() -> Totals {
        let row = |t: Option<EngineThreadStats>| {
            t.map_or([0; 3], |t| [t.cpu_ns, t.compute_ns, t.wakeups])
        };
        [row(sil_gpu_threads()), row(sil_dla_threads())]
    }

    /// Per frame between two snapshots: CPU µs outside kernels/networks and wake-ups.
    pub(super) fn per_frame(before: Totals, after: Totals, frames: u64) -> String {
        let frames = frames.max(1) as f64;
        let line = |k: usize, what: &str| {
            let d = |i: usize| after[k][i].saturating_sub(before[k][i]) as f64;
            format!(
                "{what} {:.1} µs CPU outside compute and {:.1} wake-ups per frame",
                (d(0) - d(1)).max(0.0) / 1e3 / frames,
                d(2) / frames
            )
        };
        format!("{}, {}", line(0, "CUDA streams"), line(1, "DLA workers"))
    }
}
