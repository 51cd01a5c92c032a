//! CI checks of the HIL harness on the SIL platform (no GPU needed), through the `hil` binary:
//!
//! * the AEB scenario, 300 frames on the virtual clock, twice: every pass criterion holds and
//!   the per-frame outputs (and their digests) are identical (determinism), and `hil compare`
//!   says so; a changed frame makes `hil compare` fail and name that frame;
//! * the back-to-back suite against SIL CUDA with a few trials per kernel.
#![cfg(feature = "sil")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hil(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_hil"))
        .args(args)
        .output()
        .expect("run hil");
    eprintln!(
        "$ hil {}\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sil_ci-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read json")).expect("parse json")
}

/// Covers: REQ-GPU-010, REQ-AEB-001, REQ-AEB-003, REQ-AEB-004
#[test]
fn aeb_scenario_on_the_virtual_clock_is_deterministic() {
    let dir = scratch("aeb");
    let (a, b) = (dir.join("a"), dir.join("b"));
    for d in [&a, &b] {
        let out = hil(&[
            "scenario",
            "aeb",
            "--frames",
            "300",
            "--virtual-clock",
            "--realtime-priority",
            "0",
            "--quiet",
            "--out",
            d.to_str().expect("utf-8 path"),
        ]);
        assert!(out.status.success(), "scenario failed");
        for f in [
            "trace.bin",
            "summary.json",
            "trace.perfetto.json",
            "outputs.csv",
            "outputs.json",
        ] {
            assert!(d.join(f).is_file(), "{f} missing");
        }
        let s = json(&d.join("summary.json"));
        assert_eq!(s["pass"], true);
        assert_eq!(s["outputs"]["frames"], 300);
        assert_eq!(s["outputs"]["decided_normal"], 300);
        assert_eq!(s["outputs"]["faults"], 0);
    }
    let (oa, ob) = (json(&a.join("outputs.json")), json(&b.join("outputs.json")));
    assert_eq!(oa["decisions_sha256"], ob["decisions_sha256"]);
    assert_eq!(oa["outputs_sha256"], ob["outputs_sha256"]);
    assert_eq!(
        std::fs::read(a.join("outputs.csv")).expect("a"),
        std::fs::read(b.join("outputs.csv")).expect("b")
    );
    let same = hil(&["compare", a.to_str().expect("a"), b.to_str().expect("b")]);
    assert!(same.status.success());

    // One changed distance: compare fails and names the frame.
    let csv = std::fs::read_to_string(b.join("outputs.csv")).expect("csv");
    let mut lines: Vec<String> = csv.lines().map(str::to_string).collect();
    let mut f: Vec<String> = lines[101].split(',').map(str::to_string).collect();
    assert_eq!(f[0], "100");
    let d: i64 = f[10].parse().expect("a detection distance in frame 100");
    f[10] = (d + 1).to_string();
    lines[101] = f.join(",");
    std::fs::write(b.join("outputs.csv"), lines.join("\n") + "\n").expect("write");
    let diff = hil(&["compare", a.to_str().expect("a"), b.to_str().expect("b")]);
    assert_eq!(diff.status.code(), Some(1));
    let text = String::from_utf8_lossy(&diff.stdout);
    assert!(text.contains("first at frame 100"), "{text}");
}

/// Covers: REQ-GPU-011
#[test]
fn back_to_back_against_sil_cuda() {
    let dir = scratch("b2b");
    let out = hil(&[
        "b2b",
        "--trials",
        "8",
        "--seed",
        "11",
        "--max-elements",
        "65536",
        "--out",
        dir.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "b2b failed");
    let r = json(&dir.join("b2b.json"));
    assert_eq!(r["pass"], true);
    let kernels: Vec<&str> = r["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| k["kernel"].as_str().expect("name"))
        .collect();
    assert_eq!(
        kernels,
        [
            "aeb_preprocess",
            "aeb_postprocess",
            "fill_pattern_u32",
            "saxpy_f32",
            "stamp_globaltimer"
        ]
    );
    for k in r["kernels"].as_array().expect("kernels") {
        assert!(k["launches"].as_u64().expect("launches") > 0);
        assert_eq!(k["mismatches"], 0);
    }
}
