//! The AEB perception slice: the default demo of orin-exec (`cargo run --release`).
//!
//! A 30 Hz pipeline across the CPU, the PVA, the DLA and the GPU on the SIL platform: a
//! synthetic camera, a PVA preprocess, a DLA CNN, a GPU postprocess and a CPU time-to-collision decision
//! with an independent plausibility monitor. Faults can be injected to watch the health
//! monitor switch to the degraded, CPU-only mode.
//!
//! Every run gets a run id and a run directory (`<target>/orin-exec/runs/<id>/`, with
//! `runs/latest` pointing at it, or `--out DIR`) holding `run.json` (written at start and at
//! the end), `trace.bin`, `summary.json`, `trace.perfetto.json` and `report.html`. A counting
//! global allocator measures the heap allocations from the first frame to the last.
//!
//! Exit status ([`EXIT_STATUS`]): 0 a clean run, 2 a usage or I/O error, 3 the run completed
//! with faults detected (each with its reaction), 4 a safe stop. A closed stdout (`| head`)
//! does not stop the run: it goes on quietly and writes its evidence.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::time::Duration;

use clap::Parser;
use orin_exec::engine::os::{self, ThreadUsage};
use orin_exec::engine::platform::{self, EngineThreadStats};
use orin_exec::engine::report::PlatformReport;
use orin_exec::exec::{Builder, Executive, Injection, SafeStop};
use orin_exec::table::{Schedule, TaskId};
use orin_exec_evidence::html::Report;
use orin_exec_evidence::run::{self, Clock, Criterion, RunDir, RunManifest, RunStatus};
use orin_exec_trace::{self as export, Drainer, TraceMeta};
use sil_common::alloc_count::{CountingAlloc, exempt_this_thread};
use static_cell::StaticCell;

use aeb::app::{self, Tasks};
use aeb::schedule::{Bodies, SCHEDULE, Storage};
use aeb::tasks::DecisionLog;
use aeb::{scenario, tasks};

/// The run completed and no fault was detected.
const EXIT_CLEAN: u8 = 0;
/// A usage error, or the run could not be made (I/O, init).
const EXIT_ERROR: u8 = 2;
/// The run completed with faults detected (each with its configured reaction).
const EXIT_FAULTS: u8 = 3;
/// The health monitor made a safe stop.
const EXIT_SAFE_STOP: u8 = 4;

/// The exit statuses (`--help` prints them).
const EXIT_STATUS: &str = "Exit status:
  0  clean run: every frame ran and no fault was detected
  2  usage or I/O error, or the runtime could not start
  3  the run completed with faults detected (each with its configured reaction)
  4  safe stop: the health monitor stopped the executive";

/// `println!` that survives a closed stdout (`aeb | head`): the run goes on and writes its
/// evidence; what the reader no longer wants is not printed.
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

#[derive(Parser, Debug)]
#[command(
    name = "aeb",
    about = "AEB perception slice on orin-exec (SIL platform by default)",
    after_help = EXIT_STATUS
)]
struct Args {
    /// Major frames to run (30 Hz).
    #[arg(long, default_value_t = 300)]
    frames: u64,
    /// Run on the SIL virtual clock: deterministic, as fast as possible.
    #[arg(long)]
    virtual_clock: bool,
    /// Inject a fault: KIND[:TASK]@frame=N with KIND one of dla-hang, dla-late, dla-error,
    /// dla-corrupt (TASK a DLA task, default `detector`), pva-hang, pva-late, pva-error,
    /// pva-corrupt (TASK a PVA task, default `preprocess`) or cpu-overrun (TASK a CPU task of
    /// any mode, default `decision`) (repeatable). One whose task does not run in frame N's
    /// mode, or whose frame the run does not reach, is reported as not applied.
    #[arg(long, value_parser = parse_injection)]
    inject: Vec<Inject>,
    /// Print the platform, library versions and devices, then exit.
    #[arg(long)]
    platform_report: bool,
    /// The run directory (default: `<target>/orin-exec/runs/<run id>`, with `runs/latest`
    /// pointing at it). An earlier run's files there are replaced.
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress line.
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    DlaHang,
    DlaLate,
    DlaError,
    DlaCorrupt,
    PvaHang,
    PvaLate,
    PvaError,
    PvaCorrupt,
    CpuOverrun,
}

/// `--inject`'s fault kinds, each named as its injection is (`Injection::name`).
const FAULTS: [Fault; 9] = [
    Fault::DlaHang,
    Fault::DlaLate,
    Fault::DlaError,
    Fault::DlaCorrupt,
    Fault::PvaHang,
    Fault::PvaLate,
    Fault::PvaError,
    Fault::PvaCorrupt,
    Fault::CpuOverrun,
];

/// One `--inject`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Inject {
    fault: Fault,
    /// The task named, if any.
    task: Option<String>,
    frame: u64,
}

impl Fault {
    /// The injection and the task it targets unless one is named.
    fn injection(self) -> (&'static str, Injection) {
        match self {
            Fault::DlaHang => ("detector", Injection::DlaHang),
            Fault::DlaLate => (
                "detector",
                Injection::DlaLate {
                    extra_ns: 12_000_000,
                },
            ),
            Fault::DlaError => ("detector", Injection::DlaError),
            Fault::DlaCorrupt => ("detector", Injection::DlaCorrupt),
            Fault::PvaHang => ("preprocess", Injection::PvaHang),
            // Past the preprocess's 6 ms deadline, as a late DLA is past the detector's.
            Fault::PvaLate => (
                "preprocess",
                Injection::PvaLate {
                    extra_ns: 12_000_000,
                },
            ),
            Fault::PvaError => ("preprocess", Injection::PvaError),
            Fault::PvaCorrupt => ("preprocess", Injection::PvaCorrupt),
            Fault::CpuOverrun => (
                "decision",
                Injection::CpuOverrun {
                    extra_ns: 5_000_000,
                },
            ),
        }
    }
}

fn parse_injection(s: &str) -> Result<Inject, String> {
    let (target, frame) = s
        .split_once("@frame=")
        .ok_or("expected KIND[:TASK]@frame=N, e.g. dla-hang@frame=100")?;
    let (kind, task) = match target.split_once(':') {
        Some((kind, task)) => (kind, Some(task.to_string())),
        None => (target, None),
    };
    let name = |f: Fault| f.injection().1.name();
    let fault = FAULTS
        .into_iter()
        .find(|&f| name(f) == kind)
        .ok_or_else(|| {
            let names: Vec<&str> = FAULTS.into_iter().map(name).collect();
            format!("unknown fault `{kind}` ({})", names.join(", "))
        })?;
    let frame = frame
        .parse()
        .map_err(|_| format!("bad frame number `{frame}`"))?;
    Ok(Inject { fault, task, frame })
}

/// How often the trace drainer empties the ring.
const DRAIN_PERIOD: Duration = Duration::from_millis(20);

/// The schedule TOML the tables were generated from (for the run manifest's hash).
const SCHEDULE_TOML: &[u8] = include_bytes!("../schedule.toml");
/// Its path.
const SCHEDULE_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schedule.toml");

/// Counts heap allocations while on, on every thread except while the main thread does the
/// demo's own work (printing, ground truth) between the executive's steps.
#[global_allocator]
static ALLOCATOR: CountingAlloc = CountingAlloc::all_threads();

/// Run `f` on this thread without counting its allocations (the demo's own work).
fn exempt<T>(f: impl FnOnce() -> T) -> T {
    let was = exempt_this_thread(true);
    let r = f();
    exempt_this_thread(was);
    r
}

/// CPU cost of the run: the executive's thread (this one, over the frames; its share of the
/// demo's own work is small with `--quiet`) and the SIL engine threads outside computing
/// (over the frames and the shutdown).
#[derive(Clone, Copy, Default)]
struct CpuCost {
    executive: ThreadUsage,
    gpu: Option<EngineThreadStats>,
    dla: Option<EngineThreadStats>,
}

impl CpuCost {
    fn now() -> CpuCost {
        CpuCost {
            executive: os::thread_usage().unwrap_or_default(),
            gpu: platform::sil_gpu_threads(),
            dla: platform::sil_dla_threads(),
        }
    }

    fn since(self, earlier: CpuCost) -> CpuCost {
        let d = |a: Option<EngineThreadStats>, b: Option<EngineThreadStats>| Some(a?.since(b?));
        CpuCost {
            executive: self.executive.since(earlier.executive),
            gpu: d(self.gpu, earlier.gpu),
            dla: d(self.dla, earlier.dla),
        }
    }

    fn print(&self, frames: u64) {
        let per = |v: u64| v as f64 / frames.max(1) as f64;
        say!(
            "CPU per frame: executive {:.1} µs and {:.1} wake-ups",
            per(self.executive.cpu_ns) / 1e3,
            per(self.executive.wakeups)
        );
        for (what, t) in [
            ("SIL CUDA streams", self.gpu),
            ("SIL cuDLA workers", self.dla),
        ] {
            if let Some(t) = t {
                say!(
                    "CPU per frame: {what} {:.1} µs outside compute, {:.1} wake-ups",
                    per(t.overhead_ns()) / 1e3,
                    per(t.wakeups)
                );
            }
        }
    }
}

static STORAGE: StaticCell<Storage> = StaticCell::new();
/// Wake-ups a frame of the sleep-only baseline thread.
const FLOOR_WAKEUPS: u32 = 4;
static LOG: DecisionLog = DecisionLog::new();
static TASKS: StaticCell<Tasks> = StaticCell::new();
static BODIES: StaticCell<Bodies> = StaticCell::new();

fn safe_state(stop: &SafeStop) {
    // In a car this would command the brake and hand over to the driver.
    eprintln!(
        "\nSAFE STOP in frame {}: {} on `{}` -> brake applied, executive stopped",
        stop.frame,
        stop.fault.name(),
        stop.task
    );
}

/// `--out DIR`, or a new directory under `<target>/orin-exec/runs/`.
fn run_dir(args: &Args) -> std::io::Result<RunDir> {
    if let Some(o) = &args.out {
        // The files of the runs before run directories existed, too.
        return RunDir::at(
            o,
            &[
                "aeb-trace.bin",
                "aeb-summary.json",
                "aeb-trace.perfetto.json",
            ],
        );
    }
    // <target>/<profile>/aeb → <target>/orin-exec/runs
    let runs = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("orin-exec")))
        .unwrap_or_else(|| PathBuf::from("target/orin-exec"))
        .join("runs");
    RunDir::create(&runs)
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.platform_report {
        let _ = write!(std::io::stdout(), "{}", PlatformReport::probe());
        // The engines the demo's schedule runs on (its preprocess on the PVA).
        for e in SCHEDULE.engines {
            let vpu = e.vpu.map_or(String::new(), |v| format!(", {v:?}"));
            say!("engine {:<13}{:?} {}{vpu}", e.name, e.kind, e.instance);
        }
        return ExitCode::SUCCESS;
    }
    // The manifest is written before anything can fail, so that a failed or killed run still
    // says what ran.
    let dir = match run_dir(&args) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: run directory: {e}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let mut manifest = RunManifest::new(
        dir.id(),
        orin_exec::engine::platform::NAME,
        Clock::of(args.virtual_clock),
        args.frames,
    );
    manifest
        .platform_report(PlatformReport::probe().to_string())
        .with_schedule(SCHEDULE.tables(), Path::new(SCHEDULE_PATH), SCHEDULE_TOML);
    if let Ok(exe) = std::env::current_exe() {
        manifest.with_binary(&exe);
    }
    if let Err(e) = manifest.write(dir.path()) {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_ERROR);
    }
    match run(&args, &dir, &mut manifest) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            // Keep the evidence of what ran: the manifest says `failed`, the report shows the
            // trace up to the failure.
            let mut criteria = vec![Criterion::new(
                "the run ends without an error",
                false,
                e.to_string(),
            )];
            criteria.extend(manifest.evidence_criteria());
            manifest.finish(RunStatus::Failed, criteria);
            let _ = manifest.write(dir.path());
            if let Ok(report) = Report::load(dir.path()) {
                let _ = std::fs::write(dir.file(run::REPORT_FILE), report.html());
            }
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn run(
    args: &Args,
    dir: &RunDir,
    manifest: &mut RunManifest,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let s: &'static Schedule = &SCHEDULE;
    // The application's CPU tasks and, on the SIL libraries, a DLA that takes 3 to 5 ms per
    // frame (the SIL default is 2 ms).
    let runtime = app::init(
        Builder::new(s, STORAGE.init_with(Storage::new))
            .config(app::config(args.virtual_clock))
            .safe_state(safe_state),
        BODIES.init(
            TASKS
                .init(Tasks::new(&LOG, std::convert::identity))
                .bodies(),
        ),
        app::DLA_SEED,
    )?;
    let init_ms = runtime.init_ns() as f64 / 1e6;
    let dla_offset_ns = runtime.dla_clock_offset_ns();
    let mut exec = runtime.seal()?;

    let trace_path = dir.file(run::TRACE_FILE);
    let meta = TraceMeta::from_schedule(s, orin_exec::engine::platform::NAME).with_run_id(dir.id());
    let drainer = Drainer::start(exec.trace(), &meta, &trace_path, DRAIN_PERIOD)?;

    for inject in &args.inject {
        let (default, injection) = inject.fault.injection();
        let name = inject.task.as_deref().unwrap_or(default);
        let task = s
            .task_by_name(name)
            .ok_or_else(|| format!("--inject: the schedule has no task `{name}`"))?;
        exec.inject(task, inject.frame, injection)?;
    }
    // On the virtual clock the output is deterministic (CI compares it with
    // `ci/expected/aeb-virtual-clock.txt`): nothing measured on the host's clock, no note on
    // the host's real-time permissions (timing does not depend on them there).
    if args.virtual_clock {
        say!(
            "orin-exec AEB slice: {} frames at 30 Hz on `{}` (virtual clock)",
            args.frames,
            orin_exec::engine::platform::NAME,
        );
    } else {
        say!(
            "orin-exec AEB slice: {} frames at 30 Hz on `{}` (real-time clock), init {init_ms:.1} ms",
            args.frames,
            orin_exec::engine::platform::NAME,
        );
        if let Some((ns, window)) = dla_offset_ns {
            say!(
                "DLA times from SOF/EOF fence timestamps; DLA clock - executive clock = {ns} ns, \
                 calibrated at init (the true offset is within {window} ns below)"
            );
        }
    }
    // What the OS granted each thread (the schedule's `[executive]` and CPU engine settings,
    // else the default priority): host-dependent, so on the real clock only.
    if !args.virtual_clock {
        for grant in exec.threads() {
            say!("thread {grant}");
        }
    }
    if let Some(rt) = exec.realtime()
        && !args.virtual_clock
        && (!rt.fifo || !rt.locked)
    {
        say!(
            "note: running without {}{}{} (not permitted for this user); timing is best effort",
            if rt.fifo { "" } else { "SCHED_FIFO" },
            if !rt.fifo && !rt.locked { " and " } else { "" },
            if rt.locked { "" } else { "mlockall" }
        );
    }

    if !args.virtual_clock {
        say!("run {}: {}", dir.id(), display(dir.path(), false));
    }
    // From the first frame to the last, every allocation of the executive, its workers, the
    // engines and the drainer counts; the demo's own printing is exempt.
    // Control: the counter sees an allocation on this thread (else: not measured).
    // `SIL_ALLOC_BACKTRACES=n` records where the first n counted allocations came from.
    let before = ALLOCATOR.allocations();
    ALLOCATOR.start();
    drop(std::hint::black_box(vec![0u8; 64]));
    ALLOCATOR.stop();
    let counter_works = ALLOCATOR.allocations() > before;
    // The baseline of the executive's CPU time, in the same run: a thread that only sleeps
    // and wakes, four times a frame (started before the counting: spawning allocates).
    let floor = (!args.virtual_clock)
        .then(|| os::SleepOnly::start(exec.schedule().period_ns, FLOOR_WAKEUPS).ok())
        .flatten();
    let before = ALLOCATOR.allocations();
    let cost_before = CpuCost::now();
    ALLOCATOR.start();
    let outcome = exempt(|| run_frames(&mut exec, args));
    ALLOCATOR.stop();
    let executive = os::thread_usage().unwrap_or_default();
    let after_seal = ALLOCATOR.allocations() - before;
    if after_seal > 0 {
        eprint!("{}", ALLOCATOR.backtraces());
    }
    manifest.allocations_after_seal = counter_works.then_some(after_seal);
    let mut outcome = outcome?;
    // Injections whose frame the run did not reach: reported, not dropped.
    for (task, frame, injection) in exec.pending_injections() {
        let why = format!("the run ended before frame {frame}");
        say!(
            "injection {} on `{}` at frame {frame} not applied: {why}",
            injection.name(),
            s.task(task).name
        );
        outcome
            .not_applied
            .push(not_applied_json(s, task, frame, injection, &why));
    }
    let stopped = exec.stopped();
    let recorded_faults = exec.health().total();
    if let Err(e) = exec.shutdown() {
        // E.g. a hung DLA leaves the GPU stream behind it blocked: report it, keep the evidence.
        say!("\nwarning: {e}");
    }
    // The SIL engine threads add their figures to the totals when they go idle or exit: with
    // frames queued ahead they are never idle during the run, so read them after shutdown.
    let floor = floor.and_then(os::SleepOnly::finish);
    let cost = CpuCost {
        executive,
        ..CpuCost::now()
    }
    .since(cost_before);
    let records = drainer.finish()?;
    if !args.quiet && std::io::stdout().is_terminal() {
        say!();
    }

    // Summary from the recorded trace, read record by record (memory flat in run length).
    let mut reader = export::TraceReader::open(&trace_path)?;
    let meta = &reader.meta.clone();
    let mut summarizer = export::Summarizer::new(meta);
    while let Some(r) = reader.next_record()? {
        summarizer.add(&r);
    }
    let (truncated, read_back) = (reader.truncated(), reader.records_read());
    drop(reader);
    let (tasks, release) = summarizer.finish();
    app::print_timing(&tasks, &release);
    say!(
        "brake decisions: {} of {} frames match the scenario's ground truth ({} brake frames in the truth, {} in the output)",
        outcome.matched,
        outcome.decided,
        outcome.truth_brakes,
        outcome.output_brakes
    );
    say!("faults detected: {recorded_faults}");
    // CPU figures depend on the host: only on the real clock (the virtual-clock output is
    // compared with a committed file).
    if !args.virtual_clock {
        cost.print(args.frames);
        if let Some(f) = floor {
            let (cpu_us, wakeups) = (f.cpu_us_per_period(), f.wakeups_per_period());
            say!(
                "CPU per frame: a thread that only sleeps, same run: {cpu_us:.1} µs for {wakeups:.1} wake-ups ({:.1} µs a wake-up on this host)",
                cpu_us / wakeups.max(1.0),
            );
        }
    }

    let perfetto = dir.file(run::PERFETTO_FILE);
    export::perfetto::export_file(&trace_path, &perfetto)?;
    let summary_path = dir.file(run::SUMMARY_FILE);
    let summary = serde_json::json!({
        "run_id": dir.id(),
        "schedule": meta.name,
        "platform": meta.platform,
        "clock": if args.virtual_clock { "virtual" } else { "real" },
        "frames": release.frames,
        "tasks": tasks,
        "release": release,
        "percentiles": export::quantiles::METHOD,
        "decisions": { "matched": outcome.matched, "decided": outcome.decided, "truth_brakes": outcome.truth_brakes, "output_brakes": outcome.output_brakes },
        "faults": outcome.faults,
        "injections_not_applied": outcome.not_applied,
        "frames_without_decision_or_reaction": outcome.unaccounted,
        "safe_stop": stopped,
        "trace_records": records,
    });
    export::write_file(&summary_path, &export::json_pretty(&summary)?)?;

    // The verdict: the run's own criteria, then the evidence's (artifacts, audit, allocations).
    let injected = args.inject.len();
    let mut criteria = vec![
        Criterion::new(
            format!("all {} frames run", args.frames),
            release.frames == args.frames && !stopped,
            format!(
                "{} frames released{}",
                release.frames,
                if stopped { ", safe stop" } else { "" }
            ),
        ),
        Criterion::new(
            "no fault detected (deadline, budget, fence timeout, engine or task error)",
            recorded_faults == 0,
            format!(
                "{recorded_faults} faults{}",
                if injected > 0 {
                    format!(" ({injected} injected on purpose)")
                } else {
                    String::new()
                }
            ),
        ),
        Criterion::new(
            "trace complete (no record lost)",
            !truncated && records == read_back,
            format!(
                "{read_back} of {records} drained records read back{}",
                if truncated { ", file cut off" } else { "" }
            ),
        ),
    ];
    criteria.extend(manifest.evidence_criteria());
    manifest.finish(
        if stopped {
            RunStatus::SafeStop
        } else {
            RunStatus::Completed
        },
        criteria,
    );
    manifest.write(dir.path())?;
    let report_path = dir.file(run::REPORT_FILE);
    let report = Report::load(dir.path())?;
    export::write_file(&report_path, report.html().as_bytes())?;

    let shown = |p: &Path| display(p, args.virtual_clock);
    say!(
        "\ntrace (Perfetto / chrome://tracing): {}",
        shown(&perfetto)
    );
    say!(
        "summary (JSON):                       {}",
        shown(&summary_path)
    );
    say!(
        "raw trace (`orin-exec report`):       {}",
        shown(&trace_path)
    );
    say!(
        "report (HTML):                        {}",
        shown(&report_path)
    );
    Ok(ExitCode::from(if stopped {
        EXIT_SAFE_STOP
    } else if recorded_faults > 0 {
        EXIT_FAULTS
    } else {
        EXIT_CLEAN
    }))
}

/// The JSON record of an injection that could not take effect, and why.
fn not_applied_json(
    s: &Schedule,
    task: TaskId,
    frame: u64,
    injection: Injection,
    why: &str,
) -> serde_json::Value {
    serde_json::json!({
        "frame": frame,
        "task": s.task(task).name,
        "injection": injection.name(),
        "why": why,
    })
}

/// The canonical path of `p` or, with `relative` (the virtual clock's deterministic output),
/// its path relative to the current directory when it lies below it (`target/orin-exec/..`
/// whatever the checkout's location).
fn display(p: &Path, relative: bool) -> String {
    let canonical = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let below_cwd = std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .ok()
        .and_then(|cwd| canonical.strip_prefix(cwd).ok().map(Path::to_path_buf));
    match below_cwd {
        Some(rel) if relative => rel.display().to_string(),
        _ => canonical.display().to_string(),
    }
}

struct Outcome {
    matched: u64,
    decided: u64,
    truth_brakes: u64,
    output_brakes: u64,
    faults: Vec<serde_json::Value>,
    not_applied: Vec<serde_json::Value>,
    /// Frames that ended with neither a decision nor a fault and its reaction.
    unaccounted: Vec<u64>,
}

fn run_frames(exec: &mut Executive, args: &Args) -> Result<Outcome, orin_exec::Error> {
    let s = exec.schedule();
    let mut o = Outcome {
        matched: 0,
        decided: 0,
        truth_brakes: 0,
        output_brakes: 0,
        faults: Vec::new(),
        not_applied: Vec::new(),
        unaccounted: Vec::new(),
    };
    // Asked once: the answer does not change, and the call is a syscall on this thread, whose
    // CPU time the demo reports as the executive's.
    let live = std::io::stdout().is_terminal();
    for _ in 0..args.frames {
        // The main thread counts only inside the executive's step.
        exempt_this_thread(false);
        let report = exec.step();
        exempt_this_thread(true);
        let report = report?;
        let f = report.frame;
        let truth = scenario::ground_truth_brake(f);
        o.truth_brakes += truth as u64;
        let decision = tasks_decision(f);
        if let Some(d) = decision {
            o.decided += 1;
            o.output_brakes += d.brake as u64;
            o.matched += (d.brake == truth) as u64;
        }
        if decision.is_none() && report.faults == 0 {
            o.unaccounted.push(f);
        }
        // Injections this step found not applicable (their task does not run in the mode).
        let fresh: Vec<_> = exec.not_applied().copied().collect();
        let fresh =
            &fresh[fresh.len() - (report.injections_not_applied as usize).min(fresh.len())..];
        for n in fresh {
            let why = format!(
                "mode `{}` of frame {} does not run the task",
                app::mode_name(s, n.mode),
                n.frame
            );
            say!(
                "\r{:<90}\rinjection {} on `{}` at frame {} not applied: {why}",
                "",
                n.injection.name(),
                s.task(n.task).name,
                n.frame
            );
            o.not_applied
                .push(not_applied_json(s, n.task, n.frame, n.injection, &why));
        }
        // Faults and reactions, as they happen.
        if report.faults > 0 {
            for fault in app::new_faults(exec, report.faults) {
                let reaction = app::reaction_text(s, fault.action);
                say!(
                    "\r{:<90}\rframe {:>4}: detected {} on `{}` ({}) -> {}",
                    "",
                    fault.frame,
                    fault.kind.name(),
                    s.task(fault.task).name,
                    fault.error,
                    reaction
                );
                o.faults.push(app::fault_json(s, &fault, &reaction));
            }
        }
        // A live progress line on a terminal; one line a second otherwise (logs, CI).
        if !args.quiet && (live || f % 30 == 29) {
            let mode = app::mode_name(s, report.mode);
            let d = decision.map_or("-".to_string(), |d| {
                let dist = if d.distance_mm >= 0 {
                    format!("{:5.1} m", d.distance_mm as f64 / 1000.0)
                } else {
                    "  none ".into()
                };
                format!("{} {dist}", if d.brake { "BRAKE" } else { "coast" })
            });
            let _ = write!(
                std::io::stdout(),
                "{}frame {:>4}/{:<4} mode {:<8} obstacle {:<7} decision {:<14} matched {:>4}/{:<4}{}",
                if live { "\r" } else { "" },
                f + 1,
                args.frames,
                mode,
                scenario::obstacle_distance(scenario::time_of(f))
                    .map_or("none".to_string(), |d| format!("{d:.1} m")),
                d,
                o.matched,
                o.decided,
                if live { "" } else { "\n" }
            );
            let _ = std::io::stdout().flush();
        }
        if report.stopped {
            break;
        }
    }
    Ok(o)
}

fn tasks_decision(frame: u64) -> Option<tasks::Decision> {
    LOG.get(frame)
}
