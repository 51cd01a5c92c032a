//! Parent and child handles without a heap: who may be closed when.
//!
//! Library objects come in families: an NvSciSync module and its attribute lists, objects and
//! wait contexts; a CUDA context and its modules, streams and memory; a module and its
//! kernels; a buffer and its GPU mappings. A child's handle is garbage once its parent is
//! closed, so a parent may only be closed while none of its children exists.
//!
//! Lifetimes cannot say this for the executive: it keeps parents and children side by side in
//! one static table and tears them down at `shutdown`. So every parent owns a [`Keep`], a slot
//! in a static table of counters, and every child owns a [`Hold`] on its parent's slot. Making
//! a child counts it, dropping or freeing it uncounts it, and [`Keep::release`] succeeds only
//! when the count is zero. A parent whose `close` finds children left open stays open (its
//! handle is leaked, which is safe) and reports [`Error::Shutdown`].
//!
//! An object that is both (a buffer: child of its module, parent of its GPU mapping) holds its
//! parent with a [`Claim`], which only its `close`/`free` gives back: dropped instead, the
//! object's handle stays open and may still serve its own children, so its parent must stay
//! open too.
//!
//! ```ignore
//! let module = SyncModule::open()?;          // takes a slot
//! let list = SyncAttrList::create(&module)?; // holds it
//! assert!(module.close().is_err());          // refused: the list is alive (and still usable)
//! ```

use core::mem::ManuallyDrop;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use crate::error::{Context, Error, Result, Table};

/// Slots in the table: parents alive at once, over every runtime in the process. A runtime
/// uses a few dozen (modules, the GPU context, one per buffer copy and semaphore).
const SLOTS: usize = 8192;
/// Set while the parent is open; the low bits count its children.
const OPEN: u32 = 1 << 31;
/// More children than this means a leak of counted clones; abort rather than overflow into
/// [`OPEN`] (as `Arc` does).
const MAX_CHILDREN: u32 = 1 << 30;

static TABLE: [AtomicU32; SLOTS] = [const { AtomicU32::new(0) }; SLOTS];
/// Where the next search for a free slot starts (spreads parents over the table).
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A parent's slot. Not `Clone`: one per parent.
#[derive(Debug)]
pub(crate) struct Keep {
    slot: &'static AtomicU32,
}

impl Keep {
    /// Take a free slot.
    pub(crate) fn new() -> Result<Keep> {
        let start = NEXT.fetch_add(1, Ordering::Relaxed);
        for i in 0..SLOTS {
            let slot = &TABLE[start.wrapping_add(i) % SLOTS];
            if slot
                .compare_exchange(0, OPEN, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                return Ok(Keep { slot });
            }
        }
        Err(Error::Capacity {
            table: Table::EngineParents,
            limit: SLOTS as u32,
        })
    }

    /// Count one more child.
    pub(crate) fn hold(&self) -> Hold {
        Hold::on(self.slot)
    }

    /// How many children are alive.
    #[cfg(test)]
    fn children(&self) -> u32 {
        self.slot.load(Ordering::Acquire) & !OPEN
    }

    /// Give the slot back if no child is alive: the parent may then be closed. Otherwise the
    /// parent must stay open; `context` names it in the error.
    pub(crate) fn release(self, context: Context) -> Result<()> {
        // Acquire: every use of a child happened before its Hold's (Release) drop.
        if self
            .slot
            .compare_exchange(OPEN, 0, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            // The slot is free and may already be another parent's: no Drop.
            core::mem::forget(self);
            Ok(())
        } else {
            // Drop marks the slot closed; the last child frees it.
            Err(Error::Shutdown { context })
        }
    }
}

impl Drop for Keep {
    /// A parent dropped without `close` leaks its handle; its slot is freed once its last
    /// child is gone.
    fn drop(&mut self) {
        self.slot.fetch_and(!OPEN, Ordering::Release);
    }
}

/// A child's claim on its parent: while it exists, the parent cannot be closed.
#[derive(Debug)]
pub(crate) struct Hold {
    slot: &'static AtomicU32,
}

impl Hold {
    fn on(slot: &'static AtomicU32) -> Hold {
        let before = slot.fetch_add(1, Ordering::Relaxed);
        if before & !OPEN >= MAX_CHILDREN {
            slot.fetch_sub(1, Ordering::Relaxed);
            std::process::abort();
        }
        Hold { slot }
    }
}

impl Clone for Hold {
    fn clone(&self) -> Hold {
        Hold::on(self.slot)
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        // Release: the child's last use happens before the parent's close (Acquire).
        self.slot.fetch_sub(1, Ordering::Release);
    }
}

/// The [`Hold`] of a child that is itself a parent: given back by [`Claim::release`] when the
/// child is closed, and never by a drop (which leaves the child's handle open).
#[derive(Debug)]
pub(crate) struct Claim(ManuallyDrop<Hold>);

impl Claim {
    /// Give the hold back: the child's handle is closed.
    pub(crate) fn release(self) {
        drop(ManuallyDrop::into_inner(self.0));
    }
}

impl From<Hold> for Claim {
    fn from(hold: Hold) -> Claim {
        Claim(ManuallyDrop::new(hold))
    }
}

impl Clone for Claim {
    fn clone(&self) -> Claim {
        Claim::from(Hold::clone(&self.0))
    }
}

/// Covers: REQ-API-004
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_closes_only_without_children() {
        let parent = Keep::new().unwrap();
        let child = parent.hold();
        let second = child.clone();
        assert_eq!(parent.children(), 2);
        drop(child);
        assert_eq!(parent.children(), 1);
        let again = Keep::new().unwrap();
        let held = again.hold();
        assert_eq!(
            again.release(Context::Platform),
            Err(Error::Shutdown {
                context: Context::Platform
            })
        );
        // The refused parent's slot stays taken until its last child is gone.
        let slot = held.slot;
        assert_eq!(slot.load(Ordering::Relaxed), 1);
        drop(held);
        assert_eq!(slot.load(Ordering::Relaxed), 0);
        drop(second);
        assert_eq!(parent.release(Context::Platform), Ok(()));
    }

    #[test]
    fn a_claim_is_given_back_by_release_only() {
        let parent = Keep::new().unwrap();
        let released = Claim::from(parent.hold());
        let dropped = released.clone();
        assert_eq!(parent.children(), 2);
        released.release();
        {
            // Goes out of scope without `release`.
            let _dropped = dropped;
        }
        assert_eq!(parent.children(), 1);
        // The dropped claim's child is still open somewhere: so is the parent.
        assert!(parent.release(Context::Platform).is_err());
    }

    #[test]
    fn a_dropped_parent_frees_its_slot_after_its_last_child() {
        let parent = Keep::new().unwrap();
        let slot = parent.slot;
        let child = parent.hold();
        drop(parent);
        assert_eq!(slot.load(Ordering::Relaxed), 1);
        drop(child);
        assert_eq!(slot.load(Ordering::Relaxed), 0);
    }
}
