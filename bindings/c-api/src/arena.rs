//! Memory that the runtime may borrow for `'static` and that `orin_exec_destroy` gives back.
//!
//! The runtime's API takes `&'static` tables and storage (a Rust application puts them in
//! statics). A C partition creates its runtime at run time, so the C API allocates them (all
//! before `orin_exec_seal`), hands the runtime `'static` borrows, and frees them only once
//! nothing can use them any more: after a successful shutdown, when init was never called,
//! or when init failed and released everything it had built (`InitFailure::released_all`).
//! Otherwise they stay allocated (a leak, never a dangling borrow).

/// One allocation and how to free it.
struct Owned {
    ptr: *mut (),
    free: unsafe fn(*mut ()),
}

/// Frees a `Box<T>` made by `Box::into_raw`.
///
/// # Safety
/// `p` came from `Box::<T>::into_raw` and is freed once.
unsafe fn free_box<T>(p: *mut ()) {
    // SAFETY: the caller's contract.
    drop(unsafe { Box::from_raw(p.cast::<T>()) });
}

/// Allocations whose borrows the runtime holds.
#[derive(Default)]
pub(crate) struct Arena {
    owned: Vec<Owned>,
}

// SAFETY: the arena only owns its allocations (plain data, no thread affinity) and never reads
// through the pointers; it is moved between threads with the handle that owns it.
unsafe impl Send for Arena {}

impl Arena {
    /// Moves `v` into the arena and borrows it for `'static`.
    pub(crate) fn keep_mut<T: 'static>(&mut self, v: Box<T>) -> &'static mut T {
        let ptr = Box::into_raw(v);
        self.owned.push(Owned {
            ptr: ptr.cast(),
            free: free_box::<T>,
        });
        // SAFETY: the allocation is freed only by `free`, whose caller guarantees that no
        // borrow is used any more; until then it is valid and borrowed only here.
        unsafe { &mut *ptr }
    }

    /// Moves `v` into the arena and borrows it for `'static`.
    pub(crate) fn keep<T: 'static>(&mut self, v: T) -> &'static T {
        self.keep_mut(Box::new(v))
    }

    /// Copies `s` into the arena.
    pub(crate) fn keep_str(&mut self, s: &str) -> &'static str {
        self.keep::<Box<str>>(Box::from(s))
    }

    /// Moves `v` into the arena as a slice.
    pub(crate) fn keep_slice<T: 'static>(&mut self, v: Vec<T>) -> &'static [T] {
        self.keep(v.into_boxed_slice())
    }

    /// Frees everything.
    ///
    /// # Safety
    /// No borrow handed out by this arena is used after the call.
    pub(crate) unsafe fn free(self) {
        for o in self.owned.into_iter().rev() {
            // SAFETY: each entry was made by `keep_mut` with its own `free_box::<T>` and is
            // freed once; the caller guarantees that no borrow of it is used any more.
            unsafe { (o.free)(o.ptr) };
        }
    }
}
