//! PVA memory: buffers from `CupvaMemAlloc` and NvSciBuf imports (`CupvaMemImport`). A SIL
//! PVA pointer is the host address of the memory (the SIL PVA runs on the CPU), so
//! `CupvaMemGetHostPointer` is the identity on known memory. Models reach the memory through
//! [`RegionMemory`], which refuses accesses outside one known buffer or writes to read-only
//! memory.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::sync::{RwLock, RwLockReadGuard};

use nvsci_sys::NvSciBufObj;
use orin_exec_kernel_model::{
    Access, Borrowed, LaunchMemory, MAX_PARAMS, ModelError, check_disjoint,
};

use crate::code::{self, Code};
use crate::nvsci;

/// Alignment of `CupvaMemAlloc` buffers (a page, like the SIL NvSciBuf).
const ALIGN: usize = 4096;

/// Who owns a region's bytes.
enum Owner {
    /// `CupvaMemAlloc`: freed with this layout.
    Alloc(Layout),
    /// `CupvaMemImport`: our duplicate of the buffer object keeps the memory alive.
    Import(NvSciBufObj),
}

/// One buffer the PVA may touch.
pub(crate) struct Region {
    base: usize,
    len: usize,
    read_only: bool,
    owner: Owner,
}

// SAFETY: the buffer object is an NvSciBuf handle (thread-safe by NvSciBuf's contract); the
// addresses are plain numbers; the memory is only reached through the checked borrows below.
unsafe impl Send for Region {}
// SAFETY: as above.
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        match self.owner {
            // SAFETY: allocated in `alloc` with this layout, freed once (the region is gone).
            Owner::Alloc(l) => unsafe { dealloc(self.base as *mut u8, l) },
            // SAFETY: our duplicate from `import`, freed once.
            Owner::Import(obj) => unsafe { nvsci::buf_obj_free(obj) },
        }
    }
}

impl Region {
    /// Whether `p` lies inside.
    pub(crate) fn contains(&self, p: usize) -> bool {
        self.base <= p && p < self.base + self.len
    }

    /// One past the last byte.
    pub(crate) fn end(&self) -> usize {
        self.base + self.len
    }
}

static REGIONS: RwLock<Vec<Region>> = RwLock::new(Vec::new());

fn write() -> std::sync::RwLockWriteGuard<'static, Vec<Region>> {
    REGIONS.write().unwrap_or_else(|e| e.into_inner())
}

/// The region table, read-locked (the worker holds it while a model runs, so no buffer is
/// freed under it).
pub(crate) fn read() -> RwLockReadGuard<'static, Vec<Region>> {
    REGIONS.read().unwrap_or_else(|e| e.into_inner())
}

/// Allocates `size` zeroed bytes: `CUPVA_INVALID_ARGUMENT` for 0 or a size no allocation
/// can have, `CUPVA_INVALID_STATE` when memory runs out.
pub(crate) fn alloc(size: usize, read_only: bool) -> Result<usize, Code> {
    let layout = Layout::from_size_align(size, ALIGN).map_err(|_| code::INVALID_ARGUMENT)?;
    if size == 0 {
        return Err(code::INVALID_ARGUMENT);
    }
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { alloc_zeroed(layout) };
    if p.is_null() {
        return Err(code::INVALID_STATE);
    }
    write().push(Region {
        base: p as usize,
        len: size,
        read_only,
        owner: Owner::Alloc(layout),
    });
    Ok(p as usize)
}

/// Registers an imported buffer (`dup` is our duplicate handle; the region frees it).
pub(crate) fn import(dup: NvSciBufObj, ptr: *mut u8, size: u64, read_only: bool) -> usize {
    write().push(Region {
        base: ptr as usize,
        len: size as usize,
        read_only,
        owner: Owner::Import(dup),
    });
    ptr as usize
}

/// Frees the buffer that starts at `ptr`; `false` when there is none.
pub(crate) fn free(ptr: usize) -> bool {
    let mut t = write();
    match t.iter().position(|r| r.base == ptr) {
        Some(i) => {
            t.swap_remove(i);
            true
        }
        None => false,
    }
}

/// Whether `ptr` lies inside a known buffer.
pub(crate) fn known(ptr: usize) -> bool {
    read().iter().any(|r| r.contains(ptr))
}

/// [`LaunchMemory`] over the region table (read-locked by the caller for the whole run); it
/// remembers the ranges handed out for writing (what a corrupt-output fault flips).
pub(crate) struct RegionMemory<'t> {
    regions: &'t [Region],
    /// Written ranges (address, length), first `n_written`.
    pub(crate) written: [(usize, usize); MAX_PARAMS],
    /// Number of written ranges.
    pub(crate) n_written: usize,
}

impl<'t> RegionMemory<'t> {
    /// Over the locked table.
    pub(crate) fn new(regions: &'t [Region]) -> Self {
        RegionMemory {
            regions,
            written: [(0, 0); MAX_PARAMS],
            n_written: 0,
        }
    }
}

impl RegionMemory<'_> {
    fn check(&self, a: &Access) -> Result<(), ModelError> {
        if a.bytes == 0 {
            return Ok(());
        }
        if a.align > 1 && !a.addr.is_multiple_of(a.align as u64) {
            return Err(ModelError::Misaligned {
                index: a.index,
                addr: a.addr,
                align: a.align,
            });
        }
        let end = a.end();
        let r = self
            .regions
            .iter()
            .find(|r| r.base as u64 <= a.addr && end <= (r.base + r.len) as u64)
            .ok_or(ModelError::OutOfBounds {
                index: a.index,
                addr: a.addr,
                bytes: a.bytes,
            })?;
        if a.write && r.read_only {
            return Err(ModelError::ReadOnly {
                index: a.index,
                addr: a.addr,
                bytes: a.bytes,
            });
        }
        Ok(())
    }
}

impl LaunchMemory for RegionMemory<'_> {
    fn borrow<'m>(
        &'m mut self,
        accesses: &[Access],
        out: &mut [Option<Borrowed<'m>>],
    ) -> Result<(), ModelError> {
        if out.len() < accesses.len() {
            return Err(ModelError::TooManyBuffers { limit: MAX_PARAMS });
        }
        // Checked here too: the slices below are sound only if written accesses overlap
        // nothing else.
        check_disjoint(accesses)?;
        for a in accesses {
            self.check(a)?;
        }
        for (o, a) in out.iter_mut().zip(accesses) {
            let p = a.addr as usize as *mut u8;
            if a.write && a.bytes > 0 && self.n_written < MAX_PARAMS {
                self.written[self.n_written] = (p as usize, a.bytes);
                self.n_written += 1;
            }
            *o = Some(match (a.bytes, a.write) {
                (0, true) => Borrowed::Write(&mut []),
                (0, false) => Borrowed::Read(&[]),
                // SAFETY: inside one live region (checked), which the read lock the caller
                // holds keeps allocated for 'm; disjoint from every other access (checked);
                // the application keeps its hands off a program's buffers while it runs.
                (n, true) => Borrowed::Write(unsafe { core::slice::from_raw_parts_mut(p, n) }),
                // SAFETY: as above, read only.
                (n, false) => Borrowed::Read(unsafe { core::slice::from_raw_parts(p, n) }),
            });
        }
        Ok(())
    }
}
