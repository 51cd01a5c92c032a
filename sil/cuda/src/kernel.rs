//! Kernel launches: decoding `kernelParams` by the registered model's parameter kinds, and
//! running the model on the stream's worker with every buffer checked against the memory the
//! SIL knows: a Rust model through [`Launch`] on [`SilMemory`], a C model through its
//! callback and `cuSilLaunchBuffer` on a [`CLaunch`].

use core::cell::Cell;
use core::ffi::{c_int, c_uint, c_void};

use cuda_sys::sil::cuSilKernelLaunch;
use cuda_sys::*;
use orin_exec_kernel_model::{
    Access, Arg, Borrowed, Launch, LaunchMemory, MAX_PARAMS, ModelError, ParamKind, check_disjoint,
};

use crate::error::MISALIGNED_ADDRESS;
use crate::memory::{self, Region, check_access};
use crate::models::{CModel, Model, Registration};
use crate::{CuResult, ret};

/// Raw parameter values, each widened to 64 bits (little-endian reads of the parameter's size).
pub(crate) type Args = [u64; MAX_PARAMS];

/// Grid and block of a launch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub(crate) grid: [u32; 3],
    pub(crate) block: [u32; 3],
}

/// Reads `kernelParams` by the model's parameter kinds: `kernelParams[i]` points to a value of
/// parameter `i`'s kind. NULL array (with parameters) or NULL entry: `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `kernel_params` must be NULL or valid for `kinds.len()` pointers, each non-NULL one valid
/// for a read of its parameter's size.
pub(crate) unsafe fn decode(
    kinds: &[ParamKind],
    kernel_params: *mut *mut c_void,
) -> CuResult<Args> {
    let mut args = [0u64; MAX_PARAMS];
    if kinds.is_empty() {
        return Ok(args);
    }
    if kernel_params.is_null() || kinds.len() > MAX_PARAMS {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    for (i, (kind, a)) in kinds.iter().zip(args.iter_mut()).enumerate() {
        // SAFETY: the array holds one pointer per parameter (caller contract).
        let p = unsafe { *kernel_params.add(i) };
        if p.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: `p` points to a value of this parameter's kind (caller contract); the reads
        // are unaligned-safe.
        *a = unsafe {
            match kind.size() {
                8 => p.cast::<u64>().read_unaligned(),
                _ => u64::from(p.cast::<u32>().read_unaligned()),
            }
        };
    }
    Ok(args)
}

/// The stream's sticky error for a model's refusal.
fn cu_error(e: ModelError) -> CUresult {
    match e {
        ModelError::OutOfBounds { .. }
        | ModelError::ReadOnly { .. }
        | ModelError::TooLarge { .. } => CUDA_ERROR_ILLEGAL_ADDRESS,
        ModelError::Misaligned { .. } => MISALIGNED_ADDRESS,
        _ => CUDA_ERROR_LAUNCH_FAILED,
    }
}

/// Runs one launch of `reg`'s model at stream time `now_ns`. Holds the region table's read
/// lock while the model runs, so the memory cannot be freed underneath it. Allocates nothing.
///
/// Errors (sticky on the stream): `CUDA_ERROR_ILLEGAL_ADDRESS` for a buffer outside known
/// memory (or a write into read-only registered memory), `CUDA_ERROR_MISALIGNED_ADDRESS` for a
/// misaligned one, `CUDA_ERROR_LAUNCH_FAILED` for overlapping `__restrict__` buffers or a model
/// refusal.
pub(crate) fn run(reg: &Registration, raw: &Args, shape: Shape, now_ns: u64) -> CuResult<()> {
    let kinds = reg.model.params();
    let mut args = [Arg::U32(0); MAX_PARAMS];
    for (a, (&kind, &bits)) in args.iter_mut().zip(kinds.iter().zip(raw)) {
        *a = Arg::from_bits(kind, bits);
    }
    let args = &args[..kinds.len().min(MAX_PARAMS)];
    let regions = memory::read();
    match &reg.model {
        Model::Rust(model) => {
            let mut mem = SilMemory { regions: &regions };
            Launch::new(args, &mut mem)
                .with_dims(shape.grid, shape.block)
                .with_now_ns(now_ns)
                .run(*model)
                .map_err(cu_error)
        }
        Model::C(c) => run_c(c, args, shape, now_ns, &regions),
    }
}

/// The memory SIL CUDA knows, as a Rust model borrows it.
struct SilMemory<'r> {
    /// The region table, read-locked by the worker for the whole launch.
    regions: &'r [Region],
}

impl SilMemory<'_> {
    fn check(&self, a: &Access) -> Result<(), ModelError> {
        let (bytes, align) = (a.bytes as u64, a.align as u64);
        match check_access(self.regions, a.addr, bytes, align, a.write) {
            Ok(()) => Ok(()),
            Err(MISALIGNED_ADDRESS) => Err(ModelError::Misaligned {
                index: a.index,
                addr: a.addr,
                align: a.align,
            }),
            Err(_)
                if a.write && check_access(self.regions, a.addr, bytes, align, false).is_ok() =>
            {
                Err(ModelError::ReadOnly {
                    index: a.index,
                    addr: a.addr,
                    bytes: a.bytes,
                })
            }
            Err(_) => Err(ModelError::OutOfBounds {
                index: a.index,
                addr: a.addr,
                bytes: a.bytes,
            }),
        }
    }
}

impl LaunchMemory for SilMemory<'_> {
    fn borrow<'m>(
        &'m mut self,
        accesses: &[Access],
        out: &mut [Option<Borrowed<'m>>],
    ) -> Result<(), ModelError> {
        if out.len() < accesses.len() {
            return Err(ModelError::TooManyBuffers { limit: MAX_PARAMS });
        }
        // Checked here too: the slices below are sound only if no written access overlaps
        // another one.
        check_disjoint(accesses)?;
        for a in accesses {
            self.check(a)?;
        }
        for (o, a) in out.iter_mut().zip(accesses) {
            let p = a.addr as usize as *mut u8;
            *o = Some(match (a.bytes, a.write) {
                (0, true) => Borrowed::Write(&mut []),
                (0, false) => Borrowed::Read(&[]),
                // SAFETY: the range lies in one writable region of the table that the worker
                // holds read-locked until the launch ends (it outlives 'm), so it stays
                // allocated; it overlaps no other access (checked above) and `&'m mut self`
                // keeps a second borrow away while it lives; the application guarantees that
                // nothing else touches a kernel's buffers while it runs (CUDA's rule; the
                // runtime's schedule).
                (n, true) => Borrowed::Write(unsafe { core::slice::from_raw_parts_mut(p, n) }),
                // SAFETY: as above, read only; overlapping ones are all reads.
                (n, false) => Borrowed::Read(unsafe { core::slice::from_raw_parts(p, n) }),
            });
        }
        Ok(())
    }
}

/// The most buffers a C model gets in one launch.
const MAX_GRANTS: usize = 2 * MAX_PARAMS;

/// A launch as a C model sees it; a `*const cuSilKernelLaunch` points at one.
struct CLaunch<'r> {
    args: &'r [Arg],
    shape: Shape,
    now_ns: u64,
    /// The region table, read-locked by the worker for the whole launch.
    regions: &'r [Region],
    /// The buffers handed out so far.
    grants: [Cell<Option<Access>>; MAX_GRANTS],
    /// The first refusal of `cuSilLaunchBuffer`: it fails the launch, as a faulting access
    /// would.
    fault: Cell<Option<CUresult>>,
}

thread_local! {
    /// The C launch whose callback runs on this thread (its address; 0: none).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

fn run_c(c: &CModel, args: &[Arg], shape: Shape, now_ns: u64, regions: &[Region]) -> CuResult<()> {
    let launch = CLaunch {
        args,
        shape,
        now_ns,
        regions,
        grants: [const { Cell::new(None) }; MAX_GRANTS],
        fault: Cell::new(None),
    };
    let handle = (&raw const launch).cast::<cuSilKernelLaunch>();
    let outer = CURRENT.with(|cur| cur.replace(handle as usize));
    // SAFETY: the registrant vouched that the callback may be called with its user pointer
    // from any thread; `handle` stays valid for the call.
    let status = unsafe { (c.callback)(c.user as *mut c_void, handle) };
    CURRENT.with(|cur| cur.set(outer));
    match (launch.fault.get(), status) {
        (Some(e), _) => Err(e),
        (None, 0) => Ok(()),
        (None, _) => Err(CUDA_ERROR_LAUNCH_FAILED),
    }
}

/// The launch behind a C model's handle: only the one whose callback runs on this thread.
fn current<'a>(launch: *const cuSilKernelLaunch) -> CuResult<&'a CLaunch<'a>> {
    if launch.is_null() || CURRENT.with(Cell::get) != launch as usize {
        return Err(CUDA_ERROR_INVALID_HANDLE);
    }
    // SAFETY: `run_c` made this the current launch of this thread; it is a live `CLaunch`
    // until its callback returns, and the functions that call this are called within it.
    Ok(unsafe { &*launch.cast::<CLaunch<'a>>() })
}

impl CLaunch<'_> {
    fn grant(&self, index: usize, bytes: usize, align: usize, write: bool) -> CuResult<u64> {
        let Some(&Arg::Ptr(addr)) = self.args.get(index) else {
            return Err(CUDA_ERROR_INVALID_VALUE);
        };
        if !align.is_power_of_two() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        check_access(self.regions, addr, bytes as u64, align as u64, write)?;
        let access = Access {
            index,
            addr,
            bytes,
            align,
            write,
        };
        if bytes == 0 {
            return Ok(addr);
        }
        let mut free = None;
        for g in &self.grants {
            match g.get() {
                Some(other) => {
                    check_disjoint(&[other, access]).map_err(|_| CUDA_ERROR_LAUNCH_FAILED)?
                }
                None => {
                    free.get_or_insert(g);
                }
            }
        }
        free.ok_or(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)?
            .set(Some(access));
        Ok(addr)
    }
}

/// In a C model: the device pointer argument `index`, checked like a Rust model's buffers:
/// `bytes` bytes aligned to `align` (a power of two) inside one piece of memory the SIL knows,
/// writable if `writable`, and (if written) overlapping no buffer handed out before in this
/// launch, nor overlapped by a later written one. Any refusal fails the launch with that error
/// (sticky on the stream), as a faulting access would: `CUDA_ERROR_INVALID_VALUE` (`ptr` NULL,
/// `index` not a pointer parameter, bad `align`), `CUDA_ERROR_ILLEGAL_ADDRESS`,
/// `CUDA_ERROR_MISALIGNED_ADDRESS`, `CUDA_ERROR_LAUNCH_FAILED` (overlap),
/// `CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES` (more than 32 buffers). A launch handle other than
/// the one whose callback runs on this thread: `CUDA_ERROR_INVALID_HANDLE`.
///
/// # Safety
/// `ptr` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilLaunchBuffer(
    launch: *const cuSilKernelLaunch,
    index: c_uint,
    bytes: usize,
    align: usize,
    writable: c_int,
    ptr: *mut *mut c_void,
) -> CUresult {
    ret((|| {
        let l = current(launch)?;
        let granted = if ptr.is_null() {
            Err(CUDA_ERROR_INVALID_VALUE)
        } else {
            l.grant(index as usize, bytes, align, writable != 0)
        };
        match granted {
            Ok(addr) => {
                // SAFETY: non-null and writable (caller contract).
                unsafe { ptr.write(addr as usize as *mut c_void) };
                Ok(())
            }
            Err(e) => {
                if l.fault.get().is_none() {
                    l.fault.set(Some(e));
                }
                Err(e)
            }
        }
    })())
}

/// In a C model: copies argument `index` to `value` in native byte order; `size` must be its
/// kind's size (8 for a pointer or `uint64_t`, 4 otherwise), else `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `value` must be NULL or writable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilLaunchGetParam(
    launch: *const cuSilKernelLaunch,
    index: c_uint,
    value: *mut c_void,
    size: usize,
) -> CUresult {
    ret((|| {
        let l = current(launch)?;
        let arg = l.args.get(index as usize).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        let mut bytes = [0u8; 8];
        let n = match *arg {
            Arg::Ptr(v) | Arg::U64(v) => {
                bytes = v.to_ne_bytes();
                8
            }
            Arg::U32(v) => {
                bytes[..4].copy_from_slice(&v.to_ne_bytes());
                4
            }
            Arg::I32(v) => {
                bytes[..4].copy_from_slice(&v.to_ne_bytes());
                4
            }
            Arg::F32(v) => {
                bytes[..4].copy_from_slice(&v.to_ne_bytes());
                4
            }
        };
        if value.is_null() || size != n {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: `value` is writable for `size == n` bytes (caller contract).
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), value.cast::<u8>(), n) };
        Ok(())
    })())
}

/// In a C model: the grid and block dimensions, three `unsigned int` each (either may be NULL).
///
/// # Safety
/// `grid` and `block` must each be NULL or writable for three values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilLaunchGetDims(
    launch: *const cuSilKernelLaunch,
    grid: *mut c_uint,
    block: *mut c_uint,
) -> CUresult {
    ret((|| {
        let l = current(launch)?;
        for (out, dims) in [(grid, l.shape.grid), (block, l.shape.block)] {
            if !out.is_null() {
                // SAFETY: writable for three values (caller contract).
                unsafe { core::ptr::copy_nonoverlapping(dims.as_ptr(), out, 3) };
            }
        }
        Ok(())
    })())
}

/// In a C model: the stream clock at kernel start, in ns (what `%globaltimer` would read).
///
/// # Safety
/// `nowNs` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuSilLaunchGetTime(
    launch: *const cuSilKernelLaunch,
    nowNs: *mut u64,
) -> CUresult {
    ret((|| {
        let l = current(launch)?;
        if nowNs.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: non-null and writable (caller contract).
        unsafe { nowNs.write(l.now_ns) };
        Ok(())
    })())
}

/// Covers: REQ-GPU-008, REQ-KM-002
#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Kind;

    #[test]
    fn decode_by_kinds() {
        use ParamKind::*;
        let kinds = [F32, DevPtr, DevPtr, U32];
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
        let args = unsafe { decode(&kinds, params.as_mut_ptr()) }.expect("decode");
        assert_eq!(Arg::from_bits(F32, args[0]), Arg::F32(2.5));
        assert_eq!(&args[1..4], &[0x1000, 0x2000, 7]);
        params[2] = core::ptr::null_mut();
        // SAFETY: as above (one NULL entry).
        let r = unsafe { decode(&kinds, params.as_mut_ptr()) };
        assert_eq!(r, Err(CUDA_ERROR_INVALID_VALUE));
        // SAFETY: NULL array.
        let r = unsafe { decode(&kinds, core::ptr::null_mut()) };
        assert_eq!(r, Err(CUDA_ERROR_INVALID_VALUE));
        // SAFETY: no parameters: the array is not read.
        assert!(unsafe { decode(&[], core::ptr::null_mut()) }.is_ok());
    }

    #[test]
    fn sil_memory_checks_and_restrict() {
        let mut backing = vec![0u32; 64];
        let base = backing.as_mut_ptr() as usize;
        let regions = [
            Region {
                start: base,
                len: 128,
                writable: true,
                kind: Kind::Registered,
            },
            Region {
                start: base + 128,
                len: 128,
                writable: false,
                kind: Kind::Registered,
            },
        ];
        let mut mem = SilMemory { regions: &regions };
        let acc = |index, off: usize, bytes, align, write| Access {
            index,
            addr: (base + off) as u64,
            bytes,
            align,
            write,
        };
        let mut out = [const { None }; 4];
        // Reads may overlap each other; a write may not overlap anything.
        assert!(
            mem.borrow(
                &[acc(0, 0, 16, 4, false), acc(1, 8, 16, 4, false)],
                &mut out[..2]
            )
            .is_ok()
        );
        let mut out = [const { None }; 4];
        assert_eq!(
            mem.borrow(
                &[acc(0, 0, 16, 4, false), acc(1, 12, 16, 4, true)],
                &mut out[..2]
            )
            .err(),
            Some(ModelError::Overlap { index: 1, other: 0 })
        );
        let mut out = [const { None }; 4];
        assert!(matches!(
            mem.borrow(&[acc(3, 128, 4, 4, true)], &mut out[..1]),
            Err(ModelError::ReadOnly { index: 3, .. })
        ));
        let mut out = [const { None }; 4];
        assert!(matches!(
            mem.borrow(&[acc(2, 124, 8, 4, false)], &mut out[..1]),
            Err(ModelError::OutOfBounds { index: 2, .. })
        ));
        let mut out = [const { None }; 4];
        assert!(matches!(
            mem.borrow(&[acc(1, 2, 4, 4, false)], &mut out[..1]),
            Err(ModelError::Misaligned { index: 1, .. })
        ));
        assert_eq!(
            cu_error(ModelError::Overlap { index: 1, other: 0 }),
            CUDA_ERROR_LAUNCH_FAILED
        );
        assert_eq!(
            cu_error(ModelError::OutOfBounds {
                index: 0,
                addr: 0,
                bytes: 1
            }),
            CUDA_ERROR_ILLEGAL_ADDRESS
        );
        assert_eq!(
            cu_error(ModelError::Misaligned {
                index: 0,
                addr: 1,
                align: 4
            }),
            MISALIGNED_ADDRESS
        );
        drop(backing);
    }
}
