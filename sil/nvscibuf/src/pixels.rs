//! `NvSciBufObjGetPixels` / `NvSciBufObjPutPixels`: plane-by-plane copies between an
//! image buffer and the caller's planes, row by row with the reconciled `PlanePitch` on
//! the buffer side and the caller's pitch on the other.
//!
//! Pixel (x, y) of plane p is at `PlaneOffset[p] + (TopPadding[p] + y) · PlanePitch[p] +
//! (LeftPadding[p] + x) · PlaneBitsPerPixel[p] / 8` in the buffer (padding surrounds the
//! pixels: `sil/README.md`, "Images").

use std::ffi::c_void;

use nvsci_sys::*;

use crate::attr::{type_bit, type_set};
use crate::ffi;
use crate::image;
use crate::keys;
use crate::obj::{lookup, obj_slot};

const BAD: NvSciError = NvSciError_BadParameter;

/// One plane copy, checked.
struct Copy {
    /// Buffer offset of the first pixel of the first row.
    buf_off: usize,
    /// Buffer pitch.
    buf_pitch: usize,
    /// The caller's plane.
    user: *mut u8,
    /// The caller's pitch.
    user_pitch: usize,
    /// Bytes per row.
    row: usize,
    /// Rows.
    rows: usize,
}

/// Checks the arguments and copies (`put`: from the caller into the buffer).
///
/// # Safety
/// `rect` is NULL or readable; `ptrs`, `sizes`, `pitches` are NULL or hold one entry per
/// plane of the image; each plane pointer is valid for its size (writable for `get`).
unsafe fn pixels(
    obj: NvSciBufObj,
    rect: *const NvSciBufRect,
    ptrs: *const *mut u8,
    sizes: *const u32,
    pitches: *const u32,
    put: bool,
) -> NvSciError {
    let (Some((e, core)), Some(slot)) = (lookup(obj), obj_slot(obj)) else {
        return BAD;
    };
    if !ffi::usable(ptrs) || !ffi::usable(sizes) || !ffi::usable(pitches) {
        return BAD;
    }
    if type_set(&slot) & type_bit(NvSciBufType_Image) == 0 || !core.need_cpu {
        return BAD;
    }
    if put && e.perm != NvSciBufAccessPerm_ReadWrite.0 {
        return BAD;
    }
    let Some((planes, lay, block, interlaced)) = image::stored(&slot) else {
        return NvSciError_NotSupported;
    };
    if block || interlaced {
        // Block-linear tiling and the field order are not public: "an image that this
        // API does not understand".
        return NvSciError_NotSupported;
    }
    let n = planes.len();
    // SAFETY: the caller guarantees one readable entry per plane (NULL refused above).
    let (Some(ptrs), Some(sizes), Some(pitches)) = (
        unsafe { ffi::slice(ptrs, n) },
        unsafe { ffi::slice(sizes, n) },
        unsafe { ffi::slice(pitches, n) },
    ) else {
        return BAD;
    };
    // SAFETY: the caller passes NULL or a readable rectangle.
    let rect = unsafe { ffi::read(rect) };
    if rect.is_some()
        && slot
            .get(keys::SURF_TYPE)
            .is_some_and(|v| v.as_u32() == NvSciSurfType_YUV.0)
    {
        return BAD;
    }
    let mut copies = Vec::with_capacity(n);
    for (i, (p, o)) in planes.iter().zip(&lay.planes).enumerate() {
        let r = rect.unwrap_or(NvSciBufRect {
            x0: 0,
            y0: 0,
            x1: u64::from(p.width),
            y1: u64::from(p.height),
        });
        if r.x0 > r.x1 || r.y0 > r.y1 || r.x1 > u64::from(p.width) || r.y1 > u64::from(p.height) {
            return BAD;
        }
        let bytes_pp = u64::from(o.bpp / 8);
        let row = (r.x1 - r.x0) * bytes_pp;
        let rows = r.y1 - r.y0;
        let (size, pitch) = (u64::from(sizes[i]), u64::from(pitches[i]));
        if ptrs[i].is_null() || size == 0 || pitch == 0 || row > pitch || pitch * rows > size {
            return BAD;
        }
        let [top, _, left, _] = p.pad;
        let start = (top + r.y0)
            .checked_mul(u64::from(o.pitch))
            .and_then(|v| v.checked_add((left + r.x0) * bytes_pp))
            .and_then(|v| v.checked_add(o.offset));
        let last = rows
            .checked_sub(1)
            .map_or(Some(0), |l| l.checked_mul(u64::from(o.pitch)));
        let end = start
            .zip(last)
            .and_then(|(s, l)| s.checked_add(l)?.checked_add(row));
        match end {
            Some(end) if end <= core.alloc_size() => {}
            _ => return NvSciError_NotSupported,
        }
        copies.push(Copy {
            buf_off: start.unwrap_or(0) as usize,
            buf_pitch: o.pitch as usize,
            user: ptrs[i],
            user_pitch: pitch as usize,
            row: row as usize,
            rows: rows as usize,
        });
    }
    // The caller's planes may overlap neither each other nor the buffer.
    let mut ranges: Vec<(usize, usize)> = ptrs
        .iter()
        .zip(sizes)
        .map(|(p, s)| (p.addr(), p.addr().saturating_add(*s as usize)))
        .collect();
    let base = core.ptr();
    ranges.push((base.addr(), base.addr() + core.alloc_size() as usize));
    for (i, a) in ranges.iter().enumerate() {
        if ranges[..i].iter().any(|b| a.0 < b.1 && b.0 < a.1) {
            return BAD;
        }
    }
    for c in copies {
        for y in 0..c.rows {
            // SAFETY: the buffer range was checked against the allocation above; the
            // caller's plane holds `pitch · rows` bytes (checked against its size); the
            // two do not overlap.
            unsafe {
                let b = base.add(c.buf_off + y * c.buf_pitch);
                let u = c.user.add(y * c.user_pitch);
                if put {
                    std::ptr::copy_nonoverlapping(u.cast_const(), b, c.row);
                } else {
                    std::ptr::copy_nonoverlapping(b.cast_const(), u, c.row);
                }
            }
        }
    }
    NvSciError_Success
}

/// Copies an image's pixels (all of them, or `rect` of every plane) into the caller's
/// planes. `BadParameter` for: an unknown object; NULL arrays; a NULL plane pointer, a
/// zero size or pitch; a list that is not an image; no CPU access; a `rect` on a YUV
/// surface; a `rect` outside a plane or reversed; a row wider than the caller's pitch; a
/// plane size below pitch × rows; planes overlapping each other or the buffer.
/// `NotSupported` for block-linear and interlaced images.
///
/// # Safety
/// `rect` is NULL or readable; `dstPtrs`, `dstPtrSizes`, `dstPitches` are NULL or hold
/// one entry per plane; each plane pointer is writable for its size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjGetPixels(
    bufObj: NvSciBufObj,
    rect: *const NvSciBufRect,
    dstPtrs: *mut *mut c_void,
    dstPtrSizes: *const u32,
    dstPitches: *const u32,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee.
    unsafe {
        pixels(
            bufObj,
            rect,
            dstPtrs.cast_const().cast(),
            dstPtrSizes,
            dstPitches,
            false,
        )
    }
}

/// Copies the caller's planes into an image; as [`NvSciBufObjGetPixels`], and the handle
/// must be ReadWrite (else `BadParameter`).
///
/// # Safety
/// As [`NvSciBufObjGetPixels`], each plane pointer readable for its size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn NvSciBufObjPutPixels(
    bufObj: NvSciBufObj,
    rect: *const NvSciBufRect,
    srcPtrs: *mut *const c_void,
    srcPtrSizes: *const u32,
    srcPitches: *const u32,
) -> NvSciError {
    // SAFETY: forwarded caller guarantee (the source planes are only read).
    unsafe {
        pixels(
            bufObj,
            rect,
            srcPtrs.cast_const().cast(),
            srcPtrSizes,
            srcPitches,
            true,
        )
    }
}
