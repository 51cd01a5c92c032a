//! A fixed-capacity pool with typed handles.

use core::marker::PhantomData;

use crate::error::{Error, Result};

/// A handle to an item of a [`Pool`] of `T`.
pub struct Handle<T> {
    index: u16,
    _kind: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// The slot index.
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> core::fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Handle({})", self.index)
    }
}

/// Up to `N` items of `T`, stored inline. Items are never removed one by one: the pool is
/// filled at init and emptied as a whole at shutdown.
///
/// ```
/// use orin_exec::mem::Pool;
/// let mut pool: Pool<&str, 2> = Pool::new("pool of names");
/// let a = pool.insert("camera").unwrap();
/// pool.insert("image").unwrap();
/// assert!(pool.insert("third").is_err());
/// assert_eq!(pool.get(a), Some(&"camera"));
/// ```
pub struct Pool<T, const N: usize> {
    items: heapless::Vec<T, N>,
    what: &'static str,
}

impl<T, const N: usize> Pool<T, N> {
    /// An empty pool; `what` names its items in capacity errors.
    pub const fn new(what: &'static str) -> Self {
        Pool {
            items: heapless::Vec::new(),
            what,
        }
    }

    /// Add an item.
    pub fn insert(&mut self, item: T) -> Result<Handle<T>> {
        let index = self.items.len();
        self.items.push(item).map_err(|_| Error::Capacity {
            what: self.what,
            limit: N as u32,
        })?;
        Ok(Handle {
            index: index as u16,
            _kind: PhantomData,
        })
    }

    /// The item behind a handle.
    pub fn get(&self, h: Handle<T>) -> Option<&T> {
        self.items.get(h.index())
    }

    /// The item behind a handle, mutably.
    pub fn get_mut(&mut self, h: Handle<T>) -> Option<&mut T> {
        self.items.get_mut(h.index())
    }

    /// Items in insertion order.
    pub fn iter(&self) -> core::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Items in insertion order, mutably.
    pub fn iter_mut(&mut self) -> core::slice::IterMut<'_, T> {
        self.items.iter_mut()
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Remove every item, last first, handing each to `release`.
    pub fn drain_reverse(&mut self, mut release: impl FnMut(T)) {
        while let Some(item) = self.items.pop() {
            release(item);
        }
    }
}
