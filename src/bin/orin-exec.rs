//! The `orin-exec` command line.
fn main() {}
