//! Handle tables: the generic registry types behind the handles a SIL library gives out.
//!
//! A handle is a tagged, never reused number (`tag << 48 | id`), not an address: looking it
//! up in the library's table is the only way to reach the object behind it, so a stale,
//! freed or forged handle is answered with an error instead of a crash. The tags put the
//! values outside the canonical x86-64/aarch64 user address range, so a client that
//! dereferences one faults at once.
//!
//! This module holds only *types*. Each library owns its table as a `static` of its own
//! (`static REGISTRY: Registry<State> = Registry::new(State::new());`): a SIL library built
//! as a shared object gets its own copy of this code, and must never share state with
//! another library through it.
//!
//! Lookups, reference-count updates and removals do not allocate; inserts may.
//!
//! ```
//! use sil_common::handle::{Map, Registry, new_map};
//! struct State {
//!     modules: Map<u64, ()>,
//! }
//! static REGISTRY: Registry<State> = Registry::new(State { modules: new_map() });
//! let h = REGISTRY.new_handle(0x5E51 << 48);
//! REGISTRY.lock().modules.insert(h, ());
//! assert!(REGISTRY.lock().modules.contains_key(&h));
//! assert_ne!(REGISTRY.new_handle(0x5E51 << 48), h);
//! ```

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Locks `m`; a poisoned lock is taken over (the SIL code never panics while holding one in
/// a way that leaves the data inconsistent).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A multiplicative hasher for integer keys (ids and addresses). No random state, no
/// allocation.
#[derive(Default, Clone, Copy, Debug)]
pub struct IdHasher(u64);

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
pub type Map<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// An empty [`Map`] (usable in `const` context, so in statics).
pub const fn new_map<K, V>() -> Map<K, V> {
    HashMap::with_hasher(BuildHasherDefault::new())
}

/// Mask of the id part of a handle (the low 48 bits).
pub const ID_MASK: u64 = 0x0000_FFFF_FFFF_FFFF;

/// A library's handle table: a never-reused id source and the table state `S` behind one
/// mutex. The mutex is held only for lookups and reference-count updates, never while
/// waiting.
pub struct Registry<S> {
    next_id: AtomicU64,
    state: Mutex<S>,
}

impl<S> Registry<S> {
    /// A registry over `state`; ids start at 1.
    pub const fn new(state: S) -> Self {
        Registry {
            next_id: AtomicU64::new(1),
            state: Mutex::new(state),
        }
    }

    /// A fresh id (never 0, never reused in the life of the process).
    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed) & ID_MASK
    }

    /// A fresh handle value with tag `tag` (`tag | id`).
    pub fn new_handle(&self, tag: u64) -> u64 {
        tag | self.next_id()
    }

    /// Locks the table (a poisoned lock is taken over: the table stays consistent because
    /// no code panics while holding it).
    pub fn lock(&self) -> MutexGuard<'_, S> {
        lock(&self.state)
    }
}

/// Handle value of a C handle pointer.
pub fn handle_of<T>(p: *const T) -> u64 {
    p.addr() as u64
}

/// C handle pointer for a handle value.
pub fn ptr_of<T>(h: u64) -> *mut T {
    std::ptr::without_provenance_mut(h as usize)
}

/// Why a lookup of caller-supplied handles was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// A bad parameter (the library's "bad parameter" status).
    Bad,
    /// A working copy could not be allocated (the library's "insufficient memory" status).
    NoMemory,
}

/// An empty vector with room for `n` elements, or [`Refused::NoMemory`]: caller-sized
/// allocations must fail with a status, never abort the process.
pub fn try_vec<T>(n: usize) -> Result<Vec<T>, Refused> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Refused::NoMemory)?;
    Ok(v)
}

/// Appends `more` to `v`, or [`Refused::NoMemory`] when `v` cannot grow.
pub fn try_extend<T: Clone>(v: &mut Vec<T>, more: &[T]) -> Result<(), Refused> {
    v.try_reserve(more.len()).map_err(|_| Refused::NoMemory)?;
    v.extend_from_slice(more);
    Ok(())
}

/// Sorts `keys` and returns a value that occurs twice, if any: O(n log n) comparisons (the
/// reconcile calls take up to one handle per live list, so a pairwise scan was quadratic).
///
/// ```
/// use sil_common::handle::first_duplicate;
/// assert_eq!(first_duplicate(&mut [3, 1, 2]), None);
/// assert_eq!(first_duplicate(&mut [3, 1, 3]), Some(3));
/// ```
pub fn first_duplicate<K: Ord + Copy>(keys: &mut [K]) -> Option<K> {
    keys.sort_unstable();
    keys.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

/// An entry of a [`ListTable`].
struct ListEntry<L> {
    list: Arc<L>,
    /// `Some(core id)` for the list of an object: it lives as long as the object and
    /// [`ListTable::free`] ignores it.
    owner: Option<u64>,
}

/// Attribute lists by handle; each list either free-standing or owned by an object.
pub struct ListTable<L>(Map<u64, ListEntry<L>>);

impl<L> ListTable<L> {
    /// An empty table.
    pub const fn new() -> Self {
        ListTable(new_map())
    }

    /// Registers `list` under handle `h`; `owner` is the id of the object that owns it.
    pub fn insert(&mut self, h: u64, list: L, owner: Option<u64>) {
        self.0.insert(
            h,
            ListEntry {
                list: Arc::new(list),
                owner,
            },
        );
    }

    /// The list behind a handle.
    pub fn get(&self, h: u64) -> Option<&Arc<L>> {
        self.0.get(&h).map(|e| &e.list)
    }

    /// The lists behind the `n` handles at `inputs`, in order: [`Refused::Bad`] for a NULL
    /// or misaligned `inputs`, `n` 0, more handles than live lists (checked before `inputs`
    /// is read, so a huge count costs nothing), an unknown handle or one that appears twice;
    /// [`Refused::NoMemory`] when the working copies cannot be allocated. O(n log n): the
    /// duplicates are found by sorting a copy ([`first_duplicate`]).
    ///
    /// # Safety
    /// `inputs` is NULL or points to `n` handles.
    pub unsafe fn get_distinct<T>(
        &self,
        inputs: *const *mut T,
        n: usize,
    ) -> Result<Vec<Arc<L>>, Refused> {
        if n > self.0.len() {
            return Err(Refused::Bad);
        }
        // SAFETY: forwarded caller guarantee; `n` is at most the number of live lists.
        let handles = unsafe { crate::ffi::array(inputs, n) }.ok_or(Refused::Bad)?;
        let mut keys = try_vec(n)?;
        keys.extend(handles.iter().map(|&h| handle_of(h)));
        if first_duplicate(&mut keys).is_some() {
            return Err(Refused::Bad);
        }
        let mut lists = try_vec(n)?;
        for &h in handles {
            lists.push(self.get(handle_of(h)).ok_or(Refused::Bad)?.clone());
        }
        Ok(lists)
    }

    /// Number of lists in the table.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the table holds no list.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes a free-standing list; unknown handles and owned lists are ignored.
    pub fn free(&mut self, h: u64) {
        if self.0.get(&h).is_some_and(|e| e.owner.is_none()) {
            self.0.remove(&h);
        }
    }

    /// Removes a list whatever its owner (when its object goes).
    pub fn remove(&mut self, h: u64) {
        self.0.remove(&h);
    }
}

impl<L> Default for ListTable<L> {
    fn default() -> Self {
        Self::new()
    }
}

struct Counted<T> {
    value: T,
    refs: u64,
}

/// Reference-counted objects by id: an object goes with its last reference.
pub struct RefTable<T>(Map<u64, Counted<T>>);

impl<T> RefTable<T> {
    /// An empty table.
    pub const fn new() -> Self {
        RefTable(new_map())
    }

    /// Adds `value` under `id` with one reference.
    pub fn insert(&mut self, id: u64, value: T) {
        self.0.insert(id, Counted { value, refs: 1 });
    }

    /// The object with id `id`.
    pub fn get(&self, id: u64) -> Option<&T> {
        self.0.get(&id).map(|c| &c.value)
    }

    /// The object with id `id`, mutably.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        self.0.get_mut(&id).map(|c| &mut c.value)
    }

    /// Takes one more reference on `id`; `false` when it does not exist.
    pub fn add_ref(&mut self, id: u64) -> bool {
        match self.0.get_mut(&id) {
            Some(c) => {
                c.refs += 1;
                true
            }
            None => false,
        }
    }

    /// Drops one reference on `id`; returns the object when that was its last reference
    /// (it is then gone from the table). Unknown ids are ignored.
    pub fn release(&mut self, id: u64) -> Option<T> {
        let c = self.0.get_mut(&id)?;
        c.refs = c.refs.saturating_sub(1);
        if c.refs == 0 {
            self.0.remove(&id).map(|c| c.value)
        } else {
            None
        }
    }
}

impl<T> Default for RefTable<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Covers: REQ-SIL-004
#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Covers: REQ-SYNC-005, REQ-BUF-003
    #[test]
    fn ref_table_drops_with_last_reference() {
        let mut t = RefTable::new();
        t.insert(7, "x");
        assert!(t.add_ref(7));
        assert!(!t.add_ref(8));
        assert_eq!(t.release(7), None);
        assert_eq!(t.get(7), Some(&"x"));
        assert_eq!(t.release(7), Some("x"));
        assert_eq!(t.get(7), None);
        assert_eq!(t.release(7), None);
    }

    #[test]
    fn list_table_free_ignores_owned_lists() {
        let mut t = ListTable::new();
        t.insert(1, 10u32, None);
        t.insert(2, 20u32, Some(5));
        t.free(1);
        t.free(2);
        assert!(t.get(1).is_none());
        assert_eq!(t.get(2).map(|l| **l), Some(20));
        let hs: [*mut u8; 2] = [ptr_of(2), ptr_of(2)];
        // SAFETY: `hs` holds 2 handles; the huge count is refused before anything is read.
        unsafe {
            assert_eq!(t.get_distinct(hs.as_ptr(), 2).err(), Some(Refused::Bad));
            assert_eq!(t.get_distinct(hs.as_ptr(), 1).map(|v| v.len()), Ok(1));
            assert_eq!(
                t.get_distinct(hs.as_ptr(), usize::MAX).err(),
                Some(Refused::Bad)
            );
        }
        t.remove(2);
        assert!(t.get(2).is_none());
    }

    /// A key that counts every comparison made on it (equality included, so a pairwise
    /// `contains` scan counts too).
    #[derive(Clone, Copy, Debug, Eq)]
    pub(crate) struct Counted(pub(crate) u64);

    thread_local! {
        pub(crate) static COMPARISONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    impl Counted {
        fn count() {
            COMPARISONS.with(|c| c.set(c.get() + 1));
        }
        /// The comparisons `f` made (on this thread).
        pub(crate) fn made_by<R>(f: impl FnOnce() -> R) -> (R, u64) {
            COMPARISONS.with(|c| c.set(0));
            let r = f();
            (r, COMPARISONS.with(std::cell::Cell::get))
        }
    }
    impl PartialEq for Counted {
        fn eq(&self, o: &Self) -> bool {
            Self::count();
            self.0 == o.0
        }
    }
    impl PartialOrd for Counted {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Counted {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            Self::count();
            self.0.cmp(&o.0)
        }
    }

    /// `n` distinct keys in a scrambled order (a multiplicative permutation of 0..2^20).
    pub(crate) fn scrambled(n: usize) -> Vec<Counted> {
        (0..n as u64)
            .map(|i| Counted(i.wrapping_mul(0x9E37_79B9) & ((1 << 20) - 1)))
            .collect()
    }

    /// n log2 n for the bounds below.
    pub(crate) fn n_log_n(n: usize) -> u64 {
        n as u64 * u64::from(n.ilog2() + 1)
    }

    /// Reconciling n lists checks them for duplicates in O(n log n) comparisons: 10^6
    /// handles take at most 3 n log2 n (a pairwise scan would take n^2 / 2 = 5 * 10^11).
    ///
    /// Covers: REQ-ROB-062
    #[test]
    fn duplicate_check_of_a_million_handles_is_n_log_n() {
        let n = 1_000_000;
        let mut keys = scrambled(n);
        let (dup, cmps) = Counted::made_by(|| first_duplicate(&mut keys));
        assert!(dup.is_none());
        assert!(cmps <= 3 * n_log_n(n), "{cmps} comparisons for {n} keys");
        let mut keys = scrambled(n);
        keys[n - 1] = keys[0];
        let twice = keys[0].0;
        let (dup, cmps) = Counted::made_by(|| first_duplicate(&mut keys));
        assert_eq!(dup.map(|k| k.0), Some(twice));
        assert!(cmps <= 3 * n_log_n(n), "{cmps} comparisons for {n} keys");
    }

    /// A huge count is refused before the array is read, and allocation failures are a
    /// status: `try_vec` of more than memory can hold is `NoMemory`, not an abort.
    ///
    /// Covers: REQ-ROB-060
    #[test]
    fn huge_counts_are_refused_without_reading_or_aborting() {
        let t: ListTable<u32> = ListTable::new();
        let one: [*mut u8; 1] = [ptr_of(1)];
        // SAFETY: the count exceeds the (empty) table, so nothing is read.
        let r = unsafe { t.get_distinct(one.as_ptr(), usize::MAX) };
        assert_eq!(r.err(), Some(Refused::Bad));
        assert_eq!(
            try_vec::<u64>(usize::MAX / 2).err(),
            Some(Refused::NoMemory)
        );
        assert_eq!(try_vec::<u64>(3).map(|v| v.capacity()), Ok(3));
        let mut v = vec![1u8];
        assert_eq!(try_extend(&mut v, &[2, 3]), Ok(()));
        assert_eq!(v, [1, 2, 3]);
    }

    #[test]
    fn handles_round_trip_and_are_fresh() {
        let r = Registry::new(());
        let (a, b) = (r.new_handle(0x5E << 48), r.new_handle(0x5E << 48));
        assert_ne!(a, b);
        assert_eq!(a >> 48, 0x5E);
        assert_eq!(handle_of(ptr_of::<u8>(a)), a);
    }
}
