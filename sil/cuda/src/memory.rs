//! Memory the SIL GPU may touch: pinned allocations (`cuMemHostAlloc`), host-registered ranges
//! (`cuMemHostRegister`) and mappings of imported external memory
//! (`cuExternalMemoryGetMappedBuffer`). A `CUdeviceptr` is the host address.
//!
//! Stream workers hold the read lock while a kernel model runs, so freeing or unregistering
//! memory waits for the kernel that uses it to finish its model.

use core::ffi::{c_uint, c_void};
use std::alloc::Layout;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use cuda_sys::*;

use crate::driver::{out, require_ctx, require_init};
use crate::error::MISALIGNED_ADDRESS;
use crate::{CuResult, ret};

/// What a region is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `cuMemHostAlloc`; freed with this layout size.
    Pinned {
        /// Size of the allocation (whole pages).
        alloc_size: usize,
    },
    /// `cuMemHostRegister`.
    Registered,
    /// A buffer mapping of imported external memory (`owner` is the external memory handle).
    Mapping {
        /// The `CUexternalMemory` handle value.
        owner: usize,
    },
}

/// A range of host memory the SIL GPU may access.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    /// First byte.
    pub(crate) start: usize,
    /// Length in bytes (> 0).
    pub(crate) len: usize,
    /// False for `CU_MEMHOSTREGISTER_READ_ONLY`.
    pub(crate) writable: bool,
    /// Kind.
    pub(crate) kind: Kind,
}

impl Region {
    fn end(&self) -> usize {
        self.start + self.len
    }

    fn overlaps(&self, start: usize, len: usize) -> bool {
        start < self.end() && self.start < start.saturating_add(len)
    }
}

static REGIONS: RwLock<Vec<Region>> = RwLock::new(Vec::new());

/// The region table for reading (held by a worker while a kernel model runs).
pub(crate) fn read() -> RwLockReadGuard<'static, Vec<Region>> {
    REGIONS.read().unwrap_or_else(|e| e.into_inner())
}

fn write() -> RwLockWriteGuard<'static, Vec<Region>> {
    REGIONS.write().unwrap_or_else(|e| e.into_inner())
}

/// Checks a device access of `len` bytes at `ptr` with `align`: `Ok` for `len == 0`,
/// `CUDA_ERROR_MISALIGNED_ADDRESS` if misaligned, `CUDA_ERROR_ILLEGAL_ADDRESS` unless one
/// region contains the whole range (and is writable for a write).
pub(crate) fn check_access(
    regions: &[Region],
    ptr: u64,
    len: u64,
    align: u64,
    write: bool,
) -> CuResult<()> {
    if len == 0 {
        return Ok(());
    }
    if !ptr.is_multiple_of(align) {
        return Err(MISALIGNED_ADDRESS);
    }
    let end = ptr.checked_add(len).ok_or(CUDA_ERROR_ILLEGAL_ADDRESS)?;
    let ok = regions
        .iter()
        .any(|r| r.start as u64 <= ptr && end <= r.end() as u64 && (r.writable || !write));
    if ok {
        Ok(())
    } else {
        Err(CUDA_ERROR_ILLEGAL_ADDRESS)
    }
}

/// Adds a mapping of external memory.
pub(crate) fn add_mapping(start: usize, len: usize, owner: usize) {
    write().push(Region {
        start,
        len,
        writable: true,
        kind: Kind::Mapping { owner },
    });
}

/// Removes the most recent mapping that starts at `start`.
pub(crate) fn remove_mapping(start: usize) -> CuResult<()> {
    let mut w = write();
    let i = w
        .iter()
        .rposition(|r| r.start == start && matches!(r.kind, Kind::Mapping { .. }))
        .ok_or(CUDA_ERROR_INVALID_VALUE)?;
    w.remove(i);
    Ok(())
}

/// Removes every mapping of one external memory object.
pub(crate) fn remove_mappings_of(owner: usize) {
    write().retain(|r| r.kind != Kind::Mapping { owner });
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 { p as usize } else { 4096 }
}

const HOSTALLOC_FLAGS: c_uint =
    CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
const HOSTREGISTER_FLAGS: c_uint = CU_MEMHOSTREGISTER_PORTABLE
    | CU_MEMHOSTREGISTER_DEVICEMAP
    | CU_MEMHOSTREGISTER_IOMEMORY
    | CU_MEMHOSTREGISTER_READ_ONLY;

/// Allocates `bytesize` bytes of zeroed, page-aligned "pinned" memory (padded to whole pages;
/// the whole padded range is device-accessible). Flags PORTABLE, DEVICEMAP and WRITECOMBINED
/// are accepted (no effect); the device pointer equals the host pointer. `bytesize == 0` is
/// `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `pp` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    bytesize: usize,
    Flags: c_uint,
) -> CUresult {
    ret((|| {
        require_ctx()?;
        if pp.is_null() || bytesize == 0 || Flags & !HOSTALLOC_FLAGS != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let page = page_size();
        let size = bytesize
            .checked_next_multiple_of(page)
            .ok_or(CUDA_ERROR_OUT_OF_MEMORY)?;
        let layout = Layout::from_size_align(size, page).map_err(|_| CUDA_ERROR_OUT_OF_MEMORY)?;
        // SAFETY: `layout` has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(CUDA_ERROR_OUT_OF_MEMORY);
        }
        write().push(Region {
            start: p as usize,
            len: size,
            writable: true,
            kind: Kind::Pinned { alloc_size: size },
        });
        // SAFETY: forwarded caller contract (checked non-null above).
        unsafe { out(pp, p.cast::<c_void>()) }
    })())
}

/// Frees `cuMemHostAlloc` memory; `p` must be the pointer it returned, else
/// `CUDA_ERROR_INVALID_VALUE`. Waits for a kernel model that is running on it.
///
/// # Safety
/// No stream operation may still use the memory (as with the real driver).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    ret((|| {
        require_ctx()?;
        let mut w = write();
        let i = w
            .iter()
            .position(|r| r.start == p as usize && matches!(r.kind, Kind::Pinned { .. }))
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let Kind::Pinned { alloc_size } = w[i].kind else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        w.swap_remove(i);
        drop(w);
        let layout = Layout::from_size_align(alloc_size, page_size())
            .map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: `p` was returned by `alloc_zeroed` with this layout (same size, page
        // alignment) and its region was just removed, so it is freed once.
        unsafe { std::alloc::dealloc(p.cast(), layout) };
        Ok(())
    })())
}

/// The device pointer of pinned or host-registered memory: `p` itself. `Flags` must be 0;
/// `p` must lie inside a pinned allocation or a registered range, else
/// `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `pdptr` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    pdptr: *mut CUdeviceptr,
    p: *mut c_void,
    Flags: c_uint,
) -> CUresult {
    ret((|| {
        require_ctx()?;
        if Flags != 0 || p.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let known = read().iter().any(|r| {
            matches!(r.kind, Kind::Pinned { .. } | Kind::Registered) && r.overlaps(p as usize, 1)
        });
        if !known {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: forwarded caller contract.
        unsafe { out(pdptr, p as CUdeviceptr) }
    })())
}

/// Registers `[p, p + bytesize)` for device access. Overlap with a pinned allocation or another
/// registration: `CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED`. `IOMEMORY`:
/// `CUDA_ERROR_NOT_SUPPORTED`. `READ_ONLY`: kernels and stream writes that write into the range
/// fault with `CUDA_ERROR_ILLEGAL_ADDRESS`.
///
/// # Safety
/// The range must stay valid host memory until `cuMemHostUnregister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostRegister_v2(
    p: *mut c_void,
    bytesize: usize,
    Flags: c_uint,
) -> CUresult {
    ret((|| {
        require_ctx()?;
        if p.is_null() || bytesize == 0 || Flags & !HOSTREGISTER_FLAGS != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // No memory is larger than isize::MAX bytes (what a slice can cover).
        if (p as usize).checked_add(bytesize).is_none() || !sil_common::ffi::fits::<u8>(bytesize) {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        if Flags & CU_MEMHOSTREGISTER_IOMEMORY != 0 {
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        let mut w = write();
        if w.iter().any(|r| {
            matches!(r.kind, Kind::Pinned { .. } | Kind::Registered)
                && r.overlaps(p as usize, bytesize)
        }) {
            return Err(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
        }
        w.push(Region {
            start: p as usize,
            len: bytesize,
            writable: Flags & CU_MEMHOSTREGISTER_READ_ONLY == 0,
            kind: Kind::Registered,
        });
        Ok(())
    })())
}

/// Unregisters the range that starts at `p`; anything else is
/// `CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED`.
///
/// # Safety
/// No stream operation may still use the range.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    ret((|| {
        require_ctx()?;
        let mut w = write();
        let i = w
            .iter()
            .position(|r| r.start == p as usize && r.kind == Kind::Registered)
            .ok_or(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)?;
        w.swap_remove(i);
        Ok(())
    })())
}

/// Frees a mapping made by `cuExternalMemoryGetMappedBuffer` (the only device memory the SIL
/// hands out); anything else is `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// No stream operation may still use the mapping.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    ret((|| {
        require_init()?;
        remove_mapping(dptr as usize)
    })())
}

/// Covers: REQ-GPU-005
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_checks() {
        let regions = [
            Region {
                start: 0x1000,
                len: 0x1000,
                writable: true,
                kind: Kind::Registered,
            },
            Region {
                start: 0x4000,
                len: 0x100,
                writable: false,
                kind: Kind::Registered,
            },
        ];
        assert_eq!(check_access(&regions, 0x1000, 0x1000, 8, true), Ok(()));
        assert_eq!(check_access(&regions, 0x1ff8, 8, 8, true), Ok(()));
        assert_eq!(
            check_access(&regions, 0x1ff8, 9, 1, false),
            Err(CUDA_ERROR_ILLEGAL_ADDRESS)
        );
        assert_eq!(
            check_access(&regions, 0x1004, 8, 8, false),
            Err(MISALIGNED_ADDRESS)
        );
        assert_eq!(check_access(&regions, 0x4000, 4, 4, false), Ok(()));
        assert_eq!(
            check_access(&regions, 0x4000, 4, 4, true),
            Err(CUDA_ERROR_ILLEGAL_ADDRESS)
        );
        assert_eq!(check_access(&regions, 0, 0, 8, true), Ok(()));
        assert_eq!(
            check_access(&regions, u64::MAX - 3, 8, 1, false),
            Err(CUDA_ERROR_ILLEGAL_ADDRESS)
        );
    }
}
