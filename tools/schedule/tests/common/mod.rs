//! Fixtures: a scratch directory with a kernels manifest, a loadables manifest and the files
//! they list, and helpers to check schedule text against them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use orin_exec_schedule::{Diagnostics, KernelSignature, Options, ParamKind, Report};
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

fn sha(bytes: &[u8]) -> String {
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
        let files = [
            ("bin/k.sm_87.cubin", b"cubin sm_87".as_slice()),
            ("bin/k.sm_90.cubin", b"cubin sm_90"),
            ("bin/net.sildla", b"loadable"),
        ];
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
            sha(b"cubin sm_87"),
            sha(b"cubin sm_90")
        );
        std::fs::write(m.join("kernels.toml"), kernels).unwrap();
        let loadables = format!(
            r#"manifest_version = 1
[[loadable]]
name = "net"
file = "bin/net.sildla"
sha256 = "{}"
format = "sil-dla"

  [[loadable.input]]
  name = "in"
  shape = [1, 1, 8, 8]
  data_type = "int8"
  size = 64

  [[loadable.output]]
  name = "out"
  shape = [1, 1, 4, 4]
  data_type = "int8"
  size = 256
  strides = [1, 64, 256, 256]
"#,
            sha(b"loadable")
        );
        std::fs::write(m.join("loadables.toml"), loadables).unwrap();
        Fixture { dir }
    }

    /// Where schedules are (virtually) located.
    pub fn schedule_path(&self) -> PathBuf {
        self.dir.join("app/schedule.toml")
    }

    /// Checks schedule text (the fixture header is prepended by [`with_header`] callers).
    pub fn check(&self, text: &str) -> Result<Report, Diagnostics> {
        orin_exec_schedule::check_str(&self.schedule_path(), text, &options())
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

    /// Checks and expects success.
    pub fn ok(&self, text: &str) -> Report {
        match self.check(text) {
            Ok(r) => r,
            Err(d) => panic!("expected a valid schedule, got:\n{d}\n--- schedule ---\n{text}"),
        }
    }
}

/// Options without cargo directives.
pub fn options() -> Options {
    Options {
        cargo_directives: false,
        ..Options::default()
    }
}

/// The AEB kernels' signatures (as `orin_exec_kernels::SIGNATURES` declares them).
pub fn aeb_signatures() -> Vec<KernelSignature> {
    use ParamKind::{Buffer as P, F32, I32, U32};
    vec![
        KernelSignature {
            kernel: "aeb_preprocess".into(),
            params: vec![P, P, U32, U32],
        },
        KernelSignature {
            kernel: "aeb_postprocess".into(),
            params: vec![P, U32, U32, I32, U32, U32, F32, F32, F32, F32, P],
        },
    ]
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
