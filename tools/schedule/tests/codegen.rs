//! Code generation: the output is stable, formatted by prettyplease, free of the generating
//! machine's paths when the package directory is known, and compiles against the
//! `orin-exec-table` crate (built here with rustc from `table/src/lib.rs`, the one crate of
//! table types that the runtime uses too).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    Fixture, buffer, cpu_task, dla_task, docs_example, docs_example_path, edited, options,
    raw_buffer, repo_root, scratch, task, with_header,
};
use orin_exec_schedule::{Options, render_str};

/// The generated items without the `//` header, and the header.
fn split_header(source: &str) -> (&str, &str) {
    let body = source
        .lines()
        .position(|l| !l.starts_with("//"))
        .map_or(source.len(), |n| {
            source.lines().take(n).map(|l| l.len() + 1).sum::<usize>()
        });
    (&source[body..], &source[..body])
}

/// The generated code is exactly what prettyplease prints for it: parsing it with `syn` and
/// printing it again gives it back (but for the blank line that separates the items), every
/// line of the header is a `//` comment, and items are separated by exactly one blank line.
fn assert_prettyplease_formatted(source: &str) {
    let (body, header) = split_header(source);
    assert!(
        header.lines().all(|l| l == "//" || l.starts_with("// ")),
        "header:\n{header}"
    );
    assert!(body.starts_with('\n') && !body[1..].starts_with('\n'));
    assert!(!body.contains("\n\n\n") && body.ends_with("];\n"), "{body}");
    let file = syn::parse_file(body).unwrap_or_else(|e| panic!("does not parse: {e}\n{body}"));
    let reprinted = prettyplease::unparse(&file);
    let without_blank_lines = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (ours, theirs) = (without_blank_lines(body), without_blank_lines(&reprinted));
    if let Some(i) = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i)) {
        panic!(
            "not prettyplease-formatted; first difference at item line {}:\n--- generated\n{:?}\n--- prettyplease\n{:?}",
            i + 1,
            ours.get(i),
            theirs.get(i)
        );
    }
    // A blank line before every top-level item (the first one follows the header).
    let items = body
        .lines()
        .filter(|l| {
            ["pub ", "static ", "use ", "macro_rules! "]
                .iter()
                .any(|start| l.starts_with(start))
        })
        .count();
    let blank = body.lines().filter(|l| l.is_empty()).count();
    assert_eq!(blank, items, "one blank line before each item:\n{body}");
}

/// Compiles `schedule` (generated with `table_path = "::orin_exec_table"`) with `main_body`
/// into a binary linked against the `orin-exec-table` crate and runs it: its stdout, or the
/// compiler's diagnostics when it does not compile. `package_dir` is the `CARGO_MANIFEST_DIR`
/// the generated code is compiled with.
fn try_compile_and_run(
    schedule: &str,
    package_dir: Option<&Path>,
    main_body: &str,
) -> Result<String, String> {
    let dir = scratch("compile");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rlib = dir.join("liborin_exec_table.rlib");
    let out = Command::new(&rustc)
        .args([
            "--edition",
            "2024",
            "--crate-type",
            "rlib",
            "--crate-name",
            "orin_exec_table",
        ])
        .arg("-o")
        .arg(&rlib)
        .arg(repo_root().join("table/src/lib.rs"))
        .output()
        .expect("rustc");
    assert!(
        out.status.success(),
        "table/src/lib.rs does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(dir.join("schedule.rs"), schedule).unwrap();
    let main = format!(
        "#![deny(warnings)]\nmod schedule {{\n    include!(\"schedule.rs\");\n}}\n\
         #[allow(unused_imports)]\nuse schedule::{{SCHEDULE, buffer, engine, mode, task}};\n\
         #[allow(unused_imports)]\nuse orin_exec_table::*;\nfn main() {{\n{main_body}\n}}\n"
    );
    std::fs::write(dir.join("main.rs"), main).unwrap();
    let bin = dir.join("schedule-test");
    let mut compile = Command::new(&rustc);
    if let Some(package_dir) = package_dir {
        compile.env("CARGO_MANIFEST_DIR", package_dir);
    }
    let out = compile
        .args(["--edition", "2024", "--crate-type", "bin", "-o"])
        .arg(&bin)
        .arg("--extern")
        .arg(format!("orin_exec_table={}", rlib.display()))
        .arg(dir.join("main.rs"))
        .output()
        .expect("rustc");
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let run = Command::new(&bin).output().unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(String::from_utf8(run.stdout).unwrap())
}

/// [`try_compile_and_run`], which must compile.
fn compile_and_run(schedule: &str, package_dir: Option<&Path>, main_body: &str) -> String {
    try_compile_and_run(schedule, package_dir, main_body)
        .unwrap_or_else(|e| panic!("the generated code does not compile:\n{e}"))
}

/// The docs example (as `examples/aeb/schedule.toml`) generated for the package
/// `examples/aeb`.
fn docs_generated(table_path: &str) -> String {
    let opts = Options {
        table_path: table_path.into(),
        package_dir: Some(aeb_package_dir()),
        ..options()
    };
    render_str(&docs_example_path(), &docs_example(), &opts)
        .unwrap_or_else(|d| panic!("{d}"))
        .source
}

fn aeb_package_dir() -> PathBuf {
    repo_root().join("examples/aeb")
}

/// Covers: REQ-SCH-008, REQ-API-007
#[test]
fn docs_example_output_is_stable_formatted_and_free_of_local_paths() {
    let a = docs_generated(orin_exec_schedule::DEFAULT_TABLE_PATH);
    let b = docs_generated(orin_exec_schedule::DEFAULT_TABLE_PATH);
    assert_eq!(a, b);
    assert_prettyplease_formatted(&a);
    let root = repo_root().display().to_string();
    assert!(!a.contains(&root), "{root} in the generated code:\n{a}");
    for needle in [
        "// @generated by orin-exec-schedule ",
        " from `schedule.toml`; do not edit.",
        "// schedule `aeb` (schedule.toml): valid.",
        "use ::orin_exec::table::*;",
        "static TABLES: ScheduleTables = ScheduleTables {",
        "pub static SCHEDULE: Schedule = match Schedule::check(&TABLES) {\n    Ok(s) => s,\n    Err(e) => panic!(\"{}\", e.message()),\n};",
        "    /// `sensor`: CPU task on `cpu0`.\n    pub const SENSOR: TaskId = TaskId(0);",
        "    /// `detector`: DLA loadable on `dla0`.\n    pub const DETECTOR: TaskId = TaskId(2);",
        "    /// `dla0`: DLA core 0.\n    pub const DLA0: EngineId = EngineId(3);",
        "    /// `degraded`.\n    pub const DEGRADED: ModeId = ModeId(1);",
        "        modes: ModeMask(1 << mode::NORMAL.0),",
        "        action: Action::SwitchMode(mode::DEGRADED),",
        "    period_ns: 33_333_000,",
        "    minor_frames_ns: &[0, 16_666_500],",
        "include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/\", $path))",
        "image: package_file!(\"../../kernels/cubins/aeb.sm_87.cubin\"),",
        "onnx: package_file!(\"../../loadables/aeb_detector.onnx\"),",
        "//   detector     dla0        0.000ms      3.000ms      9.000ms     15.000ms      6.000ms",
    ] {
        assert!(
            a.contains(needle),
            "missing {needle:?} in the generated code:\n{a}"
        );
    }
    // Without the package directory, artifacts are included by absolute path.
    let absolute = render_str(&docs_example_path(), &docs_example(), &options())
        .unwrap_or_else(|d| panic!("{d}"))
        .source;
    let cubin = repo_root().join("kernels/cubins/aeb.sm_87.cubin");
    assert!(
        absolute.contains(&format!(
            "include_bytes!({:?})",
            cubin.display().to_string()
        )),
        "{absolute}"
    );
    // The manifest's hash as bytes: c6 19 8c ea ... for the sm_87 cubin.
    let manifest = std::fs::read_to_string(repo_root().join("kernels/manifest.toml")).unwrap();
    let at = manifest.find("file = \"cubins/aeb.sm_87.cubin\"").unwrap();
    let hash = &manifest[at..][manifest[at..].find("sha256 = \"").unwrap() + 10..][..8];
    let bytes = format!(
        "0x{}, 0x{}, 0x{}, 0x{}",
        &hash[0..2],
        &hash[2..4],
        &hash[4..6],
        &hash[6..8]
    );
    assert!(a.contains(&bytes), "missing {bytes} in the generated code");
}

/// Covers: REQ-SCH-008, REQ-API-001, REQ-SCH-001
#[test]
fn docs_example_output_compiles_against_table_rs() {
    let source = docs_generated("::orin_exec_table");
    let out = compile_and_run(
        &source,
        Some(&aeb_package_dir()),
        r#"
    assert_eq!(SCHEDULE.task_by_name("sensor"), Some(task::SENSOR));
    assert_eq!(SCHEDULE.task_by_name("detector"), Some(task::DETECTOR));
    assert_eq!(SCHEDULE.mode_by_name("degraded"), Some(mode::DEGRADED));
    assert_eq!(SCHEDULE.engine_by_name("dla0"), Some(engine::DLA0));
    assert_eq!(SCHEDULE.buffer_by_name("image"), Some(buffer::IMAGE));
    let rule = SCHEDULE.health_rule(FaultKind::DeadlineMiss, task::DETECTOR).unwrap();
    assert_eq!(rule.action, Action::SwitchMode(mode::DEGRADED));
    let rule = SCHEDULE.health_rule(FaultKind::EngineError, task::DETECTOR).unwrap();
    assert_eq!(rule.scope, FaultScope::Engine(engine::DLA0));
    assert!(SCHEDULE.task(task::PREPROCESS).modes.contains(mode::NORMAL));
    assert!(!SCHEDULE.task(task::PREPROCESS).modes.contains(mode::DEGRADED));
    assert!(SCHEDULE.task(task::SENSOR).modes.contains(mode::DEGRADED));
    for t in SCHEDULE.tasks {
        println!("task {} engine {} waits {}", t.name, SCHEDULE.engines[t.engine.0 as usize].name, t.waits.len());
    }
    for c in SCHEDULE.cubins {
        for v in c.variants {
            println!("cubin {} sm_{} {} bytes", c.name, v.sm, v.image.len());
        }
    }
    for l in SCHEDULE.loadables {
        println!("loadable {} {} bytes, {} in, {} out", l.name, l.onnx.len(), l.inputs.len(), l.outputs.len());
    }
    println!("buffer image {} bytes align {}", SCHEDULE.buffers[buffer::IMAGE.0 as usize].kind.size(), SCHEDULE.buffers[buffer::IMAGE.0 as usize].kind.align());
    println!("timeline {}", SCHEDULE.timeline.len());
"#,
    );
    let size = |p: &str| std::fs::metadata(repo_root().join(p)).unwrap().len();
    for line in [
        "task sensor engine cpu0 waits 2".to_owned(),
        "task detector engine dla0 waits 2".to_owned(),
        format!(
            "cubin aeb sm_87 {} bytes",
            size("kernels/cubins/aeb.sm_87.cubin")
        ),
        format!(
            "cubin aeb sm_90 {} bytes",
            size("kernels/cubins/aeb.sm_90.cubin")
        ),
        format!(
            "loadable aeb_detector {} bytes, 1 in, 2 out",
            size("loadables/aeb_detector.onnx")
        ),
        "buffer image 3072 bytes align 512".to_owned(),
        "timeline 8".to_owned(),
    ] {
        assert!(
            out.lines().any(|l| l == line),
            "missing {line:?} in:\n{out}"
        );
    }
}

/// `source` without the `Wait` on `waited` (a `task::` constant) in the task named `task`.
fn without_wait(source: &str, task: &str, waited: &str) -> String {
    let at = source
        .find(&format!("name: \"{task}\","))
        .unwrap_or_else(|| panic!("no task {task}"));
    let entry = at
        + source[at..]
            .find(&format!("task: task::{waited},"))
            .unwrap_or_else(|| panic!("{task} does not wait for {waited}"));
    let start = source[..entry].rfind("Wait {").unwrap();
    let end = entry + source[entry..].find("},").unwrap() + "},".len();
    let line_start = source[..start].rfind('\n').unwrap();
    format!("{}{}", &source[..line_start], &source[end..])
}

/// Covers: REQ-API-005
#[test]
fn generated_tables_with_a_race_edited_in_fail_to_compile() {
    // The validator rejects the docs example without `decision@-1` in `detector`'s `after`
    // (validate.rs `docs_show_the_actual_report_and_diagnostics`). The same edit made in the
    // generated tables fails the build: `Schedule::check` finds the same race.
    let toml = docs_example().replace(
        "after = [\"preprocess\", \"decision@-1\"]",
        "after = [\"preprocess\"]",
    );
    let opts = Options {
        table_path: "::orin_exec_table".into(),
        ..options()
    };
    let d = render_str(&docs_example_path(), &toml, &opts).unwrap_err();
    let validator = d.to_string();
    let source = without_wait(&docs_generated("::orin_exec_table"), "detector", "DECISION");
    assert_ne!(source, docs_generated("::orin_exec_table"));
    let err = try_compile_and_run(&source, Some(&aeb_package_dir()), "").unwrap_err();
    assert!(
        err.contains("evaluation panicked: buffer race across frames"),
        "{err}"
    );
    // The error `Schedule::check` gives names what the validator names.
    let unchecked = source.replace(
        "pub static SCHEDULE: Schedule = match Schedule::check(&TABLES) {\n    Ok(s) => s,\n    Err(e) => panic!(\"{}\", e.message()),\n};",
        "pub static SCHEDULE: () = ();\npub fn check() -> Result<Schedule, TableError> {\n    Schedule::check(&TABLES)\n}",
    );
    let out = compile_and_run(
        &unchecked,
        Some(&aeb_package_dir()),
        "let _ = SCHEDULE;\nprintln!(\"{}\", schedule::check().unwrap_err());",
    );
    let (buffer, first, second) = match out.split('`').collect::<Vec<_>>()[..] {
        [_, buffer, _, _mode, _, first, _, second, ..] => (buffer, first, second),
        _ => panic!("unexpected error: {out}"),
    };
    assert!(out.contains("across frames"), "{out}");
    let same = format!(
        "buffer race on `{buffer}` across frames (mode `normal`): `{first}` of frame f reads it and `{second}` of frame f+1 writes"
    );
    assert!(
        validator.contains(&same),
        "Schedule::check: {out}\nvalidator:\n{validator}"
    );
}

/// Exercises the shapes the AEB example does not: three modes, a task in two of them, every
/// parameter kind, no health rules, many minor frames, long names, tasks declared out of
/// dependency order.
fn varied() -> String {
    let body = [
        buffer(
            "input_with_a_rather_long_name",
            "raw",
            &["size = 64", "multiplicity = 3"],
        ),
        buffer("dla_in", "tensor", &[]),
        raw_buffer("out", 256),
        cpu_task(
            "consumer",
            "cpu1",
            "100us",
            &[
                r#"reads = ["out"]"#,
                r#"after = ["net"]"#,
                r#"modes = ["a", "c"]"#,
            ],
        ),
        cpu_task(
            "producer",
            "cpu0",
            "250us",
            &[
                r#"writes = ["input_with_a_rather_long_name"]"#,
                r#"after = ["scale@-2"]"#,
            ],
        ),
        task(
            "scale",
            "gpu0",
            &[
                r#"cubin = "k""#,
                r#"kernel = "scale""#,
                "grid = [2, 1, 1]",
                "block = 64",
                "shared_mem = 1024",
                r#"params = [{ buffer = "input_with_a_rather_long_name" }, { buffer = "dla_in" }, { u32 = 4_000_000 }, { f32 = -0.125 }]"#,
                r#"reads = ["input_with_a_rather_long_name"]"#,
                r#"writes = ["dla_in"]"#,
                r#"after = ["producer", "net@-1"]"#,
                r#"wcet = "300us""#,
            ],
        ),
        dla_task(
            "net",
            "dla_in",
            "out",
            &[r#"after = ["scale", "consumer@-1"]"#],
        ),
    ];
    edited(
        &with_header(&body.concat()),
        &[
            ("modes = [\"a\", \"b\"]", "modes = [\"a\", \"b\", \"c\"]"),
            ("lookahead = 1", "lookahead = 0\nminor_frames = 10"),
        ],
    )
}

/// Covers: REQ-SCH-008, REQ-API-007
#[test]
fn varied_schedule_output_is_formatted_and_compiles() {
    let fx = Fixture::new();
    let text = varied();
    let path = fx.schedule_path();
    let default = render_str(&path, &text, &options()).unwrap_or_else(|d| panic!("{d}"));
    assert_prettyplease_formatted(&default.source);
    let source = default
        .source
        .replace(orin_exec_schedule::DEFAULT_TABLE_PATH, "::orin_exec_table");
    for needle in [
        "static HEALTH: [HealthRule; 0] = [];",
        "modes: ModeMask(1 << mode::A.0 | 1 << mode::C.0),",
        "Param::U32(4_000_000),",
        "Param::F32(-0.125),",
        "shared_mem_bytes: 1024,",
        "    pub const PRODUCER: TaskId = TaskId(0);",
        "        0, 1_000_000, 2_000_000,",
    ] {
        assert!(source.contains(needle), "missing {needle:?} in:\n{source}");
    }
    let out = compile_and_run(
        &source,
        None,
        r#"
    let names: Vec<&str> = SCHEDULE.tasks.iter().map(|t| t.name).collect();
    println!("{}", names.join(" "));
    println!("minor {}", SCHEDULE.minor_frames_ns.len());
    println!("dla_in {:?}", SCHEDULE.buffers[buffer::DLA_IN.0 as usize].kind);
"#,
    );
    // Submission order: topological (producer before scale and net), declaration order per engine.
    assert!(out.contains("producer scale net consumer\n"), "{out}");
    assert!(out.contains("minor 10\n"), "{out}");
    assert!(
        out.contains("dla_in Tensor { data_type: Int8, dims: [1, 1, 8, 64], align: 512 }"),
        "{out}"
    );
}

/// Covers: REQ-SCH-008
#[test]
fn generate_writes_the_file_a_copy_and_fails_on_errors() {
    let fx = Fixture::new();
    let schedule = fx.schedule_path();
    std::fs::write(&schedule, varied()).unwrap();
    let out_dir = scratch("out");
    let out = out_dir.join("schedule.rs");
    let copy = out_dir.join("copy/schedule-t.rs");
    let opts = Options {
        copy_to: Some(copy.clone()),
        ..options()
    };
    let generated =
        orin_exec_schedule::generate_with(&schedule, &out, &opts).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), generated.source);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), generated.source);
    let inputs: Vec<String> = generated
        .inputs
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    for f in [
        "app/schedule.toml",
        "manifests/kernels.toml",
        "manifests/loadables.toml",
        "k.sm_87.cubin",
        "k.sm_90.cubin",
        "net.onnx",
    ] {
        assert!(
            inputs.iter().any(|i| i.ends_with(f)),
            "{f} not in {inputs:?}"
        );
    }
    // An invalid schedule: the diagnostics, and the previous output is left alone.
    std::fs::write(
        &schedule,
        varied().replace("wcet = \"1ms\"", "wcet = \"1 min\""),
    )
    .unwrap();
    let err = orin_exec_schedule::generate(&schedule, &out_dir.join("other.rs")).unwrap_err();
    assert!(
        err.to_string()
            .contains("`wcet` of task `net`: `1 min`: unknown unit `min`"),
        "{err}"
    );
    assert!(!out_dir.join("other.rs").exists());
    let _ = std::fs::remove_dir_all(&out_dir);
}

/// Covers: REQ-SCH-008
#[test]
fn inspectable_copy_goes_to_the_target_dir() {
    let p = |s: &str| PathBuf::from(s);
    assert_eq!(
        orin_exec_schedule::inspectable_copy_path(
            Path::new("/w/target/debug/build/aeb-demo-0123/out"),
            "aeb"
        ),
        Some(p("/w/target/orin-exec/schedule-aeb.rs"))
    );
    assert_eq!(
        orin_exec_schedule::inspectable_copy_path(
            Path::new("/w/target/aarch64-unknown-linux-gnu/release/build/aeb-demo-0123/out"),
            "aeb"
        ),
        Some(p(
            "/w/target/aarch64-unknown-linux-gnu/orin-exec/schedule-aeb.rs"
        ))
    );
    assert_eq!(
        orin_exec_schedule::inspectable_copy_path(Path::new("/tmp/out"), "aeb"),
        None
    );
}

/// Covers: REQ-SCH-015
#[test]
fn cpu_wait_resolves_per_task_from_the_task_its_engine_and_the_timeline() {
    let text = edited(
        &docs_example(),
        &[
            (
                r#"gpu = [{ name = "gpu0", stream = 0 }]"#,
                r#"gpu = [{ name = "gpu0", stream = 0, cpu_wait = "spin" }]"#,
            ),
            (
                "name = \"detector\"\n",
                "name = \"detector\"\ncpu_wait = { spin_around = \"100us\" }\n",
            ),
        ],
    );
    let opts = Options {
        package_dir: Some(aeb_package_dir()),
        ..options()
    };
    let src = render_str(&docs_example_path(), &text, &opts)
        .unwrap_or_else(|d| panic!("{d}"))
        .source;
    let start = src.find("static CPU_WAITS").expect("CPU_WAITS");
    let table = &src[start..start + src[start..].find("];").expect("end")];
    let gpu_tasks = text.matches("engine = \"gpu0\"").count();
    assert_eq!(
        table.matches("CpuWait::ALWAYS_SPIN").count(),
        gpu_tasks,
        "{table}"
    );
    // The detector's window: its worst-case finish (a `latest_finish_ns` of the timeline)
    // ± 100 µs.
    let number = |s: &str| {
        s.trim()
            .trim_end_matches(',')
            .replace('_', "")
            .parse::<u64>()
    };
    let field = |name: &str| {
        let at = table.find(name).expect(name) + name.len();
        number(&table[at..at + table[at..].find(['\n', '}']).expect("value")]).expect(name)
    };
    let (from, until) = (field("from_ns:"), field("until_ns:"));
    assert_eq!(until - from, 200_000, "{table}");
    let finishes: Vec<u64> = src
        .lines()
        .filter_map(|l| l.trim().strip_prefix("latest_finish_ns:"))
        .map(|v| number(v).expect("finish"))
        .collect();
    assert!(finishes.contains(&(from + 100_000)), "{finishes:?} {table}");
    let tasks = text.matches("[[task]]").count();
    assert_eq!(
        table.matches("CpuWait::Block").count(),
        tasks - gpu_tasks - 1
    );

    // Bad values are diagnostics with line and column.
    for (bad, needle) in [
        ("cpu_wait = \"nap\"", "unknown policy `nap`"),
        ("cpu_wait = { spin = \"1us\" }", "has no `spin_around`"),
        ("cpu_wait = 3", "must be a table"),
    ] {
        let t = edited(
            &docs_example(),
            &[(
                "name = \"detector\"\n",
                &format!("name = \"detector\"\n{bad}\n"),
            )],
        );
        let e = match render_str(&docs_example_path(), &t, &opts) {
            Ok(_) => panic!("{bad} accepted"),
            Err(d) => d.to_string(),
        };
        assert!(e.contains(needle) && e.contains("schedule.toml:69:"), "{e}");
    }
}
