//! The AEB detector network (`loadables/aeb_detector.onnx`) on the SIL interpreter: it
//! reproduces the golden output bit for bit and detects the obstacle over the scenario's
//! distances.
//!
//! Covers: REQ-LDB-004

mod common;

use common::*;
use sil_onnx::{Model, dla};

/// A map cell is an obstacle cell when its score is above (`>`) this (loadables/README.md;
/// the GPU postprocess uses the same value and comparison).
const THRESHOLD: i8 = 32;
/// The distances the README asks for, in mm.
const DISTANCES_MM: [i64; 7] = [5_000, 8_000, 12_000, 20_000, 30_000, 45_000, 60_000];

fn model() -> Model {
    Model::load(&loadable_file("aeb_detector.onnx")).unwrap()
}

struct Outputs {
    /// 24 x 32 scores, row-major.
    map: Vec<i8>,
    /// [no obstacle, obstacle] logits.
    presence: [i8; 2],
}

fn detect(m: &Model, image: &[u8]) -> Outputs {
    let out = run(m, &[&image.iter().map(|&b| b as i8).collect::<Vec<_>>()]);
    Outputs {
        map: out[0].clone(),
        presence: [out[1][0], out[1][1]],
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

fn check_scene(m: &Model, d_mm: i64, shadow_rows: i64) {
    let o = Obstacle::at_mm(d_mm);
    let out = detect(m, &preprocess(&render(Some(o), shadow_rows)));
    let ctx = format!("d = {d_mm} mm, shadow rows {shadow_rows}, {o:?}");
    let expected = (o.yb - 1) / 4;
    let lowest = lowest_row(&out.map).unwrap_or_else(|| panic!("{ctx}: nothing detected"));
    assert!(
        (lowest - expected).abs() <= 1,
        "{ctx}: lowest row {lowest}, expected {expected}"
    );
    // What the GPU postprocess relies on: yb is in 4r+2 ..= 4r+5 for the lowest row r.
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
    let m = model();
    for d in DISTANCES_MM {
        for shadow in [1, 2] {
            check_scene(&m, d, shadow);
        }
    }
}

/// Covers: REQ-AEB-001
#[test]
fn detects_the_obstacle_from_5_to_60_m_every_5_cm() {
    let m = model();
    for d in (5_000..=60_000).step_by(50) {
        for shadow in [1, 2] {
            check_scene(&m, d, shadow);
        }
    }
}

#[test]
fn nothing_detected_without_an_obstacle() {
    let m = model();
    let out = detect(&m, &preprocess(&render(None, 2)));
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
    assert_eq!(cam[34 * CAM_W + 64 - 15], 140);
    assert_eq!(cam[34 * CAM_W + 64 + 15], 140);
    assert_eq!(cam[90 * CAM_W], 140);
    assert_eq!(cam[90 * CAM_W + 127], 140);
    let o = Obstacle::at_mm(20_000);
    assert_eq!((o.yb, o.height, o.width, o.x0()), (36, 15, 18, 55));
    let o7 = Obstacle::at_mm(7_000);
    assert_eq!((o7.yb, o7.height, o7.width), (58, 43, 51));
    let cam = render(Some(o), 2);
    assert_eq!(cam[35 * CAM_W + 55], 230);
    assert_eq!(cam[36 * CAM_W + 60], 20);
    assert_eq!(cam[37 * CAM_W + 60], 20);
    assert_ne!(cam[38 * CAM_W + 60], 20);
    let img = preprocess(&cam);
    assert_eq!(img[5 * 64 + 3] as i8, 42);
    assert_eq!(img[14 * 64 + 30] as i8, 102);
    assert_eq!(img[18 * 64 + 30] as i8, -108);
}

/// The golden files are in the DLA's buffer layout (`kDLA_LINEAR`): the golden input
/// unpacked, run, and packed again is the golden output, byte for byte, and the golden input
/// is the rendered golden scene.
///
/// Covers: REQ-LDB-007
#[test]
fn golden_output_in_the_dla_buffer_layout() {
    let m = model();
    let in_desc = dla::linear_desc(&m.inputs()[0]);
    let golden_in = loadable_file("aeb_detector.golden_input.bin");
    assert_eq!(golden_in.len() as u64, in_desc.size);
    let mut dense = vec![0u8; m.inputs()[0].len()];
    dla::unpack(&in_desc, &golden_in, &mut dense);
    assert_eq!(dense, preprocess(&render(Some(Obstacle::at_mm(20_000)), 2)));
    let mut packed_in = vec![0xAA; golden_in.len()];
    dla::pack(&in_desc, &dense, &mut packed_in);
    assert_eq!(packed_in, golden_in, "pack(unpack(x)) with zero padding");

    let mut outs: Vec<Vec<u8>> = m.outputs().iter().map(|t| vec![0; t.len()]).collect();
    let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
    m.run(&[&dense], &mut refs, &mut m.scratch()).unwrap();
    let mut raw = Vec::new();
    for (o, t) in outs.iter().zip(m.outputs()) {
        let d = dla::linear_desc(t);
        let mut buf = vec![0x55; d.size as usize];
        dla::pack(&d, o, &mut buf);
        raw.extend_from_slice(&buf);
    }
    assert_eq!(raw, loadable_file("aeb_detector.golden_output.bin"));
}
