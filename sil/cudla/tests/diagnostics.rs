//! Fault diagnostics (`cudla.h` 1.5): `cudlaModuleLoadFromMemory(dev, NULL, 0, &m,
//! CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS)` loads the internal diagnostics module;
//! `cudlaSubmitTask(..., CUDLA_SUBMIT_DIAGNOSTICS_TASK)` with NULL inputs and its output runs
//! it and writes the SIL's result record; `CUDLA_SIL_FAULT_PERMANENT` makes it report a fault.
//!
//! Covers: REQ-DLA-010
#![allow(missing_docs)]

mod common;

use std::ptr::{null, null_mut};

use common::*;
use cudla::diag;

struct Diag {
    dev: cudlaDevHandle,
    module: cudlaModule,
    out: NvSciBufObj,
    out_ptr: [*mut u64; 1],
}

fn load_diag(sci: &Sci, device: u64) -> Diag {
    let dev = create(device);
    let mut module = null_mut();
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        ok(cudlaModuleLoadFromMemory(
            dev,
            null(),
            0,
            &mut module,
            CUDLA_MODULE_ENABLE_FAULT_DIAGNOSTICS.0,
        ));
        assert_eq!(module_counts(module), (0, 1, 0));
        let mut a = cudlaModuleAttribute { numInputTensors: 9 };
        let mut d: [cudlaModuleTensorDescriptor; 1] = std::mem::zeroed();
        a.outputTensorDesc = d.as_mut_ptr();
        ok(cudlaModuleGetAttributes(
            module,
            CUDLA_OUTPUT_TENSOR_DESCRIPTORS,
            &mut a,
        ));
        assert_eq!(tensor_name(&d[0]), "dla_fault_diagnostics");
        assert_eq!(d[0].size, diag::RESULT_LEN as u64);
        // No inputs: the input-descriptor query writes nothing, even through NULL.
        a.inputTensorDesc = null_mut();
        ok(cudlaModuleGetAttributes(
            module,
            CUDLA_INPUT_TENSOR_DESCRIPTORS,
            &mut a,
        ));
        let out = sci.tensor(d[0].size);
        let out_ptr = [import_mem(dev, out, d[0].size, 0)];
        Diag {
            dev,
            module,
            out,
            out_ptr,
        }
    }
}

impl Diag {
    fn task(&self, s: Option<&mut cudlaSignalEvents>) -> cudlaTask {
        cudlaTask {
            moduleHandle: self.module,
            outputTensor: self.out_ptr.as_ptr(),
            numOutputTensors: 1,
            numInputTensors: 0,
            inputTensor: null(),
            waitEvents: null(),
            signalEvents: s.map_or(null_mut(), |s| s as *mut _),
        }
    }

    fn submit(&self, t: &cudlaTask, flags: u32) -> cudlaStatus {
        // SAFETY: C ABI call with a live handle and a live task.
        unsafe { cudlaSubmitTask(self.dev, t, 1, null_mut(), flags) }
    }

    /// Runs one diagnostics task and returns its result.
    fn run(&self, sci: &Sci, sp: &[*mut u64; 1]) -> Vec<u8> {
        let mut eof = NvSciSyncFenceInitializer;
        let mut ef = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(sp, &mut ef);
        ok(self.submit(&self.task(Some(&mut s)), CUDLA_SUBMIT_DIAGNOSTICS_TASK.0));
        sok(sci.wait(&eof, 5_000_000));
        // SAFETY: C ABI call on a fence this test owns.
        unsafe { NvSciSyncFenceClear(&mut eof) };
        read(self.out, diag::RESULT_LEN)
    }
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

#[test]
fn diagnostics_pass_then_report_a_permanent_fault() {
    let _s = serial();
    let sci = Sci::new();
    let d = load_diag(&sci, 1);
    let sig = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, true);
    let sp = [import_sem(d.dev, sig)];
    let r = d.run(&sci, &sp);
    assert_eq!(&r[..8], &diag::MAGIC);
    assert_eq!(u32_at(&r, 8), diag::VERSION);
    assert_eq!(u32_at(&r, 12), diag::VERDICT_PASS);
    assert_eq!(u32_at(&r, 16), 1, "DLA instance");
    assert_eq!(u32_at(&r, 20), diag::CHECKS);
    assert_eq!(u32_at(&r, 24), 0);
    assert_eq!(u64_at(&r, 32), 0, "first task of the handle");
    assert_eq!(u64_at(&r, 48) - u64_at(&r, 40), 1_000_000, "1 ms");
    assert_eq!(u64_at(&r, 56), diag::fnv1a64(&r[..56]));
    ok(unsafe_last_error(d.dev));

    // A permanent fault on the next diagnostics task only.
    fault(d.dev, CUDLA_SIL_FAULT_PERMANENT, 0x24, 0, 1, 0);
    let r = d.run(&sci, &sp);
    assert_eq!(u32_at(&r, 12), diag::VERDICT_PERMANENT_FAULT);
    assert_eq!(u32_at(&r, 24), 0x24);
    assert_eq!(u64_at(&r, 32), 1);
    assert_eq!(u64_at(&r, 56), diag::fnv1a64(&r[..56]));
    // The task itself succeeded: the verdict is in the result, not in cudlaGetLastError.
    ok(unsafe_last_error(d.dev));
    let r = d.run(&sci, &sp);
    assert_eq!(u32_at(&r, 12), diag::VERDICT_PASS);
    // Status 0 reports check 0.
    fault(d.dev, CUDLA_SIL_FAULT_PERMANENT, 0, 0, 1, 0);
    let r = d.run(&sci, &sp);
    assert_eq!(u32_at(&r, 24), 1);
    // SAFETY: C ABI calls with live handles.
    unsafe {
        ok(cudlaDestroyDevice(d.dev));
        NvSciSyncObjFree(sig);
    }
}

fn unsafe_last_error(dev: cudlaDevHandle) -> cudlaStatus {
    // SAFETY: C ABI call with a live handle.
    unsafe { cudlaGetLastError(dev) }
}

#[test]
fn diagnostics_argument_rules() {
    let _s = serial();
    let sci = Sci::new();
    let d = load_diag(&sci, 0);
    let flag = CUDLA_SUBMIT_DIAGNOSTICS_TASK.0;
    // SAFETY: C ABI calls; handles are live or deliberately bogus, pointers to live locals.
    unsafe {
        // One module per handle: a loadable cannot follow the diagnostics module.
        let mut m = null_mut();
        assert_eq!(
            cudlaModuleLoadFromMemory(d.dev, AEB.as_ptr(), AEB.len(), &mut m, 0),
            cudlaErrorUnsupportedOperation
        );
        let good = d.task(None);
        // Inputs given, or no outputs (event-only): UnsupportedOperation (cudla.h 1.5).
        let dummy = [d.out_ptr[0] as *const u64];
        let mut t = good;
        t.inputTensor = dummy.as_ptr();
        assert_eq!(d.submit(&t, flag), cudlaErrorUnsupportedOperation);
        let mut t = good;
        t.outputTensor = null();
        assert_eq!(d.submit(&t, flag), cudlaErrorUnsupportedOperation);
        // Counts.
        let mut t = good;
        t.numOutputTensors = 2;
        assert_eq!(d.submit(&t, flag), cudlaErrorInvalidParam);
        let mut t = good;
        t.numInputTensors = 1;
        assert_eq!(d.submit(&t, flag), cudlaErrorInvalidParam);
        // The diagnostics module only runs diagnostics tasks.
        let mut t = good;
        t.inputTensor = dummy.as_ptr();
        assert_eq!(d.submit(&t, 0), cudlaErrorInvalidModule);
        // An output too small, or read-only.
        let small = sci.tensor(32);
        let smp = [import_mem(d.dev, small, 32, 0)];
        let mut t = good;
        t.outputTensor = smp.as_ptr();
        assert_eq!(d.submit(&t, flag), cudlaErrorInvalidParam);
        let ro = sci.tensor(64);
        let rop = [import_mem(d.dev, ro, 64, CUDLA_READ_ONLY_PERM.0)];
        t.outputTensor = rop.as_ptr();
        assert_eq!(d.submit(&t, flag), cudlaErrorInvalidParam);
        // NOOP diagnostics: waits and signals, writes nothing.
        write(d.out, &[7; 64]);
        let sig = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, false);
        let sp = [import_sem(d.dev, sig)];
        let mut eof = NvSciSyncFenceInitializer;
        let mut ef = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(&sp, &mut ef);
        ok(d.submit(&d.task(Some(&mut s)), flag | CUDLA_SUBMIT_NOOP.0));
        sok(sci.wait(&eof, 5_000_000));
        assert_eq!(read(d.out, 64), vec![7; 64]);
        NvSciSyncFenceClear(&mut eof);
        ok(cudlaDestroyDevice(d.dev));
        NvSciSyncObjFree(sig);

        // The diagnostics flag on a handle with a regular loadable: InvalidModule.
        let dla = Dla::new(&sci, 0);
        let out = [dla.out_ptrs[0]];
        let t = cudlaTask {
            moduleHandle: dla.module,
            outputTensor: out.as_ptr(),
            numOutputTensors: 1,
            numInputTensors: 0,
            inputTensor: null(),
            waitEvents: null(),
            signalEvents: null_mut(),
        };
        assert_eq!(dla.submit(&t, flag), cudlaErrorInvalidModule);
        dla.destroy();
        // No module at all.
        let bare = create(0);
        assert_eq!(
            cudlaSubmitTask(bare, &good, 1, null_mut(), flag),
            cudlaErrorInvalidModule
        );
        ok(cudlaDestroyDevice(bare));
    }
}
