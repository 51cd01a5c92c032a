//! Test support for the SIL shared libraries as a C user sees them.
//!
//! * [`stage`]: the three cdylibs that cargo builds (`libnvscisync.so`, `libnvscibuf.so`,
//!   `libcudla.so`) staged like the vendor's packages: `libX.so.1` (the SONAME) plus the
//!   unversioned development link `libX.so -> libX.so.1`, in one directory.
//! * [`elf`]: what the dynamic linker sees in a library or a program (SONAME, `DT_NEEDED`,
//!   version definitions and requirements, exported and imported symbols with versions).
//! * [`header_list`]: the committed lists of every function a vendor header declares
//!   (`sil/*/header-functions.txt`), checked against a library's exports.
//! * [`hostile`]: the hostile-argument clients' cases (`HOSTILE(name)` markers) against a
//!   library's exported functions.
//! * [`client`]: builds a C client of `c/` against the staged libraries (warnings are errors)
//!   and runs it with `LD_LIBRARY_PATH` as its only environment.
//!
//! See `sil/README.md`, "Packaging" and "Conformance suite".

pub mod client;
pub mod elf;
pub mod header_list;
pub mod hostile;
pub mod stage;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}
