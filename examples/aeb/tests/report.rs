//! The demo's run directory and its HTML report, checked structurally: every section present,
//! one run id in every file, the numbers in the HTML equal to the JSON summary's (per task
//! runs, p50, p99, p99.9, max and misses; the faults with their frames and tasks), no script
//! and nothing fetched from the network. A killed run still yields a report that says where its
//! trace ends, and a truncated trace file reports too.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use orin_exec_evidence::html::{EXIT_OK, Report, ReportArgs, SECTIONS, report_command};
use orin_exec_evidence::run::{RunManifest, RunStatus, is_run_id};

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("aeb-report-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Run `frames` frames of the demo on the virtual clock into `dir`; it must exit with
/// `status` (0 a clean run, 3 a run with faults: `aeb --help`).
fn demo(dir: &Path, frames: u64, extra: &[&str], status: i32) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_aeb"))
        .args([
            "--virtual-clock",
            "--quiet",
            "--frames",
            &frames.to_string(),
            "--out",
        ])
        .arg(dir)
        .args(extra)
        .output()
        .expect("run the demo");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(status),
        "demo failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read json")).expect("parse json")
}

/// The `<tr data-task="name">` row of the per-task table.
fn task_row<'a>(html: &'a str, task: &str) -> &'a str {
    let table = &html[html.find("id=\"task-table\"").expect("task table")..];
    let table = &table[..table.find("</table>").expect("table end")];
    let start = table
        .find(&format!("<tr data-task=\"{task}\">"))
        .unwrap_or_else(|| panic!("no row for {task}"));
    let row = &table[start..];
    &row[..row.find("</tr>").expect("row end")]
}

/// The `data-ns` value and the text of the cell `data-field="field"` of `row`.
fn cell(row: &str, field: &str) -> (Option<u64>, String) {
    let at = row
        .find(&format!("data-field=\"{field}\""))
        .unwrap_or_else(|| panic!("no {field} in {row}"));
    let rest = &row[at..];
    let tag_end = rest.find('>').expect("tag end");
    let ns = rest[..tag_end].split("data-ns=\"").nth(1).map(|v| {
        v[..v.find('"').expect("quote")]
            .parse()
            .expect("a number in data-ns")
    });
    let text = &rest[tag_end + 1..];
    (ns, text[..text.find('<').expect("cell end")].to_string())
}

fn ms3(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// Covers: REQ-EVD-001, REQ-EVD-003
#[test]
fn the_demo_writes_a_run_directory_whose_report_matches_its_summary() {
    let dir = scratch("plain");
    let stdout = demo(&dir, 300, &[], 0);
    for f in [
        "run.json",
        "trace.bin",
        "summary.json",
        "trace.perfetto.json",
        "report.html",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    assert!(stdout.contains("report (HTML):"), "{stdout}");
    assert!(stdout.contains("report.html"), "{stdout}");

    // One run, one id.
    let manifest = RunManifest::read(&dir.join("run.json")).expect("run.json");
    let id = manifest.run_id.clone();
    assert!(is_run_id(&id), "{id}");
    let summary = json(&dir.join("summary.json"));
    assert_eq!(summary["run_id"], id.as_str());
    let trace = orin_exec_trace::read_trace(&dir.join("trace.bin")).expect("trace");
    assert_eq!(trace.meta.run_id, id);
    assert!(!trace.truncated);
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report");
    assert!(html.contains(&id), "the HTML names the run id");
    assert!(
        std::fs::read_to_string(dir.join("trace.perfetto.json"))
            .expect("perfetto")
            .contains(&id),
        "the Perfetto trace names the run id"
    );

    // The manifest at the end.
    assert_eq!(manifest.status, RunStatus::Completed);
    assert!(manifest.ended_utc.is_some());
    assert_eq!(manifest.frames_planned, 300);
    assert_eq!(manifest.allocations_after_seal, Some(0));
    assert!(
        manifest.criteria.iter().all(|c| c.pass),
        "{:?}",
        manifest.criteria
    );
    let kinds: Vec<_> = manifest
        .artifacts
        .iter()
        .map(|a| serde_json::to_value(a.kind).expect("kind"))
        .collect();
    for k in ["schedule", "cubin", "onnx", "binary"] {
        assert!(kinds.contains(&serde_json::json!(k)), "no {k} artifact");
    }
    assert!(
        manifest
            .artifacts
            .iter()
            .filter(|a| a.kind != orin_exec_evidence::run::ArtifactKind::Binary)
            .all(|a| a.matches && a.manifest_sha256.is_some()),
        "{:?}",
        manifest.artifacts
    );
    assert!(
        manifest
            .audit
            .as_ref()
            .is_some_and(|a| a.pass && a.sil_statement.is_some())
    );
    assert_eq!(manifest.toolchain.nvcc.as_deref(), Some("V13.0.88"));

    // Every section, in order, self-contained.
    let mut last = 0;
    for s in SECTIONS {
        let at = html
            .find(&format!("<section id=\"{s}\">"))
            .unwrap_or_else(|| panic!("section {s} missing"));
        assert!(at > last, "section {s} out of order");
        last = at;
    }
    assert!(!html.to_lowercase().contains("<script"), "no script");
    for reference in ["src=\"http", "href=\"http", "url(http", "@import"] {
        assert!(!html.contains(reference), "fetches {reference}");
    }
    assert!(
        html.contains("trace complete: 300 frames released of 300 planned (the last: frame 299)")
    );
    assert!(html.contains("PASS"));

    // The numbers equal the JSON summary's.
    let tasks = summary["tasks"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 8);
    for t in tasks {
        let name = t["task"].as_str().expect("name");
        let row = task_row(&html, name);
        assert_eq!(cell(row, "runs").1, t["runs"].to_string(), "{name} runs");
        for (field, key) in [
            ("min", "min_ns"),
            ("p50", "p50_ns"),
            ("p99", "p99_ns"),
            ("p999", "p999_ns"),
            ("max", "max_ns"),
            ("wcet", "wcet_ns"),
            ("deadline", "deadline_ns"),
            ("max_finish", "max_finish_ns"),
        ] {
            let want = t[key].as_u64().expect(key);
            let (ns, text) = cell(row, field);
            if t["runs"] == 0 && !matches!(field, "wcet" | "deadline") {
                // No samples: no statistics.
                assert_eq!((ns, text.as_str()), (None, "—"), "{name} {field}");
                continue;
            }
            assert_eq!(ns, Some(want), "{name} {field}");
            assert_eq!(
                text.trim_end_matches('*'),
                ms3(want),
                "{name} {field} as shown"
            );
        }
        for field in [
            "deadline_misses",
            "fence_timeouts",
            "longest_miss_run",
            "budget_overruns",
        ] {
            assert_eq!(cell(row, field).1, t[field].to_string(), "{name} {field}");
        }
        // p99.9 over fewer than 1000 samples is flagged.
        assert_eq!(
            cell(row, "p999").1.ends_with('*'),
            t["runs"].as_u64().expect("runs") > 0 && t["runs"].as_u64().expect("runs") < 1000,
            "{name} p99.9 flag"
        );
    }
    assert!(html.contains("data-field=\"faults\">0<"), "no fault");
}

/// Covers: REQ-EVD-003
#[test]
fn an_injected_fault_shows_with_its_frame_reaction_and_mode_switch() {
    let dir = scratch("hang");
    demo(&dir, 300, &["--inject", "dla-hang@frame=120"], 3);
    let summary = json(&dir.join("summary.json"));
    let html = std::fs::read_to_string(dir.join("report.html")).expect("report");
    let faults = summary["faults"].as_array().expect("faults");
    assert!(!faults.is_empty());
    // The faults the demo saw live (from the executive) are the report's (from the trace).
    let count = &html[html.find("data-field=\"faults\">").expect("fault count") + 20..];
    assert_eq!(
        &count[..count.find('<').expect("end")],
        faults.len().to_string()
    );
    let table = &html[html.find("id=\"fault-table\"").expect("fault table")..];
    let table = &table[..table.find("</table>").expect("end")];
    let rows: Vec<&str> = table.split("<tr data-frame=").skip(1).collect();
    assert_eq!(rows.len(), faults.len());
    for (row, f) in rows.iter().zip(faults) {
        assert!(
            row.starts_with(&format!("\"{}\"", f["frame"])),
            "{row} vs {f}"
        );
        assert!(
            row.contains(&format!("<td>{}</td>", f["task"].as_str().expect("task"))),
            "{row}"
        );
        assert!(row.contains(f["fault"].as_str().expect("fault")), "{row}");
    }
    assert!(
        html.contains("switch to mode <code>degraded</code>"),
        "a reaction"
    );
    let switches = &html[html.find("id=\"mode-switches\"").expect("section")..];
    assert!(
        switches.contains("<td>normal</td><td>degraded</td><td>a fault of <code>"),
        "the mode switch and its cause"
    );
    // The verdict fails on the fault, and says it was injected.
    let manifest = RunManifest::read(&dir.join("run.json")).expect("run.json");
    assert!(
        manifest
            .criteria
            .iter()
            .any(|c| !c.pass && c.detail.contains("injected"))
    );
    assert!(html.contains("class=\"verdict fail\""));
    // Both modes ran: a Gantt for each.
    assert!(html.contains("id=\"timeline-normal\"") && html.contains("id=\"timeline-degraded\""));
}

/// Covers: REQ-EVD-004
#[test]
fn a_killed_run_still_reports_where_its_trace_ends() {
    let dir = scratch("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_aeb"))
        .args(["--quiet", "--frames", "100000", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the demo");
    // Kill it once it has been running frames for a while (up to 60 s on a loaded machine).
    let started = Instant::now();
    let trace = dir.join("trace.bin");
    while std::fs::metadata(&trace).map_or(0, |m| m.len()) < 8192
        && started.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().expect("kill the demo");
    child.wait().expect("reap the demo");

    assert!(
        !dir.join("summary.json").exists(),
        "a killed run has no summary"
    );
    let manifest = RunManifest::read(&dir.join("run.json")).expect("run.json");
    assert_eq!(manifest.status, RunStatus::Running);
    assert!(manifest.ended_utc.is_none());

    // `orin-exec report DIR --html DIR/report.html`.
    let out = dir.join("report.html");
    let outcome = report_command(&ReportArgs {
        run: dir.clone(),
        html: Some(out.clone()),
        json: false,
        perfetto: None,
    })
    .expect("report of a killed run");
    assert_eq!(outcome.exit, EXIT_OK);
    let trace = orin_exec_trace::read_trace(&trace).expect("the killed run's trace reads");
    assert!(trace.truncated, "no end marker");
    let last = trace.last_frame.expect("frames were recorded");
    assert!(last > 0);
    let needle = format!("trace ends at frame {last}");
    assert!(outcome.stdout.contains(&needle), "{}", outcome.stdout);
    let html = std::fs::read_to_string(&out).expect("report.html");
    assert!(html.contains(&needle), "the HTML says where the trace ends");
    assert!(html.contains(&manifest.run_id));
    assert!(html.contains("NO VERDICT"));
    assert!(html.contains("<b id=\"status\">running</b>"));
    for s in SECTIONS {
        assert!(html.contains(&format!("<section id=\"{s}\">")), "{s}");
    }
}

/// Covers: REQ-EVD-004
#[test]
fn a_trace_cut_inside_a_record_reports_up_to_the_cut() {
    let dir = scratch("cut");
    demo(&dir, 60, &[], 0);
    let full = std::fs::read(dir.join("trace.bin")).expect("trace");
    let whole = orin_exec_trace::read_trace(&dir.join("trace.bin")).expect("trace");
    // Cut two thirds in, inside a record.
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &full[..full.len() * 2 / 3 + 5]).expect("write");
    let report = Report::load(&cut).expect("a truncated trace reports");
    assert!(report.trace.truncated);
    assert!(report.trace.records < whole.records.len() as u64);
    let last = report.trace.last_frame.expect("records");
    assert!(last < 59, "{last}");
    assert!(
        report
            .html()
            .contains(&format!("trace ends at frame {last}")),
        "the HTML says where"
    );
    // The manifest beside it belongs to this run: it is used, and says the run completed.
    assert_eq!(
        report.manifest.as_ref().map(|m| m.status),
        Some(RunStatus::Completed)
    );
}
