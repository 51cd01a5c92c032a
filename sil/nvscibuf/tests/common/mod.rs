//! Helpers shared by the NvSciBuf integration tests (the `nvsci-sys` declarations, as the
//! runtime calls them).
#![allow(dead_code)]

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use nvsci_sys::sil::NvSciBufSilObjGetMemory;
use nvsci_sys::*;
// Links the SIL definitions of the declared symbols.
use nvscibuf as _;

pub const BAD: NvSciError = NvSciError_BadParameter;

#[track_caller]
pub fn ok(rc: NvSciError) {
    assert_eq!(rc, NvSciError_Success);
}

pub fn module() -> NvSciBufModule {
    let mut m = null_mut();
    // SAFETY: `m` is a local.
    ok(unsafe { NvSciBufModuleOpen(&mut m) });
    m
}

pub fn new_list(m: NvSciBufModule) -> NvSciBufAttrList {
    let mut l = null_mut();
    // SAFETY: `l` is a local.
    ok(unsafe { NvSciBufAttrListCreate(m, &mut l) });
    l
}

pub fn pair<T: ?Sized>(key: NvSciBufAttrKey, v: &T) -> NvSciBufAttrKeyValuePair {
    NvSciBufAttrKeyValuePair {
        key,
        value: (v as *const T).cast::<c_void>(),
        len: size_of_val(v),
    }
}

pub fn set(l: NvSciBufAttrList, pairs: &[NvSciBufAttrKeyValuePair]) -> NvSciError {
    let mut p = pairs.to_vec();
    // SAFETY: `p` is a live vector whose values point to live data.
    unsafe { NvSciBufAttrListSetAttrs(l, p.as_mut_ptr(), p.len()) }
}

pub fn get(l: NvSciBufAttrList, key: NvSciBufAttrKey) -> Option<Vec<u8>> {
    let mut p = [NvSciBufAttrKeyValuePair {
        key,
        value: null(),
        len: 0,
    }];
    // SAFETY: `p` is a local array of one pair.
    ok(unsafe { NvSciBufAttrListGetAttrs(l, p.as_mut_ptr(), 1) });
    if p[0].value.is_null() {
        assert_eq!(p[0].len, 0);
        return None;
    }
    // SAFETY: the library returned `len` readable bytes.
    Some(unsafe { std::slice::from_raw_parts(p[0].value.cast::<u8>(), p[0].len) }.to_vec())
}

pub fn get_u64s(l: NvSciBufAttrList, key: NvSciBufAttrKey) -> Option<Vec<u64>> {
    get(l, key).map(|b| {
        b.chunks_exact(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    })
}

pub fn get_u64(l: NvSciBufAttrList, key: NvSciBufAttrKey) -> Option<u64> {
    get_u64s(l, key).map(|v| v[0])
}

pub fn get_u32(l: NvSciBufAttrList, key: NvSciBufAttrKey) -> Option<u32> {
    get(l, key).map(|b| u32::from_ne_bytes(b[..4].try_into().unwrap()))
}

pub fn get_bool(l: NvSciBufAttrList, key: NvSciBufAttrKey) -> Option<bool> {
    get(l, key).map(|b| b[0] != 0)
}

/// A raw-buffer list as NVIDIA's cuDLA/CUDA samples make it.
pub fn raw_list(
    m: NvSciBufModule,
    size: u64,
    align: Option<u64>,
    cpu: bool,
    perm: NvSciBufAttrValAccessPerm,
) -> NvSciBufAttrList {
    let l = new_list(m);
    let ty = [NvSciBufType_RawBuffer];
    let mut pairs = vec![
        pair(NvSciBufGeneralAttrKey_Types, &ty),
        pair(NvSciBufRawBufferAttrKey_Size, &size),
        pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu),
        pair(NvSciBufGeneralAttrKey_RequiredPerm, &perm),
    ];
    let a;
    if let Some(x) = align {
        a = x;
        pairs.push(pair(NvSciBufRawBufferAttrKey_Align, &a));
    }
    ok(set(l, &pairs));
    l
}

/// A tensor list as the cuDLA standalone sample makes it.
pub fn tensor_list(
    m: NvSciBufModule,
    dt: NvSciBufAttrValDataType,
    sizes: &[u64],
    aligns: &[u32],
    base: u64,
) -> NvSciBufAttrList {
    let l = new_list(m);
    let ty = [NvSciBufType_Tensor];
    let nd = sizes.len() as u32;
    let (cpu, perm) = (true, NvSciBufAccessPerm_ReadWrite);
    ok(set(
        l,
        &[
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufTensorAttrKey_DataType, &dt),
            pair(NvSciBufTensorAttrKey_NumDims, &nd),
            pair(NvSciBufTensorAttrKey_SizePerDim, sizes),
            pair(NvSciBufTensorAttrKey_AlignmentPerDim, aligns),
            pair(NvSciBufTensorAttrKey_BaseAddrAlign, &base),
            pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu),
            pair(NvSciBufGeneralAttrKey_RequiredPerm, &perm),
        ],
    ));
    l
}

pub fn reconcile(
    lists: &[NvSciBufAttrList],
) -> Result<NvSciBufAttrList, (NvSciError, NvSciBufAttrList)> {
    let (mut r, mut c) = (null_mut(), null_mut());
    // SAFETY: locals and a live slice.
    let rc = unsafe { NvSciBufAttrListReconcile(lists.as_ptr(), lists.len(), &mut r, &mut c) };
    if rc == NvSciError_Success {
        Ok(r)
    } else {
        Err((rc, c))
    }
}

pub fn alloc(l: NvSciBufAttrList) -> NvSciBufObj {
    let mut o = null_mut();
    // SAFETY: `o` is a local.
    ok(unsafe { NvSciBufObjAlloc(l, &mut o) });
    o
}

pub fn memory(o: NvSciBufObj) -> (*mut u8, u64) {
    let (mut p, mut n) = (null_mut(), 0);
    // SAFETY: locals.
    ok(unsafe { NvSciBufSilObjGetMemory(o, &mut p, &mut n) });
    (p.cast(), n)
}

pub fn bogus<T>() -> *mut T {
    std::ptr::without_provenance_mut(0x5EB3_0000_FFFF_FFFF)
}

/// Sets one key.
pub fn set1<T: ?Sized>(l: NvSciBufAttrList, key: NvSciBufAttrKey, v: &T) -> NvSciError {
    set(l, &[pair(key, v)])
}

/// Reads a key as `uint32_t` values.
pub fn get_u32s(l: NvSciBufAttrList, key: NvSciBufAttrKey) -> Option<Vec<u32>> {
    get(l, key).map(|b| {
        b.chunks_exact(4)
            .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    })
}

/// The status of `GetAttrs` for one key (the pair is left as it was on failure).
pub fn get_rc(l: NvSciBufAttrList, key: NvSciBufAttrKey) -> (NvSciError, NvSciBufAttrKeyValuePair) {
    let sentinel = std::ptr::without_provenance::<c_void>(0x1234);
    let mut p = [NvSciBufAttrKeyValuePair {
        key,
        value: sentinel,
        len: 77,
    }];
    // SAFETY: `p` is a local array of one pair.
    let rc = unsafe { NvSciBufAttrListGetAttrs(l, p.as_mut_ptr(), 1) };
    (rc, p[0])
}

/// A list with the given pairs set.
pub fn list_with(m: NvSciBufModule, pairs: &[NvSciBufAttrKeyValuePair]) -> NvSciBufAttrList {
    let l = new_list(m);
    ok(set(l, pairs));
    l
}

/// The object's reconciled list.
pub fn obj_list(o: NvSciBufObj) -> NvSciBufAttrList {
    let mut l = null_mut();
    // SAFETY: `l` is a local.
    ok(unsafe { NvSciBufObjGetAttrList(o, &mut l) });
    l
}

/// Reads a key of slot `slot` (`None`: unset).
pub fn slot_get(l: NvSciBufAttrList, slot: usize, key: NvSciBufAttrKey) -> Option<Vec<u8>> {
    let mut p = [NvSciBufAttrKeyValuePair {
        key,
        value: null(),
        len: 0,
    }];
    // SAFETY: `p` is a local array of one pair.
    ok(unsafe { NvSciBufAttrListSlotGetAttrs(l, slot, p.as_mut_ptr(), 1) });
    // SAFETY: the library returned `len` readable bytes.
    (!p[0].value.is_null())
        .then(|| unsafe { std::slice::from_raw_parts(p[0].value.cast::<u8>(), p[0].len) }.to_vec())
}
