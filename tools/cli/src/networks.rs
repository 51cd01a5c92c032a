//! `orin-exec networks build`: the networks manifest of a project's DLA networks.
//!
//! For every `DIR/*.onnx` (the network is the file stem) it loads the model with the SIL DLA's
//! reader (`sil-onnx`: int8 `kDLA_LINEAR` I/O, the DLA operator subset; an unsupported operator
//! is refused naming the node), derives the tensor descriptors a loadable built from it reports,
//! and writes `DIR/manifest.toml`: per network the ONNX file and its sha256, the descriptors,
//! and, when `DIR/<name>.loadable` exists (the real DLA loadable TensorRT built from the same
//! ONNX on an Orin), that file and its sha256.

use std::fmt::Write as _;
use std::path::Path;

use orin_exec_schedule::{MAX_BINARY_BYTES, read_file};
use sha2::{Digest, Sha256};
use sil_onnx::{Model, dla};

use crate::kernels::{files_with_extension, hex};

/// Runs the command; `Ok(summary)`.
pub fn build(dir: &Path) -> Result<String, String> {
    let models = files_with_extension(dir, "onnx")?;
    let mut text = String::from(
        "# Written by `orin-exec networks build` from the .onnx files of this directory; do not\n\
         # edit. Per network: the ONNX model (what the SIL DLA runs and TensorRT compiles), its\n\
         # sha256, the descriptors of a loadable built with int8 kDLA_LINEAR I/O, and the real\n\
         # loadable `<name>.loadable` when it is here.\n\
         manifest_version = 2\n",
    );
    let mut summary = String::new();
    for path in &models {
        let file = path
            .file_name()
            .and_then(|f| f.to_str())
            .ok_or_else(|| format!("`{}`: the file name is not UTF-8", path.display()))?;
        let name = file.trim_end_matches(".onnx");
        let bytes = read_file(path, MAX_BINARY_BYTES).map_err(|e| e.to_string())?;
        let model = Model::load(&bytes).map_err(|e| format!("`{file}`: {e}"))?;
        let _ = write!(
            text,
            "\n[[network]]\nname = {name:?}\nonnx = {file:?}\nonnx_sha256 = \"{}\"\n",
            hex(&Sha256::digest(&bytes))
        );
        let loadable = dir.join(format!("{name}.loadable"));
        if let Ok(real) = read_file(&loadable, MAX_BINARY_BYTES) {
            let _ = write!(
                text,
                "loadable = \"{name}.loadable\"\nloadable_sha256 = \"{}\"\n",
                hex(&Sha256::digest(&real))
            );
        }
        let mut io = Vec::new();
        for t in model.inputs() {
            text += &dla::linear_desc(t).manifest_toml("network.input");
            io.push(format!("in {} {:?}", t.name, t.dims));
        }
        for t in model.outputs() {
            text += &dla::linear_desc(t).manifest_toml("network.output");
            io.push(format!("out {} {:?}", t.name, t.dims));
        }
        let _ = writeln!(summary, "{file}: {}", io.join(", "));
    }
    let manifest = dir.join("manifest.toml");
    std::fs::write(&manifest, text)
        .map_err(|e| format!("cannot write `{}`: {e}", manifest.display()))?;
    let _ = writeln!(summary, "wrote {}", manifest.display());
    Ok(summary)
}
