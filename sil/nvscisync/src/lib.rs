//! SIL twin of libnvscisync (C ABI).
//!
//! Exports every single-process function of the DRIVE OS 6.0.10 `nvscisync.h` (the list,
//! with what is omitted and why, is `header-functions.txt`), with the vendor's C names and
//! signatures as `nvsci-sys` declares them, plus the SIL extension calls of
//! `docs/architecture.md` ("SIL extension calls"). Linked as an rlib, its
//! `#[unsafe(no_mangle)]` definitions satisfy the `nvsci-sys` declarations; built as
//! `libnvscisync.so` it serves C clients.
//!
//! * Two primitive types, chosen by reconciliation: the sync point (`Syncpoint`, the
//!   default: a 32-bit value with a non-zero id and a threshold that only the signaler
//!   advances) and the 64-bit sysmem semaphore (`SysmemSemaphorePayload64b`, when
//!   deterministic fences are required: a 64-bit counter alone in its own page-aligned
//!   4 KiB allocation, primitive id 0). Every signal adds exactly 1 and records a
//!   timestamp (SIL clock, ns) in a 512-entry ring indexed by value.
//! * Handles are registry entries, never raw pointers: invalid handles give
//!   `NvSciError_BadParameter` (or are ignored by the `void` calls), they never crash.
//! * No heap allocation after object allocation: signal, fence generate/update/dup/clear,
//!   waits, timestamps and the counter extension calls only look up and clone `Arc`s.
//! * Waits poll the counter (a GPU may write it without telling anybody) and sleep on a
//!   notifier so CPU and engine signals wake them at once.
//!
//! Every place where NVIDIA's documentation is silent and the SIL chose a behaviour is
//! listed in `sil/README.md` ("NvSciSync").
#![allow(non_snake_case, non_upper_case_globals)]

mod api;
mod attr;
mod ext;
mod fence;
mod ffi;
mod obj;
mod registry;

/// Compile-time proof that every export has exactly the signature `nvsci-sys` declares
/// (two function items only unify to one function-pointer type when their signatures are
/// identical).
#[allow(dead_code, clippy::type_complexity)]
fn signatures_match_nvsci_sys() {
    sil_common::same_signatures!(
        nvsci_sys;
        api::NvSciSyncModuleOpen,
        api::NvSciSyncModuleClose,
        api::NvSciSyncCpuWaitContextAlloc,
        api::NvSciSyncCpuWaitContextFree,
        api::NvSciSyncAttrListCreate,
        api::NvSciSyncAttrListFree,
        api::NvSciSyncAttrListSetAttrs,
        api::NvSciSyncAttrListGetAttrs,
        api::NvSciSyncAttrListGetAttr,
        api::NvSciSyncAttrListReconcile,
        api::NvSciSyncAttrListIsReconciled,
        api::NvSciSyncAttrListAppendUnreconciled,
        api::NvSciSyncAttrListClone,
        api::NvSciSyncAttrListValidateReconciled,
        api::NvSciSyncAttrListGetSlotCount,
        api::NvSciSyncAttrListSlotGetAttrs,
        api::NvSciSyncAttrListDebugDump,
        api::NvSciSyncAttrListValidateReconciledAgainstAttrs,
        api::NvSciSyncCheckVersionCompatibility,
        api::NvSciSyncObjValidate,
        api::NvSciSyncObjAlloc,
        api::NvSciSyncObjFree,
        api::NvSciSyncObjDup,
        api::NvSciSyncObjGetAttrList,
        api::NvSciSyncAttrListReconcileAndObjAlloc,
        api::NvSciSyncObjGenerateFence,
        api::NvSciSyncObjSignal,
        api::NvSciSyncFenceWait,
        api::NvSciSyncFenceWaitWithMode,
        api::NvSciSyncFenceClear,
        api::NvSciSyncFenceDup,
        api::NvSciSyncFenceExtractFence,
        api::NvSciSyncFenceUpdateFence,
        api::NvSciSyncFenceGetTimestamp,
        api::NvSciSyncFenceGetTaskStatus,
        api::NvSciSyncFenceAddTimestampSlot,
        api::NvSciSyncFenceAddTaskStatusSlot,
        api::NvSciSyncFenceExtractTimestampSlot,
    );
    let _ = [
        nvsci_sys::sil::NvSciSilClockNowNs as unsafe extern "C" fn() -> u64,
        ext::NvSciSilClockNowNs,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSilClockSetVirtual as unsafe extern "C" fn(bool, u64) -> _,
        ext::NvSciSilClockSetVirtual,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSilClockAdvanceTo as unsafe extern "C" fn(u64) -> _,
        ext::NvSciSilClockAdvanceTo,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilObjGetCounter,
        ext::NvSciSyncSilObjGetCounter,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilObjSignalEngine as unsafe extern "C" fn(_, u64) -> _,
        ext::NvSciSyncSilObjSignalEngine,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilObjEngineFence,
        ext::NvSciSyncSilObjEngineFence,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilCounterWritten as unsafe extern "C" fn(_, u64) -> _,
        ext::NvSciSyncSilCounterWritten,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilFenceWaitEngine,
        ext::NvSciSyncSilFenceWaitEngine,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilCounterWait,
        ext::NvSciSyncSilCounterWait,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilObjGetSignalTimestamp,
        ext::NvSciSyncSilObjGetSignalTimestamp,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilObjSetDeviceWritten as unsafe extern "C" fn(_) -> _,
        ext::NvSciSyncSilObjSetDeviceWritten,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilWakeWaiters as unsafe extern "C" fn() -> _,
        ext::NvSciSyncSilWakeWaiters,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilFenceWaitEngineAbortable,
        ext::NvSciSyncSilFenceWaitEngineAbortable,
    ];
    let _ = [
        nvsci_sys::sil::NvSciSyncSilCounterWaitAbortable,
        ext::NvSciSyncSilCounterWaitAbortable,
    ];
}
