//! The CPU task bodies, bound to the schedule by type: each gets only the buffers its task
//! declares (`cx::Source` has `input`, writable; `cx::Sink` has `input` and `scaled`,
//! read-only).

use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec::exec::TaskFault;
use static_cell::StaticCell;

use crate::models;
use crate::schedule::{Bodies, body, cx};

/// Elements per buffer.
pub const N: usize = 256;
/// The gain `scale` is launched with (schedule.toml, `params`).
pub const GAIN: f32 = 2.5;

/// What the sink found, read by `main` after the run.
pub struct Checks {
    /// Frames whose every output element was checked.
    pub frames: AtomicU64,
    /// Elements that differed from the expected value.
    pub mismatches: AtomicU64,
}

impl Checks {
    const fn new() -> Self {
        Checks {
            frames: AtomicU64::new(0),
            mismatches: AtomicU64::new(0),
        }
    }
}

/// The input of frame `f`: a ramp that moves with the frame.
pub fn input_value(frame: u64, i: usize) -> f32 {
    ((frame % 1000) as f32) * 0.5 + i as f32
}

/// Writes the frame's input.
pub struct Source;

impl body::Source for Source {
    fn run(&mut self, cx: cx::Source<'_>) -> Result<(), TaskFault> {
        let frame = cx.frame;
        let input = cx.input.into_slice::<f32>()?;
        for (i, x) in input.iter_mut().enumerate().take(N) {
            *x = input_value(frame, i);
        }
        Ok(())
    }
}

/// Checks every output element against the kernel's model run on the same input (on SIL this
/// checks the plumbing; on a GPU it is a back-to-back test of the cubin against its model).
pub struct Sink {
    /// Where the results go.
    pub checks: &'static Checks,
}

impl body::Sink for Sink {
    fn run(&mut self, cx: cx::Sink<'_>) -> Result<(), TaskFault> {
        if !cx.inputs_valid {
            // A dependency timed out; the executive has recorded the fault.
            return Ok(());
        }
        let input = cx.input.as_slice::<f32>()?;
        let scaled = cx.scaled.as_slice::<f32>()?;
        let mut want = [0f32; N];
        models::scale_on_host(&input[..N], &mut want, GAIN).map_err(|_| TaskFault::App { code: 1 })?;
        let bad = want
            .iter()
            .zip(scaled)
            .filter(|(w, y)| w.to_bits() != y.to_bits())
            .count();
        self.checks
            .mismatches
            .fetch_add(bad as u64, Ordering::Relaxed);
        self.checks.frames.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// The schedule's `Bodies` (one field per CPU task) and the sink's results; call once.
pub fn bodies() -> (&'static mut Bodies, &'static Checks) {
    static CHECKS: Checks = Checks::new();
    static SOURCE: StaticCell<Source> = StaticCell::new();
    static SINK: StaticCell<Sink> = StaticCell::new();
    static BODIES: StaticCell<Bodies> = StaticCell::new();
    let bodies = BODIES.init(Bodies {
        source: SOURCE.init(Source),
        sink: SINK.init(Sink { checks: &CHECKS }),
    });
    (bodies, &CHECKS)
}
