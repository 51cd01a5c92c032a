//! The bookkeeping side of deterministic semaphores: who signals, who waits, how many signals
//! are enqueued, and which value each recent frame's signal produces.

use crate::limits::FENCE_HISTORY;
use crate::sync::Fence;
use crate::table::{EngineId, TaskId};

/// The value a frame's signal produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    frame: u64,
    value: u64,
}

/// The history slot of frame `frame` (reduced in u64 first: no truncation on 32-bit targets).
const fn slot(frame: u64) -> usize {
    (frame % FENCE_HISTORY as u64) as usize
}

/// Bookkeeping of one task's completion semaphore.
///
/// ```
/// use orin_exec::sync::SemaphoreLedger;
/// use orin_exec::table::{EngineId, TaskId};
/// let mut s = SemaphoreLedger::new(TaskId(0), EngineId(1));
/// s.set_base(5); // the counter after warm-up
/// assert_eq!(s.enqueue_signal(0).value, 6);
/// assert_eq!(s.enqueue_signal(2).value, 7); // frame 1 was not planned
/// assert_eq!(s.fence_for(2).unwrap().value, 7);
/// assert_eq!(s.fence_for(1), None);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SemaphoreLedger {
    task: TaskId,
    signaler: EngineId,
    waiters: u32,
    base: u64,
    enqueued: u64,
    history: [Option<Entry>; FENCE_HISTORY],
}

impl SemaphoreLedger {
    /// A ledger for `task`'s semaphore, signalled by `signaler`.
    pub const fn new(task: TaskId, signaler: EngineId) -> Self {
        SemaphoreLedger {
            task,
            signaler,
            waiters: 0,
            base: 0,
            enqueued: 0,
            history: [None; FENCE_HISTORY],
        }
    }

    /// The engine that signals it (exactly one).
    pub const fn signaler(&self) -> EngineId {
        self.signaler
    }

    /// Record that `engine` waits on it.
    pub fn add_waiter(&mut self, engine: EngineId) {
        self.waiters |= 1 << (engine.0 as u32 & 31);
    }

    /// Whether `engine` waits on it.
    pub const fn has_waiter(&self, engine: EngineId) -> bool {
        self.waiters & (1 << (engine.0 as u32 & 31)) != 0
    }

    /// Set the counter value at seal (after warm-up) and forget the history.
    pub fn set_base(&mut self, base: u64) {
        self.base = base;
        self.enqueued = 0;
        self.history = [None; FENCE_HISTORY];
    }

    /// Signals enqueued since seal.
    pub const fn enqueued(&self) -> u64 {
        self.enqueued
    }

    /// The value the most recently enqueued signal produces (modulo 2^64, as every counter
    /// value: see [`Fence`]).
    pub const fn last_value(&self) -> u64 {
        self.base.wrapping_add(self.enqueued)
    }

    /// Enqueue frame `frame`'s signal and return the fence it will reach. Values wrap past
    /// `u64::MAX` to 0 (the counter is cyclic; [`Fence::reached_by`] compares cyclically).
    pub fn enqueue_signal(&mut self, frame: u64) -> Fence {
        self.enqueued = self.enqueued.wrapping_add(1);
        let value = self.last_value();
        self.history[slot(frame)] = Some(Entry { frame, value });
        Fence {
            task: self.task,
            value,
        }
    }

    /// The fence of frame `frame`'s signal, if the task was planned in that frame and the frame
    /// is recent enough to be remembered.
    pub fn fence_for(&self, frame: u64) -> Option<Fence> {
        match self.history[slot(frame)] {
            Some(e) if e.frame == frame => Some(Fence {
                task: self.task,
                value: e.value,
            }),
            _ => None,
        }
    }
}

/// Covers: REQ-ROB-066
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_wrap_at_the_u64_edge() {
        let mut s = SemaphoreLedger::new(TaskId(3), EngineId(0));
        s.set_base(u64::MAX - 1);
        assert_eq!(s.enqueue_signal(0).value, u64::MAX);
        assert_eq!(s.enqueue_signal(1).value, 0);
        assert_eq!(s.enqueue_signal(u64::MAX).value, 1);
        assert_eq!(s.last_value(), 1);
        assert_eq!(s.fence_for(1).map(|f| f.value), Some(0));
        assert_eq!(s.fence_for(u64::MAX).map(|f| f.value), Some(1));
        // Each fence is reached by its own signal's value and not by the one before.
        let f = s.fence_for(1).unwrap();
        assert!(f.reached_by(0) && !f.reached_by(u64::MAX - 1));
    }
}
