//! The reference side of the C++ partition example's check: the Rust AEB demo's application
//! (`aeb::app`, the same tasks, DLA timing model and options as `cargo run -- --virtual-clock`)
//! run on the SIL virtual clock, its decisions written one line per frame in the format the C++
//! example writes with `--decisions FILE` (README.md of this directory):
//!
//! ```text
//! FRAME MODE BRAKE DISTANCE_MM FALLBACK IMPLAUSIBLE STALE
//! 0 normal 0 68571 0 0 0
//! ```
//!
//! A frame that ended without a decision is `FRAME MODE -`. `tests/decisions.rs` compares the
//! two line by line.

use aeb::app::{self, Tasks};
use aeb::schedule::{SCHEDULE, Storage};
use aeb::tasks::{Decision, DecisionLog};
use orin_exec::exec::Builder;

/// The decision line of `frame` in `mode`: the format of the C++ example's `--decisions`.
///
/// ```
/// use aeb::tasks::Decision;
/// let d = Decision { brake: true, distance_mm: 6_100, ..Decision::default() };
/// assert_eq!(cpp_partition::decision_line(7, "normal", Some(d)), "7 normal 1 6100 0 0 0");
/// assert_eq!(cpp_partition::decision_line(8, "degraded", None), "8 degraded -");
/// ```
pub fn decision_line(frame: u64, mode: &str, d: Option<Decision>) -> String {
    match d {
        Some(d) => format!(
            "{frame} {mode} {} {} {} {} {}",
            u8::from(d.brake),
            d.distance_mm,
            u8::from(d.fallback),
            u8::from(d.implausible),
            u8::from(d.stale)
        ),
        None => format!("{frame} {mode} -"),
    }
}

/// Run the Rust demo's application for `frames` frames on the virtual clock and return its
/// decision lines ([`decision_line`]), one per frame stepped (fewer after a safe stop).
pub fn rust_decisions(frames: u64) -> orin_exec::Result<Vec<String>> {
    // The executive needs its storage, bodies and log for 'static; one run per call.
    let log: &'static DecisionLog = Box::leak(Box::new(DecisionLog::new()));
    let tasks = Box::leak(Box::new(Tasks::new(log, std::convert::identity)));
    let runtime = app::init(
        Builder::new(&SCHEDULE, Box::leak(Box::new(Storage::new()))).config(app::config(true)),
        Box::leak(Box::new(tasks.bodies())),
        app::DLA_SEED,
    )?;
    let mut exec = runtime.seal()?;
    let mut lines = Vec::with_capacity(frames as usize);
    for _ in 0..frames {
        let report = exec.step()?;
        let mode = app::mode_name(&SCHEDULE, report.mode);
        lines.push(decision_line(report.frame, mode, log.get(report.frame)));
        if report.stopped {
            break;
        }
    }
    exec.shutdown()?;
    Ok(lines)
}
