//! Instructions of the runtime's own code per dispatched task, counted by callgrind on the SIL
//! virtual clock: a deterministic regression guard for the executive's per-task cost
//! (`ci/instructions.sh`, ceiling in `ci/instructions-ceiling.toml`).
//!
//! The bin builds a schedule in code ([`shapes`]), runs warm-up frames, then the measured
//! frames inside [`icount_measured_frames`], then calls [`icount_measured_end`]: callgrind dumps on
//! entry to each (`--dump-before`), so the second dump holds exactly those frames, from every thread (the
//! executive, the CPU workers, the SIL stream threads). [`callgrind`] reads the dump and sums
//! the exclusive cost of the runtime's own functions; [`ceiling`] checks the figures.

pub mod callgrind;
pub mod ceiling;
pub mod shapes;

use orin_exec::exec::Executive;
use orin_exec::table::TaskId;

/// Completed runs of every task so far.
pub fn runs(exec: &Executive) -> u64 {
    (0..exec.schedule().tasks.len())
        .map(|i| exec.counters(TaskId(i as u16)).runs)
        .sum()
}

/// Steps `frames` frames and returns the faults they reported. Callgrind dumps (and zeroes) its
/// counters on entry to this function and on entry to [`icount_measured_end`], called right
/// after it (`--dump-before=` both; callgrind 3.19's `--dump-after` did not fire on its
/// return): the second dump holds the measured frames. Both must stay functions of their own:
/// `inline(never)`.
///
/// # Errors
/// The runtime's error of a failed step.
#[inline(never)]
pub fn icount_measured_frames(exec: &mut Executive, frames: u64) -> Result<u64, String> {
    let mut faults = 0u64;
    for _ in 0..frames {
        let r = exec.step().map_err(|e| format!("step: {e}"))?;
        faults += r.faults as u64;
    }
    Ok(faults)
}

/// Marks the end of the measured frames for callgrind's `--dump-before` (does nothing).
#[inline(never)]
pub fn icount_measured_end() {
    std::hint::black_box(());
}
