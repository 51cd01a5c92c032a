//! The table of live handles.
//!
//! Every handle this library gives out is a tagged, never reused number (not an address):
//! `tag << 48 | id`. Looking a handle up in the table is the only way to reach the object
//! behind it, so a stale, freed or forged handle is answered with `NvSciError_BadParameter`
//! (or silently ignored by the `void` calls) instead of crashing. The tags put the values
//! outside the canonical x86-64/aarch64 user address range, so a client that dereferences
//! one faults at once.
//!
//! One mutex guards the whole table. It is held only for lookups and reference-count
//! updates, never while waiting. Lookups and removals do not allocate; inserts happen only
//! in the init-time calls (module, list and object creation).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::attr::AttrList;
use crate::obj::ObjCore;

/// Tag of module handles.
pub(crate) const TAG_MODULE: u64 = 0x5E51 << 48;
/// Tag of CPU wait context handles.
pub(crate) const TAG_CONTEXT: u64 = 0x5E52 << 48;
/// Tag of attribute list handles.
pub(crate) const TAG_LIST: u64 = 0x5E53 << 48;
/// Tag of object handles.
pub(crate) const TAG_OBJ: u64 = 0x5E54 << 48;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id (never 0, never reused in the life of the process).
pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed) & 0x0000_FFFF_FFFF_FFFF
}

/// A multiplicative hasher for integer keys (ids and addresses). No random state, no
/// allocation.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 ^= self.0 >> 29;
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// A hash map keyed by integers.
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

const fn new_map<K, V>() -> Map<K, V> {
    HashMap::with_hasher(BuildHasherDefault::new())
}

/// A CPU wait context: one fence wait at a time.
pub(crate) struct WaitContext {
    /// Module handle it belongs to.
    pub module: u64,
    /// Set while a wait uses it.
    pub in_use: AtomicBool,
}

/// An attribute list handle.
pub(crate) struct ListEntry {
    /// The list.
    pub list: Arc<AttrList>,
    /// `Some(core id)` for the list of an object (`NvSciSyncObjGetAttrList`): it lives as
    /// long as the object and `NvSciSyncAttrListFree` ignores it.
    pub owner: Option<u64>,
}

/// A sync object (shared by its handles and the fences that reference it).
pub(crate) struct CoreEntry {
    /// The object.
    pub core: Arc<ObjCore>,
    /// Object handles plus non-cleared fences that reference it.
    pub refs: u64,
}

/// Every live handle of the library.
pub(crate) struct State {
    /// Open module handles.
    pub modules: Map<u64, ()>,
    /// Wait contexts by handle.
    pub contexts: Map<u64, Arc<WaitContext>>,
    /// Attribute lists by handle.
    pub lists: Map<u64, ListEntry>,
    /// Object handle -> core id.
    pub objects: Map<u64, u64>,
    /// Core id -> object.
    pub cores: Map<u64, CoreEntry>,
    /// Counter address -> core id.
    pub counters: Map<usize, u64>,
}

impl State {
    const fn new() -> Self {
        State {
            modules: new_map(),
            contexts: new_map(),
            lists: new_map(),
            objects: new_map(),
            cores: new_map(),
            counters: new_map(),
        }
    }

    /// The object behind an object handle.
    pub(crate) fn obj(&self, handle: u64) -> Option<&Arc<ObjCore>> {
        let id = self.objects.get(&handle)?;
        self.cores.get(id).map(|e| &e.core)
    }

    /// The object with core id `id`.
    pub(crate) fn core(&self, id: u64) -> Option<&Arc<ObjCore>> {
        self.cores.get(&id).map(|e| &e.core)
    }

    /// Takes one more reference on core `id`; `false` when it does not exist.
    pub(crate) fn add_ref(&mut self, id: u64) -> bool {
        match self.cores.get_mut(&id) {
            Some(e) => {
                e.refs += 1;
                true
            }
            None => false,
        }
    }

    /// Drops one reference on core `id`; destroys the object with its last reference.
    /// Unknown ids are ignored.
    pub(crate) fn release(&mut self, id: u64) {
        let Some(e) = self.cores.get_mut(&id) else {
            return;
        };
        e.refs = e.refs.saturating_sub(1);
        if e.refs == 0
            && let Some(e) = self.cores.remove(&id)
        {
            self.counters.remove(&e.core.counter_addr());
            self.lists.remove(&e.core.list_handle);
        }
    }

    /// Module handle of a live attribute list.
    pub(crate) fn list(&self, handle: u64) -> Option<&Arc<AttrList>> {
        self.lists.get(&handle).map(|e| &e.list)
    }
}

static STATE: Mutex<State> = Mutex::new(State::new());

/// Locks the handle table (a poisoned lock is taken over: the table stays consistent
/// because no code panics while holding it).
pub(crate) fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Handle value of a C handle pointer.
pub(crate) fn handle_of<T>(p: *const T) -> u64 {
    p.addr() as u64
}

/// C handle pointer for a handle value.
pub(crate) fn ptr_of<T>(h: u64) -> *mut T {
    std::ptr::without_provenance_mut(h as usize)
}
