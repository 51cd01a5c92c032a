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
//!
//! No fault happens in a clean run, so the degraded chain never runs there; both sides take
//! a `fail_decision_at` frame in which the `decision` task, after deciding, reports a task
//! error (the C++ example's `--fail-decision-at N`): the health monitor switches to the
//! degraded mode and the degraded chain decides from the next frame on.

use aeb::app::{self, Tasks};
use aeb::schedule::{SCHEDULE, Storage, body, cx};
use aeb::tasks::{Decision, DecisionLog, DecisionTask};
use orin_exec::exec::{Builder, TaskFault};

/// The application fault code of the forced decision fault (the plausibility monitor's code).
pub const FORCED_FAULT_CODE: u32 = 2;

/// The demo's `decision` task, which reports a task error after deciding in frame `fail_at`.
struct FailingDecision {
    inner: DecisionTask,
    fail_at: Option<u64>,
}

impl body::Decision for FailingDecision {
    fn run(&mut self, cx: cx::Decision<'_>) -> Result<(), TaskFault> {
        let frame = cx.frame;
        self.inner.run(cx)?;
        if self.fail_at == Some(frame) {
            return Err(TaskFault::App {
                code: FORCED_FAULT_CODE,
            });
        }
        Ok(())
    }
}

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
/// decision lines ([`decision_line`]), one per frame stepped (fewer after a safe stop); with
/// `fail_decision_at`, the `decision` task reports a task error in that frame.
pub fn rust_decisions(
    frames: u64,
    fail_decision_at: Option<u64>,
) -> orin_exec::Result<Vec<String>> {
    // The SIL clock is one per process: a virtual-clock run must be the only runtime in it
    // (`PlatformFact::ClockInUse` otherwise), so concurrent calls take turns.
    static ONE_RUN_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // The executive needs its storage, bodies and log for 'static; one run per call.
    let log: &'static DecisionLog = Box::leak(Box::new(DecisionLog::new()));
    let tasks = Box::leak(Box::new(Tasks::new(log, |inner| FailingDecision {
        inner,
        fail_at: fail_decision_at,
    })));
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
