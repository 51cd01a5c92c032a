//! AEB perception slice.
fn main() {}
