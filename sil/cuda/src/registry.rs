//! Handle tables. A C handle is a number handed out once per process (never reused, never
//! 0, 1 or 2, so it can never be mistaken for a default-stream value or a stale handle of a
//! destroyed object); the table holds the live objects as `Arc`s, so a lookup validates the
//! handle and returns a counted reference without allocating (only `insert` may allocate).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The next handle value (shared by every table, so handles of different kinds differ too).
static NEXT: AtomicUsize = AtomicUsize::new(0x5110_0000);

/// A new handle value, for objects that live inside another one (graph nodes).
pub(crate) fn new_handle() -> usize {
    NEXT.fetch_add(0x10, Ordering::Relaxed)
}

/// The live objects of one kind.
pub(crate) struct Registry<T> {
    items: Mutex<Vec<(usize, Arc<T>)>>,
}

impl<T> Registry<T> {
    /// An empty table.
    pub(crate) const fn new() -> Self {
        Registry {
            items: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<(usize, Arc<T>)>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds an object and returns its new handle value.
    pub(crate) fn insert(&self, item: Arc<T>) -> usize {
        let h = new_handle();
        self.lock().push((h, item));
        h
    }

    /// The object behind a handle, if it is live. Never allocates.
    pub(crate) fn get(&self, handle: usize) -> Option<Arc<T>> {
        self.lock()
            .iter()
            .find(|e| e.0 == handle)
            .map(|e| e.1.clone())
    }

    /// Removes an object; returns it if the handle was live.
    pub(crate) fn remove(&self, handle: usize) -> Option<Arc<T>> {
        let mut items = self.lock();
        let i = items.iter().position(|e| e.0 == handle)?;
        Some(items.swap_remove(i).1)
    }

    /// Removes every object for which `pred` holds.
    pub(crate) fn remove_if(&self, mut pred: impl FnMut(&T) -> bool) {
        self.lock().retain(|e| !pred(&e.1));
    }

    /// A snapshot of the live objects (allocates; not for steady-state paths).
    pub(crate) fn snapshot(&self) -> Vec<Arc<T>> {
        self.lock().iter().map(|e| e.1.clone()).collect()
    }
}
