//! Attribute-list storage: raw key values, slots of keys, and lists of slots.
//!
//! A value is stored as raw bytes, 8-byte aligned, so the pointers the get calls return can
//! be read as the key's C type. A [`Slot`] has room for `N` keys (by storage index, below
//! 32) and remembers which keys were set: a set key is locked and its value is not replaced
//! while the list lives, so the returned pointers stay valid. What a key means, how it is
//! checked and how lists reconcile is the library's business; `R` is what a reconciled list
//! records about the object it describes.
//!
//! ```
//! use sil_common::attr::{AttrList, ListData, Value};
//! let list: AttrList<(), 4> = AttrList::new(1, ListData::new_unreconciled());
//! list.lock().set(vec![(2, Value::from_u64(7))]);
//! assert_eq!(list.lock().slots[0].get(2).map(Value::as_u64), Some(7));
//! assert_eq!(list.lock().slots[0].locked, 1 << 2);
//! ```

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use crate::handle::lock;

/// The bytes of one attribute value, stored 8-byte aligned.
#[derive(Clone, Debug)]
pub struct Value {
    words: Box<[u64]>,
    len: usize,
}

/// The native-endian `u32`s of `b` (a trailing partial chunk is ignored).
pub fn ne_u32s(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
}

/// The native-endian `u64`s of `b` (a trailing partial chunk is ignored).
pub fn ne_u64s(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    b.chunks_exact(8).map(|c| {
        let mut a = [0u8; 8];
        a.copy_from_slice(c);
        u64::from_ne_bytes(a)
    })
}

impl Value {
    /// A copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8).max(1)].into_boxed_slice();
        // SAFETY: `words` holds at least `bytes.len()` bytes; the regions do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                words.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            );
        }
        Value {
            words,
            len: bytes.len(),
        }
    }
    /// A C `bool` (one byte).
    pub fn from_bool(v: bool) -> Self {
        Self::from_bytes(&[u8::from(v)])
    }
    /// A `uint32_t`.
    pub fn from_u32(v: u32) -> Self {
        Self::from_bytes(&v.to_ne_bytes())
    }
    /// A `uint64_t`.
    pub fn from_u64(v: u64) -> Self {
        Self::from_bytes(&v.to_ne_bytes())
    }
    /// A `uint32_t` array.
    pub fn from_u32s(v: &[u32]) -> Self {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        Self::from_bytes(&b)
    }
    /// A `uint64_t` array.
    pub fn from_u64s(v: &[u64]) -> Self {
        let b: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        Self::from_bytes(&b)
    }
    /// The stored bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `words` owns at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
    /// Pointer to the stored bytes (8-byte aligned, valid while the value lives).
    pub fn as_ptr(&self) -> *const u8 {
        self.words.as_ptr().cast()
    }
    /// Number of stored bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the value has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The first byte as a C `bool` (`false` when empty).
    pub fn as_bool(&self) -> bool {
        self.bytes().first().is_some_and(|b| *b != 0)
    }
    /// The first `u32` (0 when shorter).
    pub fn as_u32(&self) -> u32 {
        self.u32s().next().unwrap_or(0)
    }
    /// The first (up to) 8 bytes as a native-endian `u64`, zero-extended.
    pub fn as_u64(&self) -> u64 {
        let mut b = [0u8; 8];
        let n = self.len.min(8);
        b[..n].copy_from_slice(&self.bytes()[..n]);
        u64::from_ne_bytes(b)
    }
    /// The value as a `uint32_t` array.
    pub fn u32s(&self) -> impl Iterator<Item = u32> + '_ {
        ne_u32s(self.bytes())
    }
    /// The value as a `uint64_t` array.
    pub fn u64s(&self) -> impl Iterator<Item = u64> + '_ {
        ne_u64s(self.bytes())
    }
    /// What a get call returns for an optional value: (pointer, length), or (NULL, 0) when
    /// the key is not set.
    pub fn c_parts(v: Option<&Value>) -> (*const c_void, usize) {
        match v {
            Some(v) => (v.as_ptr().cast(), v.len()),
            None => (std::ptr::null(), 0),
        }
    }
}

/// The keys of one slot: a value per storage index `0..N` (`N` at most 32).
#[derive(Clone, Debug)]
pub struct Slot<const N: usize> {
    /// Value per key (index = storage index).
    pub vals: [Option<Value>; N],
    /// Keys set in this list (bit = storage index): they may not be set again.
    pub locked: u32,
}

impl<const N: usize> Default for Slot<N> {
    fn default() -> Self {
        Slot {
            vals: std::array::from_fn(|_| None),
            locked: 0,
        }
    }
}

impl<const N: usize> Slot<N> {
    /// The value of key `k`, if set.
    pub fn get(&self, k: usize) -> Option<&Value> {
        self.vals.get(k).and_then(Option::as_ref)
    }
    /// Key `k` is set and true.
    pub fn flag(&self, k: usize) -> bool {
        self.get(k).is_some_and(Value::as_bool)
    }
    /// Sets and locks key `k`.
    pub fn put(&mut self, k: usize, v: Value) {
        self.vals[k] = Some(v);
        self.locked |= 1 << k;
    }
    /// Whether key `k` is locked.
    pub fn is_locked(&self, k: usize) -> bool {
        self.locked & (1 << k) != 0
    }
}

/// The slots of a conflict list: per input, the keys of `mask` it set (inputs that set
/// none are left out); a single empty slot when no input set any.
pub fn conflict_slots<const N: usize>(inputs: &[Slot<N>], mask: u32) -> Vec<Slot<N>> {
    let mut out = Vec::new();
    for s in inputs {
        let mut c = Slot::default();
        for k in 0..N {
            if mask & (1 << k) != 0
                && let Some(v) = s.get(k)
            {
                c.put(k, v.clone());
            }
        }
        if c.locked != 0 {
            out.push(c);
        }
    }
    if out.is_empty() {
        out.push(Slot::default());
    }
    out
}

/// The union of the 16-byte GPU ids in key `k` of `inputs`, in first-seen order.
pub fn union_gpu_ids<const N: usize>(inputs: &[Slot<N>], k: usize) -> Vec<[u8; 16]> {
    let ids = inputs
        .iter()
        .filter_map(|s| s.get(k))
        .flat_map(|v| v.bytes().chunks_exact(16))
        .map(|c| <[u8; 16]>::try_from(c).unwrap_or([0; 16]));
    union_in_order(ids)
}

/// The distinct items of `items`, in first-seen order: O(n log n) (a sort of (item, first
/// position)), where a scan of the items kept so far was quadratic in the number of lists.
///
/// ```
/// use sil_common::attr::union_in_order;
/// assert_eq!(union_in_order([3, 1, 3, 2, 1]), vec![3, 1, 2]);
/// ```
pub fn union_in_order<K: Ord + Copy>(items: impl IntoIterator<Item = K>) -> Vec<K> {
    let mut seen: Vec<(K, usize)> = items.into_iter().enumerate().map(|(i, k)| (k, i)).collect();
    seen.sort_unstable();
    seen.dedup_by_key(|(k, _)| *k);
    seen.sort_unstable_by_key(|&(_, i)| i);
    seen.into_iter().map(|(k, _)| k).collect()
}

/// The contents of an attribute list.
#[derive(Clone, Debug)]
pub struct ListData<R, const N: usize> {
    /// One slot, or more for an appended or conflict list.
    pub slots: Vec<Slot<N>>,
    /// Set calls allowed (single-slot unreconciled lists only).
    pub writable: bool,
    /// `Some` for a reconciled list.
    pub recon: Option<R>,
    /// Values replaced by a set on a list whose keys were unlocked again (a clone), kept
    /// so that pointers handed out before stay valid for the list's life.
    pub retired: Vec<Value>,
}

impl<R, const N: usize> ListData<R, N> {
    /// A new, empty, writable unreconciled list.
    pub fn new_unreconciled() -> Self {
        ListData {
            slots: vec![Slot::default()],
            writable: true,
            recon: None,
            retired: Vec::new(),
        }
    }

    /// A non-writable list of `slots` (reconciled when `recon` is `Some`).
    pub fn read_only(slots: Vec<Slot<N>>, recon: Option<R>) -> Self {
        ListData {
            slots,
            writable: false,
            recon,
            retired: Vec::new(),
        }
    }

    /// Whether set calls are allowed: writable, unreconciled, one slot.
    pub fn settable(&self) -> bool {
        self.recon.is_none() && self.writable && self.slots.len() == 1
    }

    /// Sets and locks (storage index, value) pairs in slot 0. A value replaced (its key was
    /// unlocked again) is retired, not dropped.
    pub fn set(&mut self, vals: Vec<(usize, Value)>) {
        let slot = &mut self.slots[0];
        let mut retired = Vec::new();
        for (k, v) in vals {
            if let Some(old) = slot.vals[k].replace(v) {
                retired.push(old);
            }
            slot.locked |= 1 << k;
        }
        self.retired.extend(retired);
    }
}

/// An attribute list: bound to a module, its contents behind a mutex.
#[derive(Debug)]
pub struct AttrList<R, const N: usize> {
    /// Handle of the module it is bound to.
    pub module: u64,
    data: Mutex<ListData<R, N>>,
}

impl<R, const N: usize> AttrList<R, N> {
    /// A list of `module` holding `data`.
    pub fn new(module: u64, data: ListData<R, N>) -> Self {
        AttrList {
            module,
            data: Mutex::new(data),
        }
    }

    /// Locks the contents.
    pub fn lock(&self) -> MutexGuard<'_, ListData<R, N>> {
        lock(&self.data)
    }
}

/// Covers: REQ-SYNC-001, REQ-BUF-001
#[cfg(test)]
mod tests {
    use super::*;

    /// The union of the GPU ids of n lists takes O(n log n) comparisons (it was a scan of
    /// the ids kept so far: quadratic when every list names another GPU).
    ///
    /// Covers: REQ-ROB-062
    #[test]
    fn union_of_a_million_items_is_n_log_n_and_keeps_first_seen_order() {
        use crate::handle::tests::{Counted, n_log_n, scrambled};
        let n = 1_000_000;
        // Every key twice: the second half repeats the first.
        let keys = scrambled(n / 2);
        let items: Vec<Counted> = keys.iter().chain(&keys).copied().collect();
        let (out, cmps) = Counted::made_by(|| union_in_order(items.iter().copied()));
        assert!(cmps <= 4 * n_log_n(n), "{cmps} comparisons for {n} items");
        assert_eq!(out.len(), n / 2);
        assert!(
            out.iter().zip(&keys).all(|(a, b)| a.0 == b.0),
            "first-seen order"
        );
    }

    #[test]
    fn value_round_trips_and_is_aligned() {
        let v = Value::from_u64(0x1122_3344_5566_7788);
        assert_eq!(v.as_u64(), 0x1122_3344_5566_7788);
        assert_eq!(v.as_ptr() as usize % 8, 0);
        assert_eq!(v.len(), 8);
        let v = Value::from_u32s(&[4, 2]);
        assert_eq!(v.u32s().collect::<Vec<_>>(), vec![4, 2]);
        assert_eq!(v.as_u32(), 4);
        assert_eq!(Value::from_u64s(&[9, 8]).u64s().collect::<Vec<_>>(), [9, 8]);
        assert!(Value::from_bool(true).as_bool());
        assert_eq!(Value::c_parts(None), (std::ptr::null(), 0));
    }

    #[test]
    fn conflict_slots_keep_only_masked_keys() {
        let mut a = Slot::<4>::default();
        a.put(1, Value::from_u32(1));
        a.put(2, Value::from_u32(2));
        let b = Slot::<4>::default();
        let c = conflict_slots(&[a, b.clone()], 1 << 2);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].locked, 1 << 2);
        assert_eq!(conflict_slots(&[b], 1 << 2)[0].locked, 0);
    }

    #[test]
    fn set_retires_replaced_values() {
        let mut d: ListData<(), 4> = ListData::new_unreconciled();
        d.set(vec![(1, Value::from_u32(1))]);
        d.slots[0].locked = 0;
        d.set(vec![(1, Value::from_u32(2))]);
        assert_eq!(d.retired.len(), 1);
        assert_eq!(d.slots[0].get(1).map(Value::as_u32), Some(2));
    }
}
