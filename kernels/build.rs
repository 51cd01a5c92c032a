//! Verifies (and, with the pinned nvcc, rebuilds) the cubins, and generates the `CUBINS` table.
//!
//! On every build, for every `[[cubin]]` of `manifest.toml`:
//! * the cubin's and the source's sha256 equal the manifest's;
//! * the flags are SASS-only (`-cubin`, one `-gencode arch=compute_S,code=sm_S`, no `-G`);
//! * `cubin_check::check_cubin(image, sm)` accepts it (ELF cubin for that SM, no PTX, no
//!   fatbin), the SASS was produced by the manifest's nvcc version (`.note.nv.tkinfo`), and it
//!   exports exactly the manifest's kernels;
//! * each kernel's `params` (manifest kinds `ptr`, `u32`, `i32`, `u64`, `f32`) have the count,
//!   sizes and offsets of the cubin's `EIATTR_KPARAM_INFO`, a kernel has the same `params` in
//!   every entry, and every kernel is in exactly one cubin per SM.
//!
//! nvcc: `$ORIN_EXEC_NVCC` (a path; `none` disables the rebuild; a path that is not the pinned
//! nvcc fails the build), else `<workspace>/.venv/lib/python3.*/site-packages/nvidia/cu13/bin/nvcc`,
//! else `nvcc` on `PATH`; a candidate is used only if `nvcc --version` reports exactly
//! `release <major.minor>, V<manifest nvcc>`. With it, every cubin is rebuilt into `OUT_DIR`
//! with the manifest's flags and the build fails if any sha256 differs. Without it, the
//! committed cubins are used after the checks above (no warning; `CUBIN_PROVENANCE` records it).

use orin_exec_kernel_model::{ParamKind, param_offset};

use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const SMS: [u32; 2] = [87, 90];

type Result<T> = std::result::Result<T, String>;

struct Entry {
    name: String,
    file: String,
    sm: u32,
    sha256: [u8; 32],
    source: String,
    source_sha256: [u8; 32],
    nvcc: String,
    nvcc_version: String,
    flags: Vec<String>,
    kernels: Vec<Kernel>,
}

struct Kernel {
    name: String,
    params: Vec<ParamKind>,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: orin-exec-kernels build.rs: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let dir = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
    let out_dir = PathBuf::from(env("OUT_DIR")?);
    for p in ["manifest.toml", "cuda", "cubins"] {
        println!("cargo::rerun-if-changed={}", dir.join(p).display());
    }
    println!("cargo::rerun-if-env-changed=ORIN_EXEC_NVCC");

    let manifest_path = dir.join("manifest.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|e| format!("cannot read {}: {e}", manifest_path.display()))?;
    let entries = parse_manifest(&text)?;

    let mut images = Vec::new();
    for e in &entries {
        images.push(check_entry(&dir, e)?);
    }
    check_kernels(&entries)?;

    let provenance = match find_nvcc(&dir, &entries[0].nvcc)? {
        Some(nvcc) => {
            rebuild_all(&dir, &out_dir, &nvcc, &entries)?;
            format!(
                "rebuilt with {} (V{}): all {} cubins reproduce the manifest sha256",
                nvcc.display(),
                entries[0].nvcc,
                entries.len()
            )
        }
        None => format!(
            "committed cubins checked against the manifest sha256 ({} cubins; pinned nvcc {} not found)",
            entries.len(),
            entries[0].nvcc_version
        ),
    };
    println!("cargo::rustc-env=ORIN_EXEC_KERNELS_CUBIN_PROVENANCE={provenance}");

    let code = generate(&dir, &entries, &images);
    let dest = out_dir.join("cubins.rs");
    std::fs::write(&dest, code).map_err(|e| format!("cannot write {}: {e}", dest.display()))
}

fn env(key: &str) -> Result<String> {
    std::env::var(key).map_err(|_| format!("${key} is not set"))
}

// ---------------------------------------------------------------------------------------------
// Manifest.

fn parse_manifest(text: &str) -> Result<Vec<Entry>> {
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("manifest.toml is not valid TOML: {e}"))?;
    match table.get("schema").and_then(toml::Value::as_integer) {
        Some(1) => {}
        other => {
            return Err(format!(
                "manifest.toml: unsupported schema {other:?} (want 1)"
            ));
        }
    }
    let cubins = table
        .get("cubin")
        .and_then(toml::Value::as_array)
        .ok_or("manifest.toml: no [[cubin]] entries")?;
    let mut entries = Vec::new();
    for (i, v) in cubins.iter().enumerate() {
        let t = v
            .as_table()
            .ok_or(format!("manifest.toml: cubin #{i} is not a table"))?;
        let s = |k: &str| -> Result<String> {
            t.get(k)
                .and_then(toml::Value::as_str)
                .map(str::to_owned)
                .ok_or(format!(
                    "manifest.toml: cubin #{i}: `{k}` missing or not a string"
                ))
        };
        let list = |k: &str| -> Result<Vec<String>> {
            t.get(k)
                .and_then(toml::Value::as_array)
                .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_owned)).collect())
                .ok_or(format!(
                    "manifest.toml: cubin #{i}: `{k}` missing or not a list of strings"
                ))
        };
        let sm = t
            .get("sm")
            .and_then(toml::Value::as_integer)
            .and_then(|x| u32::try_from(x).ok())
            .ok_or(format!(
                "manifest.toml: cubin #{i}: `sm` missing or not an integer"
            ))?;
        let file = s("file")?;
        let hash = |k: &str| -> Result<[u8; 32]> {
            parse_hex32(&s(k)?).ok_or(format!("manifest.toml: {file}: `{k}` is not 64 hex digits"))
        };
        entries.push(Entry {
            name: s("name")?,
            sm,
            sha256: hash("sha256")?,
            source: s("source")?,
            source_sha256: hash("source_sha256")?,
            nvcc: s("nvcc")?,
            nvcc_version: s("nvcc_version")?,
            flags: list("flags")?,
            kernels: kernels(t, &file)?,
            file,
        });
    }
    let first = entries
        .first()
        .ok_or("manifest.toml: no [[cubin]] entries")?;
    let (nvcc, nvcc_version) = (first.nvcc.clone(), first.nvcc_version.clone());
    let mut seen = BTreeSet::new();
    for e in &entries {
        if e.nvcc != nvcc || e.nvcc_version != nvcc_version {
            return Err(format!(
                "manifest.toml: {}: built by another nvcc than the others",
                e.file
            ));
        }
        if nvcc_version != format!("V{nvcc}") {
            return Err(format!(
                "manifest.toml: nvcc {nvcc:?} and nvcc_version {nvcc_version:?} disagree"
            ));
        }
        if !seen.insert((e.name.clone(), e.sm)) {
            return Err(format!(
                "manifest.toml: {} sm_{} listed twice",
                e.name, e.sm
            ));
        }
        if e.file != format!("cubins/{}.sm_{}.cubin", e.name, e.sm)
            || e.source != format!("cuda/{}.cu", e.name)
        {
            return Err(format!(
                "manifest.toml: {}: expected file cubins/{n}.sm_{sm}.cubin from cuda/{n}.cu",
                e.file,
                n = e.name,
                sm = e.sm
            ));
        }
    }
    Ok(entries)
}

/// `kernels = [{ name = "k", params = ["ptr", "u32"] }, ...]`.
fn kernels(t: &toml::Table, file: &str) -> Result<Vec<Kernel>> {
    let bad = |what: String| {
        format!(
            "manifest.toml: {file}: {what} (want `kernels = [{{ name = \"kernel\", params = \
             [\"ptr\", \"u32\", ...] }}, ...]`; run kernels/rebuild.sh)"
        )
    };
    let list = t
        .get("kernels")
        .and_then(toml::Value::as_array)
        .ok_or_else(|| bad("`kernels` missing or not a list".into()))?;
    let mut out = Vec::new();
    for (i, k) in list.iter().enumerate() {
        let name = k
            .get("name")
            .and_then(toml::Value::as_str)
            .ok_or_else(|| bad(format!("kernel #{i} has no `name`")))?;
        let params = k
            .get("params")
            .and_then(toml::Value::as_array)
            .ok_or_else(|| bad(format!("kernel `{name}` has no `params` list")))?
            .iter()
            .enumerate()
            .map(|(j, p)| {
                p.as_str().and_then(ParamKind::parse).ok_or_else(|| {
                    bad(format!(
                        "kernel `{name}` parameter {j}: {p} is not a kind (ptr, u32, i32, u64, f32)"
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        out.push(Kernel {
            name: name.to_owned(),
            params,
        });
    }
    Ok(out)
}

fn parse_hex32(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *o = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

// ---------------------------------------------------------------------------------------------
// Checks on the committed files.

fn check_flags(e: &Entry) -> Result<()> {
    let want = format!("arch=compute_{sm},code=sm_{sm}", sm = e.sm);
    let f = &e.flags;
    let gencodes: Vec<_> = f
        .iter()
        .enumerate()
        .filter(|(_, x)| *x == "-gencode")
        .collect();
    let ok = f.iter().any(|x| x == "-cubin")
        && gencodes.len() == 1
        && gencodes
            .first()
            .is_some_and(|(i, _)| f.get(i + 1) == Some(&want))
        && !f.iter().any(|x| {
            matches!(
                x.as_str(),
                "-G" | "--device-debug" | "-ptx" | "-fatbin" | "-use_fast_math"
            ) || x.starts_with("-arch")
                || x.starts_with("--gpu-architecture")
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{}: flags {:?} are not SASS-only for sm_{} (need -cubin and exactly one `-gencode {want}`; \
             no -arch, -G, -ptx, -fatbin, -use_fast_math)",
            e.file, f, e.sm
        ))
    }
}

fn check_entry(dir: &Path, e: &Entry) -> Result<Vec<u8>> {
    let path = dir.join(&e.file);
    let image =
        std::fs::read(&path).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let got = sha256(&image);
    if got != e.sha256 {
        return Err(format!(
            "{}: sha256 {} differs from manifest.toml ({}); run kernels/rebuild.sh or restore the file",
            e.file,
            hex(&got),
            hex(&e.sha256)
        ));
    }
    let src_path = dir.join(&e.source);
    let src = std::fs::read(&src_path)
        .map_err(|err| format!("cannot read {}: {err}", src_path.display()))?;
    let got = sha256(&src);
    if got != e.source_sha256 {
        return Err(format!(
            "{}: sha256 {} differs from manifest.toml ({}): the source changed; run kernels/rebuild.sh \
             to rebuild its cubins and rewrite the manifest",
            e.source,
            hex(&got),
            hex(&e.source_sha256)
        ));
    }
    check_flags(e)?;
    let info =
        cubin_check::check_cubin(&image, e.sm).map_err(|err| format!("{}: {err}", e.file))?;
    match info.toolkit() {
        Some(tk) if tk.version.ends_with(&format!(", {}", e.nvcc_version)) => {}
        tk => {
            return Err(format!(
                "{}: the cubin's .note.nv.tkinfo says {:?}, the manifest says nvcc {}",
                e.file,
                tk.map(|t| t.version),
                e.nvcc_version
            ));
        }
    }
    let in_cubin: BTreeSet<&str> = info.kernel_names().collect();
    let in_manifest: BTreeSet<&str> = e.kernels.iter().map(|k| k.name.as_str()).collect();
    if in_cubin != in_manifest {
        return Err(format!(
            "{}: exports kernels {in_cubin:?}, manifest.toml lists {in_manifest:?}",
            e.file
        ));
    }
    for k in info.kernels() {
        let declared = e
            .kernels
            .iter()
            .find(|d| d.name == k.name())
            .map(|d| d.params.as_slice())
            .unwrap_or_default();
        let sizes: Vec<usize> = k.params().map(|p| usize::from(p.size)).collect();
        let want: Vec<usize> = declared.iter().map(|p| p.size()).collect();
        let offsets: Vec<usize> = k.params().map(|p| usize::from(p.offset)).collect();
        let want_offsets: Vec<usize> = (0..declared.len())
            .filter_map(|i| param_offset(declared, i))
            .collect();
        if sizes != want || offsets != want_offsets {
            let keys: Vec<&str> = declared.iter().map(|p| p.key()).collect();
            return Err(format!(
                "{}: kernel `{}` has parameter sizes {sizes:?} at offsets {offsets:?} in the cubin, \
                 but manifest.toml says params = {keys:?} (sizes {want:?}, offsets {want_offsets:?}); \
                 run kernels/rebuild.sh",
                e.file,
                k.name(),
            ));
        }
    }
    Ok(image)
}

/// Every kernel is in exactly one cubin per SM, with the same `params` everywhere.
fn check_kernels(entries: &[Entry]) -> Result<()> {
    for k in entries.iter().flat_map(|e| &e.kernels) {
        for sm in SMS {
            let n = entries
                .iter()
                .filter(|e| e.sm == sm && e.kernels.iter().any(|x| x.name == k.name))
                .count();
            if n != 1 {
                return Err(format!(
                    "kernel `{}` is in {n} sm_{sm} cubins of manifest.toml; every kernel must be in \
                     exactly one cubin per SM ({SMS:?})",
                    k.name
                ));
            }
        }
        let other = entries
            .iter()
            .flat_map(|e| &e.kernels)
            .find(|x| x.name == k.name && x.params != k.params);
        if let Some(other) = other {
            return Err(format!(
                "kernel `{}` has params {:?} in one cubin of manifest.toml and {:?} in another",
                k.name, k.params, other.params
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// nvcc.

/// The line `nvcc --version` prints for the pinned version, e.g. `release 13.0, V13.0.88`.
fn release_line(semver: &str) -> String {
    let release = semver.rsplit_once('.').map_or(semver, |(mm, _)| mm);
    format!("release {release}, V{semver}")
}

fn nvcc_is_pinned(nvcc: &Path, semver: &str) -> std::result::Result<bool, String> {
    let out = Command::new(nvcc)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run {} --version: {e}", nvcc.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(out.status.success() && text.contains(&release_line(semver)))
}

fn find_nvcc(dir: &Path, semver: &str) -> Result<Option<PathBuf>> {
    if let Ok(v) = std::env::var("ORIN_EXEC_NVCC") {
        if matches!(v.as_str(), "" | "none" | "off" | "0") {
            return Ok(None);
        }
        let p = PathBuf::from(&v);
        return match nvcc_is_pinned(&p, semver) {
            Ok(true) => Ok(Some(p)),
            Ok(false) => Err(format!(
                "ORIN_EXEC_NVCC={v} is not the pinned nvcc ({}); unset it to use the \
                 committed cubins, or set ORIN_EXEC_NVCC=none",
                release_line(semver)
            )),
            Err(e) => Err(format!("ORIN_EXEC_NVCC: {e}")),
        };
    }
    let mut candidates = Vec::new();
    if let Some(root) = dir.parent()
        && let Ok(rd) = std::fs::read_dir(root.join(".venv/lib"))
    {
        let mut pys: Vec<PathBuf> = rd
            .filter_map(|d| d.ok())
            .filter(|d| d.file_name().to_string_lossy().starts_with("python3"))
            .map(|d| d.path().join("site-packages/nvidia/cu13/bin/nvcc"))
            .collect();
        pys.sort();
        candidates.extend(pys);
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|p| p.join("nvcc")));
    }
    Ok(candidates
        .into_iter()
        .find(|c| c.is_file() && nvcc_is_pinned(c, semver).unwrap_or(false)))
}

fn rebuild_all(dir: &Path, out_dir: &Path, nvcc: &Path, entries: &[Entry]) -> Result<()> {
    let rebuilt = out_dir.join("rebuilt");
    std::fs::create_dir_all(rebuilt.join("cubins"))
        .map_err(|e| format!("cannot create {}: {e}", rebuilt.display()))?;
    let mut mismatches = Vec::new();
    for e in entries {
        let out = rebuilt.join(&e.file);
        let status = Command::new(nvcc)
            .current_dir(dir)
            .args(&e.flags)
            .arg("-o")
            .arg(&out)
            .arg(&e.source)
            .status()
            .map_err(|err| format!("cannot run {}: {err}", nvcc.display()))?;
        if !status.success() {
            return Err(format!(
                "{} {} -o {} {} failed ({status})",
                nvcc.display(),
                e.flags.join(" "),
                out.display(),
                e.source
            ));
        }
        let image =
            std::fs::read(&out).map_err(|err| format!("cannot read {}: {err}", out.display()))?;
        let got = sha256(&image);
        if got != e.sha256 {
            mismatches.push(format!(
                "  {}: rebuilt sha256 {} (in {}), manifest {}",
                e.file,
                hex(&got),
                out.display(),
                hex(&e.sha256)
            ));
        }
    }
    if mismatches.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the pinned nvcc {} does not reproduce the committed cubins:\n{}\n\
             The cubins are not reproducible from their sources with the manifest's flags. If the \
             sources were changed on purpose, run kernels/rebuild.sh and commit cubins and manifest \
             together; set ORIN_EXEC_NVCC=none to skip this rebuild.",
            nvcc.display(),
            mismatches.join("\n")
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Code generation.

fn generate(dir: &Path, entries: &[Entry], images: &[Vec<u8>]) -> String {
    let mut s = String::from("// Generated by kernels/build.rs from kernels/manifest.toml.\n\n");
    for (i, (e, img)) in entries.iter().zip(images).enumerate() {
        let path = dir.join(&e.file);
        let _ = writeln!(
            s,
            "static IMAGE_{i}: Aligned<[u8; {}]> = Aligned(*include_bytes!({:?}));",
            img.len(),
            path.display().to_string()
        );
    }
    s.push_str(
        "\n/// Every committed cubin, in manifest order; each image passed `cubin_check` for its SM\n\
         /// and matched the manifest sha256 when this crate was built.\n\
         pub static CUBINS: &[Cubin] = &[\n",
    );
    for (i, e) in entries.iter().enumerate() {
        let _ = writeln!(
            s,
            "    Cubin {{\n        name: {:?},\n        sm: {},\n        file: {:?},\n        source: {:?},\n        \
             sha256: {:?},\n        source_sha256: {:?},\n        nvcc_version: {:?},\n        flags: &{:?},\n        \
             kernels: &{:?},\n        image: &IMAGE_{i}.0,\n    }},",
            e.name,
            e.sm,
            e.file,
            e.source,
            e.sha256,
            e.source_sha256,
            e.nvcc_version,
            e.flags,
            e.kernels
                .iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
        );
    }
    s.push_str("];\n\n");
    s.push_str(
        "/// Every module (cubin source) as the schedule tables describe it: its name and one\n\
         /// variant per SM, in manifest order; the images are those of [`CUBINS`].\n\
         pub static CUBIN_DESCS: &[CubinDesc] = &[\n",
    );
    let mut names: Vec<&str> = Vec::new();
    for e in entries {
        if !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    for name in names {
        let _ = writeln!(
            s,
            "    CubinDesc {{\n        name: {name:?},\n        variants: &["
        );
        for (i, e) in entries.iter().enumerate().filter(|(_, e)| e.name == name) {
            let _ = writeln!(
                s,
                "            CubinVariant {{\n                sm: {},\n                sha256: {:?},\n                \
                 image: &IMAGE_{i}.0,\n            }},",
                e.sm, e.sha256
            );
        }
        s.push_str("        ],\n    },\n");
    }
    s.push_str("];\n\n");
    let _ = writeln!(
        s,
        "/// The nvcc version that built every cubin (from the manifest).\npub const NVCC_VERSION: &str = {:?};",
        entries.first().map_or("", |e| e.nvcc_version.as_str())
    );
    s
}
