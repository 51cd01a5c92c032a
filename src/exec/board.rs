//! The board: state the executive publishes to the CPU workers and reads back, all atomics.
//!
//! * the released frame and its plan (mode, no-op mask, release time);
//! * per task and recent frame, the fence value its signal produces (0 = not planned);
//! * per CPU task and recent frame, the measured start/end and status.
//!
//! Each slot carries the frame it belongs to; readers check it before and after reading the
//! value (a seqlock made of atomics alone), so a slot reused for a later frame is never mistaken
//! for the one asked for.

use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::exec::plan::FramePlan;
use crate::limits::{FENCE_HISTORY, MAX_TASKS};
use crate::table::{ModeId, TaskId};

const NONE: u64 = u64::MAX;

/// Frames of plans kept: how far a stalled CPU worker may fall behind and still catch up
/// (it signals the frames it missed as no-ops, which needs their plans).
pub const PLAN_HISTORY: usize = 256;

struct Slot {
    frame: AtomicU64,
    a: AtomicU64,
    b: AtomicU64,
    c: AtomicU64,
}

impl Slot {
    const fn new() -> Self {
        Slot {
            frame: AtomicU64::new(NONE),
            a: AtomicU64::new(0),
            b: AtomicU64::new(0),
            c: AtomicU64::new(0),
        }
    }

    fn write(&self, frame: u64, a: u64, b: u64, c: u64) {
        self.frame.store(NONE, Ordering::Release);
        self.a.store(a, Ordering::Relaxed);
        self.b.store(b, Ordering::Relaxed);
        self.c.store(c, Ordering::Relaxed);
        self.frame.store(frame, Ordering::Release);
    }

    fn read(&self, frame: u64) -> Option<(u64, u64, u64)> {
        if self.frame.load(Ordering::Acquire) != frame {
            return None;
        }
        let v = (
            self.a.load(Ordering::Relaxed),
            self.b.load(Ordering::Relaxed),
            self.c.load(Ordering::Relaxed),
        );
        core::sync::atomic::fence(Ordering::Acquire);
        (self.frame.load(Ordering::Relaxed) == frame).then_some(v)
    }
}

bitflags::bitflags! {
    /// What happened in one CPU task run.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct RunStatus: u64 {
        /// The task function returned an error.
        const TASK_ERROR = 1;
        /// A dependency was not reached by the task's deadline; it ran with stale inputs.
        const DEPENDENCY_TIMEOUT = 2;
        /// It ran as a no-op.
        const SKIPPED = 4;
        /// A buffer access was refused (e.g. an engine still held it).
        const ACCESS_REFUSED = 8;
        /// The worker reached the task after its deadline (it was late itself): not run.
        const MISSED = 16;
    }
}

/// Result of one CPU task run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuResult {
    /// Start, ns on the executive's clock.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// What happened.
    pub status: RunStatus,
}

/// Shared executive/worker state.
pub struct Board {
    released: AtomicU64,
    plans: [Slot; PLAN_HISTORY],
    fences: [[Slot; FENCE_HISTORY]; MAX_TASKS],
    results: [[Slot; FENCE_HISTORY]; MAX_TASKS],
    injections: [[Slot; FENCE_HISTORY]; MAX_TASKS],
    stop: AtomicBool,
}

impl Default for Board {
    fn default() -> Self {
        Self::new()
    }
}

impl Board {
    /// Nothing published.
    pub const fn new() -> Self {
        Board {
            released: AtomicU64::new(NONE),
            plans: [const { Slot::new() }; PLAN_HISTORY],
            fences: [const { [const { Slot::new() }; FENCE_HISTORY] }; MAX_TASKS],
            results: [const { [const { Slot::new() }; FENCE_HISTORY] }; MAX_TASKS],
            injections: [const { [const { Slot::new() }; FENCE_HISTORY] }; MAX_TASKS],
            stop: AtomicBool::new(false),
        }
    }

    fn index(frame: u64) -> usize {
        (frame % FENCE_HISTORY as u64) as usize
    }

    /// Publish a frame's plan (before its fences and before releasing it).
    pub fn publish_plan(&self, plan: &FramePlan, release_ns: u64) {
        self.plans[(plan.frame % PLAN_HISTORY as u64) as usize].write(
            plan.frame,
            plan.mode.0 as u64,
            plan.skip,
            release_ns,
        );
    }

    /// A published plan and its release time.
    pub fn plan(&self, frame: u64) -> Option<(FramePlan, u64)> {
        self.plans[(frame % PLAN_HISTORY as u64) as usize]
            .read(frame)
            .map(|(mode, skip, release)| {
                (
                    FramePlan {
                        frame,
                        mode: ModeId(mode as u8),
                        skip,
                    },
                    release,
                )
            })
    }

    /// Publish the fence value `task`'s signal of `frame` produces.
    pub fn publish_fence(&self, task: TaskId, frame: u64, value: u64) {
        if let Some(row) = self.fences.get(task.0 as usize) {
            row[Self::index(frame)].write(frame, value, 0, 0);
        }
    }

    /// The fence value of `task` in `frame`, if the task was planned in that frame.
    pub fn fence(&self, task: TaskId, frame: u64) -> Option<u64> {
        self.fences.get(task.0 as usize)?[Self::index(frame)]
            .read(frame)
            .map(|(v, _, _)| v)
    }

    /// Release `frame` to the workers.
    pub fn release(&self, frame: u64) {
        self.released.store(frame, Ordering::Release);
    }

    /// The most recently released frame.
    pub fn released(&self) -> Option<u64> {
        let f = self.released.load(Ordering::Acquire);
        (f != NONE).then_some(f)
    }

    /// Record a CPU task's result (by its worker, before signalling).
    pub fn record_result(&self, task: TaskId, frame: u64, r: CpuResult) {
        if let Some(row) = self.results.get(task.0 as usize) {
            row[Self::index(frame)].write(frame, r.start_ns, r.end_ns, r.status.bits());
        }
    }

    /// A CPU task's result.
    pub fn result(&self, task: TaskId, frame: u64) -> Option<CpuResult> {
        self.results.get(task.0 as usize)?[Self::index(frame)]
            .read(frame)
            .map(|(start_ns, end_ns, status)| CpuResult {
                start_ns,
                end_ns,
                status: RunStatus::from_bits_truncate(status),
            })
    }

    /// Fault injection: make `task` run `extra_ns` longer in `frame`.
    pub fn inject_overrun(&self, task: TaskId, frame: u64, extra_ns: u64) {
        if let Some(row) = self.injections.get(task.0 as usize) {
            row[Self::index(frame)].write(frame, extra_ns, 0, 0);
        }
    }

    /// The injected extra execution time of `task` in `frame` (0 if none).
    pub fn injected_overrun(&self, task: TaskId, frame: u64) -> u64 {
        self.injections
            .get(task.0 as usize)
            .and_then(|row| row[Self::index(frame)].read(frame))
            .map_or(0, |(v, _, _)| v)
    }

    /// Ask the workers to stop.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Whether the workers must stop.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}
