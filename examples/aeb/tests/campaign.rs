//! The fault campaign, on the SIL virtual clock: every injectable fault kind at the first
//! frame, a middle frame, the last frame and inside the degraded chain, each run of the demo
//! checked for detection within the frame it was injected into, the reaction the schedule's
//! health rules configure, a decision or a fault and its reaction in every frame, and an exit
//! status that tells a clean run, a run with faults and a safe stop apart. It regenerates the
//! results table of `docs/safety-manual.md` (section 3.1) and fails when the committed table
//! differs; `UPDATE_SAFETY_TABLE=1 cargo test -p aeb-demo --test campaign` rewrites it.
//!
//! Covers: REQ-ROB-083, REQ-ROB-084, REQ-ROB-085, REQ-PVA-103, REQ-PVA-104

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use aeb::app;
use aeb::schedule::SCHEDULE;
use orin_exec::table::{FaultKind, Schedule};
use serde_json::Value;

/// Frames of each run (1.5 s): short, so that the campaign stays cheap on a 2-core CI machine.
const FRAMES: u64 = 45;
/// In the degraded-chain cases, a DLA error in this frame switches to the degraded mode (a
/// hang would too, but costs the virtual clock's real-time cap on every wait for it)...
const SWITCH: u64 = 5;
/// ...and the fault under test is injected in this one, well inside it.
const IN_DEGRADED: u64 = 20;

/// The demo's exit statuses (`aeb --help`).
const CLEAN: i32 = 0;
const ERROR: i32 = 2;
const FAULTS: i32 = 3;
const SAFE_STOP: i32 = 4;

/// Every fault kind `--inject` knows, with the task it hits by default.
const KINDS: [(&str, &str); 9] = [
    ("cpu-overrun", "decision"),
    ("dla-hang", "detector"),
    ("dla-late", "detector"),
    ("dla-error", "detector"),
    ("dla-corrupt", "detector"),
    ("pva-hang", "preprocess"),
    ("pva-late", "preprocess"),
    ("pva-error", "preprocess"),
    ("pva-corrupt", "preprocess"),
];

/// The degraded chain's tasks a CPU overrun is injected into.
const DEGRADED_CPU_TASKS: [&str; 3] = [
    "sensor_fallback",
    "fallback_detector",
    "conservative_decision",
];

/// One run of the campaign.
struct Case {
    kind: &'static str,
    task: &'static str,
    frame: u64,
    /// Where in the run: first, middle, last frame, or degraded chain.
    at: &'static str,
}

impl Case {
    fn inject_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if self.at == "degraded chain" {
            args.extend(["--inject".into(), format!("dla-error@frame={SWITCH}")]);
        }
        args.extend([
            "--inject".into(),
            format!("{}:{}@frame={}", self.kind, self.task, self.frame),
        ]);
        args
    }
}

/// What one run of the demo left.
struct Run {
    status: i32,
    stdout: String,
    stderr: String,
    summary: Value,
}

fn run_demo(name: &str, frames: u64, inject: &[String]) -> Run {
    run_demo_into(name, frames, inject, Stdio::piped())
}

/// [`run_demo`] with its stdout connected to `stdout`.
fn run_demo_into(name: &str, frames: u64, inject: &[String], stdout: Stdio) -> Run {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("aeb-campaign-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_aeb"))
        .args([
            "--virtual-clock",
            "--quiet",
            "--frames",
            &frames.to_string(),
            "--out",
        ])
        .arg(&dir)
        .args(inject)
        .stdout(stdout)
        .output()
        .expect("run the demo");
    let summary = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        summary,
    }
}

fn s() -> &'static Schedule {
    &SCHEDULE
}

/// The reaction the schedule's health rules configure for `fault` on `task`, in the demo's
/// words.
fn configured_reaction(task: &str, fault: &str) -> String {
    let id = s().task_by_name(task).expect("a task of the schedule");
    let kind = FaultKind::ALL
        .into_iter()
        .find(|k| k.name() == fault)
        .expect("a fault kind");
    app::reaction_text(
        s(),
        s().health_rule(kind, id)
            .map_or(orin_exec::table::Action::Log, |r| r.action),
    )
}

fn array(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// Check one run against the campaign's criteria; its row of the results table.
fn judge(case: &Case, run: &Run) -> String {
    let what = format!(
        "{}:{}@frame={} ({})",
        case.kind, case.task, case.frame, case.at
    );
    let context = format!(
        "{what}\nstatus {}\n{}{}",
        run.status, run.stdout, run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{context}");
    let sum = &run.summary;
    let faults = array(&sum["faults"]);
    let not_applied = array(&sum["injections_not_applied"]);
    // Every fault got the reaction its health rule configures.
    for f in faults {
        let (task, kind) = (f["task"].as_str().unwrap(), f["fault"].as_str().unwrap());
        assert_eq!(
            f["reaction"].as_str().unwrap(),
            configured_reaction(task, kind),
            "{f}\n{context}"
        );
    }
    // Every frame ended with a decision or a fault and its reaction.
    assert_eq!(
        array(&sum["frames_without_decision_or_reaction"]),
        &[] as &[Value],
        "{context}"
    );
    // The exit status tells the outcome.
    let safe_stop = sum["safe_stop"].as_bool().expect("safe_stop");
    let expected = match (safe_stop, faults.is_empty()) {
        (true, _) => SAFE_STOP,
        (false, false) => FAULTS,
        (false, true) => CLEAN,
    };
    assert_eq!(run.status, expected, "{context}");
    // No fault before the first injection.
    let first_injected = if case.at == "degraded chain" {
        SWITCH
    } else {
        case.frame
    };
    assert!(
        faults
            .iter()
            .all(|f| f["frame"].as_u64().unwrap() >= first_injected),
        "{context}"
    );
    let task = s().task_by_name(case.task).expect("task");
    let mode_runs_task = |frame: u64| {
        let mode = if case.at == "degraded chain" && frame > SWITCH + 1 {
            "degraded"
        } else {
            "normal"
        };
        s().tasks[task.0 as usize]
            .modes
            .contains(s().mode_by_name(mode).expect("mode"))
    };
    let (detected, reactions) = if mode_runs_task(case.frame) {
        // Detected while monitoring the frame it was injected into (within one major frame).
        let here: Vec<&Value> = faults
            .iter()
            .filter(|f| f["frame"].as_u64() == Some(case.frame))
            .collect();
        assert!(
            !here.is_empty(),
            "not detected in frame {}\n{context}",
            case.frame
        );
        assert!(not_applied.is_empty(), "{context}");
        let detected = here
            .iter()
            .map(|f| {
                format!(
                    "{} on `{}`",
                    f["fault"].as_str().unwrap(),
                    f["task"].as_str().unwrap()
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut reactions: Vec<&str> = here
            .iter()
            .map(|f| f["reaction"].as_str().unwrap())
            .collect();
        // Each reaction once, in the order of first appearance.
        let mut seen = Vec::new();
        reactions.retain(|r| {
            !seen.contains(r) && {
                seen.push(*r);
                true
            }
        });
        (
            format!("frame {}: {detected}", case.frame),
            reactions.join(", "),
        )
    } else {
        // The mode of its frame does not run the task: reported, not dropped.
        assert_eq!(not_applied.len(), 1, "{context}");
        assert_eq!(
            not_applied[0]["frame"].as_u64(),
            Some(case.frame),
            "{context}"
        );
        assert_eq!(
            not_applied[0]["task"].as_str(),
            Some(case.task),
            "{context}"
        );
        assert!(run.stdout.contains("not applied"), "{context}");
        (
            "not applied: reported (mode `degraded` does not run it)".to_string(),
            "-".to_string(),
        )
    };
    format!(
        "| {} | {} | `{}` @ {} | {detected} | {reactions} | {} |",
        case.kind, case.at, case.task, case.frame, run.status
    )
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (kind, task) in KINDS {
        for (at, frame) in [
            ("first frame", 0),
            ("middle frame", FRAMES / 2),
            ("last frame", FRAMES - 1),
        ] {
            cases.push(Case {
                kind,
                task,
                frame,
                at,
            });
        }
        // In the degraded chain: a CPU overrun on each of its tasks; the DLA and PVA kinds have
        // no task there (the chain is CPU only): aimed at the detector or the preprocess, they
        // are not applied.
        let degraded: &[&'static str] = if kind == "cpu-overrun" {
            &DEGRADED_CPU_TASKS
        } else {
            &[task]
        };
        for &task in degraded {
            cases.push(Case {
                kind,
                task,
                frame: IN_DEGRADED,
                at: "degraded chain",
            });
        }
    }
    cases
}

const BEGIN: &str = "<!-- fault-campaign:begin (generated by examples/aeb/tests/campaign.rs) -->";
const END: &str = "<!-- fault-campaign:end -->";

fn manual() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/safety-manual.md")
}

#[test]
fn every_fault_kind_everywhere_is_detected_and_reacted_to_and_tabled() {
    let cases = cases();
    // Four runs at a time: a hung DLA run mostly sleeps out the virtual clock's real-time cap.
    let rows: Vec<String> = cases
        .chunks(4)
        .flat_map(|pair| {
            std::thread::scope(|scope| {
                let handles: Vec<_> = pair
                    .iter()
                    .map(|case| {
                        scope.spawn(move || {
                            let name = format!("{}-{}-{}", case.kind, case.task, case.frame);
                            judge(case, &run_demo(&name, FRAMES, &case.inject_args()))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a case"))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let table = format!(
        "{BEGIN}\n| fault | where | injected into | detected (the frame it was injected into) | reaction | exit |\n|---|---|---|---|---|---|\n{}\n{END}",
        rows.join("\n")
    );
    let path = manual();
    let text = std::fs::read_to_string(&path).expect("docs/safety-manual.md");
    let (start, end) = (
        text.find(BEGIN)
            .expect("the begin marker in docs/safety-manual.md"),
        text.find(END)
            .expect("the end marker in docs/safety-manual.md")
            + END.len(),
    );
    if std::env::var_os("UPDATE_SAFETY_TABLE").is_some_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{table}{}", &text[..start], &text[end..])).expect("write");
    } else {
        assert_eq!(
            &text[start..end],
            table,
            "the campaign's results differ from docs/safety-manual.md: review, then \
             UPDATE_SAFETY_TABLE=1 cargo test -p aeb-demo --test campaign"
        );
    }
}

/// A clean run exits 0; an injection whose frame the run does not reach is reported; one that
/// could never take effect is refused at once with status 2 and a message naming the task.
#[test]
fn a_clean_run_exits_0_and_no_injection_is_dropped_silently() {
    let clean = run_demo("clean", FRAMES, &[]);
    assert_eq!(clean.status, CLEAN, "{}{}", clean.stdout, clean.stderr);
    assert!(array(&clean.summary["faults"]).is_empty());
    assert!(array(&clean.summary["frames_without_decision_or_reaction"]).is_empty());

    let beyond = run_demo(
        "beyond",
        FRAMES,
        &["--inject".into(), format!("dla-hang@frame={}", FRAMES + 5)],
    );
    assert_eq!(beyond.status, CLEAN, "{}{}", beyond.stdout, beyond.stderr);
    let na = array(&beyond.summary["injections_not_applied"]);
    assert_eq!(na.len(), 1, "{}", beyond.summary);
    assert!(
        na[0]["why"].as_str().unwrap().contains("ended before"),
        "{}",
        na[0]
    );

    for (inject, reason) in [
        (
            "dla-hang:fallback_detector@frame=3",
            "does not run on a DLA",
        ),
        (
            "cpu-overrun:detector@frame=3",
            "does not run on a CPU worker",
        ),
        ("pva-error:detector@frame=3", "does not run on a PVA"),
    ] {
        let refused = run_demo("refused", FRAMES, &["--inject".into(), inject.into()]);
        assert_eq!(refused.status, ERROR, "{inject}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(reason),
            "{inject}: {}",
            refused.stderr
        );
    }
    let unknown = run_demo(
        "unknown",
        FRAMES,
        &["--inject".into(), "dla-hang:nobody@frame=3".into()],
    );
    assert_eq!(unknown.status, ERROR);
    assert!(
        unknown.stderr.contains("no task `nobody`"),
        "{}",
        unknown.stderr
    );
}

/// `aeb | head`: the reader has gone before the first line; the run goes on, quietly, and
/// writes its evidence.
///
/// Covers: REQ-ROB-084
#[test]
fn a_closed_stdout_does_not_stop_the_run() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let run = run_demo_into("closed-stdout", FRAMES, &[], writer.into());
    assert_eq!(run.status, CLEAN, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert_eq!(
        run.summary["frames"].as_u64(),
        Some(FRAMES),
        "{}",
        run.summary
    );
}
