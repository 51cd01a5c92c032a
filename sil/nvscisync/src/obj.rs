//! A sync object: its primitive (a 64-bit semaphore or a 32-bit sync point with a
//! threshold), the signal timestamp ring and the waiting.
//!
//! Everything an object needs in the steady state (counter page, ring, notifier) is
//! allocated by `NvSciSyncObjAlloc`; signalling, recording and waiting never allocate.
//!
//! Waits sleep on the object's notifier, which every change of the counter (CPU signal,
//! engine signal, `NvSciSyncSilCounterWritten` after a direct write) wakes; there is no
//! periodic re-check. A counter a real device writes without telling anybody
//! (`NvSciSyncSilObjSetDeviceWritten`) is watched by spinning with `sched_yield` instead.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sil_common::clock;
use sil_common::handle::{Map, lock, new_map};
use sil_common::wait::{Notifier, WaitOutcome, yield_until};

use crate::attr::{Prim, ReconInfo};

/// Size of the counter page.
pub(crate) const PAGE: usize = 4096;
/// Number of signal timestamps kept per object (indexed by value modulo this).
pub(crate) const RING: usize = 512;

/// The counter, alone in its own 4 KiB page (so the rig can host-register it and map it
/// into a GPU without sharing the page with anything else).
#[repr(C, align(4096))]
pub(crate) struct CounterPage {
    counter: AtomicU64,
    _pad: [u8; PAGE - 8],
}

const _: () = assert!(std::mem::size_of::<CounterPage>() == PAGE);
const _: () = assert!(std::mem::align_of::<CounterPage>() == PAGE);

/// One recorded signal.
#[derive(Clone, Copy, Default)]
struct Stamp {
    value: u64,
    ts_ns: u64,
    valid: bool,
}

/// The last [`RING`] signal timestamps, indexed by value.
struct Ring {
    entries: [Stamp; RING],
    /// The last value recorded.
    last: u64,
    /// Mask of the primitive's values (`u32::MAX` for a sync point).
    mask: u64,
}

impl Ring {
    /// Records `ts_ns` for `value`. Values skipped since the last record (a direct counter
    /// write that went up by more than one) get the same timestamp; a value already
    /// recorded keeps its first timestamp.
    fn record(&mut self, value: u64, ts_ns: u64) {
        let gap = value.wrapping_sub(self.last) & self.mask;
        if gap == 0 {
            return;
        }
        let n = if gap <= RING as u64 { gap } else { 1 };
        for k in 0..n {
            let v = value.wrapping_sub(k) & self.mask;
            let e = &mut self.entries[(v % RING as u64) as usize];
            if k == 0 || !(e.valid && e.value == v) {
                *e = Stamp {
                    value: v,
                    ts_ns,
                    valid: true,
                };
            }
        }
        self.last = value;
    }

    fn get(&self, value: u64) -> Option<u64> {
        let e = self.entries[(value % RING as u64) as usize];
        (e.valid && e.value == value).then_some(e.ts_ns)
    }
}

/// `cur` has reached `value` in the cyclic 64-bit sense of CUDA's stream wait
/// (`(int64_t)(cur - value) >= 0`).
pub(crate) fn geq(cur: u64, value: u64) -> bool {
    (cur.wrapping_sub(value) as i64) >= 0
}

/// `cur` has reached `value` in the cyclic 32-bit sense of a sync point
/// (`(int32_t)(cur - value) >= 0` on the low 32 bits).
pub(crate) fn geq32(cur: u64, value: u64) -> bool {
    ((cur as u32).wrapping_sub(value as u32) as i32) >= 0
}

/// How a wait compares the counter with the target value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Cmp {
    /// Cyclic 64-bit greater-or-equal.
    Geq,
    /// Cyclic 32-bit greater-or-equal (sync points).
    Geq32,
    /// Equal.
    Eq,
}

impl Cmp {
    pub(crate) fn holds(self, cur: u64, value: u64) -> bool {
        match self {
            Cmp::Geq => geq(cur, value),
            Cmp::Geq32 => geq32(cur, value),
            Cmp::Eq => cur == value,
        }
    }
}

/// The next sync-point id (ids are never reused in the life of the process).
static NEXT_SYNCPOINT_ID: AtomicU32 = AtomicU32::new(1);

/// A fresh sync-point id: non-zero, below `u32::MAX`, never reused. `None` once the
/// process has used them all.
pub(crate) fn new_syncpoint_id() -> Option<u64> {
    NEXT_SYNCPOINT_ID
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < u32::MAX).then_some(n + 1)
        })
        .ok()
        .map(u64::from)
}

/// How a wait passes the time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Strategy {
    /// Sleep on the notifier until a change wakes it (or the timeout); on an object whose
    /// counter a device writes, [`Strategy::Yield`] instead.
    Sleep,
    /// Spin, yielding the processor between two reads (watches memory nobody announces).
    Yield,
    /// Spin without yielding.
    Spin,
}

/// How a wait ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Waited {
    /// The condition holds.
    Reached,
    /// The timeout passed first.
    TimedOut,
    /// The caller's abort flag was set first (`NvSciSyncSilWakeWaiters` wakes a sleeper to
    /// see it).
    Aborted,
}

/// Reads of the counter between two looks at the clock in a [`Strategy::Spin`] wait: a
/// timeout is noticed at most this many reads late (a few microseconds).
const SPIN_READS_PER_CLOCK: u32 = 32;

/// An abort flag of an engine wait: non-zero asks the wait to give up (read atomically).
pub(crate) type Abort<'a> = Option<&'a AtomicU32>;

/// Whether `abort` is set.
pub(crate) fn aborted(abort: Abort<'_>) -> bool {
    abort.is_some_and(|a| a.load(Ordering::Acquire) != 0)
}

/// Waits until `cmp` holds for the counter at `counter` (re-read on every check), `stop()`
/// holds ([`Waited::Aborted`]), or `timeout_ns` of real time passed (`u64::MAX`: forever).
/// The condition is checked first, so a reached value wins over a stop. `Sleep` relies on
/// `notifier` being woken after every change of the counter and of what `stop` reads.
/// Never allocates.
fn wait_counter(
    counter: &AtomicU64,
    value: u64,
    cmp: Cmp,
    timeout_ns: u64,
    notifier: &Notifier,
    strategy: Strategy,
    stop: impl Fn() -> bool,
) -> Waited {
    let reached = || cmp.holds(counter.load(Ordering::Acquire), value);
    let done = || reached() || stop();
    let outcome = match strategy {
        Strategy::Sleep => notifier.wait_until(done, timeout_ns),
        Strategy::Yield => yield_until(done, timeout_ns),
        Strategy::Spin => {
            // A read per pause, as a hand-written busy-poll does: one pause instruction can
            // take over 100 cycles, so a batch of them between reads would add microseconds
            // to the latency the spin is for. The clock (a vDSO call) is read on the first
            // pass, so a zero timeout is one look, and then every `SPIN_READS_PER_CLOCK`.
            let deadline = clock::real_ns().saturating_add(timeout_ns);
            let mut reads = 0u32;
            loop {
                if done() {
                    break WaitOutcome::Ready;
                }
                if reads.is_multiple_of(SPIN_READS_PER_CLOCK) && clock::real_ns() >= deadline {
                    break WaitOutcome::TimedOut;
                }
                reads = reads.wrapping_add(1);
                std::hint::spin_loop();
            }
        }
    };
    match outcome {
        WaitOutcome::TimedOut => Waited::TimedOut,
        WaitOutcome::Ready if reached() => Waited::Reached,
        WaitOutcome::Ready => Waited::Aborted,
    }
}

/// The notifier of every live object, by address (for [`wake_all`]). An object's notifier
/// is shared with this table rather than the object itself, so the table never holds the
/// last reference of an object (whose drop takes this lock).
static NOTIFIERS: Mutex<Map<usize, Arc<Notifier>>> = Mutex::new(new_map());

/// Wakes every waiter of every live object (those whose last handle is gone but which a
/// waiter still holds included), so that engine waits see their abort flags.
pub(crate) fn wake_all() {
    for n in lock(&NOTIFIERS).values() {
        n.notify();
    }
}

/// A sync object (shared by its handles and by the fences that reference it).
pub(crate) struct ObjCore {
    /// Registry id (also the object id stored in fences).
    pub id: u64,
    /// Handle of the module of the list it was allocated from.
    pub module: u64,
    /// What the reconciled list allows.
    pub info: ReconInfo,
    /// The primitive id of its fences: the sync-point id, 0 for the semaphore.
    pub prim_id: u64,
    /// Handle of the object's own reconciled list (`NvSciSyncObjGetAttrList`).
    pub list_handle: u64,
    page: Box<CounterPage>,
    /// The threshold: the highest value promised so far (`NvSciSyncObjGenerateFence`,
    /// `NvSciSyncSilObjEngineFence`, or a signal that went past it).
    threshold: AtomicU64,
    ring: Mutex<Ring>,
    /// Wakes waiters after a signal (shared with [`NOTIFIERS`]).
    notifier: Arc<Notifier>,
    /// A device writes the counter without telling the SIL
    /// (`NvSciSyncSilObjSetDeviceWritten`): sleeping waits yield-spin instead.
    device_written: AtomicBool,
}

impl Drop for ObjCore {
    fn drop(&mut self) {
        let key = Arc::as_ptr(&self.notifier).addr();
        lock(&NOTIFIERS).remove(&key);
    }
}

impl ObjCore {
    /// A new object at value 0 (value 0 is recorded with the current SIL time).
    /// `prim_id` is the sync-point id (0 for the semaphore).
    pub(crate) fn new(
        id: u64,
        module: u64,
        info: ReconInfo,
        prim_id: u64,
        list_handle: u64,
    ) -> Self {
        let page = Box::new(CounterPage {
            counter: AtomicU64::new(0),
            _pad: [0; PAGE - 8],
        });
        let mut entries = [Stamp::default(); RING];
        entries[0] = Stamp {
            value: 0,
            ts_ns: clock::now_ns(),
            valid: true,
        };
        let notifier = Arc::new(Notifier::new());
        lock(&NOTIFIERS).insert(Arc::as_ptr(&notifier).addr(), notifier.clone());
        ObjCore {
            id,
            module,
            info,
            prim_id,
            list_handle,
            page,
            threshold: AtomicU64::new(0),
            ring: Mutex::new(Ring {
                entries,
                last: 0,
                mask: info.prim.max_value(),
            }),
            notifier,
            device_written: AtomicBool::new(false),
        }
    }

    /// From now on a device writes the counter without telling the SIL: sleeping waits
    /// yield-spin (`NvSciSyncSilObjSetDeviceWritten`).
    pub(crate) fn set_device_written(&self) {
        self.device_written.store(true, Ordering::Release);
        // Waiters already asleep switch to watching the counter.
        self.notifier.notify();
    }

    /// The primitive.
    pub(crate) fn prim(&self) -> Prim {
        self.info.prim
    }

    /// The largest value of the primitive (also the mask of its values).
    pub(crate) fn mask(&self) -> u64 {
        self.info.prim.max_value()
    }

    /// The cyclic compare of the primitive.
    pub(crate) fn cmp(&self) -> Cmp {
        match self.info.prim {
            Prim::Semaphore64 => Cmp::Geq,
            Prim::Syncpoint => Cmp::Geq32,
        }
    }

    /// The counter.
    pub(crate) fn counter(&self) -> &AtomicU64 {
        &self.page.counter
    }

    /// The counter's address (stable for the object's life).
    pub(crate) fn counter_ptr(&self) -> *mut u64 {
        self.page.counter.as_ptr()
    }

    /// The counter's address as a registry key.
    pub(crate) fn counter_addr(&self) -> usize {
        self.counter_ptr().addr()
    }

    fn ring(&self) -> MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current threshold.
    pub(crate) fn threshold(&self) -> u64 {
        self.threshold.load(Ordering::Acquire)
    }

    /// The signaler promises its next signal (`NvSciSyncObjGenerateFence`,
    /// `NvSciSyncSilObjEngineFence`): the threshold moves to one past the highest value
    /// promised so far or the current counter, whichever is ahead (cyclic, in the
    /// primitive's width), and that value is returned.
    pub(crate) fn reserve(&self) -> u64 {
        let (cmp, mask) = (self.cmp(), self.mask());
        let cur = self.counter().load(Ordering::Acquire);
        let next = |t: u64| if cmp.holds(t, cur) { t } else { cur }.wrapping_add(1) & mask;
        let prev = match self
            .threshold
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| Some(next(t)))
        {
            Ok(p) | Err(p) => p,
        };
        next(prev)
    }

    /// Whether a fence for `value` may be built: a sync point refuses values past its
    /// threshold (no wait-before-signal) and values outside 32 bits; a semaphore takes
    /// every value.
    pub(crate) fn promised(&self, value: u64) -> bool {
        match self.info.prim {
            Prim::Semaphore64 => true,
            Prim::Syncpoint => value <= self.mask() && geq32(self.threshold(), value),
        }
    }

    /// Adds exactly 1 (wrapping in the primitive's width), records `ts_ns` for the new
    /// value, wakes waiters. A signal that goes past the threshold takes the threshold
    /// with it. Returns the new value.
    pub(crate) fn signal(&self, ts_ns: u64) -> u64 {
        let (cmp, mask) = (self.cmp(), self.mask());
        let new = {
            let mut ring = self.ring();
            let prev = match self
                .counter()
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |c| {
                    Some(c.wrapping_add(1) & mask)
                }) {
                Ok(p) | Err(p) => p,
            };
            let new = prev.wrapping_add(1) & mask;
            ring.record(new, ts_ns);
            let _ = self
                .threshold
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                    (!cmp.holds(t, new)).then_some(new)
                });
            new
        };
        self.notifier.notify();
        new
    }

    /// After a direct write of the counter: records `ts_ns` for the value now in it, wakes
    /// waiters.
    pub(crate) fn written(&self, ts_ns: u64) {
        {
            let mut ring = self.ring();
            let v = self.counter().load(Ordering::Acquire);
            ring.record(v, ts_ns);
        }
        self.notifier.notify();
    }

    /// The recorded timestamp of `value`, if it is among the last [`RING`] recorded.
    pub(crate) fn timestamp_of(&self, value: u64) -> Option<u64> {
        if value > self.mask() {
            return None;
        }
        self.ring().get(value)
    }

    /// Whether the counter has reached `value` (cyclic, in the primitive's width).
    pub(crate) fn reached(&self, value: u64) -> bool {
        self.cmp()
            .holds(self.counter().load(Ordering::Acquire), value)
    }

    /// Waits until the counter reaches `value` (the primitive's cyclic compare); `Some(timestamp of the value, or
    /// the SIL clock when none was recorded)` on success.
    pub(crate) fn wait(&self, value: u64, timeout_ns: u64, strategy: Strategy) -> Option<u64> {
        self.wait_cmp(value, self.cmp(), timeout_ns, strategy, None)
            .ok()
    }

    /// [`wait`](Self::wait) with an explicit compare and an abort flag: `Ok(timestamp)`,
    /// else how it ended.
    pub(crate) fn wait_cmp(
        &self,
        value: u64,
        cmp: Cmp,
        timeout_ns: u64,
        strategy: Strategy,
        abort: Abort<'_>,
    ) -> Result<u64, Waited> {
        let deadline = clock::real_ns().saturating_add(timeout_ns);
        let waited = loop {
            let device = self.device_written.load(Ordering::Acquire);
            let strategy = match strategy {
                Strategy::Sleep if device => Strategy::Yield,
                s => s,
            };
            // A sleeper also stops when the object becomes device-written (its counter
            // will change unannounced), and goes on as a yielding spin.
            let flipped = || !device && self.device_written.load(Ordering::Acquire);
            let left = if deadline == u64::MAX {
                u64::MAX
            } else {
                deadline.saturating_sub(clock::real_ns())
            };
            let w = wait_counter(
                self.counter(),
                value,
                cmp,
                left,
                &self.notifier,
                strategy,
                || aborted(abort) || flipped(),
            );
            if w == Waited::Aborted && !aborted(abort) {
                continue;
            }
            break w;
        };
        match waited {
            Waited::Reached => Ok(self.timestamp_of(value).unwrap_or_else(clock::now_ns)),
            other => Err(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-SYNC-004
    #[test]
    fn cyclic_compare() {
        assert!(geq(5, 5));
        assert!(geq(6, 5));
        assert!(!geq(4, 5));
        assert!(geq(1, u64::MAX)); // wrapped past
        assert!(!geq(u64::MAX, 1));
        assert!(geq(0, u64::MAX - 10));
    }

    /// Covers: REQ-SYNC-007
    #[test]
    fn ring_fills_gaps_and_keeps_first_record() {
        let mut r = Ring {
            entries: [Stamp::default(); RING],
            last: 0,
            mask: u64::MAX,
        };
        r.record(1, 10);
        r.record(4, 40);
        assert_eq!(r.get(1), Some(10));
        assert_eq!(r.get(2), Some(40));
        assert_eq!(r.get(4), Some(40));
        r.record(4, 99);
        assert_eq!(r.get(4), Some(40));
        r.record(4 + RING as u64, 50);
        assert_eq!(r.get(4), None);
        assert_eq!(r.get(4 + RING as u64), Some(50));
    }

    /// Covers: REQ-SYNC-004
    #[test]
    fn counter_page_is_page_aligned() {
        let c = ObjCore::new(1, 1, ReconInfo::default(), 0, 0);
        assert_eq!(c.counter_addr() % PAGE, 0);
        assert_eq!(c.signal(7), 1);
        assert_eq!(c.timestamp_of(1), Some(7));
    }

    /// Covers: REQ-SYNC-003
    #[test]
    fn cyclic_compare_32() {
        assert!(geq32(5, 5));
        assert!(!geq32(4, 5));
        assert!(geq32(1, u64::from(u32::MAX))); // wrapped past
        assert!(!geq32(u64::from(u32::MAX), 1));
    }

    fn syncpoint() -> ObjCore {
        let info = ReconInfo {
            prim: Prim::Syncpoint,
            ..ReconInfo::default()
        };
        ObjCore::new(1, 1, info, 7, 0)
    }

    /// Covers: REQ-SYNC-003
    #[test]
    fn sync_point_values_wrap_at_32_bits() {
        let c = syncpoint();
        let max = u64::from(u32::MAX);
        c.counter().store(max - 1, Ordering::Release);
        c.threshold.store(max - 1, Ordering::Release);
        assert_eq!(c.reserve(), max);
        assert_eq!(c.reserve(), 0, "the threshold wraps too");
        assert!(c.promised(0) && c.promised(max) && !c.promised(1));
        assert!(!c.promised(max + 1), "not a 32-bit value");
        assert_eq!(c.signal(10), max);
        assert!(c.reached(max) && !c.reached(0));
        assert_eq!(c.signal(20), 0);
        assert!(c.reached(max), "0 is past u32::MAX, cyclically");
        assert_eq!(c.timestamp_of(0), Some(20));
        assert_eq!(c.timestamp_of(max), Some(10));
        assert_eq!(c.timestamp_of(1 << 32), None);
        assert_eq!(c.signal(30), 1);
        assert!(c.promised(1), "a signal past the threshold takes it along");
        assert_eq!(c.wait(1, 0, Strategy::Sleep), Some(30));
    }

    /// Covers: REQ-SYNC-003
    #[test]
    fn sync_point_ids_are_fresh() {
        let a = new_syncpoint_id().unwrap();
        let b = new_syncpoint_id().unwrap();
        assert!(a != 0 && b != 0 && a != b);
        assert!(b < u64::from(u32::MAX));
    }
}
