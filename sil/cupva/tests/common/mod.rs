//! Helpers of the sil-cupva integration tests: everything goes through the C ABI
//! (`cupva-sys`, `nvsci-sys`), as a C client would.
#![allow(dead_code, missing_docs)]

use std::ffi::{CString, c_void};
use std::ptr::{null, null_mut};
use std::sync::{Mutex, MutexGuard};

pub use cupva_sys::sil::*;
pub use cupva_sys::*;
pub use nvsci_sys::*;

use cupva_host as _;
use nvscibuf as _;
use nvscisync as _;
#[path = "../../../common/test-support/nvsci.rs"]
mod nvsci;
pub use nvsci::*;

use orin_exec_kernel_model::{KernelModel, Launch, ModelError, ParamKind, read, write};
use sha2::{Digest, Sha256};

/// A stand-in VPU ELF image of the `scale` program (only its SHA-256 matters to the SIL).
pub const SCALE_ELF: &[u8] = b"\x7fELF\x01\x01\x01\0sil-cupva test program: scale v1";
/// An image nobody allowlisted.
pub const ROGUE_ELF: &[u8] = b"\x7fELF\x01\x01\x01\0sil-cupva test program: rogue";
/// Bytes the tests run through `scale`.
pub const N: usize = 64;

/// `scale(const uint8_t* src, uint8_t* dst, uint32_t n, uint32_t gain)`:
/// `dst[i] = src[i] * gain` (wrapping).
pub struct Scale;

impl KernelModel for Scale {
    fn params(&self) -> &[ParamKind] {
        &[
            ParamKind::DevPtr,
            ParamKind::DevPtr,
            ParamKind::U32,
            ParamKind::U32,
        ]
    }
    fn launch(&self, l: &mut Launch<'_>) -> Result<(), ModelError> {
        let (n, gain) = (l.u32(2)? as usize, l.u32(3)? as u8);
        let (src, dst) = l.buffers((read::<u8>(0, n), write::<u8>(1, n)))?;
        for (d, s) in dst.iter_mut().zip(src) {
            *d = s.wrapping_mul(gain);
        }
        Ok(())
    }
}

pub static SCALE: Scale = Scale;

pub fn sha(image: &[u8]) -> [u8; 32] {
    Sha256::digest(image).into()
}

/// The input the tests feed and the output `scale` must produce for it (computed
/// independently of the model).
pub fn golden(gain: u8) -> ([u8; N], [u8; N]) {
    let mut i = [0u8; N];
    let mut o = [0u8; N];
    for k in 0..N {
        i[k] = (k as u8).wrapping_mul(7).wrapping_add(3);
        o[k] = ((u32::from(i[k]) * u32::from(gain)) % 256) as u8;
    }
    (i, o)
}

static SERIAL: Mutex<()> = Mutex::new(());

/// Tests of one binary share the VPU timing models: run them one at a time; registers and
/// allowlists `scale` and sets a fast fixed timing model on every VPU.
pub fn serial() -> MutexGuard<'static, ()> {
    let g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    cupva_host::register_program_model(
        "scale",
        &[sha(SCALE_ELF)],
        &["src", "dst", "n", "gain"],
        &SCALE,
    )
    .expect("scale registers");
    cupva_host::allow_program(sha(SCALE_ELF));
    for e in [CUPVA_PVA0, CUPVA_PVA1] {
        for v in [CUPVA_VPU0, CUPVA_VPU1] {
            timing(e, v, 100_000);
        }
    }
    g
}

#[track_caller]
pub fn ok(e: cupvaError_t) {
    assert_eq!(e, CUPVA_ERROR_NONE);
}

/// A fixed timing model on one VPU.
pub fn timing(engine: cupvaEngineType_t, vpu: cupvaAffinityType_t, ns: u64) {
    let m = CupvaSilTimingModel {
        kind: CUPVA_SIL_TIMING_FIXED,
        numBins: 0,
        minNs: ns,
        maxNs: ns,
        binUpperNs: null(),
        binWeights: null(),
        seed: 1,
    };
    // SAFETY: a valid model.
    ok(unsafe { CupvaSilSetTimingModel(engine, vpu, &m) });
}

/// Queues a fault on a stream.
pub fn fault(s: cupvaStream_t, kind: u32, status: u32, extra_ns: u64) {
    let f = CupvaSilFault {
        kind,
        status,
        skipPrograms: 0,
        count: 1,
        extraDelayNs: extra_ns,
    };
    // SAFETY: a live stream and a valid fault.
    ok(unsafe { CupvaSilInjectFault(s, &f) });
}

/// A stream on PVA0 / VPU0.
pub fn stream() -> cupvaStream_t {
    let mut s = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { CupvaStreamCreate(&mut s, CUPVA_PVA0, CUPVA_VPU0) });
    s
}

/// A native sync object both the PVA and the CPU use, with timestamps.
pub fn native_sync() -> cupvaSyncObj_t {
    let mut s = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { CupvaSyncObjCreate(&mut s, true, CUPVA_SIGNALER_WAITER, CUPVA_SYNC_YIELD) });
    s
}

/// `n` bytes of PVA memory and its host pointer.
pub fn alloc(n: usize) -> *mut u8 {
    let mut p = null_mut();
    // SAFETY: valid out-pointer.
    ok(unsafe { CupvaMemAlloc(&mut p, n as i64, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM) });
    let mut h = null_mut();
    // SAFETY: valid out-pointer; `p` is PVA memory.
    ok(unsafe { CupvaMemGetHostPointer(&mut h, p) });
    h as *mut u8
}

/// The N bytes of PVA memory at `p` (a host address in the SIL).
pub fn bytes(p: *const u8) -> Vec<u8> {
    // SAFETY: every caller passes the start of at least N bytes of PVA memory.
    unsafe { std::slice::from_raw_parts(p, N) }.to_vec()
}

/// A `scale` command program over `src` and `dst`.
pub struct Prog {
    pub exec: cupvaExecutable_t,
    pub cmd: Box<cupvaCmd_t>,
}

impl Prog {
    pub fn new(src: *const u8, dst: *mut u8, gain: u32) -> Self {
        let mut exec = null_mut();
        let mut cmd = Box::new(cupvaCmd_t::default());
        // SAFETY: C ABI calls with valid pointers; `src`/`dst` are PVA memory.
        unsafe {
            ok(CupvaExecutableCreate(
                &mut exec,
                SCALE_ELF.as_ptr().cast(),
                SCALE_ELF.len() as i32,
            ));
            ok(CupvaCmdProgramCreate(&mut *cmd, exec));
        }
        let p = Prog { exec, cmd };
        p.ptr("src", src.cast());
        p.ptr("dst", dst.cast());
        p.u32("n", N as u32);
        p.u32("gain", gain);
        p
    }

    fn param(&self, name: &str) -> cupvaParameter_t {
        let mut par = cupvaParameter_t::default();
        let c = CString::new(name).expect("name");
        // SAFETY: live command, valid out-pointer and string.
        ok(unsafe { CupvaCmdProgramGetParameter(self.cmd_ptr(), &mut par, c.as_ptr()) });
        par
    }

    pub fn ptr(&self, name: &str, p: *const c_void) {
        let mut par = self.param(name);
        // SAFETY: a parameter from this command.
        ok(unsafe { CupvaParameterSetValuePointer(&mut par, p) });
    }

    pub fn u32(&self, name: &str, v: u32) {
        let mut par = self.param(name);
        // SAFETY: a parameter from this command; 4 readable bytes.
        ok(unsafe { CupvaParameterSetValueScalar(&mut par, (&v as *const u32).cast(), 4) });
    }

    pub fn cmd_ptr(&self) -> *mut cupvaCmd_t {
        &*self.cmd as *const cupvaCmd_t as *mut cupvaCmd_t
    }
}

/// Request-fences and wait-on-fences commands over caller-owned fences.
pub struct Fences {
    pub fences: Box<[cupvaFence_t; 4]>,
    pub cmd: Box<cupvaCmd_t>,
}

impl Fences {
    /// A RequestFences command for `n` fences of `sync`.
    pub fn request(sync: cupvaSyncObj_t, n: usize) -> Self {
        let mut f = Fences {
            fences: Box::new([cupvaFence_t::default(); 4]),
            cmd: Box::new(cupvaCmd_t::default()),
        };
        // SAFETY: live sync object; the boxes outlive the command's use.
        unsafe {
            for k in 0..n {
                ok(CupvaFenceInit(&mut f.fences[k], sync));
            }
            ok(CupvaCmdRequestFencesInit(
                &mut *f.cmd,
                f.fences.as_mut_ptr(),
                n as i32,
            ));
        }
        f
    }

    /// A WaitOnFences command over `n` fences (filled before each submit).
    pub fn wait(n: usize) -> Self {
        let mut f = Fences {
            fences: Box::new([cupvaFence_t::default(); 4]),
            cmd: Box::new(cupvaCmd_t::default()),
        };
        // SAFETY: the boxes outlive the command's use.
        ok(unsafe { CupvaCmdWaitOnFencesInit(&mut *f.cmd, f.fences.as_ptr(), n as i32) });
        f
    }

    pub fn cmd_ptr(&self) -> *const cupvaCmd_t {
        &*self.cmd
    }
}

/// Submits commands in order; returns their statuses.
pub fn submit(s: cupvaStream_t, cmds: &[*const cupvaCmd_t], exec_ms: i32) -> Vec<cupvaCmdStatus_t> {
    let mut st = vec![null_mut(); cmds.len()];
    // SAFETY: live stream and commands; `st` has one slot per command.
    ok(unsafe {
        CupvaStreamSubmit(
            s,
            cmds.as_ptr(),
            st.as_mut_ptr(),
            cmds.len() as i32,
            CUPVA_IN_ORDER,
            exec_ms,
            -1,
        )
    });
    st
}

/// Waits for a filled fence on the CPU (10 s cap).
#[track_caller]
pub fn wait(f: &cupvaFence_t) {
    let mut done = false;
    // SAFETY: a filled fence and a valid out-pointer.
    ok(unsafe { CupvaFenceWait(f, 10_000_000, &mut done) });
    assert!(done, "fence not reached within 10 s");
}

/// A command's status.
pub fn status(st: cupvaCmdStatus_t) -> cupvaError_t {
    let mut e = CUPVA_INTERNAL_ERROR;
    // SAFETY: a status handle from a submit and a valid out-pointer.
    ok(unsafe { CupvaCheckCommandStatus(st, &mut e) });
    e
}

impl Sci {
    /// An NvSciSync object between the CPU and the PVA. `pva` is the PVA's role
    /// (`CUPVA_WAITER`: the CPU signals; `CUPVA_SIGNALER`: the CPU waits).
    pub fn sync(&self, pva: cupvaSyncClientType_t, deterministic: bool) -> NvSciSyncObj {
        let det = true;
        let extra: &[_] = if deterministic {
            &[spair(NvSciSyncAttrKey_RequireDeterministicFences, &det)]
        } else {
            &[]
        };
        self.sync_with(pva == CUPVA_WAITER, extra, |l| {
            // SAFETY: a live unreconciled list.
            ok(unsafe { CupvaSyncObjFillAttributes(l, pva) })
        })
    }

    /// A CPU-accessible raw NvSciBuf buffer of `size` bytes, with the PVA's attributes.
    pub fn raw(&self, size: u64) -> NvSciBufObj {
        self.raw_with(size, |l| {
            // SAFETY: a live unreconciled list.
            ok(unsafe { CupvaMemFillAttributes(l) })
        })
    }
}

/// `scale` over fresh PVA memory that holds the golden input for `gain`: the program, its
/// output memory and the output it must produce there.
pub fn golden_prog(gain: u8) -> (Prog, *mut u8, [u8; N]) {
    let (input, expected) = golden(gain);
    let (src, dst) = (alloc(N), alloc(N));
    // SAFETY: `src` is N bytes of PVA memory, host-visible.
    unsafe { std::ptr::copy_nonoverlapping(input.as_ptr(), src, N) };
    (Prog::new(src, dst, u32::from(gain)), dst, expected)
}

/// An NvSciSync object between the CPU and the PVA (as [`Sci::sync`]), registered with
/// cuPVA in the PVA's role `pva`.
pub fn nvsci_sync(
    sci: &Sci,
    pva: cupvaSyncClientType_t,
    deterministic: bool,
) -> (NvSciSyncObj, cupvaSyncObj_t) {
    let obj = sci.sync(pva, deterministic);
    let mut sync = null_mut();
    // SAFETY: a live NvSciSync object and a valid out-pointer.
    ok(unsafe { CupvaSyncObjCreateFromNvsci(&mut sync, obj, pva) });
    (obj, sync)
}

/// A WaitOnFences command on a CPU pre-fence of a new object the CPU signals, imported:
/// the object (`NvSciSyncObjSignal` releases the wait), the fence (the test clears it) and
/// the command.
pub fn pre_fence_wait(sci: &Sci) -> (NvSciSyncObj, NvSciSyncFence, Fences) {
    let (obj, _) = nvsci_sync(sci, CUPVA_WAITER, false);
    let mut pre = NvSciSyncFenceInitializer;
    let mut waits = Fences::wait(1);
    // SAFETY: C ABI calls with a live, registered object and pointers to live locals.
    unsafe {
        sok(NvSciSyncObjGenerateFence(obj, &mut pre));
        ok(CupvaFenceImport(&mut waits.fences[0], &pre));
    }
    (obj, pre, waits)
}
