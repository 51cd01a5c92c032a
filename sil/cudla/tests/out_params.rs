//! Out-parameters per function, as `sil/README.md` ("Out-parameters") states them: written
//! on success; on every error left as they were, except `*devPtr` on
//! `cudlaErrorMemoryRegistered` (the existing pointer).
//!
//! Covers: REQ-SIL-005
#![allow(missing_docs)]

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::*;

const SENTINEL: usize = 0x5e47_1ae0;

/// Covers: REQ-DLA-001
#[test]
fn version_count_create() {
    let _s = serial();
    // SAFETY: C ABI calls with pointers to live locals (or NULL, which the library refuses).
    unsafe {
        let mut v = 0u64;
        ok(cudlaGetVersion(&mut v));
        assert_eq!(v, 1_005_000);
        assert_eq!(cudlaGetVersion(null_mut()), cudlaErrorInvalidParam);
        let mut n = 0u64;
        ok(cudlaDeviceGetCount(&mut n));
        assert_eq!(n, 2);
        let mut h = SENTINEL as cudlaDevHandle;
        for (dev, flags, want) in [
            (0, CUDLA_CUDA_DLA.0, cudlaErrorUnsupportedOperation),
            (0, 4, cudlaErrorInvalidParam),
            (0, 7, cudlaErrorInvalidParam),
            (2, CUDLA_STANDALONE.0, cudlaErrorInvalidParam),
        ] {
            assert_eq!(cudlaCreateDevice(dev, &mut h, flags), want);
            assert_eq!(h as usize, SENTINEL, "{flags} {want:?}");
        }
        // The scratch-memory configuration OR-ed with the mode (cudla.h 1.5).
        let flags = CUDLA_STANDALONE.0 | CUDLA_SCRATCH_MEMORY_SHARED_STATIC.0;
        ok(cudlaCreateDevice(0, &mut h, flags));
        assert_ne!(h as usize, SENTINEL);
        ok(cudlaDestroyDevice(h));
        // Handles are never reused: a destroyed one stays invalid after new ones.
        let again = create(0);
        assert_ne!(again, h);
        assert_eq!(cudlaDestroyDevice(h), cudlaErrorInvalidDevice);
        ok(cudlaDestroyDevice(again));
    }
}

/// Covers: REQ-DLA-002
#[test]
fn module_load_and_attributes() {
    let _s = serial();
    // SAFETY: C ABI calls; handles are live or deliberately bogus, pointers to live locals.
    unsafe {
        let dev = create(0);
        let mut m = SENTINEL as cudlaModule;
        let mut bad = AEB.to_vec();
        bad[0] = 0xff;
        let v = aeb_with_opset(9);
        for (p, n, flags, want) in [
            (null(), 10, 0, cudlaErrorInvalidParam),
            (AEB.as_ptr(), AEB.len(), 3, cudlaErrorInvalidParam),
            (bad.as_ptr(), bad.len(), 0, cudlaErrorInvalidModule),
            (v.as_ptr(), v.len(), 0, cudlaErrorIncompatibleDlaSWVersion),
        ] {
            assert_eq!(cudlaModuleLoadFromMemory(dev, p, n, &mut m, flags), want);
            assert_eq!(m as usize, SENTINEL);
        }
        assert_eq!(
            cudlaModuleLoadFromMemory(SENTINEL as _, AEB.as_ptr(), AEB.len(), &mut m, 0),
            cudlaErrorInvalidDevice
        );
        ok(cudlaModuleLoadFromMemory(
            dev,
            AEB.as_ptr(),
            AEB.len(),
            &mut m,
            0,
        ));
        let mut m2 = SENTINEL as cudlaModule;
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), AEB.len(), &mut m2, 0),
            cudlaErrorUnsupportedOperation
        );
        assert_eq!(m2 as usize, SENTINEL);
        // Attributes: the union is untouched on errors.
        let mut a = cudlaModuleAttribute {
            outputTensorDesc: SENTINEL as *mut _,
        };
        assert_eq!(
            cudlaModuleGetAttributes(m, cudlaModuleAttributeType(6), &mut a),
            cudlaErrorInvalidAttribute
        );
        assert_eq!(
            cudlaModuleGetAttributes(SENTINEL as _, CUDLA_NUM_INPUT_TENSORS, &mut a),
            cudlaErrorInvalidModule
        );
        assert_eq!(a.outputTensorDesc as usize, SENTINEL);
        // A descriptor query fills exactly the caller's array.
        let mut d: Vec<cudlaModuleTensorDescriptor> = vec![std::mem::zeroed(); 3];
        d[2].size = 0xabc;
        a.outputTensorDesc = d.as_mut_ptr();
        ok(cudlaModuleGetAttributes(
            m,
            CUDLA_OUTPUT_TENSOR_DESCRIPTORS,
            &mut a,
        ));
        assert_eq!((d[0].size, d[1].size, d[2].size), (1536, 128, 0xabc));
        ok(cudlaDestroyDevice(dev));
    }
}

/// Covers: REQ-DLA-003
#[test]
fn imports_and_registration() {
    let _s = serial();
    let sci = Sci::new();
    // SAFETY: C ABI calls; handles are live or deliberately bogus, pointers to live locals.
    unsafe {
        let dev = create(0);
        let buf = sci.tensor(1024);
        let mut p = SENTINEL as *mut u64;
        let desc = |obj: NvSciBufObj, size| cudlaExternalMemoryHandleDesc {
            extBufObject: obj as *const c_void,
            size,
        };
        for (d, flags, want) in [
            (desc(buf, 0), 0, cudlaErrorInvalidParam),
            (desc(buf, 1025), 0, cudlaErrorInvalidParam),
            (desc(buf, 64), 5, cudlaErrorInvalidParam),
            (desc(null_mut(), 64), 0, cudlaErrorInvalidParam),
        ] {
            assert_eq!(cudlaImportExternalMemory(dev, &d, &mut p, flags), want);
            assert_eq!(p as usize, SENTINEL);
        }
        assert_eq!(
            cudlaImportExternalMemory(SENTINEL as _, &desc(buf, 64), &mut p, 0),
            cudlaErrorInvalidDevice
        );
        assert_eq!(p as usize, SENTINEL);
        let first = import_mem(dev, buf, 1024, 0);
        assert_eq!(
            cudlaImportExternalMemory(dev, &desc(buf, 1024), &mut p, 0),
            cudlaErrorMemoryRegistered
        );
        assert_eq!(p, first, "MemoryRegistered writes the existing pointer");
        // Hybrid-only registration writes nothing.
        let mut r = SENTINEL as *mut u64;
        assert_eq!(
            cudlaMemRegister(dev, first, 64, &mut r, 0),
            cudlaErrorUnsupportedOperation
        );
        assert_eq!(r as usize, SENTINEL);

        // Semaphores.
        let sem = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, false);
        let sd = cudlaExternalSemaphoreHandleDesc {
            extSyncObject: sem as *const c_void,
        };
        let mut q = SENTINEL as *mut u64;
        assert_eq!(
            cudlaImportExternalSemaphore(dev, &sd, &mut q, 1),
            cudlaErrorInvalidParam
        );
        let bogus = cudlaExternalSemaphoreHandleDesc {
            extSyncObject: SENTINEL as *const c_void,
        };
        assert_ne!(
            cudlaImportExternalSemaphore(dev, &bogus, &mut q, 0),
            cudlaSuccess
        );
        assert_eq!(q as usize, SENTINEL);
        let sp = import_sem(dev, sem);
        assert_eq!(
            cudlaImportExternalSemaphore(dev, &sd, &mut q, 0),
            cudlaErrorMemoryRegistered
        );
        assert_eq!(q, sp);

        // cudlaGetNvSciSyncAttributes sets nothing on an error.
        let mut l = null_mut();
        sok(NvSciSyncAttrListCreate(sci.sync, &mut l));
        assert_eq!(
            cudlaGetNvSciSyncAttributes(l as *mut u64, 0),
            cudlaErrorInvalidParam
        );
        let (mut v, mut len) = (null(), 0usize);
        sok(NvSciSyncAttrListGetAttr(
            l,
            NvSciSyncAttrKey_PrimitiveInfo,
            &mut v,
            &mut len,
        ));
        assert_eq!(len, 0);
        NvSciSyncAttrListFree(l);

        // Device attributes.
        let mut a = cudlaDevAttribute { deviceVersion: 77 };
        assert_eq!(
            cudlaDeviceGetAttribute(dev, cudlaDevAttributeType(5), &mut a),
            cudlaErrorInvalidAttribute
        );
        assert_eq!(a.deviceVersion, 77);
        ok(cudlaDestroyDevice(dev));
        NvSciBufObjFree(buf);
        NvSciSyncObjFree(sem);
    }
}

/// A refused submission writes no fence and promises no value.
///
/// Covers: REQ-DLA-005
#[test]
fn refused_submissions_write_no_fence() {
    let (_s, sci, dla) = setup();
    let (det, dp) = dla.signal_sem(&sci);
    let (_spo, sp) = dla.signal_sp(&sci);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let base = counter(det);
        let mut f = [NvSciSyncFenceInitializer; 2];
        let ptrs = [dp[0], sp[0]];
        let mut cf: Vec<CudlaFence> = f
            .iter_mut()
            .map(|f| cfence(f, CUDLA_NVSCISYNC_FENCE))
            .collect();
        let mut s = cudlaSignalEvents {
            devPtrs: ptrs.as_ptr(),
            eofFences: cf.as_mut_ptr(),
            numEvents: 2,
        };
        // Refused after the signal events validate: wrong tensor count.
        let mut t = dla.task(None, Some(&mut s));
        t.numInputTensors = 0;
        assert_eq!(dla.submit(&t, 0), cudlaErrorInvalidParam);
        assert!(f.iter().all(|f| f.payload == [0; 6]));
        // Accepted: both written, and the semaphore's value is the next one.
        let t = dla.task(None, Some(&mut s));
        ok(dla.submit(&t, 0));
        assert_eq!(fence_id_value(&f[0]), (0, base + 1));
        assert_ne!(fence_id_value(&f[1]).0, 0);
        for x in &mut f {
            sok(sci.wait(x, 5_000_000));
            NvSciSyncFenceClear(x);
        }
    }
    dla.destroy();
}
