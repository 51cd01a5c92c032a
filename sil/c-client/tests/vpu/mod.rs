//! The stand-in VPU ELF image the cuPVA C clients run (`c/cupva_common.h`): the SIL
//! identifies programs by their SHA-256 only.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Writes the stand-in image of `scale` to `dir/<name>` and returns its path and its SHA-256
/// in hex, the two arguments of the cuPVA clients.
pub fn scale_image(dir: &Path, name: &str) -> (PathBuf, String) {
    let path = dir.join(name);
    let image = b"\x7fELF\x01\x01\x01\0sil c-client stand-in VPU program: scale";
    std::fs::write(&path, image).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let hash = Sha256::digest(image)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (path, hash)
}
