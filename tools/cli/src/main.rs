//! The `orin-exec` command line.
//!
//! * `check FILE`: validate a schedule; print the worst-case timeline or the diagnostics.
//! * `report RUN [--html OUT.html] [--json] [--perfetto P]`: the report of a run directory or
//!   a trace file: verdict, per-task timing, faults, mode switches; the self-contained HTML
//!   report; a Perfetto trace. Exit 0 no recorded criterion failed, 1 one did, 2 an error.
//! * `audit BINARY`: list a binary's native dependencies and imported vendor symbols, and fail
//!   on forbidden ones (managed memory, JIT, dynamic loading) or on embedded PTX.
//! * `platform`: the libraries, versions and devices this build sees.
//! * `new DIR`: create a project of your own (schedule, kernel, model, build script, main).
//! * `networks build [DIR]`: the networks manifest of a project's ONNX networks (checked by the
//!   SIL DLA's reader; descriptors; hashes; the real loadable when present).
//! * `kernels build [DIR]`: compile a project's `.cu` files into SASS-only cubins with the
//!   pinned nvcc and write the kernels manifest (`--check`: rebuild and compare).
//!
//! Every command exits with the same statuses ([`EXIT_STATUS`], printed by `--help`): 0 ok,
//! 1 the check failed, 2 a usage or I/O error (whose message names the path). A closed output
//! pipe (`orin-exec check s.toml | head -1`) is not an error: the command stops writing and
//! exits with the status it would have had.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use orin_exec::engine::report::PlatformReport;
use orin_exec_evidence::Audit;
use orin_exec_evidence::html::{
    EXIT_CRITERION_FAILED, EXIT_ERROR, EXIT_OK, ReportArgs, report_command,
};

/// The exit statuses of every command (`--help` prints them).
const EXIT_STATUS: &str = "Exit status (every command):
  0  ok (schedule valid, report made with no failed criterion, audit passed, ...)
  1  the check failed (invalid schedule, failed criterion, forbidden symbol, kernels differ)
  2  usage or I/O error (the message names the path)
A closed output pipe (`| head`) ends the command quietly with the status it would have had.";

mod kernels;
mod networks;
mod new;

#[derive(Parser)]
#[command(
    name = "orin-exec",
    version,
    about = "Deterministic CPU/GPU/DLA executive for NVIDIA Orin: tools",
    after_help = EXIT_STATUS
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The language of `generate`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Lang {
    /// C tables and header for the C API.
    C,
    /// Rust tables, as a build script generates them.
    Rust,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a schedule and print its worst-case timeline.
    Check {
        /// The schedule TOML.
        file: PathBuf,
    },
    /// Report a run: verdict, timing per task (with units, WCET, p99.9, miss runs), release
    /// jitter, faults and mode switches; optionally the self-contained HTML report.
    ///
    /// Exit status: 0 the report was made and no recorded pass criterion failed (a killed run
    /// or a bare trace file has none: its report says so); 1 the report was made and a
    /// criterion failed; 2 no report (not a run directory or trace, unreadable, unwritable).
    Report {
        /// A run directory (`target/orin-exec/runs/latest`, a `hil scenario --out` dir) or a
        /// trace file; a truncated trace (a killed run) is reported up to where it ends.
        run: PathBuf,
        /// Write the self-contained HTML report here.
        #[arg(long, value_name = "OUT.html")]
        html: Option<PathBuf>,
        /// Print the report as JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also write a Perfetto/Chrome JSON trace here.
        #[arg(long, value_name = "P")]
        perfetto: Option<PathBuf>,
    },
    /// Validate a schedule and write its generated tables: for C (`--lang c`,
    /// `<schedule>_tables.h` and `<schedule>_tables.c` for the C API `orin_exec.h`) or Rust
    /// (`--lang rust`, `<schedule>.rs`, what a build script includes).
    Generate {
        /// The schedule TOML.
        file: PathBuf,
        /// The language of the tables.
        #[arg(long, value_enum, default_value = "c")]
        lang: Lang,
        /// The directory to write into (created if missing).
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
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
    /// Create a project of your own: a crate with a schedule, a kernel, its model, a build
    /// script and a main that runs and writes evidence.
    New {
        /// The project directory (created; must be empty if it exists).
        dir: PathBuf,
        /// The package name (default: the directory's name).
        #[arg(long)]
        name: Option<String>,
        /// The orin-exec checkout to depend on (default: the one this binary was built from).
        #[arg(long, value_name = "PATH")]
        orin_exec: Option<PathBuf>,
        /// Do not build the kernels now (no nvcc on this machine).
        #[arg(long)]
        no_kernels: bool,
    },
    /// Build a project's CUDA kernels ahead of time.
    #[command(subcommand)]
    Kernels(KernelsCommand),
    /// Describe a project's DLA networks.
    #[command(subcommand)]
    Networks(NetworksCommand),
}

#[derive(Subcommand)]
enum NetworksCommand {
    /// Check every `DIR/*.onnx` against the DLA's operator subset and int8 `kDLA_LINEAR` I/O,
    /// and write `DIR/manifest.toml` (ONNX hash, tensor descriptors, and `<name>.loadable`, the
    /// real loadable, when present).
    Build {
        /// The directory of the `.onnx` files.
        #[arg(default_value = "networks")]
        dir: PathBuf,
    },
}

#[derive(Subcommand)]
enum KernelsCommand {
    /// Compile every `DIR/*.cu` into `DIR/cubins/<module>.sm_<S>.cubin` (SASS only, the pinned
    /// nvcc) and write `DIR/manifest.toml` with hashes and each kernel's parameter kinds.
    Build {
        /// The directory of the `.cu` files.
        #[arg(default_value = "kernels")]
        dir: PathBuf,
        /// SMs to build for (87 = Orin, 90 = H100/H200).
        #[arg(long = "sm", default_values_t = [87u32, 90])]
        sms: Vec<u32>,
        /// The nvcc to use (default: `$ORIN_EXEC_NVCC`, a `.venv` above DIR, `nvcc` on PATH).
        #[arg(long)]
        nvcc: Option<PathBuf>,
        /// Rebuild into a temporary directory and compare with the committed cubins and
        /// manifest instead of writing (exit 1 if they differ).
        #[arg(long)]
        check: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` go to stdout (status 0), usage errors to stderr
            // (status 2); a closed pipe is not worth a panic.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_OK });
        }
    };
    let result = match cli.command {
        Command::Check { file } => check(&file),
        Command::Report {
            run,
            html,
            json,
            perfetto,
        } => {
            return match report_command(&ReportArgs {
                run,
                html,
                json,
                perfetto,
            }) {
                Ok(outcome) => {
                    err(&outcome.stderr);
                    match out(&outcome.stdout) {
                        Ok(()) => ExitCode::from(outcome.exit),
                        Err(e) => fail(&e),
                    }
                }
                Err(e) => fail(&e.to_string()),
            };
        }
        Command::Generate { file, lang, out } => generate(&file, lang, &out),
        Command::Audit { binary, json } => audit(&binary, json),
        Command::Platform => out(&PlatformReport::probe().to_string()).map(|()| true),
        Command::New {
            dir,
            name,
            orin_exec,
            no_kernels,
        } => new::create(&new::NewArgs {
            dir,
            name,
            orin_exec,
            no_kernels,
        })
        .and_then(|summary| out(&summary).map(|()| true)),
        Command::Networks(NetworksCommand::Build { dir }) => {
            networks::build(&dir).and_then(|summary| out(&summary).map(|()| true))
        }
        Command::Kernels(KernelsCommand::Build {
            dir,
            sms,
            nvcc,
            check,
        }) => match kernels::build(&kernels::BuildArgs {
            dir,
            sms,
            nvcc,
            check,
        }) {
            Ok(summary) => out(&summary).map(|()| true),
            Err(e) if check => {
                err(&format!("{e}\n"));
                Ok(false)
            }
            Err(e) => Err(e),
        },
    };
    match result {
        Ok(true) => ExitCode::from(EXIT_OK),
        Ok(false) => ExitCode::from(EXIT_CRITERION_FAILED),
        Err(e) => fail(&e),
    }
}

/// Print `text` on stdout. A reader that closed the pipe (`| head -1`) has what it wanted:
/// not an error; any other write failure is an I/O error.
fn out(text: &str) -> Result<(), String> {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(format!("writing to standard output: {e}"))
        }
        _ => Ok(()),
    }
}

/// Print `text` on stderr; nothing more can be said if that fails.
fn err(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Report a usage or I/O error: status 2.
fn fail(message: &str) -> ExitCode {
    err(&format!("error: {message}\n"));
    ExitCode::from(EXIT_ERROR)
}

fn check(file: &Path) -> Result<bool, String> {
    // A schedule that cannot be opened is an I/O error (2), not an invalid schedule (1).
    std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    match orin_exec_schedule::check_file(file) {
        Ok(report) => out(&report.to_string()).map(|()| true),
        Err(diagnostics) => {
            err(&diagnostics.to_string());
            Ok(false)
        }
    }
}

fn generate(file: &Path, lang: Lang, dir: &Path) -> Result<bool, String> {
    std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let options = orin_exec_schedule::Options {
        cargo_directives: false,
        ..Default::default()
    };
    let files = match lang {
        Lang::C => orin_exec_schedule::render_c(file, &options).map(|c| {
            vec![
                (format!("{}.h", c.stem), c.header),
                (format!("{}.c", c.stem), c.source),
            ]
        }),
        Lang::Rust => orin_exec_schedule::render(file, &options).map(|g| {
            let stem = file
                .file_stem()
                .map_or("schedule".into(), |s| s.to_string_lossy());
            vec![(format!("{stem}.rs"), g.source)]
        }),
    };
    let files = match files {
        Ok(f) => f,
        Err(diagnostics) => {
            err(&diagnostics.to_string());
            return Ok(false);
        }
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut written = String::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        written += &format!("wrote {}\n", path.display());
    }
    out(&written).map(|()| true)
}

fn audit(binary: &Path, json: bool) -> Result<bool, String> {
    let audit = Audit::of_file(binary)?;
    let text = if json {
        serde_json::to_string_pretty(&audit).map_err(|e| e.to_string())? + "\n"
    } else {
        audit.to_string()
    };
    out(&text).map(|()| audit.ok())
}
