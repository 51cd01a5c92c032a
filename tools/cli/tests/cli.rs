//! The `orin-exec` command line: `check`, `audit` and `report` exit codes and output.

use std::path::Path;
use std::process::Command;

fn orin_exec(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_orin-exec"))
        .args(args)
        .output()
        .expect("run orin-exec");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// Run `orin-exec args` with its stdout a pipe whose reading end is already closed (`| head`
/// that has stopped reading): its exit status and stderr.
fn orin_exec_closed_stdout(args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_orin-exec"))
        .args(args)
        .stdout(writer)
        .output()
        .expect("run orin-exec");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Covers: REQ-TOOL-001, REQ-SCH-007
#[test]
fn check_prints_the_timeline_of_a_valid_schedule() {
    let (code, out) = orin_exec(&[
        "check",
        root().join("examples/aeb/schedule.toml").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("valid") && out.contains("worst-case timeline") && out.contains("detector"),
        "{out}"
    );
}

/// Covers: REQ-TOOL-001, REQ-SCH-005
#[test]
fn check_rejects_a_race_with_line_and_task_names() {
    let dir = std::env::temp_dir().join(format!("orin-exec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("race.toml");
    std::fs::write(
        &file,
        r#"name = "race"
profile = "sil"
period = "10ms"
[engines]
cpu = [{ name = "cpu0" }, { name = "cpu1" }]
[[buffer]]
name = "b"
kind = "raw"
size = 64
[[task]]
name = "writer"
engine = "cpu0"
wcet = "1ms"
writes = ["b"]
[[task]]
name = "reader"
engine = "cpu1"
wcet = "1ms"
reads = ["b"]
"#,
    )
    .unwrap();
    let (code, out) = orin_exec(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("writer") && out.contains("reader") && out.contains("race.toml:"),
        "{out}"
    );
}

/// Covers: REQ-TOOL-002, REQ-FND-005
#[test]
fn audit_passes_a_clean_binary_and_fails_dlopen() {
    let me = env!("CARGO_BIN_EXE_orin-exec");
    let (code, out) = orin_exec(&["audit", me]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("audit: PASS"));

    let dir = std::env::temp_dir().join(format!("orin-exec-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("d.c");
    std::fs::write(
        &src,
        "#include <dlfcn.h>\nint main(void){return dlopen(\"x\",0)!=0;}\n",
    )
    .unwrap();
    let bin = dir.join("d");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(cc)
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .arg("-ldl")
        .status()
        .expect("a C compiler");
    assert!(status.success());
    let (code, out) = orin_exec(&["audit", bin.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"dlopen\""), "{out}");
}

/// Covers: REQ-ROB-080
#[test]
fn a_closed_pipe_ends_check_help_and_audit_quietly_with_their_status() {
    let schedule = root().join("examples/aeb/schedule.toml");
    let me = env!("CARGO_BIN_EXE_orin-exec");
    for (args, status) in [
        (vec!["check", schedule.to_str().unwrap()], 0),
        (vec!["--help"], 0),
        (vec!["audit", me, "--json"], 0),
        (vec!["platform"], 0),
    ] {
        let (code, stderr) = orin_exec_closed_stdout(&args);
        assert_eq!(code, status, "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?} said: {stderr}");
    }
}

/// Covers: REQ-ROB-081
#[test]
fn help_documents_the_same_exit_statuses_for_every_command() {
    let (code, out) = orin_exec(&["--help"]);
    assert_eq!(code, 0, "{out}");
    for line in ["0  ok", "1  the check failed", "2  usage or I/O error"] {
        assert!(out.contains(line), "`{line}` in {out}");
    }
    // A usage error is status 2 for every command, the same as an I/O error.
    for args in [&["no-such-command"][..], &["check"], &["report", "a", "b"]] {
        let (code, out) = orin_exec(args);
        assert_eq!(code, 2, "{args:?}: {out}");
    }
}

/// Covers: REQ-ROB-082
#[test]
fn a_missing_input_is_status_2_and_the_message_names_its_path() {
    let dir = std::env::temp_dir().join(format!("orin-exec-missing-{}", std::process::id()));
    let missing = dir.join("no-such-file.toml");
    let missing = missing.to_str().unwrap();
    for args in [
        vec!["check", missing],
        vec!["report", missing],
        vec!["report", missing, "--json"],
        vec!["audit", missing],
        vec!["networks", "build", missing],
        vec!["kernels", "build", missing],
    ] {
        let (code, out) = orin_exec(&args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(
            out.contains(missing),
            "{args:?} does not name the path: {out}"
        );
        assert!(!out.contains("panicked"), "{args:?}: {out}");
    }
}

/// Covers: REQ-TOOL-003
#[test]
fn report_refuses_a_file_that_is_not_a_trace() {
    let me = env!("CARGO_BIN_EXE_orin-exec");
    let (code, out) = orin_exec(&["report", me]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("not an orin-exec trace file"), "{out}");
}

mod report {
    use super::orin_exec;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use orin_exec::trace::{Event, Record, TraceRing};
    use orin_exec_evidence::run::{Clock, Criterion, RunManifest, RunStatus};
    use orin_exec_trace::{Drainer, TaskMeta, TraceMeta};

    const RUN_ID: &str = "20261201T000000Z-00c0ffee";

    fn scratch(name: &str) -> PathBuf {
        let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("cli-report-{name}"))
            .join("runs")
            .join("run");
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    static RING: TraceRing<1024> = TraceRing::new();
    static RING_USER: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// `frames` frames of one 1 ms task in a 10 ms period, into `dir/trace.bin`; returns its
    /// bytes.
    fn trace(dir: &Path, frames: u64) -> Vec<u8> {
        let _one = RING_USER.lock().unwrap_or_else(|e| e.into_inner());
        let meta = TraceMeta {
            run_id: RUN_ID.into(),
            name: "cli".into(),
            platform: "sil".into(),
            period_ns: 10_000_000,
            engines: vec![("cpu0".into(), "cpu".into(), 0)],
            tasks: vec![TaskMeta {
                name: "work".into(),
                wcet_ns: 2_000_000,
                budget_ns: 2_000_000,
                deadline_ns: 5_000_000,
                ..TaskMeta::default()
            }],
            modes: vec!["normal".into()],
            ..TraceMeta::default()
        };
        let path = dir.join("trace.bin");
        let d = Drainer::start(RING.as_log(), &meta, &path, Duration::from_millis(1)).unwrap();
        for f in 0..frames {
            let t = f * 10_000_000;
            for (time_ns, task, event, value) in [
                (t, u16::MAX, Event::FrameRelease, 0),
                (t + 100_000, 0, Event::TaskStart, 0),
                (t + 1_100_000, 0, Event::TaskEnd, 1_000_000),
            ] {
                RING.push(Record {
                    time_ns,
                    frame: f,
                    task,
                    event,
                    value,
                });
            }
        }
        d.finish().unwrap();
        std::fs::read(&path).unwrap()
    }

    /// Covers: REQ-EVD-004, REQ-EVD-005
    #[test]
    fn a_truncated_trace_file_reports_where_it_ends() {
        let dir = scratch("cut");
        let bytes = trace(&dir, 50);
        let cut = dir.join("cut.bin");
        // The end marker, twenty records and half a record short: 129 whole records, the last
        // of frame 42.
        std::fs::write(&cut, &bytes[..bytes.len() - 32 * 21 - 16]).unwrap();
        let (code, out) = orin_exec(&["report", cut.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("trace ends at frame 42"), "{out}");
        assert!(out.contains("ms"), "units: {out}");
        assert!(out.contains("p99.9") && out.contains("wcet"), "{out}");
    }

    /// Covers: REQ-EVD-004, REQ-EVD-005
    #[test]
    fn a_killed_run_directory_gets_an_html_report_and_exit_0() {
        let dir = scratch("killed");
        let bytes = trace(&dir, 30);
        std::fs::write(dir.join("trace.bin"), &bytes[..bytes.len() - 32 * 4 - 3]).unwrap();
        RunManifest::new(RUN_ID, "sil", Clock::Real, 1000)
            .write(&dir)
            .unwrap();
        let html = dir.join("report.html");
        let (code, out) = orin_exec(&[
            "report",
            dir.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}");
        let text = std::fs::read_to_string(&html).unwrap();
        assert!(text.contains("trace ends at frame 28"), "{out}");
        assert!(text.contains("<b id=\"status\">running</b>"));
        assert!(text.contains(RUN_ID));
        assert!(out.contains("html report:"), "{out}");
    }

    /// Covers: REQ-EVD-005
    #[test]
    fn a_failed_criterion_exits_1_and_json_says_fail() {
        let dir = scratch("failed");
        trace(&dir, 10);
        let mut m = RunManifest::new(RUN_ID, "sil", Clock::Virtual, 10);
        m.finish(
            RunStatus::Completed,
            vec![
                Criterion::new("all frames", true, "10"),
                Criterion::new("no fault", false, "1 fault"),
            ],
        );
        m.write(&dir).unwrap();
        let perfetto = dir.join("p.json");
        let (code, out) = orin_exec(&[
            "report",
            dir.to_str().unwrap(),
            "--json",
            "--perfetto",
            perfetto.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{out}");
        let json_end = out.rfind('}').unwrap();
        let v: serde_json::Value = serde_json::from_str(&out[..=json_end]).unwrap();
        assert_eq!(v["verdict"], "fail");
        assert_eq!(v["run_id"], RUN_ID);
        assert_eq!(v["tasks"][0]["runs"], 10);
        assert_eq!(v["tasks"][0]["p50_ns"], 1_000_000);
        assert!(
            std::fs::read_to_string(&perfetto)
                .unwrap()
                .contains("traceEvents")
        );

        // Every criterion met: exit 0.
        m.criteria[1].pass = true;
        m.write(&dir).unwrap();
        let (code, out) = orin_exec(&["report", dir.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("verdict: PASS"), "{out}");
    }

    /// `report --json | head`: the reader stops early; the report ends quietly with the
    /// status of its verdict.
    ///
    /// Covers: REQ-ROB-080
    #[test]
    fn a_closed_pipe_ends_report_quietly_with_its_verdict() {
        let dir = scratch("pipe");
        trace(&dir, 200);
        for args in [
            vec!["report", dir.to_str().unwrap(), "--json"],
            vec!["report", dir.to_str().unwrap()],
        ] {
            let (code, stderr) = super::orin_exec_closed_stdout(&args);
            assert_eq!(code, 0, "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        }
    }

    /// Covers: REQ-EVD-005
    #[test]
    fn a_directory_without_a_trace_is_an_error() {
        let dir = scratch("empty");
        let (code, out) = orin_exec(&["report", dir.to_str().unwrap()]);
        assert_eq!(code, 2, "{out}");
        assert!(out.contains("no trace.bin"), "{out}");
    }
}

/// `orin-exec check` and a build script's `generate` judge a schedule with the same code and
/// no options: a missing kernel parameter is rejected by both, with the same message, line and
/// column.
///
/// Covers: REQ-GPU-014, REQ-TOOL-001
#[test]
fn check_and_the_build_reject_a_missing_kernel_parameter_alike() {
    let dir = std::env::temp_dir().join(format!("orin-exec-cli-params-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let aeb = std::fs::read_to_string(root().join("examples/aeb/schedule.toml")).unwrap();
    let manifests = root().join("examples/aeb").canonicalize().unwrap();
    let text = aeb
        .replace("\"../../", &format!("\"{}/../../", manifests.display()))
        .replace("    { buffer = \"detection\" },\n", "");
    let file = dir.join("schedule.toml");
    std::fs::write(&file, &text).unwrap();
    let (code, out) = orin_exec(&["check", file.to_str().unwrap()]);
    let expected = "kernel `aeb_postprocess` takes 11 parameters";
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(expected), "{out}");
    let line = text[..text
        .find("params = [\n    { buffer = \"obstacle_map\" }")
        .unwrap()]
        .matches('\n')
        .count()
        + 1;
    assert!(out.contains(&format!("schedule.toml:{line}:")), "{out}");
    let build = orin_exec_schedule::generate_with(
        &file,
        &dir.join("schedule.rs"),
        &orin_exec_schedule::Options {
            cargo_directives: false,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        build
            .iter()
            .any(|d| d.message.contains(expected) && d.line == line),
        "{build}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `orin-exec networks build` describes an ONNX network for the manifest, and refuses one
/// with an operator the DLA does not run, naming the node, writing no manifest.
///
/// Covers: REQ-API-009, REQ-LDB-010
#[test]
fn networks_build_describes_a_network_and_names_an_unsupported_node() {
    let dir = std::env::temp_dir().join(format!("orin-exec-cli-networks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        root().join("loadables/examples/tiny.onnx"),
        dir.join("tiny.onnx"),
    )
    .unwrap();
    let (code, out) = orin_exec(&["networks", "build", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let manifest = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
    for want in [
        "name = \"tiny\"",
        "onnx = \"tiny.onnx\"",
        "[[network.input]]",
        "size = 512",
        "strides = [1, 64, 512, 512, 0, 0, 0, 0]",
    ] {
        assert!(manifest.contains(want), "{want} missing:\n{manifest}");
    }
    std::fs::remove_file(dir.join("manifest.toml")).unwrap();
    std::fs::copy(
        root().join("loadables/test/unsupported_op.onnx"),
        dir.join("unsupported_op.onnx"),
    )
    .unwrap();
    let (code, out) = orin_exec(&["networks", "build", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("node `head/sigmoid` (Sigmoid)"), "{out}");
    assert!(!dir.join("manifest.toml").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
