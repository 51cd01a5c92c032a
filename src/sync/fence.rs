//! Fences: a semaphore and a value.
//!
//! Counter arithmetic is modulo 2^64, in debug and release alike: a semaphore's counter is a
//! 64-bit cyclic counter (the GPU's `CU_STREAM_WAIT_VALUE_GEQ` and NvSciSync's 64-bit
//! semaphore compare cyclically), so fence values wrap past `u64::MAX` to 0 and
//! [`Fence::reached_by`] stays right across the wrap while fewer than 2^63 signals separate
//! the counter from the fence. Saturating would make every fence after the edge equal, and
//! so reached before its signal; an error would stop a system that can run on.

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
    /// stood at `base`: `base + frame + 1`, modulo 2^64 (see the module docs).
    ///
    /// ```
    /// use orin_exec::sync::Fence;
    /// use orin_exec::table::TaskId;
    /// let f = Fence::steady_state(TaskId(0), u64::MAX - 1, 1);
    /// assert_eq!(f.value, 0); // wrapped
    /// assert!(f.reached_by(0) && !f.reached_by(u64::MAX));
    /// ```
    pub const fn steady_state(task: TaskId, base: u64, frame: u64) -> Fence {
        Fence {
            task,
            value: base.wrapping_add(frame).wrapping_add(1),
        }
    }

    /// Whether a counter value reaches this fence (64-bit cyclic compare, as the GPU's
    /// `CU_STREAM_WAIT_VALUE_GEQ`).
    pub const fn reached_by(&self, counter: u64) -> bool {
        (counter.wrapping_sub(self.value) as i64) >= 0
    }
}

/// Covers: REQ-ROB-066
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_state_wraps_at_the_u64_edge() {
        for (base, frame, value) in [
            (u64::MAX - 1, 0, u64::MAX),
            (u64::MAX - 1, 1, 0),
            (u64::MAX, 0, 0),
            (u64::MAX, u64::MAX, u64::MAX),
        ] {
            let f = Fence::steady_state(TaskId(1), base, frame);
            assert_eq!(f.value, value, "base {base} frame {frame}");
            assert!(f.reached_by(value) && !f.reached_by(value.wrapping_sub(1)));
        }
        // Across the wrap: a counter that went past u64::MAX reaches a fence just below it.
        let f = Fence {
            task: TaskId(1),
            value: u64::MAX - 1,
        };
        assert!(f.reached_by(u64::MAX) && f.reached_by(0) && f.reached_by(1));
        assert!(!f.reached_by(u64::MAX - 2));
    }
}
