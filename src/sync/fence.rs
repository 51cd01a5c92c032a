//! Fences: a semaphore and a value.

use crate::table::TaskId;

/// A point on a task's completion semaphore: reached once the counter is at least `value`.
///
/// ```
/// use orin_exec::sync::Fence;
/// use orin_exec::table::TaskId;
/// // A task that runs every frame, after warm-up left its counter at 3:
/// let f = Fence::steady_state(TaskId(2), 3, 10);
/// assert_eq!(f.value, 14);
/// assert!(f.reached_by(14) && !f.reached_by(13));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Fence {
    /// The task whose completion semaphore this is.
    pub task: TaskId,
    /// The counter value that reaches the fence.
    pub value: u64,
}

impl Fence {
    /// The fence of frame `frame` for a task that has run in every frame since the counter
    /// stood at `base`: `base + frame + 1`.
    pub const fn steady_state(task: TaskId, base: u64, frame: u64) -> Fence {
        Fence {
            task,
            value: base + frame + 1,
        }
    }

    /// Whether a counter value reaches this fence (64-bit cyclic compare, as the GPU's
    /// `CU_STREAM_WAIT_VALUE_GEQ`).
    pub const fn reached_by(&self, counter: u64) -> bool {
        (counter.wrapping_sub(self.value) as i64) >= 0
    }
}
