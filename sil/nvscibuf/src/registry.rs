//! The table of live handles (same scheme as the SIL NvSciSync: `sil_common::handle`).
//!
//! Every handle is a tagged, never reused number (`tag << 48 | id`), not an address: a
//! stale, freed or forged handle is answered with `NvSciError_BadParameter` (or ignored
//! by the `void` calls) instead of crashing, and dereferencing one faults at once (the
//! values are outside the canonical user address range). The table is this library's own
//! `static`: `libnvscibuf.so` shares no state with any other SIL library.

use std::ptr::NonNull;
use std::sync::{Arc, MutexGuard};

use nvsci_sys::{NvSciError, NvSciError_BadParameter, NvSciError_InsufficientMemory};
use sil_common::handle::{ListTable, Map, RefTable, Refused, Registry, new_map, try_extend};
pub(crate) use sil_common::handle::{handle_of, ptr_of};

use crate::list::{AttrList, ListData, ListRef, Slot};

/// Tag of module handles.
pub(crate) const TAG_MODULE: u64 = 0x5EB1 << 48;
/// Tag of attribute list handles.
pub(crate) const TAG_LIST: u64 = 0x5EB2 << 48;
/// Tag of object handles.
pub(crate) const TAG_OBJ: u64 = 0x5EB3 << 48;

/// The largest buffer the SIL allocates (16 GiB, padded size): `NvSciBufObjAlloc` refuses
/// a larger one with `NvSciError_InsufficientMemory` (see `sil/README.md`, "Objects").
pub const MAX_BUFFER_BYTES: u64 = 16 << 30;

/// The backing memory of a buffer: an anonymous private mapping, page-aligned (or more),
/// padded to whole pages. The kernel zero-fills its pages on first touch, so a large
/// buffer costs no time or memory until it is used.
pub(crate) struct BufCore {
    /// Start of the mapping (what `munmap` takes).
    base: NonNull<u8>,
    /// Length of the mapping (the buffer plus the slack to align it).
    map_len: usize,
    /// Start of the buffer (`base` rounded up to the alignment).
    ptr: NonNull<u8>,
    /// Bytes of the buffer (whole pages).
    bytes: usize,
    /// Bytes the reconciled list asked for.
    pub size: u64,
    /// Reconciled `NeedCpuAccess`.
    pub need_cpu: bool,
}

// SAFETY: `BufCore` owns its mapping; the library only hands out its address.
// Synchronising access to the bytes is the client's job, as with the vendor library.
unsafe impl Send for BufCore {}
// SAFETY: as above; the struct itself is never mutated after creation.
unsafe impl Sync for BufCore {}

impl BufCore {
    /// Maps `size` bytes aligned to `max(align, 4096)`, padded to whole pages, reading as
    /// zeros. `None` when the padded size or the alignment exceeds [`MAX_BUFFER_BYTES`] or
    /// the mapping fails.
    pub(crate) fn alloc(size: u64, align: u64, need_cpu: bool) -> Option<Self> {
        let page = crate::attr::PAGE;
        let align = align.max(page);
        let bytes = size.max(1).checked_next_multiple_of(page)?;
        if bytes > MAX_BUFFER_BYTES || align > MAX_BUFFER_BYTES || !align.is_power_of_two() {
            return None;
        }
        // Both are at most 16 GiB, so neither the casts nor the sum can overflow.
        let (bytes, align) = (bytes as usize, align as usize);
        let map_len = bytes + (align - page as usize);
        // SAFETY: a fresh anonymous mapping; no existing memory is touched. NORESERVE: the
        // pages are committed on first touch, not now.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let base = NonNull::new(base.cast::<u8>())?;
        let offset = base.as_ptr().addr().next_multiple_of(align) - base.as_ptr().addr();
        // SAFETY: `offset` < `align` and the mapping has `align - page` bytes of slack
        // (mmap returns page-aligned addresses), so `ptr..ptr + bytes` lies inside it.
        let ptr = unsafe { base.add(offset) };
        Some(BufCore {
            base,
            map_len,
            ptr,
            bytes,
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
        self.bytes as u64
    }
}

impl Drop for BufCore {
    fn drop(&mut self) {
        // SAFETY: mapped in `alloc` with exactly this start and length, unmapped once.
        // munmap of a valid mapping cannot fail, and Drop must not panic: the result is
        // not needed.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.map_len) };
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
    /// Open module handles.
    pub modules: Map<u64, ()>,
    /// Attribute list handles; an object's lists are owned by it: they live with the
    /// object and `NvSciBufAttrListFree` ignores them.
    pub lists: ListTable<AttrList>,
    /// Object handles.
    pub objects: Map<u64, ObjEntry>,
    /// Core id -> buffer, counted by its handles.
    pub cores: RefTable<CoreEntry>,
}

impl State {
    const fn new() -> Self {
        State {
            modules: new_map(),
            lists: ListTable::new(),
            objects: new_map(),
            cores: RefTable::new(),
        }
    }

    /// The list behind a handle.
    pub(crate) fn list(&self, h: u64) -> Option<&ListRef> {
        self.lists.get(h)
    }

    /// An object handle and its buffer.
    pub(crate) fn obj(&self, h: u64) -> Option<(ObjEntry, &CoreEntry)> {
        let e = *self.objects.get(&h)?;
        Some((e, self.cores.get(e.core)?))
    }

    /// Drops a handle's reference; the buffer and its lists go with the last one.
    pub(crate) fn release(&mut self, id: u64) {
        if let Some(e) = self.cores.release(id) {
            self.lists.remove(e.list_rw);
            if let Some(ro) = e.list_ro {
                self.lists.remove(ro);
            }
        }
    }
}

/// This library's handle table (its own static: never shared with another SIL library).
pub(crate) static REGISTRY: Registry<State> = Registry::new(State::new());

/// Locks the handle table.
pub(crate) fn state() -> MutexGuard<'static, State> {
    REGISTRY.lock()
}

/// A fresh id (never 0, never reused in the life of the process).
pub(crate) fn next_id() -> u64 {
    REGISTRY.next_id()
}

/// Registers a list in the locked table `st` and returns its new handle; `owner` is the
/// core id of the object that owns it.
pub(crate) fn add_list(st: &mut State, module: u64, data: ListData, owner: Option<u64>) -> u64 {
    let h = REGISTRY.new_handle(TAG_LIST);
    st.lists.insert(h, AttrList::new(module, data), owner);
    h
}

/// Registers a free-standing list and returns its new handle.
pub(crate) fn register_list(module: u64, data: ListData) -> u64 {
    add_list(&mut state(), module, data, None)
}

/// The list behind a handle.
pub(crate) fn list<T>(h: *mut T) -> Option<ListRef> {
    state().lists.get(handle_of(h)).cloned()
}

/// The module and slots of the `n` lists at `inputs` (reconcile, append, validate, attach
/// calls): `BadParameter` unless they are distinct live lists (`n > 0`), all of one module
/// and all unreconciled (nvscibuf.h, each of those calls); `InsufficientMemory` when the
/// slots cannot be copied.
///
/// # Safety
/// `inputs` is NULL or points to `n` handles.
pub(crate) unsafe fn gather<T>(
    inputs: *const *mut T,
    n: usize,
) -> Result<(u64, Vec<Slot>), NvSciError> {
    let bad = NvSciError_BadParameter;
    let refused = |r| match r {
        Refused::Bad => bad,
        Refused::NoMemory => NvSciError_InsufficientMemory,
    };
    // SAFETY: forwarded caller guarantee.
    let lists = unsafe { state().lists.get_distinct(inputs, n) }.map_err(refused)?;
    let module = lists[0].module;
    let mut slots = Vec::new();
    for l in &lists {
        let d = l.lock();
        if l.module != module || d.recon.is_some() {
            return Err(bad);
        }
        try_extend(&mut slots, &d.slots).map_err(refused)?;
    }
    Ok((module, slots))
}
