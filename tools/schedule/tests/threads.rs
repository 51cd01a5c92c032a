//! Thread settings: the executive's `[executive]` table and a CPU engine's `priority`/`cpus`,
//! their validation (line and column), the shared-CPU warning, and the generated `threads`
//! table.
//!
//! Covers: REQ-PART-020, REQ-PART-021

mod common;

use common::{Fixture, HEADER, compile_and_run_files, cpu_task, options, points_at, with_header};
use orin_exec_schedule::{Options, render_str};

/// The generated tables, for the `orin-exec-table` crate.
fn generated(fx: &Fixture, text: &str) -> String {
    let opts = Options {
        table_path: "::orin_exec_table".into(),
        ..options()
    };
    render_str(&fx.schedule_path(), text, &opts)
        .unwrap_or_else(|d| panic!("{d}"))
        .source
}

/// The warnings about CPUs (the fixture's unused engines give others).
fn cpu_warnings(report: &orin_exec_schedule::Report) -> Vec<String> {
    report
        .warnings
        .iter()
        .map(|w| w.to_string())
        .filter(|w| w.contains("pinned"))
        .collect()
}

/// The fixture header with its CPU engines replaced by `cpu`, plus `extra` top-level keys
/// before `[engines]`, and one task on each CPU worker.
fn schedule(extra: &str, cpu: &str) -> String {
    let header = HEADER
        .replace(
            r#"cpu = [{ name = "cpu0" }, { name = "cpu1" }]"#,
            &format!("cpu = {cpu}"),
        )
        .replace("[engines]", &format!("{extra}\n[engines]"));
    assert!(header.contains(cpu));
    let tasks = [
        cpu_task("x", "cpu0", "1ms", &[]),
        cpu_task("y", "cpu1", "1ms", &[]),
    ]
    .concat();
    format!("{header}\n{tasks}")
}

const PINNED: &str =
    r#"[{ name = "cpu0", priority = 70, cpus = [1] }, { name = "cpu1", cpus = [2, 3] }]"#;

#[test]
fn settings_are_accepted_and_generated() {
    let fx = Fixture::new();
    let text = schedule("[executive]\npriority = 80\ncpus = [0]\n", PINNED);
    let report = fx.ok(&text);
    assert!(cpu_warnings(&report).is_empty());
    // `orin-exec check` shows the workers' settings.
    let shown = report.to_string();
    assert!(
        shown.contains("cpu0 (CPU worker 0, SCHED_FIFO 70, CPUs {1}, queue 8), cpu1 (CPU worker 1, CPUs {2,3}, queue 8)"),
        "{shown}"
    );
    let out = compile_and_run_files(
        &[("s".into(), generated(&fx, &text))],
        "for t in s::SCHEDULE.threads { println!(\"{:?} {} {:#b}\", t.thread, t.priority, t.cpus); }\n",
    );
    assert_eq!(
        out,
        "Executive 80 0b1\nWorker(EngineId(0)) 70 0b10\nWorker(EngineId(1)) 0 0b1100\n"
    );
}

#[test]
fn without_settings_the_table_is_empty() {
    let fx = Fixture::new();
    let text = with_header(&cpu_task("x", "cpu0", "1ms", &[]));
    let out = compile_and_run_files(
        &[("s".into(), generated(&fx, &text))],
        "println!(\"{}\", s::SCHEDULE.threads.len());\n",
    );
    assert_eq!(out, "0\n");
}

/// Each bad value is an error at the value, with the range named.
#[test]
fn bad_values_are_errors_at_their_position() {
    let fx = Fixture::new();
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            "",
            r#"[{ name = "cpu0", priority = 100 }, { name = "cpu1" }]"#,
            "100",
            "engine `cpu0`: `priority` must be in 1..=99, found 100",
        ),
        (
            "[executive]\npriority = 0\n",
            r#"[{ name = "cpu0" }, { name = "cpu1" }]"#,
            "priority = 0",
            "`[executive]`: `priority` must be positive, found 0",
        ),
        (
            "",
            r#"[{ name = "cpu0", cpus = [] }, { name = "cpu1" }]"#,
            "[]",
            "engine `cpu0`: `cpus` is empty",
        ),
        (
            "",
            r#"[{ name = "cpu0", cpus = [64] }, { name = "cpu1" }]"#,
            "64",
            "engine `cpu0`: each CPU of `cpus` must be in 0..=63, found 64",
        ),
        (
            "",
            r#"[{ name = "cpu0", cpus = [2, 2] }, { name = "cpu1" }]"#,
            "2]",
            "engine `cpu0`: CPU 2 is listed twice in `cpus`",
        ),
        (
            "[executive]\ncpus = \"0\"\n",
            r#"[{ name = "cpu0" }, { name = "cpu1" }]"#,
            "\"0\"",
            "`[executive]`: `cpus` must be an array",
        ),
    ];
    for (extra, cpu, at, message) in cases {
        let text = schedule(extra, cpu);
        let (d, s) = fx.rejects(&text, &[message]);
        assert_eq!(d.error_count(), 1, "{s}");
        let offset = usize::from(at == "priority = 0") * "priority = ".len();
        assert!(points_at(&d.0[0], &text, at, offset), "{at:?}:\n{s}");
    }
}

#[test]
fn the_orin_profile_has_twelve_cores() {
    let fx = Fixture::new();
    let text = schedule("", r#"[{ name = "cpu0", cpus = [12] }, { name = "cpu1" }]"#)
        .replace("profile = \"sil\"", "profile = \"orin\"");
    let (d, s) = fx.rejects(
        &text,
        &[
            "each CPU of `cpus` must be in 0..=11, found 12",
            "profile `orin` has 12 CPU cores, numbered 0..=11",
        ],
    );
    assert!(points_at(&d.0[0], &text, "12]", 0), "{s}");
}

#[test]
fn accelerator_engines_have_no_thread_settings() {
    let fx = Fixture::new();
    let text = with_header(&cpu_task("x", "cpu0", "1ms", &[])).replace(
        r#"gpu = [{ name = "gpu0", stream = 0 }]"#,
        r#"gpu = [{ name = "gpu0", stream = 0, priority = 50 }]"#,
    );
    let (d, s) = fx.rejects(
        &text,
        &[
            "engine `gpu0`: `priority` applies to CPU engines and the executive only",
            "set the executive's `priority` in `[executive]`",
        ],
    );
    assert_eq!(d.error_count(), 1, "{s}");
    assert!(points_at(&d.0[0], &text, "50 }", 0), "{s}");
}

#[test]
fn unknown_executive_keys_are_errors() {
    let fx = Fixture::new();
    let text = schedule(
        "[executive]\npriorty = 80\n",
        r#"[{ name = "cpu0" }, { name = "cpu1" }]"#,
    );
    fx.rejects(
        &text,
        &["unknown key `priorty` in `[executive]`", "`priority`"],
    );
}

/// Threads pinned to a common CPU are allowed, with a warning at the second one's CPU; a
/// thread allowed on other CPUs too is not sure to compete and gets none.
#[test]
fn a_shared_cpu_is_a_warning() {
    let fx = Fixture::new();
    let text = schedule(
        "[executive]\ncpus = [1]\n",
        r#"[{ name = "cpu0", cpus = [1] }, { name = "cpu1", cpus = [1, 2] }]"#,
    );
    let report = fx.ok(&text);
    let warnings = cpu_warnings(&report);
    assert_eq!(warnings.len(), 3, "{warnings:#?}");
    assert!(
        warnings[0].contains("the executive and worker `cpu0` are both pinned to CPU 1"),
        "{warnings:#?}"
    );
    assert!(
        warnings[1].contains("the executive and worker `cpu1` are both pinned to CPU 1")
            && warnings[1].contains("gives every CPU worker and the executive a CPU of its own"),
        "{warnings:#?}"
    );
    assert!(
        warnings[2].contains("worker `cpu0` and worker `cpu1` are both pinned to CPU 1"),
        "{warnings:#?}"
    );
    let first = report
        .warnings
        .iter()
        .find(|w| w.to_string() == warnings[0]);
    assert!(points_at(first.unwrap(), &text, "1] }, {", 0));
    let spread = schedule(
        "",
        r#"[{ name = "cpu0", cpus = [1, 2] }, { name = "cpu1", cpus = [2, 3] }]"#,
    );
    assert!(cpu_warnings(&fx.ok(&spread)).is_empty());
}
