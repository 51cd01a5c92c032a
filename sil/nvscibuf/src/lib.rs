//! SIL twin of libnvscibuf (C ABI).
//!
//! Exports every function of the DRIVE OS 6.0.10 `nvscibuf.h` (NvSciBuf 2.11) except the
//! NvSciIpc export/import calls (`header-functions.txt` lists each function with its
//! status), with the vendor's C names and signatures as `nvsci-sys` declares them, plus
//! the SIL extension `NvSciBufSilObjGetMemory`. Linked as an rlib its definitions satisfy
//! the `nvsci-sys` declarations; built as `libnvscibuf.so` it serves C clients.
//!
//! * Every buffer type: RawBuffer, Image (plane- or surface-based), Tensor, Image+Tensor,
//!   Array, Pyramid, with every public key.
//! * Allocations are aligned to at least 4 KiB (more if the reconciled alignment asks),
//!   padded to whole pages and zero-filled, so the rig can host-register each buffer
//!   without overlapping another.
//! * Handles are registry entries, never raw pointers: invalid handles give
//!   `NvSciError_BadParameter` (or are ignored by the `void` calls), they never crash.
//!
//! Every place where NVIDIA's documentation is silent and the SIL chose a behaviour, and
//! every deviation left, is listed in `sil/README.md` ("NvSciBuf").
#![allow(non_snake_case, non_upper_case_globals)]

mod api;
mod attr;
mod color;
mod ffi;
mod image;
mod keys;
mod list;
mod obj;
mod pixels;
mod registry;
mod validate;

/// Compile-time proof that every export has exactly the signature `nvsci-sys` declares.
#[allow(dead_code)]
fn signatures_match_nvsci_sys() {
    sil_common::same_signatures!(
        nvsci_sys;
        api::NvSciBufAttrListCreate,
        api::NvSciBufAttrListFree,
        api::NvSciBufAttrListSetAttrs,
        api::NvSciBufAttrListGetSlotCount,
        api::NvSciBufAttrListGetAttrs,
        api::NvSciBufAttrListSlotGetAttrs,
        api::NvSciBufAttrListDebugDump,
        api::NvSciBufAttrListReconcile,
        api::NvSciBufAttrListClone,
        api::NvSciBufAttrListAppendUnreconciled,
        api::NvSciBufAttrListIsReconciled,
        api::NvSciBufAttrListValidateReconciled,
        obj::NvSciBufObjDup,
        api::NvSciBufAttrListReconcileAndObjAlloc,
        obj::NvSciBufObjFree,
        obj::NvSciBufObjGetAttrList,
        obj::NvSciBufObjGetCpuPtr,
        obj::NvSciBufObjGetConstCpuPtr,
        obj::NvSciBufObjFlushCpuCacheRange,
        obj::NvSciBufObjAlloc,
        obj::NvSciBufObjDupWithReducePerm,
        pixels::NvSciBufObjGetPixels,
        pixels::NvSciBufObjPutPixels,
        obj::NvSciBufObjAttachPeer,
        api::NvSciBufModuleOpen,
        api::NvSciBufModuleClose,
        api::NvSciBufCheckVersionCompatibility,
        obj::NvSciBufObjValidate,
        api::NvSciBufAttrListValidateReconciledAgainstAttrs,
        obj::NvSciBufObjGetMaxPerm,
    );
    let _ = [
        nvsci_sys::sil::NvSciBufSilObjGetMemory,
        obj::NvSciBufSilObjGetMemory,
    ];
}
