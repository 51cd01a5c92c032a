//! `orin-imports`: the vendor symbols the `orin` build imports, and their SIL coverage.
//!
//! ```text
//! orin-imports list --cargo-messages build.json --bin aeb --bin hil --out docs/orin-imports.toml
//! orin-imports list --cargo-messages build.json --bin aeb --bin hil --check docs/orin-imports.toml
//! orin-imports symbols docs/orin-imports.toml           # one name per line, for record.py
//! orin-imports coverage docs/orin-imports.toml --exceptions tools/orin-imports/exceptions.toml HITS...
//! ```
//!
//! `ci/orin-imports.sh` runs all three; see `docs/orin-imports.md`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use orin_exec_orin_imports::{
    Binary, CargoBuild, Coverage, ExceptionList, Hit, ImportList, Library,
};

#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The import list of an `orin` build, from `cargo build --message-format=json` output
    /// (the executables, and the link stubs of the -sys crates' build scripts).
    List {
        /// Cargo's JSON messages of the aarch64 `orin` build (with ORIN_EXEC_LINK_STUBS=1).
        #[arg(long)]
        cargo_messages: PathBuf,
        /// A binary of that build to read (its target name), in the list's order.
        #[arg(long = "bin", required = true)]
        bins: Vec<String>,
        /// Write the list here.
        #[arg(long, conflicts_with = "check")]
        out: Option<PathBuf>,
        /// Compare with this committed list instead; fails when they differ.
        #[arg(long)]
        check: Option<PathBuf>,
    },
    /// Every symbol of an import list, one per line.
    Symbols { imports: PathBuf },
    /// The executables of cargo JSON messages, one per line: `test NAME PATH` for a test
    /// harness, `bin NAME PATH` for a program.
    Executables {
        #[arg(required = true)]
        cargo_messages: Vec<PathBuf>,
    },
    /// Checks that every listed symbol was called on SIL through shipped code (hit files
    /// of record.py), or is listed as an exception with a reason.
    Coverage {
        imports: PathBuf,
        #[arg(long)]
        exceptions: PathBuf,
        /// Hit files (`symbol<TAB>caller` lines).
        #[arg(required = true)]
        hits: Vec<PathBuf>,
    },
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn list(
    messages: &Path,
    names: &[String],
    out: Option<&Path>,
    check: Option<&Path>,
) -> Result<bool, String> {
    let build = CargoBuild::parse(&read(messages)?)?;
    if build.stubs.is_empty() {
        return Err(format!(
            "{}: no link stub in the build (was it built with ORIN_EXEC_LINK_STUBS=1 and --features orin?)",
            messages.display()
        ));
    }
    let libs = build
        .stubs
        .iter()
        .map(|p| Library::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut bins = Vec::new();
    for name in names {
        let exe = build
            .executables
            .iter()
            .rev()
            .find(|e| &e.name == name && !e.test)
            .ok_or_else(|| format!("{}: no executable `{name}` built", messages.display()))?;
        bins.push(Binary::read(name, &exe.path)?);
    }
    let text = ImportList::build(&libs, &bins)?.render();
    match (out, check) {
        (_, Some(committed)) => {
            let old = read(committed)?;
            if old == text {
                println!("{}: up to date", committed.display());
                return Ok(true);
            }
            eprintln!(
                "{} is out of date with the orin build; run ci/orin-imports.sh --update and \
                 commit it. Differences (- committed, + built):",
                committed.display()
            );
            let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), text.lines().collect());
            for l in a.iter().filter(|l| !b.contains(l)) {
                eprintln!("- {l}");
            }
            for l in b.iter().filter(|l| !a.contains(l)) {
                eprintln!("+ {l}");
            }
            Ok(false)
        }
        (Some(out), None) => {
            std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
            println!("wrote {}", out.display());
            Ok(true)
        }
        (None, None) => {
            print!("{text}");
            Ok(true)
        }
    }
}

fn executables(messages: &[PathBuf]) -> Result<bool, String> {
    let mut seen = std::collections::BTreeSet::new();
    for m in messages {
        for e in CargoBuild::parse(&read(m)?)?.executables {
            if seen.insert(e.path.clone()) {
                let kind = if e.test { "test" } else { "bin" };
                println!("{kind} {} {}", e.name, e.path.display());
            }
        }
    }
    Ok(true)
}

fn coverage(imports: &Path, exceptions: &Path, hits: &[PathBuf]) -> Result<bool, String> {
    let list = ImportList::parse(&read(imports)?)?;
    let hw: ExceptionList =
        toml::from_str(&read(exceptions)?).map_err(|e| format!("{}: {e}", exceptions.display()))?;
    let mut all = Vec::new();
    for h in hits {
        all.extend(Hit::parse_all(&read(h)?).map_err(|e| format!("{}: {e}", h.display()))?);
    }
    let cov = Coverage::check(&list, &hw, &all);
    print!("{}", cov.report());
    Ok(cov.ok())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match &cli.command {
        Cmd::List {
            cargo_messages,
            bins,
            out,
            check,
        } => list(cargo_messages, bins, out.as_deref(), check.as_deref()),
        Cmd::Symbols { imports } => read(imports).and_then(|t| ImportList::parse(&t)).map(|l| {
            for (_, s) in l.symbols() {
                println!("{}", s.name);
            }
            true
        }),
        Cmd::Executables { cargo_messages } => executables(cargo_messages),
        Cmd::Coverage {
            imports,
            exceptions,
            hits,
        } => coverage(imports, exceptions, hits),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("orin-imports: {e}");
            ExitCode::from(2)
        }
    }
}
