//! Generates the static schedule tables the `hil` binary runs:
//!
//! * `$OUT_DIR/schedule.rs`: the AEB demo's own `examples/aeb/schedule.toml` (one copy of the
//!   application: the task code comes from `examples/aeb/src` through `#[path]` modules);
//! * `$OUT_DIR/gpu_bench_schedule.rs`: `schedules/gpu_bench.toml`, the GPU-only pipeline of
//!   the timestamp overhead benchmark.
//!
//! Both are validated (an invalid schedule fails the build) and their kernel parameters are
//! checked against `orin_exec_kernels::SIGNATURES`.
use std::path::{Path, PathBuf};

use orin_exec_schedule::{build_script_with, generate_with};

/// The AEB demo's generator options (kernel signatures), shared with its build script.
#[path = "../examples/aeb/codegen.rs"]
mod codegen;

use codegen::options;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    build_script_with("../examples/aeb/schedule.toml", &options());

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let bench = Path::new("schedules/gpu_bench.toml");
    if let Err(diags) = generate_with(bench, &out_dir.join("gpu_bench_schedule.rs"), &options()) {
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
