//! `orin-exec-icount`: the runtime's own instructions per dispatched task, counted by callgrind.
//!
//! ```text
//! orin-exec-icount measure --shape cpu-chain --tasks 64    # valgrind on `run`, one result line
//! orin-exec-icount run --shape cpu-chain --tasks 64        # what valgrind runs
//! orin-exec-icount parse callgrind.out --dispatched 3200   # a dump's runtime-own instructions
//! orin-exec-icount check --ceiling ci/instructions-ceiling.toml results.txt
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};
use orin_exec_icount::callgrind::Profile;
use orin_exec_icount::ceiling::{Ceiling, Measurement};
use orin_exec_icount::shapes::{self, Shape};
use orin_exec_icount::{icount_measured_end, icount_measured_frames, runs};

/// Callgrind's pattern for the measured function (demangled names are matched).
const MEASURED: &str = "*icount_measured_frames*";
/// Callgrind's pattern for the function called right after the measured frames.
const MEASURED_END: &str = "*icount_measured_end*";

#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(clap::Args, Clone, Copy)]
struct RunArgs {
    /// The schedule's shape.
    #[arg(long, value_enum)]
    shape: Shape,
    /// Its tasks (4, 16 or 64).
    #[arg(long)]
    tasks: usize,
    /// Frames before the measurement (first-frame effects stay out of it).
    #[arg(long, default_value_t = 10)]
    warmup: u64,
    /// Measured frames.
    #[arg(long, default_value_t = 40)]
    frames: u64,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the schedule on the virtual clock: warm-up, then the measured frames in
    /// `icount_measured_frames`; prints the dispatched task count.
    Run(RunArgs),
    /// Run `run` under callgrind and print `shape tasks dispatched runtime_ir total_ir`; the
    /// top runtime functions by exclusive instructions go to stderr.
    Measure {
        #[command(flatten)]
        run: RunArgs,
        /// Runtime functions listed on stderr.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Keep callgrind's files in this directory (default: a temporary one, removed).
        #[arg(long)]
        keep: Option<PathBuf>,
    },
    /// Read a callgrind out file: runtime-own and total instructions (per task with
    /// `--dispatched`), and the top runtime functions.
    Parse {
        file: PathBuf,
        /// Tasks dispatched in the profile.
        #[arg(long)]
        dispatched: Option<u64>,
        #[arg(long, default_value_t = 10)]
        top: usize,
    },
    /// Check result lines (from `measure`) against the ceiling file; fails on a figure above
    /// its ceiling or per-task counts that grow with the schedule.
    Check {
        #[arg(long)]
        ceiling: PathBuf,
        results: PathBuf,
    },
}

/// Stack of the thread that builds and runs a schedule (virtual address space; only what is
/// touched is backed).
const BIG_STACK: usize = 256 << 20;

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        // The storage of the largest schedules is built by value before it is leaked into a
        // static: run on a thread whose stack holds it.
        Cmd::Run(a) => std::thread::Builder::new()
            .stack_size(BIG_STACK)
            .spawn(move || run(a))
            .map_err(|e| e.to_string())
            .and_then(|t| t.join().unwrap_or_else(|_| Err("the run panicked".into()))),
        Cmd::Measure { run, top, keep } => measure(run, top, keep),
        Cmd::Parse {
            file,
            dispatched,
            top,
        } => parse(&file, dispatched, top),
        Cmd::Check { ceiling, results } => check(&ceiling, &results),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("orin-exec-icount: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(a: RunArgs) -> Result<(), String> {
    let mut exec = shapes::executive(a.shape, a.tasks)?;
    for _ in 0..a.warmup {
        exec.step().map_err(|e| format!("warm-up step: {e}"))?;
    }
    let before = runs(&exec);
    let faults = icount_measured_frames(&mut exec, a.frames)?;
    icount_measured_end();
    let dispatched = runs(&exec) - before;
    let recent: Vec<String> = exec
        .recent_faults()
        .map(|f| format!("\n  frame {} task {:?}: {}", f.frame, f.task, f.error))
        .collect();
    exec.shutdown().map_err(|e| format!("shutdown: {e}"))?;
    // Skipped or failed tasks would dilute the figure: every task runs in every frame.
    if faults != 0 || dispatched != a.tasks as u64 * a.frames {
        return Err(format!(
            "{} with {} tasks: {dispatched} runs and {faults} faults in {} frames (expected {} runs, no fault){}",
            a.shape,
            a.tasks,
            a.frames,
            a.tasks as u64 * a.frames,
            recent.concat()
        ));
    }
    println!("dispatched {dispatched}");
    Ok(())
}

fn measure(a: RunArgs, top: usize, keep: Option<PathBuf>) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
    let dir = match &keep {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!("orin-exec-icount-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = dir.join(format!("callgrind.{}.{}", a.shape, a.tasks));
    let result = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--dump-instr=no",
            // Every thread collects; the measured frames are cut out by a dump on entry to the
            // measured function and one on entry to the function called after it
            // (callgrind's toggle-collect is per thread: it would miss the CPU workers and
            // the SIL threads).
            &format!("--dump-before={MEASURED}"),
            &format!("--dump-before={MEASURED_END}"),
            &format!("--callgrind-out-file={}", out.display()),
        ])
        .arg(&exe)
        .args([
            "run",
            "--shape",
            a.shape.name(),
            "--tasks",
            &a.tasks.to_string(),
            "--warmup",
            &a.warmup.to_string(),
            "--frames",
            &a.frames.to_string(),
        ])
        .output()
        .map_err(|e| format!("valgrind (is it installed? apt-get install valgrind): {e}"));
    let finish = |r: Result<(), String>| {
        if keep.is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        r
    };
    let output = match result {
        Ok(o) => o,
        Err(e) => return finish(Err(e)),
    };
    if !output.status.success() {
        return finish(Err(format!(
            "valgrind ... run --shape {} --tasks {} failed ({}):\n{}",
            a.shape,
            a.tasks,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    // Dump 1: init and warm-up; dump 2: the measured frames; the last: shutdown.
    let dump = PathBuf::from(format!("{}.2", out.display()));
    let profile = match read_profile(&dump) {
        Ok(p) => p,
        Err(e) => return finish(Err(e)),
    };
    let m = Measurement {
        shape: a.shape,
        tasks: a.tasks,
        dispatched: a.tasks as u64 * a.frames,
        runtime_ir: profile.runtime_own(),
        total_ir: profile.total(),
    };
    println!("{}", m.line());
    eprintln!(
        "{} with {} tasks: {:.1} runtime instructions per task ({:.1} in all); top runtime functions (exclusive Ir per task):",
        a.shape,
        a.tasks,
        m.runtime_per_task(),
        m.total_per_task()
    );
    for (f, ir) in profile.top_runtime(top) {
        eprintln!("  {:>9.1}  {f}", ir as f64 / m.dispatched as f64);
    }
    finish(Ok(()))
}

fn read_profile(path: &Path) -> Result<Profile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Profile::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn parse(file: &Path, dispatched: Option<u64>, top: usize) -> Result<(), String> {
    let p = read_profile(file)?;
    let per = |ir: u64| {
        dispatched.map_or(String::new(), |d| {
            format!(" ({:.1} per task)", ir as f64 / d.max(1) as f64)
        })
    };
    println!(
        "runtime-own Ir: {}{}",
        p.runtime_own(),
        per(p.runtime_own())
    );
    println!("total Ir: {}{}", p.total(), per(p.total()));
    for (f, ir) in p.top_runtime(top) {
        println!("  {ir:>12}  {f}");
    }
    Ok(())
}

fn check(ceiling: &Path, results: &Path) -> Result<(), String> {
    let text =
        std::fs::read_to_string(ceiling).map_err(|e| format!("{}: {e}", ceiling.display()))?;
    let c = Ceiling::parse(&text).map_err(|e| format!("{}: {e}", ceiling.display()))?;
    let text =
        std::fs::read_to_string(results).map_err(|e| format!("{}: {e}", results.display()))?;
    let measurements = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(Measurement::parse_line)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", results.display()))?;
    let report = c.check(&measurements);
    print!("{}", report.table);
    if report.failures.is_empty() {
        println!("instructions per task: within {}", ceiling.display());
        Ok(())
    } else {
        Err(report.failures.join("\n"))
    }
}
