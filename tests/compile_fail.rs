//! Safe code cannot forge an engine handle or get past the engine's checks. Each file in
//! `tests/ui` tries one route that compiled before the engine layer was made sound (a forged
//! `GpuMemory`, `BufferView`, parameter block, DLA token or fence pointer, a child used after
//! its parent's close, a released handle used again, the environment set without `unsafe`)
//! and must fail with the error recorded in its `.stderr` (private field, private item, moved
//! value, mismatched type, unsafe call). `TRYBUILD=overwrite` rewrites the `.stderr` files
//! after a deliberate change; review the diff.
//!
//! The routes that are checked while the program runs (a parent's close refused while its
//! children live, a number refused for a pointer parameter, a stale DLA token) are tested in
//! the engine modules' unit tests.
//!
//! The expected errors are those of the default `sil` build (the `rig` and `orin` builds lack
//! or stub some of the SIL items the files name).
//!
//! Covers: REQ-API-004

#[test]
#[cfg_attr(
    not(platform = "sil"),
    ignore = "the .stderr files are those of the sil build"
)]
fn forging_routes_do_not_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
