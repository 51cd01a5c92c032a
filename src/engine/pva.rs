//! The PVA engine: the cuPVA host API (PVA SDK), api-facts §7.
//!
//! Per PVA engine of the schedule one cuPVA stream (`CupvaStreamCreate` on `PVA0`/`PVA1`
//! with the engine's VPU affinity); per program one executable from its VPU ELF image
//! (`CupvaExecutableCreate`, after the image is checked against its manifest hash); per task
//! the commands of one frame, made once at init: a command program per buffer copy with its
//! parameters set by name, one wait command per dependency and one fence request. Buffers are
//! NvSciBuf objects imported with `CupvaMemImport` (cuPVA filled its buffer attributes before
//! reconciliation); semaphores are the runtime's deterministic NvSciSync objects, wrapped with
//! `CupvaSyncObjCreateFromNvsci` after cuPVA filled its waiter or signaler attributes
//! (`CupvaSyncObjFillAttributes`).
//!
//! A frame's submission (operational calls only, nothing allocated): import each pre-fence
//! (`CupvaFenceImport`) into its wait command's fence, submit `[waits.., program, request]`
//! `CUPVA_IN_ORDER` with the task's execution timeout and the submit timeout, and export the
//! requested fence (`CupvaFenceExport`) as the task's completion fence. The call order is the
//! NvSci interop group's (PVA SDK 2.8.1,
//! <https://docs.nvidia.com/pva/sdk/2.8.1/pva_sdk_apis/group__CUPVA__Host__NvSci__Interop__C.html>):
//! fill attributes, reconcile, create from NvSci, import fences, request and export.
//!
//! Where the docs are silent the choices are (also in `docs/architecture.md`, "PVA engine"):
//! * **One wait command per dependency**, each on its own fence slot: the number of waits of
//!   a frame varies (dependencies not planned in a mode are dropped), a wait command's count
//!   is fixed at its init, and a command waits on at most 8 fences (C++
//!   `MAX_CMD_WAIT_ON_FENCES_ARRAY_SIZE`). A slot always holds fences of one semaphore.
//! * **One command program per buffer copy** (frame `f` runs program `f % copies`), so that no
//!   parameter is set in the run phase: the docs label `CupvaCmdProgramCreate` init-time and
//!   say nothing of setting parameters after the first submit.
//! * **Execution timeout = the task's deadline plus less than 1 ms**: the smallest whole
//!   number of milliseconds (cuPVA's unit) above the deadline ([`execution_timeout_ms`]). A
//!   program started at or after its frame's release that runs that long has missed its
//!   deadline, so the executive has already reported it (fence timeout at the deadline), and
//!   the stream goes on with the next frame's work instead of staying blocked by a hang.
//! * **Submit timeout = 1 ms** in the run phase ([`SUBMIT_TIMEOUT_MS`], the smallest value the
//!   API takes; 0 is not a valid timeout): the validator bounds each engine's queue, so a
//!   submission that finds no queue space is a fault, reported, never waited out.
//! * **Errors per command**: after a task's fence is reached, `CupvaCheckCommandStatus` of its
//!   program tells whether it failed (the status is final once the fences after it are
//!   signalled). Unlike cuDLA's, a cuPVA command error does not fail the stream.

use core::ffi::{c_char, c_void};
use core::ptr;

use cupva_sys as cp;
use nvsci_sys as ns;

use crate::engine::keep::Hold;
use crate::engine::nvsci::{BufObj, RawFence, SyncAttrList, SyncObj};
use crate::error::{Context, Error, Result, Status, Table};
use crate::limits::{FENCE_HISTORY, MAX_COPIES, MAX_PARAMS, MAX_WAITS};
use crate::table::{MAX_PVA_SYMBOL, Param, PvaAccess, PvaParamKind, PvaProgramDesc, VpuAffinity};

pub(crate) fn check(call: &'static str, status: cp::cupvaError_t, context: Context) -> Result<()> {
    Status::Cupva(status.0).check(status.is_success(), call, context)
}

/// The submit timeout of run-phase submissions, ms (see the module docs).
pub(crate) const SUBMIT_TIMEOUT_MS: i32 = 1;

/// The execution timeout of a task with this deadline: the smallest whole number of ms above
/// it (cuPVA takes ms; `-1` would mean none).
pub(crate) fn execution_timeout_ms(deadline_ns: u64) -> i32 {
    (deadline_ns / 1_000_000 + 1).min(i32::MAX as u64) as i32
}

/// Let cuPVA add its attributes to a buffer's attribute list (before reconciliation).
pub(crate) fn fill_buffer_attributes(list: ns::NvSciBufAttrList, context: Context) -> Result<()> {
    // SAFETY: a live, unreconciled list owned by the caller for the whole call.
    let status = unsafe { cp::CupvaMemFillAttributes(list) };
    check("CupvaMemFillAttributes", status, context)
}

/// The PVA's role on a semaphore.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvaSyncRole {
    /// A PVA task waits on it.
    Waiter,
    /// A PVA task signals it.
    Signaler,
    /// A PVA task signals it and another waits on it.
    SignalerWaiter,
}

impl PvaSyncRole {
    /// The role of a semaphore a PVA task signals (`signals`) and/or waits on (`waits`).
    pub fn of(signals: bool, waits: bool) -> Option<PvaSyncRole> {
        match (signals, waits) {
            (true, true) => Some(PvaSyncRole::SignalerWaiter),
            (true, false) => Some(PvaSyncRole::Signaler),
            (false, true) => Some(PvaSyncRole::Waiter),
            (false, false) => None,
        }
    }

    fn client(self) -> cp::cupvaSyncClientType_t {
        match self {
            PvaSyncRole::Waiter => cp::CUPVA_WAITER,
            PvaSyncRole::Signaler => cp::CUPVA_SIGNALER,
            PvaSyncRole::SignalerWaiter => cp::CUPVA_SIGNALER_WAITER,
        }
    }
}

/// Let cuPVA fill a semaphore's attribute list with its waiter or signaler attributes.
pub fn fill_sync_attributes(
    list: &mut SyncAttrList,
    role: PvaSyncRole,
    context: Context,
) -> Result<()> {
    let mut raw = list.raw();
    // SAFETY: the C API takes a pointer to the list handle (2.8.1 NvSci interop group); the
    // list is live and unreconciled, and cuPVA fills the list it names, not the handle.
    let status = unsafe { cp::CupvaSyncObjFillAttributes(&mut raw, role.client()) };
    check("CupvaSyncObjFillAttributes", status, context)
}

/// A cuPVA stream: the in-order queue of one PVA engine.
#[derive(Debug)]
pub struct PvaStream {
    raw: cp::cupvaStream_t,
    engine: &'static str,
}

// SAFETY: cuPVA streams may be used from any thread; orin-exec submits to one stream from one
// thread at a time (the executive, or init before it).
unsafe impl Send for PvaStream {}
// SAFETY: the &self methods are thread-safe cuPVA calls.
unsafe impl Sync for PvaStream {}

impl PvaStream {
    /// A stream on PVA `index` (0 = `CUPVA_PVA0`, 1 = `CUPVA_PVA1`) with VPU affinity `vpu`.
    pub fn create(index: u8, vpu: VpuAffinity, engine: &'static str) -> Result<Self> {
        let context = Context::Engine(engine);
        let pva = match index {
            0 => cp::CUPVA_PVA0,
            1 => cp::CUPVA_PVA1,
            // Orin has two PVAs; the validator refuses other indices, cuPVA refuses them too.
            _ => cp::CUPVA_ENGINE_TYPE_INVALID,
        };
        let affinity = match vpu {
            VpuAffinity::Vpu0 => cp::CUPVA_VPU0,
            VpuAffinity::Vpu1 => cp::CUPVA_VPU1,
            VpuAffinity::Any => cp::CUPVA_VPU_ANY,
        };
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer; plain enum values.
        let status = unsafe { cp::CupvaStreamCreate(&mut raw, pva, affinity) };
        check("CupvaStreamCreate", status, context)?;
        Ok(PvaStream { raw, engine })
    }

    /// The PVA's power-up delay can make the first submission time out: submit one fence
    /// request and wait for it at init, as the PVA SDK advises
    /// (<https://docs.nvidia.com/pva/sdk/2.10.1/pva_sdk_apis/classcupva_1_1Stream.html>).
    pub fn warm_up(&self, timeout_ms: i32) -> Result<()> {
        let context = Context::Engine(self.engine);
        let mut sync = ptr::null_mut();
        // SAFETY: valid out-pointer; plain values.
        let status = unsafe {
            cp::CupvaSyncObjCreate(
                &mut sync,
                false,
                cp::CUPVA_SIGNALER_WAITER,
                cp::CUPVA_SYNC_YIELD,
            )
        };
        check("CupvaSyncObjCreate", status, context)?;
        let mut fence = cp::cupvaFence_t::default();
        let mut cmd = cp::cupvaCmd_t::default();
        let run = (|| -> Result<()> {
            // SAFETY: `fence` and `cmd` are locals that outlive the submission and the wait
            // below; `sync` is live.
            let status = unsafe { cp::CupvaFenceInit(&mut fence, sync) };
            check("CupvaFenceInit", status, context)?;
            // SAFETY: as above; one fence.
            let status = unsafe { cp::CupvaCmdRequestFencesInit(&mut cmd, &mut fence, 1) };
            check("CupvaCmdRequestFencesInit", status, context)?;
            let cmds = [&cmd as *const cp::cupvaCmd_t];
            // SAFETY: one live command; no status array; the timeouts are positive.
            let status = unsafe {
                cp::CupvaStreamSubmit(
                    self.raw,
                    cmds.as_ptr(),
                    ptr::null_mut(),
                    1,
                    cp::CUPVA_IN_ORDER,
                    timeout_ms,
                    timeout_ms,
                )
            };
            check("CupvaStreamSubmit", status, context)?;
            let mut reached = false;
            // SAFETY: the fence was filled by the submission; valid out-pointer.
            let status =
                unsafe { cp::CupvaFenceWait(&fence, i64::from(timeout_ms) * 1000, &mut reached) };
            check("CupvaFenceWait", status, context)?;
            if reached {
                Ok(())
            } else {
                Err(Error::FenceTimeout {
                    task: self.engine,
                    value: 0,
                })
            }
        })();
        // SAFETY: the command was initialised above (or is all zeros, which cuPVA refuses
        // harmlessly); it was waited for.
        let _ = unsafe { cp::CupvaCmdDestroy(&mut cmd) };
        // SAFETY: created above; its fence was reached or the stream is destroyed later.
        let _ = unsafe { cp::CupvaSyncObjDestroy(sync) };
        run
    }

    /// Destroy the stream (after its work completed; queued work is dropped).
    pub fn destroy(self) -> Result<()> {
        // SAFETY: the stream is destroyed once (self is consumed).
        let status = unsafe { cp::CupvaStreamDestroy(self.raw) };
        check("CupvaStreamDestroy", status, Context::Engine(self.engine))
    }
}

/// A VPU executable loaded from a program's image.
#[derive(Debug)]
pub struct PvaExecutable {
    raw: cp::cupvaExecutable_t,
    program: &'static str,
}

// SAFETY: an executable is an immutable cuPVA object once created; it is only used at init
// and shutdown.
unsafe impl Send for PvaExecutable {}
// SAFETY: as above.
unsafe impl Sync for PvaExecutable {}

impl PvaExecutable {
    /// Load `desc`'s VPU ELF after checking it against the manifest hash. An image outside
    /// the PVA allowlist is [`Error::PvaProgramNotAllowed`]; on `sil`, one without a model
    /// [`Error::NoPvaProgramModel`].
    pub fn create(desc: &PvaProgramDesc) -> Result<Self> {
        if !crate::engine::dla::hash_matches(desc.image, &desc.sha256) {
            return Err(Error::HashMismatch {
                context: Context::Engine(desc.name),
            });
        }
        let size = i32::try_from(desc.image.len()).map_err(|_| Error::PvaImage {
            program: desc.name,
            status: Status::Cupva(cp::CUPVA_INVALID_ARGUMENT.0),
        })?;
        let mut raw = ptr::null_mut();
        // SAFETY: the image is 'static and `size` bytes long; valid out-pointer.
        let status =
            unsafe { cp::CupvaExecutableCreate(&mut raw, desc.image.as_ptr().cast(), size) };
        match status {
            s if s.is_success() => Ok(PvaExecutable {
                raw,
                program: desc.name,
            }),
            // The driver refuses an unlisted VPU ELF (PVA authentication,
            // https://docs.nvidia.com/pva/sdk/2.8.1/vpu-allowlist.html).
            cp::CUPVA_DRIVER_API_ERROR => Err(Error::PvaProgramNotAllowed { program: desc.name }),
            cp::CUPVA_UNSUPPORTED_FEATURE if cfg!(platform = "sil") => {
                Err(Error::NoPvaProgramModel { program: desc.name })
            }
            s => Err(Error::PvaImage {
                program: desc.name,
                status: Status::Cupva(s.0),
            }),
        }
    }

    /// Destroy the executable (after every command program made from it).
    pub fn destroy(self) -> Result<()> {
        // SAFETY: destroyed once (self is consumed).
        let status = unsafe { cp::CupvaExecutableDestroy(self.raw) };
        check(
            "CupvaExecutableDestroy",
            status,
            Context::Engine(self.program),
        )
    }
}

/// A runtime semaphore as a cuPVA sync object (`CupvaSyncObjCreateFromNvsci`). It holds the
/// NvSciSync object, which cannot be freed first.
#[derive(Debug)]
pub struct PvaSync {
    raw: cp::cupvaSyncObj_t,
    _source: Hold,
}

// SAFETY: a cuPVA sync object is a thread-safe handle; orin-exec uses it from one thread at a
// time.
unsafe impl Send for PvaSync {}
// SAFETY: as above.
unsafe impl Sync for PvaSync {}

impl PvaSync {
    /// Wrap `obj` (whose attribute list cuPVA filled for `role`).
    pub fn from_nvsci(obj: &SyncObj, role: PvaSyncRole, context: Context) -> Result<Self> {
        let mut raw = ptr::null_mut();
        // SAFETY: live NvSciSync object; valid out-pointer.
        let status = unsafe { cp::CupvaSyncObjCreateFromNvsci(&mut raw, obj.raw(), role.client()) };
        check("CupvaSyncObjCreateFromNvsci", status, context)?;
        Ok(PvaSync {
            raw,
            _source: obj.hold(),
        })
    }

    /// Destroy it (after the stream that used it): the NvSciSync object may go then.
    pub fn destroy(self) -> Result<()> {
        // SAFETY: destroyed once (self is consumed).
        let status = unsafe { cp::CupvaSyncObjDestroy(self.raw) };
        check("CupvaSyncObjDestroy", status, Context::Semaphore("pva"))
    }
}

/// An NvSciBuf buffer imported into the PVA (`CupvaMemImport`). It holds the buffer.
#[derive(Debug)]
pub struct PvaMem {
    ptr: *mut c_void,
    _source: Hold,
}

// SAFETY: the pointer is a PVA device pointer, never dereferenced by orin-exec.
unsafe impl Send for PvaMem {}
// SAFETY: as above.
unsafe impl Sync for PvaMem {}

impl PvaMem {
    /// Import `buf` for `access` (`CUPVA_READ`, `CUPVA_WRITE` or `CUPVA_READ_WRITE`).
    pub fn import(buf: &BufObj, access: PvaAccess, context: Context) -> Result<Self> {
        let access = match access {
            PvaAccess::Read => cp::CUPVA_READ,
            PvaAccess::Write => cp::CUPVA_WRITE,
            PvaAccess::ReadWrite => cp::CUPVA_READ_WRITE,
        };
        let mut p = ptr::null_mut();
        // SAFETY: a live NvSciBuf object whose attribute list cuPVA filled; valid out-pointer.
        let status = unsafe { cp::CupvaMemImport(&mut p, buf.raw(), access) };
        check("CupvaMemImport", status, context)?;
        Ok(PvaMem {
            ptr: p,
            _source: buf.hold(),
        })
    }

    /// The device pointer a program parameter takes.
    pub fn device_ptr(&self) -> *mut c_void {
        self.ptr
    }

    /// Release the import (after every program that used it completed).
    pub fn free(self) -> Result<()> {
        // SAFETY: an import of this process, freed once (self is consumed).
        let status = unsafe { cp::CupvaMemFree(self.ptr) };
        check("CupvaMemFree", status, Context::Buffer("pva import"))
    }
}

const NO_CMD: cp::cupvaCmd_t = cp::cupvaCmd_t { data: [0; 3] };
const NO_FENCE: cp::cupvaFence_t = cp::cupvaFence_t { data: [0; 6] };

/// Everything one PVA task submits, made at init. It lives in the runtime's static storage
/// and does not move once initialised: its commands keep pointers to its fences.
pub struct PvaTask {
    engine: &'static str,
    /// Index of the task's stream in the runtime's stream table.
    pub stream: usize,
    programs: [cp::cupvaCmd_t; MAX_COPIES],
    n_programs: usize,
    waits: [cp::cupvaCmd_t; MAX_WAITS],
    wait_fences: [cp::cupvaFence_t; MAX_WAITS],
    n_waits: usize,
    request: cp::cupvaCmd_t,
    has_request: bool,
    signal: cp::cupvaFence_t,
    /// Per recent frame: the status handle of the program command (NULL: none submitted).
    status: [cp::cupvaCmdStatus_t; FENCE_HISTORY],
    exec_timeout_ms: i32,
    submitted: bool,
    last_error: Option<Status>,
}

// SAFETY: the commands and fences are caller-owned cuPVA storage, the status handles opaque
// tokens; the executive uses a task from one thread at a time.
unsafe impl Send for PvaTask {}

/// How to set one parameter: the program's parameter spec and the task's value for it, the
/// pointer for a buffer parameter given per program copy.
pub struct PvaParams<'a> {
    /// The program.
    pub desc: &'a PvaProgramDesc,
    /// The task's values, in the program's order.
    pub values: &'a [Param],
    /// Device pointer of buffer parameter `i` (index into `values`) for program copy `c`.
    pub pointer: &'a dyn Fn(usize, usize) -> Result<*mut c_void>,
    /// Program copies (1, 2 or 4: the largest multiplicity of its buffers).
    pub copies: usize,
}

impl PvaTask {
    /// Storage for a task, to be placed where it stays and then initialised.
    pub const EMPTY: PvaTask = PvaTask {
        engine: "",
        stream: 0,
        programs: [NO_CMD; MAX_COPIES],
        n_programs: 0,
        waits: [NO_CMD; MAX_WAITS],
        wait_fences: [NO_FENCE; MAX_WAITS],
        n_waits: 0,
        request: NO_CMD,
        has_request: false,
        signal: NO_FENCE,
        status: [ptr::null_mut(); FENCE_HISTORY],
        exec_timeout_ms: 1,
        submitted: false,
        last_error: None,
    };

    /// Make the task's commands in place: the command programs with their parameters, a
    /// wait command per dependency (`n_waits`), and the request for the fence of `own` (the
    /// task's semaphore). On error, what was made is released by [`PvaTask::destroy`].
    #[allow(clippy::too_many_arguments)]
    pub fn init(
        &mut self,
        engine: &'static str,
        stream: usize,
        exec: &PvaExecutable,
        params: &PvaParams<'_>,
        own: &PvaSync,
        n_waits: usize,
        deadline_ns: u64,
    ) -> Result<()> {
        let context = Context::Engine(engine);
        self.engine = engine;
        self.stream = stream;
        self.exec_timeout_ms = execution_timeout_ms(deadline_ns);
        Table::KernelParams.fits(params.values.len(), MAX_PARAMS)?;
        Table::WaitsPerTask.fits(n_waits, MAX_WAITS)?;
        Table::BufferCopies.fits(params.copies, MAX_COPIES)?;
        for c in 0..params.copies {
            // SAFETY: `programs[c]` is storage of this task; the executable is live.
            let status = unsafe { cp::CupvaCmdProgramCreate(&mut self.programs[c], exec.raw) };
            check("CupvaCmdProgramCreate", status, context)?;
            self.n_programs = c + 1;
            for (i, (spec, value)) in params.desc.params.iter().zip(params.values).enumerate() {
                self.set_param(c, params.desc.name, spec.name, spec.kind, *value, || {
                    (params.pointer)(c, i)
                })?;
            }
            // No dataflows; compiled before the first submit as the Program group says.
            // SAFETY: a live command program of this task.
            let status = unsafe { cp::CupvaCmdProgramCompileDataFlows(&mut self.programs[c]) };
            check("CupvaCmdProgramCompileDataFlows", status, context)?;
        }
        for j in 0..n_waits {
            // SAFETY: the command and its one fence are storage of this task, which does not
            // move (the caller's contract); cuPVA reads the fence at each submit.
            let status = unsafe {
                cp::CupvaCmdWaitOnFencesInit(&mut self.waits[j], &self.wait_fences[j], 1)
            };
            check("CupvaCmdWaitOnFencesInit", status, context)?;
            self.n_waits = j + 1;
        }
        // SAFETY: the fence is storage of this task; the sync object is live.
        let status = unsafe { cp::CupvaFenceInit(&mut self.signal, own.raw) };
        check("CupvaFenceInit", status, context)?;
        // SAFETY: as above: cuPVA fills the fence at each submit.
        let status =
            unsafe { cp::CupvaCmdRequestFencesInit(&mut self.request, &mut self.signal, 1) };
        check("CupvaCmdRequestFencesInit", status, context)?;
        self.has_request = true;
        Ok(())
    }

    fn set_param(
        &mut self,
        copy: usize,
        program: &'static str,
        name: &'static str,
        kind: PvaParamKind,
        value: Param,
        pointer: impl FnOnce() -> Result<*mut c_void>,
    ) -> Result<()> {
        let refused = |status: cp::cupvaError_t| Error::PvaParam {
            program,
            param: name,
            status: Status::Cupva(status.0),
        };
        // NUL-terminated from a fixed buffer (the validator bounds names to MAX_PVA_SYMBOL).
        let mut cname = [0u8; MAX_PVA_SYMBOL + 1];
        if name.len() > MAX_PVA_SYMBOL || name.as_bytes().contains(&0) {
            return Err(refused(cp::CUPVA_INVALID_ARGUMENT));
        }
        cname[..name.len()].copy_from_slice(name.as_bytes());
        let mut param = cp::cupvaParameter_t::default();
        // SAFETY: a live command program of this task; `cname` is NUL-terminated; valid
        // out-pointer.
        let status = unsafe {
            cp::CupvaCmdProgramGetParameter(
                &mut self.programs[copy],
                &mut param,
                cname.as_ptr().cast::<c_char>(),
            )
        };
        if !status.is_success() {
            return Err(refused(status));
        }
        let scalar = |param: &mut cp::cupvaParameter_t, bytes: &[u8]| {
            // SAFETY: `param` was filled above; `bytes` is readable for its length.
            unsafe {
                cp::CupvaParameterSetValueScalar(param, bytes.as_ptr().cast(), bytes.len() as i32)
            }
        };
        let status = match (kind, value) {
            (PvaParamKind::Pointer(_), Param::Buffer(_)) => {
                let p = pointer()?;
                // SAFETY: `param` was filled above; `p` is a live PVA import.
                unsafe { cp::CupvaParameterSetValuePointer(&mut param, p) }
            }
            (PvaParamKind::U32, Param::U32(v)) => scalar(&mut param, &v.to_ne_bytes()),
            (PvaParamKind::I32, Param::I32(v)) => scalar(&mut param, &v.to_ne_bytes()),
            (PvaParamKind::U64, Param::U64(v)) => scalar(&mut param, &v.to_ne_bytes()),
            (PvaParamKind::F32, Param::F32(v)) => scalar(&mut param, &v.to_ne_bytes()),
            _ => cp::CUPVA_INVALID_ARGUMENT,
        };
        if status.is_success() {
            Ok(())
        } else {
            Err(refused(status))
        }
    }

    /// Submit one frame: the pre-fences `waits` (NvSciSync fences already filled) into the
    /// wait commands `slots` (one per wait, distinct), program copy `copy` unless `noop`, the
    /// fence request; the requested fence is exported into `eof`. The program's status handle
    /// is kept for frame slot `h`. Operational calls only; never allocates.
    #[allow(clippy::too_many_arguments)]
    pub fn submit(
        &mut self,
        stream: &PvaStream,
        waits: &[RawFence],
        slots: &[usize],
        copy: usize,
        h: usize,
        noop: bool,
        eof: &mut RawFence,
        submit_timeout_ms: i32,
    ) -> Result<()> {
        let context = Context::Engine(self.engine);
        let mut cmds = [ptr::null::<cp::cupvaCmd_t>(); MAX_WAITS + 2];
        let mut n = 0;
        for (w, &slot) in waits.iter().zip(slots) {
            if slot >= self.n_waits {
                return Err(Error::Capacity {
                    table: Table::WaitsPerTask,
                    limit: self.n_waits as u32,
                });
            }
            // SAFETY: the slot's fence is storage of this task; `w` is a filled NvSciSync
            // fence of a semaphore imported with CupvaSyncObjCreateFromNvsci.
            let status = unsafe { cp::CupvaFenceImport(&mut self.wait_fences[slot], w.as_raw()) };
            check("CupvaFenceImport", status, context)?;
            cmds[n] = &self.waits[slot];
            n += 1;
        }
        let program = if noop || self.n_programs == 0 {
            None
        } else {
            cmds[n] = &self.programs[copy % self.n_programs];
            n += 1;
            Some(n - 1)
        };
        cmds[n] = &self.request;
        n += 1;
        let mut statuses = [ptr::null_mut(); MAX_WAITS + 2];
        // SAFETY: `n` live commands of this task (their fences are its storage); `statuses`
        // holds `n` writable handles; the timeouts are positive.
        let status = unsafe {
            cp::CupvaStreamSubmit(
                stream.raw,
                cmds.as_ptr(),
                statuses.as_mut_ptr(),
                n as i32,
                cp::CUPVA_IN_ORDER,
                self.exec_timeout_ms,
                submit_timeout_ms,
            )
        };
        if !status.is_success() {
            // Kept for the fault report: the task's fence will not come this frame.
            self.last_error = Some(Status::Cupva(status.0));
        }
        check("CupvaStreamSubmit", status, context)?;
        self.submitted = true;
        self.status[h % FENCE_HISTORY] = program.map_or(ptr::null_mut(), |i| statuses[i]);
        // SAFETY: the request filled `signal` at the submission; its sync object came from
        // NvSciSync; `eof` is a valid fence.
        let status = unsafe { cp::CupvaFenceExport(&self.signal, eof.as_raw_mut()) };
        check("CupvaFenceExport", status, context)
    }

    /// After frame slot `h`'s fence was reached: the program's error, if it reported one
    /// (kept as the task's last error).
    pub fn poll_error(&mut self, h: usize) -> Option<Status> {
        let handle = self.status[h % FENCE_HISTORY];
        if handle.is_null() {
            return None;
        }
        let mut code = cp::CUPVA_ERROR_NONE;
        // SAFETY: a status handle cuPVA returned for a command of this task; valid
        // out-pointer.
        let call = unsafe { cp::CupvaCheckCommandStatus(handle, &mut code) };
        let failed = if !call.is_success() {
            Some(Status::Cupva(call.0))
        } else if code.is_success() || code == cp::CUPVA_OPERATION_PENDING {
            None
        } else {
            Some(Status::Cupva(code.0))
        };
        if failed.is_some() {
            self.last_error = failed;
        }
        failed
    }

    /// The last error a program of this task reported.
    pub fn failure(&self) -> Option<Status> {
        self.last_error
    }

    /// Wait up to `timeout_us` for the task's last requested fence (shutdown); `true` when
    /// nothing is outstanding.
    pub fn wait_idle(&self, timeout_us: i64) -> bool {
        if !self.submitted {
            return true;
        }
        let mut reached = false;
        // SAFETY: the fence was filled by the last submission; valid out-pointer.
        let status = unsafe { cp::CupvaFenceWait(&self.signal, timeout_us, &mut reached) };
        status.is_success() && reached
    }

    /// Release the commands (after the stream was destroyed or went idle).
    pub fn destroy(&mut self) -> Result<()> {
        let context = Context::Engine(self.engine);
        let mut first = Ok(());
        let mut destroy = |cmd: &mut cp::cupvaCmd_t| {
            // SAFETY: a command of this task that was initialised and not yet destroyed.
            let status = unsafe { cp::CupvaCmdDestroy(cmd) };
            if first.is_ok() {
                first = check("CupvaCmdDestroy", status, context);
            }
        };
        for c in self.programs[..self.n_programs].iter_mut() {
            destroy(c);
        }
        for c in self.waits[..self.n_waits].iter_mut() {
            destroy(c);
        }
        if self.has_request {
            destroy(&mut self.request);
        }
        self.n_programs = 0;
        self.n_waits = 0;
        self.has_request = false;
        self.submitted = false;
        self.status = [ptr::null_mut(); FENCE_HISTORY];
        first
    }
}

/// PVA fault injection (SIL cuPVA on `sil` and `rig`).
#[cfg(any(platform = "sil", platform = "rig"))]
impl PvaStream {
    /// SIL only: inject a fault into the stream's next program(s).
    pub fn inject_fault(&self, fault: &cp::sil::CupvaSilFault) -> Result<()> {
        // SAFETY: live stream and a valid fault description.
        let status = unsafe { cp::sil::CupvaSilInjectFault(self.raw, fault) };
        check("CupvaSilInjectFault", status, Context::Engine(self.engine))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-PVA-070
    #[test]
    fn the_execution_timeout_is_the_first_whole_ms_past_the_deadline() {
        assert_eq!(execution_timeout_ms(0), 1);
        assert_eq!(execution_timeout_ms(1), 1);
        assert_eq!(execution_timeout_ms(999_999), 1);
        assert_eq!(execution_timeout_ms(1_000_000), 2);
        assert_eq!(execution_timeout_ms(2_000_001), 3);
        assert_eq!(execution_timeout_ms(u64::MAX), i32::MAX);
    }

    /// Covers: REQ-PVA-071
    #[test]
    fn the_pva_role_follows_signal_and_wait() {
        assert_eq!(
            PvaSyncRole::of(true, true),
            Some(PvaSyncRole::SignalerWaiter)
        );
        assert_eq!(PvaSyncRole::of(true, false), Some(PvaSyncRole::Signaler));
        assert_eq!(PvaSyncRole::of(false, true), Some(PvaSyncRole::Waiter));
        assert_eq!(PvaSyncRole::of(false, false), None);
    }
}
