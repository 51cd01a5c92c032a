//! The plan of one major frame: its mode and which tasks run as no-ops.

use crate::table::{ModeId, Schedule, TaskId};

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
