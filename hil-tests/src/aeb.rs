//! The AEB scenario on whatever platform this binary was built for: the demo's schedule
//! (`examples/aeb/schedule.toml`) and task code (`examples/aeb/src/tasks.rs`), a seeded DLA
//! timing model, N frames in real time (or on the SIL virtual clock), and evidence:
//!
//! * `trace.bin`: the raw trace (`orin-exec report` reads it);
//! * `summary.json`: per-task timing (`export::summarize`), release jitter, faults, counters,
//!   and the pass criteria with their verdicts;
//! * `trace.perfetto.json`: the Perfetto / chrome://tracing view;
//! * `outputs.csv` and `outputs.json`: every frame's decision, the GPU detection and the DLA
//!   presence logits, and their digests (see [`crate::outputs`]);
//! * `run.json`: the run manifest (run id, artifact hashes against their manifests, toolchain,
//!   git commit, host, the binary's audit, the criteria), written at start and at the end;
//! * `report.html`: the self-contained HTML report.
//!
//! `--out` is the run directory: every file carries the run's id, and an earlier run's files
//! there are removed first.
//!
//! Pass criteria: every requested frame ran, no fault, every frame decided by the normal chain
//! with valid, plausible inputs, no task skipped, a clean shutdown, the artifacts match their
//! manifests and the binary audit passes. Equality with a SIL run on the same inputs is checked
//! separately (`hil compare`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use orin_exec::exec::{Builder, Config, TaskFault};
use orin_exec::table::{Action, Schedule};
use orin_exec_evidence::html::Report;
use orin_exec_evidence::run::{self as evidence, Clock, RunDir, RunManifest, RunStatus};
use orin_exec_trace::{self as export, Drainer, TraceMeta};
use serde::Serialize;

use crate::app::{self, Tasks};
use crate::leak;
use crate::outputs::{self, FrameOutput, OutputsSummary};
use crate::scenario;
use crate::tasks::{DecisionLog, DecisionTask, FrameLog};
use ::aeb::schedule::{SCHEDULE, Storage, body, cx};

/// The schedule TOML the tables were generated from (for the run manifest's hash).
const SCHEDULE_TOML: &[u8] = include_bytes!("../../examples/aeb/schedule.toml");
/// Its path.
const SCHEDULE_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/aeb/schedule.toml");

/// Options of a scenario run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Major frames (30 Hz).
    pub frames: u64,
    /// Where the evidence goes.
    pub out: PathBuf,
    /// The SIL virtual clock (`sil` only): deterministic and as fast as the CPU allows.
    pub virtual_clock: bool,
    /// Seed of the DLA timing model (uniform 3 to 5 ms, as in the demo).
    pub dla_seed: u64,
    /// `SCHED_FIFO` priority (`None`: leave the scheduling alone).
    pub realtime_priority: Option<i32>,
    /// `Config::gpu_timestamps`.
    pub gpu_timestamps: bool,
    /// No progress lines.
    pub quiet: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            frames: 10_000,
            out: PathBuf::from("hil-results/aeb"),
            virtual_clock: false,
            dla_seed: app::DLA_SEED,
            realtime_priority: Some(10),
            gpu_timestamps: true,
            quiet: false,
        }
    }
}

/// One pass criterion and its verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Criterion {
    /// What is required.
    pub what: String,
    /// What was measured.
    pub measured: String,
    /// Met.
    pub pass: bool,
}

/// What a scenario run produced.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The digests and counts (`outputs.json`).
    pub outputs: OutputsSummary,
    /// The criteria.
    pub criteria: Vec<Criterion>,
    /// Every criterion met.
    pub pass: bool,
}

/// The detection and presence values the normal-mode decision read, per frame (written by the
/// decision task on its worker, read by the main thread after the frame).
struct DetectionLog(FrameLog<3>);

impl DetectionLog {
    fn record(&self, frame: u64, det: [i32; 4], presence: [i8; 2]) {
        let [d0, d1] = outputs::detection_words(det);
        let p = u64::from(presence[0] as u8) << 8 | u64::from(presence[1] as u8);
        self.0.record(frame, [d0, d1, p]);
    }

    fn get(&self, frame: u64) -> Option<([i32; 4], [i8; 2])> {
        let [d0, d1, p] = self.0.get(frame)?;
        Some((
            outputs::detection_from_words([d0, d1]),
            [(p >> 8) as u8 as i8, p as u8 as i8],
        ))
    }
}

/// The demo's decision task, unchanged, plus a record of the values it read.
struct RecordingDecision {
    inner: DecisionTask,
    log: &'static DetectionLog,
}

impl body::Decision for RecordingDecision {
    fn run(&mut self, cx: cx::Decision<'_>) -> Result<(), TaskFault> {
        // The views are read before the decision consumes the context (its own reads).
        let (frame, valid) = (cx.frame, cx.inputs_valid);
        let seen = (cx.detection.as_slice::<i32>(), cx.presence.as_slice::<i8>());
        let result = self.inner.run(cx);
        if valid
            && let (Ok(det), Ok(p)) = seen
            && det.len() >= 4
            && p.len() > 64
        {
            self.log
                .record(frame, [det[0], det[1], det[2], det[3]], [p[0], p[64]]);
        }
        result
    }
}

/// Run the scenario and write its evidence to `opts.out` (the run directory).
pub fn run(opts: &Options) -> Result<Outcome, Box<dyn std::error::Error>> {
    if opts.virtual_clock && !cfg!(feature = "sil") {
        return Err("the virtual clock exists on the `sil` platform only".into());
    }
    // The manifest first, so that a failed or killed run still says what ran.
    let dir = RunDir::at(&opts.out, &["outputs.csv", "outputs.json"])?;
    let mut manifest = RunManifest::new(
        dir.id(),
        orin_exec::engine::platform::NAME,
        Clock::of(opts.virtual_clock),
        opts.frames,
    );
    manifest
        .platform_report(orin_exec::engine::report::PlatformReport::probe().to_string())
        .with_schedule(SCHEDULE.tables(), Path::new(SCHEDULE_PATH), SCHEDULE_TOML);
    if let Ok(exe) = std::env::current_exe() {
        manifest.with_binary(&exe);
    }
    manifest.write(dir.path())?;
    match run_in(opts, &dir, &mut manifest) {
        Ok(outcome) => Ok(outcome),
        Err(e) => {
            let mut criteria = vec![evidence::Criterion::new(
                "the run ends without an error",
                false,
                e.to_string(),
            )];
            criteria.extend(manifest.evidence_criteria());
            manifest.finish(RunStatus::Failed, criteria);
            let _ = manifest.write(dir.path());
            if let Ok(report) = Report::load(dir.path()) {
                let _ =
                    export::write_file(&dir.file(evidence::REPORT_FILE), report.html().as_bytes());
            }
            Err(e)
        }
    }
}

fn run_in(
    opts: &Options,
    dir: &RunDir,
    manifest: &mut RunManifest,
) -> Result<Outcome, Box<dyn std::error::Error>> {
    let s: &'static Schedule = &SCHEDULE;
    let decisions: &'static DecisionLog = leak(DecisionLog::new());
    let detections: &'static DetectionLog = leak(DetectionLog(FrameLog::new()));
    let tasks = leak(Tasks::new(decisions, |inner| RecordingDecision {
        inner,
        log: detections,
    }));
    // The demo's tasks and DLA (3 to 5 ms per frame, seeded).
    let runtime = app::init(
        Builder::new(s, leak(Storage::new())).config(Config {
            realtime_priority: opts.realtime_priority,
            gpu_timestamps: opts.gpu_timestamps,
            ..app::config(opts.virtual_clock)
        }),
        leak(tasks.bodies()),
        opts.dla_seed,
    )?;
    let init_ms = runtime.init_ns() as f64 / 1e6;
    let dla_clock_offset_ns = runtime.dla_clock_offset_ns();
    let gpu_sm = runtime.gpu_sm();
    let mut exec = runtime.seal()?;

    let trace_path = dir.file(evidence::TRACE_FILE);
    let meta = TraceMeta::from_schedule(s, orin_exec::engine::platform::NAME).with_run_id(dir.id());
    let drainer = Drainer::start(exec.trace(), &meta, &trace_path, Duration::from_millis(20))?;
    let clock = if opts.virtual_clock {
        "virtual"
    } else {
        "real"
    };
    println!(
        "AEB scenario: {} frames at 30 Hz on `{}` ({clock} clock, GPU sm_{}), init {init_ms:.1} ms",
        opts.frames,
        orin_exec::engine::platform::NAME,
        gpu_sm.map_or("-".to_string(), |s| s.to_string()),
    );
    if let Some(rt) = exec.realtime()
        && (!rt.fifo || !rt.locked)
    {
        println!(
            "note: SCHED_FIFO {}, mlockall {} (timing is best effort without them)",
            if rt.fifo { "on" } else { "not permitted" },
            if rt.locked { "on" } else { "not permitted" }
        );
    }

    let started = Instant::now();
    let mut frames: Vec<FrameOutput> = Vec::with_capacity(opts.frames as usize);
    let mut faults: Vec<serde_json::Value> = Vec::new();
    let mut fault_count = 0u64;
    let mut matched = 0u64;
    let mut step_error = None;
    for _ in 0..opts.frames {
        let report = match exec.step() {
            Ok(r) => r,
            Err(e) => {
                step_error = Some(e);
                break;
            }
        };
        let f = report.frame;
        let decision = decisions.get(f);
        let det = detections.get(f);
        if decision.is_some_and(|d| d.brake == scenario::ground_truth_brake(f)) {
            matched += 1;
        }
        frames.push(FrameOutput {
            frame: f,
            decision,
            detection: det.map(|d| d.0),
            presence: det.map(|d| d.1),
        });
        if report.faults > 0 {
            fault_count += u64::from(report.faults);
            for fault in app::new_faults(&exec, report.faults) {
                let reaction = match fault.action {
                    Action::Log => "log".to_string(),
                    Action::Skip => "skip".to_string(),
                    Action::SwitchMode(m) => format!("switch to `{}`", app::mode_name(s, m)),
                    Action::SafeStop => "safe stop".to_string(),
                };
                let task = s.task(fault.task).name;
                println!(
                    "frame {:>5}: {} on `{task}` ({}) -> {reaction}",
                    fault.frame,
                    fault.kind.name(),
                    fault.error
                );
                if faults.len() < 1000 {
                    faults.push(app::fault_json(s, &fault, &reaction));
                }
            }
        }
        if !opts.quiet && (f + 1) % 300 == 0 {
            println!(
                "frame {:>5}/{}  decided {:>5}  faults {}  ({:.0} s)",
                f + 1,
                opts.frames,
                frames.iter().filter(|o| o.decision.is_some()).count(),
                fault_count,
                started.elapsed().as_secs_f64()
            );
            let _ = std::io::stdout().flush();
        }
        if report.stopped {
            break;
        }
    }
    let stopped = exec.stopped();
    let health_total = exec.health().total();
    let skipped_runs: u64 = (0..s.tasks.len())
        .map(|i| exec.counters(orin_exec::table::TaskId(i as u16)).skipped)
        .sum();
    let counters: Vec<serde_json::Value> = s
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let c = exec.counters(orin_exec::table::TaskId(i as u16));
            serde_json::json!({
                "task": t.name, "runs": c.runs, "deadline_misses": c.deadline_misses,
                "overruns": c.overruns, "timeouts": c.timeouts, "errors": c.errors, "skipped": c.skipped,
            })
        })
        .collect();
    let shutdown = exec.shutdown();
    let records = drainer.finish()?;
    if let Some(e) = step_error {
        return Err(format!("the executive failed in frame {}: {e}", frames.len()).into());
    }
    if let Err(e) = &shutdown {
        println!("warning: shutdown: {e}");
    }

    // Evidence.
    let (meta, trace) = export::read_file(&trace_path)?;
    let (task_summary, release) = export::summarize(&meta, &trace);
    export::write_file(
        &dir.file(evidence::PERFETTO_FILE),
        export::chrome_json(&meta, &trace).as_bytes(),
    )?;
    let csv = outputs::csv(&frames);
    export::write_file(&dir.file("outputs.csv"), csv.as_bytes())?;
    let decided = frames.iter().filter(|o| o.decision.is_some()).count() as u64;
    let decided_normal = frames
        .iter()
        .filter(|o| {
            o.decision
                .is_some_and(|d| !d.fallback && !d.implausible && !d.stale)
                && o.detection.is_some()
        })
        .count() as u64;
    let summary = OutputsSummary {
        platform: orin_exec::engine::platform::NAME.to_string(),
        clock: clock.to_string(),
        frames_requested: opts.frames,
        frames: frames.len() as u64,
        decided,
        decided_normal,
        matched_ground_truth: matched,
        faults: fault_count.max(health_total),
        decisions_sha256: outputs::decisions_sha256(&frames),
        outputs_sha256: outputs::sha256_hex(csv.as_bytes()),
    };
    let mut criteria = vec![
        Criterion {
            what: format!("all {} frames run", opts.frames),
            measured: format!("{} frames", summary.frames),
            pass: summary.frames == opts.frames && !stopped,
        },
        Criterion {
            what: "no fault (deadline, budget, fence timeout, engine or task error)".into(),
            measured: format!("{} faults", summary.faults),
            pass: summary.faults == 0,
        },
        Criterion {
            what: "every frame decided by the normal chain (valid, plausible inputs)".into(),
            measured: format!(
                "{} decided, {} by the normal chain",
                summary.decided, summary.decided_normal
            ),
            pass: summary.decided_normal == opts.frames,
        },
        Criterion {
            // A CPU task its worker reaches after the deadline is signalled without running
            // and counted as skipped, with no fault: check the counters too.
            what: "no task skipped".into(),
            measured: format!("{skipped_runs} skipped runs"),
            pass: skipped_runs == 0,
        },
        Criterion {
            what: "clean shutdown".into(),
            measured: match &shutdown {
                Ok(()) => "ok".into(),
                Err(e) => e.to_string(),
            },
            pass: shutdown.is_ok(),
        },
    ];
    // The evidence's own criteria: artifacts match their manifests, the binary audit passes.
    criteria.extend(manifest.evidence_criteria().into_iter().map(|c| Criterion {
        what: c.name,
        measured: c.detail,
        pass: c.pass,
    }));
    let pass = criteria.iter().all(|c| c.pass);
    export::write_file(
        &dir.file("outputs.json"),
        serde_json::to_string_pretty(&summary)?.as_bytes(),
    )?;
    let json = serde_json::json!({
        "run_id": dir.id(),
        "scenario": "aeb",
        "schedule": meta.name,
        "platform": meta.platform,
        "clock": clock,
        "gpu_sm": gpu_sm,
        "gpu_timestamps": opts.gpu_timestamps,
        "dla_timing": { "kind": "uniform", "min_ns": app::DLA_MIN_NS, "max_ns": app::DLA_MAX_NS, "seed": opts.dla_seed },
        "init_ms": init_ms,
        "dla_clock_offset_ns": dla_clock_offset_ns.map(|(o, _)| o),
        "dla_clock_offset_uncertainty_ns": dla_clock_offset_ns.map(|(_, w)| w),
        "wall_s": started.elapsed().as_secs_f64(),
        "frames": release.frames,
        "tasks": task_summary,
        "release": release,
        "counters": counters,
        "faults": faults,
        "safe_stop": stopped,
        "trace_records": records,
        "outputs": summary,
        "criteria": criteria,
        "pass": pass,
    });
    export::write_file(
        &dir.file(evidence::SUMMARY_FILE),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    manifest.finish(
        if stopped {
            RunStatus::SafeStop
        } else {
            RunStatus::Completed
        },
        criteria
            .iter()
            .map(|c| evidence::Criterion::new(&c.what, c.pass, &c.measured))
            .collect(),
    );
    manifest.write(dir.path())?;
    let report_path = dir.file(evidence::REPORT_FILE);
    export::write_file(&report_path, Report::load(dir.path())?.html().as_bytes())?;

    app::print_timing(&task_summary, &release);
    println!(
        "decisions: {} of {} frames ({} by the normal chain); {} match the scenario's ground truth",
        summary.decided, summary.frames, summary.decided_normal, summary.matched_ground_truth
    );
    println!("decisions sha256: {}", summary.decisions_sha256);
    println!("outputs sha256:   {}", summary.outputs_sha256);
    for c in &criteria {
        println!(
            "[{}] {}: {}",
            if c.pass { "PASS" } else { "FAIL" },
            c.what,
            c.measured
        );
    }
    println!("run id:   {}", dir.id());
    println!("report:   {}", report_path.display());
    println!("evidence: {}", opts.out.display());
    Ok(Outcome {
        outputs: summary,
        criteria,
        pass,
    })
}
