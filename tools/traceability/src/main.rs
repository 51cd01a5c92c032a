//! `traceability`: writes or checks `docs/traceability.md`, and summarises coverage.
//!
//! ```sh
//! cargo test --workspace 2>&1 | tee target/orin-exec/test.log
//! traceability --log target/orin-exec/test.log            # write docs/traceability.md
//! traceability --check --log target/orin-exec/test.log    # CI: exit 1 on any problem
//! traceability --list                                     # every test and what it covers
//! traceability coverage --export llvm.json --tool "cargo llvm-cov 0.9.1" \
//!     --crate orin-exec --out target/orin-exec/coverage.json
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use orin_exec_traceability::{DOCUMENT, Trace, coverage, scan};

#[derive(Parser)]
#[command(
    name = "traceability",
    about = "Requirements -> tests -> last result: writes or checks docs/traceability.md",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    trace: TraceArgs,
}

#[derive(Args)]
struct TraceArgs {
    /// The workspace root.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// A `cargo test --workspace 2>&1` log: the results column comes from it.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Write nothing; exit 1 when a requirement has no test, a tag names an unknown
    /// requirement, a test names none, or the document is out of date (results compared
    /// only when a log is given).
    #[arg(long)]
    check: bool,
    /// Where the document goes (default: docs/traceability.md under the root).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print every test with the requirements it covers, and write nothing.
    #[arg(long, conflicts_with = "check")]
    list: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise an llvm-cov JSON export per crate (the report's coverage.json) and print a
    /// table.
    Coverage {
        /// `cargo llvm-cov --json --summary-only --output-path FILE`.
        #[arg(long)]
        export: PathBuf,
        /// The tool and its version, e.g. "cargo llvm-cov 0.9.1".
        #[arg(long)]
        tool: String,
        /// A package to report (repeat; in this order).
        #[arg(long = "crate", required = true)]
        crates: Vec<String>,
        /// Where the summary goes.
        #[arg(long)]
        out: PathBuf,
        /// The workspace root.
        #[arg(long, default_value = ".")]
        root: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Coverage {
            export,
            tool,
            crates,
            out,
            root,
        }) => run_coverage(&export, &tool, &crates, &out, &root),
        None => run_trace(&cli.trace),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("traceability: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_trace(a: &TraceArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let trace = Trace::load(&a.root, a.log.as_deref())?;
    if let Some(r) = &trace.results {
        for b in &r.unknown_binaries {
            eprintln!("warning: test binary {b} of the log matches no target of the workspace");
        }
        for t in &r.unmatched {
            eprintln!("warning: test {t} of the log matches no test in the sources");
        }
    }
    if a.list {
        for t in &trace.scan.tests {
            let covers: Vec<&str> = t.covers.iter().map(String::as_str).collect();
            println!("{}\t{}\t{}", t.file, t.in_file, covers.join(","));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out = a.out.clone().unwrap_or_else(|| a.root.join(DOCUMENT));
    if a.check {
        let committed = std::fs::read_to_string(&out).ok();
        let problems = trace.problems(committed.as_deref());
        for p in &problems {
            eprintln!("{p}");
        }
        if problems.is_empty() {
            println!(
                "traceability: {} requirements, {} tests, {} up to date{}",
                trace.requirements.requirements.len(),
                trace.scan.tests.len(),
                out.display(),
                if trace.results.is_some() {
                    " (with the log's results)"
                } else {
                    " (results not compared: no log)"
                }
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("traceability: {} problem(s)", problems.len());
        return Ok(ExitCode::from(1));
    }
    std::fs::write(&out, trace.render())?;
    if trace.results.is_none() {
        eprintln!(
            "note: no --log, so the results column is empty; CI checks the results against its \
             own test log, so commit a document generated with --log"
        );
    }
    // Writing is not checking, but say what a check would find.
    let problems = trace.problems(Some(&trace.render()));
    for p in &problems {
        eprintln!("{p}");
    }
    println!(
        "traceability: wrote {} ({} requirements, {} tests{}){}",
        out.display(),
        trace.requirements.requirements.len(),
        trace.scan.tests.len(),
        if trace.results.is_some() {
            ", results from the log"
        } else {
            ", no log: no results"
        },
        if problems.is_empty() {
            String::new()
        } else {
            format!("; {} problem(s) above", problems.len())
        }
    );
    Ok(ExitCode::SUCCESS)
}

fn run_coverage(
    export: &std::path::Path,
    tool: &str,
    crates: &[String],
    out: &std::path::Path,
    root: &std::path::Path,
) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(export).map_err(|e| format!("{}: {e}", export.display()))?;
    let packages = scan::packages(root)?;
    let summary = coverage::summarise(&text, tool, &packages, crates)?;
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, serde_json::to_string_pretty(&summary)? + "\n")?;
    print!("{}", summary.table());
    println!("({}; written to {})", summary.tool, out.display());
    Ok(ExitCode::SUCCESS)
}
