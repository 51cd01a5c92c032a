//! `cuInit`, the one SIL device, the primary context and the per-thread current context.

use core::ffi::{c_char, c_int, c_uint};
use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use cuda_sys::*;

use crate::{CuResult, ret};

/// What `cuDriverGetVersion` reports (CUDA 13.0).
pub(crate) const DRIVER_VERSION: i32 = 13000;
/// What `cuDeviceGetName` reports.
pub(crate) const DEVICE_NAME: &str = "orin-exec SIL GPU (sm_87)";
/// The fixed device UUID (`cuDeviceGetUuid`, NvSciSync `GpuId`).
pub(crate) const DEVICE_UUID: [u8; 16] = *b"orin-exec-silgpu";
/// The SM without `SIL_CUDA_SM`.
pub(crate) const DEFAULT_SM: u32 = 87;
/// The environment variable that selects the SM (read once, by the first successful `cuInit`).
pub(crate) const SM_ENV: &str = "SIL_CUDA_SM";

static INITIALIZED: AtomicBool = AtomicBool::new(false);
static INIT_LOCK: Mutex<()> = Mutex::new(());
static SM: AtomicU32 = AtomicU32::new(DEFAULT_SM);
/// Retain count of the primary context.
static PRIMARY_REFS: AtomicU32 = AtomicU32::new(0);

/// The primary context object; its address is the `CUcontext` handle.
struct PrimaryCtx {
    _byte: u8,
}
static PRIMARY: PrimaryCtx = PrimaryCtx { _byte: 0 };

pub(crate) fn primary_handle() -> CUcontext {
    core::ptr::addr_of!(PRIMARY).cast_mut().cast()
}

thread_local! {
    /// The calling thread's current context (0 = none).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// `Err(CUDA_ERROR_NOT_INITIALIZED)` before a successful `cuInit`.
pub(crate) fn require_init() -> CuResult<()> {
    if INITIALIZED.load(Ordering::Acquire) {
        Ok(())
    } else {
        Err(CUDA_ERROR_NOT_INITIALIZED)
    }
}

/// Initialised, and the calling thread's current context is the (retained) primary context.
pub(crate) fn require_ctx() -> CuResult<()> {
    require_init()?;
    let cur = CURRENT.with(Cell::get);
    if cur == primary_handle() as usize && PRIMARY_REFS.load(Ordering::Acquire) > 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_CONTEXT)
    }
}

/// The device's SM (e.g. 87).
pub(crate) fn device_sm() -> u32 {
    SM.load(Ordering::Acquire)
}

fn require_device(dev: CUdevice) -> CuResult<()> {
    require_init()?;
    if dev == 0 {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_DEVICE)
    }
}

/// Parses `SIL_CUDA_SM`: `87`, `90`, `sm_90` (10..=255).
pub(crate) fn parse_sm(s: &str) -> Option<u32> {
    let s = s.trim();
    let digits = s.strip_prefix("sm_").unwrap_or(s);
    let sm: u32 = digits.parse().ok()?;
    (10..=255).contains(&sm).then_some(sm)
}

/// Writes `v` through an out pointer, `CUDA_ERROR_INVALID_VALUE` if it is NULL.
///
/// # Safety
/// `p` must be NULL or valid for a write of `T`.
pub(crate) unsafe fn out<T>(p: *mut T, v: T) -> CuResult<()> {
    if p.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: non-null, and valid for writes per the caller's contract.
    unsafe { p.write(v) };
    Ok(())
}

/// Initialises the SIL driver. `Flags` must be 0. The first successful call reads
/// `SIL_CUDA_SM` (e.g. `90` or `sm_90`; default 87); an unparsable value makes `cuInit`
/// return `CUDA_ERROR_INVALID_VALUE` and leaves the driver uninitialised.
///
/// # Safety
/// Always safe to call (`unsafe` only for the C ABI).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuInit(Flags: c_uint) -> CUresult {
    if Flags != 0 {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let _g = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if INITIALIZED.load(Ordering::Acquire) {
        return CUDA_SUCCESS;
    }
    let sm = match std::env::var(SM_ENV) {
        Ok(v) => match parse_sm(&v) {
            Some(sm) => sm,
            None => return CUDA_ERROR_INVALID_VALUE,
        },
        Err(std::env::VarError::NotPresent) => DEFAULT_SM,
        Err(std::env::VarError::NotUnicode(_)) => return CUDA_ERROR_INVALID_VALUE,
    };
    SM.store(sm, Ordering::Release);
    INITIALIZED.store(true, Ordering::Release);
    CUDA_SUCCESS
}

/// Reports 13000 (CUDA 13.0). Works before `cuInit`.
///
/// # Safety
/// `driverVersion` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDriverGetVersion(driverVersion: *mut c_int) -> CUresult {
    // SAFETY: forwarded caller contract.
    ret(unsafe { out(driverVersion, DRIVER_VERSION) })
}

/// Device 0 is the only device.
///
/// # Safety
/// `device` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    ret((|| {
        require_init()?;
        if ordinal != 0 {
            return Err(CUDA_ERROR_INVALID_DEVICE);
        }
        // SAFETY: forwarded caller contract.
        unsafe { out(device, 0) }
    })())
}

/// Always 1.
///
/// # Safety
/// `count` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    ret((|| {
        require_init()?;
        // SAFETY: forwarded caller contract.
        unsafe { out(count, 1) }
    })())
}

/// `"orin-exec SIL GPU (sm_87)"` (the SM is the configured one), truncated to `len - 1` bytes
/// and NUL-terminated.
///
/// # Safety
/// `name` must be NULL or writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    ret((|| {
        require_device(dev)?;
        if name.is_null() || len <= 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let mut buf = [0u8; 40];
        let src = device_name(&mut buf);
        let n = src.len().min(len as usize - 1);
        // SAFETY: `name` is writable for `len` > n bytes (caller contract); the source is a
        // distinct static string.
        unsafe {
            core::ptr::copy_nonoverlapping(src.as_ptr().cast::<c_char>(), name, n);
            name.add(n).write(0);
        }
        Ok(())
    })())
}

/// The device name for the configured SM, written into `buf`.
fn device_name(buf: &mut [u8; 40]) -> &[u8] {
    use std::io::Write as _;
    let total = buf.len();
    let mut w: &mut [u8] = &mut buf[..];
    let _ = write!(w, "orin-exec SIL GPU (sm_{})", device_sm());
    let left = w.len();
    &buf[..total - left]
}

/// The value of a device attribute, `None` for an attribute the SIL does not model.
pub(crate) fn attribute(attrib: CUdevice_attribute) -> Option<c_int> {
    let sm = device_sm() as c_int;
    Some(match attrib.0 {
        1 => 1024,        // MAX_THREADS_PER_BLOCK
        2 | 3 => 1024,    // MAX_BLOCK_DIM_X / Y
        4 => 64,          // MAX_BLOCK_DIM_Z
        5 => 0x7fff_ffff, // MAX_GRID_DIM_X
        6 | 7 => 65535,   // MAX_GRID_DIM_Y / Z
        8 => 49152,       // MAX_SHARED_MEMORY_PER_BLOCK
        10 => 32,         // WARP_SIZE
        16 => 16,         // MULTIPROCESSOR_COUNT (Orin AGX: 16 SMs)
        18 => 1,          // INTEGRATED
        19 => 1,          // CAN_MAP_HOST_MEMORY
        41 => 1,          // UNIFIED_ADDRESSING
        75 => sm / 10,    // COMPUTE_CAPABILITY_MAJOR
        76 => sm % 10,    // COMPUTE_CAPABILITY_MINOR
        88 => 0,          // PAGEABLE_MEMORY_ACCESS
        91 => 1,          // CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM
        92..=94 => 0,     // v1 stream memops: the SIL exports only the _v2 calls
        98 => 0,          // CAN_FLUSH_REMOTE_WRITES
        122 => 1,         // CAN_USE_64_BIT_STREAM_MEM_OPS
        123 => 0,         // CAN_USE_STREAM_WAIT_VALUE_NOR
        _ => return None,
    })
}

/// Integer attribute of device 0 (see `sil/README.md` for the modelled set); any other
/// attribute is `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `pi` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    pi: *mut c_int,
    attrib: CUdevice_attribute,
    dev: CUdevice,
) -> CUresult {
    ret((|| {
        require_device(dev)?;
        let v = attribute(attrib).ok_or(CUDA_ERROR_INVALID_VALUE)?;
        // SAFETY: forwarded caller contract.
        unsafe { out(pi, v) }
    })())
}

/// The fixed UUID `"orin-exec-silgpu"`.
///
/// # Safety
/// `uuid` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut CUuuid, dev: CUdevice) -> CUresult {
    ret((|| {
        require_device(dev)?;
        let mut u = CUuuid::default();
        for (d, s) in u.bytes.iter_mut().zip(DEVICE_UUID) {
            *d = s as c_char;
        }
        // SAFETY: forwarded caller contract.
        unsafe { out(uuid, u) }
    })())
}

/// Retains the primary context (a counted reference; the handle never changes).
///
/// # Safety
/// `pctx` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult {
    ret((|| {
        require_device(dev)?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        PRIMARY_REFS.fetch_add(1, Ordering::AcqRel);
        // SAFETY: forwarded caller contract.
        unsafe { out(pctx, primary_handle()) }
    })())
}

/// Releases one reference; `CUDA_ERROR_INVALID_CONTEXT` if none is held. At zero the context
/// is inactive (calls that need a current context fail) but its objects stay valid.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    ret((|| {
        require_device(dev)?;
        PRIMARY_REFS
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
            .map(|_| ())
            .map_err(|_| CUDA_ERROR_INVALID_CONTEXT)
    })())
}

/// Binds `ctx` (the primary context or NULL) to the calling thread.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    ret((|| {
        require_init()?;
        if !ctx.is_null() && ctx != primary_handle() {
            return Err(CUDA_ERROR_INVALID_CONTEXT);
        }
        CURRENT.with(|c| c.set(ctx as usize));
        Ok(())
    })())
}

/// The calling thread's current context (NULL if none).
///
/// # Safety
/// `pctx` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult {
    ret((|| {
        require_init()?;
        let cur = CURRENT.with(Cell::get) as CUcontext;
        // SAFETY: forwarded caller contract.
        unsafe { out(pctx, cur) }
    })())
}

/// Waits until every stream is idle; returns the first sticky stream error, if any.
/// Not a steady-state call (it takes a snapshot of the stream table, which allocates).
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    ret((|| {
        require_ctx()?;
        crate::stream::synchronize_all()
    })())
}

/// Covers: REQ-GPU-007
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm_parsing() {
        assert_eq!(parse_sm("90"), Some(90));
        assert_eq!(parse_sm(" sm_87 "), Some(87));
        assert_eq!(parse_sm("sm_x"), None);
        assert_eq!(parse_sm("5"), None);
        assert_eq!(parse_sm(""), None);
    }
}
