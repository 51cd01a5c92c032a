//! Generates the static schedule tables the `hil` binary runs:
//!
//! * `$OUT_DIR/gpu_bench_schedule.rs`: `schedules/gpu_bench.toml`, the GPU-only pipeline of
//!   `hil bench`;
//! * `$OUT_DIR/dla_bench_schedule.rs`: `schedules/dla_bench.toml`, the CPU → GPU → DLA → GPU →
//!   CPU chain of `hil bench`.
//!
//! It is validated exactly as `orin-exec check` validates it (an invalid schedule fails the
//! build); kernel parameters are checked against the layout each cubin records.
use std::path::{Path, PathBuf};

use orin_exec_schedule::{Options, generate_with};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let options = Options::default();
    for name in ["gpu_bench", "dla_bench"] {
        let toml = format!("schedules/{name}.toml");
        println!("cargo::rerun-if-changed={toml}");
        generate(
            Path::new(&toml),
            &out_dir.join(format!("{name}_schedule.rs")),
            &options,
        );
    }
}

fn generate(toml: &Path, out: &Path, options: &Options) {
    if let Err(diags) = generate_with(toml, out, options) {
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
