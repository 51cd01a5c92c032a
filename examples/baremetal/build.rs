//! Validates `schedule.toml` and generates its tables into `$OUT_DIR/schedule.rs` (tables
//! only: the core binds no typed task contexts), and puts `memory.x` where cortex-m-rt's
//! `link.x` finds it.
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x into OUT_DIR");
    println!("cargo::rustc-link-search={}", out.display());
    println!("cargo::rerun-if-changed=memory.x");
    orin_exec_schedule::build_script_with(
        "schedule.toml",
        &orin_exec_schedule::Options {
            runtime_path: None,
            ..Default::default()
        },
    );
}
