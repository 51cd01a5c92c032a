//! Sync objects and fences. A sync object is a counter that the stream workers advance by
//! one per signalled fence; a fence is (sync object, value) and is reached when the counter
//! gets there. Native objects (`CupvaSyncObjCreate`) keep their counter here; imported ones
//! (`CupvaSyncObjCreateFromNvsci`) are the NvSciSync object itself: a RequestFences command
//! reserves the engine's next signal with `NvSciSyncSilObjEngineFence` and the worker reaches
//! it with `NvSciSyncSilObjSignalEngine`, so the values are those of the NvSciSync object
//! and deterministic (the n-th fence requested is the n-th signal).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use nvsci_sys::NvSciSyncObj;
use sil_common::wait::{Notifier, WaitOutcome};

use crate::code::{self, Code};
use crate::limits::{MAX_FENCES_PER_SYNC_OBJ, TIMESTAMP_RING};
use crate::nvsci;

/// A native sync object's counter.
pub(crate) struct Native {
    /// Values signalled so far.
    reached: AtomicU64,
    /// Timestamp of value `v` at `v % TIMESTAMP_RING`.
    stamps: [AtomicU64; TIMESTAMP_RING],
    /// Wakes CPU and worker waits.
    notifier: Notifier,
}

/// What a sync object is.
pub(crate) enum Backing {
    /// Created by `CupvaSyncObjCreate`.
    Native(Box<Native>),
    /// Imported: our duplicate of the NvSciSync object and its primitive id.
    Sci {
        /// Our duplicate (freed on drop).
        obj: NvSciSyncObj,
        /// The primitive id of its fences.
        id: AtomicU64,
    },
}

/// A sync object (`cupvaSyncObj_t` is its token).
pub(crate) struct SyncObj {
    /// The handle value.
    pub token: u64,
    /// `cupvaSyncClientType_t` (1 signaler, 2 waiter, 3 both).
    pub client: u32,
    /// Timestamps were asked for (native objects; imported ones follow their attributes).
    pub timestamps: bool,
    /// The counter.
    pub backing: Backing,
    /// Next value to hand out (native) and fences requested so far, under one lock so that
    /// values and the 512-fence count move together.
    requested: Mutex<(u64, u64)>,
    /// Fences signalled so far.
    signalled: AtomicU64,
}

// SAFETY: `obj` is an NvSciSync handle (thread-safe by NvSciSync's contract); everything
// else is atomics and locks.
unsafe impl Send for SyncObj {}
// SAFETY: as above.
unsafe impl Sync for SyncObj {}

impl Drop for SyncObj {
    fn drop(&mut self) {
        if let Backing::Sci { obj, .. } = self.backing {
            // SAFETY: our duplicate from the import, freed once.
            unsafe { nvsci::sync_obj_free(obj) };
        }
    }
}

/// Where a fence stands, as far as a CPU wait is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waited {
    /// Reached, at this timestamp.
    Reached(u64),
    /// Not reached before the timeout.
    TimedOut,
    /// The wait was aborted (the stream is being destroyed).
    Aborted,
}

impl SyncObj {
    /// A native object.
    pub(crate) fn native(token: u64, client: u32, timestamps: bool) -> Self {
        SyncObj {
            token,
            client,
            timestamps,
            backing: Backing::Native(Box::new(Native {
                reached: AtomicU64::new(0),
                stamps: [const { AtomicU64::new(0) }; TIMESTAMP_RING],
                notifier: Notifier::new(),
            })),
            requested: Mutex::new((0, 0)),
            signalled: AtomicU64::new(0),
        }
    }

    /// An imported object (`dup` is our duplicate of the NvSciSync object).
    pub(crate) fn imported(token: u64, client: u32, dup: NvSciSyncObj) -> Self {
        SyncObj {
            token,
            client,
            timestamps: true,
            backing: Backing::Sci {
                obj: dup,
                id: AtomicU64::new(0),
            },
            requested: Mutex::new((0, 0)),
            signalled: AtomicU64::new(0),
        }
    }

    /// Whether the PVA may signal it.
    pub(crate) fn may_signal(&self) -> bool {
        self.client & 1 != 0
    }

    /// Whether the PVA may wait on it.
    pub(crate) fn may_wait(&self) -> bool {
        self.client & 2 != 0
    }

    /// Reserves the next signal for a RequestFences command: (id, value). Refused with
    /// `CUPVA_INVALID_STATE` when [`MAX_FENCES_PER_SYNC_OBJ`] fences are outstanding.
    pub(crate) fn request(&self) -> Result<(u64, u64), Code> {
        let mut r = sil_common::handle::lock(&self.requested);
        if r.1 - self.signalled.load(Ordering::Acquire) >= MAX_FENCES_PER_SYNC_OBJ {
            return Err(code::INVALID_STATE);
        }
        let (id, value) = match &self.backing {
            Backing::Native(_) => (0, r.0 + 1),
            Backing::Sci { obj, id } => {
                // SAFETY: our duplicate, alive as long as `self`.
                let (pid, v) = unsafe { nvsci::engine_fence(*obj) }?;
                id.store(pid, Ordering::Relaxed);
                (pid, v)
            }
        };
        r.0 = value;
        r.1 += 1;
        Ok((id, value))
    }

    /// Fences requested and not yet signalled.
    pub(crate) fn outstanding(&self) -> u64 {
        let r = sil_common::handle::lock(&self.requested);
        r.1 - self.signalled.load(Ordering::Acquire)
    }

    /// The engine signals the next reserved value at `ts`.
    pub(crate) fn signal(&self, ts: u64) {
        match &self.backing {
            Backing::Native(n) => {
                let v = n.reached.load(Ordering::Acquire) + 1;
                n.stamps[(v % TIMESTAMP_RING as u64) as usize].store(ts, Ordering::Release);
                n.reached.store(v, Ordering::Release);
                n.notifier.notify();
            }
            // SAFETY: our duplicate, alive as long as `self`.
            Backing::Sci { obj, .. } => unsafe { nvsci::signal(*obj, ts) },
        }
        self.signalled.fetch_add(1, Ordering::AcqRel);
    }

    /// Waits until `value` is reached (`timeout_us` -1: no limit), or `abort` is set.
    pub(crate) fn wait(&self, id: u64, value: u64, timeout_us: i64, abort: &AtomicU32) -> Waited {
        match &self.backing {
            Backing::Native(n) => {
                let timeout_ns = if timeout_us < 0 {
                    u64::MAX
                } else {
                    (timeout_us as u64).saturating_mul(1000)
                };
                // `wake` notifies after the abort flag is set, so the flag is never missed.
                let out = n.notifier.wait_until(
                    || {
                        n.reached.load(Ordering::Acquire) >= value
                            || abort.load(Ordering::Acquire) != 0
                    },
                    timeout_ns,
                );
                if n.reached.load(Ordering::Acquire) >= value {
                    Waited::Reached(self.stamp(value).unwrap_or(0))
                } else if out == WaitOutcome::TimedOut {
                    Waited::TimedOut
                } else {
                    Waited::Aborted
                }
            }
            Backing::Sci { obj, .. } => {
                // SAFETY: our duplicate, alive as long as `self`.
                match unsafe { nvsci::wait(*obj, id, value, timeout_us, abort) } {
                    Ok(Some(ts)) => Waited::Reached(ts),
                    Ok(None) => Waited::Aborted,
                    Err(_) => Waited::TimedOut,
                }
            }
        }
    }

    /// Wakes native waiters (after setting an abort flag).
    pub(crate) fn wake(&self) {
        if let Backing::Native(n) = &self.backing {
            n.notifier.notify();
        }
    }

    /// The timestamp of reached value `value`; `CUPVA_INVALID_STATE` when it is not reached
    /// (or its stamp is no longer kept).
    pub(crate) fn stamp(&self, value: u64) -> Result<u64, Code> {
        match &self.backing {
            Backing::Native(n) => {
                let reached = n.reached.load(Ordering::Acquire);
                if value == 0 || value > reached || reached - value >= TIMESTAMP_RING as u64 {
                    return Err(code::INVALID_STATE);
                }
                Ok(n.stamps[(value % TIMESTAMP_RING as u64) as usize].load(Ordering::Acquire))
            }
            Backing::Sci { obj, .. } => {
                // SAFETY: our duplicate, alive as long as `self`.
                let ts = unsafe { nvsci::signal_timestamp(*obj, value) };
                ts.map_err(|_| code::INVALID_STATE)
            }
        }
    }
}
