//! The SIL libcudla through its C ABI: every error case, FIFO order, NOOP, event-only
//! submissions, SOF fences, faults, timeouts, destroy with hung tasks, and the golden output
//! of the committed AEB loadable.
#![allow(missing_docs)]

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

use common::*;

const BAD: usize = 0xdead_bee0;

/// Covers: REQ-DLA-001
#[test]
fn version_count_and_attributes() {
    let _s = serial();
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let mut v = 0;
        ok(cudlaGetVersion(&mut v));
        assert_eq!(v, 1_005_000);
        assert_eq!(cudlaGetVersion(null_mut()), cudlaErrorInvalidParam);
        let mut n = 0;
        ok(cudlaDeviceGetCount(&mut n));
        assert_eq!(n, 2);
        assert_eq!(cudlaDeviceGetCount(null_mut()), cudlaErrorInvalidParam);

        let dev = create(0);
        let mut a = cudlaDevAttribute { deviceVersion: 77 };
        ok(cudlaDeviceGetAttribute(dev, CUDLA_DEVICE_VERSION, &mut a));
        assert_eq!(a.deviceVersion, 2);
        ok(cudlaDeviceGetAttribute(
            dev,
            CUDLA_UNIFIED_ADDRESSING,
            &mut a,
        ));
        assert_eq!(a.unifiedAddressingSupported, 0);
        assert_eq!(
            cudlaDeviceGetAttribute(dev, cudlaDevAttributeType(9), &mut a),
            cudlaErrorInvalidAttribute
        );
        assert_eq!(
            cudlaDeviceGetAttribute(dev, CUDLA_DEVICE_VERSION, null_mut()),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaDeviceGetAttribute(BAD as cudlaDevHandle, CUDLA_DEVICE_VERSION, &mut a),
            cudlaErrorInvalidDevice
        );
        ok(cudlaDestroyDevice(dev));
    }
}

/// Covers: REQ-DLA-001
#[test]
fn create_and_destroy_errors() {
    let _s = serial();
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let mut h = null_mut();
        assert_eq!(
            cudlaCreateDevice(0, &mut h, CUDLA_CUDA_DLA.0),
            cudlaErrorUnsupportedOperation
        );
        assert_eq!(cudlaCreateDevice(0, &mut h, 7), cudlaErrorInvalidParam);
        assert_eq!(
            cudlaCreateDevice(2, &mut h, CUDLA_STANDALONE.0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaCreateDevice(0, null_mut(), CUDLA_STANDALONE.0),
            cudlaErrorInvalidParam
        );
        // At most 16 handles per DLA instance.
        let handles: Vec<_> = (0..16).map(|_| create(1)).collect();
        assert_eq!(
            cudlaCreateDevice(1, &mut h, CUDLA_STANDALONE.0),
            cudlaErrorOutOfResources
        );
        let other = create(0); // DLA 0 is not affected
        for h in &handles {
            ok(cudlaDestroyDevice(*h));
        }
        assert_eq!(cudlaDestroyDevice(handles[0]), cudlaErrorInvalidDevice);
        assert_eq!(cudlaDestroyDevice(null_mut()), cudlaErrorInvalidDevice);
        assert_eq!(cudlaDestroyDevice(BAD as _), cudlaErrorInvalidDevice);
        ok(cudlaDestroyDevice(other));
    }
}

/// Covers: REQ-DLA-007, REQ-SIL-004
#[test]
fn invalid_device_handles_everywhere() {
    let _s = serial();
    let bad = BAD as cudlaDevHandle;
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let mut m = null_mut();
        let mut p = null_mut();
        assert_eq!(
            cudlaModuleLoadFromMemory(bad, AEB.as_ptr(), AEB.len(), &mut m, 0),
            cudlaErrorInvalidDevice
        );
        assert_eq!(
            cudlaMemRegister(bad, null(), 0, &mut p, 0),
            cudlaErrorInvalidDevice
        );
        assert_eq!(cudlaMemUnregister(bad, null()), cudlaErrorInvalidDevice);
        let d = cudlaExternalMemoryHandleDesc {
            extBufObject: null(),
            size: 1,
        };
        assert_eq!(
            cudlaImportExternalMemory(bad, &d, &mut p, 0),
            cudlaErrorInvalidDevice
        );
        let s = cudlaExternalSemaphoreHandleDesc {
            extSyncObject: null(),
        };
        assert_eq!(
            cudlaImportExternalSemaphore(bad, &s, &mut p, 0),
            cudlaErrorInvalidDevice
        );
        assert_eq!(
            cudlaSubmitTask(bad, null(), 1, null_mut(), 0),
            cudlaErrorInvalidDevice
        );
        assert_eq!(cudlaGetLastError(bad), cudlaErrorInvalidDevice);
        assert_eq!(cudlaSetTaskTimeoutInMs(bad, 10), cudlaErrorInvalidParam);
        assert_eq!(cudlaSilClearFaults(bad), cudlaErrorInvalidDevice);
        assert_eq!(cudlaSilSetTimingModel(bad, null()), cudlaErrorInvalidDevice);
        assert_eq!(cudlaSilInjectFault(bad, null()), cudlaErrorInvalidDevice);
        let mut a = cudlaModuleAttribute { numInputTensors: 0 };
        assert_eq!(
            cudlaModuleGetAttributes(BAD as cudlaModule, CUDLA_NUM_INPUT_TENSORS, &mut a),
            cudlaErrorInvalidModule
        );
        assert_eq!(
            cudlaModuleUnload(BAD as cudlaModule, 0),
            cudlaErrorInvalidModule
        );
        assert_eq!(cudlaModuleUnload(null_mut(), 0), cudlaErrorInvalidModule);
    }
}

/// Covers: REQ-DLA-002
#[test]
fn module_load_errors() {
    let _s = serial();
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let dev = create(0);
        let mut m = null_mut();
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, null(), 10, &mut m, 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), 0, &mut m, 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), AEB.len(), null_mut(), 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), AEB.len(), &mut m, 5),
            cudlaErrorInvalidParam
        );
        // The diagnostics flag takes no image.
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), AEB.len(), &mut m, 1),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, null(), 5, &mut m, 1),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), 0, &mut m, 1),
            cudlaErrorInvalidParam
        );
        assert!(m.is_null(), "nothing written on errors");
        // Not ONNX (a bad protobuf tag, truncated, garbage: what a real loadable is to the
        // SIL), and a valid ONNX model with an operator the DLA does not run.
        let mut bad = AEB.to_vec();
        bad[0] = 0xff;
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, bad.as_ptr(), bad.len(), &mut m, 0),
            cudlaErrorInvalidModule
        );
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), AEB.len() - 7, &mut m, 0),
            cudlaErrorInvalidModule
        );
        let junk = [0x5au8; 4096];
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, junk.as_ptr(), junk.len(), &mut m, 0),
            cudlaErrorInvalidModule
        );
        let unsupported = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../loadables/test/unsupported_op.onnx"
        ))
        .unwrap();
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, unsupported.as_ptr(), unsupported.len(), &mut m, 0),
            cudlaErrorInvalidModule
        );
        // An operator set this library does not read.
        let v = aeb_with_opset(99);
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, v.as_ptr(), v.len(), &mut m, 0),
            cudlaErrorIncompatibleDlaSWVersion
        );
        assert!(m.is_null(), "nothing written on errors");
        // One loadable per handle lifetime.
        ok(cudlaModuleLoadFromMemory(
            dev,
            AEB.as_ptr(),
            AEB.len(),
            &mut m,
            0,
        ));
        let mut m2 = null_mut();
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), AEB.len(), &mut m2, 0),
            cudlaErrorUnsupportedOperation
        );
        assert_eq!(cudlaModuleUnload(m, 1), cudlaErrorInvalidParam);
        ok(cudlaModuleUnload(m, 0));
        // Unloaded: "not loaded in any device" (cudla.h: cudlaErrorInvalidDevice).
        assert_eq!(cudlaModuleUnload(m, 0), cudlaErrorInvalidDevice);
        let mut a = cudlaModuleAttribute { numInputTensors: 0 };
        assert_eq!(
            cudlaModuleGetAttributes(m, CUDLA_NUM_INPUT_TENSORS, &mut a),
            cudlaErrorInvalidDevice
        );
        // A value that never was a module handle.
        assert_eq!(
            cudlaModuleUnload((m as usize + 0x1000) as cudlaModule, 0),
            cudlaErrorInvalidModule
        );
        assert_eq!(
            cudlaModuleLoadFromMemory(dev, AEB.as_ptr(), AEB.len(), &mut m2, 0),
            cudlaErrorUnsupportedOperation
        );
        ok(cudlaDestroyDevice(dev));
    }
}

/// Covers: REQ-DLA-002
#[test]
fn module_attributes() {
    let _s = serial();
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let dev = create(0);
        let mut m = null_mut();
        ok(cudlaModuleLoadFromMemory(
            dev,
            AEB.as_ptr(),
            AEB.len(),
            &mut m,
            0,
        ));
        assert_eq!(module_counts(m), (1, 2, 0));
        let mut a = cudlaModuleAttribute { numInputTensors: 0 };

        let mut ins: Vec<cudlaModuleTensorDescriptor> = vec![std::mem::zeroed(); 1];
        a.inputTensorDesc = ins.as_mut_ptr();
        ok(cudlaModuleGetAttributes(
            m,
            CUDLA_INPUT_TENSOR_DESCRIPTORS,
            &mut a,
        ));
        let d = &ins[0];
        assert_eq!(tensor_name(d), "image");
        assert_eq!((d.size, d.n, d.c, d.h, d.w), (3072, 1, 1, 48, 64));
        assert_eq!(d.dataFormat, CUDLA_DATA_FORMAT_NCHW);
        assert_eq!(d.dataType, CUDLA_DATA_TYPE_INT8);
        assert_eq!(d.dataCategory, CUDLA_DATA_CATEGORY_FEATURE);
        assert_eq!(d.pixelFormat, CUDLA_PIXEL_FORMAT_FEATURE);
        assert_eq!(d.pixelMapping, CUDLA_PIXEL_MAPPING_PITCH_LINEAR);
        assert_eq!(d.stride, [1, 64, 3072, 3072, 0, 0, 0, 0]);

        let mut outs: Vec<cudlaModuleTensorDescriptor> = vec![std::mem::zeroed(); 2];
        a.outputTensorDesc = outs.as_mut_ptr();
        ok(cudlaModuleGetAttributes(
            m,
            CUDLA_OUTPUT_TENSOR_DESCRIPTORS,
            &mut a,
        ));
        assert_eq!(tensor_name(&outs[0]), "obstacle_map");
        assert_eq!(
            (outs[0].size, outs[0].c, outs[0].h, outs[0].w),
            (1536, 1, 24, 32)
        );
        assert_eq!(tensor_name(&outs[1]), "presence");
        assert_eq!((outs[1].size, outs[1].c), (128, 2));
        assert_eq!(outs[1].stride, [1, 64, 64, 128, 0, 0, 0, 0]);

        a.outputTensorDesc = null_mut();
        assert_eq!(
            cudlaModuleGetAttributes(m, CUDLA_OUTPUT_TENSOR_DESCRIPTORS, &mut a),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaModuleGetAttributes(m, cudlaModuleAttributeType(42), &mut a),
            cudlaErrorInvalidAttribute
        );
        assert_eq!(
            cudlaModuleGetAttributes(m, CUDLA_NUM_INPUT_TENSORS, null_mut()),
            cudlaErrorInvalidParam
        );
        // No statistics: the descriptor query writes nothing, even through NULL.
        a.outputTensorDesc = null_mut();
        ok(cudlaModuleGetAttributes(
            m,
            CUDLA_OUTPUT_TASK_STATISTICS_DESCRIPTORS,
            &mut a,
        ));
        ok(cudlaDestroyDevice(dev));
        // The module died with its handle: "not loaded in any device" (cudla.h).
        assert_eq!(
            cudlaModuleGetAttributes(m, CUDLA_NUM_INPUT_TENSORS, &mut a),
            cudlaErrorInvalidDevice
        );
        assert_eq!(cudlaModuleUnload(m, 0), cudlaErrorInvalidDevice);
    }
}

/// Covers: REQ-DLA-003
#[test]
fn memory_import_and_unregister() {
    let _s = serial();
    let sci = Sci::new();
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let dev = create(0);
        let other = create(0);
        let raw = sci.raw(4096);
        let t = sci.tensor(1000);
        let p = import_mem(dev, raw, 4096, CUDLA_READ_WRITE_PERM.0);
        let q = import_mem(dev, t, 1000, CUDLA_READ_ONLY_PERM.0);
        assert_ne!(p, q);
        assert_eq!(p as u64 % 32, 0);
        // The same buffer again: MemoryRegistered with the existing pointer.
        let desc = cudlaExternalMemoryHandleDesc {
            extBufObject: raw as *const c_void,
            size: 4096,
        };
        let mut again = null_mut();
        assert_eq!(
            cudlaImportExternalMemory(dev, &desc, &mut again, 0),
            cudlaErrorMemoryRegistered
        );
        assert_eq!(again, p);
        // On another handle it is a different pointer.
        let r = import_mem(other, raw, 4096, 0);
        assert_ne!(r, p);
        // Errors.
        let big = cudlaExternalMemoryHandleDesc {
            extBufObject: raw as *const c_void,
            size: 4097,
        };
        let mut x = null_mut();
        assert_eq!(
            cudlaImportExternalMemory(other, &big, &mut x, 0),
            cudlaErrorInvalidParam
        );
        let raw2 = sci.raw(64);
        let d2 = cudlaExternalMemoryHandleDesc {
            extBufObject: raw2 as *const c_void,
            size: 64,
        };
        // A statistics buffer imports (cudla.h 1.5).
        let st = import_mem(dev, raw2, 64, CUDLA_TASK_STATISTICS.0);
        ok(cudlaMemUnregister(dev, st));
        // Flags are one of the three values, not an OR.
        for bad in [3, 4, 9] {
            x = null_mut();
            assert_eq!(
                cudlaImportExternalMemory(dev, &d2, &mut x, bad),
                cudlaErrorInvalidParam
            );
            assert!(x.is_null(), "nothing written on errors");
        }
        assert_eq!(
            cudlaImportExternalMemory(dev, null(), &mut x, 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaImportExternalMemory(dev, &d2, null_mut(), 0),
            cudlaErrorInvalidParam
        );
        let zero = cudlaExternalMemoryHandleDesc {
            extBufObject: raw2 as *const c_void,
            size: 0,
        };
        assert_eq!(
            cudlaImportExternalMemory(dev, &zero, &mut x, 0),
            cudlaErrorInvalidParam
        );
        let nul = cudlaExternalMemoryHandleDesc {
            extBufObject: null(),
            size: 8,
        };
        assert_eq!(
            cudlaImportExternalMemory(dev, &nul, &mut x, 0),
            cudlaErrorInvalidParam
        );
        let garbage = cudlaExternalMemoryHandleDesc {
            extBufObject: BAD as *const c_void,
            size: 8,
        };
        assert_ne!(
            cudlaImportExternalMemory(dev, &garbage, &mut x, 0),
            cudlaSuccess
        );
        // Hybrid-only registration.
        let mut y = null_mut();
        assert_eq!(
            cudlaMemRegister(dev, p as *const u64, 64, &mut y, 0),
            cudlaErrorUnsupportedOperation
        );
        // Unregister.
        ok(cudlaMemUnregister(dev, p));
        assert_eq!(cudlaMemUnregister(dev, p), cudlaErrorInvalidAddress);
        assert_eq!(cudlaMemUnregister(dev, r), cudlaErrorInvalidAddress);
        assert_eq!(
            cudlaMemUnregister(dev, BAD as *const u64),
            cudlaErrorInvalidAddress
        );
        ok(cudlaMemUnregister(dev, q));
        ok(cudlaMemUnregister(other, r));
        // The buffer outlives the import: freeing our objects afterwards is fine.
        NvSciBufObjFree(raw);
        NvSciBufObjFree(raw2);
        NvSciBufObjFree(t);
        ok(cudlaDestroyDevice(dev));
        ok(cudlaDestroyDevice(other));
    }
}

/// Covers: REQ-DLA-004
#[test]
fn sync_attributes_and_semaphore_import() {
    let _s = serial();
    let sci = Sci::new();
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        for (flags, want) in [
            (1u32, NvSciSyncAccessPerm_WaitOnly),
            (2, NvSciSyncAccessPerm_SignalOnly),
            (3, NvSciSyncAccessPerm_WaitSignal),
        ] {
            let mut l = null_mut();
            sok(NvSciSyncAttrListCreate(sci.sync, &mut l));
            ok(cudlaGetNvSciSyncAttributes(l as *mut u64, flags));
            let (mut v, mut len) = (null(), 0);
            sok(NvSciSyncAttrListGetAttr(
                l,
                NvSciSyncAttrKey_RequiredPerm,
                &mut v,
                &mut len,
            ));
            assert_eq!(len, 8);
            assert_eq!(*(v as *const u64), want);
            // Sync points first, then the 64-bit semaphore; no deterministic request.
            sok(NvSciSyncAttrListGetAttr(
                l,
                NvSciSyncAttrKey_PrimitiveInfo,
                &mut v,
                &mut len,
            ));
            assert_eq!(len, 8);
            let prims = std::slice::from_raw_parts(v as *const NvSciSyncAttrValPrimitiveType, 2);
            assert_eq!(
                prims,
                [
                    NvSciSyncAttrValPrimitiveType_Syncpoint,
                    NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b
                ]
            );
            sok(NvSciSyncAttrListGetAttr(
                l,
                NvSciSyncAttrKey_RequireDeterministicFences,
                &mut v,
                &mut len,
            ));
            assert_eq!(len, 0, "RequireDeterministicFences must not be set");
            // RequiredPerm already set.
            assert_eq!(
                cudlaGetNvSciSyncAttributes(l as *mut u64, flags),
                cudlaErrorInvalidParam
            );
            NvSciSyncAttrListFree(l);
        }
        let mut l = null_mut();
        sok(NvSciSyncAttrListCreate(sci.sync, &mut l));
        assert_eq!(
            cudlaGetNvSciSyncAttributes(l as *mut u64, 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaGetNvSciSyncAttributes(l as *mut u64, 4),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaGetNvSciSyncAttributes(null_mut(), 1),
            cudlaErrorInvalidParam
        );
        NvSciSyncAttrListFree(l);

        let dev = create(0);
        let det = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, true);
        let p = import_sem(dev, det);
        let desc = cudlaExternalSemaphoreHandleDesc {
            extSyncObject: det as *const c_void,
        };
        let mut again = null_mut();
        assert_eq!(
            cudlaImportExternalSemaphore(dev, &desc, &mut again, 0),
            cudlaErrorMemoryRegistered
        );
        assert_eq!(again, p);
        assert_eq!(
            cudlaImportExternalSemaphore(dev, &desc, &mut again, 1),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaImportExternalSemaphore(dev, null(), &mut again, 0),
            cudlaErrorInvalidParam
        );
        // A regular (non-deterministic) semaphore is refused as by standalone cuDLA.
        let regular = sci.sem_with(CUDLA_NVSCISYNC_ATTR_SIGNAL, Kind::Regular, false);
        let rd = cudlaExternalSemaphoreHandleDesc {
            extSyncObject: regular as *const c_void,
        };
        let mut untouched = BAD as *mut u64;
        assert_eq!(
            cudlaImportExternalSemaphore(dev, &rd, &mut untouched, 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(untouched, BAD as *mut u64, "nothing written on errors");
        // A sync point (the default without a deterministic request) imports.
        let sp = sci.sem(CUDLA_NVSCISYNC_ATTR_SIGNAL, false);
        let spp = import_sem(dev, sp);
        // A duplicate handle of an imported object is the same object.
        let mut dup = null_mut();
        sok(NvSciSyncObjDup(sp, &mut dup));
        let dd = cudlaExternalSemaphoreHandleDesc {
            extSyncObject: dup as *const c_void,
        };
        assert_eq!(
            cudlaImportExternalSemaphore(dev, &dd, &mut again, 0),
            cudlaErrorMemoryRegistered
        );
        assert_eq!(again, spp);
        NvSciSyncObjFree(dup);
        ok(cudlaMemUnregister(dev, spp));
        NvSciSyncObjFree(sp);
        ok(cudlaMemUnregister(dev, p));
        assert_eq!(cudlaMemUnregister(dev, p), cudlaErrorInvalidAddress);
        ok(cudlaDestroyDevice(dev));
        NvSciSyncObjFree(det);
        NvSciSyncObjFree(regular);
    }
}

/// The standalone cycle: CPU pre-fence, submit, CPU signal later, EOF fence, golden output.
///
/// Covers: REQ-DLA-005, REQ-LDB-004
#[test]
fn golden_output_through_the_full_path() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sem(&sci);
    let (sig_obj, sp) = dla.signal_sem(&sci);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let (mut pre, mut eof) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        ok(dla.submit_after(wait_obj, &mut pre, &sp, &mut eof, 0));
        // The EOF fence is written on return: the value the semaphore will have next.
        assert_eq!(fence_value(&eof), counter(sig_obj) + 1);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            sci.wait(&eof, 0),
            NvSciError_Timeout,
            "ran before its pre-fence"
        );
        let t0 = NvSciSilClockNowNs();
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&eof, 5_000_000));
        let end = signal_ts(sig_obj, fence_value(&eof));
        assert!(end >= t0 + 2_000_000, "default model: 2 ms");
        assert_eq!(dla.outputs(), GOLDEN_OUT);
        ok(cudlaGetLastError(dla.dev));
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();
}

/// Covers: REQ-DLA-005
#[test]
fn submit_validation_errors() {
    let (_s, sci, dla) = setup();
    let other = Dla::new(&sci, 0);
    let wait_obj = dla.wait_sem(&sci);
    let (sig_obj, sp) = dla.signal_sem(&sci);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let mut eof = NvSciSyncFenceInitializer;
        let mut ef = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(&sp, &mut ef);
        let good = dla.task(None, Some(&mut s));
        let dev = dla.dev;
        let e = |t: &cudlaTask, flags: u32| cudlaSubmitTask(dev, t, 1, null_mut(), flags);

        // Call-level.
        let mut stream = 0u8;
        assert_eq!(
            cudlaSubmitTask(dev, &good, 1, &mut stream as *mut u8 as *mut c_void, 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaSubmitTask(dev, &good, 0, null_mut(), 0),
            cudlaErrorInvalidParam
        );
        assert_eq!(
            cudlaSubmitTask(dev, null(), 1, null_mut(), 0),
            cudlaErrorInvalidParam
        );
        // The diagnostics flag with an input array (cudla.h 1.5: UnsupportedOperation).
        assert_eq!(e(&good, 4), cudlaErrorUnsupportedOperation);
        assert_eq!(e(&good, 8), cudlaErrorInvalidParam);
        // Module and tensors.
        let mut t = good;
        t.moduleHandle = other.module;
        assert_eq!(e(&t, 0), cudlaErrorInvalidModule);
        t.moduleHandle = null_mut();
        assert_eq!(e(&t, 0), cudlaErrorInvalidModule);
        let mut t = good;
        t.numOutputTensors = 1;
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam);
        let mut t = good;
        t.numInputTensors = 2;
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam);
        // One of the two tensor arrays NULL (cudla.h 1.5: UnsupportedOperation).
        let mut t = good;
        t.outputTensor = null();
        assert_eq!(e(&t, 0), cudlaErrorUnsupportedOperation);
        let mut t = good;
        t.inputTensor = null();
        assert_eq!(e(&t, 0), cudlaErrorUnsupportedOperation);
        let foreign = [other.in_ptrs[0]];
        let mut t = good;
        t.inputTensor = foreign.as_ptr();
        assert_eq!(e(&t, 0), cudlaErrorInvalidAddress);
        let bogus = [BAD as *const u64];
        t.inputTensor = bogus.as_ptr();
        assert_eq!(e(&t, 0), cudlaErrorInvalidAddress);
        let semp = [sp[0] as *const u64];
        t.inputTensor = semp.as_ptr();
        assert_eq!(e(&t, 0), cudlaErrorInvalidAddress);
        // An import smaller than the tensor.
        let small = sci.tensor(3072);
        let sp_small = [import_mem(dev, small, 100, 0) as *const u64];
        let mut t = good;
        t.inputTensor = sp_small.as_ptr();
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam);
        // A read-only output, and an output that aliases the input.
        let ro = sci.tensor(1536);
        let outs = [import_mem(dev, ro, 1536, 1), dla.out_ptrs[1]];
        let mut t = good;
        t.outputTensor = outs.as_ptr();
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam);
        let big = sci.tensor(4096);
        let bp = import_mem(dev, big, 4096, 0);
        let (ins, outs) = ([bp as *const u64], [bp, dla.out_ptrs[1]]);
        let mut t = good;
        t.inputTensor = ins.as_ptr();
        t.outputTensor = outs.as_ptr();
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam);
        let outs = [dla.out_ptrs[0], dla.out_ptrs[0]];
        let mut t = good;
        t.outputTensor = outs.as_ptr();
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam);

        // Wait events.
        let mut fences: Vec<NvSciSyncFence> = (0..30)
            .map(|_| {
                let mut f = NvSciSyncFenceInitializer;
                sok(NvSciSyncObjGenerateFence(wait_obj, &mut f));
                f
            })
            .collect();
        let cf: Vec<CudlaFence> = fences
            .iter_mut()
            .map(|f| cfence(f, CUDLA_NVSCISYNC_FENCE))
            .collect();
        let w30 = waits(&cf);
        let t = dla.task(Some(&w30), None);
        assert_eq!(
            e(&t, 0),
            cudlaErrorUnsupportedOperation,
            "30 pre-fences (cudla.h 1.5: the fence limits are UnsupportedOperation)"
        );
        let w29 = waits(&cf[..29]);
        let t = dla.task(Some(&w29), None);
        ok(e(&t, CUDLA_SUBMIT_NOOP.0));
        for _ in 0..30 {
            sok(NvSciSyncObjSignal(wait_obj));
        }
        let dup = [cf[0], cf[0]];
        let wd = waits(&dup);
        let t = dla.task(Some(&wd), None);
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam, "duplicate fences");
        let mut same = fences[0];
        let dup2 = [cf[0], cfence(&mut same, CUDLA_NVSCISYNC_FENCE)];
        let wd2 = waits(&dup2);
        let t = dla.task(Some(&wd2), None);
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam, "equal fences");
        let sof = [cfence(&mut fences[1], CUDLA_NVSCISYNC_FENCE_SOF)];
        let ws = waits(&sof);
        let t = dla.task(Some(&ws), None);
        assert_eq!(
            e(&t, 0),
            cudlaErrorUnsupportedOperation,
            "SOF type in the wait list"
        );
        let mut junk = NvSciSyncFence {
            payload: [1, 2, 3, 4, 5, 6],
        };
        let wj = [cfence(&mut junk, CUDLA_NVSCISYNC_FENCE)];
        let wj = waits(&wj);
        let t = dla.task(Some(&wj), None);
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam, "not a fence");
        let nul = [CudlaFence {
            fence: null_mut(),
            r#type: CUDLA_NVSCISYNC_FENCE,
        }];
        let wn = waits(&nul);
        let t = dla.task(Some(&wn), None);
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam, "NULL fence");
        let wnull = cudlaWaitEvents {
            preFences: null(),
            numEvents: 1,
        };
        let t = dla.task(Some(&wnull), None);
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam, "NULL preFences");

        // Signal events.
        let mut eof2 = NvSciSyncFenceInitializer;
        let mut two = [
            cfence(&mut eof, CUDLA_NVSCISYNC_FENCE),
            cfence(&mut eof2, CUDLA_NVSCISYNC_FENCE),
        ];
        let dp2 = [sp[0], sp[0]];
        let mut s2 = cudlaSignalEvents {
            devPtrs: dp2.as_ptr(),
            eofFences: two.as_mut_ptr(),
            numEvents: 2,
        };
        // Two signal events of one deterministic semaphore: allowed (any number of
        // semaphores), values +1 and +2.
        let t = dla.task(None, Some(&mut s2));
        ok(e(&t, 0));
        assert_eq!(fence_value(&eof2), fence_value(&eof) + 1);
        sok(sci.wait(&eof2, 5_000_000));
        let base = counter(sig_obj);
        let memp = [dla.out_ptrs[0]];
        let mut ef2 = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut sm = signals(&memp, &mut ef2);
        let t = dla.task(None, Some(&mut sm));
        assert_eq!(e(&t, 0), cudlaErrorInvalidAddress, "memory as a semaphore");
        let mut ef3 = [CudlaFence {
            fence: &mut eof as *mut NvSciSyncFence as *mut c_void,
            r#type: cudlaFenceType(7),
        }];
        let mut sb = signals(&sp, &mut ef3);
        let t = dla.task(None, Some(&mut sb));
        assert_eq!(e(&t, 0), cudlaErrorUnsupportedOperation, "bad fence type");
        // A placeholder that is neither cleared nor a fence.
        let mut junk2 = NvSciSyncFence {
            payload: [9, 9, 9, 9, 9, 9],
        };
        let mut ef4 = [cfence(&mut junk2, CUDLA_NVSCISYNC_FENCE)];
        let mut sj = signals(&sp, &mut ef4);
        let t = dla.task(None, Some(&mut sj));
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam, "garbage placeholder");
        assert_eq!(junk2.payload, [9, 9, 9, 9, 9, 9], "not written");
        let mut snull = cudlaSignalEvents {
            devPtrs: null(),
            eofFences: null_mut(),
            numEvents: 1,
        };
        let t = dla.task(None, Some(&mut snull));
        assert_eq!(e(&t, 0), cudlaErrorInvalidParam, "NULL devPtrs");

        // Event-only submissions: only alone.
        let mut ev = good;
        ev.inputTensor = null();
        ev.outputTensor = null();
        let pair = [ev, ev];
        assert_eq!(
            cudlaSubmitTask(dev, pair.as_ptr(), 2, null_mut(), 0),
            cudlaErrorUnsupportedOperation
        );
        let mixed = [good, ev];
        assert_eq!(
            cudlaSubmitTask(dev, mixed.as_ptr(), 2, null_mut(), 0),
            cudlaErrorUnsupportedOperation
        );

        // Nothing was promised by the failed calls: the next fence is base + 1.
        assert_eq!(counter(sig_obj), base);
        let mut s = signals(&sp, &mut ef);
        let good = dla.task(None, Some(&mut s));
        ok(e(&good, 0));
        assert_eq!(fence_value(&eof), base + 1);
        sok(sci.wait(&eof, 5_000_000));
        for f in &mut fences {
            NvSciSyncFenceClear(f);
        }
        NvSciSyncFenceClear(&mut eof);
        NvSciSyncFenceClear(&mut eof2);
    }
    dla.destroy();
    other.destroy();
}

/// Tasks complete in submission order: a later task with no pre-fence waits for an earlier
/// one blocked on its pre-fence.
///
/// Covers: REQ-DLA-005
#[test]
fn fifo_order() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sem(&sci);
    let (sig_a, pa) = dla.signal_sem(&sci);
    let (sig_b, pb) = dla.signal_sem(&sci);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 1_000_000, 0, 0);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let mut pre = NvSciSyncFenceInitializer;
        sok(NvSciSyncObjGenerateFence(wait_obj, &mut pre));
        let pf = [cfence(&mut pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        let (mut ea, mut eb) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        let mut fa = [cfence(&mut ea, CUDLA_NVSCISYNC_FENCE)];
        let mut fb = [cfence(&mut eb, CUDLA_NVSCISYNC_FENCE)];
        let mut sa = signals(&pa, &mut fa);
        let mut sb = signals(&pb, &mut fb);
        // Two tasks in one call, then a third call.
        let both = [dla.task(Some(&w), Some(&mut sa)), dla.task(None, None)];
        ok(cudlaSubmitTask(dla.dev, both.as_ptr(), 2, null_mut(), 0));
        ok(dla.submit(&dla.task(None, Some(&mut sb)), 0));
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            sci.wait(&eb, 0),
            NvSciError_Timeout,
            "overtook the blocked task"
        );
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&eb, 5_000_000));
        sok(sci.wait(&ea, 0));
        let (ta, tb) = (
            signal_ts(sig_a, fence_value(&ea)),
            signal_ts(sig_b, fence_value(&eb)),
        );
        assert!(
            tb >= ta + 2_000_000,
            "3 tasks of 1 ms each in order: {ta} {tb}"
        );
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut ea);
        NvSciSyncFenceClear(&mut eb);
    }
    dla.destroy();
}

/// Covers: REQ-DLA-004
#[test]
fn deterministic_fence_values_and_no_fence_needed() {
    let (_s, sci, dla) = setup();
    let (sig, sp) = dla.signal_sem(&sci);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 100_000, 0, 0);
    let base = counter(sig);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let mut fences = [NvSciSyncFenceInitializer; 5];
        for (k, f) in fences.iter_mut().enumerate() {
            ok(dla.submit_fences(None, &sp, f, 0));
            assert_eq!(fence_value(f), base + k as u64 + 1);
        }
        // Deterministic semaphores need no fence: NULL eofFences.
        let mut s = cudlaSignalEvents {
            devPtrs: sp.as_ptr(),
            eofFences: null_mut(),
            numEvents: 1,
        };
        ok(dla.submit(&dla.task(None, Some(&mut s)), 0));
        // The waiter builds the fence of the 6th signal itself.
        let mut sixth = NvSciSyncFenceInitializer;
        sok(NvSciSyncFenceUpdateFence(sig, 0, base + 6, &mut sixth));
        sok(sci.wait(&sixth, 5_000_000));
        assert_eq!(counter(sig), base + 6);
        for f in &mut fences {
            NvSciSyncFenceClear(f);
        }
        NvSciSyncFenceClear(&mut sixth);
    }
    dla.destroy();
}

/// Covers: REQ-DLA-005
#[test]
fn noop_keeps_wait_and_signal_semantics() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sem(&sci);
    let (_sig, sp) = dla.signal_sem(&sci);
    write(dla.outputs[0], &[0x55; 1536]);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let (mut pre, mut eof) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        let flags = CUDLA_SUBMIT_NOOP.0 | 2;
        ok(dla.submit_after(wait_obj, &mut pre, &sp, &mut eof, flags));
        std::thread::sleep(Duration::from_millis(10));
        assert_eq!(sci.wait(&eof, 0), NvSciError_Timeout);
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&eof, 5_000_000));
        assert_eq!(
            read(dla.outputs[0], 1536),
            vec![0x55; 1536],
            "NOOP ran the network"
        );
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();
}

/// Covers: REQ-DLA-005
#[test]
fn event_only_submission_applies_to_the_next_task() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sem(&sci);
    let (sig, sp) = dla.signal_sem(&sci);
    let base = counter(sig);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let ev = |w: Option<&cudlaWaitEvents>, s: Option<&mut cudlaSignalEvents>| {
            let mut t = dla.task(w, s);
            t.inputTensor = null();
            t.outputTensor = null();
            t.moduleHandle = null_mut();
            t
        };
        // A first event-only submission, replaced by a second one.
        let mut first = NvSciSyncFenceInitializer;
        let mut f1 = [cfence(&mut first, CUDLA_NVSCISYNC_FENCE)];
        let mut s1 = signals(&sp, &mut f1);
        ok(dla.submit(&ev(None, Some(&mut s1)), 0));
        assert_eq!(fence_value(&first), base + 1);

        let mut pre = NvSciSyncFenceInitializer;
        sok(NvSciSyncObjGenerateFence(wait_obj, &mut pre));
        let pf = [cfence(&mut pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        let mut eof = NvSciSyncFenceInitializer;
        let mut f2 = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s2 = signals(&sp, &mut f2);
        ok(dla.submit(&ev(Some(&w), Some(&mut s2)), 0));
        // The replaced signal keeps its value: it is released in queue order (nothing is
        // queued before it, so at once), and the new one gets the next value.
        assert_eq!(fence_value(&eof), base + 2);
        sok(sci.wait(&first, 1_000_000));
        std::thread::sleep(Duration::from_millis(10));
        assert_eq!(counter(sig), base + 1, "the new events alone do nothing");

        // The next real task (no events of its own) carries them.
        write(dla.outputs[0], &[0; 1536]);
        ok(dla.submit(&dla.task(None, None), 0));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            sci.wait(&eof, 0),
            NvSciError_Timeout,
            "did not wait for the queued fence"
        );
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&eof, 5_000_000));
        assert_eq!(counter(sig), base + 2);
        assert_eq!(dla.outputs(), GOLDEN_OUT);
        // Consumed: a further task signals nothing more.
        let mut done = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut done, 0));
        assert_eq!(fence_value(&done), base + 3);
        sok(sci.wait(&done, 5_000_000));
        for f in [&mut first, &mut pre, &mut eof, &mut done] {
            NvSciSyncFenceClear(f);
        }
    }
    dla.destroy();
}

/// An SOF fence is reached when the task starts, before it ends.
///
/// Covers: REQ-DLA-005, REQ-DLA-006
#[test]
fn sof_fence_signals_at_start() {
    let (_s, sci, dla) = setup();
    let (sof_obj, ps) = dla.signal_sem(&sci);
    let (eof_obj, pe) = dla.signal_sem(&sci);
    // Long enough that no scheduling delay on a loaded host makes the SOF wait return after
    // the task's end.
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 1_000_000_000, 0, 0);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        // EOF through a queued event-only signal, SOF through the task itself.
        let mut eof = NvSciSyncFenceInitializer;
        let mut fe = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut se = signals(&pe, &mut fe);
        let mut ev = dla.task(None, Some(&mut se));
        ev.inputTensor = null();
        ev.outputTensor = null();
        ok(dla.submit(&ev, 0));
        let mut sof = NvSciSyncFenceInitializer;
        let mut fs = [cfence(&mut sof, CUDLA_NVSCISYNC_FENCE_SOF)];
        let mut ss = signals(&ps, &mut fs);
        ok(dla.submit(&dla.task(None, Some(&mut ss)), 0));
        sok(sci.wait(&sof, 5_000_000));
        assert_eq!(
            sci.wait(&eof, 0),
            NvSciError_Timeout,
            "the SOF fence is reached before the task ends"
        );
        sok(sci.wait(&eof, 5_000_000));
        let (a, b) = (
            signal_ts(sof_obj, fence_value(&sof)),
            signal_ts(eof_obj, fence_value(&eof)),
        );
        assert!(b >= a + 1_000_000_000, "{a} {b}");
        NvSciSyncFenceClear(&mut sof);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();
}

/// Submits one task signalling `sp` and returns its EOF fence.
fn run_one(dla: &Dla, sp: &[*mut u64; 1]) -> NvSciSyncFence {
    let mut eof = NvSciSyncFenceInitializer;
    ok(dla.submit_fences(None, sp, &mut eof, 0));
    eof
}

/// Covers: REQ-DLA-011, REQ-DLA-007
#[test]
fn faults_async_error_corrupt_late_with_skip_and_count() {
    let (_s, sci, dla) = setup();
    let (sig, sp) = dla.signal_sem(&sci);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 100_000, 0, 0);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let f = cudlaSilFault {
            kind: 9,
            status: 0,
            skipTasks: 0,
            count: 0,
            extraDelayNs: 0,
        };
        assert_eq!(cudlaSilInjectFault(dla.dev, &f), cudlaErrorInvalidParam);
        assert_eq!(cudlaSilInjectFault(dla.dev, null()), cudlaErrorInvalidParam);
        let f = cudlaSilFault {
            kind: CUDLA_SIL_FAULT_ASYNC_ERROR,
            ..f
        };
        assert_eq!(
            cudlaSilInjectFault(dla.dev, &f),
            cudlaErrorInvalidParam,
            "status 0"
        );

        // Async error on the 2nd task only.
        fault(
            dla.dev,
            CUDLA_SIL_FAULT_ASYNC_ERROR,
            cudlaErrorDlaErrDataMismatch.0,
            1,
            1,
            0,
        );
        for want in [cudlaSuccess, cudlaErrorDlaErrDataMismatch, cudlaSuccess] {
            let mut eof = run_one(&dla, &sp);
            sok(sci.wait(&eof, 5_000_000));
            assert_eq!(cudlaGetLastError(dla.dev), want);
            assert_eq!(cudlaGetLastError(dla.dev), cudlaSuccess, "reading clears");
            assert_eq!(dla.outputs(), GOLDEN_OUT);
            NvSciSyncFenceClear(&mut eof);
        }

        // Corrupt output: output tensor 0 inverted, tensor 1 intact.
        fault(dla.dev, CUDLA_SIL_FAULT_CORRUPT_OUTPUT, 0, 0, 1, 0);
        let mut eof = run_one(&dla, &sp);
        sok(sci.wait(&eof, 5_000_000));
        let out = dla.outputs();
        let inverted: Vec<u8> = GOLDEN_OUT[..1536].iter().map(|b| b ^ 0xff).collect();
        assert_eq!(&out[..1536], &inverted[..]);
        assert_eq!(&out[1536..], &GOLDEN_OUT[1536..]);
        NvSciSyncFenceClear(&mut eof);
        let mut eof = run_one(&dla, &sp);
        sok(sci.wait(&eof, 5_000_000));
        assert_eq!(dla.outputs(), GOLDEN_OUT, "count 1: only one task");
        NvSciSyncFenceClear(&mut eof);

        // Late: +400 ms on every task until cleared (far above any scheduling delay of a loaded
        // host, so the check after clearing cannot be confused with it).
        fault(dla.dev, CUDLA_SIL_FAULT_LATE, 0, 0, 0, 400_000_000);
        for _ in 0..2 {
            let t0 = NvSciSilClockNowNs();
            let mut eof = run_one(&dla, &sp);
            sok(sci.wait(&eof, 5_000_000));
            assert!(signal_ts(sig, fence_value(&eof)) >= t0 + 400_100_000);
            NvSciSyncFenceClear(&mut eof);
        }
        ok(cudlaSilClearFaults(dla.dev));
        let t0 = Instant::now();
        let mut eof = run_one(&dla, &sp);
        sok(sci.wait(&eof, 5_000_000));
        assert!(t0.elapsed() < Duration::from_millis(300));
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();
}

/// Covers: REQ-DLA-008
#[test]
fn task_timeout() {
    let (_s, sci, dla) = setup();
    let (sig, sp) = dla.signal_sem(&sci);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        assert_eq!(cudlaSetTaskTimeoutInMs(dla.dev, 0), cudlaErrorInvalidParam);
        assert_eq!(
            cudlaSetTaskTimeoutInMs(dla.dev, 1_000_001),
            cudlaErrorInvalidParam
        );
        ok(cudlaSetTaskTimeoutInMs(dla.dev, 1_000_000));
        ok(cudlaSetTaskTimeoutInMs(dla.dev, 20));
        fault(dla.dev, CUDLA_SIL_FAULT_LATE, 0, 0, 1, 10_000_000_000);
        let t0 = NvSciSilClockNowNs();
        let mut eof = run_one(&dla, &sp);
        sok(sci.wait(&eof, 2_000_000));
        let end = signal_ts(sig, fence_value(&eof));
        assert!(
            end >= t0 + 20_000_000 && end < t0 + 1_000_000_000,
            "{}",
            end - t0
        );
        assert_eq!(cudlaGetLastError(dla.dev), cudlaErrorDlaErrEngineTimeout);
        NvSciSyncFenceClear(&mut eof);
        // The next task is normal again.
        let mut eof = run_one(&dla, &sp);
        sok(sci.wait(&eof, 2_000_000));
        assert_eq!(cudlaGetLastError(dla.dev), cudlaSuccess);
        NvSciSyncFenceClear(&mut eof);
    }
    dla.destroy();
}

/// Covers: REQ-DLA-001
#[test]
fn destroy_never_hangs() {
    let _s = serial();
    let sci = Sci::new();
    // A hung task, and tasks queued behind it.
    let dla = Dla::new(&sci, 0);
    let (sig, sp) = dla.signal_sem(&sci);
    fault(dla.dev, CUDLA_SIL_FAULT_HANG, 0, 0, 1, 0);
    let mut hung = run_one(&dla, &sp);
    let mut behind = run_one(&dla, &sp);
    assert_eq!(sci.wait(&hung, 100_000), NvSciError_Timeout);
    let t0 = Instant::now();
    dla.destroy();
    assert!(t0.elapsed() < DESTROY_BOUND);
    assert_eq!(sci.wait(&behind, 1_000), NvSciError_Timeout);

    // A task whose pre-fence is never signalled.
    let dla = Dla::new(&sci, 0);
    let wait_obj = dla.wait_sem(&sci);
    let sp = [import_sem(dla.dev, sig)];
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let (mut pre, mut eof) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        ok(dla.submit_after(wait_obj, &mut pre, &sp, &mut eof, 0));
        assert_eq!(sci.wait(&eof, 50_000), NvSciError_Timeout);
        let t0 = Instant::now();
        dla.destroy();
        assert!(t0.elapsed() < DESTROY_BOUND);
        // The application can tear its objects down afterwards.
        NvSciSyncFenceClear(&mut pre);
        NvSciSyncFenceClear(&mut eof);
        NvSciSyncFenceClear(&mut hung);
        NvSciSyncFenceClear(&mut behind);
        NvSciSyncObjFree(wait_obj);
        NvSciSyncObjFree(sig);
    }
}

/// Covers: REQ-DLA-005
#[test]
fn queue_full_is_out_of_resources() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sem(&sci);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        let mut pre = NvSciSyncFenceInitializer;
        sok(NvSciSyncObjGenerateFence(wait_obj, &mut pre));
        let pf = [cfence(&mut pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        ok(dla.submit(&dla.task(Some(&w), None), 0));
        std::thread::sleep(Duration::from_millis(10)); // the worker holds the first task
        let cap = cudla::limits::QUEUE_CAPACITY;
        let many = vec![dla.task(None, None); cap + 1];
        assert_eq!(
            cudlaSubmitTask(dla.dev, many.as_ptr(), many.len() as u32, null_mut(), 0),
            cudlaErrorOutOfResources
        );
        ok(cudlaSubmitTask(
            dla.dev,
            many.as_ptr(),
            cap as u32,
            null_mut(),
            0,
        ));
        assert_eq!(
            dla.submit(&dla.task(None, None), 0),
            cudlaErrorOutOfResources
        );
        sok(NvSciSyncObjSignal(wait_obj));
        NvSciSyncFenceClear(&mut pre);
    }
    dla.destroy();
}

/// Covers: REQ-DLA-011
#[test]
fn timing_model_errors() {
    let _s = serial();
    let dev = create(0);
    // SAFETY: C ABI calls; handles are live or deliberately bogus (the library validates
    // them), pointers point to live locals of matching types and lengths.
    unsafe {
        assert_eq!(cudlaSilSetTimingModel(dev, null()), cudlaErrorInvalidParam);
        let mut m = cudlaSilTimingModel {
            kind: CUDLA_SIL_TIMING_UNIFORM,
            numBins: 0,
            minNs: 10,
            maxNs: 5,
            binUpperNs: null(),
            binWeights: null(),
            seed: 1,
        };
        assert_eq!(cudlaSilSetTimingModel(dev, &m), cudlaErrorInvalidParam);
        m.kind = 7;
        assert_eq!(cudlaSilSetTimingModel(dev, &m), cudlaErrorInvalidParam);
        m.kind = CUDLA_SIL_TIMING_HISTOGRAM;
        m.numBins = 2;
        assert_eq!(cudlaSilSetTimingModel(dev, &m), cudlaErrorInvalidParam);
        let (up, w) = ([2_000u64, 1_000], [1u32, 1]);
        m.binUpperNs = up.as_ptr();
        m.binWeights = w.as_ptr();
        m.minNs = 0;
        assert_eq!(
            cudlaSilSetTimingModel(dev, &m),
            cudlaErrorInvalidParam,
            "falling edges"
        );
        let up = [1_000u64, 2_000];
        m.binUpperNs = up.as_ptr();
        ok(cudlaSilSetTimingModel(dev, &m));
        ok(cudlaDestroyDevice(dev));
    }
}
