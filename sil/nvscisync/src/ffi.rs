//! Checked access to the pointers C callers pass in.
//!
//! NULL and misaligned pointers are refused (the callers turn that into
//! `NvSciError_BadParameter`); a non-NULL pointer must be valid, as in C.

use nvsci_sys::{NvSciError, NvSciError_BadParameter, NvSciSyncFenceMaxTimeout};

/// Reads `*p`.
///
/// # Safety
/// `p` is NULL or valid for reads of a `T`.
pub(crate) unsafe fn read<T: Copy>(p: *const T) -> Option<T> {
    if p.is_null() || !p.is_aligned() {
        return None;
    }
    // SAFETY: non-NULL and aligned; the caller guarantees it is readable.
    Some(unsafe { p.read() })
}

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

/// A fence-wait timeout in µs as ns (`u64::MAX` for −1), or `BadParameter` outside
/// `[-1, NvSciSyncFenceMaxTimeout]`.
pub(crate) fn timeout_ns(timeout_us: i64) -> Result<u64, NvSciError> {
    if timeout_us == -1 {
        Ok(u64::MAX)
    } else if (0..=NvSciSyncFenceMaxTimeout).contains(&timeout_us) {
        Ok(timeout_us as u64 * 1000)
    } else {
        Err(NvSciError_BadParameter)
    }
}
