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

    /// The value the most recently enqueued signal produces.
    pub const fn last_value(&self) -> u64 {
        self.base + self.enqueued
    }

    /// Enqueue frame `frame`'s signal and return the fence it will reach.
    pub fn enqueue_signal(&mut self, frame: u64) -> Fence {
        self.enqueued += 1;
        let value = self.base + self.enqueued;
        self.history[frame as usize % FENCE_HISTORY] = Some(Entry { frame, value });
        Fence {
            task: self.task,
            value,
        }
    }

    /// The fence of frame `frame`'s signal, if the task was planned in that frame and the frame
    /// is recent enough to be remembered.
    pub fn fence_for(&self, frame: u64) -> Option<Fence> {
        match self.history[frame as usize % FENCE_HISTORY] {
            Some(e) if e.frame == frame => Some(Fence {
                task: self.task,
                value: e.value,
            }),
            _ => None,
        }
    }
}
