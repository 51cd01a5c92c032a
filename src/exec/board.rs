//! The board: state the executive publishes to the CPU workers and reads back, all atomics.
//!
//! * the released frame and its plan (mode, no-op mask, release time);
//! * per task and recent frame, the fence value its signal produces (0 = not planned);
//! * per CPU task and recent frame, the measured start/end and status.
//!
//! Each slot is a [`SeqLock`] versioned by the frame it belongs to, so a slot reused for a
//! later frame is never mistaken for the one asked for, and a reader never gets half of one
//! write. A frame's value is written once: a second write for the same frame, or a write for a
//! frame older than the one the slot holds, is ignored.

use crate::exec::plan::FramePlan;
use crate::limits::FENCE_HISTORY;
use crate::sync::SeqLock;
use crate::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use crate::table::{ModeId, TaskId};

const NONE: u64 = u64::MAX;

/// Frames of plans kept: how far a stalled CPU worker may fall behind and still catch up
/// (it signals the frames it missed as no-ops, which needs their plans).
pub const PLAN_HISTORY: usize = 256;

/// Three words of one frame.
type Slot = SeqLock<3>;
/// A CPU result: start, end, status bits, time spun waiting.
type ResultSlot = SeqLock<4>;

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
        /// Its dependencies had not all ended when it did (`MISSED` or
        /// `DEPENDENCY_TIMEOUT`, or an earlier run's signal was still owed): its worker
        /// signals it once they have, so its semaphore may lag the result.
        const SIGNAL_OWED = 32;
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
    /// CPU time its worker spent spinning while waiting for its dependencies, ns.
    pub spin_ns: u64,
}

/// One task's slots, per recent frame: the fence value its signal produces, its CPU result,
/// and an injected overrun.
pub struct TaskRow {
    fences: [Slot; FENCE_HISTORY],
    results: [ResultSlot; FENCE_HISTORY],
    injections: [Slot; FENCE_HISTORY],
}

impl Default for TaskRow {
    fn default() -> Self {
        Self::new()
    }
}

impl TaskRow {
    /// Nothing published.
    pub const fn new() -> Self {
        TaskRow {
            fences: [const { Slot::new() }; FENCE_HISTORY],
            results: [const { ResultSlot::new() }; FENCE_HISTORY],
            injections: [const { Slot::new() }; FENCE_HISTORY],
        }
    }
}

/// Shared executive/worker state: the frame-wide slots, and one [`TaskRow`] per task of the
/// schedule (in the application's storage, sized to the schedule).
pub struct Board<'a> {
    released: AtomicU64,
    plans: [Slot; PLAN_HISTORY],
    rows: &'a [TaskRow],
    stop: AtomicBool,
}

impl<'a> Board<'a> {
    /// Nothing published; one row per task in `rows` (tasks beyond it are ignored).
    pub const fn new(rows: &'a [TaskRow]) -> Self {
        Board {
            released: AtomicU64::new(NONE),
            plans: [const { Slot::new() }; PLAN_HISTORY],
            rows,
            stop: AtomicBool::new(false),
        }
    }

    /// Give the board its task rows (init, before anything is published).
    pub(crate) fn set_rows(&mut self, rows: &'a [TaskRow]) {
        self.rows = rows;
    }

    fn row(&self, task: TaskId) -> Option<&TaskRow> {
        self.rows.get(task.0 as usize)
    }

    fn index(frame: u64) -> usize {
        (frame % FENCE_HISTORY as u64) as usize
    }

    fn plan_slot(&self, frame: u64) -> &Slot {
        &self.plans[(frame % PLAN_HISTORY as u64) as usize]
    }

    /// Publish a frame's plan (before its fences and before releasing it).
    pub fn publish_plan(&self, plan: &FramePlan, release_ns: u64) {
        self.plan_slot(plan.frame)
            .write(plan.frame, [plan.mode.0 as u64, plan.skip, release_ns]);
    }

    /// A published plan and its release time.
    pub fn plan(&self, frame: u64) -> Option<(FramePlan, u64)> {
        self.plan_slot(frame)
            .read(frame)
            .map(|[mode, skip, release]| {
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
        if let Some(row) = self.row(task) {
            row.fences[Self::index(frame)].write(frame, [value, 0, 0]);
        }
    }

    /// The fence value of `task` in `frame`, if the task was planned in that frame.
    pub fn fence(&self, task: TaskId, frame: u64) -> Option<u64> {
        self.row(task)?.fences[Self::index(frame)]
            .read(frame)
            .map(|[v, _, _]| v)
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
        if let Some(row) = self.row(task) {
            row.results[Self::index(frame)]
                .write(frame, [r.start_ns, r.end_ns, r.status.bits(), r.spin_ns]);
        }
    }

    /// A CPU task's result.
    pub fn result(&self, task: TaskId, frame: u64) -> Option<CpuResult> {
        self.row(task)?.results[Self::index(frame)].read(frame).map(
            |[start_ns, end_ns, status, spin_ns]| CpuResult {
                start_ns,
                end_ns,
                status: RunStatus::from_bits_truncate(status),
                spin_ns,
            },
        )
    }

    /// Fault injection: make `task` run `extra_ns` longer in `frame` (the first injection of a
    /// task and frame counts).
    pub fn inject_overrun(&self, task: TaskId, frame: u64, extra_ns: u64) {
        if let Some(row) = self.row(task) {
            row.injections[Self::index(frame)].write(frame, [extra_ns, 0, 0]);
        }
    }

    /// The injected extra execution time of `task` in `frame` (0 if none).
    pub fn injected_overrun(&self, task: TaskId, frame: u64) -> u64 {
        self.row(task)
            .and_then(|row| row.injections[Self::index(frame)].read(frame))
            .map_or(0, |[v, _, _]| v)
    }

    /// Ask the workers to stop.
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Whether the workers must stop.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Loom: create the atomics of the released frame, the stop flag and the plan, fence and
    /// result slots of `tasks` in `frames`, before the model spawns threads (the board is far
    /// too large to model whole).
    #[cfg(all(loom, test))]
    pub(crate) fn register(&self, tasks: &[TaskId], frames: &[u64]) {
        self.released.register();
        self.stop.register();
        for &frame in frames {
            self.plan_slot(frame).register();
            for task in tasks {
                self.rows[task.0 as usize].fences[Self::index(frame)].register();
                self.rows[task.0 as usize].results[Self::index(frame)].register();
            }
        }
    }
}

/// Covers: REQ-API-006
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn rows() -> [TaskRow; 4] {
        [const { TaskRow::new() }; 4]
    }

    fn plan(frame: u64) -> FramePlan {
        FramePlan {
            frame,
            mode: ModeId((frame % 3) as u8),
            skip: frame * 5,
        }
    }

    #[test]
    fn nothing_before_it_is_published() {
        let rows = rows();
        let board = Board::new(&rows);
        assert_eq!(board.released(), None);
        assert_eq!(board.plan(0), None);
        assert_eq!(board.fence(TaskId(0), 0), None);
        assert_eq!(board.result(TaskId(0), 0), None);
        assert_eq!(board.injected_overrun(TaskId(0), 0), 0);
        assert!(!board.stopping());
    }

    #[test]
    fn published_values_read_back_for_their_frame_only() {
        let rows = rows();
        let board = Board::new(&rows);
        board.publish_plan(&plan(4), 4_000);
        board.publish_fence(TaskId(2), 4, 17);
        board.inject_overrun(TaskId(2), 4, 300);
        let r = CpuResult {
            start_ns: 10,
            end_ns: 20,
            status: RunStatus::SKIPPED | RunStatus::MISSED,
            spin_ns: 5,
        };
        board.record_result(TaskId(2), 4, r);
        board.release(4);
        assert_eq!(board.released(), Some(4));
        assert_eq!(board.plan(4), Some((plan(4), 4_000)));
        assert_eq!(board.fence(TaskId(2), 4), Some(17));
        assert_eq!(board.fence(TaskId(1), 4), None, "another task");
        assert_eq!(board.fence(TaskId(2), 3), None, "another frame");
        assert_eq!(board.result(TaskId(2), 4), Some(r));
        assert_eq!(board.injected_overrun(TaskId(2), 4), 300);
        assert_eq!(board.injected_overrun(TaskId(2), 5), 0);
    }

    #[test]
    fn a_reused_slot_answers_for_its_new_frame_only() {
        let rows = rows();
        let board = Board::new(&rows);
        let later = FENCE_HISTORY as u64;
        board.publish_fence(TaskId(0), 0, 1);
        board.publish_fence(TaskId(0), later, 2);
        assert_eq!(board.fence(TaskId(0), 0), None);
        assert_eq!(board.fence(TaskId(0), later), Some(2));
        // An older frame never takes a slot back.
        board.publish_fence(TaskId(0), 0, 3);
        assert_eq!(board.fence(TaskId(0), 0), None);
        assert_eq!(board.fence(TaskId(0), later), Some(2));

        let plan_later = PLAN_HISTORY as u64 + 1;
        board.publish_plan(&plan(1), 1);
        board.publish_plan(&plan(plan_later), 2);
        assert_eq!(board.plan(1), None);
        assert_eq!(board.plan(plan_later), Some((plan(plan_later), 2)));
    }

    #[test]
    fn a_frame_is_written_once() {
        let rows = rows();
        let board = Board::new(&rows);
        board.inject_overrun(TaskId(1), 2, 100);
        board.inject_overrun(TaskId(1), 2, 900);
        assert_eq!(board.injected_overrun(TaskId(1), 2), 100);
    }

    #[test]
    fn tasks_beyond_the_limit_are_ignored() {
        let rows = rows();
        let board = Board::new(&rows);
        let beyond = TaskId(rows.len() as u16);
        board.publish_fence(beyond, 0, 1);
        board.inject_overrun(beyond, 0, 1);
        assert_eq!(board.fence(beyond, 0), None);
        assert_eq!(board.injected_overrun(beyond, 0), 0);
    }

    #[test]
    fn stop_is_seen() {
        let rows = rows();
        let board = Board::new(&rows);
        board.request_stop();
        assert!(board.stopping());
    }
}

/// Loom model: the executive publishes frames while a worker reads them.
///
/// Covers: REQ-API-006
#[cfg(all(test, loom))]
mod loom_models {
    extern crate std;
    use super::*;
    use loom::sync::Arc;
    use loom::thread;
    use std::boxed::Box;

    const TASK: TaskId = TaskId(1);
    /// Frame 0 and a later frame that reuses its fence slot.
    const FRAMES: [u64; 2] = [0, FENCE_HISTORY as u64];

    fn plan(frame: u64) -> FramePlan {
        FramePlan {
            frame,
            mode: ModeId(1 + frame as u8),
            skip: 3 + frame,
        }
    }

    fn fence_value(frame: u64) -> u64 {
        100 + frame
    }

    /// The executive publishes frame 0 and the frame that reuses its fence slot while this
    /// thread, the worker, reads them.
    fn executive_and_worker() {
        // The rows outlive the model's threads: one small leak per model iteration.
        let rows: &'static [TaskRow] = Box::leak(Box::new([TaskRow::new(), TaskRow::new()]));
        let board = Arc::new(Board::new(rows));
        board.register(&[TASK], &FRAMES);
        let executive = {
            let board = board.clone();
            thread::spawn(move || {
                for frame in FRAMES {
                    board.publish_plan(&plan(frame), 1_000 + frame);
                    board.publish_fence(TASK, frame, fence_value(frame));
                    board.release(frame);
                }
            })
        };
        // A released frame's plan and fence are there, and whole.
        if let Some(frame) = board.released() {
            assert_eq!(board.plan(frame), Some((plan(frame), 1_000 + frame)));
            let fence = board.fence(TASK, frame);
            // Frame 0's fence slot may already hold the later frame's.
            assert!(fence == Some(fence_value(frame)) || (frame == 0 && fence.is_none()));
            board.record_result(TASK, frame, result(frame));
        }
        // A racing read of the reused slot is one frame's whole value or nothing.
        let early = board.fence(TASK, 0);
        assert!(early.is_none() || early == Some(fence_value(0)));
        executive.join().unwrap();
        let last = FRAMES[1];
        assert_eq!(board.released(), Some(last));
        assert_eq!(board.fence(TASK, last), Some(fence_value(last)));
        if let Some(r) = board.result(TASK, 0).or(board.result(TASK, last)) {
            assert_eq!(r, result(r.start_ns));
        }
    }

    fn result(frame: u64) -> CpuResult {
        CpuResult {
            start_ns: frame,
            end_ns: frame + 1,
            status: RunStatus::SKIPPED,
            spin_ns: frame + 2,
        }
    }

    #[test]
    fn loom_board_worker_sees_what_the_executive_published() {
        let mut model = loom::model::Builder::new();
        // Unbounded, the model runs for over a minute; three preemptions take a second.
        model.preemption_bound = Some(3);
        model.check(|| {
            // The whole board is built on the stack first: give it a thread with room.
            thread::Builder::new()
                .stack_size(16 << 20)
                .spawn(executive_and_worker)
                .unwrap()
                .join()
                .unwrap();
        });
    }
}
