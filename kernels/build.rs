//! Verifies (and, with the pinned nvcc, rebuilds) the cubins.
fn main() {}
