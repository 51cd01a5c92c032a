//! The validator: every rejection class with its message, the race rules, the timeline, and
//! the complete example of docs/schedule.md.

mod common;

use common::{Fixture, aeb_signatures, docs_example, docs_example_path, options, with_header};
use orin_exec_schedule::Options;

/// Asserts that every fragment occurs in the rendered diagnostics.
fn assert_has(rendered: &str, fragments: &[&str]) {
    for f in fragments {
        assert!(rendered.contains(f), "missing {f:?} in:\n{rendered}");
    }
}

/// 1-based line of the first occurrence of `needle` in `text`, and its column.
fn pos(text: &str, needle: &str) -> (usize, usize) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the schedule"));
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

const TWO_CPU_TASKS: &str = r#"
[[buffer]]
name = "buf"
kind = "raw"
size = 64

[[task]]
name = "w"
engine = "cpu0"
wcet = "1ms"
writes = ["buf"]

[[task]]
name = "r"
engine = "cpu1"
wcet = "1ms"
reads = ["buf"]
"#;

#[test]
fn docs_example_is_valid_and_prints_its_timeline() {
    let text = docs_example();
    let opts = Options {
        signatures: aeb_signatures(),
        ..options()
    };
    let report = orin_exec_schedule::check_str(&docs_example_path(), &text, &opts)
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
    let opts = Options {
        signatures: aeb_signatures(),
        ..options()
    };
    let shown = |s: String| {
        s.replace(
            &docs_example_path().display().to_string(),
            "examples/aeb/schedule.toml",
        )
    };
    let report =
        orin_exec_schedule::check_str(&docs_example_path(), &docs_example(), &opts).unwrap();
    assert_eq!(
        block("`orin-exec check examples/aeb/schedule.toml` prints:"),
        shown(report.to_string())
    );
    let broken = docs_example().replace(
        "after = [\"preprocess\", \"decision@-1\"]",
        "after = [\"preprocess\"]",
    );
    let d = orin_exec_schedule::check_str(&docs_example_path(), &broken, &opts).unwrap_err();
    assert_eq!(block("## Diagnostics"), shown(d.to_string()) + "\n");
}

#[test]
fn docs_example_param_kinds_are_checked_against_signatures() {
    let text = docs_example().replacen("{ u32 = 128 }", "{ f32 = 128.0 }", 1);
    let opts = Options {
        signatures: aeb_signatures(),
        ..options()
    };
    let d = orin_exec_schedule::check_str(&docs_example_path(), &text, &opts)
        .unwrap_err()
        .to_string();
    assert_has(
        &d,
        &[
            "kernel parameter is `u32` in the kernel's signature, but task `preprocess` passes `f32`",
        ],
    );
}

#[test]
fn syntax_errors_have_line_and_column() {
    let fx = Fixture::new();
    let text = with_header("[[task]]\nname = \"x\"\nwcet = \n");
    let (d, s) = fx.errors(&text);
    assert_eq!(d.error_count(), 1);
    assert_has(&s, &["error: TOML syntax:", "schedule.toml:"]);
    assert!(d.0[0].line > 10, "{s}");
}

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

#[test]
fn unknown_names_are_reported_with_suggestions() {
    let fx = Fixture::new();
    let text = with_header(
        r#"
[[buffer]]
name = "img"
kind = "tensor"

[[buffer]]
name = "res"
kind = "raw"
size = 256

[[task]]
name = "s"
engine = "cpu0"
wcet = "1ms"
writes = ["imgg"]
modes = ["c"]

[[task]]
name = "g"
engine = "gpu0"
cubin = "kk"
kernel = "copy"
grid = 1
block = 1
wcet = "1ms"
after = ["ss"]

[[task]]
name = "h"
engine = "gpu0"
cubin = "k"
kernel = "scal"
grid = 1
block = 1
wcet = "1ms"

[[task]]
name = "d"
engine = "dla0"
loadable = "nett"
wcet = "1ms"

[[task]]
name = "e"
engine = "dla0"
loadable = "net"
inputs = { inn = "img" }
outputs = { out = "res" }
wcet = "1ms"
"#,
    );
    let (d, s) = fx.errors(&text);
    assert_has(
        &s,
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
            "unknown loadable `nett`",
            "did you mean `net`?",
            "loadable `net` has no input tensor `inn`",
            "did you mean `in`?",
            "DLA task `e` binds no buffer to input tensor `in`",
        ],
    );
    assert!(d.error_count() >= 8, "{s}");
    let (line, col) = pos(&text, "\"kk\"");
    assert!(
        d.iter()
            .any(|x| x.message.contains("`kk`") && (x.line, x.column) == (line, col)),
        "{s}"
    );
}

#[test]
fn malformed_values_are_rejected() {
    let fx = Fixture::new();
    let text = with_header(
        r#"
[[buffer]]
name = "zero"
kind = "raw"
size = 0

[[buffer]]
name = "odd"
kind = "raw"
size = 64
align = 100

[[buffer]]
name = "t"
kind = "tensor"
dims = [1, 1, 8, 8]
data_type = "int8"

[[task]]
name = "s"
engine = "cpu0"
wcet = "1.5"
wcte = "1ms"
reads = ["t"]

[[task]]
name = "g"
engine = "gpu0"
cubin = "k"
kernel = "scale"
grid = [0, 1]
block = [32, 64]
params = [{ buffer = "t" }, { buffer = "t" }, { u32 = 1 }]
wcet = "1ms"
reads = ["t"]
"#,
    );
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
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
    let text = text
        .replace("grid = [0, 1]", "grid = 1")
        .replace("block = [32, 64]", "block = 32");
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "kernel `scale` takes 4 parameters, but task `g` passes 3",
            "signature: (buffer, buffer, u32, f32)",
        ],
    );
    let text = text.replace("{ u32 = 1 }]", "{ u32 = 1 }, { u32 = 2 }]");
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
        &["kernel parameter is `f32` in the kernel's signature, but task `g` passes `u32`"],
    );
}

#[test]
fn wrong_engine_kind_fields_and_timing_fields_are_rejected() {
    let fx = Fixture::new();
    let text = with_header(
        r#"
[[buffer]]
name = "b"
kind = "raw"
size = 64

[[task]]
name = "s"
engine = "cpu0"
cubin = "k"
wcet = "1ms"
writes = ["b"]

[[task]]
name = "g"
engine = "gpu0"
release = "1ms"
loadable = "net"
cubin = "k"
kernel = "copy"
grid = 1
block = 1
wcet = "1ms"
after = ["s"]

[[task]]
name = "late"
engine = "cpu1"
wcet = "1ms"
deadline = "12ms"

[[task]]
name = "r"
engine = "cpu1"
wcet = "1ms"
release = "5ms"
deadline = "5ms"

[[task]]
name = "bud"
engine = "cpu1"
wcet = "2ms"
budget = "1ms"

[[task]]
name = "s"
engine = "cpu1"
wcet = "1ms"
"#,
    );
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
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
    let (_, s) = fx.errors(text);
    assert_has(
        &s,
        &[
            "3 minor frames do not divide the period 10.000ms evenly",
            "engine `cpu0` is declared twice",
            "engines `dla0` and `dlaX` are both DLA core 0",
            "DLA engine `dla2`: core 2 does not exist on profile `orin` (2 available)",
            "task `p` runs on a PVA engine, but the schedule tables have no PVA work item yet",
        ],
    );
}

#[test]
fn many_independent_errors_are_collected() {
    let fx = Fixture::new();
    let text = with_header(
        r#"
[[task]]
name = "a"
engine = "nope"
wcet = "-1ms"

[[task]]
name = "b"
engine = "cpu0"
wcet = "1ms"
reads = ["missing"]

[[health]]
fault = "deadline_mis"
action = "log"
"#,
    );
    let (d, s) = fx.errors(&text);
    assert!(d.error_count() >= 4, "{s}");
    assert_has(
        &s,
        &[
            "unknown engine `nope`",
            "`-1ms` is not a valid duration: durations cannot be negative",
            "unknown buffer `missing`",
            "unknown fault `deadline_mis`",
            "did you mean `deadline_miss`?",
        ],
    );
}

#[test]
fn dependency_cycles_name_the_tasks_in_order() {
    let fx = Fixture::new();
    let text = with_header(
        r#"
[[task]]
name = "a"
engine = "cpu0"
wcet = "1ms"
after = ["c"]

[[task]]
name = "b"
engine = "cpu1"
wcet = "1ms"
after = ["a"]

[[task]]
name = "c"
engine = "cpu1"
wcet = "1ms"
after = ["b"]

[[task]]
name = "selfish"
engine = "cpu0"
wcet = "1ms"
after = ["selfish"]
"#,
    );
    let (d, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "dependency cycle within a frame: `a` → `b` → `c` → `a`",
            "task `selfish` waits for itself in the same frame",
            "to wait for its previous instance, write `after = [\"selfish@-1\"]`",
        ],
    );
    let (line, col) = pos(&text, "after = [\"c\"]");
    assert!(
        d.iter()
            .any(|x| x.message.contains("cycle") && (x.line, x.column) == (line, col + 9)),
        "{s}"
    );
    // A task may wait for its own previous instance.
    fx.ok(&with_header(
        "[[task]]\nname = \"x\"\nengine = \"cpu0\"\nwcet = \"1ms\"\nafter = [\"x@-1\"]\n",
    ));
}

const GPU_TASK: &str = "cubin = \"k\"\nkernel = \"copy\"\ngrid = 1\nblock = 1\nwcet = \"1ms\"\n";

#[test]
fn fifo_deadlocks_are_rejected() {
    let fx = Fixture::new();
    let text = with_header(&format!(
        "[[task]]\nname = \"g1\"\nengine = \"gpu0\"\nafter = [\"g2\"]\n{GPU_TASK}\n[[task]]\nname = \"g2\"\nengine = \"gpu0\"\n{GPU_TASK}"
    ));
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "FIFO deadlock in modes `a`, `b`: `g1` waits for `g2`, `g2` is queued after `g1` on `gpu0`",
            "declare the tasks on `gpu0` in dependency order",
        ],
    );
    // Through another engine: g1 (gpu0) → d (dla0) → ... → g0 queued before g1.
    let text = with_header(&format!(
        r#"
[[buffer]]
name = "i"
kind = "raw"
size = 64

[[buffer]]
name = "o"
kind = "raw"
size = 256

[[task]]
name = "g0"
engine = "gpu0"
after = ["d"]
{GPU_TASK}
[[task]]
name = "g1"
engine = "gpu0"
{GPU_TASK}
[[task]]
name = "d"
engine = "dla0"
loadable = "net"
inputs = {{ in = "i" }}
outputs = {{ out = "o" }}
wcet = "1ms"
after = ["g1"]
"#
    ));
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "FIFO deadlock",
            "`g0` waits for `d`",
            "`d` waits for `g1`",
            "is queued after `g0` on `gpu0`",
        ],
    );
}

#[test]
fn queue_capacity_counts_lookahead_frames() {
    let fx = Fixture::new();
    let text = with_header(&format!(
        "[[task]]\nname = \"g1\"\nengine = \"gpu0\"\n{GPU_TASK}\n[[task]]\nname = \"g2\"\nengine = \"gpu0\"\n{GPU_TASK}"
    ))
    .replace("{ name = \"gpu0\", stream = 0 }", "{ name = \"gpu0\", stream = 0, queue_capacity = 3 }");
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "engine `gpu0` can hold 4 tasks in mode `a` (2 per frame × (1 + lookahead 1)), but its `queue_capacity` is 3",
            "tasks on `gpu0`: `g1`, `g2`",
            "raise `queue_capacity` of `gpu0` to 4",
        ],
    );
    fx.ok(&text.replace("lookahead = 1", "lookahead = 0"));
}

#[test]
fn dla_tasks_wait_for_at_most_29_semaphores() {
    let fx = Fixture::new();
    let mut body = String::from(
        "[[buffer]]\nname = \"i\"\nkind = \"raw\"\nsize = 64\n\n[[buffer]]\nname = \"o\"\nkind = \"raw\"\nsize = 256\n",
    );
    let mut names = Vec::new();
    for k in 0..30 {
        body.push_str(&format!(
            "\n[[task]]\nname = \"c{k}\"\nengine = \"cpu{}\"\nwcet = \"100us\"\n",
            k % 2
        ));
        // (15 tasks per CPU worker: raise the default queue capacity of 8.)
        names.push(format!("\"c{k}\""));
    }
    let dla = |n: usize| {
        format!(
            "\n[[task]]\nname = \"d\"\nengine = \"dla0\"\nloadable = \"net\"\ninputs = {{ in = \"i\" }}\noutputs = {{ out = \"o\" }}\nwcet = \"1ms\"\nafter = [{}]\n",
            names[..n].join(", ")
        )
    };
    let big = |t: String| {
        t.replace(
            "{ name = \"cpu0\" }, { name = \"cpu1\" }",
            "{ name = \"cpu0\", queue_capacity = 16 }, { name = \"cpu1\", queue_capacity = 16 }",
        )
    };
    let (_, s) = fx.errors(&big(with_header(&format!("{body}{}", dla(30)))));
    assert_has(
        &s,
        &["DLA task `d` waits for 30 semaphores; cuDLA takes at most 29 pre-fences per task"],
    );
    fx.ok(&big(with_header(&format!("{body}{}", dla(29)))));
}

#[test]
fn semaphore_value_window_and_lag_syntax() {
    let fx = Fixture::new();
    let text = with_header(
        "[[task]]\nname = \"x\"\nengine = \"cpu0\"\nwcet = \"1ms\"\n\n[[task]]\nname = \"y\"\nengine = \"cpu0\"\nwcet = \"1ms\"\nafter = [\"x@-600\", \"x@-300\", \"x@+1\", \"x@-0\"]\n",
    );
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "task `y` waits for `x` 600 frames back; a semaphore keeps the timestamps of its last 512 values only",
            "`x@-300`: at most 255 frames back",
            "`x@+1`: the frame offset must be `@-k` with k ≥ 1",
            "`x@-0`: the frame offset must be `@-k`",
        ],
    );
}

#[test]
fn race_within_a_frame_is_rejected_with_a_fix() {
    let fx = Fixture::new();
    let text = with_header(TWO_CPU_TASKS);
    let (d, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "buffer race on `buf` within a frame (modes `a`, `b`): `w` writes it and `r` reads it, and nothing orders them",
            "`w` runs on `cpu0`, `r` on `cpu1`",
            "help: add `after = [\"w\"]` to `r`",
        ],
    );
    assert_eq!(d.error_count(), 1, "{s}");
    let (line, col) = pos(&text, "reads = [\"buf\"]");
    assert_eq!((d.0[0].line, d.0[0].column), (line, col + 9));
}

#[test]
fn race_ordered_by_after_needs_a_back_edge_across_frames() {
    let fx = Fixture::new();
    // In-frame ordered by `after`; across frames `w` of f+1 may overwrite `buf` while `r` of f reads.
    let text = with_header(
        &TWO_CPU_TASKS.replace("reads = [\"buf\"]", "reads = [\"buf\"]\nafter = [\"w\"]"),
    );
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
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

#[test]
fn race_ordered_by_same_engine_fifo_is_accepted() {
    let fx = Fixture::new();
    fx.ok(&with_header(
        &TWO_CPU_TASKS.replace("engine = \"cpu1\"", "engine = \"cpu0\""),
    ));
    // Also on a GPU stream: both kernels on gpu0, in frame and across frames.
    let text = with_header(&format!(
        "[[buffer]]\nname = \"buf\"\nkind = \"raw\"\nsize = 64\n\n[[task]]\nname = \"g1\"\nengine = \"gpu0\"\nwrites = [\"buf\"]\n{GPU_TASK}\n[[task]]\nname = \"g2\"\nengine = \"gpu0\"\nreads = [\"buf\"]\n{GPU_TASK}"
    ));
    fx.ok(&text);
}

#[test]
fn multiplicity_two_needs_a_chain_within_two_frames() {
    let fx = Fixture::new();
    let base = TWO_CPU_TASKS
        .replace("size = 64", "size = 64\nmultiplicity = 2")
        .replace("reads = [\"buf\"]", "reads = [\"buf\"]\nafter = [\"w\"]");
    // No chain back from `r` to `w`: frame f+2 reuses frame f's copy, unordered.
    let (_, s) = fx.errors(&with_header(&base));
    assert_has(
        &s,
        &[
            "buffer race on `buf` across frames (modes `a`, `b`): `r` of frame f reads it and `w` of frame f+2 writes the same copy (multiplicity 2)",
            "add `after = [\"r@-2\"]` to `w`",
        ],
    );
    // A chain of distance 3 is not enough for two copies; the help names multiplicity 3.
    let far = base.replace(
        "writes = [\"buf\"]",
        "writes = [\"buf\"]\nafter = [\"r@-3\"]",
    );
    let (_, s) = fx.errors(&with_header(&far));
    assert_has(
        &s,
        &[
            "the shortest chain orders `r` of frame f only before `w` of frame f+3",
            "or raise `multiplicity` of `buf` to 3",
        ],
    );
    fx.ok(&with_header(
        &far.replace("multiplicity = 2", "multiplicity = 3"),
    ));
    // Distance 2 with two copies: accepted (and distance 1 a fortiori).
    fx.ok(&with_header(&base.replace(
        "writes = [\"buf\"]",
        "writes = [\"buf\"]\nafter = [\"r@-2\"]",
    )));
    fx.ok(&with_header(&base.replace(
        "writes = [\"buf\"]",
        "writes = [\"buf\"]\nafter = [\"r@-1\"]",
    )));
}

#[test]
fn races_are_checked_per_mode() {
    let fx = Fixture::new();
    // `r` and `w2` only share mode `b`, where nothing orders them; `w` is ordered in both.
    let text = with_header(
        r#"
[[buffer]]
name = "buf"
kind = "raw"
size = 64

[[task]]
name = "w"
engine = "cpu0"
wcet = "1ms"
writes = ["buf"]
modes = ["a"]

[[task]]
name = "w2"
engine = "cpu1"
wcet = "1ms"
writes = ["buf"]
modes = ["b"]

[[task]]
name = "r"
engine = "cpu0"
wcet = "1ms"
reads = ["buf"]
"#,
    );
    let (d, s) = fx.errors(&text);
    assert_has(
        &s,
        &["buffer race on `buf` within a frame (mode `b`): `w2` writes it and `r` reads it"],
    );
    assert!(!s.contains("mode `a`"), "{s}");
    assert_eq!(d.error_count(), 1, "{s}");
    // Tasks of disjoint modes never race.
    fx.ok(&text.replace("reads = [\"buf\"]", "reads = [\"buf\"]\nmodes = [\"a\"]"));
}

#[test]
fn dependencies_on_tasks_outside_the_mode_give_no_order() {
    let fx = Fixture::new();
    // In mode `b`, `r`'s dependency on `w` (mode `a` only) does not order `w2` and `r`.
    let text = with_header(
        r#"
[[buffer]]
name = "buf"
kind = "raw"
size = 64

[[task]]
name = "w"
engine = "cpu0"
wcet = "1ms"
modes = ["a"]

[[task]]
name = "w2"
engine = "cpu1"
wcet = "1ms"
writes = ["buf"]
after = ["r@-1"]

[[task]]
name = "r"
engine = "cpu0"
wcet = "1ms"
reads = ["buf"]
after = ["w", "w2"]
"#,
    );
    fx.ok(&text);
    let (_, s) = fx.errors(&text.replace("after = [\"w\", \"w2\"]", "after = [\"w\"]"));
    assert_has(
        &s,
        &["buffer race on `buf` within a frame (modes `a`, `b`): `w2` writes it and `r` reads it"],
    );
}

#[test]
fn infeasible_timelines_name_the_chain() {
    let fx = Fixture::new();
    let text = with_header(
        r#"
[[task]]
name = "s"
engine = "cpu0"
wcet = "4ms"
modes = ["a"]

[[task]]
name = "t"
engine = "cpu1"
wcet = "4ms"
after = ["s"]
modes = ["a"]

[[task]]
name = "u"
engine = "cpu0"
wcet = "3ms"
after = ["t"]
deadline = "9ms"
modes = ["a"]
"#,
    );
    let (d, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "task `u` can finish at 11.000ms in mode `a`, after its deadline 9.000ms",
            "worst-case chain: `s` (cpu0, 0.000ms → 4.000ms) → `t` (cpu1, 4.000ms → 8.000ms) → `u` (cpu0, 8.000ms → 11.000ms)",
        ],
    );
    let (line, col) = pos(&text, "\"9ms\"");
    assert_eq!((d.0[0].line, d.0[0].column), (line, col));
    // A release offset starts the chain; the default deadline is the period.
    let text = with_header(
        "[[task]]\nname = \"x\"\nengine = \"cpu0\"\nrelease = \"8ms\"\nwcet = \"3ms\"\n",
    );
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "task `x` can finish at 11.000ms in mode `a`, after its deadline 10.000ms",
            "release at 8.000ms → `x`",
        ],
    );
}

#[test]
fn minor_frames_place_cpu_releases() {
    let fx = Fixture::new();
    let text = with_header(
        "[[task]]\nname = \"x\"\nengine = \"cpu0\"\nminor_frame = 1\nrelease = \"1ms\"\nwcet = \"1ms\"\n",
    )
    .replace("lookahead = 1", "lookahead = 1\nminor_frames = [\"0ms\", \"4ms\", \"6ms\"]");
    let report = fx.ok(&text);
    assert_eq!(report.modes[0].tasks[0].latest_start_ns, 5_000_000);
    let (_, s) = fx.errors(&text.replace("release = \"1ms\"", "release = \"3ms\""));
    assert_has(
        &s,
        &["`release` 3.000ms of task `x` is beyond minor frame 1 (4.000ms..6.000ms)"],
    );
    let (_, s) = fx.errors(&text.replace("minor_frame = 1", "minor_frame = 3"));
    assert_has(
        &s,
        &["minor frame 3 does not exist (the period has 3 minor frames, numbered from 0)"],
    );
    let (_, s) = fx.errors(&text.replace(
        "[\"0ms\", \"4ms\", \"6ms\"]",
        "[\"1ms\", \"4ms\", \"4ms\", \"12ms\"]",
    ));
    assert_has(
        &s,
        &[
            "the first minor frame must start at 0",
            "minor frame offsets must increase",
            "minor frame offset 12.000ms is not within the period 10.000ms",
        ],
    );
}

#[test]
fn dla_bindings_are_checked_against_the_loadable() {
    let fx = Fixture::new();
    let dla = |inb: &str, outb: &str| {
        format!(
            r#"
[[buffer]]
name = "i"
kind = "tensor"

[[buffer]]
name = "t16"
kind = "tensor"
data_type = "int8"
dims = [1, 1, 4, 4]

[[buffer]]
name = "small"
kind = "raw"
size = 100

[[buffer]]
name = "pin"
kind = "pinned"
size = 256

[[task]]
name = "d"
engine = "dla0"
loadable = "net"
inputs = {{ in = "{inb}" }}
outputs = {{ out = "{outb}" }}
wcet = "1ms"
"#
        )
    };
    let (_, s) = fx.errors(&with_header(&dla("i", "t16")));
    assert_has(
        &s,
        &[
            "tensor buffer `t16` holds 16 bytes (1x1x4x4), but tensor `out` of task `d` takes 256 bytes (its layout pads lines)",
            "declare it as kind = \"raw\", size = 256",
        ],
    );
    let (_, s) = fx.errors(&with_header(&dla("i", "small")));
    assert_has(
        &s,
        &["buffer `small` has 100 bytes, but task `d` binds it to tensor `out` of 256 bytes"],
    );
    let (_, s) = fx.errors(&with_header(&dla("i", "pin")));
    assert_has(
        &s,
        &["buffer `pin` is pinned host memory, but DLA task `d` binds it to tensor `out`"],
    );
    let (_, s) = fx.errors(&with_header(&dla("t16", "pin")));
    assert_has(
        &s,
        &[
            "buffer `t16` is int8 [1, 1, 4, 4], but task `d` binds it to tensor `in`, which is int8 [1, 1, 8, 8]",
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
        desc.contains(&"i: tensor int8 1x1x8x8, align 512".to_owned()),
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
    let (_, s) = fx.errors(&with_header(
        &body.replace("wcet = \"1ms\"", "wcet = \"1ms\"\nreads = [\"small\"]"),
    ));
    assert_has(
        &s,
        &["DLA task `d` lists `small` in `reads` but binds it to none of its `inputs`"],
    );
}

#[test]
fn artifacts_are_hashed_and_matched_to_the_profile() {
    use sha2::{Digest, Sha256};
    let fx = Fixture::new();
    let text = with_header(&format!(
        "[[task]]\nname = \"g\"\nengine = \"gpu0\"\n{GPU_TASK}"
    ));
    fx.ok(&text);
    // orin needs an sm_87 variant.
    let sha90: String = Sha256::digest(b"cubin sm_90")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::fs::write(
        fx.dir.join("manifests/k90.toml"),
        format!("[[cubin]]\nname = \"k\"\nfile = \"bin/k.sm_90.cubin\"\nsm = 90\nsha256 = \"{sha90}\"\nkernels = [\"copy\"]\n"),
    )
    .unwrap();
    let orin = text
        .replace("profile = \"sil\"", "profile = \"orin\"")
        .replace("kernels.toml", "k90.toml");
    let (_, s) = fx.errors(&orin);
    assert_has(
        &s,
        &[
            "cubin `k` has no sm_87 variant, which profile `orin` needs",
            "the kernels manifest has: sm_90",
        ],
    );
    fx.ok(&orin.replace("profile = \"orin\"", "profile = \"rig\""));
    // A file that does not match its manifest hash.
    std::fs::write(fx.dir.join("manifests/bin/k.sm_90.cubin"), b"tampered").unwrap();
    let (d, s) = fx.errors(&text);
    assert_has(
        &s,
        &[
            "k.sm_90.cubin` does not match its sha256 in the manifest",
            "manifests/kernels.toml:",
        ],
    );
    assert!(d.0[0].file.ends_with("manifests/kernels.toml"));
}

#[test]
fn health_rules_are_checked() {
    let fx = Fixture::new();
    let text = with_header(
        r#"
[[task]]
name = "x"
engine = "cpu0"
wcet = "1ms"

[[health]]
fault = "deadline_miss"
action = "log"

[[health]]
fault = "deadline_miss"
task = "x"
action = "safe_stop"

[[health]]
fault = "engine_error"
engine = "cpu0"
task = "x"
action = "log"

[[health]]
fault = "task_error"
action = "switch_mode"

[[health]]
fault = "fence_timeout"
action = "log"
mode = "b"

[[health]]
fault = "budget_overrun"
action = "reboot"
"#,
    );
    let (_, s) = fx.errors(&text);
    assert_has(
        &s,
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

#[test]
fn missing_top_level_keys_and_unknown_profile() {
    let fx = Fixture::new();
    let (_, s) = fx.errors("profile = \"pc\"\nperiods = \"10ms\"\n");
    assert_has(
        &s,
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
