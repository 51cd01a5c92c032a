//! Generates the schedule tables.
fn main() {}
