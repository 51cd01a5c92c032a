//! The conformance suite: plain C clients of `c/`, written against the documented API
//! (`c/api.h`), built with `-Wall -Wextra -Werror` against the staged SIL libraries, linked
//! by SONAME and run with `LD_LIBRARY_PATH` as their only environment, each checking its
//! results against the committed AEB loadable's golden data (sil/README.md, "Conformance
//! suite").
//!
//! Covers: REQ-SIL-003

use std::path::{Path, PathBuf};

use sil_c_client::stage::staged;
use sil_c_client::{client, repo_root};

fn libs() -> &'static Path {
    staged(Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// The network (the module image cuDLA loads), its golden input and its golden output.
fn golden() -> [PathBuf; 3] {
    let l = repo_root().join("loadables");
    [
        l.join("aeb_detector.onnx"),
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
///
/// Covers: REQ-DLA-004, REQ-DLA-005, REQ-SYNC-003
#[test]
fn standalone_flow_with_sync_points() {
    run_client("standalone_syncpoint", &["standalone_flow.c"], &[]);
}

/// The same flow with deterministic semaphores requested by the application.
///
/// Covers: REQ-DLA-004, REQ-DLA-005
#[test]
fn standalone_flow_with_deterministic_semaphores() {
    run_client("standalone_deterministic", &["standalone_flow.c"], &[]);
}

/// (c) SOF and EOF fence timestamps, in real time (ordered, at least the modelled duration)
/// and in the SIL's virtual time (exact).
///
/// Covers: REQ-DLA-006
#[test]
fn sof_and_eof_timestamps() {
    run_client("timestamps", &[], &[Path::new("real")]);
    run_client("timestamps", &[], &[Path::new("virtual")]);
}

/// The AEB network declaring layer statistics (same tensors, same golden output).
fn stats_loadable() -> PathBuf {
    repo_root().join("loadables/test/aeb_detector_stats.onnx")
}

/// (d) Task statistics through the export table: one CSV row per layer of each statistics
/// descriptor.
///
/// Covers: REQ-DLA-009
#[test]
fn task_statistics_as_csv() {
    let path = stats_loadable();
    let bytes = std::fs::read(&path).unwrap();
    let model = sil_onnx::Model::load(&bytes).expect("load the statistics network");
    let rows: Vec<String> = model
        .statistics()
        .iter()
        .map(|s| s.count.to_string())
        .collect();
    assert!(
        !rows.is_empty(),
        "{} has no statistics descriptors",
        path.display()
    );
    // Independently of the loader: the first descriptor covers every layer of the network
    // description (each of its layers is one DLA layer).
    let toml = std::fs::read_to_string(repo_root().join("loadables/aeb_detector.toml")).unwrap();
    let layers = toml.lines().filter(|l| l.trim() == "[[layer]]").count();
    assert_eq!(
        rows[0],
        layers.to_string(),
        "first statistics descriptor vs the layers"
    );

    let exe = client::build(
        "task_statistics",
        &["task_statistics.c", "common.c"],
        libs(),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("clients"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let [_, input, output] = golden();
    let mut args: Vec<&Path> = vec![path.as_path(), input.as_path(), output.as_path()];
    args.extend(rows.iter().map(Path::new));
    client::run_passing(&exe, libs(), &args, &[]);
}

/// (f) Fault diagnostics: the internal diagnostics module and a diagnostics task on a second
/// handle, beside a regular task.
///
/// Covers: REQ-DLA-010
#[test]
fn fault_diagnostics_task() {
    run_client("fault_diagnostics", &[], &[]);
}

/// (b) Deterministic semaphores: the waiter builds the EOF fences of later tasks from the
/// first one (`NvSciSyncFenceExtractFence`, then `NvSciSyncFenceUpdateFence`).
///
/// Covers: REQ-SYNC-005, REQ-DLA-004
#[test]
fn deterministic_semaphores_with_waiter_built_fences() {
    run_client("waiter_fences", &[], &[]);
}

/// (e) The error-reporting flow: an asynchronous error, then a task timeout, each read with
/// `cudlaGetLastError` after the EOF fence.
///
/// Covers: REQ-DLA-007, REQ-DLA-008
#[test]
fn error_reporting_after_the_eof_fence() {
    run_client("async_error", &[], &[]);
}

/// (g) Misuse: wrong flags, NULL out-pointers, freed handles, stale fences.
///
/// Covers: REQ-SIL-004
#[test]
fn misuse_gets_the_documented_error_codes() {
    run_client("misuse", &[], &[]);
}
