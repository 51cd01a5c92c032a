//! Checked access to the pointers C callers pass in.
//!
//! NULL and misaligned pointers are refused (the callers turn that into
//! `NvSciError_BadParameter`); a non-NULL pointer must be valid, as in C.

/// Writes `v` to `*p`; `false` for NULL or misaligned `p`.
///
/// # Safety
/// `p` is NULL or valid for writes of a `T`.
pub(crate) unsafe fn write<T>(p: *mut T, v: T) -> bool {
    if p.is_null() || !p.is_aligned() {
        return false;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees it is writable.
    unsafe { p.write(v) };
    true
}

/// The slice `p[..n]`; `None` for NULL or misaligned `p`.
///
/// # Safety
/// `p` is NULL or valid for reads of `n` elements for `'a`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, n: usize) -> Option<&'a [T]> {
    if p.is_null() || !p.is_aligned() {
        return None;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees `n` readable elements.
    Some(unsafe { std::slice::from_raw_parts(p, n) })
}

/// The mutable slice `p[..n]`; `None` for NULL or misaligned `p`.
///
/// # Safety
/// `p` is NULL or valid for reads and writes of `n` elements for `'a`, not aliased.
pub(crate) unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> Option<&'a mut [T]> {
    if p.is_null() || !p.is_aligned() {
        return None;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees `n` exclusive elements.
    Some(unsafe { std::slice::from_raw_parts_mut(p, n) })
}
