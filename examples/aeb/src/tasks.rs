//! The CPU tasks of the AEB slice.

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{CpuTask, TaskFault};
use orin_exec::sync::SeqLock;
use orin_exec::table::BufferId;

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

/// The CPU "sensor": renders the scenario's camera frame into an NvSciBuf buffer.
pub struct Sensor {
    /// The buffer it fills.
    pub camera: BufferId,
}

impl CpuTask for Sensor {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        scenario::render(ctx.frame(), ctx.write(self.camera)?);
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
/// the raw camera image.
pub struct DecisionTask {
    /// `detection` buffer (4 × i32 from the GPU postprocess).
    pub detection: BufferId,
    /// `presence` buffer (DLA logits, channel pitch 64).
    pub presence: BufferId,
    /// `camera` buffer (for the monitor).
    pub camera: BufferId,
    /// Where decisions go.
    pub log: &'static DecisionLog,
}

impl CpuTask for DecisionTask {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let frame = ctx.frame();
        if !ctx.inputs_valid() {
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
        let det = ctx.read_as::<i32>(self.detection)?;
        let presence = ctx.read_as::<i8>(self.presence)?;
        let camera = ctx.read(self.camera)?;
        let (found, distance_mm) = (det[0] == 1, if det[0] == 1 { det[3] } else { -1 });

        // Plausibility monitor (independent of the decision path).
        let dla_says_obstacle = presence[64] > presence[0];
        let camera_row = bright_bottom_row(camera);
        let camera_near = camera_row.is_some_and(|r| r >= HORIZON + 8); // closer than ~30 m
        let implausible = found != dla_says_obstacle
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
            return Err(TaskFault { code: 2 });
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

/// Degraded mode: a CPU detector on the camera image.
pub struct FallbackDetector {
    /// Its camera buffer.
    pub camera: BufferId,
    /// Its detection buffer.
    pub detection: BufferId,
}

impl CpuTask for FallbackDetector {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let row = bright_bottom_row(ctx.read(self.camera)?);
        let out = ctx.write_as::<i32>(self.detection)?;
        let (found, r, d) = match row {
            Some(r) => (1, r as i32, distance_from_bottom_row(r)),
            None => (0, -1, -1),
        };
        out[..4].copy_from_slice(&[found, r, 0, d]);
        Ok(())
    }
}

/// Degraded mode: brake earlier (one more second of time to collision).
pub struct ConservativeDecision {
    /// The fallback detection.
    pub detection: BufferId,
    /// Where decisions go.
    pub log: &'static DecisionLog,
}

impl CpuTask for ConservativeDecision {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let frame = ctx.frame();
        let stale = !ctx.inputs_valid();
        let det = ctx.read_as::<i32>(self.detection)?;
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
