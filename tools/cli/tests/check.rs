//! `orin-exec check` and an application's build script (`generate_with`) run the same
//! validation, with the kernels manifest's signatures and the runtime's limits: a parameter
//! of the wrong kind, and a dependency lag past `MAX_LAG`, are refused by both with the same
//! message at the same line and column.
//!
//! Covers: REQ-ROB-002

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .unwrap()
}

/// The AEB schedule with `edit` applied, written to a scratch directory (manifest paths made
/// absolute); its path.
fn aeb_with(tag: &str, edit: (&str, &str)) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("orin-exec-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let aeb = std::fs::read_to_string(root().join("examples/aeb/schedule.toml")).unwrap();
    assert!(aeb.contains(edit.0), "{:?} not in the AEB schedule", edit.0);
    let manifests = root().join("examples/aeb");
    let text = aeb
        .replace("\"../../", &format!("\"{}/../../", manifests.display()))
        .replace(edit.0, edit.1);
    let file = dir.join("schedule.toml");
    std::fs::write(&file, &text).unwrap();
    (file, text)
}

/// `orin-exec check FILE` refuses it with `expected` at the first occurrence of `at`, and so
/// does the build.
fn both_refuse(file: &Path, text: &str, expected: &str, at: &str) {
    let offset = text
        .find(at)
        .unwrap_or_else(|| panic!("{at:?} not in the schedule"));
    let line = text[..offset].matches('\n').count() + 1;
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
    let out = Command::new(env!("CARGO_BIN_EXE_orin-exec"))
        .arg("check")
        .arg(file)
        .output()
        .expect("run orin-exec");
    let printed = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{printed}");
    assert!(printed.contains(expected), "{printed}");
    assert!(
        printed.contains(&format!("schedule.toml:{line}:{column}")),
        "{printed}"
    );
    let build = orin_exec_schedule::generate_with(
        file,
        &file.with_extension("rs"),
        &orin_exec_schedule::Options {
            cargo_directives: false,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        build
            .iter()
            .any(|d| d.message.contains(expected) && (d.line, d.column) == (line, column)),
        "{build}"
    );
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}

/// Covers: REQ-ROB-002, REQ-GPU-014
#[test]
fn check_and_the_build_use_the_manifest_signatures_alike() {
    // aeb_postprocess takes (.., u32 lane_x0, u32 lane_x1, ..): a float for lane_x1 is refused.
    let (file, text) = aeb_with(
        "kind",
        (
            "{ u32 = 12 }, { u32 = 20 },",
            "{ u32 = 12 }, { f32 = 20.0 },",
        ),
    );
    both_refuse(
        &file,
        &text,
        "kernel parameter is `u32` in the kernel's signature",
        "f32 = 20.0",
    );
}

/// Covers: REQ-ROB-002
#[test]
fn check_and_the_build_refuse_a_lag_past_the_runtime_limit_alike() {
    let (file, text) = aeb_with("lag", ("\"decision@-2\"", "\"decision@-7\""));
    let expected = orin_exec::table::Limit::Lag
        .exceeded("sensor", 7)
        .to_string();
    both_refuse(&file, &text, &expected, "\"decision@-7\"");
}
