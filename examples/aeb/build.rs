//! Validates `schedule.toml` (an invalid schedule fails the build) and generates the static
//! schedule tables into `$OUT_DIR/schedule.rs` (a copy goes to `<target>/orin-exec/`).
//! Kernel parameters are checked against the kernels' signatures.
use orin_exec_schedule::{Options, build_script_with};

fn main() {
    let signatures = orin_exec_kernels::SIGNATURES
        .iter()
        .map(|s| (s.name, s.params));
    let options = Options::with_kernel_signatures(signatures).unwrap_or_else(|e| panic!("{e}"));
    build_script_with("schedule.toml", &options);
}
