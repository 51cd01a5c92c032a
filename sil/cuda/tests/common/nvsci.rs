//! NvSciSync helpers of the SIL CUDA tests: lists, semaphores between the CPU and CUDA,
//! external-semaphore parameters and fence queries, all through the `nvsci-sys` C ABI.

use core::ffi::c_uint;

use cuda_sys::*;
use nvsci_sys::sil::*;
use nvsci_sys::*;

use super::ck;

/// Asserts NvSci success.
#[track_caller]
pub fn nv(r: NvSciError) {
    assert_eq!(r, NvSciError_Success);
}

pub fn module() -> NvSciSyncModule {
    let mut m = core::ptr::null_mut();
    // SAFETY: valid out pointer.
    nv(unsafe { NvSciSyncModuleOpen(&mut m) });
    m
}

/// An unreconciled list with the given (key, bytes) attributes.
pub fn list(m: NvSciSyncModule, attrs: &[(NvSciSyncAttrKey, &[u8])]) -> NvSciSyncAttrList {
    let mut l = core::ptr::null_mut();
    // SAFETY: valid pointers; the pairs point to live slices.
    unsafe {
        nv(NvSciSyncAttrListCreate(m, &mut l));
        let pairs: Vec<_> = attrs
            .iter()
            .map(|(k, v)| NvSciSyncAttrKeyValuePair {
                attrKey: *k,
                value: v.as_ptr().cast(),
                len: v.len(),
            })
            .collect();
        if !pairs.is_empty() {
            nv(NvSciSyncAttrListSetAttrs(l, pairs.as_ptr(), pairs.len()));
        }
    }
    l
}

/// A CUDA list for `flags` (`CUDA_NVSCISYNC_ATTR_*`), deterministic.
pub fn cuda_list(m: NvSciSyncModule, flags: i32) -> NvSciSyncAttrList {
    let l = list(m, &[(NvSciSyncAttrKey_RequireDeterministicFences, &[1])]);
    // SAFETY: a valid unreconciled list.
    ck(unsafe { cuDeviceGetNvSciSyncAttributes(l.cast(), 0, flags) });
    l
}

/// A CPU list: signaler or waiter.
pub fn cpu_list(m: NvSciSyncModule, signal: bool, deterministic: bool) -> NvSciSyncAttrList {
    let perm = if signal {
        NvSciSyncAccessPerm_SignalOnly
    } else {
        NvSciSyncAccessPerm_WaitOnly
    };
    list(
        m,
        &[
            (NvSciSyncAttrKey_NeedCpuAccess, &[1]),
            (NvSciSyncAttrKey_RequiredPerm, &perm.to_ne_bytes()),
            (
                NvSciSyncAttrKey_RequireDeterministicFences,
                &[u8::from(deterministic)],
            ),
        ],
    )
}

/// Reconciles `lists` and allocates an object.
pub fn obj(lists: &[NvSciSyncAttrList]) -> NvSciSyncObj {
    let (mut o, mut conflict) = (core::ptr::null_mut(), core::ptr::null_mut());
    // SAFETY: valid lists and out pointers.
    nv(unsafe {
        NvSciSyncAttrListReconcileAndObjAlloc(lists.as_ptr(), lists.len(), &mut o, &mut conflict)
    });
    o
}

/// A deterministic semaphore the CPU signals and CUDA waits on.
pub fn cpu_to_cuda(m: NvSciSyncModule) -> NvSciSyncObj {
    obj(&[
        cpu_list(m, true, true),
        cuda_list(m, CUDA_NVSCISYNC_ATTR_WAIT),
    ])
}

/// A deterministic semaphore CUDA signals and the CPU waits on.
pub fn cuda_to_cpu(m: NvSciSyncModule) -> NvSciSyncObj {
    obj(&[
        cuda_list(m, CUDA_NVSCISYNC_ATTR_SIGNAL),
        cpu_list(m, false, true),
    ])
}

/// `cuImportExternalSemaphore` of an NvSciSync object.
pub fn import(o: NvSciSyncObj) -> (CUresult, CUexternalSemaphore) {
    let desc = CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC {
        r#type: CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_NVSCISYNC,
        handle: CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC_handle {
            nvSciSyncObj: o.cast_const().cast(),
        },
        flags: 0,
        reserved: [0; 16],
    };
    let mut s = core::ptr::null_mut();
    // SAFETY: valid pointers.
    let r = unsafe { cuImportExternalSemaphore(&mut s, &desc) };
    (r, s)
}

/// Signal parameters writing `fence`.
pub fn signal_params(
    fence: &mut NvSciSyncFence,
    flags: c_uint,
) -> CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS {
        params: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params {
            fence: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_fence { value: 0 },
            nvSciSync: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_nvSciSync {
                fence: (fence as *mut NvSciSyncFence).cast(),
            },
            keyedMutex: CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_params_keyedMutex { key: 0 },
            reserved: [0; 12],
        },
        flags,
        reserved: [0; 16],
    }
}

/// Wait parameters reading `fence`.
pub fn wait_params(fence: &mut NvSciSyncFence) -> CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
    CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS {
        params: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params {
            fence: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_fence { value: 0 },
            nvSciSync: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_nvSciSync {
                fence: (fence as *mut NvSciSyncFence).cast(),
            },
            keyedMutex: CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_params_keyedMutex {
                key: 0,
                timeoutMs: 0,
            },
            reserved: [0; 10],
        },
        flags: 0,
        reserved: [0; 16],
    }
}

/// The fence of `value` on `o`.
pub fn fence_for(o: NvSciSyncObj, value: u64) -> NvSciSyncFence {
    let mut f = NvSciSyncFenceInitializer;
    // SAFETY: valid object and fence.
    nv(unsafe { NvSciSyncFenceUpdateFence(o, 0, value, &mut f) });
    f
}

/// The value of a fence (of primitive 0).
pub fn fence_value(f: &NvSciSyncFence) -> u64 {
    let (mut id, mut v) = (u64::MAX, 0);
    // SAFETY: valid pointers.
    nv(unsafe { NvSciSyncFenceExtractFence(f, &mut id, &mut v) });
    assert_eq!(id, 0);
    v
}

/// The recorded signal timestamp of `value` on `o`.
pub fn signal_ts(o: NvSciSyncObj, value: u64) -> u64 {
    let mut ts = 0;
    // SAFETY: valid pointers.
    nv(unsafe { NvSciSyncSilObjGetSignalTimestamp(o, value, &mut ts) });
    ts
}
