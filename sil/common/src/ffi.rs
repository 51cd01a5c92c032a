//! Checked access to the pointers C callers pass in, and status mapping.
//!
//! NULL and misaligned pointers are refused (`None` / `false`; the callers turn that into
//! their library's "bad parameter" status); a non-NULL pointer must be valid, as in C.
//! Nothing here allocates.
//!
//! ```
//! use sil_common::ffi;
//! let mut x = 0u32;
//! // SAFETY: `x` is a live local.
//! assert!(unsafe { ffi::write(&mut x, 7) });
//! // SAFETY: NULL is refused before any access.
//! assert!(!unsafe { ffi::write(std::ptr::null_mut::<u32>(), 7) });
//! assert_eq!(ffi::Status { ok: 0, bad: 4 }.of(Err(9)), 9);
//! ```

use std::ffi::c_void;

/// Whether `n` elements of `T` fit in one Rust slice (at most `isize::MAX` bytes): a
/// caller's count beyond that is refused before any slice is made.
pub fn fits<T>(n: usize) -> bool {
    n.checked_mul(size_of::<T>())
        .is_some_and(|b| b <= isize::MAX as usize)
}

/// Whether `p` is non-NULL and aligned for a `T`.
pub fn usable<T>(p: *const T) -> bool {
    !p.is_null() && p.is_aligned()
}

/// Reads `*p`; `None` for NULL or misaligned `p`.
///
/// # Safety
/// `p` is NULL or valid for reads of a `T`.
pub unsafe fn read<T: Copy>(p: *const T) -> Option<T> {
    if !usable(p) {
        return None;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees it is readable.
    Some(unsafe { p.read() })
}

/// Writes `v` to `*p`; `false` for NULL or misaligned `p`.
///
/// # Safety
/// `p` is NULL or valid for writes of a `T`.
pub unsafe fn write<T>(p: *mut T, v: T) -> bool {
    if !usable(p) {
        return false;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees it is writable.
    unsafe { p.write(v) };
    true
}

/// The slice `p[..n]`; `None` for NULL or misaligned `p` or a count too big for a slice.
///
/// # Safety
/// `p` is NULL or valid for reads of `n` elements for `'a`.
pub unsafe fn slice<'a, T>(p: *const T, n: usize) -> Option<&'a [T]> {
    if !usable(p) || !fits::<T>(n) {
        return None;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees `n` readable elements.
    Some(unsafe { std::slice::from_raw_parts(p, n) })
}

/// The mutable slice `p[..n]`; `None` for NULL or misaligned `p` or a count too big for a
/// slice.
///
/// # Safety
/// `p` is NULL or valid for reads and writes of `n` elements for `'a`, not aliased.
pub unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> Option<&'a mut [T]> {
    if !usable(p) || !fits::<T>(n) {
        return None;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees `n` exclusive elements.
    Some(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// The non-empty array `p[..n]`: `None` for `n` 0 or a NULL or misaligned `p`.
///
/// # Safety
/// `p` is NULL or valid for reads of `n` elements for `'a`.
pub unsafe fn array<'a, T>(p: *const T, n: usize) -> Option<&'a [T]> {
    // SAFETY: forwarded caller guarantee.
    (n != 0).then(|| unsafe { slice(p, n) }).flatten()
}

/// The non-empty mutable array `p[..n]`: `None` for `n` 0 or a NULL or misaligned `p`.
///
/// # Safety
/// `p` is NULL or valid for reads and writes of `n` elements for `'a`, not aliased.
pub unsafe fn array_mut<'a, T>(p: *mut T, n: usize) -> Option<&'a mut [T]> {
    // SAFETY: forwarded caller guarantee.
    (n != 0).then(|| unsafe { slice_mut(p, n) }).flatten()
}

/// The `n` bytes at `p` (any alignment); `None` for NULL `p` or more than `isize::MAX` bytes.
///
/// # Safety
/// `p` is NULL or valid for reads of `n` bytes for `'a`.
pub unsafe fn bytes<'a>(p: *const c_void, n: usize) -> Option<&'a [u8]> {
    if p.is_null() || !fits::<u8>(n) {
        return None;
    }
    // SAFETY: non-NULL; the caller guarantees `n` readable bytes (u8 needs no alignment).
    Some(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) })
}

/// A library's status values for the helpers that answer with a status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status<E> {
    /// Success.
    pub ok: E,
    /// A bad (NULL, misaligned or invalid) parameter.
    pub bad: E,
}

impl<E: Copy> Status<E> {
    /// `ok` for `Ok(())`, else the error.
    pub fn of(&self, r: Result<(), E>) -> E {
        match r {
            Ok(()) => self.ok,
            Err(e) => e,
        }
    }

    /// Writes `v` to `*p`: `ok`, or `bad` for NULL or misaligned `p`.
    ///
    /// # Safety
    /// `p` is NULL or valid for writes of a `T`.
    pub unsafe fn write<T>(&self, p: *mut T, v: T) -> E {
        // SAFETY: forwarded caller guarantee.
        if unsafe { write(p, v) } {
            self.ok
        } else {
            self.bad
        }
    }
}
