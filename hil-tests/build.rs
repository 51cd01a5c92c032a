//! Generates the static schedule tables the `hil` binary runs:
//!
//! * `$OUT_DIR/gpu_bench_schedule.rs`: `schedules/gpu_bench.toml`, the GPU-only pipeline of
//!   the timestamp overhead benchmark.
//!
//! It is validated (an invalid schedule fails the build) and its kernel parameters are
//! checked against the kinds the kernels manifest lists.
use std::path::{Path, PathBuf};

use orin_exec_schedule::{Options, generate_with};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let options = Options::default();
    let bench = Path::new("schedules/gpu_bench.toml");
    if let Err(diags) = generate_with(bench, &out_dir.join("gpu_bench_schedule.rs"), &options) {
        eprintln!("{diags}");
        for d in diags.iter().filter(|d| d.is_error()) {
            println!(
                "cargo::error={} ({}:{}:{})",
                d.message,
                d.file.display(),
                d.line,
                d.column
            );
        }
        std::process::exit(1);
    }
}
