//! `hil`: the HIL test runner (see `hil-tests/README.md`).
//!
//! ```text
//! hil platform                                  what the runtime sees (libraries, GPU, RT)
//! hil scenario aeb --frames N --out DIR         the AEB scenario with evidence and outputs
//! hil compare A_DIR B_DIR                       exact comparison of two scenario outputs
//! hil b2b --trials N --seed S --out DIR         kernels vs reference models
//! hil bench [--frames N] [--period P] [--json FILE]  the runtime against raw driver code
//! ```
//!
//! Exit status: 0 pass, 1 a pass criterion failed (or outputs differ), 2 an error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use hil_tests::{aeb, b2b, bench, outputs};
use orin_exec::engine::report::PlatformReport;
use orin_exec_trace as export;

#[derive(Parser, Debug)]
#[command(
    name = "hil",
    version,
    about = "orin-exec HIL tests: AEB scenario, GPU back-to-back tests, the benchmark against raw driver code"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Scenario {
    /// The AEB perception slice (examples/aeb).
    Aeb,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the platform report (libraries, devices, real-time permissions) and build facts.
    Platform,
    /// Run a scenario for N frames and write its evidence and per-frame outputs.
    Scenario {
        /// The scenario.
        #[arg(value_enum)]
        scenario: Scenario,
        /// Major frames (30 Hz).
        #[arg(long, default_value_t = 10_000)]
        frames: u64,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Run on the SIL virtual clock (`sil` builds only): deterministic, fast.
        #[arg(long)]
        virtual_clock: bool,
        /// Seed of the DLA timing model.
        #[arg(long, default_value_t = 7)]
        dla_seed: u64,
        /// SCHED_FIFO priority of the executive and the CPU workers (0: do not ask).
        #[arg(long, default_value_t = 10)]
        realtime_priority: i32,
        /// Run without the GPU timestamp kernels.
        #[arg(long)]
        no_gpu_timestamps: bool,
        /// No progress lines.
        #[arg(long)]
        quiet: bool,
    },
    /// Compare the per-frame outputs of two scenario runs exactly (exit 1 if they differ).
    Compare {
        /// The reference run's directory (e.g. the bundled SIL run).
        a: PathBuf,
        /// The run to check.
        b: PathBuf,
        /// Pass when the frames both runs have are identical even if one run is shorter
        /// (for shortened trial runs; the acceptance comparison needs equal frame counts).
        #[arg(long)]
        allow_prefix: bool,
    },
    /// Back-to-back tests: each kernel on the GPU vs its reference model.
    B2b {
        /// Trials per kernel.
        #[arg(long, default_value_t = 200)]
        trials: u32,
        /// Seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Largest element count of the 1D kernels.
        #[arg(long, default_value_t = 1 << 20)]
        max_elements: u32,
        /// Output directory (b2b.json).
        #[arg(long)]
        out: PathBuf,
    },
    /// Benchmark: raw driver baselines and the runtime on the same pipelines, in one process
    /// (min/p50/p99/p99.9/max and ratios; never fails on a ratio).
    Bench {
        /// Measured frames per run.
        #[arg(long, default_value_t = 2000)]
        frames: u64,
        /// Frames before them that are not counted.
        #[arg(long, default_value_t = 20)]
        warmup: u64,
        /// Period of the raw gpu_bench baselines (e.g. `4ms`, `500us`; default: the
        /// schedule's); the executive runs at its schedule's period.
        #[arg(long, value_parser = parse_period)]
        period: Option<u64>,
        /// SCHED_FIFO priority of the executive and the CPU workers (0: do not ask, as on
        /// the rig).
        #[arg(long, default_value_t = 0)]
        realtime_priority: i32,
        /// Write every number as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

/// `4ms`, `500us`, `4000000ns` or a plain number of ns.
fn parse_period(s: &str) -> Result<u64, String> {
    let (num, scale) = if let Some(v) = s.strip_suffix("ms") {
        (v, 1_000_000.0)
    } else if let Some(v) = s.strip_suffix("us") {
        (v, 1_000.0)
    } else if let Some(v) = s.strip_suffix("ns") {
        (v, 1.0)
    } else {
        (s, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a period: write e.g. `4ms`, `500us` or `4000000ns`"))?;
    let ns = v * scale;
    if !(100_000.0..=10e9).contains(&ns) {
        return Err(format!("period `{s}` is outside 100us..10s"));
    }
    Ok(ns as u64)
}

fn priority(p: i32) -> Option<i32> {
    (p > 0).then_some(p)
}

fn write_json<T: serde::Serialize>(path: &Path, v: &T) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    export::write_file(path, serde_json::to_string_pretty(v)?.as_bytes())?;
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match cli.command {
        Command::Platform => {
            print!("{}", PlatformReport::probe());
            println!("hil-tests platform: {}", hil_tests::PLATFORM);
            println!("kernels: {}", orin_exec_kernels::CUBIN_PROVENANCE);
            for c in orin_exec_kernels::CUBINS {
                println!(
                    "  cubin {} sm_{} {} ({}; kernels {})",
                    c.name,
                    c.sm,
                    c.sha256
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect::<String>(),
                    c.nvcc_version,
                    c.kernels.join(", ")
                );
            }
            for var in ["CUDA_MODULE_LOADING", "CUDA_DISABLE_PTX_JIT", "SIL_CUDA_SM"] {
                println!(
                    "env {var}={}",
                    std::env::var(var).unwrap_or_else(|_| "(unset)".into())
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Scenario {
            scenario: Scenario::Aeb,
            frames,
            out,
            virtual_clock,
            dla_seed,
            realtime_priority,
            no_gpu_timestamps,
            quiet,
        } => {
            let outcome = aeb::run(&aeb::Options {
                frames,
                out,
                virtual_clock,
                dla_seed,
                realtime_priority: priority(realtime_priority),
                gpu_timestamps: !no_gpu_timestamps,
                quiet,
            })?;
            println!(
                "scenario aeb: {}",
                if outcome.pass { "PASS" } else { "FAIL" }
            );
            Ok(if outcome.pass {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Compare { a, b, allow_prefix } => {
            let (la, lb) = (
                outputs::read_csv(&a.join("outputs.csv"))?,
                outputs::read_csv(&b.join("outputs.csv"))?,
            );
            let c = outputs::compare(&la, &lb);
            println!(
                "compare {} ({} frames) with {} ({} frames)",
                a.display(),
                c.frames.0,
                b.display(),
                c.frames.1
            );
            for (name, dir) in [("A", &a), ("B", &b)] {
                if let Ok(text) = std::fs::read_to_string(dir.join("outputs.json"))
                    && let Ok(s) = serde_json::from_str::<outputs::OutputsSummary>(&text)
                {
                    println!(
                        "  {name}: platform {}, {} clock, decided {}/{}, faults {}, decisions sha256 {}",
                        s.platform, s.clock, s.decided, s.frames, s.faults, s.decisions_sha256
                    );
                }
            }
            if c.equal() {
                println!("IDENTICAL: every frame's outputs are equal");
                return Ok(ExitCode::SUCCESS);
            }
            if allow_prefix && c.differing == 0 {
                println!(
                    "IDENTICAL PREFIX: the {} frames both runs have are equal (frame counts differ: {} and {}; not an acceptance comparison)",
                    c.frames.0.min(c.frames.1),
                    c.frames.0,
                    c.frames.1
                );
                return Ok(ExitCode::SUCCESS);
            }
            if c.frames.0 != c.frames.1 {
                println!("DIFFERENT: frame counts differ");
            }
            if let Some((f, x, y)) = &c.first {
                println!(
                    "DIFFERENT: {} of {} common frames differ; first at frame {f}:\n  {}\n  A: {x}\n  B: {y}",
                    c.differing,
                    c.frames.0.min(c.frames.1),
                    outputs::CSV_HEADER
                );
                if c.only_distance_within_1mm {
                    println!(
                        "  (every difference is a distance within the kernels' documented 1 mm float tolerance; the criterion is exact equality)"
                    );
                }
            }
            Ok(ExitCode::from(1))
        }
        Command::B2b {
            trials,
            seed,
            max_elements,
            out,
        } => {
            let r = b2b::run(&b2b::Options {
                trials,
                seed,
                max_elements,
                ..b2b::Options::default()
            })?;
            write_json(&out.join("b2b.json"), &r)?;
            println!(
                "back-to-back on `{}`: {} (sm_{}, driver {}), seed {seed}, {trials} trials per kernel, {:.1} s",
                r.platform, r.device, r.sm, r.driver_version, r.elapsed_s
            );
            for k in &r.kernels {
                println!(
                    "  [{}] {:<18} {:>5} trials {:>6} launches {:>11} elements, {} mismatches, max diff {} {} (tolerance {})",
                    if k.pass { "PASS" } else { "FAIL" },
                    k.kernel,
                    k.trials,
                    k.launches,
                    k.elements_compared,
                    k.mismatches,
                    k.max_diff,
                    k.diff_unit,
                    k.tolerance
                );
                for n in &k.notes {
                    println!("         {n}");
                }
                for f in &k.failures {
                    println!("         FAILURE {f}");
                }
            }
            println!(
                "b2b: {} ({})",
                if r.pass { "PASS" } else { "FAIL" },
                out.join("b2b.json").display()
            );
            Ok(if r.pass {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Bench {
            frames,
            warmup,
            period,
            realtime_priority,
            json,
        } => {
            let r = bench::run(&bench::Options {
                frames,
                warmup,
                period_ns: period,
                realtime_priority: priority(realtime_priority),
            })?;
            print!("{}", bench::text(&r));
            if let Some(path) = json {
                write_json(&path, &r)?;
                println!("json: {}", path.display());
            }
            // A benchmark: it fails only on a wrong detection (errors exit 2 above).
            Ok(if r.wrong_outputs() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
