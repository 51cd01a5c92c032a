//! Link configuration (filled in by the bindings work).
fn main() {}
