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
use object::{Object, ObjectSymbol};
use orin_exec::engine::report::PlatformReport;
use orin_exec::trace::export;

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

/// Symbols a safety build must never import: managed memory, JIT and run-time linking,
/// dynamic loading (which would hide imports from this audit).
const FORBIDDEN: &[&str] = &[
    "cuMemAllocManaged",
    "cudaMallocManaged",
    "cuMemPrefetchAsync",
    "cuModuleLoadDataEx",
    "cuModuleLoadFatBinary",
    "cuLinkCreate",
    "cuLinkAddData",
    "cuLinkComplete",
    "cudaDeviceReset",
    "dlopen",
    "dlmopen",
];

/// Dynamic symbol lookups: reported, not forbidden (the Rust standard library resolves a few
/// optional libc functions this way), since without `dlopen` they cannot reach a library
/// that the binary does not list as needed.
const LOOKUPS: &[&str] = &["dlsym", "dlvsym"];

/// Prefixes of forbidden symbol families.
const FORBIDDEN_PREFIXES: &[&str] = &["nvrtc", "nvJitLink", "cuLink"];

/// Prefixes of the vendor APIs orin-exec uses (reported, for the evidence).
const VENDOR_PREFIXES: &[&str] = &["NvSciSync", "NvSciBuf", "cudla", "cu"];

fn forbidden(name: &str) -> bool {
    FORBIDDEN.contains(&name) || FORBIDDEN_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn vendor(name: &str) -> bool {
    VENDOR_PREFIXES.iter().any(|p| {
        name.starts_with(p) && name[p.len()..].starts_with(|c: char| c.is_ascii_uppercase())
    })
}

/// Offsets of embedded PTX text (`.version X.Y` followed by `.target sm_`), of fatbin
/// containers, and of embedded CUDA ELF images.
fn embedded_gpu_code(bytes: &[u8]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let find_all = |needle: &[u8]| -> Vec<usize> {
        bytes
            .windows(needle.len())
            .enumerate()
            .filter(|(_, w)| *w == needle)
            .map(|(i, _)| i)
            .collect()
    };
    let ptx = find_all(b".target sm_")
        .into_iter()
        .filter(|&i| {
            bytes[i.saturating_sub(256)..i]
                .windows(9)
                .any(|w| w == b".version ")
        })
        .collect();
    // A fatbin container header: magic, version 1, header size 16.
    let fatbin = find_all(&0xBA55_ED50u32.to_le_bytes())
        .into_iter()
        .filter(|&i| bytes.get(i + 4..i + 8) == Some(&[1, 0, 16, 0][..]))
        .collect();
    let cubins = find_all(b"\x7fELF\x02\x01\x01\x41")
        .into_iter()
        .filter(|&i| bytes.get(i + 18..i + 20) == Some(&190u16.to_le_bytes()[..]))
        .collect();
    (ptx, fatbin, cubins)
}

fn audit(binary: &Path, json: bool) -> Result<bool, String> {
    let bytes = std::fs::read(binary).map_err(|e| format!("{}: {e}", binary.display()))?;
    let file = object::File::parse(&*bytes)
        .map_err(|e| format!("{}: not an object file: {e}", binary.display()))?;
    let mut needed = Vec::new();
    if let Ok(Some(libs)) = elf_needed(&bytes) {
        needed = libs;
    }
    let mut imports: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| s.is_undefined())
        .filter_map(|s| s.name().ok())
        .map(|n| n.split('@').next().unwrap_or(n).to_string())
        .filter(|n| !n.is_empty())
        .collect();
    imports.sort();
    imports.dedup();
    let bad: Vec<&String> = imports.iter().filter(|n| forbidden(n)).collect();
    let lookups: Vec<&String> = imports
        .iter()
        .filter(|n| LOOKUPS.contains(&n.as_str()))
        .collect();
    let vendor_imports: Vec<&String> = imports.iter().filter(|n| vendor(n)).collect();
    let (ptx, fatbin, cubins) = embedded_gpu_code(&bytes);
    let ok = bad.is_empty() && ptx.is_empty() && fatbin.is_empty();
    if json {
        let value = serde_json::json!({
            "binary": binary.display().to_string(),
            "ok": ok,
            "needed": needed,
            "forbidden_imports": bad,
            "dynamic_lookups": lookups,
            "vendor_imports": vendor_imports,
            "embedded_cubins": cubins.len(),
            "embedded_ptx_offsets": ptx,
            "embedded_fatbin_offsets": fatbin,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?
        );
    } else {
        println!("binary: {}", binary.display());
        println!(
            "needed libraries: {}",
            if needed.is_empty() {
                "(none)".into()
            } else {
                needed.join(", ")
            }
        );
        println!(
            "vendor imports ({}): {}",
            vendor_imports.len(),
            vendor_imports
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
        println!("embedded cubins: {}", cubins.len());
        if !lookups.is_empty() {
            println!(
                "dynamic lookups (allowed, no dlopen): {}",
                lookups
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
        for b in &bad {
            println!("FORBIDDEN import: {b}");
        }
        for o in &ptx {
            println!("FORBIDDEN embedded PTX at offset {o:#x}");
        }
        for o in &fatbin {
            println!("FORBIDDEN embedded fatbin at offset {o:#x}");
        }
        println!("audit: {}", if ok { "PASS" } else { "FAIL" });
    }
    Ok(ok)
}

/// DT_NEEDED entries of an ELF (64-bit little-endian).
fn elf_needed(bytes: &[u8]) -> Result<Option<Vec<String>>, object::Error> {
    use object::elf;
    use object::read::elf::{Dyn, ElfFile64, FileHeader, SectionHeader};
    let Ok(file) = ElfFile64::<object::Endianness>::parse(bytes) else {
        return Ok(None);
    };
    let endian = file.endian();
    let header = file.elf_header();
    let sections = header.sections(endian, bytes)?;
    let mut out = Vec::new();
    for section in sections.iter() {
        if let Some((entries, link)) = section.dynamic(endian, bytes)? {
            let strings = sections.strings(endian, bytes, link)?;
            for d in entries {
                if d.d_tag(endian) == u64::from(elf::DT_NEEDED)
                    && let Ok(name) = strings.get(d.d_val(endian) as u32)
                {
                    out.push(String::from_utf8_lossy(name).into_owned());
                }
            }
        }
    }
    Ok(Some(out))
}
