//! The validator: every rejection class with its message, the race rules, the timeline, and
//! the complete example of docs/schedule.md.

mod common;

use common::{
    Fixture, GPU_TASK, assert_has, buffer, check_docs, cpu_task, dla_task, docs_example,
    docs_example_path, edited, gpu_task, health, points_at, pos, raw_buffer, task, with_header,
};

/// `w` on `cpu0` writes `buf`, `r` on `cpu1` reads it; nothing orders them.
fn two_cpu_tasks() -> String {
    [
        raw_buffer("buf", 64),
        cpu_task("w", "cpu0", "1ms", &[r#"writes = ["buf"]"#]),
        cpu_task("r", "cpu1", "1ms", &[r#"reads = ["buf"]"#]),
    ]
    .concat()
}

/// Covers: REQ-SCH-001, REQ-SCH-007
#[test]
fn docs_example_is_valid_and_prints_its_timeline() {
    let report = check_docs(&docs_example())
        .unwrap_or_else(|d| panic!("the docs example is rejected:\n{d}"));
    let printed = report.to_string();
    println!("{printed}");
    assert!(report.warnings.is_empty(), "{printed}");
    assert_eq!(report.name, "aeb");
    assert_eq!(report.period_ns, 33_333_000);
    assert_eq!(report.minor_frames_ns, [0, 16_666_500]);
    let modes: Vec<&str> = report.modes.iter().map(|m| m.mode.as_str()).collect();
    assert_eq!(modes, ["normal", "degraded"]);
    let normal = &report.modes[0];
    let names: Vec<&str> = normal.tasks.iter().map(|t| t.task.as_str()).collect();
    assert_eq!(
        names,
        [
            "sensor",
            "preprocess",
            "detector",
            "postprocess",
            "decision"
        ]
    );
    let detector = &normal.tasks[2];
    assert_eq!(
        (
            detector.latest_start_ns,
            detector.latest_finish_ns,
            detector.slack_ns
        ),
        (3_000_000, 9_000_000, 6_000_000)
    );
    let decision = &normal.tasks[4];
    assert_eq!(
        (decision.latest_start_ns, decision.latest_finish_ns),
        (16_666_500, 17_666_500)
    );
    assert_eq!(normal.critical_path, ["decision"]);
    let degraded = &report.modes[1];
    let names: Vec<&str> = degraded.tasks.iter().map(|t| t.task.as_str()).collect();
    assert_eq!(
        names,
        ["sensor", "fallback_detector", "conservative_decision"]
    );
    assert_has(
        &printed,
        &[
            "schedule `aeb`",
            "mode `normal` (initial): worst-case timeline",
            "  detector     dla0        0.000ms      3.000ms      9.000ms     15.000ms      6.000ms",
            "utilisation: cpu0 6.0% (2.000ms)",
            "critical path: release at 16.6665ms → `decision` (cpu1, 16.6665ms → 17.6665ms)",
            "mode `degraded`",
        ],
    );
}

/// Covers: REQ-SCH-001
#[test]
fn docs_show_the_actual_report_and_diagnostics() {
    let doc = std::fs::read_to_string(common::repo_root().join("docs/schedule.md")).unwrap();
    let block = |after: &str| {
        let at = doc
            .find(after)
            .unwrap_or_else(|| panic!("{after:?} not in docs/schedule.md"));
        let start = at + doc[at..].find("```text\n").unwrap() + "```text\n".len();
        doc[start..start + doc[start..].find("```").unwrap()].to_owned()
    };
    let shown = |s: String| {
        s.replace(
            &docs_example_path().display().to_string(),
            "examples/aeb/schedule.toml",
        )
    };
    let report = check_docs(&docs_example()).unwrap();
    assert_eq!(
        block("`orin-exec check` on this block (saved as `examples/aeb/schedule.toml`) prints:"),
        shown(report.to_string())
    );
    let broken = docs_example().replace(
        "after = [\"preprocess\", \"decision@-1\"]",
        "after = [\"preprocess\"]",
    );
    let d = check_docs(&broken).unwrap_err();
    assert_eq!(block("## Diagnostics"), shown(d.to_string()) + "\n");
}

/// Covers: REQ-SCH-001, REQ-SCH-002
#[test]
fn docs_example_param_kinds_are_checked_against_the_manifest() {
    let text = docs_example().replacen("{ u32 = 128 }", "{ f32 = 128.0 }", 1);
    let d = check_docs(&text).unwrap_err().to_string();
    assert_has(
        &d,
        &[
            "kernel parameter is `u32` in the kernel's signature, but task `preprocess` passes `f32`",
        ],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn syntax_errors_have_line_and_column() {
    let fx = Fixture::new();
    let text = with_header("[[task]]\nname = \"x\"\nwcet = \n");
    let (d, s) = fx.rejects(&text, &["error: TOML syntax:", "schedule.toml:"]);
    assert_eq!(d.error_count(), 1);
    assert!(d.0[0].line > 10, "{s}");
}

/// Covers: REQ-SCH-002
#[test]
fn diagnostics_print_like_rustc() {
    let fx = Fixture::new();
    let text = with_header("[[task]]\nname = \"s\"\nengine = \"cpu9\"\nwcet = \"1ms\"\n");
    let (d, s) = fx.errors(&text);
    let (line, col) = pos(&text, "\"cpu9\"");
    assert_eq!((d.0[0].line, d.0[0].column), (line, col));
    let file = fx.schedule_path().display().to_string();
    let expected = format!(
        "error: unknown engine `cpu9`\n  --> {file}:{line}:{col}\n   |\n{line} | engine = \"cpu9\"\n   |          ^^^^^^\n   = help: did you mean `cpu0`?\n"
    );
    assert!(s.starts_with(&expected), "got:\n{s}\nexpected:\n{expected}");
    assert!(
        s.ends_with(&format!(
            "error: schedule rejected (1 error; first in {file})"
        )),
        "{s}"
    );
}

/// Covers: REQ-SCH-002
#[test]
fn unknown_names_are_reported_with_suggestions() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            buffer("img", "tensor", &[]),
            raw_buffer("res", 256),
            cpu_task(
                "s",
                "cpu0",
                "1ms",
                &[r#"writes = ["imgg"]"#, r#"modes = ["c"]"#],
            ),
            gpu_task("g", &[r#"after = ["ss"]"#]).replace(r#"cubin = "k""#, r#"cubin = "kk""#),
            gpu_task("h", &[]).replace(r#"kernel = "copy""#, r#"kernel = "scal""#),
            task("d", "dla0", &[r#"loadable = "nett""#, r#"wcet = "1ms""#]),
            dla_task("e", "img", "res", &[]).replace("{ in =", "{ inn ="),
        ]
        .concat(),
    );
    let (d, s) = fx.rejects(
        &text,
        &[
            "unknown buffer `imgg`",
            "did you mean `img`?",
            "unknown mode `c`",
            "declared: `a`, `b`",
            "unknown cubin module `kk`",
            "did you mean `k`?",
            "unknown task `ss`",
            "did you mean `s`?",
            "unknown kernel `scal` in cubin `k`",
            "did you mean `scale`?",
            "unknown network `nett`",
            "did you mean `net`?",
            "network `net` has no input tensor `inn`",
            "did you mean `in`?",
            "DLA task `e` binds no buffer to input tensor `in`",
        ],
    );
    assert!(d.error_count() >= 8, "{s}");
    assert!(
        d.iter()
            .any(|x| x.message.contains("`kk`") && points_at(x, &text, "\"kk\"", 0)),
        "{s}"
    );
}

/// Covers: REQ-SCH-002
#[test]
fn malformed_values_are_rejected() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            raw_buffer("zero", 0),
            buffer("odd", "raw", &["size = 64", "align = 100"]),
            buffer(
                "t",
                "tensor",
                &["dims = [1, 1, 8, 8]", r#"data_type = "int8""#],
            ),
            cpu_task("s", "cpu0", "1.5", &[r#"wcte = "1ms""#, r#"reads = ["t"]"#]),
            task(
                "g",
                "gpu0",
                &[
                    r#"cubin = "k""#,
                    r#"kernel = "scale""#,
                    "grid = [0, 1]",
                    "block = [32, 64]",
                    r#"params = [{ buffer = "t" }, { buffer = "t" }, { u32 = 1 }]"#,
                    r#"wcet = "1ms""#,
                    r#"reads = ["t"]"#,
                ],
            ),
        ]
        .concat(),
    );
    fx.rejects(
        &text,
        &[
            "`size` of buffer `zero` must be positive, found 0",
            "`align` of buffer `odd` must be a power of two, found 100",
            "`wcet` of task `s`: `1.5` has no unit",
            "unknown key `wcte` in task `s`",
            "did you mean `wcet`?",
            "`grid`: dimension x is 0",
            "`block` of task `g` has 2048 threads; at most 1024",
        ],
    );
    // The count is checked once the values themselves are fine.
    let text = edited(
        &text,
        &[
            ("grid = [0, 1]", "grid = 1"),
            ("block = [32, 64]", "block = 32"),
        ],
    );
    fx.rejects(
        &text,
        &[
            "kernel `scale` takes 4 parameters, but task `g` passes 3",
            "signature: (buffer, buffer, u32, f32)",
        ],
    );
    let text = text.replace("{ u32 = 1 }]", "{ u32 = 1 }, { u32 = 2 }]");
    fx.rejects(
        &text,
        &["kernel parameter is `f32` in the kernel's signature, but task `g` passes `u32`"],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn wrong_engine_kind_fields_and_timing_fields_are_rejected() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            raw_buffer("b", 64),
            cpu_task("s", "cpu0", "1ms", &[r#"cubin = "k""#, r#"writes = ["b"]"#]),
            gpu_task(
                "g",
                &[
                    r#"release = "1ms""#,
                    r#"loadable = "net""#,
                    r#"after = ["s"]"#,
                ],
            ),
            cpu_task("late", "cpu1", "1ms", &[r#"deadline = "12ms""#]),
            cpu_task(
                "r",
                "cpu1",
                "1ms",
                &[r#"release = "5ms""#, r#"deadline = "5ms""#],
            ),
            cpu_task("bud", "cpu1", "2ms", &[r#"budget = "1ms""#]),
            cpu_task("s", "cpu1", "1ms", &[]),
        ]
        .concat(),
    );
    fx.rejects(
        &text,
        &[
            "`cubin` is a GPU task field, but task `s` runs on CPU engine `cpu0`",
            "`release` is a CPU task field, but task `g` runs on GPU engine `gpu0`",
            "accelerator tasks have no release offset",
            "`loadable` is a DLA task field, but task `g` runs on GPU engine `gpu0`",
            "`deadline` 12.000ms of task `late` is after the end of the period 10.000ms",
            "task `r` is released at 5.000ms but its deadline is 5.000ms",
            "`budget` 1.000ms of task `bud` is below its `wcet` 2.000ms",
            "task `s` is declared twice",
        ],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn pva_tasks_and_bad_engines_are_rejected() {
    let fx = Fixture::new();
    let text = r#"name = "t"
profile = "orin"
period = "10ms"
minor_frames = 3

[engines]
cpu = [{ name = "cpu0" }, { name = "cpu0" }]
dla = [{ name = "dla0", core = 0 }, { name = "dlaX", core = 0 }, { name = "dla2", core = 2 }]
pva = [{ name = "pva0" }]

[[task]]
name = "p"
engine = "pva0"
wcet = "1ms"
"#;
    fx.rejects(
        text,
        &[
            "3 minor frames do not divide the period 10.000ms evenly",
            "engine `cpu0` is declared twice",
            "engines `dla0` and `dlaX` are both DLA core 0",
            "DLA engine `dla2`: core 2 does not exist on profile `orin` (2 available)",
            "PVA task `p` has no `program` (a program of the PVA programs manifest)",
        ],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn many_independent_errors_are_collected() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            cpu_task("a", "nope", "-1ms", &[]),
            cpu_task("b", "cpu0", "1ms", &[r#"reads = ["missing"]"#]),
            health("deadline_mis", "log", &[]),
        ]
        .concat(),
    );
    let (d, s) = fx.rejects(
        &text,
        &[
            "unknown engine `nope`",
            "`-1ms` is not a valid duration: durations cannot be negative",
            "unknown buffer `missing`",
            "unknown fault `deadline_mis`",
            "did you mean `deadline_miss`?",
        ],
    );
    assert!(d.error_count() >= 4, "{s}");
}

/// Covers: REQ-SCH-003
#[test]
fn dependency_cycles_name_the_tasks_in_order() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            cpu_task("a", "cpu0", "1ms", &[r#"after = ["c"]"#]),
            cpu_task("b", "cpu1", "1ms", &[r#"after = ["a"]"#]),
            cpu_task("c", "cpu1", "1ms", &[r#"after = ["b"]"#]),
            cpu_task("selfish", "cpu0", "1ms", &[r#"after = ["selfish"]"#]),
        ]
        .concat(),
    );
    let (d, s) = fx.rejects(
        &text,
        &[
            "dependency cycle within a frame: `a` → `b` → `c` → `a`",
            "task `selfish` waits for itself in the same frame",
            "to wait for its previous instance, write `after = [\"selfish@-1\"]`",
        ],
    );
    assert!(
        d.iter()
            .any(|x| x.message.contains("cycle") && points_at(x, &text, "after = [\"c\"]", 9)),
        "{s}"
    );
    // A task may wait for its own previous instance.
    fx.ok(&with_header(&cpu_task(
        "x",
        "cpu0",
        "1ms",
        &[r#"after = ["x@-1"]"#],
    )));
}

/// Covers: REQ-SCH-003
#[test]
fn fifo_deadlocks_are_rejected() {
    let fx = Fixture::new();
    let text = with_header(&[gpu_task("g1", &[r#"after = ["g2"]"#]), gpu_task("g2", &[])].concat());
    fx.rejects(
        &text,
        &[
            "FIFO deadlock in modes `a`, `b`: `g1` waits for `g2`, `g2` is queued after `g1` on `gpu0`",
            "declare the tasks on `gpu0` in dependency order",
        ],
    );
    // Through another engine: g1 (gpu0) → d (dla0) → ... → g0 queued before g1.
    let text = with_header(
        &[
            raw_buffer("i", 512),
            raw_buffer("o", 256),
            gpu_task("g0", &[r#"after = ["d"]"#]),
            gpu_task("g1", &[]),
            dla_task("d", "i", "o", &[r#"after = ["g1"]"#]),
        ]
        .concat(),
    );
    fx.rejects(
        &text,
        &[
            "FIFO deadlock",
            "`g0` waits for `d`",
            "`d` waits for `g1`",
            "is queued after `g0` on `gpu0`",
        ],
    );
}

/// Covers: REQ-SCH-004
#[test]
fn queue_capacity_counts_lookahead_frames() {
    let fx = Fixture::new();
    let text = with_header(&[gpu_task("g1", &[]), gpu_task("g2", &[])].concat()).replace(
        "{ name = \"gpu0\", stream = 0 }",
        "{ name = \"gpu0\", stream = 0, queue_capacity = 3 }",
    );
    fx.rejects(
        &text,
        &[
            "engine `gpu0` can hold 4 tasks in mode `a` (2 per frame × (1 + lookahead 1)), but its `queue_capacity` is 3",
            "tasks on `gpu0`: `g1`, `g2`",
            "raise `queue_capacity` of `gpu0` to 4",
        ],
    );
    fx.ok(&text.replace("lookahead = 1", "lookahead = 0"));
}

/// cuDLA takes 29 pre-fences per task, the runtime's wait vectors 16 (`MAX_WAITS`): a DLA
/// task waiting for 17 tasks is refused by the runtime's limit.
///
/// Covers: REQ-SCH-004, REQ-ROB-002
#[test]
fn dla_tasks_wait_for_at_most_16_tasks() {
    let fx = Fixture::new();
    let mut body = raw_buffer("i", 512) + &raw_buffer("o", 256);
    let mut names = Vec::new();
    for k in 0..30 {
        body.push_str(&cpu_task(
            &format!("c{k}"),
            &format!("cpu{}", k % 2),
            "100us",
            &[],
        ));
        // (15 tasks per CPU worker: raise the default queue capacity of 8.)
        names.push(format!("\"c{k}\""));
    }
    let dla = |n: usize| {
        dla_task(
            "d",
            "i",
            "o",
            &[&format!("after = [{}]", names[..n].join(", "))],
        )
    };
    let big = |t: String| {
        t.replace(
            "{ name = \"cpu0\" }, { name = \"cpu1\" }",
            "{ name = \"cpu0\", queue_capacity = 16 }, { name = \"cpu1\", queue_capacity = 16 }",
        )
    };
    fx.rejects(
        &big(with_header(&format!("{body}{}", dla(17)))),
        &["task `d`: 17 waits of one task (`after` entries); the runtime takes at most 16"],
    );
    fx.ok(&big(with_header(&format!("{body}{}", dla(16)))));
}

/// Covers: REQ-SCH-002, REQ-SCH-004
#[test]
fn semaphore_value_window_and_lag_syntax() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            cpu_task("x", "cpu0", "1ms", &[]),
            cpu_task(
                "y",
                "cpu0",
                "1ms",
                &[r#"after = ["x@-600", "x@-300", "x@+1", "x@-0"]"#],
            ),
        ]
        .concat(),
    );
    fx.rejects(
        &text,
        &[
            "task `y`: 600 frames one dependency looks back",
            "task `y`: 300 frames one dependency looks back",
            "the runtime takes at most 6 (`MAX_LAG`)",
            "`x@+1`: the frame offset must be `@-k` with k ≥ 1",
            "`x@-0`: the frame offset must be `@-k`",
        ],
    );
}

/// Covers: REQ-SCH-005
#[test]
fn race_within_a_frame_is_rejected_with_a_fix() {
    let fx = Fixture::new();
    let text = with_header(&two_cpu_tasks());
    let (d, s) = fx.rejects(
        &text,
        &[
            "buffer race on `buf` within a frame (modes `a`, `b`): `w` writes it and `r` reads it, and nothing orders them",
            "`w` runs on `cpu0`, `r` on `cpu1`",
            "help: add `after = [\"w\"]` to `r`",
        ],
    );
    assert_eq!(d.error_count(), 1, "{s}");
    assert!(points_at(&d.0[0], &text, "reads = [\"buf\"]", 9), "{s}");
}

/// Covers: REQ-SCH-005
#[test]
fn race_ordered_by_after_needs_a_back_edge_across_frames() {
    let fx = Fixture::new();
    // In-frame ordered by `after`; across frames `w` of f+1 may overwrite `buf` while `r` of f reads.
    let text = with_header(
        &two_cpu_tasks().replace("reads = [\"buf\"]", "reads = [\"buf\"]\nafter = [\"w\"]"),
    );
    fx.rejects(
        &text,
        &[
            "buffer race on `buf` across frames (modes `a`, `b`): `r` of frame f reads it and `w` of frame f+1 writes the same buffer, and nothing orders them",
            "no chain of `after` dependencies or FIFO order leads from `r` to `w`",
            "add `after = [\"r@-1\"]` to `w`",
        ],
    );
    // With the back edge both ways are ordered.
    let text = text.replace(
        "writes = [\"buf\"]",
        "writes = [\"buf\"]\nafter = [\"r@-1\"]",
    );
    fx.ok(&text);
}

/// Covers: REQ-SCH-005
#[test]
fn race_ordered_by_same_engine_fifo_is_accepted() {
    let fx = Fixture::new();
    fx.ok(&with_header(
        &two_cpu_tasks().replace("engine = \"cpu1\"", "engine = \"cpu0\""),
    ));
    // Also on a GPU stream: both kernels on gpu0, in frame and across frames.
    let text = with_header(
        &[
            raw_buffer("buf", 64),
            gpu_task("g1", &[r#"writes = ["buf"]"#]),
            gpu_task("g2", &[r#"reads = ["buf"]"#]),
        ]
        .concat(),
    );
    fx.ok(&text);
}

/// [`with_header`] with a second GPU engine, `gpu1` on stream 1, then `body`.
fn with_two_gpus(body: &str) -> String {
    with_header(body).replace(
        r#"gpu = [{ name = "gpu0", stream = 0 }]"#,
        r#"gpu = [{ name = "gpu0", stream = 0 }, { name = "gpu1", stream = 1 }]"#,
    )
}

/// `g_read` on `gpu1`, reading `buf`, with `line`.
fn gpu1_reader(line: &str) -> String {
    task("g_read", "gpu1", &[r#"reads = ["buf"]"#, line]) + GPU_TASK
}

/// `g_read` (gpu1) reads `buf`, `a` (cpu0) waits for it, `b` runs after `a` on cpu0, and
/// `g_write` (gpu0) writes `buf` after `b`. A CPU task's signal waits for its own `after`
/// entries only (REQ-RT-019): when `a` gives up on `g_read`, `b` still signals, so the
/// worker's order orders no accelerator access. A CPU access after the same chain is ordered
/// (its body runs after `a`'s).
///
/// Covers: REQ-SCH-005, REQ-RT-019
#[test]
fn a_worker_order_does_not_order_accelerator_accesses() {
    let fx = Fixture::new();
    let header = with_two_gpus("");
    let body = [
        raw_buffer("buf", 64),
        gpu1_reader(r#"after = ["g_write@-1"]"#),
        cpu_task("a", "cpu0", "1ms", &[r#"after = ["g_read"]"#]),
        cpu_task("b", "cpu0", "1ms", &[]),
        gpu_task("g_write", &[r#"writes = ["buf"]"#, r#"after = ["b"]"#]),
    ]
    .concat();
    let text = format!("{header}{body}");
    let (d, s) = fx.rejects(
        &text,
        &[
            "buffer race on `buf` within a frame (modes `a`, `b`): `g_write` writes it and `g_read` reads it, and nothing orders them",
            "a CPU worker's task order is no order",
            "help: add `after = [\"g_write\"]` to `g_read`",
        ],
    );
    assert_eq!(d.error_count(), 1, "{s}");
    // `b` waiting for `a` is a chain of waits.
    fx.ok(&text.replace(
        "name = \"b\"\nengine = \"cpu0\"",
        "name = \"b\"\nengine = \"cpu0\"\nafter = [\"a\"]",
    ));
    // A CPU task's write after the same worker order is ordered.
    let cpu_writer = body.replace(
        &gpu_task("g_write", &[r#"writes = ["buf"]"#, r#"after = ["b"]"#]),
        &cpu_task(
            "g_write",
            "cpu0",
            "1ms",
            &[r#"writes = ["buf"]"#, r#"after = ["b"]"#],
        ),
    );
    fx.ok(&format!("{header}{cpu_writer}"));
}

/// At a switch from `a` to `b`: `g_read` (gpu1, mode `a`) reads `buf`, `a_cpu` (cpu0, mode
/// `a`) waits for it; in mode `b`, `b_cpu` (cpu0) runs first on the worker and `g_write`
/// (gpu0) writes `buf` after it. Only the worker's order (last task of `a` before the first
/// of `b`) would order `g_read` of frame s-1 before `g_write` of frame s, and it orders no
/// accelerator access; a wait of `b_cpu` for `a_cpu@-1` does.
///
/// Covers: REQ-SCH-005
#[test]
fn a_worker_order_does_not_order_accelerator_accesses_across_a_switch() {
    let fx = Fixture::new();
    let header = with_two_gpus("");
    let body = [
        raw_buffer("buf", 64),
        gpu1_reader(r#"modes = ["a"]"#),
        cpu_task(
            "a_cpu",
            "cpu0",
            "1ms",
            &[r#"after = ["g_read"]"#, r#"modes = ["a"]"#],
        ),
        cpu_task("b_cpu", "cpu0", "1ms", &[r#"modes = ["b"]"#]),
        gpu_task(
            "g_write",
            &[
                r#"writes = ["buf"]"#,
                r#"after = ["b_cpu"]"#,
                r#"modes = ["b"]"#,
            ],
        ),
        health(
            "task_error",
            "switch_mode",
            &[r#"task = "a_cpu""#, r#"mode = "b""#],
        ),
    ]
    .concat();
    let text = format!("{header}{body}");
    let (d, s) = fx.rejects(
        &text,
        &["buffer race on `buf` when mode `a` switches to `b`: `g_read` of frame s-1 (mode `a`) reads it and `g_write` of frame s (mode `b`) writes the same buffer"],
    );
    assert_eq!(d.error_count(), 1, "{s}");
    fx.ok(&text.replace(
        "name = \"b_cpu\"\nengine = \"cpu0\"",
        "name = \"b_cpu\"\nengine = \"cpu0\"\nafter = [\"a_cpu@-1\"]",
    ));
}

/// Covers: REQ-SCH-005
#[test]
fn multiplicity_two_needs_a_chain_within_two_frames() {
    let fx = Fixture::new();
    let base = edited(
        &two_cpu_tasks(),
        &[
            ("size = 64", "size = 64\nmultiplicity = 2"),
            ("reads = [\"buf\"]", "reads = [\"buf\"]\nafter = [\"w\"]"),
        ],
    );
    let back = |k: u32| {
        base.replace(
            "writes = [\"buf\"]",
            &format!("writes = [\"buf\"]\nafter = [\"r@-{k}\"]"),
        )
    };
    // No chain back from `r` to `w`: frame f+2 reuses frame f's copy, unordered.
    fx.rejects(
        &with_header(&base),
        &[
            "buffer race on `buf` across frames (modes `a`, `b`): `r` of frame f reads it and `w` of frame f+2 writes the same copy (multiplicity 2)",
            "add `after = [\"r@-2\"]` to `w`",
        ],
    );
    // A chain of distance 3 is not enough for two copies; the help names multiplicity 4 (the
    // runtime takes 1, 2 or 4).
    let far = back(3);
    fx.rejects(
        &with_header(&far),
        &[
            "the shortest chain orders `r` of frame f only before `w` of frame f+3",
            "or raise `multiplicity` of `buf` to 4",
        ],
    );
    fx.ok(&with_header(
        &far.replace("multiplicity = 2", "multiplicity = 4"),
    ));
    // Distance 2 with two copies: accepted (and distance 1 a fortiori).
    fx.ok(&with_header(&back(2)));
    fx.ok(&with_header(&back(1)));
}

/// Covers: REQ-SCH-005
#[test]
fn races_are_checked_per_mode() {
    let fx = Fixture::new();
    // `r` and `w2` only share mode `b`, where nothing orders them; `w` is ordered in both.
    let text = with_header(
        &[
            raw_buffer("buf", 64),
            cpu_task(
                "w",
                "cpu0",
                "1ms",
                &[r#"writes = ["buf"]"#, r#"modes = ["a"]"#],
            ),
            cpu_task(
                "w2",
                "cpu1",
                "1ms",
                &[r#"writes = ["buf"]"#, r#"modes = ["b"]"#],
            ),
            cpu_task("r", "cpu0", "1ms", &[r#"reads = ["buf"]"#]),
        ]
        .concat(),
    );
    let (d, s) = fx.rejects(
        &text,
        &["buffer race on `buf` within a frame (mode `b`): `w2` writes it and `r` reads it"],
    );
    assert!(!s.contains("mode `a`"), "{s}");
    assert_eq!(d.error_count(), 1, "{s}");
    // Tasks of disjoint modes never race.
    fx.ok(&text.replace("reads = [\"buf\"]", "reads = [\"buf\"]\nmodes = [\"a\"]"));
}

/// Covers: REQ-SCH-005
#[test]
fn dependencies_on_tasks_outside_the_mode_give_no_order() {
    let fx = Fixture::new();
    // In mode `b`, `r`'s dependency on `w` (mode `a` only) does not order `w2` and `r`.
    let text = with_header(
        &[
            raw_buffer("buf", 64),
            cpu_task("w", "cpu0", "1ms", &[r#"modes = ["a"]"#]),
            cpu_task(
                "w2",
                "cpu1",
                "1ms",
                &[r#"writes = ["buf"]"#, r#"after = ["r@-1"]"#],
            ),
            cpu_task(
                "r",
                "cpu0",
                "1ms",
                &[r#"reads = ["buf"]"#, r#"after = ["w", "w2"]"#],
            ),
        ]
        .concat(),
    );
    fx.ok(&text);
    fx.rejects(
        &text.replace("after = [\"w\", \"w2\"]", "after = [\"w\"]"),
        &["buffer race on `buf` within a frame (modes `a`, `b`): `w2` writes it and `r` reads it"],
    );
}

/// Covers: REQ-SCH-006
#[test]
fn infeasible_timelines_name_the_chain() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            cpu_task("s", "cpu0", "4ms", &[r#"modes = ["a"]"#]),
            cpu_task(
                "t",
                "cpu1",
                "4ms",
                &[r#"after = ["s"]"#, r#"modes = ["a"]"#],
            ),
            cpu_task(
                "u",
                "cpu0",
                "3ms",
                &[
                    r#"after = ["t"]"#,
                    r#"deadline = "9ms""#,
                    r#"modes = ["a"]"#,
                ],
            ),
        ]
        .concat(),
    );
    let (d, s) = fx.rejects(
        &text,
        &[
            "task `u` can finish at 11.000ms in mode `a`, after its deadline 9.000ms",
            "worst-case chain: `s` (cpu0, 0.000ms → 4.000ms) → `t` (cpu1, 4.000ms → 8.000ms) → `u` (cpu0, 8.000ms → 11.000ms)",
        ],
    );
    assert!(points_at(&d.0[0], &text, "\"9ms\"", 0), "{s}");
    // A release offset starts the chain; the default deadline is the period.
    let text = with_header(&cpu_task("x", "cpu0", "3ms", &[r#"release = "8ms""#]));
    fx.rejects(
        &text,
        &[
            "task `x` can finish at 11.000ms in mode `a`, after its deadline 10.000ms",
            "release at 8.000ms → `x`",
        ],
    );
}

/// Covers: REQ-SCH-007
#[test]
fn minor_frames_place_cpu_releases() {
    let fx = Fixture::new();
    let text = with_header(&cpu_task(
        "x",
        "cpu0",
        "1ms",
        &["minor_frame = 1", r#"release = "1ms""#],
    ))
    .replace(
        "lookahead = 1",
        "lookahead = 1\nminor_frames = [\"0ms\", \"4ms\", \"6ms\"]",
    );
    let report = fx.ok(&text);
    assert_eq!(report.modes[0].tasks[0].latest_start_ns, 5_000_000);
    fx.rejects(
        &text.replace("release = \"1ms\"", "release = \"3ms\""),
        &["`release` 3.000ms of task `x` is beyond minor frame 1 (4.000ms..6.000ms)"],
    );
    fx.rejects(
        &text.replace("minor_frame = 1", "minor_frame = 3"),
        &["minor frame 3 does not exist (the period has 3 minor frames, numbered from 0)"],
    );
    fx.rejects(
        &text.replace(
            "[\"0ms\", \"4ms\", \"6ms\"]",
            "[\"1ms\", \"4ms\", \"4ms\", \"12ms\"]",
        ),
        &[
            "the first minor frame must start at 0",
            "minor frame offsets must increase",
            "minor frame offset 12.000ms is not within the period 10.000ms",
        ],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn dla_bindings_are_checked_against_the_loadable() {
    let fx = Fixture::new();
    let dla = |inb: &str, outb: &str| {
        [
            buffer("i", "tensor", &[]),
            buffer(
                "t16",
                "tensor",
                &[r#"data_type = "int8""#, "dims = [1, 1, 4, 4]"],
            ),
            raw_buffer("small", 100),
            buffer("pin", "pinned", &["size = 256"]),
            dla_task("d", inb, outb, &[]),
        ]
        .concat()
    };
    fx.rejects(
        &with_header(&dla("i", "t16")),
        &[
            "tensor buffer `t16` holds 16 bytes (1x1x4x4), but tensor `out` of task `d` takes 256 bytes (its layout pads lines)",
            "declare it as kind = \"raw\", size = 256",
        ],
    );
    fx.rejects(
        &with_header(&dla("i", "small")),
        &["buffer `small` has 100 bytes, but task `d` binds it to tensor `out` of 256 bytes"],
    );
    fx.rejects(
        &with_header(&dla("i", "pin")),
        &["buffer `pin` is pinned host memory, but DLA task `d` binds it to tensor `out`"],
    );
    fx.rejects(
        &with_header(&dla("t16", "pin")),
        &[
            "buffer `t16` is int8 [1, 1, 4, 4], but task `d` binds it to tensor `in`, which is int8 [1, 1, 8, 64]",
        ],
    );
    // `i` takes its dims from the binding; alignment defaults to 512 for DLA buffers.
    let body = dla("i", "pin").replace(
        "name = \"pin\"\nkind = \"pinned\"",
        "name = \"pin\"\nkind = \"raw\"",
    );
    let report = fx.ok(&with_header(&body));
    let desc: Vec<String> = report
        .buffers
        .iter()
        .map(|(n, d)| format!("{n}: {d}"))
        .collect();
    assert!(
        desc.contains(&"i: tensor int8 1x1x8x64, align 512".to_owned()),
        "{desc:?}"
    );
    assert!(
        desc.contains(&"pin: raw 256 B, align 512".to_owned()),
        "{desc:?}"
    );
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.message == "buffer `t16` is not used by any task"),
        "{report}"
    );
    // A DLA task touches only bound buffers.
    fx.rejects(
        &with_header(&body.replace("wcet = \"1ms\"", "wcet = \"1ms\"\nreads = [\"small\"]")),
        &["DLA task `d` lists `small` in `reads` but binds it to none of its `inputs`"],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn artifacts_are_hashed_and_matched_to_the_profile() {
    let fx = Fixture::new();
    let text = with_header(&gpu_task("g", &[]));
    fx.ok(&text);
    // orin needs an sm_87 variant.
    let sha90 = common::sha(&std::fs::read(fx.dir.join("manifests/bin/k.sm_90.cubin")).unwrap());
    std::fs::write(
        fx.dir.join("manifests/k90.toml"),
        format!("[[cubin]]\nname = \"k\"\nfile = \"bin/k.sm_90.cubin\"\nsm = 90\nsha256 = \"{sha90}\"\nkernels = [\"copy\"]\n"),
    )
    .unwrap();
    let orin = edited(
        &text,
        &[
            ("profile = \"sil\"", "profile = \"orin\""),
            ("kernels.toml", "k90.toml"),
        ],
    );
    fx.rejects(
        &orin,
        &[
            "cubin `k` has no sm_87 variant, which profile `orin` needs",
            "the kernels manifest has: sm_90",
        ],
    );
    fx.ok(&orin.replace("profile = \"orin\"", "profile = \"rig\""));
    // A file that does not match its manifest hash.
    std::fs::write(fx.dir.join("manifests/bin/k.sm_90.cubin"), b"tampered").unwrap();
    let (d, _) = fx.rejects(
        &text,
        &[
            "k.sm_90.cubin` does not match its sha256 in the manifest",
            "manifests/kernels.toml:",
        ],
    );
    assert!(d.0[0].file.ends_with("manifests/kernels.toml"));
}

/// Covers: REQ-SCH-012, REQ-SCH-002
#[test]
fn health_rules_are_checked() {
    let fx = Fixture::new();
    let text = with_header(
        &[
            cpu_task("x", "cpu0", "1ms", &[]),
            health("deadline_miss", "log", &[]),
            health("deadline_miss", "safe_stop", &[r#"task = "x""#]),
            health(
                "engine_error",
                "log",
                &[r#"engine = "cpu0""#, r#"task = "x""#],
            ),
            health("task_error", "switch_mode", &[]),
            health("fence_timeout", "log", &[r#"mode = "b""#]),
            health("budget_overrun", "reboot", &[]),
        ]
        .concat(),
    );
    fx.rejects(
        &text,
        &[
            "this `deadline_miss` rule never applies: the rule at line",
            "the first matching rule wins: put the more specific rule first",
            "a `[[health]]` rule names a `task` or an `engine`, not both",
            "`switch_mode` needs `mode = \"...\"`",
            "`mode` is only for `action = \"switch_mode\"`",
            "unknown action `reboot`",
        ],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn missing_top_level_keys_and_unknown_profile() {
    let fx = Fixture::new();
    fx.rejects(
        "profile = \"pc\"\nperiods = \"10ms\"\n",
        &[
            "the schedule has no `name`",
            "unknown profile `pc`",
            "expected one of: `orin`, `rig`, `sil`",
            "the schedule has no `period`",
            "unknown key `periods` in the schedule",
            "did you mean `period`?",
            "the schedule has no `[engines]` table",
        ],
    );
}

/// Covers: REQ-SCH-002
#[test]
fn malformed_documents_never_panic() {
    let fx = Fixture::new();
    let snippets = [
        "task = [1, 2]",
        "task = \"x\"",
        "buffer = 3",
        "health = [{ fault = 1 }]",
        "[[task]]\nname = 5",
        "[[task]]\nname = \"a\"\nengine = [\"cpu0\"]\nwcet = {}\nafter = \"b\"\nreads = [1]",
        "[[task]]\nname = \"a\"\nengine = \"cpu0\"\nwcet = \"18446744073709551615ns\"\nrelease = \"18446744073709551615ns\"",
        "[[task]]\nname = \"a\"\nengine = \"gpu0\"\nwcet = 1\ncubin = \"k\"\nkernel = \"scale\"\ngrid = [1, 2, 3, 4]\nblock = \"x\"\nparams = [1, {}, { u32 = -1 }, { f32 = \"x\" }, { buffer = 2 }, { u8 = 1, u32 = 2 }]",
        "[[task]]\nname = \"a\"\nengine = \"dla0\"\nwcet = 1\nloadable = \"net\"\ninputs = [\"x\"]\noutputs = { out = 1 }",
        "[[buffer]]\nname = \"b\"\nkind = \"tensor\"\ndims = [1, 2]\ndata_type = \"int4\"\nmultiplicity = 0",
        "[[buffer]]\nkind = \"raw\"",
        "[engines.x]",
        "when = 1979-05-27T07:32:00Z",
    ];
    for body in snippets {
        let text = with_header(body);
        if let Err(d) = fx.check(&text) {
            assert!(d.error_count() > 0, "{d}");
        }
    }
    for text in [
        "",
        "name = \"x\"",
        "period = 1\nminor_frames = 0",
        "[engines]\ncpu = 1",
        "lookahead = 2",
    ] {
        let d = fx.check(text).unwrap_err();
        assert!(d.error_count() > 0, "{d}");
    }
}

/// A kernels manifest next to the fixture's that lists module `k`'s kernels by name only (no
/// parameter kinds), plus `extra` kernel names; the schedule text then names it.
fn names_only_manifest(fx: &Fixture, text: &str, extra: &[&str]) -> String {
    let mut names = vec!["\"scale\"".to_owned(), "\"copy\"".to_owned()];
    names.extend(extra.iter().map(|n| format!("\"{n}\"")));
    let mut manifest = String::new();
    for sm in [87, 90] {
        let file = format!("bin/k.sm_{sm}.cubin");
        let sha = common::sha(&std::fs::read(fx.dir.join("manifests").join(&file)).unwrap());
        manifest += &format!(
            "[[cubin]]\nname = \"k\"\nfile = \"{file}\"\nsm = {sm}\nsha256 = \"{sha}\"\nkernels = [{}]\n",
            names.join(", ")
        );
    }
    std::fs::write(fx.dir.join("manifests/names.toml"), manifest).unwrap();
    text.replace("kernels.toml", "names.toml")
}

/// Buffers `a` and `b` and a GPU task `g` launching the fixture's `scale` with `params`.
fn scale_task(params: &str) -> String {
    let g = task(
        "g",
        "gpu0",
        &[
            r#"cubin = "k""#,
            r#"kernel = "scale""#,
            "grid = 1",
            "block = 32",
            params,
            r#"wcet = "1ms""#,
            r#"reads = ["a"]"#,
            r#"writes = ["b"]"#,
        ],
    );
    [raw_buffer("a", 64), raw_buffer("b", 64), g].concat()
}

/// Covers: REQ-GPU-014, REQ-SCH-002
#[test]
fn kernel_params_are_checked_against_the_cubin_layout() {
    let fx = Fixture::new();
    let body = scale_task;
    let good = r#"params = [{ buffer = "a" }, { buffer = "b" }, { u32 = 16 }, { f32 = 2.0 }]"#;
    // Without declared kinds the cubin alone decides, and the right layout passes.
    let text = names_only_manifest(&fx, &with_header(&body(good)), &[]);
    fx.ok(&text);
    // A u64 where the cubin records a 4-byte parameter: the parameter index, the kernel, the
    // cubin's layout, and the position of the offending value.
    let wide = good.replace("{ u32 = 16 }", "{ u64 = 16 }");
    let text = names_only_manifest(&fx, &with_header(&body(&wide)), &[]);
    let (d, s) = fx.rejects(
        &text,
        &[
            "parameter 2 of kernel `scale` is 4 bytes in the cubin (offset 16), but task `g` passes `{ u64 = 16 }` (8 bytes)",
            "the cubin's `.nv.info.scale` records: #0: 8 bytes at offset 0, #1: 8 bytes at offset 8, #2: 4 bytes at offset 16, #3: 4 bytes at offset 20",
        ],
    );
    assert!(
        d.iter().any(|x| points_at(x, &text, "{ u64 = 16 }", 0)),
        "{s}"
    );
    // A missing parameter.
    let short = r#"params = [{ buffer = "a" }, { buffer = "b" }, { u32 = 16 }]"#;
    let text = names_only_manifest(&fx, &with_header(&body(short)), &[]);
    fx.rejects(
        &text,
        &["kernel `scale` takes 4 parameters (from its cubin), but task `g` passes 3"],
    );
    // A buffer address where the cubin has a 4-byte value.
    let swapped =
        r#"params = [{ buffer = "a" }, { buffer = "b" }, { buffer = "a" }, { f32 = 2.0 }]"#;
    let text = names_only_manifest(&fx, &with_header(&body(swapped)), &[]);
    fx.rejects(
        &text,
        &["parameter 2 of kernel `scale` is 4 bytes in the cubin (offset 16), but task `g` passes a buffer address (8 bytes)"],
    );
    // Parameters for a kernel that takes none.
    let copy = gpu_task("c", &[]).replace("grid = 1", "params = [{ u32 = 1 }]\ngrid = 1");
    fx.rejects(
        &with_header(&copy),
        &["kernel `copy` takes 0 parameters (from its cubin), but task `c` passes 1"],
    );
}

/// Covers: REQ-GPU-014
#[test]
fn a_kernel_the_manifest_lists_but_the_cubin_lacks_is_rejected() {
    let fx = Fixture::new();
    let text = names_only_manifest(
        &fx,
        &with_header(&gpu_task("g", &[]).replace("kernel = \"copy\"", "kernel = \"ghost\"")),
        &["ghost"],
    );
    fx.rejects(
        &text,
        &["k.sm_87.cubin` (sm_87) has no kernel `ghost`; it exports: `copy`, `scale`"],
    );
}

/// Covers: REQ-GPU-014
#[test]
fn manifest_kinds_that_disagree_with_the_cubin_are_rejected() {
    let fx = Fixture::new();
    // The fixture manifest declares `scale(ptr, ptr, u32, f32)`; declare a u64 instead.
    let kernels = std::fs::read_to_string(fx.dir.join("manifests/kernels.toml")).unwrap();
    std::fs::write(
        fx.dir.join("manifests/kernels.toml"),
        kernels.replace(r#""u32", "f32""#, r#""u64", "f32""#),
    )
    .unwrap();
    let text = with_header(&scale_task(
        r#"params = [{ buffer = "a" }, { buffer = "b" }, { u64 = 16 }, { f32 = 2.0 }]"#,
    ));
    fx.rejects(
        &text,
        &["parameter 2 of kernel `scale` is 4 bytes in the cubin (offset 16)"],
    );
}

/// Covers: REQ-SCH-016
#[test]
fn submit_is_a_gpu_engine_choice_of_stream_or_graph() {
    let fx = Fixture::new();
    let body = gpu_task("g1", &[]);
    let gpu = "{ name = \"gpu0\", stream = 0 }";
    for mode in ["stream", "graph"] {
        fx.ok(&with_header(&body).replace(
            gpu,
            &format!("{{ name = \"gpu0\", stream = 0, submit = \"{mode}\" }}"),
        ));
    }
    fx.rejects(
        &with_header(&body).replace(gpu, "{ name = \"gpu0\", stream = 0, submit = \"batch\" }"),
        &[
            "`submit` of engine `gpu0`: unknown mode `batch`",
            "write `submit = \"stream\"` (the default) or `submit = \"graph\"`",
        ],
    );
    for (from, to, name, kind) in [
        (
            "{ name = \"cpu0\" }",
            "{ name = \"cpu0\", submit = \"graph\" }",
            "cpu0",
            "CPU",
        ),
        (
            "{ name = \"dla0\", core = 0 }",
            "{ name = \"dla0\", core = 0, submit = \"graph\" }",
            "dla0",
            "DLA",
        ),
    ] {
        fx.rejects(
            &with_header(&body).replace(from, to),
            &[
                &format!(
                    "`submit` of engine `{name}`: only GPU engines choose how their work is submitted, this is a {kind} engine"
                ),
                "remove `submit`, or move the engine to `engines.gpu`",
            ],
        );
    }
}

/// The validator refuses a GPU engine whose stream would hold more operations than
/// `Schedule::check` allows (the compile-time check of the generated tables), with the same
/// count: 4 per task plus one per `after` entry, per frame in flight.
///
/// Covers: REQ-PERF-002
#[test]
fn a_gpu_stream_holds_at_most_768_operations() {
    let fx = Fixture::new();
    let text = |gpu_tasks: usize| {
        let cpu: String = (0..12)
            .map(|i| cpu_task(&format!("c{i}"), "cpu0", "10us", &[]))
            .collect();
        let deps: Vec<String> = (0..12).map(|i| format!("\"c{i}\"")).collect();
        let after = format!("after = [{}]", deps.join(", "));
        let gpu: String = (0..gpu_tasks)
            .map(|i| gpu_task(&format!("g{i}"), &[&after]).replace("\"1ms\"", "\"10us\""))
            .collect();
        edited(
            &with_header(&(cpu + &gpu)),
            &[
                (
                    "{ name = \"gpu0\", stream = 0 }",
                    "{ name = \"gpu0\", stream = 0, queue_capacity = 64 }",
                ),
                (
                    "{ name = \"cpu0\" }",
                    "{ name = \"cpu0\", queue_capacity = 32 }",
                ),
            ],
        )
    };
    // 24 tasks x (4 + 12 waits) x 2 frames = 768: the limit itself.
    fx.ok(&text(24));
    fx.rejects(
        &text(25),
        &[
            "GPU engine `gpu0` would hold 800 stream operations (400 per frame × (1 + lookahead 1)), more than the 768 a stream's queue takes",
            "move tasks to another GPU engine",
        ],
    );
}
