//! {{name}}: a periodic CPU -> GPU -> CPU pipeline on orin-exec.
//!
//! `cargo run --release -- [--frames N] [--virtual-clock] [--out DIR]` runs N major frames
//! (default 1000), checks every output element, writes the run's evidence (run.json, trace.bin,
//! summary.json, report.html) to `target/orin-exec/runs/<run id>/` (or DIR) and prints the
//! timing summary. Exit status: 0 every check passed, 1 a check failed, 2 an error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use orin_exec::exec::{Builder, Config};
use orin_exec_evidence::html::Report;
use orin_exec_evidence::run::{self, Clock, Criterion, RunDir, RunManifest, RunStatus};
use orin_exec_trace::{self as export, Drainer, TraceMeta};
use static_cell::StaticCell;

mod models;
mod tasks;

/// The generated tables and typed bindings of `schedule.toml` (see build.rs).
#[allow(clippy::all, missing_docs)]
mod schedule {
    include!(concat!(env!("OUT_DIR"), "/schedule.rs"));
}

use schedule::{SCHEDULE, Storage};

static STORAGE: StaticCell<Storage> = StaticCell::new();

struct Args {
    frames: u64,
    virtual_clock: bool,
    out: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        frames: 1000,
        virtual_clock: false,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--frames" => {
                let n = it.next().ok_or("--frames needs a number")?;
                args.frames = n.parse().map_err(|_| format!("bad frame count `{n}`"))?;
            }
            "--virtual-clock" => args.virtual_clock = true,
            "--out" => args.out = Some(it.next().ok_or("--out needs a directory")?.into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    match parse_args().map_err(Into::into).and_then(|a| run(&a)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<bool, Box<dyn std::error::Error>> {
    let dir = match &args.out {
        Some(out) => RunDir::at(out, &[])?,
        None => RunDir::create(Path::new("target/orin-exec/runs"))?,
    };
    let clock = Clock::of(args.virtual_clock);
    let mut manifest = RunManifest::new(dir.id(), orin_exec::engine::platform::NAME, clock, args.frames);
    manifest.with_schedule(
        SCHEDULE.tables(),
        Path::new("schedule.toml"),
        include_bytes!("../schedule.toml"),
    );
    if let Ok(exe) = std::env::current_exe() {
        manifest.with_binary(&exe);
    }
    manifest.write(dir.path())?;

    // On SIL, the GPU runs the kernels' Rust models: register one per kernel before init.
    models::register()?;

    let (bodies, checks) = tasks::bodies();
    let config = Config {
        virtual_clock: args.virtual_clock,
        ..Config::default()
    };
    let runtime = Builder::new(&SCHEDULE, STORAGE.init_with(Storage::new))
        .config(config)
        .bodies(bodies)
        .init()?;
    let mut exec = runtime.seal()?;

    let trace_path = dir.file(run::TRACE_FILE);
    let meta = TraceMeta::from_schedule(&SCHEDULE, orin_exec::engine::platform::NAME)
        .with_run_id(dir.id());
    let drainer = Drainer::start(exec.trace(), &meta, &trace_path, Duration::from_millis(5))?;
    for _ in 0..args.frames {
        exec.step()?;
        // The virtual clock runs frames faster than real time: let the drainer keep up so that
        // the trace stays complete (on the real clock the executive never waits for it).
        if args.virtual_clock {
            drainer.keep_up();
        }
    }
    let faults = exec.health().total();
    exec.shutdown()?;
    drainer.finish()?;

    let trace = export::read_trace(&trace_path)?;
    let (tasks, release) = export::summarize(&trace.meta, &trace.records);
    println!("per-task timing (ms) over {} frames:", release.frames);
    print!("{}", export::summary_table(&tasks));
    let (frames, mismatches) = (
        checks.frames.load(Ordering::Relaxed),
        checks.mismatches.load(Ordering::Relaxed),
    );
    println!("outputs checked: {frames} frames, {mismatches} mismatching elements; faults: {faults}");
    let summary = serde_json::json!({
        "run_id": dir.id(),
        "frames": release.frames,
        "tasks": tasks,
        "release": release,
        "frames_checked": frames,
        "mismatching_elements": mismatches,
        "faults": faults,
    });
    export::write_file(
        &dir.file(run::SUMMARY_FILE),
        serde_json::to_string_pretty(&summary)?.as_bytes(),
    )?;

    let mut criteria = vec![
        Criterion::new(
            format!("every output of all {} frames checked", args.frames),
            frames == args.frames && mismatches == 0,
            format!("{frames} frames checked, {mismatches} mismatching elements"),
        ),
        Criterion::new("no fault detected", faults == 0, format!("{faults} faults")),
    ];
    criteria.extend(manifest.evidence_criteria());
    let pass = criteria.iter().all(|c| c.pass);
    manifest.finish(RunStatus::Completed, criteria);
    manifest.write(dir.path())?;
    let report = Report::load(dir.path())?;
    export::write_file(&dir.file(run::REPORT_FILE), report.html().as_bytes())?;
    println!("evidence: {}", dir.path().display());
    Ok(pass)
}
