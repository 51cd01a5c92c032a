//! NvSciBuf external memory: import, mapped buffers, kernels on them, and the error paths.
//!
//! Covers: REQ-GPU-009

mod common;

use core::ffi::c_void;

use common::*;
use nvsci_sys::*;
use orin_exec_kernels::pattern_u32;

fn nv(r: NvSciError) {
    assert_eq!(r, NvSciError_Success);
}

/// A CPU-accessible raw buffer of `size` bytes.
fn raw_buffer(size: u64) -> (NvSciBufModule, NvSciBufObj) {
    let mut m = core::ptr::null_mut();
    let mut l = core::ptr::null_mut();
    let ty = NvSciBufType_RawBuffer;
    let cpu = true;
    let perm = NvSciBufAccessPerm_ReadWrite;
    let gpu = NvSciRmGpuId {
        bytes: sil_cuda::consts::DEVICE_UUID,
    };
    let mut pairs = [
        NvSciBufAttrKeyValuePair {
            key: NvSciBufGeneralAttrKey_Types,
            value: (&raw const ty).cast(),
            len: size_of_val(&ty),
        },
        NvSciBufAttrKeyValuePair {
            key: NvSciBufRawBufferAttrKey_Size,
            value: (&raw const size).cast(),
            len: 8,
        },
        NvSciBufAttrKeyValuePair {
            key: NvSciBufGeneralAttrKey_NeedCpuAccess,
            value: (&raw const cpu).cast(),
            len: 1,
        },
        NvSciBufAttrKeyValuePair {
            key: NvSciBufGeneralAttrKey_RequiredPerm,
            value: (&raw const perm).cast(),
            len: size_of_val(&perm),
        },
        NvSciBufAttrKeyValuePair {
            key: NvSciBufGeneralAttrKey_GpuId,
            value: (&raw const gpu).cast(),
            len: size_of_val(&gpu),
        },
    ];
    let mut o = core::ptr::null_mut();
    let mut conflict = core::ptr::null_mut();
    // SAFETY: valid pointers; the pairs point to live locals.
    unsafe {
        nv(NvSciBufModuleOpen(&mut m));
        nv(NvSciBufAttrListCreate(m, &mut l));
        nv(NvSciBufAttrListSetAttrs(l, pairs.as_mut_ptr(), pairs.len()));
        nv(NvSciBufAttrListReconcileAndObjAlloc(
            &l,
            1,
            &mut o,
            &mut conflict,
        ));
        NvSciBufAttrListFree(l);
    }
    (m, o)
}

fn import(obj: NvSciBufObj, ty: u32, size: u64, flags: u32) -> (CUresult, CUexternalMemory) {
    let desc = CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
        r#type: CUexternalMemoryHandleType(ty),
        handle: CUDA_EXTERNAL_MEMORY_HANDLE_DESC_handle {
            nvSciBufObject: obj.cast_const().cast(),
        },
        size,
        flags,
        reserved: [0; 16],
    };
    let mut e = core::ptr::null_mut();
    // SAFETY: valid pointers.
    let r = unsafe { cuImportExternalMemory(&mut e, &desc) };
    (r, e)
}

fn map(e: CUexternalMemory, offset: u64, size: u64, flags: u32) -> (CUresult, CUdeviceptr) {
    let desc = CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
        offset,
        size,
        flags,
        reserved: [0; 16],
    };
    let mut d = 0;
    // SAFETY: valid pointers.
    let r = unsafe { cuExternalMemoryGetMappedBuffer(&mut d, e, &desc) };
    (r, d)
}

#[test]
fn nvscibuf_import_and_map() {
    setup();
    let (module, obj) = raw_buffer(10_000);
    let mut cpu: *mut c_void = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    nv(unsafe { NvSciBufObjGetCpuPtr(obj, &mut cpu) });

    const NVSCIBUF: u32 = CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF.0;
    assert_eq!(import(obj, 1, 10_000, 0).0, CUDA_ERROR_NOT_SUPPORTED);
    assert_eq!(import(obj, 42, 10_000, 0).0, CUDA_ERROR_INVALID_VALUE);
    assert_eq!(import(obj, NVSCIBUF, 0, 0).0, CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        import(obj, NVSCIBUF, 1 << 20, 0).0,
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(import(obj, NVSCIBUF, 10_000, 2).0, CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        import(core::ptr::null_mut(), NVSCIBUF, 10_000, 0).0,
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        import(0x999 as NvSciBufObj, NVSCIBUF, 10_000, 0).0,
        CUDA_ERROR_INVALID_HANDLE
    );
    let (r, ext) = import(obj, NVSCIBUF, 10_000, CUDA_EXTERNAL_MEMORY_DEDICATED);
    ck(r);

    assert_eq!(
        map(ext, 8192, 4096, 0).0,
        CUDA_ERROR_INVALID_VALUE,
        "past the imported size"
    );
    assert_eq!(map(ext, 0, 0, 0).0, CUDA_ERROR_INVALID_VALUE);
    assert_eq!(map(ext, 0, 64, 1).0, CUDA_ERROR_INVALID_VALUE);
    assert_eq!(
        map(0x77 as CUexternalMemory, 0, 64, 0).0,
        CUDA_ERROR_INVALID_HANDLE
    );
    let (r, d) = map(ext, 4096, 4096, 0);
    ck(r);
    assert_eq!(d, cpu as CUdeviceptr + 4096);

    let sel = load("selftest", 87);
    let (_, fill) = function(sel, "fill_pattern_u32");
    let s = stream();
    let (mut dd, mut n, mut seed) = (d, 1024u32, 5u32);
    ck(launch(fill, s, &mut [p(&mut dd), p(&mut n), p(&mut seed)]));
    ck(sync(s));
    // SAFETY: the buffer has 4096 + 4096 bytes; the stream is idle.
    let words =
        unsafe { core::slice::from_raw_parts(cpu.cast::<u8>().add(4096).cast::<u32>(), 1024) };
    for (i, w) in words.iter().enumerate() {
        assert_eq!(*w, pattern_u32(i as u32, 5));
    }
    // Only the mapped range is visible, not the rest of the buffer.
    let (mut n2, mut d0) = (1025u32, d);
    ck(launch(fill, s, &mut [p(&mut d0), p(&mut n2), p(&mut seed)]));
    assert_eq!(sync(s), CUDA_ERROR_ILLEGAL_ADDRESS);
    ck(destroy(s));

    // cuMemFree of the mapping; unknown pointers are refused.
    // SAFETY: plain C calls.
    unsafe {
        assert_eq!(cuMemFree_v2(d + 4), CUDA_ERROR_INVALID_VALUE);
        ck(cuMemFree_v2(d));
        assert_eq!(cuMemFree_v2(d), CUDA_ERROR_INVALID_VALUE);
    }
    let s = stream();
    let mut n3 = 4u32;
    ck(launch(fill, s, &mut [p(&mut dd), p(&mut n3), p(&mut seed)]));
    assert_eq!(sync(s), CUDA_ERROR_ILLEGAL_ADDRESS, "unmapped");
    ck(destroy(s));

    // Destroying the import removes its mappings.
    let (r, d2) = map(ext, 0, 8192, 0);
    ck(r);
    // SAFETY: plain C calls.
    unsafe {
        ck(cuDestroyExternalMemory(ext));
        assert_eq!(cuDestroyExternalMemory(ext), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuMemFree_v2(d2), CUDA_ERROR_INVALID_VALUE);
        NvSciBufObjFree(obj);
        NvSciBufModuleClose(module);
    }
}
