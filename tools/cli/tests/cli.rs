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

/// Covers: REQ-TOOL-003
#[test]
fn report_refuses_a_file_that_is_not_a_trace() {
    let me = env!("CARGO_BIN_EXE_orin-exec");
    let (code, out) = orin_exec(&["report", me]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("not an orin-exec trace file"), "{out}");
}
