//! The CPU tasks of the AEB slice.

use orin_exec::exec::TaskFault;
use orin_exec::sync::SeqLock;

use crate::schedule::{body, cx};

use crate::scenario::{self, EGO_SPEED, FH, H, HORIZON, TTC_BRAKE_S, W};

/// A brake decision of one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// Brake command.
    pub brake: bool,
    /// Estimated distance to the nearest obstacle in mm, or -1.
    pub distance_mm: i32,
    /// Made by the degraded-mode chain.
    pub fallback: bool,
    /// The plausibility monitor rejected the detection.
    pub implausible: bool,
    /// Inputs were stale (a dependency timed out).
    pub stale: bool,
}

impl<const W: usize, const SLOTS: usize> Default for FrameLog<W, SLOTS> {
    fn default() -> Self {
        Self::new()
    }
}

/// `W` words per frame for the last `SLOTS` frames, written by a task on its worker and read
/// by the main thread after the frame (no locks, no allocation): one [`SeqLock`] per slot,
/// versioned by the frame, so a read never mixes two frames' words.
pub struct FrameLog<const W: usize, const SLOTS: usize = 256> {
    slots: [SeqLock<W>; SLOTS],
}

impl<const W: usize, const SLOTS: usize> FrameLog<W, SLOTS> {
    /// An empty log.
    pub const fn new() -> Self {
        FrameLog {
            slots: [const { SeqLock::new() }; SLOTS],
        }
    }

    fn slot(&self, frame: u64) -> &SeqLock<W> {
        &self.slots[(frame % SLOTS as u64) as usize]
    }

    /// Record the words of `frame` (replacing those of the frame `SLOTS` before it). A frame
    /// is recorded once: a second record of it, or one older than the slot holds, is ignored.
    pub fn record(&self, frame: u64, words: [u64; W]) {
        self.slot(frame).write(frame, words);
    }

    /// The words of `frame`, if they were recorded and are still in the log.
    pub fn get(&self, frame: u64) -> Option<[u64; W]> {
        self.slot(frame).read(frame)
    }
}

impl Default for DecisionLog {
    fn default() -> Self {
        Self::new()
    }
}

/// The last 256 decisions, written by the decision tasks, read by `main` after each frame.
pub struct DecisionLog {
    log: FrameLog<1>,
}

impl DecisionLog {
    /// An empty log.
    pub const fn new() -> Self {
        DecisionLog {
            log: FrameLog::new(),
        }
    }

    fn record(&self, frame: u64, d: Decision) {
        let flags = d.brake as u64
            | (d.fallback as u64) << 1
            | (d.implausible as u64) << 2
            | (d.stale as u64) << 3;
        self.log
            .record(frame, [flags << 32 | d.distance_mm as u32 as u64]);
    }

    /// The decision of `frame`, if it was made and is still in the log.
    pub fn get(&self, frame: u64) -> Option<Decision> {
        let [v] = self.log.get(frame)?;
        let flags = v >> 32;
        Some(Decision {
            brake: flags & 1 != 0,
            distance_mm: v as u32 as i32,
            fallback: flags & 2 != 0,
            implausible: flags & 4 != 0,
            stale: flags & 8 != 0,
        })
    }
}

/// Brake when the obstacle is closer than `ttc` seconds at the ego speed.
fn brake_for(distance_mm: i32, ttc: f64) -> bool {
    distance_mm >= 0 && (distance_mm as f64 / 1000.0) / EGO_SPEED < ttc
}

/// The CPU "sensor": renders the scenario's camera frame into an NvSciBuf buffer (`camera`
/// in the normal mode, `camera_fallback` in the degraded one).
pub struct Sensor;

impl body::Sensor for Sensor {
    fn run(&mut self, mut cx: cx::Sensor<'_>) -> Result<(), TaskFault> {
        scenario::render(cx.frame, cx.camera.bytes());
        Ok(())
    }
}

impl body::SensorFallback for Sensor {
    fn run(&mut self, mut cx: cx::SensorFallback<'_>) -> Result<(), TaskFault> {
        scenario::render(cx.frame, cx.camera_fallback.bytes());
        Ok(())
    }
}

/// Lowest image row (largest y) in the ego lane with at least 3 obstacle-bright pixels.
fn bright_bottom_row(image: &[u8]) -> Option<i64> {
    (HORIZON as usize..H)
        .rev()
        .find(|&y| {
            image[y * W + 48..y * W + 80]
                .iter()
                .filter(|&&p| p > 200)
                .count()
                >= 3
        })
        .map(|y| y as i64)
}

fn distance_from_bottom_row(row: i64) -> i32 {
    let yb = row + 1;
    if yb <= HORIZON {
        -1
    } else {
        (1000.0 * FH / (yb - HORIZON) as f64).round() as i32
    }
}

/// The normal-mode decision: time to collision from the GPU's detection, next to an
/// independent plausibility monitor that checks it against the DLA's presence head and
/// the raw camera image, and checks the PVA's preprocessed image against the camera image.
///
/// It reads `detection` (4 × i32 from the GPU postprocess), `presence` (DLA logits, channel
/// pitch 64), `camera` and `image` (the PVA's output, for the monitor).
pub struct DecisionTask {
    /// Where decisions go.
    pub log: &'static DecisionLog,
}

impl body::Decision for DecisionTask {
    fn run(&mut self, cx: cx::Decision<'_>) -> Result<(), TaskFault> {
        let frame = cx.frame;
        if !cx.inputs_valid {
            // The perception chain did not deliver in time: brake, the fault is already reported.
            self.log.record(
                frame,
                Decision {
                    brake: true,
                    distance_mm: -1,
                    fallback: false,
                    implausible: false,
                    stale: true,
                },
            );
            return Ok(());
        }
        let det = cx.detection.as_slice::<i32>()?;
        let presence = cx.presence.as_slice::<i8>()?;
        let camera = cx.camera.bytes();
        let image = cx.image.as_slice::<i8>()?;
        let (found, distance_mm) = (det[0] == 1, if det[0] == 1 { det[3] } else { -1 });

        // Plausibility monitor (independent of the decision path).
        let dla_says_obstacle = presence[64] > presence[0];
        let camera_row = bright_bottom_row(camera);
        let camera_near = camera_row.is_some_and(|r| r >= HORIZON + 8); // closer than ~30 m
        let implausible = !preprocessed_from(image, camera)
            || found != dla_says_obstacle
            || (found && !(500..=120_000).contains(&distance_mm))
            || (found && camera_row.is_none())
            || (!found && camera_near);
        if implausible {
            self.log.record(
                frame,
                Decision {
                    brake: true,
                    distance_mm,
                    fallback: false,
                    implausible: true,
                    stale: false,
                },
            );
            return Err(TaskFault::App { code: 2 });
        }
        let brake = found && brake_for(distance_mm, TTC_BRAKE_S);
        self.log.record(
            frame,
            Decision {
                brake,
                distance_mm,
                fallback: false,
                implausible: false,
                stale: false,
            },
        );
        Ok(())
    }
}

/// Whether `image` is the preprocess of `camera` (`orin_exec_kernels::aeb_preprocess`, the
/// reference of the PVA program and of the GPU kernel): a corrupted PVA output may still give
/// a plausible detection, so the monitor checks the accelerator's output itself. 3072 pixels,
/// on the stack: a few microseconds, no allocation.
fn preprocessed_from(image: &[i8], camera: &[u8]) -> bool {
    let mut expected = [0i8; (W / 2) * (H / 2)];
    orin_exec_kernels::aeb_preprocess(camera, &mut expected, W as u32, H as u32).is_ok()
        && image.get(..expected.len()) == Some(&expected[..])
}

/// Degraded mode: a CPU detector on the camera image (`camera_fallback` ->
/// `detection_fallback`).
pub struct FallbackDetector;

impl body::FallbackDetector for FallbackDetector {
    fn run(&mut self, cx: cx::FallbackDetector<'_>) -> Result<(), TaskFault> {
        let row = bright_bottom_row(cx.camera_fallback.bytes());
        let out = cx.detection_fallback.into_slice::<i32>()?;
        let (found, r, d) = match row {
            Some(r) => (1, r as i32, distance_from_bottom_row(r)),
            None => (0, -1, -1),
        };
        out[..4].copy_from_slice(&[found, r, 0, d]);
        Ok(())
    }
}

/// Degraded mode: brake earlier (one more second of time to collision), from
/// `detection_fallback`.
pub struct ConservativeDecision {
    /// Where decisions go.
    pub log: &'static DecisionLog,
}

impl body::ConservativeDecision for ConservativeDecision {
    fn run(&mut self, cx: cx::ConservativeDecision<'_>) -> Result<(), TaskFault> {
        let frame = cx.frame;
        let stale = !cx.inputs_valid;
        let det = cx.detection_fallback.as_slice::<i32>()?;
        let distance_mm = if det[0] == 1 { det[3] } else { -1 };
        let brake = stale || brake_for(distance_mm, TTC_BRAKE_S + 1.0);
        self.log.record(
            frame,
            Decision {
                brake,
                distance_mm,
                fallback: true,
                implausible: false,
                stale,
            },
        );
        Ok(())
    }
}

/// Covers: REQ-API-006
#[cfg(test)]
mod frame_log_tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_until_its_slot_is_reused() {
        let log: FrameLog<2, 4> = FrameLog::new();
        assert_eq!(log.get(1), None);
        log.record(1, [10, 11]);
        assert_eq!(log.get(1), Some([10, 11]));
        assert_eq!(log.get(5), None, "same slot, another frame");
        log.record(5, [50, 51]);
        assert_eq!(log.get(1), None, "replaced by the frame SLOTS later");
        assert_eq!(log.get(5), Some([50, 51]));
        log.record(1, [12, 13]);
        assert_eq!(
            log.get(5),
            Some([50, 51]),
            "an older frame never comes back"
        );
    }

    #[test]
    fn decisions_round_trip() {
        let log = DecisionLog::new();
        let d = Decision {
            brake: true,
            distance_mm: -1,
            fallback: false,
            implausible: true,
            stale: true,
        };
        log.record(3, d);
        assert_eq!(log.get(3), Some(d));
        assert_eq!(log.get(4), None);
    }

    /// A worker records frames while the main thread reads the most recent ones (whose slots
    /// the worker is about to reuse): every read is one frame's words, never a mix.
    #[test]
    fn concurrent_reads_are_whole() {
        use std::sync::atomic::{AtomicU64, Ordering};
        static LOG: FrameLog<3, 8> = FrameLog::new();
        static RECORDED: AtomicU64 = AtomicU64::new(0);
        const FRAMES: u64 = 20_000;
        let words = |f: u64| [f, f * 3 + 1, !f];
        let writer = std::thread::spawn(move || {
            for f in 0..FRAMES {
                LOG.record(f, words(f));
                RECORDED.store(f, Ordering::Relaxed);
            }
        });
        while !writer.is_finished() {
            let newest = RECORDED.load(Ordering::Relaxed);
            for frame in newest.saturating_sub(7)..=newest {
                if let Some(got) = LOG.get(frame) {
                    assert_eq!(got, words(frame), "a mix of two frames");
                }
            }
        }
        writer.join().unwrap();
        assert_eq!(LOG.get(FRAMES - 1), Some(words(FRAMES - 1)));
        assert_eq!(LOG.get(FRAMES - 9), None);
    }
}
