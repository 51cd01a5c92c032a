//! The table of live handles (same scheme as the SIL NvSciSync: `sil_common::handle`).
//!
//! Every handle is a tagged, never reused number (`tag << 48 | id`), not an address: a
//! stale, freed or forged handle is answered with `NvSciError_BadParameter` (or ignored
//! by the `void` calls) instead of crashing, and dereferencing one faults at once (the
//! values are outside the canonical user address range). The table is this library's own
//! `static`: `libnvscibuf.so` shares no state with any other SIL library.

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::{Arc, MutexGuard};

use nvsci_sys::{NvSciError, NvSciError_ReconciliationFailed};
use sil_common::handle::{Map, RefTable, Registry, new_map};
pub(crate) use sil_common::handle::{handle_of, ptr_of};
use sil_common::list_api::{ListApi, ListHandles};

use crate::attr::AttrList;
use crate::ffi::STATUS;

/// Tag of module handles.
pub(crate) const TAG_MODULE: u64 = 0x5EB1 << 48;
/// Tag of attribute list handles.
pub(crate) const TAG_LIST: u64 = 0x5EB2 << 48;
/// Tag of object handles.
pub(crate) const TAG_OBJ: u64 = 0x5EB3 << 48;

/// The backing memory of a buffer: page-aligned, padded to whole pages, zero-filled.
pub(crate) struct BufCore {
    ptr: NonNull<u8>,
    layout: Layout,
    /// Bytes the reconciled list asked for.
    pub size: u64,
    /// Reconciled `NeedCpuAccess`.
    pub need_cpu: bool,
}

// SAFETY: `BufCore` owns its allocation; the library only hands out its address.
// Synchronising access to the bytes is the client's job, as with the vendor library.
unsafe impl Send for BufCore {}
// SAFETY: as above; the struct itself is never mutated after creation.
unsafe impl Sync for BufCore {}

impl BufCore {
    /// Allocates `size` bytes aligned to `max(align, 4096)`, padded to whole pages and
    /// zeroed. `None` when the allocation fails or the sizes overflow.
    pub(crate) fn alloc(size: u64, align: u64, need_cpu: bool) -> Option<Self> {
        let page = crate::attr::PAGE;
        let align = usize::try_from(align.max(page)).ok()?;
        let bytes = usize::try_from(size.max(1).checked_next_multiple_of(page)?).ok()?;
        let layout = Layout::from_size_align(bytes, align).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        Some(BufCore {
            ptr,
            layout,
            size,
            need_cpu,
        })
    }
    /// Start of the memory.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    /// Bytes allocated (whole pages).
    pub(crate) fn alloc_size(&self) -> u64 {
        self.layout.size() as u64
    }
}

impl Drop for BufCore {
    fn drop(&mut self) {
        // SAFETY: allocated in `alloc` with exactly this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// A buffer (shared by its handles, counted in [`State::cores`]).
pub(crate) struct CoreEntry {
    /// The memory.
    pub core: Arc<BufCore>,
    /// The object's list with `ActualPerm` = ReadWrite.
    pub list_rw: u64,
    /// The object's list with `ActualPerm` = Readonly (made by the first reduced dup).
    pub list_ro: Option<u64>,
}

/// An object handle.
#[derive(Clone, Copy)]
pub(crate) struct ObjEntry {
    /// Core id.
    pub core: u64,
    /// `NvSciBufAttrValAccessPerm` value of this handle.
    pub perm: u32,
}

/// Every live handle of the library.
pub(crate) struct State {
    /// Module and attribute list handles; an object's lists are owned by it: they live
    /// with the object and `NvSciBufAttrListFree` ignores them.
    pub handles: ListHandles<AttrList>,
    /// Object handles.
    pub objects: Map<u64, ObjEntry>,
    /// Core id -> buffer, counted by its handles.
    pub cores: RefTable<CoreEntry>,
}

impl State {
    const fn new() -> Self {
        State {
            handles: ListHandles::new(),
            objects: new_map(),
            cores: RefTable::new(),
        }
    }

    /// The list behind a handle.
    pub(crate) fn list(&self, h: u64) -> Option<&Arc<AttrList>> {
        self.handles.lists.get(h)
    }

    /// An object handle and its buffer.
    pub(crate) fn obj(&self, h: u64) -> Option<(ObjEntry, &CoreEntry)> {
        let e = *self.objects.get(&h)?;
        Some((e, self.cores.get(e.core)?))
    }

    /// Drops a handle's reference; the buffer and its lists go with the last one.
    pub(crate) fn release(&mut self, id: u64) {
        if let Some(e) = self.cores.release(id) {
            self.handles.lists.remove(e.list_rw);
            if let Some(ro) = e.list_ro {
                self.handles.lists.remove(ro);
            }
        }
    }
}

/// This library's handle table (its own static: never shared with another SIL library).
pub(crate) static REGISTRY: Registry<State> = Registry::new(State::new());

/// The module and attribute-list calls shared with the SIL NvSciSync.
pub(crate) static API: ListApi<State, AttrList, NvSciError> = ListApi {
    registry: &REGISTRY,
    handles: |st| &mut st.handles,
    status: STATUS,
    reconciliation_failed: NvSciError_ReconciliationFailed,
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
