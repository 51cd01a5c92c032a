//! The AEB detector loadable: it really detects the obstacle in the synthetic scene, and the
//! committed files (binary, golden input/output, manifest) are what the tools produce.
//!
//! `SIL_LOADABLE_BLESS=1 cargo test -p sil-loadable --features std --test aeb_detector`
//! rewrites `loadables/aeb_detector.{sildla,golden_input.bin,golden_output.bin}` and
//! `loadables/manifest.toml`; without it the test only compares.
//!
//! Covers: REQ-LDB-004
#![cfg(feature = "std")]

mod common;

use std::fmt::Write as _;

use common::*;
use sil_loadable::describe::hex;
use sil_loadable::{Loadable, TensorDesc, builder, sha256};

/// A map cell is an obstacle cell when its score is above (`>`) this (documented in
/// loadables/README.md; the GPU postprocess uses the same value and comparison).
const THRESHOLD: i8 = 32;
/// The golden scene: obstacle at 20 m.
const GOLDEN_DISTANCE_MM: i64 = 20_000;
/// Shadow rows used for the golden files (rows yb and yb+1).
const GOLDEN_SHADOW_ROWS: i64 = 2;
/// The distances the README asks for, in mm.
const DISTANCES_MM: [i64; 7] = [5_000, 8_000, 12_000, 20_000, 30_000, 45_000, 60_000];

/// Everything in `manifest.toml` from this line on is written by hand (entries for real,
/// TensorRT-built loadables, see loadables/README.md "Building the real loadable on Orin"):
/// the test compares only the text before it and keeps it when blessing.
const HAND_REGISTERED: &str = "# ---- real loadables: registered by hand below this line";

const BUILD_COMMAND: &str = "cargo run -p sil-loadable --features std --bin build-loadable -- \
                             loadables/aeb_detector.toml -o loadables/aeb_detector.sildla";

struct Outputs {
    /// 24 x 32 scores, row-major.
    map: Vec<i8>,
    /// [no obstacle, obstacle] logits.
    presence: [i8; 2],
    /// The output buffers concatenated in descriptor order (the golden-output layout).
    raw: Vec<u8>,
}

fn description() -> String {
    std::fs::read_to_string(loadables_dir().join("aeb_detector.toml")).unwrap()
}

fn built() -> Vec<u8> {
    builder::build(&description()).unwrap()
}

fn run(l: &Loadable<'_>, image: &[u8]) -> Outputs {
    let md = l.output(0).unwrap();
    let pd = l.output(1).unwrap();
    let mut map = vec![0xAAu8; md.size as usize];
    let mut presence = vec![0xAAu8; pd.size as usize];
    let mut scratch = vec![0x55u8; l.scratch_size()];
    l.run(&[image], &mut [&mut map, &mut presence], &mut scratch)
        .unwrap();
    let mut grid = Vec::new();
    for r in 0..24 {
        for c in 0..32 {
            grid.push(map[md.offset_of(0, r, c) as usize] as i8);
        }
    }
    let p = [
        presence[pd.offset_of(0, 0, 0) as usize] as i8,
        presence[pd.offset_of(1, 0, 0) as usize] as i8,
    ];
    let mut raw = map;
    raw.extend_from_slice(&presence);
    Outputs {
        map: grid,
        presence: p,
        raw,
    }
}

/// The lowest (largest index) map row with a cell scoring above THRESHOLD.
fn lowest_row(map: &[i8]) -> Option<i64> {
    (0..24)
        .rev()
        .find(|&r| map[r * 32..r * 32 + 32].iter().any(|&s| s > THRESHOLD))
        .map(|r| r as i64)
}

/// Number of obstacle pixels in map cell (r, c) (camera rows 4r..4r+3, columns 4c..4c+3).
fn obstacle_pixels(o: &Obstacle, r: i64, c: i64) -> usize {
    (0..4)
        .flat_map(|dy| (0..4).map(move |dx| (dx, dy)))
        .filter(|&(dx, dy)| o.covers(4 * c + dx, 4 * r + dy))
        .count()
}

fn check_scene(l: &Loadable<'_>, d_mm: i64, shadow_rows: i64) {
    let o = Obstacle::at_mm(d_mm);
    let out = run(l, &preprocess(&render(Some(o), shadow_rows)));
    let ctx = format!("d = {d_mm} mm, shadow rows {shadow_rows}, {o:?}");
    // The bottom edge: the last obstacle row yb-1 lies in map row (yb-1)/4.
    let expected = (o.yb - 1) / 4;
    let lowest = lowest_row(&out.map).unwrap_or_else(|| panic!("{ctx}: nothing detected"));
    assert!(
        (lowest - expected).abs() <= 1,
        "{ctx}: lowest row {lowest}, expected {expected}"
    );
    // What the GPU postprocess relies on: yb (exclusive bottom edge, camera rows) is in
    // 4r+2 ..= 4r+5 for the lowest detected row r, so yb ~ 4r + 3.5.
    assert!(
        (4 * lowest + 2..=4 * lowest + 5).contains(&o.yb),
        "{ctx}: lowest row {lowest} does not bracket yb"
    );
    assert!(
        out.presence[1] > out.presence[0],
        "{ctx}: presence {:?}",
        out.presence
    );
    for r in 0..24 {
        for c in 0..32 {
            let s = out.map[(r * 32 + c) as usize];
            match obstacle_pixels(&o, r, c) {
                0 => assert!(
                    s <= 0,
                    "{ctx}: cell ({r}, {c}) has no obstacle pixel, score {s}"
                ),
                16 => assert!(
                    s > THRESHOLD,
                    "{ctx}: cell ({r}, {c}) is all obstacle, score {s}"
                ),
                _ => {}
            }
        }
    }
}

/// Covers: REQ-AEB-001
#[test]
fn detects_the_obstacle_at_the_readme_distances() {
    let bytes = built();
    let l = Loadable::parse(&bytes).unwrap();
    for d in DISTANCES_MM {
        for shadow in [1, 2] {
            check_scene(&l, d, shadow);
        }
    }
}

/// Covers: REQ-AEB-001
#[test]
fn detects_the_obstacle_from_5_to_60_m_every_5_cm() {
    let bytes = built();
    let l = Loadable::parse(&bytes).unwrap();
    for d in (5_000..=60_000).step_by(50) {
        for shadow in [1, 2] {
            check_scene(&l, d, shadow);
        }
    }
}

#[test]
fn nothing_detected_without_an_obstacle() {
    let bytes = built();
    let l = Loadable::parse(&bytes).unwrap();
    let out = run(&l, &preprocess(&render(None, 2)));
    assert_eq!(lowest_row(&out.map), None);
    assert!(out.map.iter().all(|&s| s <= 0));
    assert!(
        out.presence[0] > out.presence[1],
        "presence {:?}",
        out.presence
    );
}

/// Covers: REQ-AEB-001
#[test]
fn scene_renderer_follows_the_readme() {
    let cam = render(None, 2);
    assert_eq!(cam[10 * CAM_W + 5], 170); // sky
    assert_eq!(cam[24 * CAM_W + 10], 60); // first road row
    assert_eq!(cam[95 * CAM_W + 10], 60 + 71 / 3); // last road row
    assert_eq!(cam[24 * CAM_W + 64], 140); // lane lines meet at the horizon
    assert_eq!(cam[34 * CAM_W + 64 - 15], 140); // (34 - 24) * 3 / 2 = 15
    assert_eq!(cam[34 * CAM_W + 64 + 15], 140);
    assert_eq!(cam[90 * CAM_W], 140); // clamped to the left edge
    assert_eq!(cam[90 * CAM_W + 127], 140); // clamped to the right edge
    let o = Obstacle::at_mm(20_000);
    assert_eq!((o.yb, o.height, o.width, o.x0()), (36, 15, 18, 55));
    let o7 = Obstacle::at_mm(7_000); // 240/7 = 34.29 -> 34, 300/7 = 42.86 -> 43, 360/7 = 51.43 -> 51
    assert_eq!((o7.yb, o7.height, o7.width), (58, 43, 51));
    let cam = render(Some(o), 2);
    assert_eq!(cam[35 * CAM_W + 55], 230);
    assert_eq!(cam[21 * CAM_W + 72], 230);
    assert_eq!(cam[20 * CAM_W + 60], 170);
    assert_eq!(cam[36 * CAM_W + 60], 20);
    assert_eq!(cam[37 * CAM_W + 60], 20);
    assert_ne!(cam[38 * CAM_W + 60], 20);
    assert_eq!(cam[35 * CAM_W + 73], 60 + 11 / 3);
    let img = preprocess(&cam);
    assert_eq!(img[5 * 64 + 3] as i8, 42);
    assert_eq!(img[14 * 64 + 30] as i8, 102);
    assert_eq!(img[18 * 64 + 30] as i8, -108);
}

// ---------------------------------------------------------------------------------------------
// Committed files.

fn tensor_toml(s: &mut String, table: &str, d: &TensorDesc<'_>) {
    let _ = writeln!(s, "\n  [[{table}]]");
    let _ = writeln!(s, "  name = \"{}\"", d.name_str());
    let _ = writeln!(
        s,
        "  shape = [{}, {}, {}, {}]  # n, c, h, w",
        d.n, d.c, d.h, d.w
    );
    let _ = writeln!(
        s,
        "  data_type = \"int8\"  # CUDLA_DATA_TYPE_INT8 = {}",
        d.data_type
    );
    let _ = writeln!(
        s,
        "  data_format = \"nchw\"  # CUDLA_DATA_FORMAT_NCHW = {}",
        d.data_format
    );
    let _ = writeln!(s, "  data_category = {}", d.data_category);
    let _ = writeln!(s, "  pixel_format = {}", d.pixel_format);
    let _ = writeln!(s, "  pixel_mapping = {}", d.pixel_mapping);
    let _ = writeln!(
        s,
        "  layout = \"dla_linear\"  # line pitch = w rounded up to 64 bytes"
    );
    let _ = writeln!(s, "  size = {}", d.size);
    let _ = writeln!(
        s,
        "  strides = {:?}  # bytes: element, line, plane, batch",
        d.stride
    );
}

fn manifest(loadable: &[u8], golden_in: &[u8], golden_out: &[u8]) -> String {
    let l = Loadable::parse(loadable).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let mut s = String::new();
    s.push_str(
        "# Loadables of this repository: what each file is, its hash, its tensor descriptors and\n\
         # how it was built. Generated and checked by\n\
         #   SIL_LOADABLE_BLESS=1 cargo test -p sil-loadable --features std --test aeb_detector\n\
         # (without SIL_LOADABLE_BLESS the test fails if this file or any listed file differs).\n\
         # Field reference: loadables/README.md, \"Manifest\".\n\n",
    );
    s.push_str("manifest_version = 1\n\n[[loadable]]\n");
    let _ = writeln!(s, "name = \"aeb_detector\"");
    let _ = writeln!(s, "file = \"aeb_detector.sildla\"");
    let _ = writeln!(s, "format = \"sil-dla\"");
    let _ = writeln!(s, "format_version = {}", l.format_version());
    let _ = writeln!(s, "size = {}", loadable.len());
    let _ = writeln!(s, "sha256 = \"{}\"", hex(&sha256(loadable)));
    let _ = writeln!(s, "description = \"aeb_detector.toml\"");
    let desc_bytes = description();
    let _ = writeln!(
        s,
        "description_sha256 = \"{}\"",
        hex(&sha256(desc_bytes.as_bytes()))
    );
    let _ = writeln!(s, "build_command = \"{BUILD_COMMAND}\"");
    let _ = writeln!(
        s,
        "tool = \"build-loadable {version} (crate sil-loadable {version})\""
    );
    let _ = writeln!(s, "scratch_bytes = {}", l.scratch_size());
    let _ = writeln!(
        s,
        "detection_threshold = {THRESHOLD}  # obstacle_map cell is an obstacle when score > this"
    );
    let _ = writeln!(s, "golden_input = [\"aeb_detector.golden_input.bin\"]");
    let _ = writeln!(s, "golden_input_sha256 = [\"{}\"]", hex(&sha256(golden_in)));
    let _ = writeln!(
        s,
        "golden_scene = \"examples/aeb/README.md scene, obstacle at {} m, shadow rows yb and yb+1, preprocessed\"",
        GOLDEN_DISTANCE_MM / 1000
    );
    let _ = writeln!(s, "golden_output = \"aeb_detector.golden_output.bin\"");
    let _ = writeln!(s, "golden_output_sha256 = \"{}\"", hex(&sha256(golden_out)));
    let _ = writeln!(
        s,
        "golden_output_layout = \"outputs concatenated in descriptor order, each `size` bytes as its strides say, padding bytes 0\""
    );
    for d in l.inputs() {
        tensor_toml(&mut s, "loadable.input", &d);
    }
    for d in l.outputs() {
        tensor_toml(&mut s, "loadable.output", &d);
    }
    s
}

#[test]
fn committed_files_match_the_description_and_the_manifest() {
    let dir = loadables_dir();
    let bytes = built();
    let l = Loadable::parse(&bytes).unwrap();
    let golden_in = preprocess(&render(
        Some(Obstacle::at_mm(GOLDEN_DISTANCE_MM)),
        GOLDEN_SHADOW_ROWS,
    ));
    assert_eq!(golden_in.len() as u64, l.input(0).unwrap().size);
    let golden_out = run(&l, &golden_in).raw;
    let manifest_text = manifest(&bytes, &golden_in, &golden_out);

    // The hand-registered part (real loadables), if any, is kept as it is.
    let old_text = std::fs::read_to_string(dir.join("manifest.toml")).unwrap_or_default();
    let hand_part = old_text
        .find(HAND_REGISTERED)
        .map_or("", |at| &old_text[at..])
        .to_string();
    if std::env::var_os("SIL_LOADABLE_BLESS").is_some() {
        std::fs::write(dir.join("aeb_detector.sildla"), &bytes).unwrap();
        std::fs::write(dir.join("aeb_detector.golden_input.bin"), &golden_in).unwrap();
        std::fs::write(dir.join("aeb_detector.golden_output.bin"), &golden_out).unwrap();
        let text = if hand_part.is_empty() {
            manifest_text.clone()
        } else {
            format!("{manifest_text}\n{hand_part}")
        };
        std::fs::write(dir.join("manifest.toml"), text).unwrap();
    }
    let bless = "run with SIL_LOADABLE_BLESS=1 to regenerate";
    let committed = std::fs::read(dir.join("aeb_detector.sildla")).unwrap();
    assert!(
        committed == bytes,
        "aeb_detector.sildla differs from a fresh build; {bless}"
    );
    let committed_in = std::fs::read(dir.join("aeb_detector.golden_input.bin")).unwrap();
    assert!(
        committed_in == golden_in,
        "golden input differs from the rendered scene; {bless}"
    );
    let committed_out = std::fs::read(dir.join("aeb_detector.golden_output.bin")).unwrap();
    assert!(
        committed_out == golden_out,
        "golden output differs; {bless}"
    );
    // The committed loadable on the committed golden input gives the committed golden output.
    let cl = Loadable::parse(&committed).unwrap();
    assert_eq!(run(&cl, &committed_in).raw, committed_out);

    let text = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
    let generated = match text.find(HAND_REGISTERED) {
        Some(at) => {
            assert!(
                text[..at].ends_with("\n\n"),
                "one blank line before `{HAND_REGISTERED}`"
            );
            &text[..at - 1]
        }
        None => text.as_str(),
    };
    assert_eq!(generated, manifest_text, "manifest.toml is stale; {bless}");
    // And the manifest is valid TOML whose hashes are those of the files on disk.
    let m: toml::Value = toml::from_str(&text).unwrap();
    let entry = &m["loadable"][0];
    let file_hash = |name: &str| hex(&sha256(&std::fs::read(dir.join(name)).unwrap()));
    assert_eq!(
        entry["sha256"].as_str().unwrap(),
        file_hash(entry["file"].as_str().unwrap())
    );
    assert_eq!(
        entry["format_version"].as_integer(),
        Some(i64::from(cl.format_version()))
    );
    assert_eq!(
        entry["golden_output_sha256"].as_str().unwrap(),
        file_hash(entry["golden_output"].as_str().unwrap())
    );
    assert_eq!(
        entry["golden_input_sha256"][0].as_str().unwrap(),
        file_hash(entry["golden_input"][0].as_str().unwrap())
    );
    assert_eq!(
        entry["description_sha256"].as_str().unwrap(),
        file_hash(entry["description"].as_str().unwrap())
    );
    // Hand-registered real loadables: `format = "nvdla"`, and when the file is committed, its
    // size and hash are the registered ones.
    for e in m["loadable"].as_array().unwrap().iter().skip(1) {
        let name = e["file"].as_str().unwrap();
        assert_eq!(e["format"].as_str(), Some("nvdla"), "{name}: format");
        if let Ok(b) = std::fs::read(dir.join(name)) {
            assert_eq!(
                e["size"].as_integer(),
                i64::try_from(b.len()).ok(),
                "{name}: size"
            );
            assert_eq!(
                e["sha256"].as_str().unwrap(),
                hex(&sha256(&b)),
                "{name}: sha256"
            );
        }
    }
}

/// Covers: REQ-LDB-003
#[test]
fn build_loadable_tool_reproduces_the_committed_file() {
    let tmp = std::env::temp_dir().join(format!("sil-loadable-aeb-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let out = tmp.join("aeb_detector.sildla");
    let tool = env!("CARGO_BIN_EXE_build-loadable");
    let status = std::process::Command::new(tool)
        .arg(loadables_dir().join("aeb_detector.toml"))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(std::fs::read(&out).unwrap() == built());
    let committed = loadables_dir().join("aeb_detector.sildla");
    let text = std::process::Command::new(tool)
        .arg("--describe")
        .arg(&committed)
        .output()
        .unwrap();
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("output 0 `obstacle_map`"), "{text}");
    assert!(text.contains(&hex(&sha256(&std::fs::read(&committed).unwrap()))));
    // --run on the golden input writes the golden output.
    let run_out = tmp.join("out.bin");
    let status = std::process::Command::new(tool)
        .arg("--run")
        .arg(&committed)
        .arg("--input")
        .arg(loadables_dir().join("aeb_detector.golden_input.bin"))
        .arg("-o")
        .arg(&run_out)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read(&run_out).unwrap(),
        std::fs::read(loadables_dir().join("aeb_detector.golden_output.bin")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
