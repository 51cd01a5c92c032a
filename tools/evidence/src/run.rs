//! One run, one id, one directory: the run id, the run directory (with its `latest` link) and
//! the run manifest `run.json` that ties the run to the artifacts, tools and binary that
//! produced it.
//!
//! A runner creates the directory, writes the manifest at start (status `running`) and
//! rewrites it at the end with the status and the pass criteria, so that a run that is killed
//! still leaves a manifest that says what was running:
//!
//! ```no_run
//! use std::path::Path;
//! use orin_exec_evidence::run::{Clock, RunDir, RunManifest, RunStatus};
//!
//! let dir = RunDir::create(Path::new("target/orin-exec/runs"))?; // runs/<id>, runs/latest
//! let mut manifest = RunManifest::new(dir.id(), "sil", Clock::Virtual, 300);
//! manifest.write(dir.path())?;
//! // ... run, write dir.file("trace.bin") ...
//! manifest.finish(RunStatus::Completed, Vec::new());
//! manifest.write(dir.path())?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! The file format is documented field by field on [`RunManifest`] (`docs/evidence.md` has
//! the overview).

use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use orin_exec_table::ScheduleTables;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Audit;

/// The files a run directory holds (and that a new run in the same directory removes first,
/// so that no file of an earlier run is mistaken for this run's).
pub const RUN_FILES: &[&str] = &[
    MANIFEST_FILE,
    TRACE_FILE,
    SUMMARY_FILE,
    PERFETTO_FILE,
    REPORT_FILE,
];
/// The run manifest.
pub const MANIFEST_FILE: &str = "run.json";
/// The raw trace.
pub const TRACE_FILE: &str = "trace.bin";
/// The runner's JSON summary.
pub const SUMMARY_FILE: &str = "summary.json";
/// The Perfetto / Chrome trace.
pub const PERFETTO_FILE: &str = "trace.perfetto.json";
/// The HTML report.
pub const REPORT_FILE: &str = "report.html";
/// The link (or, where links are not supported, a file holding the id) next to the run
/// directories that names the newest one.
pub const LATEST: &str = "latest";

/// A new run id: the UTC time and 8 random hex digits, `YYYYMMDDTHHMMSSZ-xxxxxxxx`.
pub fn new_run_id() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    // `RandomState` is seeded from the OS per process (and differs per instance).
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(now.as_nanos());
    h.write_u32(std::process::id());
    run_id_at(now.as_secs(), h.finish() as u32)
}

/// The run id of a run started at `unix_secs` with the random part `salt`.
///
/// ```
/// use orin_exec_evidence::run::{is_run_id, run_id_at};
/// let id = run_id_at(1_796_083_200, 0x1a2b3c4d);
/// assert_eq!(id, "20261201T000000Z-1a2b3c4d");
/// assert!(is_run_id(&id));
/// ```
pub fn run_id_at(unix_secs: u64, salt: u32) -> String {
    let (y, mo, d, h, mi, s) = civil(unix_secs);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z-{salt:08x}")
}

/// Whether `s` has the run id format `YYYYMMDDTHHMMSSZ-xxxxxxxx`.
pub fn is_run_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 25
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && b[16] == b'-'
        && b[17..]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

/// `unix_secs` as an RFC 3339 UTC time, e.g. `2026-12-01T00:00:00Z`.
///
/// ```
/// assert_eq!(orin_exec_evidence::run::utc(0), "1970-01-01T00:00:00Z");
/// ```
pub fn utc(unix_secs: u64) -> String {
    let (y, mo, d, h, mi, s) = civil(unix_secs);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// The current time as [`utc`].
pub fn now_utc() -> String {
    utc(SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs())
}

/// (year, month, day, hour, minute, second) of a Unix time (proleptic Gregorian, UTC).
fn civil(unix_secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (unix_secs / 86_400) as i64;
    let rem = unix_secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem / 60 % 60) as u32,
        (rem % 60) as u32,
    )
}

/// A run's directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    id: String,
    path: PathBuf,
}

impl RunDir {
    /// Create `runs/<new id>/` and point `runs/latest` at it (a relative symbolic link; a
    /// file holding the id where links are not supported).
    pub fn create(runs: &Path) -> io::Result<RunDir> {
        std::fs::create_dir_all(runs)?;
        let mut tries = 0;
        let (id, path) = loop {
            let id = new_run_id();
            let path = runs.join(&id);
            match std::fs::create_dir(&path) {
                Ok(()) => break (id, path),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
                Err(e) => return Err(annotate(e, &path)),
            }
        };
        point_latest(runs, &id)?;
        Ok(RunDir { id, path })
    }

    /// Use `dir` (created if needed) as the directory of a new run with a new id; the files
    /// an earlier run left there ([`RUN_FILES`] and `extra`) are removed first. No `latest`
    /// link: the caller chose the place.
    pub fn at(dir: &Path, extra: &[&str]) -> io::Result<RunDir> {
        std::fs::create_dir_all(dir).map_err(|e| annotate(e, dir))?;
        for name in RUN_FILES.iter().chain(extra) {
            let f = dir.join(name);
            match std::fs::remove_file(&f) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(annotate(e, &f)),
            }
        }
        Ok(RunDir {
            id: new_run_id(),
            path: dir.to_path_buf(),
        })
    }

    /// The run id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file of the run, e.g. `file(TRACE_FILE)`.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

fn annotate(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Point `runs/latest` at `runs/<id>`, replacing what was there in one rename.
fn point_latest(runs: &Path, id: &str) -> io::Result<()> {
    let latest = runs.join(LATEST);
    let tmp = runs.join(format!(".{LATEST}-{id}"));
    let _ = std::fs::remove_file(&tmp);
    #[cfg(unix)]
    std::os::unix::fs::symlink(id, &tmp).map_err(|e| annotate(e, &tmp))?;
    #[cfg(not(unix))]
    std::fs::write(&tmp, id).map_err(|e| annotate(e, &tmp))?;
    std::fs::rename(&tmp, &latest).map_err(|e| annotate(e, &latest))
}

/// What a run ended as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    /// Started and not (yet) ended: the state a killed run leaves.
    Running,
    /// Every planned frame ran.
    Completed,
    /// The health monitor stopped the executive (safe state).
    SafeStop,
    /// An error ended the run.
    Failed,
}

impl RunStatus {
    /// The name in `run.json`.
    pub fn name(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::SafeStop => "safe-stop",
            RunStatus::Failed => "failed",
        }
    }
}

/// The executive's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// `CLOCK_MONOTONIC`: timing is measured.
    Real,
    /// The SIL virtual clock: deterministic, timing is the models'.
    Virtual,
}

impl Clock {
    /// The virtual clock if `virtual_clock`, else the real one.
    pub fn of(virtual_clock: bool) -> Clock {
        if virtual_clock {
            Clock::Virtual
        } else {
            Clock::Real
        }
    }
}

/// The git commit the tools were built from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitInfo {
    /// The commit hash, or `unknown` (no git, or not built from a checkout).
    pub commit: String,
    /// Uncommitted changes to tracked files at build time (`null`: unknown).
    pub dirty: Option<bool>,
}

impl GitInfo {
    /// As captured when this crate was built (`build.rs`: `git rev-parse HEAD` and
    /// `git status --porcelain --untracked-files=no`).
    pub fn of_build() -> GitInfo {
        GitInfo {
            commit: env!("ORIN_EXEC_BUILD_GIT_COMMIT").to_string(),
            dirty: match env!("ORIN_EXEC_BUILD_GIT_DIRTY") {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
        }
    }
}

/// Compilers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toolchain {
    /// `rustc -vV` of the build (first line and host), or `unknown`.
    pub rustc: String,
    /// The nvcc that built the cubins, from the kernels manifest (`null`: not recorded).
    pub nvcc: Option<String>,
}

/// The schedule that ran.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleRef {
    /// The schedule's name.
    pub name: String,
    /// Its TOML file.
    pub path: String,
    /// SHA-256 of the TOML the tables were generated from (compiled into the binary).
    pub sha256: String,
}

/// What kind of artifact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactKind {
    /// The schedule TOML.
    Schedule,
    /// A GPU module.
    Cubin,
    /// A real, TensorRT-built DLA loadable (what `orin` runs).
    Loadable,
    /// A DLA network's ONNX model (what the SIL DLA runs and TensorRT compiles).
    Onnx,
    /// The binary that ran.
    Binary,
}

/// One artifact of a run, with its hash and the reference it was compared with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    /// Kind.
    pub kind: ArtifactKind,
    /// Name (cubins: `<module>.sm_<N>`).
    pub name: String,
    /// Its file (relative to the current directory where it lies below it).
    pub path: String,
    /// SHA-256 of the bytes this run used: for the schedule, cubins and loadables the copy
    /// compiled into the binary; for ONNX models and the binary, the file.
    pub sha256: String,
    /// The SHA-256 its manifest records (the schedule: the TOML file on disk now), `null`
    /// where there is nothing to compare with.
    pub manifest_sha256: Option<String>,
    /// Where `manifest_sha256` comes from, e.g. `kernels/manifest.toml`.
    #[serde(default)]
    pub manifest: Option<String>,
    /// `sha256 == manifest_sha256` (true when there is no manifest hash).
    pub matches: bool,
}

impl Artifact {
    fn new(
        kind: ArtifactKind,
        name: String,
        path: String,
        sha256: String,
        reference: Option<(String, String)>,
    ) -> Artifact {
        let matches = reference.as_ref().is_none_or(|(h, _)| *h == sha256);
        let (manifest_sha256, manifest) = reference.unzip();
        Artifact {
            kind,
            name,
            path,
            sha256,
            manifest_sha256,
            manifest,
            matches,
        }
    }
}

/// The audit of the binary that ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunAudit {
    /// The audit.
    #[serde(flatten)]
    pub audit: Audit,
    /// [`Audit::ok`].
    pub pass: bool,
    /// On `sil`: what the audit can and cannot show there (see [`SIL_STATEMENT`]).
    pub sil_statement: Option<String>,
}

/// What the binary audit means on `sil`.
pub const SIL_STATEMENT: &str = "On `sil` the SIL twins of libnvscisync, libnvscibuf, libcudla \
and the CUDA driver are linked statically into this binary, so it imports no vendor symbol: \
the audit shows that no forbidden API (managed memory, JIT, dynamic loading) is imported and \
that no PTX or fatbin is embedded, but it cannot show which vendor calls a `rig` or `orin` \
build makes. Audit that build's binary for those.";

/// One pass criterion and its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Criterion {
    /// What is required.
    pub name: String,
    /// Met.
    pub pass: bool,
    /// What was measured.
    pub detail: String,
}

impl Criterion {
    /// A criterion.
    pub fn new(name: impl Into<String>, pass: bool, detail: impl Into<String>) -> Criterion {
        Criterion {
            name: name.into(),
            pass,
            detail: detail.into(),
        }
    }
}

/// `run.json`: what ran, where, from what, built by what, and how it ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    /// The run id ([`new_run_id`]).
    pub run_id: String,
    /// When the run started (RFC 3339, UTC).
    pub started_utc: String,
    /// When it ended (`null` while running, or when it was killed).
    pub ended_utc: Option<String>,
    /// How it ended.
    pub status: RunStatus,
    /// The host name.
    pub host: String,
    /// `sil`, `rig` or `orin`.
    pub platform: String,
    /// The executive's clock.
    pub clock: Clock,
    /// The command line.
    pub command: Vec<String>,
    /// The commit the tools were built from.
    pub git: GitInfo,
    /// rustc and nvcc.
    pub toolchain: Toolchain,
    /// The platform report (libraries, versions, devices, real-time permissions).
    pub platform_report: String,
    /// The schedule.
    pub schedule: ScheduleRef,
    /// Schedule, cubins, loadables, ONNX models, the binary.
    pub artifacts: Vec<Artifact>,
    /// The binary's audit (`null`: not audited).
    pub audit: Option<RunAudit>,
    /// Heap allocations from the first frame after `seal()` to the last (`null`: not
    /// measured).
    pub allocations_after_seal: Option<u64>,
    /// The pass criteria (empty while running).
    pub criteria: Vec<Criterion>,
    /// Frames the run was asked to run.
    pub frames_planned: u64,
}

/// Errors reading a run manifest.
#[derive(Debug)]
pub enum ManifestError {
    /// The file could not be read.
    Io(PathBuf, io::Error),
    /// It is not a run manifest.
    Format(PathBuf, serde_json::Error),
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ManifestError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            ManifestError::Format(p, e) => {
                write!(f, "{}: not a run manifest: {e}", p.display())
            }
        }
    }
}

impl std::error::Error for ManifestError {}

impl RunManifest {
    /// A manifest for a run starting now: status `running`, the host, the command line, the
    /// build's git commit and rustc. Schedule, artifacts, audit and platform report are
    /// added with [`RunManifest::with_schedule`], [`RunManifest::with_binary`] and
    /// [`RunManifest::platform_report`].
    pub fn new(run_id: &str, platform: &str, clock: Clock, frames_planned: u64) -> RunManifest {
        RunManifest {
            run_id: run_id.to_string(),
            started_utc: now_utc(),
            ended_utc: None,
            status: RunStatus::Running,
            host: host_name(),
            platform: platform.to_string(),
            clock,
            command: std::env::args().collect(),
            git: GitInfo::of_build(),
            toolchain: Toolchain {
                rustc: env!("ORIN_EXEC_BUILD_RUSTC").to_string(),
                nvcc: None,
            },
            platform_report: String::new(),
            schedule: ScheduleRef::default(),
            artifacts: Vec::new(),
            audit: None,
            allocations_after_seal: None,
            criteria: Vec::new(),
            frames_planned,
        }
    }

    /// Record the platform report's text.
    pub fn platform_report(&mut self, text: impl Into<String>) -> &mut Self {
        self.platform_report = text.into();
        self
    }

    /// Record the schedule and hash its artifacts: the schedule TOML (`built_from`: the TOML
    /// the tables were generated from, e.g. `include_bytes!` of it; compared with the file at
    /// `toml_path`), every cubin variant and loadable of `tables` (the images compiled into
    /// the binary, compared with the kernels and loadables manifests the TOML names, or with
    /// the hashes compiled into the tables when the manifests cannot be read), and the ONNX
    /// models the loadables manifest names. The nvcc version comes from the kernels manifest.
    pub fn with_schedule(
        &mut self,
        tables: &ScheduleTables,
        toml_path: &Path,
        built_from: &[u8],
    ) -> &mut Self {
        let built_sha = sha256_hex(built_from);
        let shown_toml = shown(toml_path);
        self.schedule = ScheduleRef {
            name: tables.name.to_string(),
            path: shown_toml.clone(),
            sha256: built_sha.clone(),
        };
        let on_disk = std::fs::read(toml_path)
            .ok()
            .map(|b| (sha256_hex(&b), format!("{shown_toml} (the file now)")));
        self.artifacts.push(Artifact::new(
            ArtifactKind::Schedule,
            tables.name.to_string(),
            shown_toml,
            built_sha,
            on_disk,
        ));

        // The manifests the schedule names, relative to its directory.
        let keys: Option<toml::Table> = std::str::from_utf8(built_from)
            .ok()
            .and_then(|t| t.parse().ok());
        let base = toml_path.parent().unwrap_or(Path::new("."));
        let manifest = |key: &str| -> Option<(PathBuf, toml::Table)> {
            let rel = keys.as_ref()?.get(key)?.as_str()?;
            let path = normalize(&base.join(rel));
            let table = std::fs::read_to_string(&path).ok()?.parse().ok()?;
            Some((path, table))
        };
        let kernels = manifest("kernels_manifest");
        let loadables = manifest("loadables_manifest");

        if let Some((_, k)) = &kernels {
            self.toolchain.nvcc = k
                .get("toolchain")
                .and_then(|t| t.get("nvcc_version").or_else(|| t.get("nvcc")))
                .and_then(|v| v.as_str())
                .or_else(|| {
                    entries(k, "cubin")
                        .next()
                        .and_then(|c| c.get("nvcc_version")?.as_str())
                })
                .map(str::to_string);
        }
        let compiled = "schedule tables (compiled in)".to_string();
        for c in tables.cubins {
            for v in c.variants {
                let entry = kernels.as_ref().and_then(|(path, k)| {
                    entries(k, "cubin")
                        .find(|e| {
                            e.get("name").and_then(|n| n.as_str()) == Some(c.name)
                                && e.get("sm").and_then(|s| s.as_integer()) == Some(i64::from(v.sm))
                        })
                        .map(|e| (path, e))
                });
                let (path, reference) = match entry {
                    Some((mpath, e)) => (
                        e.get("file").and_then(|f| f.as_str()).map_or_else(
                            || "(embedded)".to_string(),
                            |f| shown(&sibling(mpath, f)),
                        ),
                        e.get("sha256")
                            .and_then(|h| h.as_str())
                            .map(|h| (h.to_string(), shown(mpath))),
                    ),
                    None => (
                        "(embedded)".to_string(),
                        Some((hex(&v.sha256), compiled.clone())),
                    ),
                };
                self.artifacts.push(Artifact::new(
                    ArtifactKind::Cubin,
                    format!("{}.sm_{}", c.name, v.sm),
                    path,
                    sha256_hex(v.image),
                    reference,
                ));
            }
        }
        // DLA networks: the ONNX model the tables carry (what the SIL DLA runs) and, when
        // registered, the real loadable built from it (what orin runs), each against its
        // `[[network]]` entry of the loadables manifest (`onnx`/`onnx_sha256`,
        // `loadable`/`loadable_sha256`).
        for l in tables.loadables {
            let entry = loadables.as_ref().and_then(|(path, m)| {
                entries(m, "network")
                    .find(|e| e.get("name").and_then(|n| n.as_str()) == Some(l.name))
                    .map(|e| (path, e))
            });
            let images = core::iter::once((ArtifactKind::Onnx, "onnx", l.onnx, l.onnx_sha256))
                .chain(
                    l.loadable
                        .map(|r| (ArtifactKind::Loadable, "loadable", r.image, r.sha256)),
                );
            for (kind, key, image, compiled_sha) in images {
                let (path, reference) = match entry {
                    Some((mpath, e)) => (
                        e.get(key).and_then(|f| f.as_str()).map_or_else(
                            || "(embedded)".to_string(),
                            |f| shown(&sibling(mpath, f)),
                        ),
                        e.get(&format!("{key}_sha256"))
                            .and_then(|h| h.as_str())
                            .map(|h| (h.to_string(), shown(mpath))),
                    ),
                    None => (
                        "(embedded)".to_string(),
                        Some((hex(&compiled_sha), compiled.clone())),
                    ),
                };
                self.artifacts.push(Artifact::new(
                    kind,
                    l.name.to_string(),
                    path,
                    sha256_hex(image),
                    reference,
                ));
            }
        }
        self
    }

    /// Hash and audit the binary at `exe` (normally `std::env::current_exe()`); on `sil`
    /// (`platform`) the audit carries [`SIL_STATEMENT`]. A binary that cannot be read is
    /// recorded as unaudited and fails [`RunManifest::evidence_criteria`].
    pub fn with_binary(&mut self, exe: &Path) -> &mut Self {
        let sha = std::fs::read(exe)
            .map(|b| sha256_hex(&b))
            .unwrap_or_else(|e| format!("unreadable: {e}"));
        self.artifacts.push(Artifact::new(
            ArtifactKind::Binary,
            exe.file_name()
                .map_or_else(|| "binary".into(), |n| n.to_string_lossy().into_owned()),
            shown(exe),
            sha,
            None,
        ));
        self.audit = Audit::of_file(exe).ok().map(|audit| RunAudit {
            pass: audit.ok(),
            audit,
            sil_statement: (self.platform == "sil").then(|| SIL_STATEMENT.to_string()),
        });
        self
    }

    /// The criteria every run has: artifacts match their manifests, the binary audit passes,
    /// and (where measured) no allocation after `seal()`.
    pub fn evidence_criteria(&self) -> Vec<Criterion> {
        let mut out = Vec::new();
        let mismatched: Vec<&str> = self
            .artifacts
            .iter()
            .filter(|a| !a.matches)
            .map(|a| a.name.as_str())
            .collect();
        let compared = self
            .artifacts
            .iter()
            .filter(|a| a.manifest_sha256.is_some())
            .count();
        out.push(Criterion::new(
            "artifacts match their manifests",
            mismatched.is_empty() && compared > 0,
            if mismatched.is_empty() {
                format!(
                    "{compared} of {} artifacts compared, all equal ({} without a manifest)",
                    self.artifacts.len(),
                    self.artifacts.len() - compared
                )
            } else {
                format!("different: {}", mismatched.join(", "))
            },
        ));
        out.push(match &self.audit {
            Some(a) => Criterion::new(
                "binary audit: no forbidden import, no embedded PTX or fatbin",
                a.pass,
                format!(
                    "{} forbidden imports, {} embedded PTX, {} embedded fatbins, {} cubins",
                    a.audit.forbidden_imports.len(),
                    a.audit.embedded_ptx_offsets.len(),
                    a.audit.embedded_fatbin_offsets.len(),
                    a.audit.embedded_cubins
                ),
            ),
            None => Criterion::new(
                "binary audit: no forbidden import, no embedded PTX or fatbin",
                false,
                "the binary could not be audited",
            ),
        });
        if let Some(n) = self.allocations_after_seal {
            out.push(Criterion::new(
                "no heap allocation after seal()",
                n == 0,
                format!("{n} allocations from the first frame to the last"),
            ));
        }
        out
    }

    /// End the run: the time, the status and the criteria.
    pub fn finish(&mut self, status: RunStatus, criteria: Vec<Criterion>) {
        self.ended_utc = Some(now_utc());
        self.status = status;
        self.criteria = criteria;
    }

    /// Write `dir/run.json` (through a temporary file and a rename, so a reader never sees
    /// half a manifest).
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        let path = dir.join(MANIFEST_FILE);
        let tmp = dir.join(format!(".{MANIFEST_FILE}.tmp"));
        let text = orin_exec_trace::json_pretty(self)?;
        std::fs::write(&tmp, text).map_err(|e| annotate(e, &tmp))?;
        std::fs::rename(&tmp, &path).map_err(|e| annotate(e, &path))
    }

    /// Read a `run.json`.
    pub fn read(path: &Path) -> Result<RunManifest, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|e| ManifestError::Io(path.into(), e))?;
        serde_json::from_str(&text).map_err(|e| ManifestError::Format(path.into(), e))
    }
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The host's name (`unknown` if it cannot be found).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn entries<'a>(t: &'a toml::Table, key: &str) -> impl Iterator<Item = &'a toml::Table> {
    t.get(key)
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_table())
}

/// `file` relative to the directory of `manifest`.
fn sibling(manifest: &Path, file: &str) -> PathBuf {
    normalize(&manifest.parent().unwrap_or(Path::new(".")).join(file))
}

/// `a/b/../c` → `a/c`, lexically.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// `p` relative to the current directory where it lies below it, else as an absolute path.
fn shown(p: &Path) -> String {
    let abs = if p.is_absolute() {
        normalize(p)
    } else {
        std::env::current_dir()
            .map(|d| normalize(&d.join(p)))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    std::env::current_dir()
        .ok()
        .and_then(|cwd| abs.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or(abs)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-EVD-001
    #[test]
    fn utc_and_run_ids() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_796_083_199), "2026-11-30T23:59:59Z");
        let id = new_run_id();
        assert!(is_run_id(&id), "{id}");
        assert_ne!(new_run_id()[16..], id[16..], "the random part differs");
        assert!(!is_run_id("20261201T000000Z-1A2B3C4D"));
        assert!(!is_run_id("20261201T000000Z-1a2b3c4"));
    }

    /// Covers: REQ-EVD-002
    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Path::new("examples/aeb/../../kernels/./manifest.toml")),
            PathBuf::from("kernels/manifest.toml")
        );
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
    }

    /// Covers: REQ-EVD-001
    #[test]
    fn run_dirs_and_latest() {
        let root =
            std::env::temp_dir().join(format!("orin-exec-evidence-run-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let runs = root.join("runs");
        let a = RunDir::create(&runs).unwrap();
        let b = RunDir::create(&runs).unwrap();
        assert_ne!(a.id(), b.id());
        assert!(a.path().is_dir() && b.path().is_dir());
        let latest = runs.join(LATEST);
        #[cfg(unix)]
        assert_eq!(std::fs::read_link(&latest).unwrap(), PathBuf::from(b.id()));
        assert!(latest.join(".").canonicalize().unwrap() == b.path().canonicalize().unwrap());

        // A run in a given directory removes an earlier run's files, and only those.
        let dir = root.join("given");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(SUMMARY_FILE), "old").unwrap();
        std::fs::write(dir.join("notes.txt"), "keep").unwrap();
        std::fs::write(dir.join("outputs.csv"), "old").unwrap();
        let c = RunDir::at(&dir, &["outputs.csv"]).unwrap();
        assert!(is_run_id(c.id()));
        assert!(!dir.join(SUMMARY_FILE).exists() && !dir.join("outputs.csv").exists());
        assert!(dir.join("notes.txt").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    /// Covers: REQ-EVD-001, REQ-EVD-002
    #[test]
    fn manifest_round_trip_and_criteria() {
        let dir =
            std::env::temp_dir().join(format!("orin-exec-evidence-man-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut m = RunManifest::new("20261201T000000Z-00000001", "sil", Clock::Virtual, 10);
        m.with_binary(&std::env::current_exe().unwrap());
        m.allocations_after_seal = Some(0);
        m.write(&dir).unwrap();
        let back = RunManifest::read(&dir.join(MANIFEST_FILE)).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.status, RunStatus::Running);
        let text = std::fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap();
        assert!(text.contains("\"status\": \"running\"") && text.contains("\"ended_utc\": null"));
        assert!(
            m.audit.as_ref().unwrap().sil_statement.is_some(),
            "sil states what the audit shows there"
        );

        // No artifact with a manifest: the artifact criterion cannot pass.
        let c = m.evidence_criteria();
        assert!(!c[0].pass, "{c:?}");
        assert!(c[1].pass, "{c:?}");
        assert!(c[2].pass, "{c:?}");
        m.allocations_after_seal = Some(3);
        m.artifacts[0].manifest_sha256 = Some("00".into());
        m.artifacts[0].matches = false;
        let c = m.evidence_criteria();
        assert!(!c[0].pass && c[0].detail.contains("different"), "{c:?}");
        assert!(!c[2].pass && c[2].detail.starts_with("3 "), "{c:?}");

        m.finish(RunStatus::SafeStop, c);
        m.write(&dir).unwrap();
        let text = std::fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap();
        assert!(text.contains("\"status\": \"safe-stop\""), "{text}");
        assert!(
            RunManifest::read(&dir.join(MANIFEST_FILE))
                .unwrap()
                .ended_utc
                .is_some()
        );
        std::fs::write(dir.join(MANIFEST_FILE), "{}").unwrap();
        let e = RunManifest::read(&dir.join(MANIFEST_FILE)).unwrap_err();
        assert!(e.to_string().contains("not a run manifest"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
