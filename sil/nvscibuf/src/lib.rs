//! SIL twin of libnvscibuf (C ABI).
//!
//! Exports every NvSciBuf function that `nvsci-sys` declares, with the vendor's C names
//! and signatures, plus the SIL extension `NvSciBufSilObjGetMemory`. Linked as an rlib its
//! definitions satisfy the `nvsci-sys` declarations; built as `libnvscibuf.so` it serves C
//! clients.
//!
//! * Buffer types RawBuffer and Tensor, with the keys NVIDIA's cuDLA and CUDA samples use.
//! * Allocations are aligned to at least 4 KiB (more if the reconciled alignment asks),
//!   padded to whole pages and zero-filled, so the rig can host-register each buffer
//!   without overlapping another.
//! * Handles are registry entries, never raw pointers: invalid handles give
//!   `NvSciError_BadParameter` (or are ignored by the `void` calls), they never crash.
//!
//! Every place where NVIDIA's documentation is silent and the SIL chose a behaviour is
//! listed in `sil/README.md` ("NvSciBuf").
#![allow(non_snake_case, non_upper_case_globals)]

mod api;
mod attr;
mod ffi;
mod registry;

/// Compile-time proof that every export has exactly the signature `nvsci-sys` declares.
#[allow(dead_code)]
fn signatures_match_nvsci_sys() {
    sil_common::same_signatures!(
        nvsci_sys;
        api::NvSciBufModuleOpen,
        api::NvSciBufModuleClose,
        api::NvSciBufAttrListCreate,
        api::NvSciBufAttrListFree,
        api::NvSciBufAttrListSetAttrs,
        api::NvSciBufAttrListGetAttrs,
        api::NvSciBufAttrListReconcile,
        api::NvSciBufAttrListReconcileAndObjAlloc,
        api::NvSciBufObjAlloc,
        api::NvSciBufObjFree,
        api::NvSciBufObjGetAttrList,
        api::NvSciBufObjGetCpuPtr,
        api::NvSciBufObjGetConstCpuPtr,
        api::NvSciBufObjFlushCpuCacheRange,
        api::NvSciBufObjDup,
        api::NvSciBufObjDupWithReducePerm,
    );
    let _ = [
        nvsci_sys::sil::NvSciBufSilObjGetMemory,
        api::NvSciBufSilObjGetMemory,
    ];
}
