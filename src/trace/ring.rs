//! A static, lock-free, multi-writer / single-reader ring of trace records.
//!
//! Each slot is a small seqlock made of atomics alone. Writers claim an index with one
//! `fetch_add` and never wait. When writers lap the reader, the oldest records are overwritten:
//! writers count that in [`TraceRing::overwritten`], and the reader reports the gap as
//! [`Pop::Lost`] so the loss shows up in the trace itself.
//!
//! ```
//! use orin_exec::trace::{Event, Record, TraceRing};
//! use orin_exec::trace::ring::Pop;
//! static RING: TraceRing<4> = TraceRing::new();
//! for i in 0..6 {
//!     RING.push(Record { time_ns: i, frame: i, task: 0, event: Event::TaskEnd, value: 0 });
//! }
//! assert_eq!(RING.overwritten(), 2);
//! assert_eq!(RING.pop(), Pop::Lost(2));
//! assert!(matches!(RING.pop(), Pop::Record(r) if r.time_ns == 2));
//! ```

use core::sync::atomic::{Ordering, fence};

// 64-bit atomics: native where the target has them; on targets without (e.g. Cortex-M4),
// portable-atomic falls back to short critical sections.
use portable_atomic::AtomicU64;

use super::Record;

struct Slot {
    seq: AtomicU64,
    words: [AtomicU64; 4],
}

impl Slot {
    const fn new() -> Self {
        Slot {
            seq: AtomicU64::new(0),
            words: [const { AtomicU64::new(0) }; 4],
        }
    }
}

/// What [`TraceRing::pop`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pop {
    /// The next record.
    Record(Record),
    /// This many records were overwritten before they could be read.
    Lost(u64),
    /// Nothing new (or the next record is still being written).
    Empty,
}

/// A ring of `N` records.
pub struct TraceRing<const N: usize> {
    head: AtomicU64,
    read: AtomicU64,
    overwritten: AtomicU64,
    slots: [Slot; N],
}

impl<const N: usize> Default for TraceRing<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> TraceRing<N> {
    const CAPACITY_OK: () = assert!(N > 0, "a trace ring needs at least one slot");

    /// An empty ring (usable in a `static`).
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CAPACITY_OK;
        TraceRing {
            head: AtomicU64::new(0),
            read: AtomicU64::new(0),
            overwritten: AtomicU64::new(0),
            slots: [const { Slot::new() }; N],
        }
    }

    /// Capacity in records.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Append a record. Never blocks, never fails; may overwrite the oldest unread record.
    pub fn push(&self, record: Record) {
        let index = self.head.fetch_add(1, Ordering::Relaxed);
        if index >= self.read.load(Ordering::Relaxed) + N as u64 {
            self.overwritten.fetch_add(1, Ordering::Relaxed);
        }
        let slot = &self.slots[(index % N as u64) as usize];
        slot.seq.store(2 * index + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        for (word, value) in slot.words.iter().zip(record.pack()) {
            word.store(value, Ordering::Relaxed);
        }
        slot.seq.store(2 * index + 2, Ordering::Release);
    }

    /// Take the next record (single reader).
    pub fn pop(&self) -> Pop {
        let index = self.read.load(Ordering::Relaxed);
        let slot = &self.slots[(index % N as u64) as usize];
        let seq = slot.seq.load(Ordering::Acquire);
        let expected = 2 * index + 2;
        if seq < expected {
            return Pop::Empty;
        }
        if seq == expected {
            let words = [0, 1, 2, 3].map(|i| slot.words[i].load(Ordering::Relaxed));
            fence(Ordering::Acquire);
            if slot.seq.load(Ordering::Relaxed) == seq {
                self.read.store(index + 1, Ordering::Relaxed);
                return match Record::unpack(words) {
                    Some(r) => Pop::Record(r),
                    None => Pop::Lost(1),
                };
            }
        }
        // Overwritten by a later lap: skip to the oldest record still in the ring.
        let oldest = self.head.load(Ordering::Relaxed).saturating_sub(N as u64);
        let next = oldest.max(index + 1);
        self.read.store(next, Ordering::Relaxed);
        Pop::Lost(next - index)
    }

    /// Records overwritten before the reader got them, counted by the writers.
    pub fn overwritten(&self) -> u64 {
        self.overwritten.load(Ordering::Relaxed)
    }

    /// Records pushed so far.
    pub fn pushed(&self) -> u64 {
        self.head.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::trace::Event;
    use std::sync::Arc;
    use std::vec::Vec;

    fn rec(i: u64) -> Record {
        Record {
            time_ns: i,
            frame: i,
            task: (i % 7) as u16,
            event: Event::TaskEnd,
            value: i * 3,
        }
    }

    #[test]
    fn in_order_without_loss() {
        let ring: TraceRing<8> = TraceRing::new();
        for i in 0..8 {
            ring.push(rec(i));
        }
        for i in 0..8 {
            assert_eq!(ring.pop(), Pop::Record(rec(i)));
        }
        assert_eq!(ring.pop(), Pop::Empty);
        assert_eq!(ring.overwritten(), 0);
    }

    #[test]
    fn overflow_is_counted_and_reported() {
        let ring: TraceRing<8> = TraceRing::new();
        for i in 0..20 {
            ring.push(rec(i));
        }
        assert_eq!(ring.overwritten(), 12);
        assert_eq!(ring.pop(), Pop::Lost(12));
        for i in 12..20 {
            assert_eq!(ring.pop(), Pop::Record(rec(i)));
        }
    }

    #[test]
    fn concurrent_writers_lose_nothing_they_do_not_report() {
        let ring: Arc<TraceRing<1024>> = Arc::new(TraceRing::new());
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let ring = ring.clone();
                std::thread::spawn(move || {
                    for i in 0..20_000u64 {
                        ring.push(Record {
                            time_ns: i,
                            frame: w,
                            task: 1,
                            event: Event::TaskStart,
                            value: i,
                        });
                    }
                })
            })
            .collect();
        let (mut seen, mut lost) = (0u64, 0u64);
        let mut last = [None::<u64>; 4];
        let done = |ws: &Vec<std::thread::JoinHandle<()>>| ws.iter().all(|w| w.is_finished());
        loop {
            match ring.pop() {
                Pop::Record(r) => {
                    // Each writer's records come out in its own order.
                    let w = r.frame as usize;
                    assert!(last[w].is_none_or(|p| r.value > p), "out of order");
                    assert_eq!(r.time_ns, r.value);
                    last[w] = Some(r.value);
                    seen += 1;
                }
                Pop::Lost(n) => lost += n,
                Pop::Empty if done(&writers) && ring.pushed() == seen + lost => break,
                Pop::Empty => std::thread::yield_now(),
            }
        }
        for w in writers {
            w.join().unwrap();
        }
        assert_eq!(seen + lost, 80_000);
    }
}
