//! Fixtures: a scratch directory with a kernels manifest, a loadables manifest and the files
//! they list, and helpers to check schedule text against them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use orin_exec_schedule::{Diagnostic, Diagnostics, Options, Report};
use sha2::{Digest, Sha256};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root")
}

/// A fresh scratch directory under the target directory's tmp (or the system temp dir).
pub fn scratch(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let base = option_env!("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!(
        "orin-exec-schedule-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The fixture's DLA network: int8 `in` [1, 1, 8, 64] -> DequantizeLinear -> MaxPool 2x16
/// -> QuantizeLinear -> int8 `out` [1, 1, 4, 4]; `extra` is inserted after the pool (e.g.
/// an unsupported node reading `p`, writing `p2`, when `pool_out` is "p2").
pub fn net_onnx_with(extra: Option<sil_onnx::proto::NodeProto>, pool_out: &str) -> Vec<u8> {
    use prost::Message;
    use sil_onnx::proto::*;
    let io = |name: &str, dims: &[i64]| ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor {
                elem_type: data_type::INT8,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            value: Some(DimensionValue::DimValue(d)),
                        })
                        .collect(),
                }),
            }),
        }),
    };
    let scalar = |name: &str, t: i32, raw: Vec<u8>| TensorProto {
        name: name.into(),
        data_type: t,
        raw_data: raw,
        ..Default::default()
    };
    let node = |op: &str, ins: &[&str], out: &str, attribute: Vec<AttributeProto>| NodeProto {
        input: ins.iter().map(|s| s.to_string()).collect(),
        output: vec![out.into()],
        name: out.into(),
        op_type: op.into(),
        attribute,
        ..Default::default()
    };
    let ints = |name: &str, v: &[i64]| AttributeProto {
        name: name.into(),
        r#type: attribute_type::INTS,
        ints: v.to_vec(),
        ..Default::default()
    };
    let mut nodes = vec![
        node("DequantizeLinear", &["in", "s", "z"], "x", vec![]),
        node(
            "MaxPool",
            &["x"],
            "p",
            vec![ints("kernel_shape", &[2, 16]), ints("strides", &[2, 16])],
        ),
    ];
    nodes.extend(extra);
    nodes.push(node("QuantizeLinear", &[pool_out, "s", "z"], "out", vec![]));
    ModelProto {
        ir_version: 7,
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: 13,
        }],
        graph: Some(GraphProto {
            name: "net".into(),
            node: nodes,
            initializer: vec![
                scalar("s", data_type::FLOAT, 0.5f32.to_le_bytes().to_vec()),
                scalar("z", data_type::INT8, vec![0]),
            ],
            input: vec![io("in", &[1, 1, 8, 64])],
            output: vec![io("out", &[1, 1, 4, 4])],
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

/// The fixture's DLA network (see [`net_onnx_with`]).
pub fn net_onnx() -> Vec<u8> {
    net_onnx_with(None, "p")
}

/// The sha256 of `bytes` in hex, as the manifests write it.
pub fn sha(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A workspace with `manifests/kernels.toml`, `manifests/loadables.toml` and the artifacts;
/// schedules live in `app/` and name them `../manifests/...`.
pub struct Fixture {
    pub dir: PathBuf,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = scratch("fixture");
        let m = dir.join("manifests");
        std::fs::create_dir_all(m.join("bin")).unwrap();
        std::fs::create_dir_all(dir.join("app")).unwrap();
        // Real cubins (tests/fixtures/k.cu): the validator reads kernel parameter layouts
        // from them.
        let cubin = |sm: u32| {
            let path = repo_root().join(format!("tools/schedule/tests/fixtures/k.sm_{sm}.cubin"));
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let (sm87, sm90) = (cubin(87), cubin(90));
        let files = [
            ("bin/k.sm_87.cubin", sm87.as_slice()),
            ("bin/k.sm_90.cubin", sm90.as_slice()),
        ];
        let net = net_onnx();
        std::fs::write(m.join("bin/net.onnx"), &net).unwrap();
        for (name, bytes) in files {
            std::fs::write(m.join(name), bytes).unwrap();
        }
        let kernels = format!(
            r#"schema = 1
[toolchain]
nvcc = "13.0.88"

[[cubin]]
name = "k"
file = "bin/k.sm_87.cubin"
sm = 87
sha256 = "{}"
flags = ["-cubin"]
kernels = [{{ name = "scale", params = ["ptr", "ptr", "u32", "f32"] }}, "copy"]

[[cubin]]
name = "k"
file = "bin/k.sm_90.cubin"
sm = 90
sha256 = "{}"
kernels = [{{ name = "scale", params = ["ptr", "ptr", "u32", "f32"] }}, "copy"]
"#,
            sha(&sm87),
            sha(&sm90)
        );
        std::fs::write(m.join("kernels.toml"), kernels).unwrap();
        let loadables = format!(
            r#"manifest_version = 2
[[network]]
name = "net"
onnx = "bin/net.onnx"
onnx_sha256 = "{}"

  [[network.input]]
  name = "in"
  shape = [1, 1, 8, 64]
  data_type = "int8"
  size = 512

  [[network.output]]
  name = "out"
  shape = [1, 1, 4, 4]
  data_type = "int8"
  size = 256
  strides = [1, 64, 256, 256]
"#,
            sha(&net)
        );
        std::fs::write(m.join("loadables.toml"), loadables).unwrap();
        // PVA programs: the placeholder VPU ELF (tests/fixtures/placeholder.vpu.elf; real
        // VPU executables need the PVA SDK's VPU toolchain), under two names.
        let elf_path = repo_root().join("tools/schedule/tests/fixtures/placeholder.vpu.elf");
        let elf =
            std::fs::read(&elf_path).unwrap_or_else(|e| panic!("{}: {e}", elf_path.display()));
        std::fs::write(m.join("bin/blur.vpu.elf"), &elf).unwrap();
        std::fs::write(m.join("bin/acc.vpu.elf"), &elf).unwrap();
        let programs = format!(
            r#"[[program]]
name = "blur"
file = "bin/blur.vpu.elf"
sha256 = "{sha}"
params = [
    {{ name = "src", kind = "ptr", access = "read" }},
    {{ name = "dst", kind = "ptr", access = "write" }},
    {{ name = "width", kind = "u32" }},
    {{ name = "gain", kind = "f32" }},
]

[[program]]
name = "accumulate"
file = "bin/acc.vpu.elf"
sha256 = "{sha}"
params = [{{ name = "acc", kind = "ptr", access = "read_write" }}, {{ name = "bias", kind = "i32" }}]
"#,
            sha = sha(&elf)
        );
        std::fs::write(m.join("pva.toml"), programs).unwrap();
        Fixture { dir }
    }

    /// Where schedules are (virtually) located.
    pub fn schedule_path(&self) -> PathBuf {
        self.dir.join("app/schedule.toml")
    }

    /// Checks schedule text (the fixture header is prepended by [`with_header`] callers).
    pub fn check(&self, text: &str) -> Result<Report, Diagnostics> {
        orin_exec_schedule::check_str(&self.schedule_path(), text)
    }

    /// Checks and expects errors; returns the rendered diagnostics.
    pub fn errors(&self, text: &str) -> (Diagnostics, String) {
        match self.check(text) {
            Ok(report) => {
                panic!("expected errors, got a valid schedule:\n{report}\n--- schedule ---\n{text}")
            }
            Err(d) => {
                let s = d.to_string();
                (d, s)
            }
        }
    }

    /// Checks and expects errors, every one of `fragments` in the rendered diagnostics;
    /// returns them.
    pub fn rejects(&self, text: &str, fragments: &[&str]) -> (Diagnostics, String) {
        let (d, s) = self.errors(text);
        assert_has(&s, fragments);
        (d, s)
    }

    /// Checks and expects success.
    pub fn ok(&self, text: &str) -> Report {
        match self.check(text) {
            Ok(r) => r,
            Err(d) => panic!("expected a valid schedule, got:\n{d}\n--- schedule ---\n{text}"),
        }
    }
}

/// Compiles `main` (the source of a binary's `main.rs`) next to `files` (name, contents: the
/// generated schedules it includes) against the `orin-exec-table` crate (built here with rustc
/// from `table/src/lib.rs`) and runs it: its stdout, or the compiler's diagnostics when it does
/// not compile. `package_dir` is the `CARGO_MANIFEST_DIR` it is compiled with.
pub fn try_compile_and_run_main(
    files: &[(&str, &str)],
    main: &str,
    package_dir: Option<&Path>,
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
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents).unwrap();
    }
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

/// Compiles the generated schedules `files` (module name, source), each as a module of a
/// binary whose `main` is `main_body`, and runs it (see [`try_compile_and_run_main`]); the
/// schedules must compile.
pub fn compile_and_run_files(files: &[(String, String)], main_body: &str) -> String {
    let mut main = String::new();
    for (name, _) in files {
        main += &format!("pub mod {name} {{\n    include!(\"{name}.rs\");\n}}\n");
    }
    main += &format!("fn main() {{\n{main_body}}}\n");
    let named: Vec<(String, &str)> = files
        .iter()
        .map(|(name, source)| (format!("{name}.rs"), source.as_str()))
        .collect();
    let named: Vec<(&str, &str)> = named.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    try_compile_and_run_main(&named, &main, None)
        .unwrap_or_else(|e| panic!("the generated code does not compile:\n{e}"))
}

/// Options without cargo directives, generating the tables alone (the codegen tests compile
/// them against `orin-exec-table`; the typed binding is compiled by the AEB demo and its
/// compile-fail tests).
pub fn options() -> Options {
    Options {
        cargo_directives: false,
        runtime_path: None,
        ..Options::default()
    }
}

/// Checks (a variant of) the docs example as `examples/aeb/schedule.toml`.
pub fn check_docs(text: &str) -> Result<Report, Diagnostics> {
    orin_exec_schedule::check_str(&docs_example_path(), text)
}

/// Asserts that every fragment occurs in the rendered diagnostics.
pub fn assert_has(rendered: &str, fragments: &[&str]) {
    for f in fragments {
        assert!(rendered.contains(f), "missing {f:?} in:\n{rendered}");
    }
}

/// 1-based line of the first occurrence of `needle` in `text`, and its column.
pub fn pos(text: &str, needle: &str) -> (usize, usize) {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the schedule"));
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// Whether `d` points `offset` columns after the first occurrence of `needle` in `text`.
pub fn points_at(d: &Diagnostic, text: &str, needle: &str, offset: usize) -> bool {
    let (line, col) = pos(text, needle);
    (d.line, d.column) == (line, col + offset)
}

/// A schedule header: 10 ms period, two CPU workers, one GPU stream, one DLA core, the fixture
/// manifests, modes `a` and `b`.
pub const HEADER: &str = r#"name = "t"
profile = "sil"
period = "10ms"
lookahead = 1
kernels_manifest = "../manifests/kernels.toml"
loadables_manifest = "../manifests/loadables.toml"
modes = ["a", "b"]

[engines]
cpu = [{ name = "cpu0" }, { name = "cpu1" }]
gpu = [{ name = "gpu0", stream = 0 }]
dla = [{ name = "dla0", core = 0 }]
"#;

/// [`HEADER`] with the fixture's PVA programs manifest and two PVA engines: `pva0` (PVA 0,
/// VPU 0) and `pva1` (PVA 1, any VPU), then `body`.
pub fn with_pva_header(body: &str) -> String {
    let header = HEADER.replace(
        "modes = [",
        "pva_programs_manifest = \"../manifests/pva.toml\"\nmodes = [",
    );
    format!(
        "{header}pva = [{{ name = \"pva0\", index = 0, vpu = \"vpu0\" }}, {{ name = \"pva1\", index = 1 }}]\n\n{body}"
    )
}

/// A `[[task]]` on `pva0` running the fixture program `blur` from buffer `src` to `dst` for
/// 1 ms, then `lines`.
pub fn pva_task(name: &str, src: &str, dst: &str, lines: &[&str]) -> String {
    let params = format!(
        "params = {{ src = {{ buffer = \"{src}\" }}, dst = {{ buffer = \"{dst}\" }}, width = {{ u32 = 64 }}, gain = {{ f32 = 0.5 }} }}"
    );
    push_lines(
        task(
            name,
            "pva0",
            &["program = \"blur\"", &params, "wcet = \"1ms\""],
        ),
        lines,
    )
}

/// The generated `source` with its checked `SCHEDULE` replaced by the bare tables
/// (`SCHEDULE: &ScheduleTables`) and `fn checked()`, which returns what `Schedule::check` says
/// of them, so that a test can print its verdict instead of failing to build.
pub fn unchecked(source: &str) -> String {
    let checked = "pub static SCHEDULE: Schedule = match Schedule::check(&TABLES) {\n    Ok(s) => s,\n    Err(e) => panic!(\"{}\", e.message()),\n};";
    assert!(source.contains(checked), "{source}");
    source.replace(
        checked,
        "pub static SCHEDULE: &ScheduleTables = &TABLES;\npub fn checked() -> Result<Schedule, TableError> {\n    Schedule::check(&TABLES)\n}",
    )
}

/// `HEADER` followed by `body`.
pub fn with_header(body: &str) -> String {
    format!("{HEADER}\n{body}")
}

/// The first ```toml block of docs/schedule.md: the complete AEB example.
pub fn docs_example() -> String {
    let doc =
        std::fs::read_to_string(repo_root().join("docs/schedule.md")).expect("docs/schedule.md");
    let start = doc
        .find("```toml\n")
        .expect("a toml block in docs/schedule.md")
        + "```toml\n".len();
    let end = start + doc[start..].find("```").expect("end of the toml block");
    doc[start..end].to_owned()
}

/// Where the docs example lives in the repository (its manifest paths are relative to it).
pub fn docs_example_path() -> PathBuf {
    repo_root().join("examples/aeb/schedule.toml")
}

/// `text` with each `(from, to)` replaced in turn; every `from` must occur.
pub fn edited(text: &str, edits: &[(&str, &str)]) -> String {
    edits.iter().fold(text.to_owned(), |text, (from, to)| {
        assert!(text.contains(from), "{from:?} not in:\n{text}");
        text.replace(from, to)
    })
}

/// `text`, then `lines` (`key = value`), one a line.
fn push_lines(mut text: String, lines: &[&str]) -> String {
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// A `[[table]]` entry: its `name`, then `lines`.
pub fn entry(table: &str, name: &str, lines: &[&str]) -> String {
    push_lines(format!("\n[[{table}]]\nname = \"{name}\"\n"), lines)
}

/// A `[[buffer]]` of `kind`, then `lines`.
pub fn buffer(name: &str, kind: &str, lines: &[&str]) -> String {
    push_lines(
        entry("buffer", name, &[&format!("kind = \"{kind}\"")]),
        lines,
    )
}

/// A raw `[[buffer]]` of `size` bytes.
pub fn raw_buffer(name: &str, size: u64) -> String {
    buffer(name, "raw", &[&format!("size = {size}")])
}

/// A `[[task]]` on `engine`, then `lines`.
pub fn task(name: &str, engine: &str, lines: &[&str]) -> String {
    push_lines(
        entry("task", name, &[&format!("engine = \"{engine}\"")]),
        lines,
    )
}

/// A `[[task]]` on `engine` with `wcet`, then `lines`.
pub fn cpu_task(name: &str, engine: &str, wcet: &str, lines: &[&str]) -> String {
    push_lines(task(name, engine, &[&format!("wcet = \"{wcet}\"")]), lines)
}

/// The work fields of [`gpu_task`]: kernel `copy` of the fixture cubin `k`, for 1 ms.
pub const GPU_TASK: &str =
    "cubin = \"k\"\nkernel = \"copy\"\ngrid = 1\nblock = 1\nwcet = \"1ms\"\n";

/// A `[[task]]` on `gpu0`: `lines`, then [`GPU_TASK`].
pub fn gpu_task(name: &str, lines: &[&str]) -> String {
    task(name, "gpu0", lines) + GPU_TASK
}

/// A `[[task]]` on `dla0` running the fixture loadable `net` (its tensor `in` bound to
/// buffer `input`, `out` to `output`) for 1 ms, then `lines`.
pub fn dla_task(name: &str, input: &str, output: &str, lines: &[&str]) -> String {
    let bindings = [
        format!("inputs = {{ in = \"{input}\" }}"),
        format!("outputs = {{ out = \"{output}\" }}"),
    ];
    let head = [
        "network = \"net\"",
        &bindings[0],
        &bindings[1],
        "wcet = \"1ms\"",
    ];
    push_lines(task(name, "dla0", &head), lines)
}

/// A `[[health]]` rule, then `lines`.
pub fn health(fault: &str, action: &str, lines: &[&str]) -> String {
    push_lines(
        format!("\n[[health]]\nfault = \"{fault}\"\naction = \"{action}\"\n"),
        lines,
    )
}

/// The dependencies of generated task `i` from drawn `(task, lag)` pairs: same-frame ones
/// (lag 0) point back, so there are no cycles; lagged ones may point anywhere up to `i`.
/// Sorted, without repeats.
pub fn generated_deps<L: Copy + Ord + Default>(
    i: usize,
    drawn: Vec<(usize, L)>,
) -> Vec<(usize, L)> {
    let mut deps: Vec<(usize, L)> = drawn
        .into_iter()
        .filter_map(|(t, lag)| {
            if lag != L::default() {
                Some((t % (i + 1), lag))
            } else if i > 0 {
                Some((t % i, lag))
            } else {
                None
            }
        })
        .collect();
    deps.sort_unstable();
    deps.dedup();
    deps
}
