//! The exported C functions.

use core::ffi::{CStr, c_char, c_void};
use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use cupva_sys::sil::*;
use cupva_sys::*;
use nvsci_sys::{
    NvSciBufAttrList, NvSciBufObj, NvSciSyncAccessPerm_SignalOnly, NvSciSyncAccessPerm_WaitOnly,
    NvSciSyncAccessPerm_WaitSignal, NvSciSyncAttrKey_PrimitiveInfo, NvSciSyncAttrKey_RequiredPerm,
    NvSciSyncAttrKeyValuePair, NvSciSyncAttrList, NvSciSyncAttrListSetAttrs,
    NvSciSyncAttrValPrimitiveType_Syncpoint,
    NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b, NvSciSyncFence, NvSciSyncObj,
};
use orin_exec_kernel_model::{Arg, MAX_PARAMS, ParamKind};
use sil_common::handle::{Map, Registry, handle_of, lock, new_map, ptr_of};
use sil_common::timing::{MAX_BINS, TimingModel, TimingSampler};

use crate::code::{self, Code};
use crate::limits::*;
use crate::models::{self, LookupError, Model, Program};
use crate::stream::{self, Entry, FaultKind, FaultRule, FenceRef, Op, Stream};
use crate::sync::{Backing, SyncObj, Waited};
use crate::{mem, nvsci};

const TAG_EXEC: u64 = 0xC0E1 << 48;
const TAG_CMD: u64 = 0xC0C0 << 48;
const TAG_STREAM: u64 = 0xC05E << 48;
const TAG_SYNC: u64 = 0xC05C << 48;
const TAG_STATUS: u64 = 0xC057 << 48;
/// Marks storage this library wrote (`cupvaCmd_t`, `cupvaFence_t`, `cupvaParameter_t`).
const MAGIC_CMD: u64 = 0x5349_4c43_4d44_0001;
const MAGIC_FENCE: u64 = 0x5349_4c46_4e43_0001;
const MAGIC_PARAM: u64 = 0x5349_4c50_4152_0000;
const CHECK: u64 = 0xA5C3_5A3C_0FF0_F00F;

/// Runtime version reported (2.10.1 as 1000·major + 10·minor + patch, an encoding the SIL
/// chose; see `sil/README.md`).
const RUNTIME_VERSION: u32 = 2101;

/// What a command is.
enum Cmd {
    /// A program and its parameter values.
    Program {
        prog: Arc<Program>,
        args: Box<[Option<Arg>; MAX_PARAMS]>,
    },
    /// Fences to fill at submit (the caller's array, `n` long).
    Request { fences: usize, n: usize },
    /// Fences to wait for, read at submit.
    Wait { fences: usize, n: usize },
    /// A barrier.
    Barrier,
}

struct State {
    execs: Map<u64, Arc<Program>>,
    cmds: Map<u64, Arc<Mutex<Cmd>>>,
    streams: Map<u64, Arc<Stream>>,
    syncs: Map<u64, Arc<SyncObj>>,
}

static REG: Registry<State> = Registry::new(State {
    execs: new_map(),
    cmds: new_map(),
    streams: new_map(),
    syncs: new_map(),
});

thread_local! {
    static LAST: Cell<u32> = const { Cell::new(0) };
}

/// Runs an API body: a panic is `CUPVA_INTERNAL_ERROR` (nothing unwinds into C); a
/// failure is remembered for `CupvaGetLastError`.
fn guard(f: impl FnOnce() -> Result<(), Code>) -> cupvaError_t {
    let c = match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => code::NONE,
        Ok(Err(c)) => c,
        Err(_) => CUPVA_INTERNAL_ERROR.0,
    };
    if c != code::NONE {
        LAST.with(|l| l.set(c));
    }
    cupvaError_t(c)
}

/// Writes `v` to a caller's out-pointer (NULL or misaligned: `CUPVA_INVALID_ARGUMENT`).
///
/// # Safety
/// `p` must be NULL or writable.
unsafe fn out<T>(p: *mut T, v: T) -> Result<(), Code> {
    // SAFETY: forwarded caller guarantee.
    if unsafe { sil_common::ffi::write(p, v) } {
        Ok(())
    } else {
        Err(code::INVALID_ARGUMENT)
    }
}

/// Reads a caller's struct (NULL or misaligned: `CUPVA_INVALID_ARGUMENT`).
///
/// # Safety
/// `p` must be NULL or readable.
unsafe fn inp<T: Copy>(p: *const T) -> Result<T, Code> {
    // SAFETY: forwarded caller guarantee.
    unsafe { sil_common::ffi::read(p) }.ok_or(code::INVALID_ARGUMENT)
}

fn stream_of(s: cupvaStream_t) -> Result<Arc<Stream>, Code> {
    REG.lock()
        .streams
        .get(&handle_of(s))
        .cloned()
        .ok_or(code::INVALID_ARGUMENT)
}

fn sync_of(s: u64) -> Result<Arc<SyncObj>, Code> {
    REG.lock()
        .syncs
        .get(&s)
        .cloned()
        .ok_or(code::INVALID_ARGUMENT)
}

/// The command whose handle a `cupvaCmd_t` holds.
fn cmd_token(c: &cupvaCmd_t) -> Option<u64> {
    (c.data[0] == MAGIC_CMD && c.data[2] == c.data[1] ^ CHECK).then_some(c.data[1])
}

fn cmd_of(c: *const cupvaCmd_t) -> Result<(u64, Arc<Mutex<Cmd>>), Code> {
    // SAFETY: the caller passes NULL or a readable command (every caller's contract).
    let c = unsafe { inp(c) }?;
    let t = cmd_token(&c).ok_or(code::INVALID_ARGUMENT)?;
    let m = REG
        .lock()
        .cmds
        .get(&t)
        .cloned()
        .ok_or(code::INVALID_ARGUMENT)?;
    Ok((t, m))
}

/// Registers `cmd` and writes its handle into `*dst`.
///
/// # Safety
/// `dst` must be NULL or writable.
unsafe fn new_cmd(dst: *mut cupvaCmd_t, cmd: Cmd) -> Result<(), Code> {
    if !sil_common::ffi::usable(dst) {
        return Err(code::INVALID_ARGUMENT);
    }
    let t = REG.new_handle(TAG_CMD);
    REG.lock().cmds.insert(t, Arc::new(Mutex::new(cmd)));
    // SAFETY: checked usable; writable by contract.
    unsafe {
        out(
            dst,
            cupvaCmd_t {
                data: [MAGIC_CMD, t, t ^ CHECK],
            },
        )
    }
}

/// A fence's contents: (sync object handle, id, value; value 0 = not filled yet).
#[derive(Clone, Copy)]
struct FenceData {
    sync: u64,
    id: u64,
    value: u64,
}

fn fence_encode(d: FenceData) -> cupvaFence_t {
    let mut f = cupvaFence_t {
        data: [MAGIC_FENCE, d.sync, d.id, d.value, 0, 0],
    };
    f.data[5] = d.sync ^ d.id.rotate_left(17) ^ d.value.rotate_left(41) ^ CHECK;
    f
}

fn fence_decode(f: &cupvaFence_t) -> Result<FenceData, Code> {
    let d = FenceData {
        sync: f.data[1],
        id: f.data[2],
        value: f.data[3],
    };
    if f.data[0] != MAGIC_FENCE || fence_encode(d).data != f.data {
        return Err(code::UNINITIALIZED_OBJECT);
    }
    Ok(d)
}

/// Writes the driver version (the SIL reports its runtime version).
///
/// # Safety
/// `driverVersion` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaGetDriverVersion(driverVersion: *mut u32) -> cupvaError_t {
    // SAFETY: forwarded contract.
    guard(|| unsafe { out(driverVersion, RUNTIME_VERSION) })
}

/// Writes the runtime version.
///
/// # Safety
/// `runtimeVersion` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaGetRuntimeVersion(runtimeVersion: *mut u32) -> cupvaError_t {
    // SAFETY: forwarded contract.
    guard(|| unsafe { out(runtimeVersion, RUNTIME_VERSION) })
}

/// Returns the calling thread's last error (and clears it) and points `*errorMsg` (if not
/// NULL) at a static message naming it.
///
/// # Safety
/// `errorMsg` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaGetLastError(errorMsg: *mut *const c_char) -> cupvaError_t {
    let c = LAST.with(|l| l.replace(0));
    let msg: &'static CStr = match c {
        code::NONE => c"no error",
        code::INVALID_ARGUMENT => c"CUPVA_INVALID_ARGUMENT: a handle, pointer or value is invalid",
        code::INVALID_STATE => c"CUPVA_INVALID_STATE: the object is not in a state for this call",
        code::DRIVER_API_ERROR => {
            c"CUPVA_DRIVER_API_ERROR: refused by the (SIL) driver, e.g. a VPU ELF not in the allowlist"
        }
        code::UNSUPPORTED_FEATURE => c"CUPVA_UNSUPPORTED_FEATURE: not modelled by the SIL PVA",
        code::UNINITIALIZED_OBJECT => c"CUPVA_UNINITIALIZED_OBJECT: initialise the object first",
        code::COMMAND_SUBMISSION_TIMEOUT => c"CUPVA_COMMAND_SUBMISSION_TIMEOUT: the stream's queue stayed full",
        _ => c"cuPVA error (see the returned code)",
    };
    if sil_common::ffi::usable(errorMsg) {
        // SAFETY: checked usable; writable by contract.
        unsafe { *errorMsg = msg.as_ptr() };
    }
    cupvaError_t(c)
}

/// Loads a VPU executable: its SHA-256 must be in the allowlist (else
/// `CUPVA_DRIVER_API_ERROR`, as the driver refuses an unlisted image with PVA
/// authentication on) and have a registered model (else `CUPVA_UNSUPPORTED_FEATURE`).
///
/// # Safety
/// `data` must be NULL or readable for `size` bytes; `exec` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaExecutableCreate(
    exec: *mut cupvaExecutable_t,
    data: *const c_void,
    size: i32,
) -> cupvaError_t {
    guard(|| {
        if !sil_common::ffi::usable(exec) || size <= 0 {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: readable for `size` (> 0) bytes by contract.
        let image =
            unsafe { sil_common::ffi::bytes(data, size as usize) }.ok_or(code::INVALID_ARGUMENT)?;
        let prog = models::lookup(image).map_err(|e| match e {
            LookupError::NotAllowed => code::DRIVER_API_ERROR,
            LookupError::NoModel => code::UNSUPPORTED_FEATURE,
        })?;
        let t = REG.new_handle(TAG_EXEC);
        REG.lock().execs.insert(t, prog);
        // SAFETY: checked usable above.
        unsafe { out(exec, ptr_of(t)) }
    })
}

/// Destroys an executable (command programs made from it keep working).
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaExecutableDestroy(exec: cupvaExecutable_t) -> cupvaError_t {
    guard(|| {
        REG.lock()
            .execs
            .remove(&handle_of(exec))
            .map(|_| ())
            .ok_or(code::INVALID_ARGUMENT)
    })
}

/// Makes `*cmdProg` a command program of `exec`, every parameter unset.
///
/// # Safety
/// `cmdProg` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdProgramCreate(
    cmdProg: *mut cupvaCmd_t,
    exec: cupvaExecutable_t,
) -> cupvaError_t {
    guard(|| {
        let prog = REG
            .lock()
            .execs
            .get(&handle_of(exec))
            .cloned()
            .ok_or(code::INVALID_ARGUMENT)?;
        let cmd = Cmd::Program {
            prog,
            args: Box::new([None; MAX_PARAMS]),
        };
        // SAFETY: forwarded contract.
        unsafe { new_cmd(cmdProg, cmd) }
    })
}

/// Dataflows (the VPU's DMA configuration) are not modelled: a program model reaches its
/// buffers through pointer parameters. `CUPVA_UNSUPPORTED_FEATURE`.
///
/// # Safety
/// Any values may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdProgramAddDataFlow(
    _prog: *mut cupvaCmd_t,
    _df: *mut cupvaDataFlow_t,
    _dfType: cupvaDataFlowType_t,
) -> cupvaError_t {
    guard(|| Err(code::UNSUPPORTED_FEATURE))
}

/// Nothing to compile without dataflows: success for a command program, else
/// `CUPVA_INVALID_ARGUMENT`.
///
/// # Safety
/// `cmdProg` must be NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdProgramCompileDataFlows(cmdProg: *mut cupvaCmd_t) -> cupvaError_t {
    guard(|| {
        let (_, c) = cmd_of(cmdProg)?;
        match *lock(&c) {
            Cmd::Program { .. } => Ok(()),
            _ => Err(code::INVALID_ARGUMENT),
        }
    })
}

/// Looks up parameter `paramName` of a command program (a name the program's model was
/// registered with; else `CUPVA_INVALID_ARGUMENT`).
///
/// # Safety
/// `cmdProg` NULL or readable; `parameter` NULL or writable; `paramName` NULL or
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdProgramGetParameter(
    cmdProg: *mut cupvaCmd_t,
    parameter: *mut cupvaParameter_t,
    paramName: *const c_char,
) -> cupvaError_t {
    guard(|| {
        let (t, c) = cmd_of(cmdProg)?;
        if paramName.is_null() || !sil_common::ffi::usable(parameter) {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: non-NULL and NUL-terminated by contract.
        let name = unsafe { CStr::from_ptr(paramName) }.to_bytes();
        let Cmd::Program { prog, .. } = &*lock(&c) else {
            return Err(code::INVALID_ARGUMENT);
        };
        let i = prog.param_index(name).ok_or(code::INVALID_ARGUMENT)?;
        // SAFETY: checked usable above.
        unsafe {
            out(
                parameter,
                cupvaParameter_t {
                    data: [t, MAGIC_PARAM | i as u64],
                },
            )
        }
    })
}

/// Sets one parameter of the command program a `cupvaParameter_t` names.
fn set_param(
    parameter: *mut cupvaParameter_t,
    f: impl FnOnce(ParamKind) -> Result<Arg, Code>,
) -> Result<(), Code> {
    // SAFETY: the callers' contract: NULL or readable.
    let p = unsafe { inp(parameter) }?;
    if p.data[1] & !0xffff != MAGIC_PARAM {
        return Err(code::UNINITIALIZED_OBJECT);
    }
    let i = (p.data[1] & 0xffff) as usize;
    let c = REG
        .lock()
        .cmds
        .get(&p.data[0])
        .cloned()
        .ok_or(code::INVALID_ARGUMENT)?;
    let mut g = lock(&c);
    let Cmd::Program { prog, args } = &mut *g else {
        return Err(code::INVALID_ARGUMENT);
    };
    let kind = *prog.model.params().get(i).ok_or(code::INVALID_ARGUMENT)?;
    args[i] = Some(f(kind)?);
    Ok(())
}

/// Sets a scalar parameter: `size` must be the size of the parameter's kind, and the kind
/// must not be a pointer (`CUPVA_INVALID_ARGUMENT`).
///
/// # Safety
/// `parameter` NULL or readable; `value` NULL or readable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaParameterSetValueScalar(
    parameter: *mut cupvaParameter_t,
    value: *const c_void,
    size: i32,
) -> cupvaError_t {
    guard(|| {
        set_param(parameter, |kind| {
            if kind == ParamKind::DevPtr || size < 0 || size as usize != kind.size() {
                return Err(code::INVALID_ARGUMENT);
            }
            // SAFETY: readable for `size` bytes by contract.
            let b = unsafe { sil_common::ffi::bytes(value, size as usize) }
                .ok_or(code::INVALID_ARGUMENT)?;
            let mut bits = [0u8; 8];
            bits[..b.len()].copy_from_slice(b);
            Ok(Arg::from_bits(kind, u64::from_le_bytes(bits)))
        })
    })
}

/// Sets a pointer parameter to PVA memory (from `CupvaMemAlloc` or `CupvaMemImport`, any
/// address inside it) or NULL; anything else is `CUPVA_INVALID_ARGUMENT`.
///
/// # Safety
/// `parameter` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaParameterSetValuePointer(
    parameter: *mut cupvaParameter_t,
    value: *const c_void,
) -> cupvaError_t {
    guard(|| {
        set_param(parameter, |kind| {
            if kind != ParamKind::DevPtr || !(value.is_null() || mem::known(value.addr())) {
                return Err(code::INVALID_ARGUMENT);
            }
            Ok(Arg::Ptr(value.addr() as u64))
        })
    })
}

/// Allocates `size` zeroed bytes of PVA memory (page-aligned host memory in the SIL).
///
/// # Safety
/// `ptr` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaMemAlloc(
    ptr: *mut *mut c_void,
    size: i64,
    accessType: cupvaMemAccessType_t,
    allocType: cupvaMemAllocType_t,
) -> cupvaError_t {
    guard(|| {
        if !sil_common::ffi::usable(ptr)
            || size <= 0
            || !(CUPVA_READ.0..=CUPVA_READ_WRITE.0).contains(&accessType.0)
            || !(allocType == CUPVA_ALLOC_DRAM || allocType == CUPVA_ALLOC_CVSRAM)
        {
            return Err(code::INVALID_ARGUMENT);
        }
        let size = usize::try_from(size).map_err(|_| code::INVALID_ARGUMENT)?;
        let p = mem::alloc(size, accessType == CUPVA_READ)?;
        // SAFETY: checked usable above.
        unsafe { out(ptr, p as *mut c_void) }
    })
}

/// Frees memory from `CupvaMemAlloc`, or releases an import (`CupvaMemImport`).
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaMemFree(devicePtr: *mut c_void) -> cupvaError_t {
    guard(|| {
        if mem::free(devicePtr.addr()) {
            Ok(())
        } else {
            Err(code::INVALID_ARGUMENT)
        }
    })
}

/// The host address of PVA memory: the same address in the SIL.
///
/// # Safety
/// `hostPtr` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaMemGetHostPointer(
    hostPtr: *mut *mut c_void,
    devicePtr: *mut c_void,
) -> cupvaError_t {
    guard(|| {
        if !mem::known(devicePtr.addr()) {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: forwarded contract.
        unsafe { out(hostPtr, devicePtr) }
    })
}

/// Creates an in-order stream on PVA `absEngine` (PVA0, PVA1) with VPU affinity
/// `vpuAffinity` (VPU0, VPU1, VPU_ANY: timed as VPU0) and starts its worker.
///
/// # Safety
/// `stream` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaStreamCreate(
    stream: *mut cupvaStream_t,
    absEngine: cupvaEngineType_t,
    vpuAffinity: cupvaAffinityType_t,
) -> cupvaError_t {
    guard(|| {
        let engine = match absEngine {
            CUPVA_PVA0 => 0,
            CUPVA_PVA1 => 1,
            _ => return Err(code::INVALID_ARGUMENT),
        };
        let vpu = match vpuAffinity {
            CUPVA_VPU0 | CUPVA_VPU_ANY => 0,
            CUPVA_VPU1 => 1,
            _ => return Err(code::INVALID_ARGUMENT),
        };
        if !sil_common::ffi::usable(stream) {
            return Err(code::INVALID_ARGUMENT);
        }
        let t = REG.new_handle(TAG_STREAM);
        let id = (t & 0xffff) as u32;
        let s = Arc::new(Stream::new(id, engine, vpu));
        let s2 = s.clone();
        let h = sil_common::thread::spawn_started(format!("sil-pva{engine}-vpu{vpu}"), move |r| {
            stream::worker(s2, r)
        })
        .map_err(|_| code::INVALID_STATE)?;
        *lock(&s.worker) = Some(h);
        REG.lock().streams.insert(t, s);
        // SAFETY: checked usable above.
        unsafe { out(stream, ptr_of(t)) }
    })
}

/// Destroys a stream: stops its worker (also one waiting on a fence or in a hung
/// program) and drops its queued commands without signalling their fences.
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaStreamDestroy(stream: cupvaStream_t) -> cupvaError_t {
    guard(|| {
        let (s, syncs) = {
            let mut st = REG.lock();
            let s = st
                .streams
                .remove(&handle_of(stream))
                .ok_or(code::INVALID_ARGUMENT)?;
            (s, st.syncs.values().cloned().collect::<Vec<_>>())
        };
        s.shutdown(&syncs);
        Ok(())
    })
}

/// A command resolved at submit.
enum Ready {
    Program(Arc<Program>, [Arg; MAX_PARAMS]),
    Request(usize, [Option<Arc<SyncObj>>; MAX_REQUEST_FENCES], usize),
    Wait([FenceRef; MAX_WAIT_FENCES], usize),
    Barrier,
}

/// Checks one command and takes what its queue entry needs (no allocation).
fn resolve(c: &Cmd) -> Result<Ready, Code> {
    match c {
        Cmd::Program { prog, args } => {
            let mut a = [Arg::U32(0); MAX_PARAMS];
            for (i, _) in prog.model.params().iter().enumerate() {
                a[i] = args[i].ok_or(code::UNINITIALIZED_OBJECT)?;
            }
            Ok(Ready::Program(prog.clone(), a))
        }
        Cmd::Request { fences, n } => {
            let mut syncs = [const { None }; MAX_REQUEST_FENCES];
            for (i, slot) in syncs.iter_mut().enumerate().take(*n) {
                // SAFETY: the caller's array of `n` fences, kept alive since
                // `CupvaCmdRequestFencesInit` (cuPVA's contract).
                let f = unsafe { inp((*fences as *const cupvaFence_t).add(i)) }?;
                let d = fence_decode(&f)?;
                let s = sync_of(d.sync)?;
                if !s.may_signal() {
                    return Err(code::INVALID_ARGUMENT);
                }
                *slot = Some(s);
            }
            Ok(Ready::Request(*fences, syncs, *n))
        }
        Cmd::Wait { fences, n } => {
            let mut refs: [FenceRef; MAX_WAIT_FENCES] = Default::default();
            for (i, r) in refs.iter_mut().enumerate().take(*n) {
                // SAFETY: as above, for `CupvaCmdWaitOnFencesInit`.
                let f = unsafe { inp((*fences as *const cupvaFence_t).add(i)) }?;
                let d = fence_decode(&f)?;
                if d.value == 0 {
                    return Err(code::INVALID_STATE);
                }
                let s = sync_of(d.sync)?;
                if !s.may_wait() {
                    return Err(code::INVALID_ARGUMENT);
                }
                *r = FenceRef {
                    sync: Some(s),
                    id: d.id,
                    value: d.value,
                };
            }
            Ok(Ready::Wait(refs, *n))
        }
        Cmd::Barrier => Ok(Ready::Barrier),
    }
}

/// Submits `count` commands (1 to 256) in order. `executionTimeout` (ms, -1 none) ends each
/// program that runs longer (`CUPVA_COMMAND_EXECUTION_TIMEOUT` in its status);
/// `submitTimeout` (ms, -1 none) bounds the wait for queue space
/// (`CUPVA_COMMAND_SUBMISSION_TIMEOUT`, nothing queued). Fences of RequestFences commands
/// are written before this returns. Any invalid command refuses the whole submission.
/// Allocates nothing.
///
/// # Safety
/// `command` must be NULL or hold `count` pointers to commands; `status` NULL or writable
/// for `count` handles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaStreamSubmit(
    stream: cupvaStream_t,
    command: *const *const cupvaCmd_t,
    status: *mut cupvaCmdStatus_t,
    count: i32,
    order: cupvaOrderType_t,
    executionTimeout: i32,
    submitTimeout: i32,
) -> cupvaError_t {
    guard(|| {
        let s = stream_of(stream)?;
        let n = usize::try_from(count).map_err(|_| code::INVALID_ARGUMENT)?;
        if n == 0
            || n > MAX_CMDS_PER_SUBMIT
            || !(order == CUPVA_IN_ORDER || order == CUPVA_OUT_OF_ORDER)
        {
            return Err(code::INVALID_ARGUMENT);
        }
        let ms = |t: i32| match t {
            -1 => Ok(u64::MAX),
            t if t > 0 => Ok(t as u64 * 1_000_000),
            _ => Err(code::INVALID_ARGUMENT),
        };
        let (exec_ns, submit_ns) = (ms(executionTimeout)?, ms(submitTimeout)?);
        // SAFETY: `count` readable pointers by contract.
        let cmds = unsafe { sil_common::ffi::array(command, n) }.ok_or(code::INVALID_ARGUMENT)?;
        if !status.is_null() && !sil_common::ffi::usable(status) {
            return Err(code::INVALID_ARGUMENT);
        }
        // Only the `n` commands' entries are written: a full-size array of resolved commands
        // is tens of kilobytes to initialise and drop on every call.
        let mut ready: heapless::Vec<Ready, MAX_CMDS_PER_SUBMIT> = heapless::Vec::new();
        for &c in cmds {
            let (_, m) = cmd_of(c)?;
            let r = resolve(&lock(&m))?;
            // `n` is at most the capacity (checked above).
            ready.push(r).map_err(|_| code::INVALID_ARGUMENT)?;
        }
        // The 512-fence limit, for the whole submission at once.
        for (i, r) in ready.iter().enumerate() {
            if let Ready::Request(_, syncs, k) = r {
                for s in syncs[..*k].iter().flatten() {
                    let mut more = 0u64;
                    for r2 in ready.iter().take(i + 1) {
                        if let Ready::Request(_, s2, k2) = r2 {
                            more += s2[..*k2]
                                .iter()
                                .flatten()
                                .filter(|x| Arc::ptr_eq(x, s))
                                .count() as u64;
                        }
                    }
                    if s.outstanding() + more > MAX_FENCES_PER_SYNC_OBJ {
                        return Err(code::INVALID_STATE);
                    }
                }
            }
        }
        // Queue space, up to the submit timeout: a host-side wait, in real time also when
        // the SIL clock is virtual (which only moves when the test moves it).
        let mut g = lock(&s.ring);
        let deadline = sil_common::clock::real_ns().saturating_add(submit_ns);
        while g.free() < n {
            let now = sil_common::clock::real_ns();
            if now >= deadline || s.stop.load(Ordering::Acquire) != 0 {
                return Err(code::COMMAND_SUBMISSION_TIMEOUT);
            }
            let nap = std::time::Duration::from_nanos((deadline - now).min(50_000_000));
            g = sil_common::wait::sleep_counted(&s.cv, g, |r| &mut r.sleepers, Some(nap));
        }
        let now = nvsci::now_ns();
        // Drained in place: moving the list into an iterator would copy its whole capacity.
        for (i, r) in ready.drain(..).enumerate() {
            let seq = s.next_seq.fetch_add(1, Ordering::AcqRel);
            let op = match r {
                Ready::Program(prog, args) => {
                    let Some(mut run) = g.take_run() else {
                        return Err(code::INVALID_STATE);
                    };
                    run.prog = Some(prog);
                    run.args = args;
                    run.fault = s.next_fault();
                    Op::Program(run)
                }
                Ready::Request(fences, syncs, k) => {
                    for (j, sy) in syncs[..k].iter().enumerate() {
                        let Some(sy) = sy else { continue };
                        let (id, value) = sy.request()?;
                        let f = fence_encode(FenceData {
                            sync: sy.token,
                            id,
                            value,
                        });
                        // SAFETY: the caller's writable array of `k` fences (read above).
                        unsafe { out((fences as *mut cupvaFence_t).add(j), f) }?;
                    }
                    Op::Signal(syncs, k)
                }
                Ready::Wait(refs, k) => Op::Wait(refs, k),
                Ready::Barrier => Op::Barrier,
            };
            g.push(Entry {
                op,
                seq,
                submit_ns: now,
                exec_timeout_ns: exec_ns,
            });
            if !status.is_null() {
                let h = TAG_STATUS | (u64::from(s.id) << 32) | (seq & 0xffff_ffff);
                // SAFETY: writable for `count` handles by contract (checked usable).
                unsafe { *status.add(i) = ptr_of(h) };
            }
        }
        if g.sleepers > 0 {
            s.cv.notify_all();
        }
        Ok(())
    })
}

/// Writes a submitted command's state to `*errorCode`: `CUPVA_OPERATION_PENDING` until the
/// worker finished it, then its result. A status of a destroyed stream, or older than the
/// last 1024 commands of its stream, is `CUPVA_INVALID_ARGUMENT`.
///
/// # Safety
/// `errorCode` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCheckCommandStatus(
    status: cupvaCmdStatus_t,
    errorCode: *mut cupvaError_t,
) -> cupvaError_t {
    guard(|| {
        let h = handle_of(status);
        if h & (0xffff << 48) != TAG_STATUS || !sil_common::ffi::usable(errorCode) {
            return Err(code::INVALID_ARGUMENT);
        }
        let id = ((h >> 32) & 0xffff) as u32;
        let s = REG
            .lock()
            .streams
            .values()
            .find(|s| s.id == id)
            .cloned()
            .ok_or(code::INVALID_ARGUMENT)?;
        let c = s.status(h as u32);
        if c == code::INVALID_ARGUMENT {
            return Err(c);
        }
        // SAFETY: checked usable above.
        unsafe { out(errorCode, cupvaError_t(c)) }
    })
}

/// Releases a command (queued runs of it are unaffected) and clears its storage.
///
/// # Safety
/// `command` must be NULL or readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdDestroy(command: *mut cupvaCmd_t) -> cupvaError_t {
    guard(|| {
        let (t, _) = cmd_of(command)?;
        REG.lock().cmds.remove(&t);
        // SAFETY: readable (checked by `cmd_of`) and writable by contract.
        unsafe { out(command, cupvaCmd_t::default()) }
    })
}

/// Makes `*cmdBarrier` a barrier (in an in-order stream it orders nothing more).
///
/// # Safety
/// `cmdBarrier` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdBarrierInit(cmdBarrier: *mut cupvaCmd_t) -> cupvaError_t {
    // SAFETY: forwarded contract.
    guard(|| unsafe { new_cmd(cmdBarrier, Cmd::Barrier) })
}

/// Makes `*command` a request for `count` (1 to 4) fences. The array is kept: each submit
/// fills its fences (initialised with `CupvaFenceInit` on a signaler sync object).
///
/// # Safety
/// `fence` must stay readable and writable for `count` fences while the command is used.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdRequestFencesInit(
    command: *mut cupvaCmd_t,
    fence: *mut cupvaFence_t,
    count: i32,
) -> cupvaError_t {
    guard(|| {
        let n = usize::try_from(count).map_err(|_| code::INVALID_ARGUMENT)?;
        if n == 0 || n > MAX_REQUEST_FENCES || !sil_common::ffi::usable(fence) {
            return Err(code::INVALID_ARGUMENT);
        }
        let cmd = Cmd::Request {
            fences: fence.addr(),
            n,
        };
        // SAFETY: forwarded contract.
        unsafe { new_cmd(command, cmd) }
    })
}

/// Makes `*command` a wait for `count` (1 to 8) fences; the array is kept and read at each
/// submit (the fences must be filled by then).
///
/// # Safety
/// `fence` must stay readable for `count` fences while the command is used.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaCmdWaitOnFencesInit(
    command: *mut cupvaCmd_t,
    fence: *const cupvaFence_t,
    count: i32,
) -> cupvaError_t {
    guard(|| {
        let n = usize::try_from(count).map_err(|_| code::INVALID_ARGUMENT)?;
        if n == 0 || n > MAX_WAIT_FENCES || !sil_common::ffi::usable(fence) {
            return Err(code::INVALID_ARGUMENT);
        }
        let cmd = Cmd::Wait {
            fences: fence.addr(),
            n,
        };
        // SAFETY: forwarded contract.
        unsafe { new_cmd(command, cmd) }
    })
}

fn client_ok(c: cupvaSyncClientType_t) -> Result<u32, Code> {
    match c {
        CUPVA_SIGNALER | CUPVA_WAITER | CUPVA_SIGNALER_WAITER => Ok(c.0),
        _ => Err(code::INVALID_ARGUMENT),
    }
}

/// Creates a native sync object.
///
/// # Safety
/// `syncObj` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSyncObjCreate(
    syncObj: *mut cupvaSyncObj_t,
    isTimeStamp: bool,
    clientType: cupvaSyncClientType_t,
    waitMode: cupvaSyncWaitMode_t,
) -> cupvaError_t {
    guard(|| {
        let client = client_ok(clientType)?;
        if !(waitMode == CUPVA_SYNC_YIELD || waitMode == CUPVA_SYNC_SPIN)
            || !sil_common::ffi::usable(syncObj)
        {
            return Err(code::INVALID_ARGUMENT);
        }
        let t = REG.new_handle(TAG_SYNC);
        REG.lock()
            .syncs
            .insert(t, Arc::new(SyncObj::native(t, client, isTimeStamp)));
        // SAFETY: checked usable above.
        unsafe { out(syncObj, ptr_of(t)) }
    })
}

/// Destroys a sync object (queued commands keep it until they ran).
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSyncObjDestroy(syncObj: cupvaSyncObj_t) -> cupvaError_t {
    guard(|| {
        REG.lock()
            .syncs
            .remove(&handle_of(syncObj))
            .map(|_| ())
            .ok_or(code::INVALID_ARGUMENT)
    })
}

/// Initialises an empty fence of `syncObj`.
///
/// # Safety
/// `fence` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaFenceInit(
    fence: *mut cupvaFence_t,
    syncObj: cupvaSyncObj_t,
) -> cupvaError_t {
    guard(|| {
        let s = sync_of(handle_of(syncObj))?;
        let f = fence_encode(FenceData {
            sync: s.token,
            id: 0,
            value: 0,
        });
        // SAFETY: forwarded contract.
        unsafe { out(fence, f) }
    })
}

/// Resolves a filled fence: (data, sync object).
fn filled(fence: *const cupvaFence_t) -> Result<(FenceData, Arc<SyncObj>), Code> {
    // SAFETY: the callers' contract: NULL or readable.
    let d = fence_decode(&unsafe { inp(fence) }?)?;
    if d.value == 0 {
        return Err(code::INVALID_STATE);
    }
    Ok((d, sync_of(d.sync)?))
}

/// The time (ns, SIL clock) the fence was signalled: its sync object must have timestamps
/// and the fence must be reached (else `CUPVA_INVALID_STATE`).
///
/// # Safety
/// `fence` NULL or readable; `timeStamp` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaFenceGetTimeStamp(
    fence: *const cupvaFence_t,
    timeStamp: *mut u64,
) -> cupvaError_t {
    guard(|| {
        let (d, s) = filled(fence)?;
        if !s.timestamps {
            return Err(code::INVALID_STATE);
        }
        let ts = s.stamp(d.value)?;
        // SAFETY: forwarded contract.
        unsafe { out(timeStamp, ts) }
    })
}

/// Waits on the CPU up to `timeout` µs (-1 forever) for a filled fence;
/// `*waitSuccess` is false when the time ran out.
///
/// # Safety
/// `fence` NULL or readable; `waitSuccess` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaFenceWait(
    fence: *const cupvaFence_t,
    timeout: i64,
    waitSuccess: *mut bool,
) -> cupvaError_t {
    guard(|| {
        if timeout < -1 || !sil_common::ffi::usable(waitSuccess) {
            return Err(code::INVALID_ARGUMENT);
        }
        let (d, s) = filled(fence)?;
        static NEVER: AtomicU32 = AtomicU32::new(0);
        let ok = matches!(s.wait(d.id, d.value, timeout, &NEVER), Waited::Reached(_));
        // SAFETY: checked usable above.
        unsafe { out(waitSuccess, ok) }
    })
}

/// Nothing to add (the SIL PVA reaches any SIL NvSciBuf memory), but the list must be one
/// the vendor call could fill: a live unreconciled NvSciBuf list. NULL, forged, freed and
/// reconciled lists get `CUPVA_INVALID_ARGUMENT` (sil/README.md, "cuPVA").
///
/// # Safety
/// Any value may be passed (NvSciBuf validates the handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaMemFillAttributes(sciBufAttr: NvSciBufAttrList) -> cupvaError_t {
    guard(|| {
        // SAFETY: NvSciBuf refuses an unknown handle, NULL included.
        if unsafe { crate::nvsci::buf_list_is_reconciled(sciBufAttr) }? {
            Err(code::INVALID_ARGUMENT)
        } else {
            Ok(())
        }
    })
}

/// Imports an NvSciBuf object as PVA memory (`CUPVA_READ`: read-only for programs); free it
/// with `CupvaMemFree`.
///
/// # Safety
/// `pvaPtr` NULL or writable; `buff` NULL or a buffer object handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaMemImport(
    pvaPtr: *mut *mut c_void,
    buff: NvSciBufObj,
    accessType: cupvaMemAccessType_t,
) -> cupvaError_t {
    guard(|| {
        if !sil_common::ffi::usable(pvaPtr)
            || buff.is_null()
            || !(CUPVA_READ.0..=CUPVA_READ_WRITE.0).contains(&accessType.0)
        {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: a buffer handle by contract; NvSciBuf validates it.
        let dup = unsafe { nvsci::buf_obj_dup(buff) }?;
        // SAFETY: `dup` is a live handle we own.
        let (p, size) = match unsafe { nvsci::buf_memory(dup) } {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: our duplicate, freed once.
                unsafe { nvsci::buf_obj_free(dup) };
                return Err(e);
            }
        };
        let a = mem::import(dup, p, size, accessType == CUPVA_READ);
        // SAFETY: checked usable above.
        unsafe { out(pvaPtr, a as *mut c_void) }
    })
}

/// Imports an NvSciSync fence: the fence must belong to an NvSciSync object imported with
/// `CupvaSyncObjCreateFromNvsci` (the one `*fence` was initialised with, if it was).
///
/// # Safety
/// `fence` NULL or readable and writable; `sciFence` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaFenceImport(
    fence: *mut cupvaFence_t,
    sciFence: *const NvSciSyncFence,
) -> cupvaError_t {
    guard(|| {
        // SAFETY: forwarded contract.
        let sci = unsafe { inp(sciFence) }?;
        if !sil_common::ffi::usable(fence) {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: checked usable; readable by contract.
        let given = fence_decode(&unsafe { *fence }).ok().map(|d| d.sync);
        let (id, value) = nvsci::extract(&sci)?;
        let belongs = |s: &SyncObj| match &s.backing {
            // SAFETY: our duplicate, alive while `s` is.
            Backing::Sci { obj, .. } => unsafe { nvsci::fence_of(*obj, &sci) },
            Backing::Native(_) => false,
        };
        // Searched under the table lock (NvSciSync never calls back into this library), so
        // nothing is collected: the steady state allocates nothing.
        let s = {
            let st = REG.lock();
            match given {
                Some(t) => st.syncs.get(&t).filter(|s| belongs(s)).cloned(),
                None => st.syncs.values().find(|s| belongs(s)).cloned(),
            }
        }
        .ok_or(code::INVALID_ARGUMENT)?;
        let f = fence_encode(FenceData {
            sync: s.token,
            id,
            value,
        });
        // SAFETY: checked usable above.
        unsafe { out(fence, f) }
    })
}

/// Exports a fence filled by a RequestFences command on an imported sync object.
///
/// # Safety
/// `fence` NULL or readable; `sciFence` NULL or a writable fence (cleared or valid).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaFenceExport(
    fence: *const cupvaFence_t,
    sciFence: *mut NvSciSyncFence,
) -> cupvaError_t {
    guard(|| {
        let (d, s) = filled(fence)?;
        let Backing::Sci { obj, .. } = &s.backing else {
            return Err(code::INVALID_ARGUMENT);
        };
        if !sil_common::ffi::usable(sciFence) {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: our duplicate; `sciFence` writable by contract.
        unsafe { nvsci::update_fence(*obj, d.id, d.value, sciFence) }
    })
}

/// Wraps an NvSciSync object (we keep a duplicate) as a sync object with role `clientType`.
///
/// # Safety
/// `syncObj` NULL or writable; `sciSyncobj` NULL or a sync object handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSyncObjCreateFromNvsci(
    syncObj: *mut cupvaSyncObj_t,
    sciSyncobj: NvSciSyncObj,
    clientType: cupvaSyncClientType_t,
) -> cupvaError_t {
    guard(|| {
        let client = client_ok(clientType)?;
        if !sil_common::ffi::usable(syncObj) || sciSyncobj.is_null() {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: a sync object handle by contract; NvSciSync validates it.
        let dup = unsafe { nvsci::sync_obj_dup(sciSyncobj) }?;
        let t = REG.new_handle(TAG_SYNC);
        REG.lock()
            .syncs
            .insert(t, Arc::new(SyncObj::imported(t, client, dup)));
        // SAFETY: checked usable above.
        unsafe { out(syncObj, ptr_of(t)) }
    })
}

/// Adds the PVA's NvSciSync attributes for `clientType` to `*attrList`: `RequiredPerm`
/// (signaler SignalOnly, waiter WaitOnly, both WaitSignal) and `PrimitiveInfo` = [sync
/// point, 64-bit semaphore], as the SIL cuDLA does.
///
/// # Safety
/// `attrList` NULL or readable, holding an attribute list handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSyncObjFillAttributes(
    attrList: *mut NvSciSyncAttrList,
    clientType: cupvaSyncClientType_t,
) -> cupvaError_t {
    guard(|| {
        let perm = match clientType {
            CUPVA_SIGNALER => NvSciSyncAccessPerm_SignalOnly,
            CUPVA_WAITER => NvSciSyncAccessPerm_WaitOnly,
            CUPVA_SIGNALER_WAITER => NvSciSyncAccessPerm_WaitSignal,
            _ => return Err(code::INVALID_ARGUMENT),
        };
        // SAFETY: forwarded contract.
        let list = unsafe { inp(attrList) }?;
        let primitives = [
            NvSciSyncAttrValPrimitiveType_Syncpoint,
            NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b,
        ];
        let pairs = [
            NvSciSyncAttrKeyValuePair {
                attrKey: NvSciSyncAttrKey_RequiredPerm,
                value: &perm as *const _ as *const c_void,
                len: core::mem::size_of_val(&perm),
            },
            NvSciSyncAttrKeyValuePair {
                attrKey: NvSciSyncAttrKey_PrimitiveInfo,
                value: primitives.as_ptr() as *const c_void,
                len: core::mem::size_of_val(&primitives),
            },
        ];
        // SAFETY: two valid pairs; NvSciSync validates the list handle.
        let e = unsafe { NvSciSyncAttrListSetAttrs(list, pairs.as_ptr(), pairs.len()) };
        if e == nvsci_sys::NvSciError_Success {
            Ok(())
        } else {
            Err(code::INVALID_ARGUMENT)
        }
    })
}

// --- SIL extension calls ---

/// Adds a VPU ELF SHA-256 to the allowlist.
///
/// # Safety
/// `elfSha256` must be NULL or readable for 32 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSilAllowProgram(elfSha256: *const u8) -> cupvaError_t {
    guard(|| {
        // SAFETY: forwarded contract.
        let h = unsafe { inp(elfSha256 as *const [u8; 32]) }?;
        models::allow_program(h);
        Ok(())
    })
}

/// Registers a C program model (see `register_program_model`); bad names, counts (more
/// than 16 parameters or 64 hashes) or kinds are `CUPVA_INVALID_ARGUMENT`, a hash bound to another program `CUPVA_INVALID_STATE`.
///
/// # Safety
/// Strings NUL-terminated; arrays readable for their counts; the callback callable with
/// `user` from any thread until the process ends.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSilRegisterProgramModel(
    name: *const c_char,
    elfSha256: *const [u8; 32],
    numHashes: u32,
    paramNames: *const *const c_char,
    kinds: *const u32,
    numParams: u32,
    model: CupvaSilProgramModelFn,
    user: *mut c_void,
) -> cupvaError_t {
    guard(|| {
        let callback = model.ok_or(code::INVALID_ARGUMENT)?;
        let n = numParams as usize;
        // Counts past the limits are refused before the arrays are read: a count the array
        // cannot hold would read (and copy) past its end.
        if name.is_null() || n > MAX_PARAMS || numHashes as usize > MAX_ELF_HASHES {
            return Err(code::INVALID_ARGUMENT);
        }
        // SAFETY: readable for the counts by contract.
        let (hashes, names, ks) = unsafe {
            (
                sil_common::ffi::array(elfSha256, numHashes as usize),
                sil_common::ffi::array(paramNames, n),
                sil_common::ffi::array(kinds, n),
            )
        };
        let (Some(hashes), Some(names), Some(ks)) = (hashes, names, ks) else {
            return Err(code::INVALID_ARGUMENT);
        };
        let mut kind_arr = [ParamKind::U32; MAX_PARAMS];
        let mut name_arr: [&str; MAX_PARAMS] = [""; MAX_PARAMS];
        for i in 0..n {
            kind_arr[i] = *ParamKind::ALL
                .get(ks[i] as usize)
                .ok_or(code::INVALID_ARGUMENT)?;
            if names[i].is_null() {
                return Err(code::INVALID_ARGUMENT);
            }
            // SAFETY: NUL-terminated by contract.
            name_arr[i] = unsafe { CStr::from_ptr(names[i]) }
                .to_str()
                .map_err(|_| code::INVALID_ARGUMENT)?;
        }
        // SAFETY: NUL-terminated by contract.
        let name = unsafe { CStr::from_ptr(name) }
            .to_str()
            .map_err(|_| code::INVALID_ARGUMENT)?;
        let m = Model::C {
            callback,
            user: user as usize,
            kinds: kind_arr,
            len: n,
        };
        models::register(name, hashes, &name_arr[..n], m).map_err(|e| match e {
            models::RegisterError::HashTaken => code::INVALID_STATE,
            _ => code::INVALID_ARGUMENT,
        })
    })
}

/// Sets the timing model of one VPU (`vpu` `CUPVA_VPU0` or `CUPVA_VPU1`).
///
/// # Safety
/// `model` NULL or readable (its bin arrays for `numBins`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSilSetTimingModel(
    engine: cupvaEngineType_t,
    vpu: cupvaAffinityType_t,
    model: *const CupvaSilTimingModel,
) -> cupvaError_t {
    guard(|| {
        let e = match engine {
            CUPVA_PVA0 => 0,
            CUPVA_PVA1 => 1,
            _ => return Err(code::INVALID_ARGUMENT),
        };
        let v = match vpu {
            CUPVA_VPU0 => 0,
            CUPVA_VPU1 => 1,
            _ => return Err(code::INVALID_ARGUMENT),
        };
        // SAFETY: forwarded contract.
        let m = unsafe { inp(model) }?;
        let (upper, weights): (&[u64], &[u32]) = if m.kind == CUPVA_SIL_TIMING_HISTOGRAM {
            let n = m.numBins as usize;
            if n == 0 || n > MAX_BINS {
                return Err(code::INVALID_ARGUMENT);
            }
            // SAFETY: both arrays hold `numBins` entries by contract.
            let (u, w) = unsafe {
                (
                    sil_common::ffi::array(m.binUpperNs, n),
                    sil_common::ffi::array(m.binWeights, n),
                )
            };
            (
                u.ok_or(code::INVALID_ARGUMENT)?,
                w.ok_or(code::INVALID_ARGUMENT)?,
            )
        } else {
            (&[], &[])
        };
        let tm = TimingModel::from_parts(m.kind, m.minNs, m.maxNs, upper, weights)
            .map_err(|_| code::INVALID_ARGUMENT)?;
        stream::set_timing(e, v, TimingSampler::new(tm, m.seed));
        Ok(())
    })
}

/// Queues a fault on a stream (at most 8 live rules; more: `CUPVA_INVALID_STATE`).
///
/// # Safety
/// `fault` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSilInjectFault(
    stream: cupvaStream_t,
    fault: *const CupvaSilFault,
) -> cupvaError_t {
    guard(|| {
        let s = stream_of(stream)?;
        // SAFETY: forwarded contract.
        let f = unsafe { inp(fault) }?;
        let kind = match f.kind {
            CUPVA_SIL_FAULT_HANG => FaultKind::Hang,
            CUPVA_SIL_FAULT_LATE => FaultKind::Late(f.extraDelayNs),
            CUPVA_SIL_FAULT_ERROR if f.status != code::NONE => FaultKind::Error(f.status),
            CUPVA_SIL_FAULT_CORRUPT_OUTPUT => FaultKind::Corrupt,
            _ => return Err(code::INVALID_ARGUMENT),
        };
        let rule = FaultRule {
            kind,
            skip: f.skipPrograms,
            remaining: f.count,
        };
        let mut faults = lock(&s.faults);
        let slot = faults
            .iter_mut()
            .find(|x| x.is_none())
            .ok_or(code::INVALID_STATE)?;
        *slot = Some(rule);
        Ok(())
    })
}

/// Removes every queued fault of a stream.
///
/// # Safety
/// Any value may be passed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CupvaSilClearFaults(stream: cupvaStream_t) -> cupvaError_t {
    guard(|| {
        let s = stream_of(stream)?;
        *lock(&s.faults) = [None; MAX_FAULTS];
        Ok(())
    })
}

/// Compile-time proof that every export has exactly the signature `cupva-sys` declares.
#[allow(dead_code)]
fn signatures_match_cupva_sys() {
    use crate::api as twin;
    use cupva_sys::sil as ext;
    sil_common::same_signatures!(ext;
        twin::CupvaSilAllowProgram, twin::CupvaSilRegisterProgramModel,
        twin::CupvaSilSetTimingModel, twin::CupvaSilInjectFault, twin::CupvaSilClearFaults,
    );
    sil_common::same_signatures!(cupva_sys;
        twin::CupvaGetDriverVersion, twin::CupvaGetRuntimeVersion, twin::CupvaGetLastError,
        twin::CupvaExecutableCreate, twin::CupvaExecutableDestroy, twin::CupvaCmdProgramCreate,
        twin::CupvaCmdProgramAddDataFlow, twin::CupvaCmdProgramCompileDataFlows,
        twin::CupvaCmdProgramGetParameter, twin::CupvaParameterSetValueScalar,
        twin::CupvaParameterSetValuePointer, twin::CupvaMemAlloc, twin::CupvaMemFree,
        twin::CupvaMemGetHostPointer, twin::CupvaStreamCreate, twin::CupvaStreamDestroy,
        twin::CupvaStreamSubmit, twin::CupvaCheckCommandStatus, twin::CupvaCmdDestroy,
        twin::CupvaCmdBarrierInit, twin::CupvaCmdRequestFencesInit,
        twin::CupvaCmdWaitOnFencesInit, twin::CupvaSyncObjCreate, twin::CupvaSyncObjDestroy,
        twin::CupvaFenceInit, twin::CupvaFenceGetTimeStamp, twin::CupvaFenceWait,
        twin::CupvaMemFillAttributes, twin::CupvaMemImport, twin::CupvaFenceImport,
        twin::CupvaFenceExport, twin::CupvaSyncObjCreateFromNvsci,
        twin::CupvaSyncObjFillAttributes,
    );
}
