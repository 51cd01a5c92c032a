//! The per-frame outputs of a scenario run, their digests, and the exact comparison of two
//! runs.
//!
//! `outputs.csv` has one line per frame:
//!
//! ```text
//! frame,decided,brake,distance_mm,fallback,implausible,stale,found,row,score,det_distance_mm,presence_no,presence_yes
//! ```
//!
//! `decided..stale` are the decision (the demo's `DecisionLog`), `found..det_distance_mm` the
//! GPU postprocess output the decision read, `presence_*` the DLA's two presence logits. A
//! value that does not exist for a frame (no decision, or the degraded chain decided) is empty.
//! `outputs.json` holds the digests: `decisions_sha256` over the records
//! `(frame: u64 LE, brake: u8, distance_mm: i32 LE)` of the decided frames, and
//! `outputs_sha256` over the bytes of `outputs.csv`.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The CSV header line.
pub const CSV_HEADER: &str = "frame,decided,brake,distance_mm,fallback,implausible,stale,found,row,score,det_distance_mm,presence_no,presence_yes";

/// What one frame produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameOutput {
    /// The frame.
    pub frame: u64,
    /// The decision, if one was made.
    pub decision: Option<Decision>,
    /// The GPU detection `[found, row, score, distance_mm]` the normal-mode decision read.
    pub detection: Option<[i32; 4]>,
    /// The DLA presence logits `[no obstacle, obstacle]`.
    pub presence: Option<[i8; 2]>,
}

/// A brake decision: the demo's own (`examples/aeb/src/tasks.rs`).
pub use crate::tasks::Decision;

/// The GPU detection `[found, row, score, distance_mm]` in two words (for a
/// `tasks::FrameLog`).
pub(crate) fn detection_words(det: [i32; 4]) -> [u64; 2] {
    let pair = |a: i32, b: i32| u64::from(a as u32) << 32 | u64::from(b as u32);
    [pair(det[0], det[1]), pair(det[2], det[3])]
}

/// The detection of [`detection_words`] back.
pub(crate) fn detection_from_words([a, b]: [u64; 2]) -> [i32; 4] {
    [(a >> 32) as i32, a as i32, (b >> 32) as i32, b as i32]
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

impl FrameOutput {
    /// The CSV line (without the newline).
    pub fn csv(&self) -> String {
        let d = self.decision;
        let b = |f: fn(&Decision) -> bool| opt(d.map(|d| u8::from(f(&d))));
        let det = |i: usize| opt(self.detection.map(|x| x[i]));
        let pres = |i: usize| opt(self.presence.map(|x| x[i]));
        format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            self.frame,
            u8::from(d.is_some()),
            b(|d| d.brake),
            opt(d.map(|d| d.distance_mm)),
            b(|d| d.fallback),
            b(|d| d.implausible),
            b(|d| d.stale),
            det(0),
            det(1),
            det(2),
            det(3),
            pres(0),
            pres(1)
        )
    }
}

/// The whole CSV file.
pub fn csv(frames: &[FrameOutput]) -> String {
    let mut s = String::with_capacity(64 * (frames.len() + 1));
    s.push_str(CSV_HEADER);
    s.push('\n');
    for f in frames {
        let _ = writeln!(s, "{}", f.csv());
    }
    s
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 over `(frame u64 LE, brake u8, distance_mm i32 LE)` of every decided frame.
pub fn decisions_sha256(frames: &[FrameOutput]) -> String {
    let mut h = Sha256::new();
    for f in frames {
        if let Some(d) = f.decision {
            h.update(f.frame.to_le_bytes());
            h.update([u8::from(d.brake)]);
            h.update(d.distance_mm.to_le_bytes());
        }
    }
    hex(&h.finalize())
}

/// SHA-256 of some bytes, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `outputs.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OutputsSummary {
    /// Platform of the run.
    pub platform: String,
    /// `virtual` or `real`.
    pub clock: String,
    /// Frames asked for.
    pub frames_requested: u64,
    /// Frames run.
    pub frames: u64,
    /// Frames with a decision.
    pub decided: u64,
    /// Frames decided by the normal chain with valid, plausible inputs.
    pub decided_normal: u64,
    /// Frames whose brake decision equals the scenario's ground truth (informational).
    pub matched_ground_truth: u64,
    /// Faults the health monitor recorded.
    pub faults: u64,
    /// SHA-256 over the decision records.
    pub decisions_sha256: String,
    /// SHA-256 of `outputs.csv`.
    pub outputs_sha256: String,
}

/// Parse `outputs.csv` back into lines (frame number and the raw fields).
pub fn read_csv(path: &Path) -> std::io::Result<Vec<(u64, String)>> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    match lines.next() {
        Some(h) if h == CSV_HEADER => {}
        other => {
            return Err(bad(format!(
                "{}: unexpected header {other:?}",
                path.display()
            )));
        }
    }
    lines
        .enumerate()
        .map(|(i, l)| {
            let frame = l
                .split(',')
                .next()
                .and_then(|f| f.parse().ok())
                .ok_or_else(|| bad(format!("{}:{}: no frame number", path.display(), i + 2)))?;
            Ok((frame, l.to_string()))
        })
        .collect()
}

/// The outcome of comparing two runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Frames in A and in B.
    pub frames: (usize, usize),
    /// Frames (of the common prefix) whose lines differ.
    pub differing: usize,
    /// The first differing frame with both lines.
    pub first: Option<(u64, String, String)>,
    /// Every difference is in a distance field and within the kernels' 1 mm float tolerance
    /// (informational: the criterion is exact equality).
    pub only_distance_within_1mm: bool,
}

impl Comparison {
    /// Identical outputs (same frames, same lines).
    pub fn equal(&self) -> bool {
        self.frames.0 == self.frames.1 && self.differing == 0
    }
}

fn within_distance_tolerance(a: &str, b: &str) -> bool {
    let (fa, fb): (Vec<&str>, Vec<&str>) = (a.split(',').collect(), b.split(',').collect());
    if fa.len() != fb.len() {
        return false;
    }
    // Columns 3 (decision distance) and 10 (detection distance) may differ by 1 mm.
    fa.iter().zip(&fb).enumerate().all(|(i, (x, y))| {
        x == y
            || ((i == 3 || i == 10)
                && matches!((x.parse::<i64>(), y.parse::<i64>()), (Ok(p), Ok(q)) if (p - q).abs() <= 1))
    })
}

/// Compare two `outputs.csv` line lists exactly.
pub fn compare(a: &[(u64, String)], b: &[(u64, String)]) -> Comparison {
    let mut c = Comparison {
        frames: (a.len(), b.len()),
        only_distance_within_1mm: true,
        ..Comparison::default()
    };
    for ((fa, la), (_, lb)) in a.iter().zip(b) {
        if la != lb {
            c.differing += 1;
            c.only_distance_within_1mm &= within_distance_tolerance(la, lb);
            if c.first.is_none() {
                c.first = Some((*fa, la.clone(), lb.clone()));
            }
        }
    }
    c.only_distance_within_1mm &= c.differing > 0;
    c
}

/// Covers: REQ-GPU-010
#[cfg(test)]
mod tests {
    use super::*;

    fn frame(f: u64, dist: i32) -> FrameOutput {
        FrameOutput {
            frame: f,
            decision: Some(Decision {
                brake: dist < 24_000,
                distance_mm: dist,
                ..Decision::default()
            }),
            detection: Some([1, 20, 90, dist]),
            presence: Some([-3, 40]),
        }
    }

    #[test]
    fn csv_round_trip_and_exact_compare() {
        let a: Vec<FrameOutput> = (0..5).map(|f| frame(f, 30_000 - f as i32)).collect();
        let mut b = a.clone();
        b[3].detection = Some([1, 20, 90, 29_998]);
        let dir = std::env::temp_dir().join(format!("hil-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.csv"), csv(&a)).unwrap();
        std::fs::write(dir.join("b.csv"), csv(&b)).unwrap();
        let (ra, rb) = (
            read_csv(&dir.join("a.csv")).unwrap(),
            read_csv(&dir.join("b.csv")).unwrap(),
        );
        assert!(compare(&ra, &ra).equal());
        let c = compare(&ra, &rb);
        assert!(!c.equal());
        assert_eq!(c.differing, 1);
        assert_eq!(c.first.as_ref().unwrap().0, 3);
        assert!(c.only_distance_within_1mm);
        assert_eq!(decisions_sha256(&a), decisions_sha256(&b));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn missing_values_are_empty_fields() {
        let f = FrameOutput {
            frame: 7,
            ..FrameOutput::default()
        };
        assert_eq!(f.csv(), "7,0,,,,,,,,,,,");
        assert_eq!(CSV_HEADER.split(',').count(), f.csv().split(',').count());
    }
}
