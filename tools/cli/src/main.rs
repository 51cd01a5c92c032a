//! The `orin-exec` command line.
//!
//! * `check FILE`: validate a schedule; print the worst-case timeline or the diagnostics.
//! * `report TRACE`: turn a recorded trace into the per-task summary and a Perfetto trace.
//! * `audit BINARY`: list a binary's native dependencies and imported vendor symbols, and fail
//!   on forbidden ones (managed memory, JIT, dynamic loading) or on embedded PTX.
//! * `platform`: the libraries, versions and devices this build sees.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use orin_exec::engine::report::PlatformReport;
use orin_exec_evidence::Audit;
use orin_exec_trace as export;

#[derive(Parser)]
#[command(
    name = "orin-exec",
    version,
    about = "Deterministic CPU/GPU/DLA executive for NVIDIA Orin: tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a schedule and print its worst-case timeline.
    Check {
        /// The schedule TOML.
        file: PathBuf,
    },
    /// Summarise a recorded trace (timing per task, faults, release jitter).
    Report {
        /// A trace file written by the trace drainer.
        trace: PathBuf,
        /// Also write a Perfetto/Chrome JSON trace here.
        #[arg(long)]
        perfetto: Option<PathBuf>,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Audit a binary for forbidden symbols and embedded PTX.
    Audit {
        /// The ELF binary.
        binary: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the platform, library versions and devices this build sees.
    Platform,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { file } => check(&file),
        Command::Report {
            trace,
            perfetto,
            json,
        } => report(&trace, perfetto.as_deref(), json),
        Command::Audit { binary, json } => audit(&binary, json),
        Command::Platform => {
            print!("{}", PlatformReport::probe());
            Ok(true)
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn check(file: &Path) -> Result<bool, String> {
    match orin_exec_schedule::check_file(file) {
        Ok(report) => {
            print!("{report}");
            Ok(true)
        }
        Err(diagnostics) => {
            eprint!("{diagnostics}");
            Ok(false)
        }
    }
}

fn report(trace: &Path, perfetto: Option<&Path>, json: bool) -> Result<bool, String> {
    let (meta, records) = export::read_file(trace).map_err(|e| e.to_string())?;
    let (tasks, release) = export::summarize(&meta, &records);
    if json {
        let value = serde_json::json!({ "schedule": meta.name, "platform": meta.platform, "tasks": tasks, "release": release });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "{} on {}: {} frames, period {:.3} ms",
            meta.name,
            meta.platform,
            release.frames,
            meta.period_ns as f64 / 1e6
        );
        print!("{}", export::summary_table(&tasks));
        println!(
            "release error: min {:.1} us, mean {:.1} us, p99 {:.1} us, max {:.1} us",
            release.min_error_ns as f64 / 1e3,
            release.mean_error_ns as f64 / 1e3,
            release.p99_error_ns as f64 / 1e3,
            release.max_error_ns as f64 / 1e3
        );
    }
    if let Some(path) = perfetto {
        export::write_file(path, export::chrome_json(&meta, &records).as_bytes())
            .map_err(|e| e.to_string())?;
        eprintln!("perfetto trace: {}", path.display());
    }
    Ok(true)
}

fn audit(binary: &Path, json: bool) -> Result<bool, String> {
    let audit = Audit::of_file(binary)?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&audit).map_err(|e| e.to_string())?
        );
    } else {
        print!("{audit}");
    }
    Ok(audit.ok())
}
