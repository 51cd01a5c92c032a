//! Evidence of a run, for a reviewer who reads it without help:
//!
//! * [`Audit`]: the binary that ran: its native dependencies, the vendor symbols it imports,
//!   and whether it could reach a forbidden API (managed memory, JIT and run-time linking,
//!   dynamic loading) or carries GPU code that a driver would JIT (PTX, fatbins);
//! * [`run`]: the run id, the run directory and the run manifest `run.json` (artifact hashes
//!   against their manifests, toolchain, git commit, host, audit, pass criteria);
//! * [`html`]: the self-contained HTML report of a run directory or a trace file.
//!
//! ```no_run
//! let audit = orin_exec_evidence::Audit::of_file(std::path::Path::new("target/release/aeb"))?;
//! assert!(audit.ok(), "forbidden: {:?}", audit.forbidden_imports);
//! # Ok::<(), String>(())
//! ```

use std::path::Path;

use object::{Object, ObjectSymbol};
use serde::{Deserialize, Serialize};

pub mod analysis;
pub mod html;
pub mod run;

/// Symbols a safety build must never import: managed memory, JIT and run-time linking,
/// dynamic loading (which would hide imports from this audit).
pub const FORBIDDEN: &[&str] = &[
    "cuMemAllocManaged",
    "cudaMallocManaged",
    "cuMemPrefetchAsync",
    "cuModuleLoadDataEx",
    "cuModuleLoadFatBinary",
    "cuLinkCreate",
    "cuLinkAddData",
    "cuLinkComplete",
    "cudaDeviceReset",
    "dlopen",
    "dlmopen",
];

/// Dynamic symbol lookups: reported, not forbidden (the Rust standard library resolves a few
/// optional libc functions this way), since without `dlopen` they cannot reach a library
/// that the binary does not list as needed.
pub const LOOKUPS: &[&str] = &["dlsym", "dlvsym"];

/// Prefixes of forbidden symbol families.
pub const FORBIDDEN_PREFIXES: &[&str] = &["nvrtc", "nvJitLink", "cuLink"];

/// Prefixes of the vendor APIs orin-exec uses (reported, for the evidence).
const VENDOR_PREFIXES: &[&str] = &["NvSciSync", "NvSciBuf", "cudla", "cu"];

/// Whether importing `name` is forbidden.
pub fn forbidden(name: &str) -> bool {
    FORBIDDEN.contains(&name) || FORBIDDEN_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn vendor(name: &str) -> bool {
    VENDOR_PREFIXES.iter().any(|p| {
        name.starts_with(p) && name[p.len()..].starts_with(|c: char| c.is_ascii_uppercase())
    })
}

/// The audit of one binary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Audit {
    /// The binary's path as given.
    pub binary: String,
    /// Its `DT_NEEDED` libraries.
    pub needed: Vec<String>,
    /// Imported symbols that are forbidden.
    pub forbidden_imports: Vec<String>,
    /// Imported dynamic-lookup functions (allowed without `dlopen`).
    pub dynamic_lookups: Vec<String>,
    /// Imported NvSci, cuDLA and CUDA driver symbols.
    pub vendor_imports: Vec<String>,
    /// Embedded CUDA ELF images (SASS cubins: allowed).
    pub embedded_cubins: usize,
    /// Offsets of embedded PTX text (forbidden: a driver would JIT it).
    pub embedded_ptx_offsets: Vec<usize>,
    /// Offsets of embedded fatbin containers (forbidden: they may carry PTX).
    pub embedded_fatbin_offsets: Vec<usize>,
}

impl Audit {
    /// Audit the binary at `path`; the error names the path.
    pub fn of_file(path: &Path) -> Result<Audit, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Audit::of_bytes(&path.display().to_string(), &bytes)
    }

    /// Audit an object file's bytes; `name` is recorded as [`Audit::binary`].
    pub fn of_bytes(name: &str, bytes: &[u8]) -> Result<Audit, String> {
        let file =
            object::File::parse(bytes).map_err(|e| format!("{name}: not an object file: {e}"))?;
        let mut imports: Vec<String> = file
            .dynamic_symbols()
            .filter(|s| s.is_undefined())
            .filter_map(|s| s.name().ok())
            .map(|n| n.split('@').next().unwrap_or(n).to_string())
            .filter(|n| !n.is_empty())
            .collect();
        imports.sort();
        imports.dedup();
        let pick = |f: &dyn Fn(&str) -> bool| -> Vec<String> {
            imports.iter().filter(|n| f(n)).cloned().collect()
        };
        let (ptx, fatbin, cubins) = embedded_gpu_code(bytes);
        Ok(Audit {
            binary: name.to_string(),
            needed: elf_needed(bytes).ok().flatten().unwrap_or_default(),
            forbidden_imports: pick(&forbidden),
            dynamic_lookups: pick(&|n| LOOKUPS.contains(&n)),
            vendor_imports: pick(&vendor),
            embedded_cubins: cubins.len(),
            embedded_ptx_offsets: ptx,
            embedded_fatbin_offsets: fatbin,
        })
    }

    /// No forbidden import, no embedded PTX or fatbin.
    pub fn ok(&self) -> bool {
        self.forbidden_imports.is_empty()
            && self.embedded_ptx_offsets.is_empty()
            && self.embedded_fatbin_offsets.is_empty()
    }
}

impl std::fmt::Display for Audit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |v: &[String]| {
            if v.is_empty() {
                "(none)".to_string()
            } else {
                v.join(" ")
            }
        };
        writeln!(f, "binary: {}", self.binary)?;
        writeln!(f, "needed libraries: {}", list(&self.needed))?;
        writeln!(
            f,
            "vendor imports ({}): {}",
            self.vendor_imports.len(),
            list(&self.vendor_imports)
        )?;
        writeln!(f, "embedded cubins: {}", self.embedded_cubins)?;
        if !self.dynamic_lookups.is_empty() {
            writeln!(
                f,
                "dynamic lookups (allowed, no dlopen): {}",
                list(&self.dynamic_lookups)
            )?;
        }
        for b in &self.forbidden_imports {
            writeln!(f, "FORBIDDEN import: {b}")?;
        }
        for o in &self.embedded_ptx_offsets {
            writeln!(f, "FORBIDDEN embedded PTX at offset {o:#x}")?;
        }
        for o in &self.embedded_fatbin_offsets {
            writeln!(f, "FORBIDDEN embedded fatbin at offset {o:#x}")?;
        }
        writeln!(f, "audit: {}", if self.ok() { "PASS" } else { "FAIL" })
    }
}

/// Offsets of embedded PTX text (`.version X.Y` followed by `.target sm_`), of fatbin
/// containers, and of embedded CUDA ELF images.
fn embedded_gpu_code(bytes: &[u8]) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let find_all = |needle: &[u8]| -> Vec<usize> {
        bytes
            .windows(needle.len())
            .enumerate()
            .filter(|(_, w)| *w == needle)
            .map(|(i, _)| i)
            .collect()
    };
    // The needles are assembled at run time so that this code's own binary does not carry
    // the PTX directives it looks for.
    let target = [b".target".as_slice(), b" sm_"].concat();
    let version = [b".version".as_slice(), b" "].concat();
    let ptx = find_all(&target)
        .into_iter()
        .filter(|&i| {
            bytes[i.saturating_sub(256)..i]
                .windows(version.len())
                .any(|w| w == version)
        })
        .collect();
    // A fatbin container header: magic, version 1, header size 16.
    let fatbin = find_all(&0xBA55_ED50u32.to_le_bytes())
        .into_iter()
        .filter(|&i| bytes.get(i + 4..i + 8) == Some(&[1, 0, 16, 0][..]))
        .collect();
    let cubins = find_all(b"\x7fELF\x02\x01\x01\x41")
        .into_iter()
        .filter(|&i| bytes.get(i + 18..i + 20) == Some(&190u16.to_le_bytes()[..]))
        .collect();
    (ptx, fatbin, cubins)
}

/// DT_NEEDED entries of an ELF (64-bit little-endian).
fn elf_needed(bytes: &[u8]) -> Result<Option<Vec<String>>, object::Error> {
    use object::elf;
    use object::read::elf::{Dyn, ElfFile64, FileHeader, SectionHeader};
    let Ok(file) = ElfFile64::<object::Endianness>::parse(bytes) else {
        return Ok(None);
    };
    let endian = file.endian();
    let header = file.elf_header();
    let sections = header.sections(endian, bytes)?;
    let mut out = Vec::new();
    for section in sections.iter() {
        if let Some((entries, link)) = section.dynamic(endian, bytes)? {
            let strings = sections.strings(endian, bytes, link)?;
            for d in entries {
                if d.d_tag(endian) == u64::from(elf::DT_NEEDED)
                    && let Ok(name) = strings.get(d.d_val(endian) as u32)
                {
                    out.push(String::from_utf8_lossy(name).into_owned());
                }
            }
        }
    }
    Ok(Some(out))
}

/// Covers: REQ-TOOL-002
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_names_and_families() {
        assert!(forbidden("cuMemAllocManaged"));
        assert!(forbidden("nvrtcCompileProgram"));
        assert!(forbidden("dlopen"));
        assert!(!forbidden("cuLaunchKernel"));
        assert!(!forbidden("dlsym"));
    }

    /// Covers: REQ-GPU-004
    #[test]
    fn embedded_ptx_and_fatbin_are_found() {
        let mut bytes = [b"xx .vers".as_slice(), b"ion 8.5\n.tar", b"get sm_90\n"].concat();
        bytes.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
        bytes.extend_from_slice(&[1, 0, 16, 0]);
        let (ptx, fatbin, cubins) = embedded_gpu_code(&bytes);
        assert_eq!(ptx.len(), 1);
        assert_eq!(fatbin.len(), 1);
        assert!(cubins.is_empty());
    }

    #[test]
    fn this_test_binary_passes() {
        let me = std::env::current_exe().unwrap();
        let audit = Audit::of_file(&me).unwrap();
        assert!(audit.ok(), "{audit}");
    }
}
