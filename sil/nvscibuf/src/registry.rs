//! The table of live handles (same scheme as the SIL NvSciSync).
//!
//! Every handle is a tagged, never reused number (`tag << 48 | id`), not an address: a
//! stale, freed or forged handle is answered with `NvSciError_BadParameter` (or ignored
//! by the `void` calls) instead of crashing, and dereferencing one faults at once (the
//! values are outside the canonical user address range).

use std::alloc::Layout;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::attr::AttrList;

/// Tag of module handles.
pub(crate) const TAG_MODULE: u64 = 0x5EB1 << 48;
/// Tag of attribute list handles.
pub(crate) const TAG_LIST: u64 = 0x5EB2 << 48;
/// Tag of object handles.
pub(crate) const TAG_OBJ: u64 = 0x5EB3 << 48;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh id (never 0, never reused in the life of the process).
pub(crate) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed) & 0x0000_FFFF_FFFF_FFFF
}

/// A multiplicative hasher for integer keys.
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
}

/// A hash map keyed by integers.
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

const fn new_map<K, V>() -> Map<K, V> {
    HashMap::with_hasher(BuildHasherDefault::new())
}

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

/// An attribute list handle.
pub(crate) struct ListEntry {
    /// The list.
    pub list: Arc<AttrList>,
    /// `Some(core id)` for an object's list: lives with the object, not freed by
    /// `NvSciBufAttrListFree`.
    pub owner: Option<u64>,
}

/// A buffer (shared by its handles).
pub(crate) struct CoreEntry {
    /// The memory.
    pub core: Arc<BufCore>,
    /// Number of handles.
    pub refs: u64,
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
    pub modules: Map<u64, ()>,
    pub lists: Map<u64, ListEntry>,
    pub objects: Map<u64, ObjEntry>,
    pub cores: Map<u64, CoreEntry>,
}

impl State {
    const fn new() -> Self {
        State {
            modules: new_map(),
            lists: new_map(),
            objects: new_map(),
            cores: new_map(),
        }
    }

    /// The list behind a handle.
    pub(crate) fn list(&self, h: u64) -> Option<&Arc<AttrList>> {
        self.lists.get(&h).map(|e| &e.list)
    }

    /// An object handle and its buffer.
    pub(crate) fn obj(&self, h: u64) -> Option<(ObjEntry, &CoreEntry)> {
        let e = *self.objects.get(&h)?;
        Some((e, self.cores.get(&e.core)?))
    }

    /// Drops a handle's reference; the buffer and its lists go with the last one.
    pub(crate) fn release(&mut self, id: u64) {
        let Some(e) = self.cores.get_mut(&id) else {
            return;
        };
        e.refs = e.refs.saturating_sub(1);
        if e.refs == 0
            && let Some(e) = self.cores.remove(&id)
        {
            self.lists.remove(&e.list_rw);
            if let Some(ro) = e.list_ro {
                self.lists.remove(&ro);
            }
        }
    }
}

static STATE: Mutex<State> = Mutex::new(State::new());

/// Locks the handle table.
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
