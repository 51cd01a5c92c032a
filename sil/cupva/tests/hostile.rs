//! Hostile arguments through the C ABI: NULL and misaligned pointers, forged, stale and
//! wrong-kind handles, garbage in caller-owned command, fence and parameter storage,
//! out-of-range enums and counts. Every call answers with a `cupvaError_t` (never a crash)
//! and writes nothing on failure.
//!
//! Covers: REQ-PVA-030
#![allow(missing_docs)]

mod common;

use std::ptr::{null, null_mut};

use common::*;

fn forged<T>(v: usize) -> *mut T {
    std::ptr::without_provenance_mut(v)
}

#[test]
fn hostile_arguments_are_refused() {
    let _s = serial();
    const BAD: cupvaError_t = CUPVA_INVALID_ARGUMENT;
    let s = stream();
    let sync = native_sync();
    let (src, dst) = (alloc(N), alloc(N));
    let prog = Prog::new(src, dst, 1);
    let mut garbage_cmd = cupvaCmd_t {
        data: [0x1234, 0x5678, 0x9abc],
    };
    let garbage_fence = cupvaFence_t { data: [7; 6] };
    let mut fence = cupvaFence_t::default();
    let mut par = cupvaParameter_t::default();
    let mut out_ptr: *mut core::ffi::c_void = null_mut();
    let mut e = CUPVA_ERROR_NONE;
    let mut done = true;
    let mut ts = 0u64;
    // SAFETY: every pointer is NULL, forged (never dereferenced by a correct twin) or valid.
    unsafe {
        // Executables.
        assert_eq!(
            CupvaExecutableCreate(null_mut(), SCALE_ELF.as_ptr().cast(), 8),
            BAD
        );
        let mut ex = null_mut();
        assert_eq!(CupvaExecutableCreate(&mut ex, null(), 8), BAD);
        assert_eq!(
            CupvaExecutableCreate(&mut ex, SCALE_ELF.as_ptr().cast(), 0),
            BAD
        );
        assert_eq!(
            CupvaExecutableCreate(&mut ex, SCALE_ELF.as_ptr().cast(), -5),
            BAD
        );
        assert!(ex.is_null());
        assert_eq!(CupvaExecutableDestroy(forged(0xdead_0000)), BAD);
        assert_eq!(CupvaCmdProgramCreate(&mut garbage_cmd, forged(0x1000)), BAD);
        // Commands: garbage storage, NULL, a stream handle as a command.
        assert_eq!(CupvaCmdDestroy(&mut garbage_cmd), BAD);
        assert_eq!(CupvaCmdDestroy(null_mut()), BAD);
        assert_eq!(CupvaCmdDestroy(forged(0x11)), BAD, "misaligned");
        assert_eq!(CupvaCmdProgramCompileDataFlows(&mut garbage_cmd), BAD);
        assert_eq!(CupvaCmdBarrierInit(null_mut()), BAD);
        assert_eq!(
            CupvaCmdRequestFencesInit(&mut garbage_cmd, &mut fence, 0),
            BAD
        );
        assert_eq!(
            CupvaCmdRequestFencesInit(&mut garbage_cmd, &mut fence, 5),
            BAD
        );
        assert_eq!(
            CupvaCmdRequestFencesInit(&mut garbage_cmd, null_mut(), 1),
            BAD
        );
        assert_eq!(CupvaCmdWaitOnFencesInit(&mut garbage_cmd, &fence, 9), BAD);
        assert_eq!(CupvaCmdWaitOnFencesInit(&mut garbage_cmd, &fence, -1), BAD);
        // Parameters: unknown names, wrong sizes and kinds, foreign pointers, garbage.
        let name = c"no_such_param";
        assert_eq!(
            CupvaCmdProgramGetParameter(prog.cmd_ptr(), &mut par, name.as_ptr()),
            BAD
        );
        assert_eq!(
            CupvaCmdProgramGetParameter(prog.cmd_ptr(), &mut par, null()),
            BAD
        );
        assert_eq!(
            CupvaCmdProgramGetParameter(&mut garbage_cmd, &mut par, c"n".as_ptr()),
            BAD
        );
        ok(CupvaCmdProgramGetParameter(
            prog.cmd_ptr(),
            &mut par,
            c"n".as_ptr(),
        ));
        let v = 5u64;
        assert_eq!(
            CupvaParameterSetValueScalar(&mut par, (&v as *const u64).cast(), 8),
            BAD
        );
        assert_eq!(CupvaParameterSetValueScalar(&mut par, null(), 4), BAD);
        assert_eq!(
            CupvaParameterSetValuePointer(&mut par, src.cast()),
            BAD,
            "n is a scalar"
        );
        ok(CupvaCmdProgramGetParameter(
            prog.cmd_ptr(),
            &mut par,
            c"src".as_ptr(),
        ));
        let local = [0u8; 16];
        assert_eq!(
            CupvaParameterSetValuePointer(&mut par, local.as_ptr().cast()),
            BAD
        );
        assert_eq!(
            CupvaParameterSetValueScalar(&mut par, (&v as *const u64).cast(), 8),
            BAD
        );
        let mut gpar = cupvaParameter_t { data: [1, 2] };
        assert_eq!(
            CupvaParameterSetValuePointer(&mut gpar, src.cast()),
            CUPVA_UNINITIALIZED_OBJECT
        );
        // Memory.
        assert_eq!(
            CupvaMemAlloc(&mut out_ptr, 0, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM),
            BAD
        );
        assert_eq!(
            CupvaMemAlloc(&mut out_ptr, -1, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM),
            BAD
        );
        assert_eq!(
            CupvaMemAlloc(&mut out_ptr, 64, cupvaMemAccessType_t(9), CUPVA_ALLOC_DRAM),
            BAD
        );
        assert_eq!(
            CupvaMemAlloc(&mut out_ptr, 64, CUPVA_READ_WRITE, cupvaMemAllocType_t(0)),
            BAD
        );
        assert_eq!(
            CupvaMemAlloc(null_mut(), 64, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM),
            BAD
        );
        assert_eq!(
            CupvaMemAlloc(&mut out_ptr, i64::MAX, CUPVA_READ_WRITE, CUPVA_ALLOC_DRAM),
            BAD
        );
        assert!(out_ptr.is_null());
        assert_eq!(CupvaMemFree(local.as_ptr() as *mut _), BAD);
        assert_eq!(
            CupvaMemGetHostPointer(&mut out_ptr, local.as_ptr() as *mut _),
            BAD
        );
        assert_eq!(CupvaMemImport(&mut out_ptr, null_mut(), CUPVA_READ), BAD);
        assert_eq!(
            CupvaMemImport(&mut out_ptr, forged(0x7777_0000), CUPVA_READ),
            BAD
        );
        assert_eq!(CupvaMemFillAttributes(null_mut()), BAD);
        // Streams.
        let mut st = null_mut();
        assert_eq!(
            CupvaStreamCreate(&mut st, cupvaEngineType_t(3), CUPVA_VPU0),
            BAD
        );
        assert_eq!(
            CupvaStreamCreate(&mut st, CUPVA_PVA0, cupvaAffinityType_t(0)),
            BAD
        );
        assert_eq!(CupvaStreamCreate(null_mut(), CUPVA_PVA0, CUPVA_VPU0), BAD);
        assert!(st.is_null());
        assert_eq!(CupvaStreamDestroy(forged(0x4242_0000)), BAD);
        assert_eq!(
            CupvaStreamDestroy(sync.cast()),
            BAD,
            "a sync object is not a stream"
        );
        let c = prog.cmd_ptr() as *const cupvaCmd_t;
        let sub =
            |s: cupvaStream_t,
             cmds: *const *const cupvaCmd_t,
             n: i32,
             o: cupvaOrderType_t,
             et: i32,
             stt: i32| { CupvaStreamSubmit(s, cmds, null_mut(), n, o, et, stt) };
        assert_eq!(sub(forged(0x99), &c, 1, CUPVA_IN_ORDER, -1, -1), BAD);
        assert_eq!(sub(s, &c, 0, CUPVA_IN_ORDER, -1, -1), BAD);
        assert_eq!(sub(s, &c, -3, CUPVA_IN_ORDER, -1, -1), BAD);
        assert_eq!(sub(s, &c, 257, CUPVA_IN_ORDER, -1, -1), BAD);
        assert_eq!(sub(s, null(), 1, CUPVA_IN_ORDER, -1, -1), BAD);
        assert_eq!(sub(s, &c, 1, cupvaOrderType_t(7), -1, -1), BAD);
        assert_eq!(sub(s, &c, 1, CUPVA_IN_ORDER, 0, -1), BAD);
        assert_eq!(sub(s, &c, 1, CUPVA_IN_ORDER, -1, -2), BAD);
        let gc = &garbage_cmd as *const cupvaCmd_t;
        assert_eq!(sub(s, &gc, 1, CUPVA_IN_ORDER, -1, -1), BAD);
        let nul: *const cupvaCmd_t = null();
        assert_eq!(sub(s, &nul, 1, CUPVA_IN_ORDER, -1, -1), BAD);
        // A program with an unset parameter is refused as a whole.
        let (mut ex2, mut fresh) = (null_mut(), cupvaCmd_t::default());
        ok(CupvaExecutableCreate(
            &mut ex2,
            SCALE_ELF.as_ptr().cast(),
            SCALE_ELF.len() as i32,
        ));
        ok(CupvaCmdProgramCreate(&mut fresh, ex2));
        let fc = &fresh as *const cupvaCmd_t;
        assert_eq!(
            sub(s, &fc, 1, CUPVA_IN_ORDER, -1, -1),
            CUPVA_UNINITIALIZED_OBJECT
        );
        // A wait on a fence nobody filled.
        let mut wcmd = cupvaCmd_t::default();
        ok(CupvaFenceInit(&mut fence, sync));
        ok(CupvaCmdWaitOnFencesInit(&mut wcmd, &fence, 1));
        let wc = &wcmd as *const cupvaCmd_t;
        assert_eq!(sub(s, &wc, 1, CUPVA_IN_ORDER, -1, -1), CUPVA_INVALID_STATE);
        // Command statuses.
        assert_eq!(CupvaCheckCommandStatus(forged(0x1234), &mut e), BAD);
        assert_eq!(
            CupvaCheckCommandStatus(forged(0xC057_0000_0000_0000), &mut e),
            BAD
        );
        let st1 = submit(s, &[prog.cmd_ptr()], -1);
        assert_eq!(CupvaCheckCommandStatus(st1[0], null_mut()), BAD);
        // Sync objects and fences.
        let mut so = null_mut();
        assert_eq!(
            CupvaSyncObjCreate(&mut so, false, cupvaSyncClientType_t(0), CUPVA_SYNC_YIELD),
            BAD
        );
        assert_eq!(
            CupvaSyncObjCreate(&mut so, false, CUPVA_WAITER, cupvaSyncWaitMode_t(3)),
            BAD
        );
        assert_eq!(
            CupvaSyncObjCreate(null_mut(), false, CUPVA_WAITER, CUPVA_SYNC_YIELD),
            BAD
        );
        assert!(so.is_null());
        assert_eq!(CupvaSyncObjDestroy(forged(0x5555_0000)), BAD);
        assert_eq!(
            CupvaSyncObjCreateFromNvsci(&mut so, null_mut(), CUPVA_WAITER),
            BAD
        );
        assert_eq!(
            CupvaSyncObjCreateFromNvsci(&mut so, forged(0x6666_0000), CUPVA_WAITER),
            BAD
        );
        assert_eq!(CupvaFenceInit(&mut fence, forged(0x31)), BAD);
        assert_eq!(CupvaFenceInit(null_mut(), sync), BAD);
        assert_eq!(
            CupvaFenceWait(&garbage_fence, 0, &mut done),
            CUPVA_UNINITIALIZED_OBJECT
        );
        assert_eq!(
            CupvaFenceWait(&fence, 0, &mut done),
            CUPVA_INVALID_STATE,
            "not filled"
        );
        assert_eq!(CupvaFenceWait(&fence, -7, &mut done), BAD);
        assert_eq!(CupvaFenceWait(null(), 0, &mut done), BAD);
        assert_eq!(
            CupvaFenceGetTimeStamp(&garbage_fence, &mut ts),
            CUPVA_UNINITIALIZED_OBJECT
        );
        assert_eq!(CupvaFenceImport(&mut fence, null()), BAD);
        let sci_garbage = NvSciSyncFence { payload: [3; 6] };
        assert_eq!(CupvaFenceImport(&mut fence, &sci_garbage), BAD);
        let mut sci_out = NvSciSyncFenceInitializer;
        assert_eq!(
            CupvaFenceExport(&garbage_fence, &mut sci_out),
            CUPVA_UNINITIALIZED_OBJECT
        );
        assert_eq!(sci_out, NvSciSyncFenceInitializer);
        let mut list = null_mut();
        assert_eq!(CupvaSyncObjFillAttributes(null_mut(), CUPVA_WAITER), BAD);
        assert_eq!(
            CupvaSyncObjFillAttributes(&mut list, cupvaSyncClientType_t(4)),
            BAD
        );
        // SIL extension calls.
        assert_eq!(CupvaSilAllowProgram(null()), BAD);
        assert_eq!(CupvaSilInjectFault(s, null()), BAD);
        let f = CupvaSilFault {
            kind: 99,
            status: 0,
            skipPrograms: 0,
            count: 1,
            extraDelayNs: 0,
        };
        assert_eq!(CupvaSilInjectFault(s, &f), BAD);
        let f = CupvaSilFault {
            kind: CUPVA_SIL_FAULT_ERROR,
            ..f
        };
        assert_eq!(
            CupvaSilInjectFault(s, &f),
            BAD,
            "an error fault needs an error"
        );
        assert_eq!(CupvaSilClearFaults(forged(8)), BAD);
        assert_eq!(
            CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU_ANY, null()),
            BAD
        );
        let m = CupvaSilTimingModel {
            kind: CUPVA_SIL_TIMING_HISTOGRAM,
            numBins: 40,
            minNs: 0,
            maxNs: 0,
            binUpperNs: null(),
            binWeights: null(),
            seed: 0,
        };
        assert_eq!(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
        let m = CupvaSilTimingModel {
            kind: CUPVA_SIL_TIMING_UNIFORM,
            minNs: 9,
            maxNs: 1,
            numBins: 0,
            ..m
        };
        assert_eq!(CupvaSilSetTimingModel(CUPVA_PVA0, CUPVA_VPU0, &m), BAD);
        assert_eq!(
            CupvaSilRegisterProgramModel(null(), null(), 0, null(), null(), 0, None, null_mut()),
            BAD
        );
        assert_eq!(CupvaGetRuntimeVersion(null_mut()), BAD);
        ok(CupvaStreamDestroy(s));
        assert_eq!(CupvaStreamDestroy(s), BAD, "stale");
    }
}

/// `CupvaMemFillAttributes` fills only what the vendor call could fill: a live unreconciled
/// NvSciBuf list. Forged, freed, reconciled and NvSciSync lists are refused.
#[test]
fn mem_fill_attributes_checks_the_list() {
    let _s = serial();
    let sci = Sci::new();
    // SAFETY: every handle is NULL, forged (never dereferenced by a correct twin) or live.
    unsafe {
        assert_eq!(CupvaMemFillAttributes(null_mut()), CUPVA_INVALID_ARGUMENT);
        assert_eq!(
            CupvaMemFillAttributes(forged(0x7e57_ab1e0)),
            CUPVA_INVALID_ARGUMENT
        );
        let mut list = null_mut();
        sok(NvSciBufAttrListCreate(sci.buf, &mut list));
        ok(CupvaMemFillAttributes(list));
        NvSciBufAttrListFree(list);
        assert_eq!(
            CupvaMemFillAttributes(list),
            CUPVA_INVALID_ARGUMENT,
            "freed"
        );
        let mut sync_list = null_mut();
        sok(NvSciSyncAttrListCreate(sci.sync, &mut sync_list));
        assert_eq!(
            CupvaMemFillAttributes(sync_list.cast()),
            CUPVA_INVALID_ARGUMENT,
            "an NvSciSync list"
        );
        NvSciSyncAttrListFree(sync_list);
        let obj = sci.raw(64);
        let mut reconciled = null_mut();
        sok(NvSciBufObjGetAttrList(obj, &mut reconciled));
        assert_eq!(
            CupvaMemFillAttributes(reconciled),
            CUPVA_INVALID_ARGUMENT,
            "a reconciled list"
        );
        NvSciBufObjFree(obj);
    }
}

/// The Rust registration refuses bad names, counts and clashing images with a typed error
/// that says what to fix.
#[test]
fn registration_errors_are_typed() {
    let _s = serial();
    use cupva_host::{RegisterError, register_program_model};
    let h = [[0x77; 32]];
    assert_eq!(
        register_program_model("", &h, &["a", "b", "c", "d"], &SCALE),
        Err(RegisterError::BadName)
    );
    assert_eq!(
        register_program_model("x", &h, &["a", "a", "c", "d"], &SCALE),
        Err(RegisterError::BadName)
    );
    assert_eq!(
        register_program_model("x", &[], &["a", "b", "c", "d"], &SCALE),
        Err(RegisterError::NoElfHash)
    );
    let e = register_program_model("x", &h, &["a"], &SCALE).unwrap_err();
    assert_eq!(
        e,
        RegisterError::ParamCount {
            names: 1,
            params: 4
        }
    );
    assert!(e.to_string().contains("one name per parameter"));
    assert_eq!(
        register_program_model("other", &[sha(SCALE_ELF)], &["a", "b", "c", "d"], &SCALE),
        Err(RegisterError::HashTaken)
    );
}
