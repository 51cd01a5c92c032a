//! PVA engines and tasks in the schedule: the engine syntax (PVA instance, VPU affinity), the
//! PVA programs manifest, PVA tasks with their parameters, and the validator's rules for them
//! (names and kinds, buffers, races with GPU and DLA tasks, queues, the worst-case timeline).
//!
//! These tests assert the specific diagnostics of each rule and that a valid PVA schedule is
//! accepted and generates tables `Schedule::check` accepts. The fixture's VPU "ELF" is a
//! placeholder (tests/fixtures/placeholder.vpu.elf): real VPU executables need the PVA SDK's
//! VPU toolchain.
//!
//! Covers: REQ-PVA-050

mod common;

use common::{
    Fixture, HEADER, assert_has, buffer, cpu_task, dla_task, gpu_task, pos, pva_task, raw_buffer,
    task, with_pva_header,
};
use orin_exec_schedule::{Diagnostic, Diagnostics, Options, render_str};

/// A valid pipeline: `sensor` (CPU) writes `image`, `blur` (PVA 0, VPU 0) filters it into
/// `out`, `post` (GPU) reads `out`; the back edges order the next frame's writers.
fn pipeline() -> String {
    with_pva_header(
        &[
            raw_buffer("image", 4096),
            raw_buffer("out", 4096),
            cpu_task(
                "sensor",
                "cpu0",
                "1ms",
                &["writes = [\"image\"]", "after = [\"blur@-1\"]"],
            ),
            pva_task(
                "blur",
                "image",
                "out",
                &["after = [\"sensor\", \"post@-1\"]"],
            ),
            gpu_task("post", &["reads = [\"out\"]", "after = [\"blur\"]"]),
        ]
        .concat(),
    )
}

/// The errors of `text`, and the error with `fragment` (which must exist).
fn error_with<'d>(d: &'d Diagnostics, fragment: &str) -> &'d Diagnostic {
    d.iter()
        .find(|x| x.is_error() && x.message.contains(fragment))
        .unwrap_or_else(|| panic!("no error with {fragment:?} in:\n{d}"))
}

/// Asserts that the error with `fragment` points `offset` columns after the first `needle`.
fn points(d: &Diagnostics, text: &str, fragment: &str, needle: &str, offset: usize) {
    let e = error_with(d, fragment);
    let (line, col) = pos(text, needle);
    assert_eq!(
        (e.line, e.column),
        (line, col + offset),
        "{fragment:?} should point at {needle:?}:\n{d}"
    );
}

/// Covers: REQ-PVA-050, REQ-PVA-058
#[test]
fn a_valid_pva_pipeline_is_accepted() {
    let fx = Fixture::new();
    let text = pipeline();
    fx.ok(&text);
    // The timeline puts `blur` on `pva0` after `sensor`.
    let generated = render_str(&fx.schedule_path(), &text, &common::options())
        .unwrap_or_else(|d| panic!("{d}"));
    let report = generated.report.to_string();
    assert_has(
        &report,
        &[
            "pva0 (PVA index 0, vpu0, queue 8)",
            "pva1 (PVA index 1, any VPU, queue 8)",
        ],
    );
    let row = report
        .lines()
        .find(|l| l.trim_start().starts_with("blur "))
        .unwrap_or_else(|| panic!("no row for blur:\n{report}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cols[..5],
        ["blur", "pva0", "0.000ms", "1.000ms", "2.000ms"],
        "{row}"
    );
}

/// Covers: REQ-PVA-051
#[test]
fn vpu_affinity_syntax_is_checked() {
    let fx = Fixture::new();
    let body = pipeline();
    let text = body.replace("vpu = \"vpu0\"", "vpu = \"vpu2\"");
    let (d, _) = fx.errors(&text);
    points(
        &d,
        &text,
        "unknown VPU `vpu2` for engine `pva0`",
        "\"vpu2\"",
        0,
    );
    let text = body.replace(
        "gpu = [{ name = \"gpu0\", stream = 0 }]",
        "gpu = [{ name = \"gpu0\", stream = 0, vpu = \"vpu0\" }]",
    );
    let (d, _) = fx.errors(&text);
    points(
        &d,
        &text,
        "`vpu` of engine `gpu0`: only PVA engines have a VPU affinity, this is a GPU engine",
        "\"vpu0\" }]\ndla",
        0,
    );
    let text = body.replace("name = \"pva1\", index = 1", "name = \"pva1\", index = 2");
    let (d, _) = fx.errors(&text);
    points(
        &d,
        &text,
        "PVA engine `pva1`: index 2 does not exist on profile `sil` (2 available)",
        "index = 2",
        8,
    );
}

/// Two PVA engines that can run on one VPU are refused (their contention is not in the
/// timeline); engines on different VPUs of one PVA, or on different PVAs, are accepted.
///
/// Covers: REQ-PVA-051
#[test]
fn pva_engines_that_can_share_a_vpu_are_rejected() {
    let fx = Fixture::new();
    let engines = |list: &str| format!("{HEADER}pva = [{list}]\n");
    // (pa's extra keys, pb's extra keys, what the error points at in pb)
    for (a, b, at) in [
        (", vpu = \"vpu0\"", "", ("\"pb\", index = 0 }]", 14)),
        ("", ", vpu = \"vpu1\"", ("\"vpu1\" }]", 0)),
        (", vpu = \"vpu1\"", ", vpu = \"vpu1\"", ("\"vpu1\" }]", 0)),
    ] {
        let text = engines(&format!(
            "{{ name = \"pa\", index = 0{a} }}, {{ name = \"pb\", index = 0{b} }}"
        ));
        let (d, s) = fx.errors(&text);
        let e = error_with(
            &d,
            "PVA engines `pa` and `pb` can both run on a VPU of PVA 0",
        );
        assert!(
            e.help.as_deref().unwrap_or("").contains("different VPUs"),
            "{s}"
        );
        let (line, col) = pos(&text, at.0);
        assert_eq!((e.line, e.column), (line, col + at.1), "{s}");
    }
    // Different VPUs of one PVA, or different PVAs: accepted (the engines run no task, which
    // is only a warning).
    for list in [
        "{ name = \"pa\", index = 0, vpu = \"vpu0\" }, { name = \"pb\", index = 0, vpu = \"vpu1\" }",
        "{ name = \"pa\", index = 0 }, { name = \"pb\", index = 1 }",
    ] {
        let report = fx.ok(&engines(list));
        for engine in ["pa", "pb"] {
            let unused = format!("engine `{engine}` runs no task");
            assert!(
                report.warnings.iter().any(|w| w.message == unused),
                "{unused}: {report}"
            );
        }
    }
}

/// Covers: REQ-PVA-052, REQ-PVA-053
#[test]
fn program_and_parameter_errors_point_at_the_value() {
    let fx = Fixture::new();
    let base = pipeline();
    let cases: &[(&str, &str, &str, &str, usize)] = &[
        // (from, to, message fragment, needle, offset)
        (
            "program = \"blur\"",
            "program = \"blurr\"",
            "unknown PVA program `blurr`",
            "\"blurr\"",
            0,
        ),
        (
            ", gain = { f32 = 0.5 }",
            "",
            "PVA task `blur` passes no value for parameter `gain` of program `blur`",
            "params = {",
            9,
        ),
        (
            "gain = { f32 = 0.5 }",
            "gain = { f32 = 0.5 }, height = { u32 = 1 }",
            "PVA program `blur` has no parameter `height`",
            "height",
            0,
        ),
        (
            "width = { u32 = 64 }",
            "width = { f32 = 64.0 }",
            "parameter `width` is `u32` in PVA program `blur`, but task `blur` passes `f32`",
            "f32 = 64.0",
            0,
        ),
        (
            "src = { buffer = \"image\" }",
            "src = { u32 = 1 }",
            "parameter `src` is `buffer` in PVA program `blur`, but task `blur` passes `u32`",
            "u32 = 1 }, dst",
            0,
        ),
        (
            "src = { buffer = \"image\" }",
            "src = { buffer = \"imag\" }",
            "unknown buffer `imag`",
            "\"imag\"",
            0,
        ),
        (
            "wcet = \"1ms\"\nafter = [\"sensor\", \"post@-1\"]",
            "wcet = \"1ms\"\nafter = [\"sensor\", \"post@-1\"]\nwrites = [\"image\"]",
            "PVA task `blur` lists `image` in `writes`, but no pointer parameter of program `blur` writes it",
            "\"image\"]\n\n[[task]]\nname = \"post\"",
            0,
        ),
        (
            "wcet = \"1ms\"\nafter = [\"sensor\", \"post@-1\"]",
            "wcet = \"1ms\"\nafter = [\"sensor\", \"post@-1\"]\ngrid = 1",
            "`grid` is a GPU task field, but task `blur` runs on PVA engine `pva0`",
            "grid = 1",
            0,
        ),
        (
            "name = \"post\"\nengine = \"gpu0\"",
            "name = \"post\"\nengine = \"gpu0\"\nprogram = \"blur\"",
            "`program` is a PVA task field, but task `post` runs on GPU engine `gpu0`",
            "program = \"blur\"\nreads",
            0,
        ),
        (
            "pva_programs_manifest = \"../manifests/pva.toml\"\n",
            "",
            "task `blur` uses program `blur`, but the schedule has no `pva_programs_manifest`",
            "\"blur\"\nparams",
            0,
        ),
    ];
    for (from, to, fragment, needle, offset) in cases {
        assert!(base.contains(from), "{from:?} not in the pipeline");
        let text = base.replacen(from, to, 1);
        let (d, _) = fx.errors(&text);
        points(&d, &text, fragment, needle, *offset);
    }
    // Read-write pointers imply both accesses; scalar kinds other than u32 and f32.
    let text = with_pva_header(
        &[
            raw_buffer("acc", 64),
            task(
                "accumulate",
                "pva1",
                &[
                    "program = \"accumulate\"",
                    "params = { acc = { buffer = \"acc\" }, bias = { i32 = -3 } }",
                    "reads = [\"acc\"]",
                    "writes = [\"acc\"]",
                    "wcet = \"1ms\"",
                ],
            ),
        ]
        .concat(),
    );
    fx.ok(&text);
}

/// Covers: REQ-PVA-052, REQ-PVA-078
#[test]
fn programs_manifest_errors_point_into_the_manifest() {
    let fx = Fixture::new();
    let text = pipeline();
    let manifest = fx.dir.join("manifests/pva.toml");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let in_manifest = |d: &Diagnostics, fragment: &str, needle: &str| {
        let e = error_with(d, fragment);
        let m = std::fs::read_to_string(&manifest).unwrap();
        assert_eq!(e.file, manifest, "{d}");
        assert_eq!((e.line, e.column), pos(&m, needle), "{d}");
    };
    // The VPU ELF is checked against its hash (only the programs a schedule uses).
    std::fs::write(
        fx.dir.join("manifests/bin/blur.vpu.elf"),
        b"\x7fELF changed",
    )
    .unwrap();
    let (d, _) = fx.errors(&text);
    in_manifest(
        &d,
        "does not match its sha256 in the manifest",
        "\"bin/blur.vpu.elf\"",
    );
    assert!(!d.to_string().contains("acc.vpu.elf"), "{d}");
    for (from, to, fragment, needle) in [
        (
            "{ name = \"src\", kind = \"ptr\", access = \"read\" }",
            "{ name = \"src\", kind = \"ptr\" }",
            "pointer parameter `src` of PVA program `blur` has no `access`",
            "{ name = \"src\"",
        ),
        (
            "kind = \"u32\"",
            "kind = \"u16\"",
            "unknown parameter kind `u16`",
            "\"u16\"",
        ),
        (
            "{ name = \"width\", kind = \"u32\" }",
            "{ name = \"width\", kind = \"u32\", access = \"read\" }",
            "`access` of parameter `width`: only pointer parameters have one",
            "\"read\" },\n    { name = \"gain\"",
        ),
        (
            "access = \"write\"",
            "access = \"out\"",
            "unknown access `out`",
            "\"out\"",
        ),
        // Symbol names are passed NUL-terminated: not empty, no NUL (as `Schedule::check`).
        (
            "{ name = \"width\", kind = \"u32\" }",
            "{ name = \"\", kind = \"u32\" }",
            "a parameter of PVA program `blur` has an empty symbol name or one with a NUL byte",
            "{ name = \"\"",
        ),
        (
            "{ name = \"width\", kind = \"u32\" }",
            "{ name = \"wi\\u0000dth\", kind = \"u32\" }",
            "a parameter of PVA program `blur` has an empty symbol name or one with a NUL byte",
            "{ name = \"wi",
        ),
    ] {
        std::fs::write(&manifest, original.replacen(from, to, 1)).unwrap();
        let (d, _) = fx.errors(&text);
        in_manifest(&d, fragment, needle);
    }
}

/// PVA tasks take part in the race rule like every other accelerator task: their buffers
/// (pointer parameters, with the manifest's access) race with GPU and DLA tasks unless a
/// chain of waits (NvSciSync semaphores across engines) or a FIFO orders them.
///
/// Covers: REQ-PVA-054
#[test]
fn pva_tasks_race_with_gpu_and_dla_tasks() {
    let fx = Fixture::new();
    let text = pipeline().replace("after = [\"blur\"]", "");
    let (d, _) = fx.errors(&text);
    error_with(
        &d,
        "buffer race on `out` within a frame (modes `a`, `b`): `blur` writes it and `post` reads it, and nothing orders them",
    );
    // Across frames: `blur` of frame f+1 overwrites what `post` of frame f reads.
    let text = pipeline().replace("after = [\"sensor\", \"post@-1\"]", "after = [\"sensor\"]");
    let (d, _) = fx.errors(&text);
    error_with(
        &d,
        "buffer race on `out` across frames (modes `a`, `b`): `post` of frame f reads it and `blur` of frame f+1 writes the same buffer",
    );
    // With a DLA task reading what the PVA writes.
    let dla = |after: &str| {
        with_pva_header(
            &[
                raw_buffer("image", 4096),
                buffer("dlain", "raw", &["size = 512"]),
                raw_buffer("dlaout", 256),
                cpu_task(
                    "sensor",
                    "cpu0",
                    "1ms",
                    &["writes = [\"image\"]", "after = [\"blur@-1\"]"],
                ),
                pva_task(
                    "blur",
                    "image",
                    "dlain",
                    &["after = [\"sensor\", \"det@-1\"]"],
                ),
                dla_task("det", "dlain", "dlaout", &[after]),
                cpu_task(
                    "use",
                    "cpu1",
                    "1ms",
                    &["reads = [\"dlaout\"]", "after = [\"det\"]"],
                ),
            ]
            .concat(),
        )
    };
    let (d, _) = fx.errors(&dla("after = [\"use@-1\"]"));
    error_with(
        &d,
        "buffer race on `dlain` within a frame (modes `a`, `b`): `blur` writes it and `det` reads it",
    );
    fx.ok(&dla("after = [\"blur\", \"use@-1\"]"));
}

/// Covers: REQ-PVA-055
#[test]
fn the_timeline_and_the_queue_capacity_count_pva_tasks() {
    let fx = Fixture::new();
    // `blur` starts after `sensor` (1 ms) and runs 9.5 ms: past the 10 ms period.
    let text = pipeline().replacen(
        "wcet = \"1ms\"\nafter = [\"sensor\", \"post@-1\"]",
        "wcet = \"9.5ms\"\nafter = [\"sensor\", \"post@-1\"]",
        1,
    );
    let (d, _) = fx.errors(&text);
    error_with(
        &d,
        "task `blur` can finish at 10.500ms in mode `a`, after its deadline 10.000ms",
    );
    assert!(
        d.to_string().contains("`sensor`"),
        "the chain names `sensor`:\n{d}"
    );
    // One task per frame, submitted one frame ahead: two in flight.
    let text = pipeline().replace(
        "{ name = \"pva0\", index = 0, vpu = \"vpu0\" }",
        "{ name = \"pva0\", index = 0, vpu = \"vpu0\", queue_capacity = 1 }",
    );
    let (d, _) = fx.errors(&text);
    points(
        &d,
        &text,
        "engine `pva0` can hold 2 tasks in mode `a` (1 per frame × (1 + lookahead 1)), but its `queue_capacity` is 1",
        "queue_capacity = 1",
        17,
    );
}

/// The generated tables of a PVA schedule compile, and `Schedule::check` accepts them.
///
/// Covers: REQ-PVA-057, REQ-PVA-058
#[test]
fn generated_pva_tables_compile_and_pass_the_table_check() {
    let fx = Fixture::new();
    let opts = Options {
        table_path: "::orin_exec_table".into(),
        ..common::options()
    };
    let source = render_str(&fx.schedule_path(), &pipeline(), &opts)
        .unwrap_or_else(|d| panic!("{d}"))
        .source;
    assert_has(
        &source,
        &[
            "vpu: Some(VpuAffinity::Vpu0)",
            "vpu: Some(VpuAffinity::Any)",
            "pva_programs: &PVA_PROGRAMS",
            "kind: PvaParamKind::Pointer(PvaAccess::Read)",
            "kind: PvaParamKind::Pointer(PvaAccess::Write)",
            "program: PvaProgramId(0)",
        ],
    );
    let main = "let s = &schedule::SCHEDULE;\n\
        let p = &s.pva_programs[0];\n\
        println!(\"{} {} {}\", p.name, p.params.len(), p.image.len());\n\
        let blur = s.task(s.task_by_name(\"blur\").unwrap());\n\
        let orin_exec_table::Work::Pva(w) = blur.work else { panic!() };\n\
        println!(\"{:?}\", w.params);\n\
        println!(\"{}\", p.sha256.iter().map(|b| format!(\"{b:02x}\")).collect::<String>());\n\
        println!(\"{:?}\", schedule::checked().map(|_| ()));";
    let out =
        common::compile_and_run_files(&[("schedule".into(), common::unchecked(&source))], main);
    let elf = std::fs::read(fx.dir.join("manifests/bin/blur.vpu.elf")).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("blur 4 {}", elf.len()), "{out}");
    assert_eq!(
        lines[1], "[Buffer(BufferId(0)), Buffer(BufferId(1)), U32(64), F32(0.5)]",
        "{out}"
    );
    assert_eq!(lines[2], common::sha(&elf), "{out}");
    assert_eq!(lines[3], "Ok(())", "{out}");
}
