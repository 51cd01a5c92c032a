//! [`FrameMap`]: per (task, frame) state of a streamed trace in a table allocated once.

/// A table keyed by (task, frame) for the recent frames of a streamed trace, allocated once:
/// one slot per task and frame of a ring of `window + 1` frames, so an entry is replaced by
/// its task's entry `window + 1` frames later (records of a frame come within a few frames
/// of each other; an execution still open `window + 1` frames after it started is
/// forgotten). Tasks at or beyond `tasks` are not kept. A streamed trace keeps its executions
/// in flight and its recent releases here, so neither its memory nor its allocation count
/// depends on the run's length.
///
/// ```
/// use orin_exec_trace::window::FrameMap;
/// let mut m = FrameMap::new(1, 2);
/// for frame in 0..100 {
///     m.insert(0, frame, frame * 10);
/// }
/// assert_eq!((m.get(0, 99), m.get(0, 97)), (Some(&990), Some(&970)));
/// assert_eq!(m.get(0, 96), None); // replaced by frame 99's entry
/// assert_eq!(m.remove(0, 98), Some(980));
/// assert_eq!(m.get(0, 98), None);
/// ```
#[derive(Clone, Debug)]
pub struct FrameMap<V> {
    /// Slot `(frame % frames) * tasks + task`: (frame, value).
    slots: Vec<Option<(u64, V)>>,
    tasks: usize,
    frames: u64,
}

impl<V> FrameMap<V> {
    /// A table for tasks `0..tasks` over a ring of `window + 1` frames.
    pub fn new(tasks: usize, window: u64) -> FrameMap<V> {
        let frames = window.saturating_add(1);
        let len = tasks.saturating_mul(usize::try_from(frames).unwrap_or(usize::MAX));
        FrameMap {
            slots: std::iter::repeat_with(|| None).take(len).collect(),
            tasks,
            frames,
        }
    }

    fn slot(&self, task: u16, frame: u64) -> Option<usize> {
        let task = usize::from(task);
        (task < self.tasks).then(|| (frame % self.frames) as usize * self.tasks + task)
    }

    /// Insert or replace the entry of (`task`, `frame`), replacing whatever the slot held.
    pub fn insert(&mut self, task: u16, frame: u64, value: V) {
        if let Some(i) = self.slot(task, frame) {
            self.slots[i] = Some((frame, value));
        }
    }

    /// The entry of (`task`, `frame`).
    pub fn get(&self, task: u16, frame: u64) -> Option<&V> {
        match &self.slots[self.slot(task, frame)?] {
            Some((f, v)) if *f == frame => Some(v),
            _ => None,
        }
    }

    /// Remove and return the entry of (`task`, `frame`).
    pub fn remove(&mut self, task: u16, frame: u64) -> Option<V> {
        let i = self.slot(task, frame)?;
        match &self.slots[i] {
            Some((f, _)) if *f == frame => self.slots[i].take().map(|(_, v)| v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-EVD-009
    use super::*;
    use sil_common::rng::SplitMix64;
    use std::collections::HashMap;

    /// Against a plain map on random out-of-order insertions and removals: every entry within
    /// the window of the newest frame is there with its latest value; an older one is there
    /// or forgotten, never replaced by another frame's value.
    #[test]
    fn frame_map_keeps_the_window() {
        let mut rng = SplitMix64::new(3);
        let window = 16;
        let mut m = FrameMap::new(3, window);
        let mut exact: HashMap<(u16, u64), u64> = HashMap::new();
        for frame in 0..20_000u64 {
            for task in 0..3u16 {
                // Records up to 3 frames late, some never removed.
                let f = frame.saturating_sub(rng.in_range(0, 3));
                let v = rng.next_u64();
                m.insert(task, f, v);
                exact.insert((task, f), v);
                if rng.in_range(0, 9) != 0 {
                    m.remove(task, f);
                    exact.remove(&(task, f));
                }
            }
            let newest = frame;
            for (&(task, f), v) in &exact {
                // Within the window: there; older: there or forgotten, never another value.
                let got = m.get(task, f);
                if f + window >= newest {
                    assert_eq!(got, Some(v), "({task}, {f}) at {newest}");
                } else {
                    assert!(got.is_none_or(|g| g == v), "({task}, {f}) at {newest}");
                }
            }
            exact.retain(|&(_, f), _| f + 2 * window >= newest);
        }
        // Unknown tasks are not kept.
        m.insert(3, 5, 1);
        assert_eq!(m.get(3, 5), None);
    }
}
