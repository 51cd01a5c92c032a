//! One source of truth for the runtime's capacities: for every limit of
//! `orin_exec_table::Limit`, a schedule at the limit is accepted by the validator (what
//! `orin-exec check` runs) and by the build path (`render_str`, what an application's
//! `build.rs` runs), and its generated tables compile, which runs `Schedule::check` at compile
//! time; a schedule one step past it is refused by both, with an error at its line and column
//! that gives the value and the limit. The limits table in docs/schedule.md is generated from
//! the same list (`ORIN_EXEC_BLESS=1` rewrites it).
//!
//! The tensor counts of a DLA network use `fixtures/copy8.onnx` and `copy9.onnx` (each output
//! its input, dequantized and quantized again), which the runtime's tests build and check
//! (tests/limits_engines.rs).
//!
//! Covers: REQ-ROB-001, REQ-ROB-002, REQ-ROB-003

mod common;

use common::{Fixture, compile_and_run_files, options, points_at, pos, repo_root, sha};
use orin_exec_schedule::{Diagnostics, Options, limits_markdown, render_str};
use orin_exec_table::{Limit, MAX_STREAM_OPS};

/// A schedule: lookahead, mode count, then the body.
fn schedule(lookahead: u64, modes: usize, body: &str) -> String {
    let modes: Vec<String> = (0..modes).map(|m| format!("\"m{m}\"")).collect();
    format!(
        r#"name = "lim"
profile = "sil"
period = "10ms"
lookahead = {lookahead}
kernels_manifest = "../manifests/kernels.toml"
loadables_manifest = "../manifests/loadables.toml"
modes = [{}]

[engines]
cpu = [{{ name = "cpu0", queue_capacity = 1024 }}]
gpu = [{{ name = "gpu0", stream = 0, queue_capacity = 1024 }}, {{ name = "gpu1", stream = 1, submit = "graph", queue_capacity = 1024 }}]
dla = [{{ name = "dla0", core = 0, queue_capacity = 32 }}]
{body}"#,
        modes.join(", ")
    )
}

fn cpu(name: &str, extra: &str) -> String {
    format!("\n[[task]]\nname = \"{name}\"\nengine = \"cpu0\"\nwcet = \"10us\"\n{extra}")
}

fn gpu(name: &str, engine: &str, cubin: &str, kernel: &str, extra: &str) -> String {
    format!(
        "\n[[task]]\nname = \"{name}\"\nengine = \"{engine}\"\ncubin = \"{cubin}\"\nkernel = \"{kernel}\"\ngrid = 1\nblock = 1\nwcet = \"10us\"\n{extra}"
    )
}

fn raw(name: &str, extra: &str) -> String {
    format!("\n[[buffer]]\nname = \"{name}\"\nkind = \"raw\"\nsize = 512\n{extra}")
}

fn quoted_list(names: impl Iterator<Item = String>) -> String {
    names
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `n` CPU tasks `t0`..
fn tasks(n: u64) -> String {
    (0..n).map(|i| cpu(&format!("t{i}"), "")).collect()
}

/// The kernel of `limits.cu` with a name of `n` bytes.
fn long_name(n: u64) -> String {
    format!("k{}", "x".repeat(n as usize - 1))
}

/// `body` in a schedule with a PVA engine `pva0` and the PVA programs of [`fixture`].
fn pva_schedule(body: &str) -> String {
    schedule(1, 1, &format!("pva = [{{ name = \"pva0\" }}]\n{body}")).replace(
        "modes = [",
        "pva_programs_manifest = \"../manifests/pva.toml\"\nmodes = [",
    )
}

/// A task `v` on `pva0` running `program` with u32 parameters `names`.
fn pva(program: &str, names: &[String]) -> String {
    let params: Vec<String> = names
        .iter()
        .map(|n| format!("{n} = {{ u32 = 1 }}"))
        .collect();
    format!(
        "\n[[task]]\nname = \"v\"\nengine = \"pva0\"\nprogram = \"{program}\"\nparams = {{ {} }}\nwcet = \"10us\"\n",
        params.join(", ")
    )
}

/// The parameter names of the fixture's PVA program `params{n}`.
fn pva_params(n: u64) -> Vec<String> {
    (0..n).map(|i| format!("s{i}")).collect()
}

/// 63 GPU tasks on `gpu0`, each waiting for two others, and a CPU task `c`: with lookahead
/// 1, 2 x (63 x 4 + 126) = 756 stream operations, 2 more per wait on `c` of the first
/// `extra` GPU tasks.
const STREAM_CHAIN_OPS: u64 = 756;

fn stream_chain(extra: u64) -> String {
    let n = 63;
    let mut body = cpu("c", "");
    for i in 0..n {
        let mut after = match i {
            0 => vec![format!("g{}@-1", n - 1), format!("g{}@-1", n - 2)],
            1 => vec!["g0".to_owned(), format!("g{}@-1", n - 1)],
            _ => vec![format!("g{}", i - 1), format!("g{}", i - 2)],
        };
        if i < extra {
            after.push("c".into());
        }
        body += &gpu(
            &format!("g{i}"),
            "gpu0",
            "k",
            "copy",
            &format!("after = [{}]\n", quoted_list(after.into_iter())),
        );
    }
    body
}

/// DLA task `name` on `dla0` running network `net`, with its input and output buffers.
fn dla(name: &str, net: &str, input: &str, output: &str, extra: &str) -> String {
    format!(
        "\n[[task]]\nname = \"{name}\"\nengine = \"dla0\"\nnetwork = \"{net}\"\n\
         inputs = {{ in = \"{input}\" }}\noutputs = {{ out = \"{output}\" }}\nwcet = \"100us\"\n{extra}"
    )
}

/// The fixture's networks: `net`, and the same model as `net1`.. (see [`fixture`]).
fn net(i: u64) -> String {
    if i == 0 {
        "net".into()
    } else {
        format!("net{i}")
    }
}

/// `n` DLA tasks of `n` networks on one core after a CPU task `src`: each reads its own input
/// (written by `src`), so `src`'s semaphore goes into `n` DLA device handles.
fn dla_waiters(n: u64) -> String {
    let inputs = quoted_list((0..n).map(|i| format!("i{i}")));
    let last = format!("after = [\"d{}@-1\"]\n", n - 1);
    let mut body = cpu("src", &format!("writes = [{inputs}]\n{last}"));
    for i in 0..n {
        body += &raw(&format!("i{i}"), "");
        body += &raw(&format!("o{i}"), "");
        body += &dla(
            &format!("d{i}"),
            &net(i),
            &format!("i{i}"),
            &format!("o{i}"),
            "after = [\"src\"]\n",
        );
    }
    body
}

/// `n` DLA tasks of `n` networks on one core reading one buffer `shared`, in a chain (each
/// task's semaphore goes into two handles at most).
fn dla_readers(n: u64) -> String {
    let last = format!("after = [\"d{}@-1\"]\n", n - 1);
    let mut body = cpu("src", &format!("writes = [\"shared\"]\n{last}")) + &raw("shared", "");
    for i in 0..n {
        let after = if i == 0 {
            "src".to_owned()
        } else {
            format!("d{}", i - 1)
        };
        body += &raw(&format!("o{i}"), "");
        body += &dla(
            &format!("d{i}"),
            &net(i),
            "shared",
            &format!("o{i}"),
            &format!("after = [\"{after}\"]\n"),
        );
    }
    body
}

/// Twelve tasks of network `net` on one core, each with an input and an output of
/// multiplicity 4 (12 x (8 copies + its semaphore + its start semaphore) = 120 imports), all
/// after `src` (1 more), the first also after `n - 121` more CPU tasks.
fn dla_imports(n: u64) -> String {
    let inputs = quoted_list((0..12).map(|i| format!("i{i}")));
    let mut body = cpu(
        "src",
        &format!("writes = [{inputs}]\nafter = [\"d11@-1\"]\n"),
    );
    let extra: Vec<String> = (0..n - 121).map(|j| format!("c{j}")).collect();
    for c in &extra {
        body += &cpu(c, "");
    }
    for i in 0..12 {
        let mut after = vec!["src".to_owned()];
        if i == 0 {
            after.extend(extra.iter().cloned());
        }
        body += &raw(&format!("i{i}"), "multiplicity = 4\n");
        body += &raw(&format!("o{i}"), "multiplicity = 4\n");
        body += &dla(
            &format!("d{i}"),
            "net",
            &format!("i{i}"),
            &format!("o{i}"),
            &format!("after = [{}]\n", quoted_list(after.into_iter())),
        );
    }
    body
}

/// CPU `src` writes `n` inputs `in0`..; DLA task `d` runs network `copy{n}` (n inputs, n
/// outputs) on them.
fn copy_network(n: u64) -> String {
    let inputs = quoted_list((0..n).map(|i| format!("in{i}")));
    let mut body = cpu("src", &format!("writes = [{inputs}]\nafter = [\"d@-1\"]\n"));
    let bind = |prefix: &str| {
        (0..n)
            .map(|i| format!("{prefix}{i} = \"{prefix}{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for i in 0..n {
        body += &raw(&format!("in{i}"), "");
        body += &raw(&format!("out{i}"), "");
    }
    body += &format!(
        "\n[[task]]\nname = \"d\"\nengine = \"dla0\"\nnetwork = \"copy{n}\"\n\
         inputs = {{ {} }}\noutputs = {{ {} }}\nwcet = \"100us\"\nafter = [\"src\"]\n",
        bind("in"),
        bind("out")
    );
    body
}

/// One limit's pair of schedules.
struct Case {
    limit: Limit,
    /// The value at the limit and one step past it.
    at: u64,
    past: u64,
    /// The schedule for a value.
    text: fn(u64) -> String,
    /// The name the error gives (a task, buffer, network, engine or the schedule) and the text
    /// it points at, for the value past the limit.
    name: &'static str,
    /// Where the error points: `.1` characters after the first occurrence of `.0`.
    at_text: fn(u64) -> (String, usize),
}

fn cases() -> Vec<Case> {
    // One network has as many inputs as outputs: one schedule pair serves both counts.
    let tensors = [Limit::LoadableInputs, Limit::LoadableOutputs].map(|limit| Case {
        limit,
        at: 8,
        past: 9,
        text: |n| schedule(1, 1, &copy_network(n)),
        name: "copy9",
        at_text: |_| ("name = \"d\"".into(), 7),
    });
    let mut cases = vec![
        Case {
            limit: Limit::Tasks,
            at: 64,
            past: 65,
            text: |n| schedule(1, 1, &tasks(n)),
            name: "lim",
            at_text: |n| (format!("name = \"t{}\"", n - 1), 7),
        },
        Case {
            limit: Limit::Buffers,
            at: 64,
            past: 65,
            text: |n| {
                let buffers: String = (0..n).map(|i| raw(&format!("b{i}"), "")).collect();
                let all = quoted_list((0..n).map(|i| format!("b{i}")));
                schedule(1, 1, &(buffers + &cpu("t", &format!("writes = [{all}]\n"))))
            },
            name: "lim",
            at_text: |n| (format!("name = \"b{}\"", n - 1), 7),
        },
        Case {
            limit: Limit::Modes,
            at: 32,
            past: 33,
            text: |n| schedule(1, n as usize, &tasks(1)),
            name: "lim",
            at_text: |_| ("modes = ".into(), 8),
        },
        Case {
            limit: Limit::Lookahead,
            at: 1,
            past: 2,
            text: |n| schedule(n, 1, &tasks(1)),
            name: "lim",
            at_text: |n| (format!("lookahead = {n}"), 12),
        },
        Case {
            limit: Limit::Multiplicity,
            at: 4,
            past: 3,
            text: |n| {
                let b = raw("b", &format!("multiplicity = {n}\n"));
                schedule(1, 1, &(b + &cpu("t", "writes = [\"b\"]\n")))
            },
            name: "b",
            at_text: |n| (format!("multiplicity = {n}"), 15),
        },
        Case {
            limit: Limit::Waits,
            at: 16,
            past: 17,
            text: |n| {
                let all = quoted_list((0..n).map(|i| format!("t{i}")));
                schedule(1, 1, &(tasks(n) + &cpu("w", &format!("after = [{all}]\n"))))
            },
            name: "w",
            at_text: |n| (format!("\"t{}\"]", n - 1), 0),
        },
        Case {
            limit: Limit::Lag,
            at: 6,
            past: 7,
            text: |n| {
                schedule(
                    1,
                    1,
                    &(tasks(1) + &cpu("w", &format!("after = [\"t0@-{n}\"]\n"))),
                )
            },
            name: "w",
            at_text: |n| (format!("\"t0@-{n}\""), 0),
        },
        Case {
            limit: Limit::KernelParams,
            at: 16,
            past: 17,
            text: |n| {
                let params = (0..n)
                    .map(|i| format!("{{ u32 = {i} }}"))
                    .collect::<Vec<_>>();
                let params = format!("params = [{}]\n", params.join(", "));
                schedule(
                    1,
                    1,
                    &gpu("g", "gpu0", "limits", &format!("params{n}"), &params),
                )
            },
            name: "g",
            at_text: |_| ("name = \"g\"".into(), 7),
        },
        Case {
            limit: Limit::KernelName,
            at: 127,
            past: 128,
            text: |n| schedule(1, 1, &gpu("g", "gpu0", "limits", &long_name(n), "")),
            name: "g",
            at_text: |_| ("name = \"g\"".into(), 7),
        },
        Case {
            limit: Limit::DlaAlign,
            at: 32,
            past: 16,
            text: |n| {
                let buffers = raw("input", &format!("align = {n}\n")) + &raw("output", "");
                let dla = "\n[[task]]\nname = \"d\"\nengine = \"dla0\"\nnetwork = \"net\"\n\
                           inputs = { in = \"input\" }\noutputs = { out = \"output\" }\nwcet = \"1ms\"\n";
                schedule(1, 1, &(buffers + dla))
            },
            name: "input",
            at_text: |n| (format!("align = {n}"), 8),
        },
        Case {
            limit: Limit::StreamOps,
            at: MAX_STREAM_OPS as u64,
            past: MAX_STREAM_OPS as u64 + 2,
            text: |n| schedule(1, 1, &stream_chain((n - STREAM_CHAIN_OPS) / 2)),
            name: "gpu0",
            at_text: |_| ("{ name = \"gpu0\"".into(), 9),
        },
        Case {
            limit: Limit::GraphNodes,
            at: 64,
            past: 65,
            text: |n| {
                let waits = n - 64;
                let mut body = cpu("c", "");
                for i in 0..16 {
                    let after = if i < waits { "after = [\"c\"]\n" } else { "" };
                    body += &gpu(&format!("g{i}"), "gpu1", "k", "copy", after);
                }
                schedule(1, 1, &body)
            },
            name: "gpu1",
            at_text: |_| ("{ name = \"gpu1\"".into(), 9),
        },
        Case {
            limit: Limit::DlaHandlesPerBuffer,
            at: 4,
            past: 5,
            text: |n| schedule(1, 1, &dla_readers(n)),
            name: "shared",
            at_text: |_| ("name = \"shared\"".into(), 7),
        },
        Case {
            limit: Limit::DlaHandlesPerSemaphore,
            at: 4,
            past: 5,
            text: |n| schedule(1, 1, &dla_waiters(n)),
            name: "src",
            at_text: |_| ("name = \"src\"".into(), 7),
        },
        Case {
            limit: Limit::PvaParams,
            at: 16,
            past: 17,
            text: |n| pva_schedule(&pva(&format!("params{n}"), &pva_params(n))),
            name: "v",
            at_text: |_| ("name = \"v\"".into(), 7),
        },
        Case {
            limit: Limit::PvaSymbol,
            at: 127,
            past: 128,
            text: |n| pva_schedule(&pva(&format!("symbol{n}"), &[long_name(n)])),
            name: "symbol128",
            at_text: |_| ("name = \"v\"".into(), 7),
        },
        Case {
            limit: Limit::DlaImports,
            at: 128,
            past: 129,
            text: |n| schedule(1, 1, &dla_imports(n)),
            name: "net",
            at_text: |_| ("name = \"d0\"".into(), 7),
        },
    ];
    cases.extend(tensors);
    cases
}

/// The fixture, with the kernels of `limits.cu` added to its kernels manifest as module
/// `limits`.
fn fixture() -> Fixture {
    let fx = Fixture::new();
    let manifests = fx.dir.join("manifests");
    let mut kernels = std::fs::read_to_string(manifests.join("kernels.toml")).unwrap();
    for sm in [87, 90] {
        let (file, bytes) = copy_fixture(&manifests, &format!("limits.sm_{sm}.cubin"));
        kernels += &format!(
            "\n[[cubin]]\nname = \"limits\"\nfile = \"{file}\"\nsm = {sm}\nsha256 = \"{}\"\n\
             kernels = [\"params16\", \"params17\", \"{}\", \"{}\"]\n",
            sha(&bytes),
            long_name(127),
            long_name(128)
        );
    }
    std::fs::write(manifests.join("kernels.toml"), kernels).unwrap();
    // The fixture's network again as `net1`..`net4`: DLA device handles are per network.
    let loadables = std::fs::read_to_string(manifests.join("loadables.toml")).unwrap();
    let network = &loadables[loadables.find("[[network]]").expect("a network")..];
    let mut more = loadables.clone();
    for i in 1..=4 {
        more += &network.replacen("name = \"net\"", &format!("name = \"{}\"", net(i)), 1);
    }
    // The copy networks of 8 and 9 tensors (see the header).
    for n in [8, 9] {
        let (file, bytes) = copy_fixture(&manifests, &format!("copy{n}.onnx"));
        more += &format!(
            "\n[[network]]\nname = \"copy{n}\"\nonnx = \"{file}\"\nonnx_sha256 = \"{}\"\n",
            sha(&bytes)
        );
        for (kind, prefix) in [("input", "in"), ("output", "out")] {
            for i in 0..n {
                more += &format!(
                    "\n  [[network.{kind}]]\n  name = \"{prefix}{i}\"\n  shape = [1, 1, 1, 64]\n  \
                     data_type = \"int8\"\n  size = 64\n"
                );
            }
        }
    }
    std::fs::write(manifests.join("loadables.toml"), more).unwrap();
    // PVA programs of 16 and 17 parameters, and with symbol names of 127 and 128 bytes.
    let elf = std::fs::read(manifests.join("bin/blur.vpu.elf")).unwrap();
    let mut programs = std::fs::read_to_string(manifests.join("pva.toml")).unwrap();
    let entry = |name: String, params: Vec<String>| {
        let params: Vec<String> = params
            .iter()
            .map(|p| format!("{{ name = \"{p}\", kind = \"u32\" }}"))
            .collect();
        format!(
            "\n[[program]]\nname = \"{name}\"\nfile = \"bin/blur.vpu.elf\"\nsha256 = \"{}\"\nparams = [{}]\n",
            sha(&elf),
            params.join(", ")
        )
    };
    for n in [16, 17] {
        programs += &entry(format!("params{n}"), pva_params(n));
    }
    for n in [127, 128] {
        programs += &entry(format!("symbol{n}"), vec![long_name(n)]);
    }
    std::fs::write(manifests.join("pva.toml"), programs).unwrap();
    fx
}

/// Copies `tests/fixtures/{name}` to the manifests' `bin/`: its path there and its bytes.
fn copy_fixture(manifests: &std::path::Path, name: &str) -> (String, Vec<u8>) {
    let file = format!("bin/{name}");
    let src = repo_root().join("tools/schedule/tests/fixtures").join(name);
    let bytes = std::fs::read(&src).unwrap_or_else(|e| panic!("{}: {e}", src.display()));
    std::fs::write(manifests.join(&file), &bytes).unwrap();
    (file, bytes)
}

/// What the error for `case` past its limit says.
fn expected_message(case: &Case) -> String {
    match case.limit {
        Limit::Lookahead => format!("`lookahead` must be in 0..=1, found {}", case.past),
        Limit::StreamOps => format!(
            "GPU engine `gpu0` would hold {} stream operations",
            case.past
        ),
        limit => limit.exceeded(case.name, case.past).to_string(),
    }
}

/// Asserts that `d` has the error of `case` past its limit, at the expected position.
fn assert_refused(case: &Case, text: &str, d: &Diagnostics, how: &str) {
    let message = expected_message(case);
    let (needle, offset) = (case.at_text)(case.past);
    let found = d
        .iter()
        .find(|x| x.is_error() && x.message.contains(&message));
    let Some(found) = found else {
        panic!(
            "{how}: no error {message:?} for {:?} past its limit:\n{d}",
            case.limit
        );
    };
    assert!(
        points_at(found, text, &needle, offset),
        "{how}: {:?} should point {offset} after {needle:?} ({:?}):\n{d}",
        case.limit,
        pos(text, &needle)
    );
}

/// Covers: REQ-ROB-001, REQ-ROB-002
#[test]
fn every_limit_is_accepted_at_and_refused_past_by_check_and_build() {
    let fx = fixture();
    let path = fx.schedule_path();
    let cases = cases();
    let mut generated = Vec::new();
    let mut covered = Vec::new();
    for case in &cases {
        let at = (case.text)(case.at);
        let tables = Options {
            table_path: "::orin_exec_table".into(),
            ..options()
        };
        fx.ok(&at);
        let source = render_str(&path, &at, &tables)
            .unwrap_or_else(|d| panic!("build of {:?} at the limit:\n{d}", case.limit))
            .source;
        generated.push((format!("{:?}", case.limit).to_lowercase(), source));
        let past = (case.text)(case.past);
        let (d, _) = fx.errors(&past);
        assert_refused(case, &past, &d, "check");
        let d = render_str(&path, &past, &options())
            .err()
            .unwrap_or_else(|| panic!("build of {:?} past the limit succeeded", case.limit));
        assert_refused(case, &past, &d, "build");
        covered.push(case.limit);
    }
    for limit in Limit::ALL {
        assert!(covered.contains(&limit), "{limit:?}: no case");
    }
    // `Schedule::check` runs at compile time on each generated `static SCHEDULE`.
    let main: String = generated
        .iter()
        .map(|(name, _)| format!("    println!(\"{name} {{}}\", {name}::SCHEDULE.tasks.len());\n"))
        .collect();
    let out = compile_and_run_files(&generated, &main);
    for (case, (name, _)) in cases.iter().zip(&generated) {
        let tasks = out
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing from:\n{out}"));
        if case.limit == Limit::Tasks {
            assert_eq!(tasks, case.at.to_string());
        }
    }
}

/// The limits table of docs/schedule.md is the generated one.
///
/// Covers: REQ-ROB-003
#[test]
fn docs_limits_table_is_generated_from_the_code() {
    let path = repo_root().join("docs/schedule.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- limits:begin -->\n", "<!-- limits:end -->");
    let start = doc.find(begin).expect("limits:begin marker") + begin.len();
    let stop = doc.find(end).expect("limits:end marker");
    let table = limits_markdown();
    if std::env::var_os("ORIN_EXEC_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, format!("{}{table}{}", &doc[..start], &doc[stop..])).unwrap();
        return;
    }
    assert_eq!(
        &doc[start..stop],
        table,
        "docs/schedule.md's limits table is out of date: run \
         `ORIN_EXEC_BLESS=1 cargo test -p orin-exec-schedule --test limits`"
    );
    for limit in Limit::ALL {
        assert!(table.contains(limit.counts()), "{limit:?} missing");
    }
}
