//! The plan of one major frame: its mode and which tasks run as no-ops.

use crate::limits::MAX_MODES;
use crate::table::{ModeId, Schedule, TaskId};

/// The tasks of a mask (bit per task index), in schedule order.
pub(crate) fn tasks_of(mut mask: u64) -> impl Iterator<Item = TaskId> {
    core::iter::from_fn(move || {
        let i = mask.trailing_zeros();
        (i < 64).then(|| {
            mask &= mask - 1;
            TaskId(i as u16)
        })
    })
}

/// Per mode, the tasks it runs (bit per task index, for schedules of up to 64 tasks): what
/// [`FramePlan::planned`] answers, as one bit test per task in the per-frame loops.
pub(crate) fn mode_tasks(schedule: &Schedule) -> [u64; MAX_MODES] {
    let mut tasks = [0u64; MAX_MODES];
    for (i, t) in schedule.tasks.iter().enumerate().take(64) {
        for (m, set) in tasks.iter_mut().enumerate() {
            if t.modes.contains(ModeId(m as u8)) {
                *set |= 1 << i;
            }
        }
    }
    tasks
}

/// Decided when a frame is planned (at the latest when its first work is submitted) and never
/// changed afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FramePlan {
    /// Major frame number.
    pub frame: u64,
    /// Its mode.
    pub mode: ModeId,
    /// Tasks that run as no-ops (bit per task index).
    pub skip: u64,
}

impl FramePlan {
    /// Whether `task` is part of this frame (it then signals its semaphore exactly once).
    pub fn planned(&self, schedule: &Schedule, task: TaskId) -> bool {
        schedule
            .tasks
            .get(task.0 as usize)
            .is_some_and(|t| t.modes.contains(self.mode))
    }

    /// Whether `task` runs as a no-op in this frame.
    pub const fn skipped(&self, task: TaskId) -> bool {
        task.0 < 64 && self.skip & (1 << task.0) != 0
    }
}
