//! `loadables/manifest.toml` is what the committed files say: the network's ONNX file and
//! hash, its tensor descriptors (from the model, as a loadable built with int8
//! `kDLA_LINEAR` I/O reports them), the golden files and, when registered by hand, the real
//! TensorRT-built loadable.
//!
//! `SIL_ONNX_BLESS=1 cargo test -p sil-onnx --test manifest` rewrites the manifest and the
//! golden files; without it the test only compares. Keys a person adds to a `[[network]]`
//! entry for its real loadable (`loadable`, `loadable_size`, `loadable_sha256`,
//! `loadable_build_command`, `loadable_tool`) are kept as they are, and checked against the
//! file when it is committed.
//!
//! Covers: REQ-LDB-010

mod common;

use std::fmt::Write as _;

use common::*;
use sha2::{Digest, Sha256};
use sil_onnx::{Model, dla};

const THRESHOLD: i8 = 32;
const GOLDEN_DISTANCE_MM: i64 = 20_000;
const GOLDEN_SHADOW_ROWS: i64 = 2;
const EXPORT_COMMAND: &str = "python3 loadables/export_onnx.py loadables/aeb_detector.toml --onnx loadables/aeb_detector.onnx";
/// Keys registered by hand for a network's real loadable, in the order they are written.
const HAND_KEYS: [&str; 5] = [
    "loadable",
    "loadable_size",
    "loadable_sha256",
    "loadable_build_command",
    "loadable_tool",
];

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn sha(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}

/// The golden input (the rendered scene in the DLA layout) and output (outputs in order).
fn golden(m: &Model) -> (Vec<u8>, Vec<u8>) {
    let dense = preprocess(&render(
        Some(Obstacle::at_mm(GOLDEN_DISTANCE_MM)),
        GOLDEN_SHADOW_ROWS,
    ));
    let d = dla::linear_desc(&m.inputs()[0]);
    let mut gin = vec![0; d.size as usize];
    dla::pack(&d, &dense, &mut gin);
    let mut outs: Vec<Vec<u8>> = m.outputs().iter().map(|t| vec![0; t.len()]).collect();
    let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    m.run(&[&dense], &mut refs, &mut m.scratch()).unwrap();
    let mut gout = Vec::new();
    for (o, t) in outs.iter().zip(m.outputs()) {
        let d = dla::linear_desc(t);
        let mut b = vec![0; d.size as usize];
        dla::pack(&d, o, &mut b);
        gout.extend(b);
    }
    (gin, gout)
}

fn manifest(onnx: &[u8], gin: &[u8], gout: &[u8], hand: &toml::Table) -> String {
    let m = Model::load(onnx).unwrap();
    let desc = std::fs::read(loadables_dir().join("aeb_detector.toml")).unwrap();
    let mut s = String::from(
        "# DLA networks of this repository: the ONNX model (what the SIL DLA runs and TensorRT\n\
         # compiles), its hash, the tensor descriptors a loadable built from it with int8\n\
         # kDLA_LINEAR I/O reports, the golden files, and (registered by hand) the real loadable.\n\
         # Generated and checked by\n\
         #   SIL_ONNX_BLESS=1 cargo test -p sil-onnx --test manifest\n\
         # (without SIL_ONNX_BLESS the test fails if this file or any listed file differs).\n\
         # Field reference: loadables/README.md, \"Manifest\".\n\n",
    );
    s.push_str("manifest_version = 2\n\n[[network]]\n");
    let _ = writeln!(s, "name = \"aeb_detector\"");
    let _ = writeln!(s, "onnx = \"aeb_detector.onnx\"");
    let _ = writeln!(s, "onnx_size = {}", onnx.len());
    let _ = writeln!(s, "onnx_sha256 = \"{}\"", sha(onnx));
    let _ = writeln!(s, "export_command = \"{EXPORT_COMMAND}\"");
    let _ = writeln!(s, "description = \"aeb_detector.toml\"");
    let _ = writeln!(s, "description_sha256 = \"{}\"", sha(&desc));
    let _ = writeln!(
        s,
        "detection_threshold = {THRESHOLD}  # obstacle_map cell is an obstacle when score > this"
    );
    let _ = writeln!(s, "golden_input = [\"aeb_detector.golden_input.bin\"]");
    let _ = writeln!(s, "golden_input_sha256 = [\"{}\"]", sha(gin));
    let _ = writeln!(
        s,
        "golden_scene = \"examples/aeb/README.md scene, obstacle at {} m, shadow rows yb and yb+1, preprocessed\"",
        GOLDEN_DISTANCE_MM / 1000
    );
    let _ = writeln!(s, "golden_output = \"aeb_detector.golden_output.bin\"");
    let _ = writeln!(s, "golden_output_sha256 = \"{}\"", sha(gout));
    let _ = writeln!(
        s,
        "golden_output_layout = \"outputs concatenated in descriptor order, each `size` bytes as its strides say, padding bytes 0\""
    );
    for k in HAND_KEYS {
        if let Some(v) = hand.get(k) {
            let _ = writeln!(s, "{k} = {v}");
        }
    }
    for t in m.inputs() {
        s.push_str(&dla::linear_desc(t).manifest_toml("network.input"));
    }
    for t in m.outputs() {
        s.push_str(&dla::linear_desc(t).manifest_toml("network.output"));
    }
    s
}

#[test]
fn committed_manifest_and_golden_files_match_the_network() {
    let dir = loadables_dir();
    let onnx = loadable_file("aeb_detector.onnx");
    let m = Model::load(&onnx).unwrap();
    let (gin, gout) = golden(&m);
    let old = std::fs::read_to_string(dir.join("manifest.toml")).unwrap_or_default();
    let old_toml: toml::Table = toml::from_str(&old).unwrap_or_default();
    let hand: toml::Table = old_toml
        .get("network")
        .and_then(|n| n.as_array())
        .and_then(|a| a.first())
        .and_then(|e| e.as_table())
        .map(|e| {
            e.iter()
                .filter(|(k, _)| HAND_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    let text = manifest(&onnx, &gin, &gout, &hand);
    if std::env::var_os("SIL_ONNX_BLESS").is_some() {
        std::fs::write(dir.join("aeb_detector.golden_input.bin"), &gin).unwrap();
        std::fs::write(dir.join("aeb_detector.golden_output.bin"), &gout).unwrap();
        std::fs::write(dir.join("manifest.toml"), &text).unwrap();
    }
    let bless = "run with SIL_ONNX_BLESS=1 to regenerate";
    assert!(
        loadable_file("aeb_detector.golden_input.bin") == gin,
        "golden input differs; {bless}"
    );
    assert!(
        loadable_file("aeb_detector.golden_output.bin") == gout,
        "golden output differs; {bless}"
    );
    let committed = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
    assert_eq!(committed, text, "manifest.toml is stale; {bless}");

    // The hashes are those of the files on disk; a registered real loadable that is
    // committed has its registered size and hash.
    let t: toml::Table = toml::from_str(&committed).unwrap();
    let e = t["network"].as_array().unwrap()[0].as_table().unwrap();
    let file_sha = |k: &str| sha(&loadable_file(e[k].as_str().unwrap()));
    assert_eq!(e["onnx_sha256"].as_str().unwrap(), file_sha("onnx"));
    assert_eq!(
        e["description_sha256"].as_str().unwrap(),
        file_sha("description")
    );
    assert_eq!(
        e["golden_output_sha256"].as_str().unwrap(),
        file_sha("golden_output")
    );
    if let Some(f) = e.get("loadable").and_then(|v| v.as_str())
        && let Ok(b) = std::fs::read(dir.join(f))
    {
        assert_eq!(
            e["loadable_sha256"].as_str(),
            Some(sha(&b).as_str()),
            "{f}: sha256"
        );
        assert_eq!(
            e["loadable_size"].as_integer(),
            i64::try_from(b.len()).ok(),
            "{f}: size"
        );
    }
}
