//! The conformance suite: plain C clients of `c/`, written against the documented API
//! (`c/api.h`), built with `-Wall -Wextra -Werror` against the staged SIL libraries, linked
//! by SONAME and run with `LD_LIBRARY_PATH` as their only environment, each checking its
//! results against the committed AEB loadable's golden data (sil/README.md, "Conformance
//! suite").

use std::path::{Path, PathBuf};

use sil_c_client::stage::staged;
use sil_c_client::{client, repo_root};

fn libs() -> &'static Path {
    staged(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// The loadable, its golden input and its golden output.
fn golden() -> [PathBuf; 3] {
    let l = repo_root().join("loadables");
    [
        l.join("aeb_detector.sildla"),
        l.join("aeb_detector.golden_input.bin"),
        l.join("aeb_detector.golden_output.bin"),
    ]
}

/// Builds `c/<name>.c` with the shared `common.c` and `more` sources, and runs it on the
/// golden data followed by `extra` arguments.
fn run_client(name: &str, more: &[&str], extra: &[&Path]) -> String {
    let src = format!("{name}.c");
    let mut sources = vec![src.as_str(), "common.c"];
    sources.extend_from_slice(more);
    let exe = client::build(
        name,
        &sources,
        libs(),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("clients"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let g = golden();
    let mut args: Vec<&Path> = g.iter().map(PathBuf::as_path).collect();
    args.extend_from_slice(extra);
    client::run_passing(&exe, libs(), &args, &[])
}

/// (a) The documented standalone flow with the default primitive (no deterministic request).
#[test]
fn standalone_flow_with_sync_points() {
    run_client("standalone_syncpoint", &["standalone_flow.c"], &[]);
}

/// The same flow with deterministic semaphores requested by the application.
#[test]
fn standalone_flow_with_deterministic_semaphores() {
    run_client("standalone_deterministic", &["standalone_flow.c"], &[]);
}

/// (b) Deterministic semaphores: the waiter builds the EOF fences of later tasks from the
/// first one (`NvSciSyncFenceExtractFence`, then `NvSciSyncFenceUpdateFence`).
#[test]
fn deterministic_semaphores_with_waiter_built_fences() {
    run_client("waiter_fences", &[], &[]);
}

/// (e) The error-reporting flow: an asynchronous error, then a task timeout, each read with
/// `cudlaGetLastError` after the EOF fence.
#[test]
fn error_reporting_after_the_eof_fence() {
    run_client("async_error", &[], &[]);
}

/// (g) Misuse: wrong flags, NULL out-pointers, freed handles, stale fences.
#[test]
fn misuse_gets_the_documented_error_codes() {
    run_client("misuse", &[], &[]);
}
