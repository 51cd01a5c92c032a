//! Validates `schedule.toml` (an invalid schedule fails the build) and generates the static
//! schedule tables into `$OUT_DIR/schedule.rs` (a copy goes to `<target>/orin-exec/`).
//! Kernel parameters are checked against the kernels' signatures.
mod codegen;

fn main() {
    orin_exec_schedule::build_script_with("schedule.toml", &codegen::options());
}
