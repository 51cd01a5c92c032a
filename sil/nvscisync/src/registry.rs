//! The table of live handles.
//!
//! Every handle this library gives out is a tagged, never reused number (not an address):
//! `tag << 48 | id` (the scheme of `sil_common::handle`). Looking a handle up in the table
//! is the only way to reach the object behind it, so a stale, freed or forged handle is
//! answered with `NvSciError_BadParameter` (or silently ignored by the `void` calls) instead
//! of crashing.
//!
//! One mutex guards the whole table. It is held only for lookups and reference-count
//! updates, never while waiting. Lookups and removals do not allocate; inserts happen only
//! in the init-time calls (module, list and object creation). The table is this library's
//! own `static`: `libnvscisync.so` shares no state with any other SIL library.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, MutexGuard};

use nvsci_sys::{NvSciError, NvSciError_InsufficientMemory, NvSciError_ReconciliationFailed};
use sil_common::handle::{Map, RefTable, Registry, new_map};
pub(crate) use sil_common::handle::{handle_of, ptr_of};
use sil_common::list_api::{ListApi, ListHandles};

use crate::attr::AttrList;
use crate::ffi::STATUS;
use crate::obj::ObjCore;

/// Tag of module handles.
pub(crate) const TAG_MODULE: u64 = 0x5E51 << 48;
/// Tag of CPU wait context handles.
pub(crate) const TAG_CONTEXT: u64 = 0x5E52 << 48;
/// Tag of attribute list handles.
pub(crate) const TAG_LIST: u64 = 0x5E53 << 48;
/// Tag of object handles.
pub(crate) const TAG_OBJ: u64 = 0x5E54 << 48;

/// A CPU wait context: one fence wait at a time.
pub(crate) struct WaitContext {
    /// Module handle it belongs to.
    pub module: u64,
    /// Set while a wait uses it.
    pub in_use: AtomicBool,
}

/// Every live handle of the library.
pub(crate) struct State {
    /// Module and attribute list handles; the list of an object (`NvSciSyncObjGetAttrList`)
    /// is owned by it: it lives as long as the object and `NvSciSyncAttrListFree` ignores it.
    pub handles: ListHandles<AttrList>,
    /// Wait contexts by handle.
    pub contexts: Map<u64, Arc<WaitContext>>,
    /// Object handle -> core id.
    pub objects: Map<u64, u64>,
    /// Core id -> object, counted by object handles plus non-cleared fences.
    pub cores: RefTable<Arc<ObjCore>>,
    /// Counter address -> core id.
    pub counters: Map<usize, u64>,
}

impl State {
    const fn new() -> Self {
        State {
            handles: ListHandles::new(),
            contexts: new_map(),
            objects: new_map(),
            cores: RefTable::new(),
            counters: new_map(),
        }
    }

    /// The object behind an object handle.
    pub(crate) fn obj(&self, handle: u64) -> Option<&Arc<ObjCore>> {
        let id = self.objects.get(&handle)?;
        self.cores.get(*id)
    }

    /// The object with core id `id`.
    pub(crate) fn core(&self, id: u64) -> Option<&Arc<ObjCore>> {
        self.cores.get(id)
    }

    /// Takes one more reference on core `id`; `false` when it does not exist.
    pub(crate) fn add_ref(&mut self, id: u64) -> bool {
        self.cores.add_ref(id)
    }

    /// Drops one reference on core `id`; destroys the object with its last reference.
    /// Unknown ids are ignored.
    pub(crate) fn release(&mut self, id: u64) {
        if let Some(core) = self.cores.release(id) {
            self.counters.remove(&core.counter_addr());
            self.handles.lists.remove(core.list_handle);
        }
    }
}

/// This library's handle table (its own static: never shared with another SIL library).
pub(crate) static REGISTRY: Registry<State> = Registry::new(State::new());

/// The module and attribute-list calls shared with the SIL NvSciBuf.
pub(crate) static API: ListApi<State, AttrList, NvSciError> = ListApi {
    registry: &REGISTRY,
    handles: |st| &mut st.handles,
    status: STATUS,
    reconciliation_failed: NvSciError_ReconciliationFailed,
    no_memory: NvSciError_InsufficientMemory,
    tag_module: TAG_MODULE,
    tag_list: TAG_LIST,
};

/// Locks the handle table.
pub(crate) fn state() -> MutexGuard<'static, State> {
    REGISTRY.lock()
}

/// A fresh id (never 0, never reused in the life of the process).
pub(crate) fn next_id() -> u64 {
    REGISTRY.next_id()
}
