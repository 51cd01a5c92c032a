//! Validates `schedule.toml` exactly as `orin-exec check` does (an invalid schedule fails the
//! build) and generates its static tables and typed task bindings into `$OUT_DIR/schedule.rs`.
fn main() {
    orin_exec_schedule::build_script("schedule.toml");
}
