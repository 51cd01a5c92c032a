//! `orin-exec kernels build`: compiles a project's CUDA sources ahead of time into SASS-only
//! cubins with the pinned nvcc and writes the kernels manifest the schedule names.
//!
//! For every `DIR/*.cu` (the module is the file stem) and every SM it runs
//! `nvcc -cubin -gencode arch=compute_S,code=sm_S -O3 -Xptxas -O3 -o cubins/M.sm_S.cubin M.cu`
//! in `DIR` (relative paths, so the cubins do not depend on where the project lives), checks
//! each cubin as the runtime will (`cubin_check`: ELF for that SM, no PTX), reads the kernels
//! and their parameter layouts from it, reads each kernel's parameter kinds from its
//! `extern "C" __global__` declaration in the source, and checks that every kind has the size
//! the cubin records. `DIR/manifest.toml` then lists every cubin with its sha256, the source's
//! sha256, the nvcc version and flags, and every kernel with its kinds.
//!
//! `--check` rebuilds into a temporary directory and compares the bytes with the committed
//! cubins and the manifest (nvcc's output is byte-identical from run to run).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use orin_exec_schedule::{MAX_BINARY_BYTES, ParamKind, read_file, read_text};
use sha2::{Digest, Sha256};

/// The nvcc release the project pins (`kernels/manifest.toml`).
pub const PINNED_NVCC: &str = "13.0.88";

/// What `kernels build` does.
pub struct BuildArgs {
    /// The directory with the `.cu` sources; cubins go to `DIR/cubins`, the manifest to
    /// `DIR/manifest.toml`.
    pub dir: PathBuf,
    /// The SMs to build for.
    pub sms: Vec<u32>,
    /// nvcc to use (else `$ORIN_EXEC_NVCC`, a `.venv` above `dir`, `nvcc` on `PATH`).
    pub nvcc: Option<PathBuf>,
    /// Compare a rebuild with what is committed instead of writing.
    pub check: bool,
}

/// The SASS-only flags for one SM (never `code=compute_S` or `-arch=sm_S`, which embed PTX).
fn flags(sm: u32) -> Vec<String> {
    [
        "-cubin".to_owned(),
        "-gencode".to_owned(),
        format!("arch=compute_{sm},code=sm_{sm}"),
        "-O3".to_owned(),
        "-Xptxas".to_owned(),
        "-O3".to_owned(),
    ]
    .to_vec()
}

/// Runs the command; `Ok(summary)` on success.
pub fn build(args: &BuildArgs) -> Result<String, String> {
    // nvcc runs in `dir`; every other path is absolute.
    let dir = &args
        .dir
        .canonicalize()
        .map_err(|e| format!("`{}`: {e}", args.dir.display()))?;
    let nvcc = find_nvcc(args.nvcc.as_deref(), dir)?;
    let sources = files_with_extension(dir, "cu")?;
    let out_dir = if args.check {
        let t = std::env::temp_dir().join(format!("orin-exec-kernels-{}", std::process::id()));
        std::fs::create_dir_all(t.join("cubins")).map_err(|e| e.to_string())?;
        t
    } else {
        std::fs::create_dir_all(dir.join("cubins")).map_err(|e| e.to_string())?;
        dir.to_path_buf()
    };
    let result = build_into(dir, &out_dir, &nvcc, &sources, &args.sms);
    let manifest = match result {
        Ok(m) => m,
        Err(e) => {
            if args.check {
                let _ = std::fs::remove_dir_all(&out_dir);
            }
            return Err(e);
        }
    };
    if args.check {
        let mut differ = Vec::new();
        for entry in &manifest.entries {
            let committed = std::fs::read(dir.join(&entry.file)).unwrap_or_default();
            let rebuilt = std::fs::read(out_dir.join(&entry.file)).unwrap_or_default();
            if committed != rebuilt {
                differ.push(entry.file.clone());
            }
        }
        let committed = std::fs::read_to_string(dir.join("manifest.toml")).unwrap_or_default();
        if committed != manifest.text {
            differ.push("manifest.toml".to_owned());
        }
        let _ = std::fs::remove_dir_all(&out_dir);
        if differ.is_empty() {
            Ok(format!(
                "{} cubins rebuilt with nvcc {PINNED_NVCC}: identical to the committed ones and the manifest\n",
                manifest.entries.len()
            ))
        } else {
            Err(format!(
                "the rebuild differs from what is committed in `{}`: {} (run `orin-exec kernels build` and commit)",
                dir.display(),
                differ.join(", ")
            ))
        }
    } else {
        let path = dir.join("manifest.toml");
        std::fs::write(&path, &manifest.text)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        let mut summary = String::new();
        for e in &manifest.entries {
            let _ = writeln!(
                summary,
                "{} ({}): {}",
                e.file,
                e.sha256,
                e.kernels.join(", ")
            );
        }
        let _ = writeln!(summary, "wrote {}", path.display());
        Ok(summary)
    }
}

struct Entry {
    file: String,
    sha256: String,
    kernels: Vec<String>,
}

struct Manifest {
    entries: Vec<Entry>,
    text: String,
}

/// The files `DIR/*.EXT`, sorted; an error if there are none.
pub(crate) fn files_with_extension(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no `.{ext}` file in `{}`", dir.display()));
    }
    Ok(files)
}

/// Lower-case hex digits of `bytes` (how the manifests write hashes).
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn quoted(items: &[String]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", q.join(", "))
}

fn build_into(
    dir: &Path,
    out_dir: &Path,
    nvcc: &Nvcc,
    sources: &[PathBuf],
    sms: &[u32],
) -> Result<Manifest, String> {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# Written by `orin-exec kernels build` from the .cu files of this directory; do not edit.\n\
         # Each cubin is built as: nvcc <flags...> -o <file> <source> (paths relative to here).\n\
         schema = 1\n\n[toolchain]\nnvcc = \"{PINNED_NVCC}\"\nnvcc_version = \"V{PINNED_NVCC}\""
    );
    let mut entries = Vec::new();
    for source in sources {
        let module = source
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("`{}`: the file name is not UTF-8", source.display()))?;
        let source_name = format!("{module}.cu");
        let code = read_text(source).map_err(|e| e.to_string())?;
        let declared = declarations(&code);
        for &sm in sms {
            let file = format!("cubins/{module}.sm_{sm}.cubin");
            let flags = flags(sm);
            let status = Command::new(&nvcc.path)
                .args(&flags)
                .arg("-o")
                .arg(out_dir.join(&file))
                .arg(&source_name)
                .current_dir(dir)
                .status()
                .map_err(|e| format!("cannot run `{}`: {e}", nvcc.path.display()))?;
            if !status.success() {
                return Err(format!(
                    "nvcc failed on `{source_name}` for sm_{sm} ({status})"
                ));
            }
            let image =
                read_file(&out_dir.join(&file), MAX_BINARY_BYTES).map_err(|e| e.to_string())?;
            let info = cubin_check::check_cubin(&image, sm)
                .map_err(|e| format!("`{file}` is not a usable cubin for sm_{sm}: {e}"))?;
            let mut kernels = Vec::new();
            let mut kernel_items = Vec::new();
            for k in info.kernels() {
                let name = k.name();
                let kinds = declared
                    .iter()
                    .find(|d| d.name == name)
                    .ok_or_else(|| {
                        if name.starts_with("_Z") {
                            format!(
                                "kernel `{name}` of `{source_name}` has a C++ name; declare it `extern \"C\" __global__`"
                            )
                        } else {
                            format!(
                                "kernel `{name}` of `{source_name}`: no `extern \"C\" __global__ void {name}(...)` declaration found"
                            )
                        }
                    })?
                    .kinds(&source_name)?;
                let sizes: Vec<u16> = k.params().map(|p| p.size).collect();
                let expected: Vec<u16> = kinds.iter().map(|k| kind_size(*k)).collect();
                if sizes != expected {
                    return Err(format!(
                        "kernel `{name}`: the declaration in `{source_name}` gives parameter sizes {expected:?}, the sm_{sm} cubin records {sizes:?}"
                    ));
                }
                let keys: Vec<String> = kinds
                    .iter()
                    .map(|k| k.key().replace("buffer", "ptr"))
                    .collect();
                kernel_items.push(format!("{{ name = {name:?}, params = {} }}", quoted(&keys)));
                kernels.push(name.to_owned());
            }
            let sha256 = hex(&Sha256::digest(&image));
            let _ = writeln!(
                text,
                "\n[[cubin]]\nname = {module:?}\nfile = {file:?}\nsm = {sm}\nsha256 = \"{sha256}\"\n\
                 source = {source_name:?}\nsource_sha256 = \"{}\"\nnvcc = \"{PINNED_NVCC}\"\n\
                 nvcc_version = \"V{PINNED_NVCC}\"\nflags = {}\nkernels = [{}]",
                hex(&Sha256::digest(code.as_bytes())),
                quoted(&flags),
                kernel_items.join(", ")
            );
            entries.push(Entry {
                file,
                sha256,
                kernels,
            });
        }
    }
    Ok(Manifest { entries, text })
}

fn kind_size(k: ParamKind) -> u16 {
    match k {
        ParamKind::Buffer | ParamKind::U64 => 8,
        ParamKind::U32 | ParamKind::I32 | ParamKind::F32 => 4,
    }
}

/// The pinned nvcc.
struct Nvcc {
    path: PathBuf,
}

/// `explicit`, else `$ORIN_EXEC_NVCC`, else `.venv/lib/python3.*/site-packages/nvidia/cu13/bin/nvcc`
/// in `dir` or a directory above it, else `nvcc` on `PATH`; it must report `V13.0.88`.
fn find_nvcc(explicit: Option<&Path>, dir: &Path) -> Result<Nvcc, String> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        candidates.push(p.to_path_buf());
    } else if let Some(p) = std::env::var_os("ORIN_EXEC_NVCC") {
        candidates.push(PathBuf::from(p));
    } else {
        let start = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        for d in start.ancestors() {
            let lib = d.join(".venv/lib");
            for py in std::fs::read_dir(&lib).into_iter().flatten().flatten() {
                let nvcc = py.path().join("site-packages/nvidia/cu13/bin/nvcc");
                if nvcc.is_file() {
                    candidates.push(nvcc);
                }
            }
        }
        candidates.push(PathBuf::from("nvcc"));
    }
    let mut seen = Vec::new();
    for path in candidates {
        let Ok(out) = Command::new(&path).arg("--version").output() else {
            continue;
        };
        let version = String::from_utf8_lossy(&out.stdout).into_owned();
        if version.contains(&format!("V{PINNED_NVCC}")) {
            return Ok(Nvcc { path });
        }
        seen.push(format!(
            "{} ({})",
            path.display(),
            version.lines().last().unwrap_or("no version")
        ));
    }
    Err(format!(
        "no nvcc {PINNED_NVCC} found{}; install it with `pip install nvidia-cuda-nvcc=={PINNED_NVCC} \
         nvidia-cuda-crt=={PINNED_NVCC} nvidia-nvvm=={PINNED_NVCC}` into `.venv`, or pass --nvcc PATH",
        if seen.is_empty() {
            String::new()
        } else {
            format!(" (other versions: {})", seen.join(", "))
        }
    ))
}

/// An `extern "C" __global__ void name(params)` declaration of a source.
struct Declaration {
    name: String,
    params: Vec<String>,
}

impl Declaration {
    /// The kinds of the parameters: a pointer, `uint32_t`, `int32_t`, `uint64_t` or `float`.
    fn kinds(&self, source: &str) -> Result<Vec<ParamKind>, String> {
        self.params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                param_kind(p).ok_or_else(|| {
                    format!(
                        "parameter {i} `{p}` of kernel `{}` in `{source}`: use a pointer, uint32_t, int32_t, uint64_t or float",
                        self.name
                    )
                })
            })
            .collect()
    }
}

/// The kind of one C parameter declaration (`const float* __restrict__ x`, `uint32_t n`).
fn param_kind(decl: &str) -> Option<ParamKind> {
    if decl.contains('*') {
        return Some(ParamKind::Buffer);
    }
    let words: Vec<&str> = decl
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "__restrict__" | "restrict"))
        .collect();
    // The last word is the parameter's name.
    let ty = words.get(..words.len().checked_sub(1)?)?.join(" ");
    Some(match ty.as_str() {
        "float" => ParamKind::F32,
        "uint32_t" | "unsigned" | "unsigned int" => ParamKind::U32,
        "int32_t" | "int" | "signed int" => ParamKind::I32,
        "uint64_t" | "unsigned long long" | "unsigned long long int" => ParamKind::U64,
        _ => return None,
    })
}

/// Every `extern "C" __global__ void NAME(...)` of a source, comments removed.
fn declarations(code: &str) -> Vec<Declaration> {
    let code = strip_comments(code);
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("__global__") {
        let before = &rest[..at];
        rest = &rest[at + "__global__".len()..];
        if !before.trim_end().ends_with("extern \"C\"") {
            continue;
        }
        let Some(open) = rest.find('(') else { break };
        let head: Vec<&str> = rest[..open].split_whitespace().collect();
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        if let [.., "void", name] = head.as_slice() {
            let inner = rest[open + 1..open + close].trim();
            let params = if inner.is_empty() || inner == "void" {
                Vec::new()
            } else {
                inner.split(',').map(|p| p.trim().to_owned()).collect()
            };
            out.push(Declaration {
                name: (*name).to_owned(),
                params,
            });
        }
        rest = &rest[open + close..];
    }
    out
}

fn strip_comments(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
            out.push(' ');
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-GPU-014, REQ-API-009
    #[test]
    fn kinds_come_from_extern_c_declarations() {
        let code = r#"
            // out[i] = in[i] * s
            extern "C" __global__ void scale(const float* __restrict__ in, float* out,
                                             uint32_t n, float s) {}
            __global__ void not_extern(int x) {}
            extern "C" __global__ void none() {}
            extern "C" __global__ void wide(uint64_t a, int32_t b /* , float c */) {}
            extern "C" __global__ void odd(double d) {}
        "#;
        let d = declarations(code);
        let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["scale", "none", "wide", "odd"]);
        use ParamKind::*;
        assert_eq!(d[0].kinds("k.cu").unwrap(), [Buffer, Buffer, U32, F32]);
        assert_eq!(d[1].kinds("k.cu").unwrap(), []);
        assert_eq!(d[2].kinds("k.cu").unwrap(), [U64, I32]);
        let e = d[3].kinds("k.cu").unwrap_err();
        assert!(e.contains("parameter 0 `double d` of kernel `odd`"), "{e}");
    }
}
