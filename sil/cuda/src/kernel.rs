//! Kernel launches: decoding `kernelParams` by the kernel's `KernelSig`, and running the
//! reference model on slices built from device pointers (host addresses) after checking that
//! every range lies in memory the SIL knows.

use core::ffi::c_void;

use cuda_sys::*;
use orin_exec_kernels::{KernelSig, ParamKind, PostprocessParams};

use crate::CuResult;
use crate::memory::{self, Region, check_access};

/// Most parameters a kernel may have.
pub(crate) const MAX_PARAMS: usize = 16;

/// The kernels that have a reference model here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KernelKind {
    /// `aeb_preprocess(src, dst, src_w, src_h)`.
    AebPreprocess,
    /// `aeb_postprocess(map, map_w, map_h, threshold, lane_x0, lane_x1, row_scale,
    /// row_offset, horizon, fh, out)`.
    AebPostprocess,
    /// `stamp_globaltimer(slot)`.
    StampGlobaltimer,
    /// `fill_pattern_u32(dst, n, seed)`.
    FillPatternU32,
    /// `saxpy_f32(a, x, y, n)`.
    SaxpyF32,
}

use ParamKind::{DevPtr, F32, I32, U32};

impl KernelKind {
    const ALL: [(KernelKind, &'static str, &'static [ParamKind]); 5] = [
        (
            KernelKind::AebPreprocess,
            "aeb_preprocess",
            &[DevPtr, DevPtr, U32, U32],
        ),
        (
            KernelKind::AebPostprocess,
            "aeb_postprocess",
            &[DevPtr, U32, U32, I32, U32, U32, F32, F32, F32, F32, DevPtr],
        ),
        (KernelKind::StampGlobaltimer, "stamp_globaltimer", &[DevPtr]),
        (
            KernelKind::FillPatternU32,
            "fill_pattern_u32",
            &[DevPtr, U32, U32],
        ),
        (
            KernelKind::SaxpyF32,
            "saxpy_f32",
            &[F32, DevPtr, DevPtr, U32],
        ),
    ];

    /// The kind for a kernel name that has a signature in `orin_exec_kernels::SIGNATURES`
    /// equal to the one this module decodes; `None` otherwise.
    pub(crate) fn from_signature(name: &str) -> Option<Self> {
        let sig = orin_exec_kernels::signature(name)?;
        let &(kind, _, params) = Self::ALL.iter().find(|e| e.1 == name)?;
        (sig.params == params && params.len() <= MAX_PARAMS).then_some(kind)
    }

    /// The kernel's signature.
    pub(crate) fn sig(self) -> &'static KernelSig {
        let name = Self::ALL.iter().find(|e| e.0 == self).map_or("", |e| e.1);
        // `from_signature` only creates kinds whose signature exists.
        orin_exec_kernels::signature(name).unwrap_or(&orin_exec_kernels::SIGNATURES[0])
    }
}

/// Decoded parameter values, each widened to 64 bits (f32 as its bits).
pub(crate) type Args = [u64; MAX_PARAMS];

/// Reads `kernelParams` by the kernel's signature: `kernelParams[i]` points to a value of
/// parameter `i`'s kind. NULL array (with parameters) or NULL entry: `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `kernel_params` must be NULL or valid for `sig.params.len()` pointers, each non-NULL one
/// valid for a read of its parameter's size.
pub(crate) unsafe fn decode(sig: &KernelSig, kernel_params: *mut *mut c_void) -> CuResult<Args> {
    let mut args = [0u64; MAX_PARAMS];
    if sig.params.is_empty() {
        return Ok(args);
    }
    if kernel_params.is_null() || sig.params.len() > MAX_PARAMS {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    for (i, (kind, a)) in sig.params.iter().zip(args.iter_mut()).enumerate() {
        // SAFETY: the array holds one pointer per parameter (caller contract).
        let p = unsafe { *kernel_params.add(i) };
        if p.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: `p` points to a value of this parameter's kind (caller contract); the reads
        // are unaligned-safe.
        *a = unsafe {
            match kind {
                ParamKind::DevPtr | ParamKind::U64 => p.cast::<u64>().read_unaligned(),
                ParamKind::U32 | ParamKind::I32 | ParamKind::F32 => {
                    u64::from(p.cast::<u32>().read_unaligned())
                }
                _ => return Err(CUDA_ERROR_INVALID_VALUE),
            }
        };
    }
    Ok(args)
}

/// A device buffer one launch touches.
#[derive(Clone, Copy)]
struct Buf {
    ptr: u64,
    bytes: u64,
    align: u64,
    write: bool,
}

impl Buf {
    fn of<T>(ptr: u64, elems: u64, write: bool) -> CuResult<Self> {
        let bytes = elems
            .checked_mul(size_of::<T>() as u64)
            .ok_or(CUDA_ERROR_ILLEGAL_ADDRESS)?;
        Ok(Buf {
            ptr,
            bytes,
            align: align_of::<T>() as u64,
            write,
        })
    }

    fn overlaps(&self, o: &Buf) -> bool {
        self.bytes != 0
            && o.bytes != 0
            && self.ptr < o.ptr.saturating_add(o.bytes)
            && o.ptr < self.ptr.saturating_add(self.bytes)
    }
}

/// Checks every buffer against the known regions, then that no written buffer overlaps
/// another buffer (the kernels' pointers are `__restrict__`): overlap is
/// `CUDA_ERROR_LAUNCH_FAILED`.
fn check_bufs(regions: &[Region], bufs: &[Buf]) -> CuResult<()> {
    for b in bufs {
        check_access(regions, b.ptr, b.bytes, b.align, b.write)?;
    }
    for (i, a) in bufs.iter().enumerate() {
        for b in &bufs[i + 1..] {
            if (a.write || b.write) && a.overlaps(b) {
                return Err(CUDA_ERROR_LAUNCH_FAILED);
            }
        }
    }
    Ok(())
}

/// A shared slice over a checked buffer.
///
/// # Safety
/// `b` passed [`check_bufs`] against the region table the caller still holds, with `T`'s
/// alignment, and nothing else writes the range while the slice lives.
unsafe fn slice<'a, T>(b: &Buf) -> &'a [T] {
    if b.bytes == 0 {
        return &[];
    }
    // SAFETY: caller contract: in one live region, aligned for T, no concurrent writer.
    unsafe {
        core::slice::from_raw_parts(
            b.ptr as usize as *const T,
            (b.bytes / size_of::<T>() as u64) as usize,
        )
    }
}

/// An exclusive slice over a checked, written buffer.
///
/// # Safety
/// As [`slice`], and no other reference to the range exists while the slice lives.
unsafe fn slice_mut<'a, T>(b: &Buf) -> &'a mut [T] {
    if b.bytes == 0 {
        return &mut [];
    }
    // SAFETY: caller contract: in one live writable region, aligned, exclusive.
    unsafe {
        core::slice::from_raw_parts_mut(
            b.ptr as usize as *mut T,
            (b.bytes / size_of::<T>() as u64) as usize,
        )
    }
}

fn f32_of(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

/// Runs one launch's reference model at stream time `now_ns`. Holds the region table's read
/// lock while the model runs, so the memory cannot be freed underneath it.
///
/// Errors (sticky on the stream): `CUDA_ERROR_ILLEGAL_ADDRESS` for a buffer outside known
/// memory (or a write into read-only registered memory), `CUDA_ERROR_MISALIGNED_ADDRESS` for a
/// misaligned one, `CUDA_ERROR_LAUNCH_FAILED` for overlapping `__restrict__` buffers or a model
/// refusal.
pub(crate) fn run(kind: KernelKind, a: &Args, now_ns: u64) -> CuResult<()> {
    let regions = memory::read();
    let fail = |_| CUDA_ERROR_LAUNCH_FAILED;
    match kind {
        KernelKind::AebPreprocess => {
            let (w, h) = (a[2] as u32, a[3] as u32);
            let src = Buf::of::<u8>(a[0], u64::from(w) * u64::from(h), false)?;
            let dst = Buf::of::<i8>(a[1], u64::from(w / 2) * u64::from(h / 2), true)?;
            check_bufs(&regions, &[src, dst])?;
            // SAFETY: both checked against the held table, disjoint; the runtime's schedule
            // guarantees no concurrent CPU access to a buffer a kernel uses.
            let (s, d) = unsafe { (slice::<u8>(&src), slice_mut::<i8>(&dst)) };
            orin_exec_kernels::aeb_preprocess(s, d, w, h).map_err(fail)
        }
        KernelKind::AebPostprocess => {
            let (w, h) = (a[1] as u32, a[2] as u32);
            let map = Buf::of::<i8>(a[0], u64::from(w) * u64::from(h), false)?;
            let out = Buf::of::<i32>(a[10], 4, true)?;
            check_bufs(&regions, &[map, out])?;
            let params = PostprocessParams {
                threshold: a[3] as u32 as i32,
                lane_x0: a[4] as u32,
                lane_x1: a[5] as u32,
                row_scale: f32_of(a[6]),
                row_offset: f32_of(a[7]),
                horizon: f32_of(a[8]),
                fh: f32_of(a[9]),
            };
            // SAFETY: as above.
            let (m, o) = unsafe { (slice::<i8>(&map), slice_mut::<i32>(&out)) };
            let o: &mut [i32; 4] = o.try_into().map_err(|_| CUDA_ERROR_LAUNCH_FAILED)?;
            orin_exec_kernels::aeb_postprocess(m, w, h, &params, o).map_err(fail)
        }
        KernelKind::StampGlobaltimer => {
            let slot = Buf::of::<u64>(a[0], 1, true)?;
            check_bufs(&regions, &[slot])?;
            // SAFETY: as above.
            let s = unsafe { slice_mut::<u64>(&slot) };
            if let Some(s) = s.first_mut() {
                orin_exec_kernels::stamp_globaltimer(s, now_ns);
            }
            Ok(())
        }
        KernelKind::FillPatternU32 => {
            let n = a[1] as u32;
            let dst = Buf::of::<u32>(a[0], u64::from(n), true)?;
            check_bufs(&regions, &[dst])?;
            // SAFETY: as above.
            let d = unsafe { slice_mut::<u32>(&dst) };
            orin_exec_kernels::fill_pattern_u32(d, n, a[2] as u32).map_err(fail)
        }
        KernelKind::SaxpyF32 => {
            let n = a[3] as u32;
            let x = Buf::of::<f32>(a[1], u64::from(n), false)?;
            let y = Buf::of::<f32>(a[2], u64::from(n), true)?;
            check_bufs(&regions, &[x, y])?;
            // SAFETY: as above.
            let (xs, ys) = unsafe { (slice::<f32>(&x), slice_mut::<f32>(&y)) };
            orin_exec_kernels::saxpy_f32(f32_of(a[0]), xs, ys, n).map_err(fail)
        }
    }
}

/// Covers: REQ-GPU-008
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signature_has_a_model() {
        for s in orin_exec_kernels::SIGNATURES {
            let k = KernelKind::from_signature(s.name).unwrap_or_else(|| panic!("{}", s.name));
            assert_eq!(k.sig().name, s.name);
        }
        assert_eq!(KernelKind::from_signature("nope"), None);
    }

    #[test]
    fn decode_by_signature() {
        let sig = KernelKind::SaxpyF32.sig();
        let mut a = 2.5f32;
        let mut x = 0x1000u64;
        let mut y = 0x2000u64;
        let mut n = 7u32;
        let mut params: [*mut c_void; 4] = [
            (&raw mut a).cast(),
            (&raw mut x).cast(),
            (&raw mut y).cast(),
            (&raw mut n).cast(),
        ];
        // SAFETY: one valid pointer per parameter.
        let args = unsafe { decode(sig, params.as_mut_ptr()) }.expect("decode");
        assert_eq!(f32_of(args[0]), 2.5);
        assert_eq!(&args[1..4], &[0x1000, 0x2000, 7]);
        params[2] = core::ptr::null_mut();
        // SAFETY: as above (one NULL entry).
        let r = unsafe { decode(sig, params.as_mut_ptr()) };
        assert_eq!(r, Err(CUDA_ERROR_INVALID_VALUE));
        // SAFETY: NULL array.
        let r = unsafe { decode(sig, core::ptr::null_mut()) };
        assert_eq!(r, Err(CUDA_ERROR_INVALID_VALUE));
    }

    #[test]
    fn restrict_overlap_is_refused() {
        let regions = [Region {
            start: 0x1000,
            len: 0x1000,
            writable: true,
            kind: memory::Kind::Registered,
        }];
        let a = Buf::of::<u8>(0x1000, 16, false).expect("buf");
        let b = Buf::of::<i8>(0x100f, 16, true).expect("buf");
        let c = Buf::of::<i8>(0x1010, 16, true).expect("buf");
        assert_eq!(check_bufs(&regions, &[a, b]), Err(CUDA_ERROR_LAUNCH_FAILED));
        assert_eq!(check_bufs(&regions, &[a, c]), Ok(()));
        assert_eq!(check_bufs(&regions, &[a, a]), Ok(()));
    }
}
