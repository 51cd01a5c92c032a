//! The SIL NvSciBuf through its C ABI (the `nvsci-sys` declarations, as the runtime
//! calls it).

mod common;

use std::ptr::{null, null_mut};

use common::*;
use nvsci_sys::sil::NvSciBufSilObjGetMemory;
use nvsci_sys::*;

/// Covers: REQ-BUF-001, REQ-SIL-004
#[test]
fn modules() {
    // SAFETY: NULL and bogus values are checked by the library.
    unsafe {
        assert_eq!(NvSciBufModuleOpen(null_mut()), BAD);
        let m = module();
        let mut l = null_mut();
        assert_eq!(NvSciBufAttrListCreate(bogus(), &mut l), BAD);
        assert_eq!(NvSciBufAttrListCreate(m, null_mut()), BAD);
        let before = new_list(m);
        NvSciBufModuleClose(m);
        NvSciBufModuleClose(m);
        NvSciBufModuleClose(null_mut());
        assert_eq!(NvSciBufAttrListCreate(m, &mut l), BAD);
        let t = [NvSciBufType_RawBuffer];
        ok(set(before, &[pair(NvSciBufGeneralAttrKey_Types, &t)]));
        NvSciBufAttrListFree(before);
        NvSciBufAttrListFree(before);
        NvSciBufAttrListFree(bogus());
    }
}

/// Covers: REQ-BUF-001, REQ-SIL-004
#[test]
fn set_attrs_validation() {
    let m = module();
    let l = new_list(m);
    let size = 4096u64;
    let ty = [NvSciBufType_RawBuffer];
    // A datatype key before its type is in Types.
    assert_eq!(set(l, &[pair(NvSciBufRawBufferAttrKey_Size, &size)]), BAD);
    // Bad Types values.
    for t in [
        vec![NvSciBufType_General],
        vec![NvSciBufType(6)],
        vec![NvSciBufType_RawBuffer, NvSciBufType(99)],
    ] {
        assert_eq!(
            set(l, &[pair(NvSciBufGeneralAttrKey_Types, t.as_slice())]),
            BAD
        );
    }
    let empty: [NvSciBufType; 0] = [];
    assert_eq!(set(l, &[pair(NvSciBufGeneralAttrKey_Types, &empty)]), BAD);
    // Types and a RawBuffer key in the same call are fine; all-or-nothing otherwise.
    let zero = 0u64;
    assert_eq!(
        set(
            l,
            &[
                pair(NvSciBufGeneralAttrKey_Types, &ty),
                pair(NvSciBufRawBufferAttrKey_Size, &zero)
            ]
        ),
        BAD
    );
    assert_eq!(get(l, NvSciBufGeneralAttrKey_Types), None);
    ok(set(
        l,
        &[
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufRawBufferAttrKey_Size, &size),
        ],
    ));
    // Set twice; twice in one call.
    assert_eq!(set(l, &[pair(NvSciBufRawBufferAttrKey_Size, &size)]), BAD);
    let t = true;
    assert_eq!(
        set(
            l,
            &[
                pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &t),
                pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &t)
            ]
        ),
        BAD
    );
    // Lengths and values.
    let small = 4096u32;
    assert_eq!(set(l, &[pair(NvSciBufRawBufferAttrKey_Align, &small)]), BAD);
    let three = 3u64;
    assert_eq!(set(l, &[pair(NvSciBufRawBufferAttrKey_Align, &three)]), BAD);
    let wide = 1u32;
    assert_eq!(
        set(l, &[pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &wide)]),
        BAD
    );
    for p in [
        NvSciBufAccessPerm_Auto,
        NvSciBufAccessPerm_Invalid,
        NvSciBufAttrValAccessPerm(0),
    ] {
        assert_eq!(
            set(l, &[pair(NvSciBufGeneralAttrKey_RequiredPerm, &p)]),
            BAD
        );
    }
    let perm64 = 3u64;
    assert_eq!(
        set(l, &[pair(NvSciBufGeneralAttrKey_RequiredPerm, &perm64)]),
        BAD
    );
    let gpu = [7u8; 15];
    assert_eq!(set(l, &[pair(NvSciBufGeneralAttrKey_GpuId, &gpu)]), BAD);
    // Output-only keys.
    let rw = NvSciBufAccessPerm_ReadWrite;
    assert_eq!(set(l, &[pair(NvSciBufGeneralAttrKey_ActualPerm, &rw)]), BAD);
    assert_eq!(
        set(
            l,
            &[pair(NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency, &t)]
        ),
        BAD
    );
    // Not a public key; an image key on a RawBuffer list; a wrong-length VidMem_GpuId.
    assert_eq!(set(l, &[pair(NvSciBufAttrKey(0x1234), &wide)]), BAD);
    assert_eq!(set(l, &[pair(NvSciBufImageAttrKey_Layout, &wide)]), BAD);
    assert_eq!(
        set(l, &[pair(NvSciBufGeneralAttrKey_VidMem_GpuId, &gpu)]),
        BAD
    );
    // Tensor keys on a RawBuffer list.
    let dt = NvSciDataType_Int8;
    assert_eq!(set(l, &[pair(NvSciBufTensorAttrKey_DataType, &dt)]), BAD);
    // Align 0 is accepted (NVIDIA's CUDA sample sets it).
    ok(set(l, &[pair(NvSciBufRawBufferAttrKey_Align, &zero)]));
    // NULL value / array, zero count, unknown list.
    let nullv = NvSciBufAttrKeyValuePair {
        key: NvSciBufGeneralAttrKey_NeedCpuAccess,
        value: null(),
        len: 1,
    };
    assert_eq!(set(l, &[nullv]), BAD);
    // SAFETY: NULL and bogus values are checked by the library.
    unsafe {
        assert_eq!(NvSciBufAttrListSetAttrs(l, null_mut(), 1), BAD);
        let mut p = pair(NvSciBufGeneralAttrKey_EnableCpuCache, &t);
        assert_eq!(NvSciBufAttrListSetAttrs(l, &mut p, 0), BAD);
        assert_eq!(NvSciBufAttrListSetAttrs(bogus(), &mut p, 1), BAD);
    }

    // Tensor key values.
    let tl = new_list(m);
    let tt = [NvSciBufType_Tensor];
    ok(set(tl, &[pair(NvSciBufGeneralAttrKey_Types, &tt)]));
    assert_eq!(set(tl, &[pair(NvSciBufRawBufferAttrKey_Size, &size)]), BAD);
    assert_eq!(
        set(
            tl,
            &[pair(
                NvSciBufTensorAttrKey_DataType,
                &NvSciDataType_FloatISP
            )]
        ),
        BAD
    );
    for nd in [0u32, 9] {
        assert_eq!(set(tl, &[pair(NvSciBufTensorAttrKey_NumDims, &nd)]), BAD);
    }
    assert_eq!(
        set(tl, &[pair(NvSciBufTensorAttrKey_SizePerDim, &[1u64; 9])]),
        BAD
    );
    // A zero-sized dimension is a valid uint64_t input (nvscibuf.h blanket statement on
    // ranges); reconciliation refuses it (tensor_reconcile).
    ok(set(
        tl,
        &[pair(NvSciBufTensorAttrKey_SizePerDim, &[4u64, 0])],
    ));
    assert_eq!(
        set(
            tl,
            &[pair(NvSciBufTensorAttrKey_AlignmentPerDim, &[1u32, 3])]
        ),
        BAD
    );
    assert_eq!(
        set(tl, &[pair(NvSciBufTensorAttrKey_BaseAddrAlign, &zero)]),
        BAD
    );
    assert_eq!(
        set(tl, &[pair(NvSciBufTensorAttrKey_StridesPerDim, &[1u64])]),
        BAD
    );
    assert_eq!(set(tl, &[pair(NvSciBufTensorAttrKey_Size, &size)]), BAD);
}

/// Covers: REQ-BUF-001
#[test]
fn get_attrs() {
    let m = module();
    let l = raw_list(m, 100, None, true, NvSciBufAccessPerm_ReadWrite);
    assert_eq!(get_u64(l, NvSciBufRawBufferAttrKey_Size), Some(100));
    assert_eq!(get(l, NvSciBufGeneralAttrKey_GpuId), None);
    // A key of another type is a valid key, unset.
    assert_eq!(get(l, NvSciBufImageAttrKey_Layout), None);
    let mut p = [NvSciBufAttrKeyValuePair {
        key: NvSciBufAttrKey(0x1234),
        value: null(),
        len: 0,
    }];
    // SAFETY: locals; NULL and bogus values are checked by the library.
    unsafe {
        assert_eq!(NvSciBufAttrListGetAttrs(l, p.as_mut_ptr(), 1), BAD);
        assert_eq!(NvSciBufAttrListGetAttrs(l, p.as_mut_ptr(), 0), BAD);
        assert_eq!(NvSciBufAttrListGetAttrs(l, null_mut(), 1), BAD);
        p[0].key = NvSciBufGeneralAttrKey_Types;
        assert_eq!(NvSciBufAttrListGetAttrs(bogus(), p.as_mut_ptr(), 1), BAD);
        NvSciBufAttrListFree(l);
        assert_eq!(NvSciBufAttrListGetAttrs(l, p.as_mut_ptr(), 1), BAD);
    }
}

/// Covers: REQ-BUF-002
#[test]
fn raw_buffer_reconcile() {
    let m = module();
    // A CPU list and an accelerator list (AIIOT / CUDA sample style).
    let cpu = raw_list(m, 10_000, Some(64), true, NvSciBufAccessPerm_Readonly);
    let gpu = new_list(m);
    let ty = [NvSciBufType_RawBuffer];
    let size = 10_000u64;
    let align = 256u64;
    let ids = [
        NvSciRmGpuId { bytes: [1; 16] },
        NvSciRmGpuId { bytes: [2; 16] },
    ];
    let cache = [NvSciBufAttrValGpuCache {
        gpuId: ids[0],
        cacheability: false,
    }];
    let rw = NvSciBufAccessPerm_ReadWrite;
    ok(set(
        gpu,
        &[
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufRawBufferAttrKey_Size, &size),
            pair(NvSciBufRawBufferAttrKey_Align, &align),
            pair(NvSciBufGeneralAttrKey_GpuId, &ids),
            pair(NvSciBufGeneralAttrKey_EnableGpuCache, &cache),
            pair(NvSciBufGeneralAttrKey_RequiredPerm, &rw),
        ],
    ));
    let r = reconcile(&[cpu, gpu]).unwrap();
    assert_eq!(get_u64(r, NvSciBufRawBufferAttrKey_Size), Some(10_000));
    assert_eq!(get_u64(r, NvSciBufRawBufferAttrKey_Align), Some(256));
    assert_eq!(get_u32(r, NvSciBufGeneralAttrKey_ActualPerm), Some(rw.0));
    assert_eq!(
        get_bool(r, NvSciBufGeneralAttrKey_NeedCpuAccess),
        Some(true)
    );
    assert_eq!(
        get_bool(r, NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency),
        Some(false)
    );
    assert_eq!(
        get_bool(r, NvSciBufGeneralAttrKey_EnableCpuCache),
        Some(false)
    );
    assert_eq!(get(r, NvSciBufGeneralAttrKey_GpuId).unwrap().len(), 32);
    // EnableGpuCache: one entry per GpuId value; unnamed GPUs keep the iGPU default.
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_EnableGpuCache).unwrap(),
        [&[1u8; 16][..], &[0], &[2u8; 16], &[1]].concat()
    );
    assert_eq!(
        get(r, NvSciBufGeneralAttrKey_Types).unwrap(),
        NvSciBufType_RawBuffer.0.to_ne_bytes()
    );
    // Read-only: SetAttrs on a reconciled list fails.
    let t = true;
    assert_eq!(
        set(r, &[pair(NvSciBufGeneralAttrKey_EnableCpuCache, &t)]),
        BAD
    );
    // Defaults: Readonly, 4096 alignment.
    let lone = new_list(m);
    ok(set(
        lone,
        &[
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufRawBufferAttrKey_Size, &size),
        ],
    ));
    let r2 = reconcile(&[lone]).unwrap();
    assert_eq!(
        get_u32(r2, NvSciBufGeneralAttrKey_ActualPerm),
        Some(NvSciBufAccessPerm_Readonly.0)
    );
    assert_eq!(get_u64(r2, NvSciBufRawBufferAttrKey_Align), Some(4096));
    // Input checks.
    assert_eq!(reconcile(&[r, cpu]).unwrap_err().0, BAD);
    assert_eq!(reconcile(&[cpu, cpu]).unwrap_err().0, BAD);
    assert_eq!(reconcile(&[cpu, bogus()]).unwrap_err().0, BAD);
    assert_eq!(reconcile(&[]).unwrap_err().0, BAD);
    let other = raw_list(module(), 10_000, None, false, rw);
    assert_eq!(reconcile(&[cpu, other]).unwrap_err().0, BAD);
    // SAFETY: NULL out pointers are checked.
    unsafe {
        let l = [cpu, gpu];
        let mut x = null_mut();
        assert_eq!(
            NvSciBufAttrListReconcile(l.as_ptr(), 2, null_mut(), &mut x),
            BAD
        );
        assert_eq!(
            NvSciBufAttrListReconcile(l.as_ptr(), 2, &mut x, null_mut()),
            BAD
        );
    }
}

/// Covers: REQ-BUF-002
#[test]
fn reconcile_conflicts() {
    let m = module();
    let rw = NvSciBufAccessPerm_ReadWrite;
    // Sizes must match: the conflict list has one slot per list that set the key; GetAttrs
    // reads slot 0.
    let (rc, c) = reconcile(&[
        raw_list(m, 100, None, false, rw),
        raw_list(m, 200, None, false, rw),
    ])
    .unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(get_u64(c, NvSciBufRawBufferAttrKey_Size), Some(100));
    assert_eq!(get(c, NvSciBufGeneralAttrKey_RequiredPerm), None);
    let t = true;
    assert_eq!(
        set(c, &[pair(NvSciBufGeneralAttrKey_EnableCpuCache, &t)]),
        BAD
    );
    // SAFETY: handle from this library.
    unsafe { NvSciBufAttrListFree(c) };
    // Missing mandatory size: BadParameter (nvscibuf.h Reconcile), no conflict list.
    let l = new_list(m);
    let ty = [NvSciBufType_RawBuffer];
    ok(set(l, &[pair(NvSciBufGeneralAttrKey_Types, &ty)]));
    let (rc, c) = reconcile(&[l]).unwrap_err();
    assert_eq!(rc, BAD);
    assert!(c.is_null());
    // No Types anywhere: Types is mandatory.
    let (rc, c) = reconcile(&[new_list(m)]).unwrap_err();
    assert_eq!(rc, BAD);
    assert!(c.is_null());
    // Different types.
    let tensor = tensor_list(m, NvSciDataType_Int8, &[64], &[1], 512);
    let (rc, c) = reconcile(&[raw_list(m, 64, None, false, rw), tensor]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(
        get(c, NvSciBufGeneralAttrKey_Types).unwrap(),
        NvSciBufType_RawBuffer.0.to_ne_bytes()
    );
    // An image list without its mandatory keys.
    let img = new_list(m);
    let it = [NvSciBufType_Image];
    ok(set(img, &[pair(NvSciBufGeneralAttrKey_Types, &it)]));
    let (rc, c) = reconcile(&[img]).unwrap_err();
    assert_eq!(rc, BAD);
    assert!(c.is_null());
    // ReconcileAndObjAlloc fails the same way.
    let lists = [
        raw_list(m, 100, None, false, rw),
        raw_list(m, 200, None, false, rw),
    ];
    let (mut o, mut c) = (null_mut(), null_mut());
    // SAFETY: locals.
    unsafe {
        assert_eq!(
            NvSciBufAttrListReconcileAndObjAlloc(lists.as_ptr(), 2, &mut o, &mut c),
            NvSciError_ReconciliationFailed
        );
        assert!(o.is_null());
        assert_eq!(get_u64(c, NvSciBufRawBufferAttrKey_Size), Some(100));
        assert_eq!(
            NvSciBufAttrListReconcileAndObjAlloc(lists.as_ptr(), 2, null_mut(), &mut c),
            BAD
        );
        assert_eq!(
            NvSciBufAttrListReconcileAndObjAlloc(lists.as_ptr(), 2, &mut o, null_mut()),
            BAD
        );
    }
}

/// Covers: REQ-BUF-002
#[test]
fn tensor_reconcile() {
    let m = module();
    // The cuDLA standalone sample's tensor.
    let r = reconcile(&[tensor_list(m, NvSciDataType_Int8, &[1000], &[1], 512)]).unwrap();
    assert_eq!(get_u64(r, NvSciBufTensorAttrKey_Size), Some(1000));
    assert_eq!(
        get_u64s(r, NvSciBufTensorAttrKey_StridesPerDim),
        Some(vec![1])
    );
    assert_eq!(get_u64(r, NvSciBufTensorAttrKey_BaseAddrAlign), Some(512));
    assert_eq!(get_u32(r, NvSciBufTensorAttrKey_NumDims), Some(1));
    assert_eq!(
        get_u32(r, NvSciBufTensorAttrKey_DataType),
        Some(NvSciDataType_Int8.0)
    );
    // Two lists: the per-dimension alignment and base alignment are the maxima.
    let a = tensor_list(
        m,
        NvSciDataType_Float16,
        &[1, 3, 224, 224],
        &[1, 1, 1, 32],
        256,
    );
    let b = tensor_list(
        m,
        NvSciDataType_Float16,
        &[1, 3, 224, 224],
        &[1, 1, 1, 64],
        1024,
    );
    let r = reconcile(&[a, b]).unwrap();
    // Innermost extent 224 * 2 = 448 bytes aligned to 64 = 448.
    assert_eq!(
        get_u64s(r, NvSciBufTensorAttrKey_StridesPerDim),
        Some(vec![301_056, 100_352, 448, 2])
    );
    assert_eq!(get_u64(r, NvSciBufTensorAttrKey_Size), Some(301_056));
    assert_eq!(get_u64(r, NvSciBufTensorAttrKey_BaseAddrAlign), Some(1024));
    let o = alloc(r);
    let (p, n) = memory(o);
    assert_eq!(p.addr() % 4096, 0);
    assert_eq!(n, 301_056u64.next_multiple_of(4096));
    // Mismatched data types.
    let (rc, c) = reconcile(&[
        tensor_list(m, NvSciDataType_Int8, &[8], &[1], 64),
        tensor_list(m, NvSciDataType_Uint8, &[8], &[1], 64),
    ])
    .unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(
        get_u32(c, NvSciBufTensorAttrKey_DataType),
        Some(NvSciDataType_Int8.0)
    );
    // Missing AlignmentPerDim (mandatory for tensor-only reconciliation).
    let l = new_list(m);
    let (ty, dt, nd) = ([NvSciBufType_Tensor], NvSciDataType_Int8, 1u32);
    ok(set(
        l,
        &[
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufTensorAttrKey_DataType, &dt),
            pair(NvSciBufTensorAttrKey_NumDims, &nd),
            pair(NvSciBufTensorAttrKey_SizePerDim, &[16u64]),
        ],
    ));
    assert_eq!(reconcile(&[l]).unwrap_err().0, BAD);
    // SizePerDim shorter than NumDims.
    let l = new_list(m);
    let nd2 = 2u32;
    ok(set(
        l,
        &[
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufTensorAttrKey_DataType, &dt),
            pair(NvSciBufTensorAttrKey_NumDims, &nd2),
            pair(NvSciBufTensorAttrKey_SizePerDim, &[16u64]),
            pair(NvSciBufTensorAttrKey_AlignmentPerDim, &[1u32, 1]),
        ],
    ));
    assert_eq!(reconcile(&[l]).unwrap_err().0, BAD);
    // A zero-sized dimension.
    let r = reconcile(&[tensor_list(m, NvSciDataType_Int8, &[4, 0], &[1, 1], 64)]);
    assert_eq!(r.unwrap_err().0, BAD);
}

/// Covers: REQ-BUF-003
#[test]
fn allocation_is_page_aligned_padded_and_zeroed() {
    let m = module();
    let rw = NvSciBufAccessPerm_ReadWrite;
    let u = raw_list(m, 5000, Some(65_536), true, rw);
    let mut o = null_mut();
    // SAFETY: locals; an unreconciled list is refused.
    unsafe {
        assert_eq!(NvSciBufObjAlloc(u, &mut o), BAD);
        assert_eq!(NvSciBufObjAlloc(bogus(), &mut o), BAD);
    }
    let r = reconcile(&[u]).unwrap();
    // SAFETY: NULL out pointer checked.
    unsafe { assert_eq!(NvSciBufObjAlloc(r, null_mut()), BAD) };
    let objs: Vec<_> = (0..4).map(|_| alloc(r)).collect();
    let mut ranges = Vec::new();
    for &o in &objs {
        let (p, n) = memory(o);
        assert_eq!(p.addr() % 65_536, 0);
        assert_eq!(n, 8192);
        // SAFETY: the buffer has `n` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(p, n as usize) };
        assert!(bytes.iter().all(|b| *b == 0));
        ranges.push((p.addr(), p.addr() + n as usize));
    }
    ranges.sort();
    assert!(
        ranges.windows(2).all(|w| w[0].1 <= w[1].0),
        "no two buffers share a page"
    );
    let small = reconcile(&[raw_list(m, 1, None, false, rw)]).unwrap();
    let (p, n) = memory(alloc(small));
    assert_eq!((p.addr() % 4096, n), (0, 4096));
    // SAFETY: NULL and bogus values checked.
    unsafe {
        let (mut p, mut n) = (null_mut(), 0);
        assert_eq!(NvSciBufSilObjGetMemory(bogus(), &mut p, &mut n), BAD);
        assert_eq!(NvSciBufSilObjGetMemory(objs[0], null_mut(), &mut n), BAD);
        assert_eq!(NvSciBufSilObjGetMemory(objs[0], &mut p, null_mut()), BAD);
        for o in objs {
            NvSciBufObjFree(o);
        }
    }
}

/// Covers: REQ-BUF-003
#[test]
fn cpu_access_and_permissions() {
    let m = module();
    let rw = NvSciBufAccessPerm_ReadWrite;
    // No CPU access.
    let o = alloc(reconcile(&[raw_list(m, 64, None, false, rw)]).unwrap());
    let (mut p, mut cp) = (null_mut(), null());
    // SAFETY: locals and handles.
    unsafe {
        assert_eq!(NvSciBufObjGetCpuPtr(o, &mut p), BAD);
        assert_eq!(NvSciBufObjGetConstCpuPtr(o, &mut cp), BAD);
        assert_eq!(
            NvSciBufObjFlushCpuCacheRange(o, 0, 64),
            NvSciError_NotPermitted
        );
        // The SIL engines still reach the memory.
        assert!(!memory(o).0.is_null());
    }
    // CPU access, list asked Readonly: the allocated object is ReadWrite anyway.
    let r = reconcile(&[raw_list(m, 64, None, true, NvSciBufAccessPerm_Readonly)]).unwrap();
    assert_eq!(
        get_u32(r, NvSciBufGeneralAttrKey_ActualPerm),
        Some(NvSciBufAccessPerm_Readonly.0)
    );
    let o = alloc(r);
    let mut ol = null_mut();
    // SAFETY: locals and handles.
    unsafe {
        ok(NvSciBufObjGetAttrList(o, &mut ol));
        assert_eq!(get_u32(ol, NvSciBufGeneralAttrKey_ActualPerm), Some(rw.0));
        ok(NvSciBufObjGetCpuPtr(o, &mut p));
        assert_eq!(p.cast::<u8>(), memory(o).0);
        p.cast::<u8>().write(42);
        ok(NvSciBufObjGetConstCpuPtr(o, &mut cp));
        assert_eq!(cp.cast::<u8>().read(), 42);
        assert_eq!(NvSciBufObjGetCpuPtr(o, null_mut()), BAD);
        assert_eq!(NvSciBufObjGetConstCpuPtr(o, null_mut()), BAD);
        assert_eq!(NvSciBufObjGetCpuPtr(bogus(), &mut p), BAD);
        // Flush ranges.
        ok(NvSciBufObjFlushCpuCacheRange(o, 0, 64));
        ok(NvSciBufObjFlushCpuCacheRange(o, 63, 1));
        assert_eq!(NvSciBufObjFlushCpuCacheRange(o, 0, 0), BAD);
        assert_eq!(NvSciBufObjFlushCpuCacheRange(o, 63, 2), BAD);
        assert_eq!(
            NvSciBufObjFlushCpuCacheRange(o, u64::MAX, 2),
            NvSciError_Overflow
        );
        assert_eq!(NvSciBufObjFlushCpuCacheRange(bogus(), 0, 1), BAD);
        // A read-only dup: const pointer only, its own list says Readonly.
        let mut ro = null_mut();
        ok(NvSciBufObjDupWithReducePerm(
            o,
            NvSciBufAccessPerm_Readonly,
            &mut ro,
        ));
        assert_eq!(NvSciBufObjGetCpuPtr(ro, &mut p), BAD);
        ok(NvSciBufObjGetConstCpuPtr(ro, &mut cp));
        assert_eq!(cp.cast::<u8>().read(), 42);
        let mut rl = null_mut();
        ok(NvSciBufObjGetAttrList(ro, &mut rl));
        assert_eq!(
            get_u32(rl, NvSciBufGeneralAttrKey_ActualPerm),
            Some(NvSciBufAccessPerm_Readonly.0)
        );
        assert_eq!(get_u32(ol, NvSciBufGeneralAttrKey_ActualPerm), Some(rw.0));
        // Permissions never grow back: asking more than the handle has is BadParameter.
        let mut back = null_mut();
        assert_eq!(NvSciBufObjDupWithReducePerm(ro, rw, &mut back), BAD);
        assert!(back.is_null());
        let mut d = null_mut();
        ok(NvSciBufObjDup(ro, &mut d));
        assert_eq!(NvSciBufObjGetCpuPtr(d, &mut p), BAD);
        assert_eq!(
            NvSciBufObjDupWithReducePerm(o, NvSciBufAccessPerm_Auto, &mut d),
            BAD
        );
        assert_eq!(
            NvSciBufObjDupWithReducePerm(o, NvSciBufAccessPerm_Readonly, null_mut()),
            BAD
        );
        assert_eq!(NvSciBufObjDup(bogus(), &mut d), BAD);
        assert_eq!(NvSciBufObjDup(o, null_mut()), BAD);
    }
}

/// Covers: REQ-BUF-003
#[test]
fn handles_are_reference_counted() {
    let m = module();
    let r = reconcile(&[raw_list(m, 64, None, true, NvSciBufAccessPerm_ReadWrite)]).unwrap();
    // SAFETY: locals and handles; freed and bogus handles are checked by the library.
    unsafe {
        let mut o = null_mut();
        ok(NvSciBufAttrListReconcileAndObjAlloc(
            [raw_list(m, 64, None, true, NvSciBufAccessPerm_ReadWrite)].as_ptr(),
            1,
            &mut o,
            &mut null_mut(),
        ));
        NvSciBufObjFree(o);
        let o = alloc(r);
        NvSciBufAttrListFree(r); // the object keeps its own list
        let (mem, _) = memory(o);
        let mut d = null_mut();
        ok(NvSciBufObjDup(o, &mut d));
        let mut ol = null_mut();
        ok(NvSciBufObjGetAttrList(o, &mut ol));
        NvSciBufAttrListFree(ol); // ignored: it lives with the object
        assert_eq!(get_u64(ol, NvSciBufRawBufferAttrKey_Size), Some(64));
        NvSciBufObjFree(o);
        NvSciBufObjFree(o); // double free: ignored
        NvSciBufObjFree(null_mut());
        NvSciBufObjFree(bogus());
        let mut p = null_mut();
        assert_eq!(NvSciBufObjGetCpuPtr(o, &mut p), BAD);
        // The dup still holds the buffer.
        ok(NvSciBufObjGetCpuPtr(d, &mut p));
        assert_eq!(p.cast::<u8>(), mem);
        ok(NvSciBufObjGetAttrList(d, &mut ol));
        NvSciBufObjFree(d);
        assert_eq!(NvSciBufObjGetCpuPtr(d, &mut p), BAD);
        assert_eq!(NvSciBufObjGetAttrList(d, &mut ol), BAD);
        let mut pr = [NvSciBufAttrKeyValuePair {
            key: NvSciBufRawBufferAttrKey_Size,
            value: null(),
            len: 0,
        }];
        assert_eq!(NvSciBufAttrListGetAttrs(ol, pr.as_mut_ptr(), 1), BAD);
        assert_eq!(NvSciBufObjGetAttrList(bogus(), &mut ol), BAD);
    }
}

/// Covers: REQ-BUF-003, REQ-SIL-006
#[test]
fn concurrent_alloc_dup_free() {
    #[derive(Clone, Copy)]
    struct H(NvSciBufAttrList);
    // SAFETY: NvSciBuf handles may be used from any thread.
    unsafe impl Send for H {}
    let m = module();
    let r = H(reconcile(&[raw_list(m, 4096, None, true, NvSciBufAccessPerm_ReadWrite)]).unwrap());
    let threads: Vec<_> = (0..4u8)
        .map(|t| {
            std::thread::spawn(move || {
                let r = r;
                for _ in 0..200 {
                    let o = alloc(r.0);
                    let mut d = null_mut();
                    let mut p = null_mut();
                    // SAFETY: locals and live handles; the buffer has 4096 bytes.
                    unsafe {
                        ok(NvSciBufObjDup(o, &mut d));
                        NvSciBufObjFree(o);
                        ok(NvSciBufObjGetCpuPtr(d, &mut p));
                        p.cast::<u8>().write_bytes(t, 4096);
                        assert_eq!(p.cast::<u8>().add(4095).read(), t);
                        NvSciBufObjFree(d);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}
