//! The report of a trace with known records (exact numbers), of a truncated trace, with and
//! without a manifest and a coverage summary; and the artifact hashes of a schedule against
//! manifests that agree and manifests that do not.

use std::path::{Path, PathBuf};
use std::time::Duration;

use orin_exec::table::{
    Action, CubinDesc, CubinVariant, FaultKind, LoadableDesc, ModeId, RealLoadable, ScheduleTables,
};
use orin_exec::trace::{Event, Record, TraceRing};
use orin_exec_evidence::html::{Report, SECTIONS, Verdict};
use orin_exec_evidence::run::{ArtifactKind, Clock, Criterion, RunManifest, RunStatus, sha256_hex};
use orin_exec_trace::{Drainer, TaskMeta, TimelineMeta, TraceMeta};

const MS: u64 = 1_000_000;
const PERIOD: u64 = 10 * MS;
const RUN_ID: &str = "20261201T000000Z-0badcafe";

/// `<tmp>/evidence-<name>/runs/run`: the report looks for a coverage summary in the run
/// directory and two levels up, all inside this test's own directory.
fn scratch(name: &str) -> PathBuf {
    let top = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("evidence-{name}"));
    let _ = std::fs::remove_dir_all(&top);
    let d = top.join("runs").join("run");
    std::fs::create_dir_all(&d).expect("scratch");
    d
}

fn meta() -> TraceMeta {
    TraceMeta {
        run_id: RUN_ID.into(),
        name: "known".into(),
        platform: "sil".into(),
        period_ns: PERIOD,
        engines: vec![
            ("cpu0".into(), "cpu".into(), 0),
            ("gpu0".into(), "gpu".into(), 0),
        ],
        tasks: vec![
            TaskMeta {
                name: "a<b".into(),
                engine: 0,
                wcet_ns: 2 * MS,
                budget_ns: 2 * MS,
                deadline_ns: 4 * MS,
                modes: 0b11,
                ..TaskMeta::default()
            },
            TaskMeta {
                name: "late".into(),
                engine: 1,
                wcet_ns: MS,
                budget_ns: MS,
                deadline_ns: 8 * MS,
                modes: 0b01,
                ..TaskMeta::default()
            },
        ],
        modes: vec!["normal".into(), "degraded".into()],
        timeline: vec![
            TimelineMeta {
                mode: 0,
                task: 0,
                latest_start_ns: 0,
                latest_finish_ns: 2 * MS,
                slack_ns: 2 * MS,
            },
            TimelineMeta {
                mode: 0,
                task: 1,
                latest_start_ns: 2 * MS,
                latest_finish_ns: 3 * MS,
                slack_ns: 5 * MS,
            },
            TimelineMeta {
                mode: 1,
                task: 0,
                latest_start_ns: 0,
                latest_finish_ns: 2 * MS,
                slack_ns: 2 * MS,
            },
        ],
    }
}

fn rec(time_ns: u64, frame: u64, task: u16, event: Event, value: u64) -> Record {
    Record {
        time_ns,
        frame,
        task,
        event,
        value,
    }
}

/// Six frames. `a<b` runs 1 ms in every frame but frame 2 (4.9 ms, a deadline miss, logged);
/// `late` runs 0.5 ms in frames 0 to 2, times out in frame 3 (switch to `degraded` from frame
/// 4). Frame `f` is released `f` µs late.
fn records() -> Vec<Record> {
    let mut r = Vec::new();
    for f in 0..6u64 {
        let rel = f * PERIOD;
        let err = f * 1000;
        r.push(rec(rel + err, f, u16::MAX, Event::FrameRelease, err));
        let end = if f == 2 { 5 * MS } else { 1_100_000 };
        r.push(rec(rel + 100_000, f, 0, Event::TaskStart, 0));
        r.push(rec(rel + end, f, 0, Event::TaskEnd, end - 100_000));
        if f == 2 {
            r.push(rec(
                rel + 4 * MS,
                f,
                0,
                Event::Fault(FaultKind::DeadlineMiss),
                0,
            ));
            r.push(rec(rel + 4 * MS, f, 0, Event::Reaction(Action::Log), 0));
        }
        if f < 3 {
            r.push(rec(rel + 2 * MS, f, 1, Event::TaskStart, 0));
            r.push(rec(rel + 2_500_000, f, 1, Event::TaskEnd, 500_000));
        }
        if f == 3 {
            r.push(rec(
                rel + 8 * MS,
                f,
                1,
                Event::Fault(FaultKind::FenceTimeout),
                0,
            ));
            r.push(rec(
                rel + 8 * MS,
                f,
                1,
                Event::Reaction(Action::SwitchMode(ModeId(1))),
                1,
            ));
            r.push(rec(rel + 8 * MS, f + 1, u16::MAX, Event::ModeSwitch, 1));
        }
    }
    r
}

static RING: TraceRing<256> = TraceRing::new();
static RING_USER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A trace file of [`records`] in `dir`.
fn write_trace(dir: &Path) -> PathBuf {
    let _one_at_a_time = RING_USER.lock().unwrap_or_else(|e| e.into_inner());
    let path = dir.join("trace.bin");
    let drainer =
        Drainer::start(RING.as_log(), &meta(), &path, Duration::from_millis(1)).expect("drainer");
    for r in records() {
        RING.push(r);
    }
    drainer.finish().expect("finish");
    path
}

fn manifest(status: RunStatus, criteria: Vec<Criterion>) -> RunManifest {
    let mut m = RunManifest::new(RUN_ID, "sil", Clock::Virtual, 6);
    m.finish(status, criteria);
    m.allocations_after_seal = Some(0);
    m
}

/// Covers: REQ-EVD-003
#[test]
fn known_records_give_known_numbers_and_every_section() {
    let dir = scratch("known");
    write_trace(&dir);
    manifest(
        RunStatus::Completed,
        vec![Criterion::new("ok", true, "fine")],
    )
    .write(&dir)
    .expect("manifest");
    let report = Report::load(&dir).expect("report");
    assert!(!report.trace.truncated);
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    assert_eq!(report.verdict(), Verdict::Pass);

    let a = &report.analysis;
    let t0 = &a.tasks[0];
    assert_eq!(t0.runs, 6);
    // Five executions of 1 ms and one of 4.9 ms, binned over the histogram's range.
    assert_eq!(t0.histogram.iter().sum::<u64>(), 6);
    let bin = |ns: u64| ((ns as f64 / t0.hist_max_ns) * t0.histogram.len() as f64) as usize;
    assert_eq!(
        (t0.histogram[bin(MS)], t0.histogram[bin(4_900_000)]),
        (5, 1)
    );
    assert_eq!(
        (
            t0.stats.min_ns,
            t0.stats.p50_ns,
            t0.stats.p99_ns,
            t0.stats.max_ns
        ),
        (MS, MS, 4_900_000, 4_900_000)
    );
    assert_eq!((t0.deadline_misses, t0.longest_miss_run), (1, 1));
    assert_eq!(t0.max_finish_ns, 5 * MS);
    // Envelopes per mode: frames 0-3 normal, 4-5 degraded.
    let envelope = |mode: u16| {
        a.envelopes
            .iter()
            .find(|e| e.mode_index == mode && e.index == 0)
            .and_then(|e| e.observed)
            .expect("observed")
    };
    let normal = envelope(0);
    assert_eq!(
        (normal.executions, normal.min_start_ns, normal.max_end_ns),
        (4, 100_000, 5 * MS as i64)
    );
    let degraded = envelope(1);
    assert_eq!((degraded.executions, degraded.max_end_ns), (2, 1_100_000));
    // The worst case beside it, from the trace's timeline.
    let worst = a
        .envelopes
        .iter()
        .find(|e| e.mode_index == 0 && e.index == 1)
        .and_then(|e| e.worst_case)
        .expect("worst case");
    assert_eq!(worst.latest_finish_ns, 3 * MS);
    let t1 = &a.tasks[1];
    assert_eq!((t1.runs, t1.fence_timeouts, t1.longest_miss_run), (3, 1, 1));
    assert_eq!(a.modes_run, vec![0, 1]);
    assert_eq!(a.release.frames, 6);
    assert_eq!((a.release.min_error_ns, a.release.max_error_ns), (0, 5000));
    assert_eq!(a.faults.len(), 2);
    assert_eq!(
        (
            a.faults[0].frame,
            a.faults[0].fault.as_str(),
            a.faults[0].reaction.as_str()
        ),
        (2, "deadline_miss", "log")
    );
    // Detection time after the frame's planned release.
    assert_eq!(a.faults[0].at_ns, Some(4 * MS as i64));
    assert_eq!(
        (a.faults[1].task.as_str(), a.faults[1].reaction.as_str()),
        ("late", "switch to mode `degraded`")
    );
    assert_eq!(a.mode_switches.len(), 1);
    assert_eq!(
        (a.mode_switches[0].frame, a.mode_switches[0].mode.as_str()),
        (4, "degraded")
    );

    let html = report.html();
    for s in SECTIONS {
        assert!(html.contains(&format!("<section id=\"{s}\">")), "{s}");
    }
    assert!(
        html.contains("<tr data-task=\"a&lt;b\">"),
        "names are escaped"
    );
    assert!(!html.contains("a<b"), "no raw markup from the trace");
    assert!(html.contains("id=\"timeline-normal\"") && html.contains("id=\"timeline-degraded\""));
    assert!(html.contains("trace complete: 6 frames released of 6 planned (the last: frame 5)"));
    assert!(html.contains("class=\"verdict pass\""));
    assert!(html.contains("Coverage: not measured"));
    assert!(html.contains(RUN_ID));

    let text = report.text();
    assert!(text.contains("verdict: PASS"), "{text}");
    assert!(
        text.contains("frame     2: deadline_miss on `a<b` -> log"),
        "{text}"
    );
    let json = report.json();
    assert_eq!(json["tasks"][0]["p99_ns"], 4_900_000);
    assert_eq!(json["trace"]["truncated"], false);
    assert_eq!(json["verdict"], "pass");
}

/// Covers: REQ-EVD-003
#[test]
fn a_failed_criterion_a_foreign_manifest_and_coverage() {
    let dir = scratch("foreign");
    write_trace(&dir);
    manifest(
        RunStatus::Completed,
        vec![Criterion::new("no fault", false, "2 faults")],
    )
    .write(&dir)
    .expect("manifest");
    assert_eq!(Report::load(&dir).expect("report").verdict(), Verdict::Fail);

    // A manifest of another run is not used, and the report says so.
    let mut other = manifest(RunStatus::Completed, Vec::new());
    other.run_id = "20261201T000000Z-00000000".into();
    other.write(&dir).expect("manifest");
    let report = Report::load(&dir).expect("report");
    assert!(report.manifest.is_none());
    assert!(matches!(report.verdict(), Verdict::None(_)));
    assert!(report.notes[0].contains("belongs to run 20261201T000000Z-00000000"));

    // Coverage two levels up (as `target/orin-exec/coverage.json` for `runs/<id>`).
    let coverage = dir.ancestors().nth(2).expect("top").join("coverage.json");
    std::fs::write(
        &coverage,
        r#"{"tool":"cargo llvm-cov 0.6.0","crates":[{"name":"orin-exec","lines":{"covered":90,"total":100,"percent":90.0},"regions":{"covered":80,"total":100,"percent":80.0}}]}"#,
    )
    .expect("coverage");
    let html = Report::load(&dir).expect("report").html();
    assert!(html.contains("cargo llvm-cov 0.6.0"));
    assert!(html.contains("<td>orin-exec</td><td>90 / 100</td><td>90.0</td>"));
}

/// Covers: REQ-EVD-004
#[test]
fn a_truncated_trace_reports_where_it_ends() {
    let dir = scratch("truncated");
    let path = write_trace(&dir);
    let bytes = std::fs::read(&path).expect("trace");
    let whole = Report::load(&path).expect("whole");
    // Cut in the middle of the record stream, inside a record.
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &bytes[..bytes.len() - 32 * 12 - 7]).expect("cut");
    let report = Report::load(&cut).expect("a truncated trace reports");
    assert!(report.trace.truncated);
    assert!(report.trace.records < whole.trace.records);
    let last = report.trace.last_frame.expect("some records");
    let state = report.trace_state();
    assert!(
        state.starts_with(&format!("trace ends at frame {last}")),
        "{state}"
    );
    assert!(
        report
            .html()
            .contains(&format!("trace ends at frame {last}"))
    );

    // Cut right after the header: no records, still a report.
    let header_only = dir.join("header.bin");
    let len = u64::from_le_bytes(bytes[8..16].try_into().expect("len")) as usize;
    std::fs::write(&header_only, &bytes[..16 + len]).expect("cut");
    let report = Report::load(&header_only).expect("header only");
    assert!(report.trace_state().contains("before the first frame"));
    assert!(report.html().contains("No frame was released"));

    // Not a trace, and a directory without one: errors that name the file.
    let e = Report::load(&dir.join("nothing")).expect_err("no file");
    assert!(e.to_string().contains("nothing"), "{e}");
    let empty = scratch("empty");
    let e = Report::load(&empty).expect_err("no trace");
    assert!(e.to_string().contains("no trace.bin"), "{e}");
}

static IMAGE_A: [u8; 16] = *b"cubin image sm87";
static IMAGE_B: [u8; 16] = *b"cubin image sm90";
static LOADABLE: [u8; 8] = *b"loadable";

static TABLES: ScheduleTables = ScheduleTables {
    name: "hashes",
    profile: "sil",
    period_ns: PERIOD,
    minor_frames_ns: &[0],
    lookahead: 0,
    threads: &[],
    engines: &[],
    buffers: &[],
    tasks: &[],
    modes: &[],
    health: &[],
    cubins: &[CubinDesc {
        name: "k",
        variants: &[
            CubinVariant {
                sm: 87,
                sha256: [0; 32],
                image: &IMAGE_A,
            },
            CubinVariant {
                sm: 90,
                sha256: [0; 32],
                image: &IMAGE_B,
            },
        ],
    }],
    loadables: &[LoadableDesc {
        name: "det",
        onnx_sha256: [0; 32],
        onnx: b"onnx model",
        loadable: Some(RealLoadable {
            sha256: [0; 32],
            image: &LOADABLE,
        }),
        inputs: &[],
        outputs: &[],
    }],
    pva_programs: &[],
    timeline: &[],
    cpu_waits: &[],
};

/// Covers: REQ-EVD-002
#[test]
fn artifacts_are_compared_with_their_manifests() {
    let dir = scratch("artifacts");
    let toml = "name = \"hashes\"\nkernels_manifest = \"k/manifest.toml\"\nloadables_manifest = \"l/manifest.toml\"\n";
    std::fs::write(dir.join("schedule.toml"), toml).expect("schedule");
    std::fs::create_dir_all(dir.join("k")).expect("k");
    std::fs::create_dir_all(dir.join("l")).expect("l");
    // sm_87 right, sm_90 wrong.
    std::fs::write(
        dir.join("k/manifest.toml"),
        format!(
            "[toolchain]\nnvcc_version = \"V1.2.3\"\n[[cubin]]\nname = \"k\"\nsm = 87\nfile = \"cubins/k.sm_87.cubin\"\nsha256 = \"{}\"\n[[cubin]]\nname = \"k\"\nsm = 90\nfile = \"cubins/k.sm_90.cubin\"\nsha256 = \"{}\"\n",
            sha256_hex(&IMAGE_A),
            sha256_hex(b"something else")
        ),
    )
    .expect("kernels manifest");
    std::fs::write(dir.join("l/det.onnx"), b"onnx model").expect("onnx");
    std::fs::write(
        dir.join("l/manifest.toml"),
        format!(
            "[[network]]\nname = \"det\"\nloadable = \"det.dla\"\nloadable_sha256 = \"{}\"\nonnx = \"det.onnx\"\nonnx_sha256 = \"{}\"\n",
            sha256_hex(&LOADABLE),
            sha256_hex(b"onnx model")
        ),
    )
    .expect("loadables manifest");

    let mut m = RunManifest::new(RUN_ID, "sil", Clock::Virtual, 1);
    m.with_schedule(&TABLES, &dir.join("schedule.toml"), toml.as_bytes());
    let find = |kind: ArtifactKind, name: &str| {
        m.artifacts
            .iter()
            .find(|a| a.kind == kind && a.name == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    assert_eq!(m.toolchain.nvcc.as_deref(), Some("V1.2.3"));
    assert_eq!(m.schedule.sha256, sha256_hex(toml.as_bytes()));
    assert!(find(ArtifactKind::Schedule, "hashes").matches);
    let a = find(ArtifactKind::Cubin, "k.sm_87");
    assert!(
        a.matches
            && a.manifest
                .as_deref()
                .is_some_and(|p| p.ends_with("k/manifest.toml"))
    );
    assert!(a.path.ends_with("k/cubins/k.sm_87.cubin"), "{}", a.path);
    let b = find(ArtifactKind::Cubin, "k.sm_90");
    assert!(!b.matches);
    assert_eq!(b.sha256, sha256_hex(&IMAGE_B));
    let real = find(ArtifactKind::Loadable, "det");
    assert!(
        real.matches && real.path.ends_with("l/det.dla"),
        "{}",
        real.path
    );
    let onnx = find(ArtifactKind::Onnx, "det");
    assert!(onnx.matches && onnx.sha256 == sha256_hex(b"onnx model"));
    assert!(onnx.path.ends_with("l/det.onnx"), "{}", onnx.path);
    let c = m.evidence_criteria();
    assert!(!c[0].pass && c[0].detail.contains("k.sm_90"), "{c:?}");

    // The TOML on disk differs from the one compiled in: the schedule does not match.
    let mut m = RunManifest::new(RUN_ID, "sil", Clock::Virtual, 1);
    m.with_schedule(&TABLES, &dir.join("schedule.toml"), b"name = \"older\"\n");
    assert!(!m.artifacts[0].matches);
    // Manifests out of reach: the hashes compiled into the tables are the reference (all
    // zero here, so nothing matches).
    let mut m = RunManifest::new(RUN_ID, "sil", Clock::Virtual, 1);
    m.with_schedule(
        &TABLES,
        &dir.join("elsewhere/schedule.toml"),
        toml.as_bytes(),
    );
    let cubin = m
        .artifacts
        .iter()
        .find(|a| a.kind == ArtifactKind::Cubin)
        .expect("cubin");
    assert_eq!(
        cubin.manifest.as_deref(),
        Some("schedule tables (compiled in)")
    );
    assert!(!cubin.matches);
    assert_eq!(m.artifacts[0].manifest_sha256, None, "no TOML on disk");
    assert!(m.toolchain.nvcc.is_none());
}
