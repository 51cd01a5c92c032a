//! Test harness that compiles and runs the C client in `c/` against the SIL shared libraries.
