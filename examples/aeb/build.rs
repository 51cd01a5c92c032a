//! Validates `schedule.toml` (an invalid schedule fails the build) and generates the static
//! schedule tables into `$OUT_DIR/schedule.rs` (a copy goes to `<target>/orin-exec/`).
//! Kernel parameters are checked against the kinds the kernels manifest lists.
fn main() {
    orin_exec_schedule::build_script("schedule.toml");
}
