//! Attribute-list storage: slots of key values, lists of slots.
//!
//! A value is stored as raw bytes, 8-byte aligned (`sil_common::attr::Value`), so the
//! pointers the get calls return can be read as the key's C type. A set key is locked and
//! its value is never dropped while the list lives (a clone that sets a key again retires
//! the old value instead), so returned pointers stay valid for the list's life. NvSciBuf
//! has more keys than the 32 of `sil_common::attr::Slot`, hence this library's own slot.

use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) use sil_common::attr::Value;
use sil_common::handle::lock;

use crate::attr::BufInfo;
use crate::keys::{Mask, NK, bit};

/// The keys of one slot (index = storage index).
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    /// Value per key.
    pub vals: [Option<Value>; NK],
    /// Keys set in this slot: they may not be set again.
    pub locked: Mask,
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            vals: std::array::from_fn(|_| None),
            locked: 0,
        }
    }
}

impl Slot {
    /// The value of key `k`, if set.
    pub(crate) fn get(&self, k: usize) -> Option<&Value> {
        self.vals.get(k).and_then(Option::as_ref)
    }
    /// Key `k` is set and true.
    pub(crate) fn flag(&self, k: usize) -> bool {
        self.get(k).is_some_and(Value::as_bool)
    }
    /// Sets and locks key `k`.
    pub(crate) fn put(&mut self, k: usize, v: Value) {
        self.vals[k] = Some(v);
        self.locked |= bit(k);
    }
    /// Whether key `k` is locked.
    pub(crate) fn is_locked(&self, k: usize) -> bool {
        self.locked & bit(k) != 0
    }
}

/// The slots of a conflict list: per input slot, its values of the keys in `mask` (slots
/// that set none are left out); one empty slot when no input set any.
pub(crate) fn conflict_slots(inputs: &[Slot], mask: Mask) -> Vec<Slot> {
    let mut out: Vec<Slot> = inputs
        .iter()
        .map(|s| {
            let mut c = Slot::default();
            for k in (0..NK).filter(|&k| mask & bit(k) != 0) {
                if let Some(v) = s.get(k) {
                    c.put(k, v.clone());
                }
            }
            c
        })
        .filter(|c| c.locked != 0)
        .collect();
    if out.is_empty() {
        out.push(Slot::default());
    }
    out
}

/// The contents of an attribute list.
#[derive(Clone, Debug)]
pub(crate) struct ListData {
    /// One slot, or more for an appended or conflict list.
    pub slots: Vec<Slot>,
    /// Set calls allowed (single-slot unreconciled lists made by `Create` or `Clone`).
    pub writable: bool,
    /// `Some` for a reconciled list: what it says about the buffer.
    pub recon: Option<BufInfo>,
    /// Values replaced by a set on a clone, kept so that pointers handed out before stay
    /// valid for the list's life.
    pub retired: Vec<Value>,
}

impl ListData {
    /// A new, empty, writable unreconciled list.
    pub(crate) fn new_unreconciled() -> Self {
        ListData {
            slots: vec![Slot::default()],
            writable: true,
            recon: None,
            retired: Vec::new(),
        }
    }

    /// A non-writable list of `slots` (reconciled when `recon` is `Some`).
    pub(crate) fn read_only(slots: Vec<Slot>, recon: Option<BufInfo>) -> Self {
        ListData {
            slots,
            writable: false,
            recon,
            retired: Vec::new(),
        }
    }

    /// Whether set calls are allowed: writable, unreconciled, one slot.
    pub(crate) fn settable(&self) -> bool {
        self.recon.is_none() && self.writable && self.slots.len() == 1
    }

    /// Sets and locks (storage index, value) pairs in slot 0; a replaced value is retired.
    pub(crate) fn set(&mut self, vals: Vec<(usize, Value)>) {
        let slot = &mut self.slots[0];
        let mut retired = Vec::new();
        for (k, v) in vals {
            if let Some(old) = slot.vals[k].replace(v) {
                retired.push(old);
            }
            slot.locked |= bit(k);
        }
        self.retired.extend(retired);
    }

    /// A copy that shares nothing: a clone of an unreconciled single-slot list is writable
    /// for every key again (nvscibuf.h `Clone` post-condition).
    pub(crate) fn cloned(&self) -> Self {
        let mut d = ListData {
            slots: self.slots.clone(),
            writable: self.recon.is_none() && self.slots.len() == 1,
            recon: self.recon,
            retired: Vec::new(),
        };
        if d.writable {
            for s in &mut d.slots {
                s.locked = 0;
            }
        }
        d
    }
}

/// An attribute list: bound to a module, its contents behind a mutex.
#[derive(Debug)]
pub(crate) struct AttrList {
    /// Handle of the module it is bound to.
    pub module: u64,
    data: Mutex<ListData>,
}

impl AttrList {
    /// A list of `module` holding `data`.
    pub(crate) fn new(module: u64, data: ListData) -> Self {
        AttrList {
            module,
            data: Mutex::new(data),
        }
    }

    /// Locks the contents.
    pub(crate) fn lock(&self) -> MutexGuard<'_, ListData> {
        lock(&self.data)
    }
}

/// A shared list.
pub(crate) type ListRef = Arc<AttrList>;
