//! The module and attribute-list calls that the NvSci-style SIL libraries share.
//!
//! NvSciSync and NvSciBuf have the same handle life cycle for modules and attribute lists
//! (open/close, create/free, set/get, reconcile into a new list or object, allocate from a
//! reconciled list); only the keys, their checks and the reconciliation rules differ. A
//! library describes itself with a [`ListApi`] (its own registry `static`, its status
//! values and handle tags) and its C entry points call the methods here with closures for
//! what is specific to it. Every method refuses NULL, misaligned or unknown handles and
//! pointers with the library's "bad parameter" status.
//!
//! ```
//! use sil_common::ffi::Status;
//! use sil_common::handle::Registry;
//! use sil_common::list_api::{ListApi, ListHandles};
//! use sil_common::attr::AttrList;
//!
//! struct State {
//!     handles: ListHandles<AttrList<(), 4>>,
//! }
//! static REGISTRY: Registry<State> = Registry::new(State { handles: ListHandles::new() });
//! static API: ListApi<State, AttrList<(), 4>, i32> = ListApi {
//!     registry: &REGISTRY,
//!     handles: |st| &mut st.handles,
//!     status: Status { ok: 0, bad: 1 },
//!     reconciliation_failed: 2,
//!     no_memory: 3,
//!     tag_module: 1 << 48,
//!     tag_list: 2 << 48,
//! };
//! let (mut m, mut l) = (std::ptr::null_mut::<u8>(), std::ptr::null_mut::<u8>());
//! // SAFETY: `m` and `l` are live locals.
//! unsafe {
//!     assert_eq!(API.module_open(&mut m), 0);
//!     assert_eq!(API.list_create(m, &mut l), 0);
//!     assert_eq!(API.list_create(l, &mut l), 1); // not a module
//! }
//! API.list_free(l);
//! assert!(API.list(l).is_none());
//! ```

use std::ffi::c_void;
use std::sync::Arc;

use crate::attr::{AttrList, ListData, Slot, Value};
use crate::ffi::{self, Status};
use crate::handle::{ListTable, Map, Refused, Registry, handle_of, new_map, ptr_of, try_extend};

/// The module and attribute-list handles of a library.
pub struct ListHandles<L> {
    /// Open module handles.
    pub modules: Map<u64, ()>,
    /// Attribute lists by handle.
    pub lists: ListTable<L>,
}

impl<L> ListHandles<L> {
    /// No handles.
    pub const fn new() -> Self {
        ListHandles {
            modules: new_map(),
            lists: ListTable::new(),
        }
    }
}

impl<L> Default for ListHandles<L> {
    fn default() -> Self {
        Self::new()
    }
}

/// Why reconciliation failed.
#[derive(Debug)]
pub enum ReconError<const N: usize, E> {
    /// Conflicting or missing keys: the slots of the conflict list.
    Conflict(Vec<Slot<N>>),
    /// Refused with this status, no conflict list.
    Refused(E),
}

/// What a library's shared calls need to know about it: `S` is its handle-table state,
/// `L` its attribute list type, `E` its status type.
pub struct ListApi<S: 'static, L, E> {
    /// The library's own handle table.
    pub registry: &'static Registry<S>,
    /// The module and list handles in the (locked) table.
    pub handles: fn(&mut S) -> &mut ListHandles<L>,
    /// Success and bad-parameter statuses.
    pub status: Status<E>,
    /// Status of a reconciliation that produced a conflict list.
    pub reconciliation_failed: E,
    /// Status of a call whose caller-sized working memory could not be allocated.
    pub no_memory: E,
    /// Tag of module handles.
    pub tag_module: u64,
    /// Tag of attribute list handles.
    pub tag_list: u64,
}

impl<S, E: Copy, R, const N: usize> ListApi<S, AttrList<R, N>, E> {
    /// Runs `f` on the module and list handles, with the table locked.
    fn locked<X>(&self, f: impl FnOnce(&mut ListHandles<AttrList<R, N>>) -> X) -> X {
        f((self.handles)(&mut self.registry.lock()))
    }

    /// Registers a list in the locked table `st` and returns its new handle.
    pub fn add_list(
        &self,
        st: &mut S,
        module: u64,
        data: ListData<R, N>,
        owner: Option<u64>,
    ) -> u64 {
        let h = self.registry.new_handle(self.tag_list);
        (self.handles)(st)
            .lists
            .insert(h, AttrList::new(module, data), owner);
        h
    }

    /// Registers a free-standing list and returns its new handle.
    pub fn register_list(&self, module: u64, data: ListData<R, N>) -> u64 {
        self.add_list(&mut self.registry.lock(), module, data, None)
    }

    /// The list behind a handle.
    pub fn list<T>(&self, h: *mut T) -> Option<Arc<AttrList<R, N>>> {
        self.locked(|t| t.lists.get(handle_of(h)).cloned())
    }

    /// Opens a new module and writes its handle to `*out`.
    ///
    /// # Safety
    /// `out` is NULL or writable.
    pub unsafe fn module_open<T>(&self, out: *mut *mut T) -> E {
        if !ffi::usable(out) {
            return self.status.bad;
        }
        let h = self.registry.new_handle(self.tag_module);
        self.locked(|t| t.modules.insert(h, ()));
        // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
        unsafe { self.status.write(out, ptr_of(h)) }
    }

    /// Closes a module (unknown handles are ignored). What was made from it stays usable.
    pub fn module_close<T>(&self, module: *mut T) {
        self.locked(|t| t.modules.remove(&handle_of(module)));
    }

    /// Creates an empty, writable, single-slot unreconciled list of an open module and
    /// writes its handle to `*out`.
    ///
    /// # Safety
    /// `out` is NULL or writable.
    pub unsafe fn list_create<M, T>(&self, module: *mut M, out: *mut *mut T) -> E {
        let m = handle_of(module);
        if !ffi::usable(out) {
            return self.status.bad;
        }
        let mut st = self.registry.lock();
        if !(self.handles)(&mut st).modules.contains_key(&m) {
            return self.status.bad;
        }
        let h = self.add_list(&mut st, m, ListData::new_unreconciled(), None);
        drop(st);
        // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
        unsafe { self.status.write(out, ptr_of(h)) }
    }

    /// Frees a free-standing list (unknown handles and objects' lists are ignored).
    pub fn list_free<T>(&self, list: *mut T) {
        self.locked(|t| t.lists.free(handle_of(list)));
    }

    /// Sets keys in slot 0 of a settable list. `validate` checks the `pairCount` pairs at
    /// `pairs` against slot 0 and gives their (storage index, value); a refused pair, a key
    /// twice, a key already set, a NULL array, count 0 or more pairs than there are keys
    /// (`N`: some key would be there twice), an unknown or non-settable list: nothing is set
    /// (bad parameter, or `validate`'s error).
    ///
    /// # Safety
    /// `pairs` is NULL or points to `n` readable pairs.
    pub unsafe fn set_attrs<T, P>(
        &self,
        list: *mut T,
        pairs: *const P,
        n: usize,
        validate: impl FnOnce(&Slot<N>, &[P]) -> Result<Vec<(usize, Value)>, E>,
    ) -> E {
        let bad = self.status.bad;
        if n > N {
            return bad;
        }
        // SAFETY: the caller guarantees `n` readable pairs (NULL is refused).
        let (Some(pairs), Some(list)) = (unsafe { ffi::array(pairs, n) }, self.list(list)) else {
            return bad;
        };
        let mut data = list.lock();
        if !data.settable() {
            return bad;
        }
        let slot = &data.slots[0];
        let vals = match validate(slot, pairs) {
            Ok(v) => v,
            Err(e) => return e,
        };
        for (i, (k, _)) in vals.iter().enumerate() {
            if slot.is_locked(*k) || vals[..i].iter().any(|(kk, _)| kk == k) {
                return bad;
            }
        }
        data.set(vals);
        self.status.ok
    }

    /// Reads keys of slot `slot` of a list: `index` gives a pair's storage index (`None`:
    /// a key the get calls refuse), `fill` stores (pointer, length), (NULL, 0) when unset.
    ///
    /// # Safety
    /// `pairs` is NULL or points to `n` writable pairs.
    pub unsafe fn get_attrs<T, P>(
        &self,
        list: *mut T,
        slot: usize,
        pairs: *mut P,
        n: usize,
        index: impl Fn(&P) -> Option<usize>,
        fill: impl Fn(&mut P, (*const c_void, usize)),
    ) -> E {
        let bad = self.status.bad;
        // SAFETY: the caller guarantees `n` writable pairs (NULL is refused).
        let (Some(pairs), Some(list)) = (unsafe { ffi::array_mut(pairs, n) }, self.list(list))
        else {
            return bad;
        };
        if pairs.iter().any(|p| index(p).is_none()) {
            return bad;
        }
        let data = list.lock();
        let Some(slot) = data.slots.get(slot) else {
            return bad;
        };
        for p in pairs {
            let v = index(p).and_then(|k| slot.get(k));
            fill(p, Value::c_parts(v));
        }
        self.status.ok
    }

    /// The status for a refused lookup.
    pub fn refused(&self, r: Refused) -> E {
        match r {
            Refused::Bad => self.status.bad,
            Refused::NoMemory => self.no_memory,
        }
    }

    /// The module and slots of the `n` input lists at `inputs` of a reconcile or append
    /// call: bad parameter unless they are distinct live lists (`n > 0`), all of one module
    /// and all unreconciled ([`ListTable::get_distinct`]); no memory when the slots cannot
    /// be copied.
    ///
    /// # Safety
    /// `inputs` is NULL or points to `n` handles.
    pub unsafe fn gather<T>(
        &self,
        inputs: *const *mut T,
        n: usize,
    ) -> Result<(u64, Vec<Slot<N>>), E> {
        // SAFETY: forwarded caller guarantee.
        let lists = self.locked(|t| unsafe { t.lists.get_distinct(inputs, n) });
        let lists = lists.map_err(|r| self.refused(r))?;
        let module = lists[0].module;
        let mut slots = Vec::new();
        for l in &lists {
            let d = l.lock();
            if l.module != module || d.recon.is_some() {
                return Err(self.status.bad);
            }
            try_extend(&mut slots, &d.slots).map_err(|r| self.refused(r))?;
        }
        Ok((module, slots))
    }

    /// The reconcile calls: reconciles the input lists with `reconcile`; `make` turns the
    /// result (module, reconciled contents, what it says) into a new list or object whose
    /// handle goes to `*out`. On a conflict the conflict list goes to `*conflict_out` and
    /// the status is `reconciliation_failed`.
    ///
    /// # Safety
    /// `inputs` is NULL or points to `n` handles; `out` and `conflict_out` are NULL or
    /// writable.
    pub unsafe fn reconcile_into<T, O>(
        &self,
        inputs: *const *mut T,
        n: usize,
        out: *mut *mut O,
        conflict_out: *mut *mut T,
        reconcile: impl FnOnce(&[Slot<N>]) -> Result<(Slot<N>, R), ReconError<N, E>>,
        make: impl FnOnce(u64, ListData<R, N>, R) -> Result<u64, E>,
    ) -> E
    where
        R: Clone,
    {
        if !ffi::usable(out) || !ffi::usable(conflict_out) {
            return self.status.bad;
        }
        // SAFETY: forwarded caller guarantee.
        let (module, slots) = match unsafe { self.gather(inputs, n) } {
            Ok(x) => x,
            Err(e) => return e,
        };
        match reconcile(&slots) {
            Ok((slot, info)) => {
                match make(
                    module,
                    ListData::read_only(vec![slot], Some(info.clone())),
                    info,
                ) {
                    // SAFETY: checked non-NULL and aligned; the caller passes a writable
                    // pointer.
                    Ok(h) => unsafe { self.status.write(out, ptr_of(h)) },
                    Err(e) => e,
                }
            }
            Err(ReconError::Refused(e)) => e,
            Err(ReconError::Conflict(c)) => {
                let h = self.register_list(module, ListData::read_only(c, None));
                // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
                unsafe { ffi::write(conflict_out, ptr_of(h)) };
                self.reconciliation_failed
            }
        }
    }

    /// The reconcile call: [`reconcile_into`](Self::reconcile_into) a new reconciled list.
    ///
    /// # Safety
    /// As [`reconcile_into`](Self::reconcile_into).
    pub unsafe fn reconcile<T>(
        &self,
        inputs: *const *mut T,
        n: usize,
        out: *mut *mut T,
        conflict_out: *mut *mut T,
        reconcile: impl FnOnce(&[Slot<N>]) -> Result<(Slot<N>, R), ReconError<N, E>>,
    ) -> E
    where
        R: Clone,
    {
        let keep = |module, data, _| Ok(self.register_list(module, data));
        // SAFETY: forwarded caller guarantee.
        unsafe { self.reconcile_into(inputs, n, out, conflict_out, reconcile, keep) }
    }

    /// The object-allocation call: `make` turns a reconciled list (module, contents, what
    /// it says) into a new object whose handle goes to `*out`; an unreconciled list is a
    /// bad parameter.
    ///
    /// # Safety
    /// `out` is NULL or writable.
    pub unsafe fn obj_alloc<T, O>(
        &self,
        list: *mut T,
        out: *mut *mut O,
        make: impl FnOnce(u64, ListData<R, N>, R) -> Result<u64, E>,
    ) -> E
    where
        R: Clone,
    {
        if !ffi::usable(out) {
            return self.status.bad;
        }
        let Some(list) = self.list(list) else {
            return self.status.bad;
        };
        let data = list.lock().clone();
        let Some(info) = data.recon.clone() else {
            return self.status.bad;
        };
        match make(list.module, data, info) {
            // SAFETY: checked non-NULL and aligned; the caller passes a writable pointer.
            Ok(h) => unsafe { self.status.write(out, ptr_of(h)) },
            Err(e) => e,
        }
    }
}
