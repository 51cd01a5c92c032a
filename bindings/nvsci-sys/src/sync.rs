//! NvSciSync (`nvscisync.h`, `libnvscisync.so.1`), api-facts §1.
//!
//! Target: NvSciSync 2.8 (DRIVE OS 6.0.10). Calls and keys that older releases lack are
//! marked in their docs; check [`NvSciSyncMajorVersion`]/[`NvSciSyncMinorVersion`]
//! against the library before relying on them. The Jetson (L4T) values are
//! UNCONFIRMED: every header found is a DRIVE OS copy (the values have not changed
//! from DRIVE OS 5.2.6 to 6.0.10).

use core::ffi::c_void;

use crate::error::NvSciError;

// ---------------------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------------------

// sdk-check: version
/// NvSciSync major version these declarations were written against (DRIVE OS 6.0.10).
///
/// A `static const` in the header, not an exported symbol.
pub const NvSciSyncMajorVersion: u32 = 2;
// sdk-check: version
/// NvSciSync minor version these declarations were written against (DRIVE OS 6.0.10).
///
/// 6.0.6/6.0.8.1 ship 2.5, 6.0.5 ships 2.3, 5.2.6 ships 2.0.
pub const NvSciSyncMinorVersion: u32 = 8;

// ---------------------------------------------------------------------------------------
// Opaque handles
// ---------------------------------------------------------------------------------------

/// Opaque NvSciSync module (only used behind [`NvSciSyncModule`]).
#[repr(C)]
pub struct NvSciSyncModuleRec {
    _opaque: [u8; 0],
}
/// Opaque CPU wait context (only used behind [`NvSciSyncCpuWaitContext`]).
#[repr(C)]
pub struct NvSciSyncCpuWaitContextRec {
    _opaque: [u8; 0],
}
/// Opaque sync object (only used behind [`NvSciSyncObj`]).
#[repr(C)]
pub struct NvSciSyncObjRec {
    _opaque: [u8; 0],
}
/// Opaque attribute list (only used behind [`NvSciSyncAttrList`]).
#[repr(C)]
pub struct NvSciSyncAttrListRec {
    _opaque: [u8; 0],
}

/// Handle of an NvSciSync module.
pub type NvSciSyncModule = *mut NvSciSyncModuleRec;
/// Handle of a CPU wait context (one fence wait at a time per context).
pub type NvSciSyncCpuWaitContext = *mut NvSciSyncCpuWaitContextRec;
/// Handle of a sync object.
pub type NvSciSyncObj = *mut NvSciSyncObjRec;
/// Read-only handle of a sync object.
pub type NvSciSyncObjConst = *const NvSciSyncObjRec;
/// Handle of a sync attribute list.
pub type NvSciSyncAttrList = *mut NvSciSyncAttrListRec;

// ---------------------------------------------------------------------------------------
// Access permissions (a uint64_t typedef with macro values)
// ---------------------------------------------------------------------------------------

/// Access permission bits (`uint64_t`, not an enum). Value type of
/// [`NvSciSyncAttrKey_RequiredPerm`] (len 8).
pub type NvSciSyncAccessPerm = u64;
/// The holder may wait.
pub const NvSciSyncAccessPerm_WaitOnly: NvSciSyncAccessPerm = 1 << 0;
/// The holder may signal.
pub const NvSciSyncAccessPerm_SignalOnly: NvSciSyncAccessPerm = 1 << 1;
/// The holder may wait and signal.
pub const NvSciSyncAccessPerm_WaitSignal: NvSciSyncAccessPerm =
    NvSciSyncAccessPerm_WaitOnly | NvSciSyncAccessPerm_SignalOnly;
/// Only for the IPC export/import calls; never a `RequiredPerm` value.
pub const NvSciSyncAccessPerm_Auto: NvSciSyncAccessPerm = 1 << 63;

// ---------------------------------------------------------------------------------------
// Attribute keys
// ---------------------------------------------------------------------------------------

/// Public NvSciSync attribute key (a C enum counting up from 0).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciSyncAttrKey(pub u32);

/// Lower bound; not a valid key.
pub const NvSciSyncAttrKey_LowerBound: NvSciSyncAttrKey = NvSciSyncAttrKey(0);
/// `bool`: the CPU accesses the object (wait or signal).
pub const NvSciSyncAttrKey_NeedCpuAccess: NvSciSyncAttrKey = NvSciSyncAttrKey(1);
/// [`NvSciSyncAccessPerm`] (u64, len 8): the permission this list asks for.
pub const NvSciSyncAttrKey_RequiredPerm: NvSciSyncAttrKey = NvSciSyncAttrKey(2);
/// [`NvSciSyncAccessPerm`], output only: the reconciled permission.
pub const NvSciSyncAttrKey_ActualPerm: NvSciSyncAttrKey = NvSciSyncAttrKey(3);
/// `bool`: fences exported to waiters are context-insensitive.
pub const NvSciSyncAttrKey_WaiterContextInsensitiveFenceExports: NvSciSyncAttrKey =
    NvSciSyncAttrKey(4);
/// `bool`: the waiter wants timestamps (also set `NeedCpuAccess` to read them).
pub const NvSciSyncAttrKey_WaiterRequireTimestamps: NvSciSyncAttrKey = NvSciSyncAttrKey(5);
/// `bool`: deterministic fences, +1 per signal. Since NvSciSync 2.3 (DRIVE OS 6.0.5).
pub const NvSciSyncAttrKey_RequireDeterministicFences: NvSciSyncAttrKey = NvSciSyncAttrKey(6);
/// `uint32_t`, output: number of timestamp slots. Since 2.3.
pub const NvSciSyncAttrKey_NumTimestampSlots: NvSciSyncAttrKey = NvSciSyncAttrKey(7);
/// `uint32_t`, output: number of task-status slots. Since 2.3.
pub const NvSciSyncAttrKey_NumTaskStatusSlots: NvSciSyncAttrKey = NvSciSyncAttrKey(8);
/// `uint64_t`, output: largest primitive value. Since 2.3.
pub const NvSciSyncAttrKey_MaxPrimitiveValue: NvSciSyncAttrKey = NvSciSyncAttrKey(9);
/// [`NvSciSyncAttrValPrimitiveType`]`[]`. Since 2.5 (DRIVE OS 6.0.6); in 2.3 value 10 is
/// `UpperBound`.
pub const NvSciSyncAttrKey_PrimitiveInfo: NvSciSyncAttrKey = NvSciSyncAttrKey(10);
/// `NvSciBufPeerLocationInfo[]`. Since 2.5 (DRIVE OS 6.0.6).
pub const NvSciSyncAttrKey_PeerLocationInfo: NvSciSyncAttrKey = NvSciSyncAttrKey(11);
/// [`NvSciRmGpuId`](crate::NvSciRmGpuId)`[]`. Since 2.5 (DRIVE OS 6.0.6).
pub const NvSciSyncAttrKey_GpuId: NvSciSyncAttrKey = NvSciSyncAttrKey(12);
/// `NvSciBufPeerHwEngine[]`. Only in 2.8 (DRIVE OS 6.0.10); in 2.5 value 13 is
/// `UpperBound`.
pub const NvSciSyncAttrKey_PeerHwEngineArray: NvSciSyncAttrKey = NvSciSyncAttrKey(13);
/// Upper bound in 2.8 only; it moves between versions, do not hard-code it.
pub const NvSciSyncAttrKey_UpperBound: NvSciSyncAttrKey = NvSciSyncAttrKey(14);

/// One (key, value, length) entry for the attribute-list set/get calls.
///
/// The key field is named `attrKey` here (NvSciBuf's pair calls it `key`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NvSciSyncAttrKeyValuePair {
    /// The key.
    pub attrKey: NvSciSyncAttrKey,
    /// Pointer to the value (input) or set by the library (output).
    pub value: *const c_void,
    /// Length of the value in bytes.
    pub len: usize,
}

/// Synchronisation primitive type (a C enum), value type of
/// [`NvSciSyncAttrKey_PrimitiveInfo`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciSyncAttrValPrimitiveType(pub u32);
/// Lower bound; not a valid primitive.
pub const NvSciSyncAttrValPrimitiveType_LowerBound: NvSciSyncAttrValPrimitiveType =
    NvSciSyncAttrValPrimitiveType(0);
/// Host1x syncpoint (Tegra).
pub const NvSciSyncAttrValPrimitiveType_Syncpoint: NvSciSyncAttrValPrimitiveType =
    NvSciSyncAttrValPrimitiveType(1);
/// 32-bit semaphore in system memory.
pub const NvSciSyncAttrValPrimitiveType_SysmemSemaphore: NvSciSyncAttrValPrimitiveType =
    NvSciSyncAttrValPrimitiveType(2);
/// 32-bit semaphore in video memory.
pub const NvSciSyncAttrValPrimitiveType_VidmemSemaphore: NvSciSyncAttrValPrimitiveType =
    NvSciSyncAttrValPrimitiveType(3);
/// 64-bit-payload semaphore in system memory.
pub const NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b: NvSciSyncAttrValPrimitiveType =
    NvSciSyncAttrValPrimitiveType(4);
/// 64-bit-payload semaphore in video memory.
pub const NvSciSyncAttrValPrimitiveType_VidmemSemaphorePayload64b: NvSciSyncAttrValPrimitiveType =
    NvSciSyncAttrValPrimitiveType(5);
/// Upper bound; not a valid primitive.
pub const NvSciSyncAttrValPrimitiveType_UpperBound: NvSciSyncAttrValPrimitiveType =
    NvSciSyncAttrValPrimitiveType(6);

/// CPU wait strategy for [`NvSciSyncFenceWaitWithMode`] (NvSciSync 2.8 only).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciSyncWaitMode(pub u32);
/// Same behaviour as [`NvSciSyncFenceWait`].
pub const NvSciSyncWaitMode_Default: NvSciSyncWaitMode = NvSciSyncWaitMode(0);
/// Poll, yielding the processor.
pub const NvSciSyncWaitMode_BusyWithYield: NvSciSyncWaitMode = NvSciSyncWaitMode(1);
/// Poll, spinning without yielding.
pub const NvSciSyncWaitMode_BusyNoYield: NvSciSyncWaitMode = NvSciSyncWaitMode(2);
/// Block until woken (e.g. by an interrupt).
pub const NvSciSyncWaitMode_Blocking: NvSciSyncWaitMode = NvSciSyncWaitMode(3);

// ---------------------------------------------------------------------------------------
// Fences and task status
// ---------------------------------------------------------------------------------------

/// A fence: caller-owned, opaque payload. Must be all zeros ("cleared",
/// [`NvSciSyncFenceInitializer`]) before its first use; a non-cleared fence holds a
/// reference on its object until [`NvSciSyncFenceClear`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvSciSyncFence {
    /// Opaque contents.
    pub payload: [u64; 6],
}

/// The cleared (all-zero) fence. A `static const` in the header, not a symbol.
pub const NvSciSyncFenceInitializer: NvSciSyncFence = NvSciSyncFence { payload: [0; 6] };

/// Largest accepted fence-wait timeout in µs (`0x7fffffffffffffff / 1000`); −1 waits
/// forever.
pub const NvSciSyncFenceMaxTimeout: i64 = 0x7fff_ffff_ffff_ffff / 1000;

/// A fence exported for IPC (opaque).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NvSciSyncFenceIpcExportDescriptor {
    /// Opaque contents.
    pub payload: [u64; 7],
}

/// A sync object exported for IPC (opaque).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NvSciSyncObjIpcExportDescriptor {
    /// Opaque contents.
    pub payload: [u64; 128],
}

/// Task status values found in [`NvSciSyncTaskStatus::status`] (a C enum stored in a
/// 16-bit field; other values are engine-specific failures).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciSyncTaskStatusVal(pub u32);
/// The task succeeded.
pub const NvSciSyncTaskStatus_Success: NvSciSyncTaskStatusVal = NvSciSyncTaskStatusVal(0);
/// The task failed.
pub const NvSciSyncTaskStatus_Failure: NvSciSyncTaskStatusVal = NvSciSyncTaskStatusVal(1);
/// The signaler reported nothing (the initial value of a slot).
pub const NvSciSyncTaskStatus_Invalid: NvSciSyncTaskStatusVal = NvSciSyncTaskStatusVal(0xFFFF);

/// One task-status slot (packed, 16 bytes, align 1).
#[repr(C, packed)]
#[derive(Clone, Copy, Debug)]
pub struct NvSciSyncTaskStatus {
    /// Timestamp of the task status.
    pub timestamp: u64,
    /// Engine-specific.
    pub statusEngine: u32,
    /// Engine-specific.
    pub subframe: u16,
    /// An [`NvSciSyncTaskStatusVal`] value, or an engine-specific failure.
    pub status: u16,
}

// ---------------------------------------------------------------------------------------
// Functions (api-facts §1.5)
// ---------------------------------------------------------------------------------------

unsafe extern "C" {
    /// Opens a new module.
    pub fn NvSciSyncModuleOpen(newModule: *mut NvSciSyncModule) -> NvSciError;
    /// Closes a module (freed once every object of it is freed).
    pub fn NvSciSyncModuleClose(module: NvSciSyncModule);
    /// Allocates a CPU wait context.
    pub fn NvSciSyncCpuWaitContextAlloc(
        module: NvSciSyncModule,
        newContext: *mut NvSciSyncCpuWaitContext,
    ) -> NvSciError;
    /// Frees a CPU wait context.
    pub fn NvSciSyncCpuWaitContextFree(context: NvSciSyncCpuWaitContext);

    /// Creates an empty unreconciled attribute list.
    pub fn NvSciSyncAttrListCreate(
        module: NvSciSyncModule,
        attrList: *mut NvSciSyncAttrList,
    ) -> NvSciError;
    /// Frees an attribute list.
    pub fn NvSciSyncAttrListFree(attrList: NvSciSyncAttrList);
    /// Sets attributes (the pair array is `const` here, unlike NvSciBuf's).
    pub fn NvSciSyncAttrListSetAttrs(
        attrList: NvSciSyncAttrList,
        pairArray: *const NvSciSyncAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Reads attributes into the `value`/`len` fields of the pairs.
    pub fn NvSciSyncAttrListGetAttrs(
        attrList: NvSciSyncAttrList,
        pairArray: *mut NvSciSyncAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Reads one attribute.
    pub fn NvSciSyncAttrListGetAttr(
        attrList: NvSciSyncAttrList,
        key: NvSciSyncAttrKey,
        value: *mut *const c_void,
        len: *mut usize,
    ) -> NvSciError;
    /// Reconciles lists; on failure `*newConflictList` may describe the conflict.
    pub fn NvSciSyncAttrListReconcile(
        inputArray: *const NvSciSyncAttrList,
        inputCount: usize,
        newReconciledList: *mut NvSciSyncAttrList,
        newConflictList: *mut NvSciSyncAttrList,
    ) -> NvSciError;
    /// Tells whether a list is reconciled.
    pub fn NvSciSyncAttrListIsReconciled(
        attrList: NvSciSyncAttrList,
        isReconciled: *mut bool,
    ) -> NvSciError;
    /// Appends unreconciled lists into a new unreconciled list.
    pub fn NvSciSyncAttrListAppendUnreconciled(
        inputUnreconciledAttrListArray: *const NvSciSyncAttrList,
        inputUnreconciledAttrListCount: usize,
        newUnreconciledAttrList: *mut NvSciSyncAttrList,
    ) -> NvSciError;
    /// Clones a list.
    pub fn NvSciSyncAttrListClone(
        origAttrList: NvSciSyncAttrList,
        newAttrList: *mut NvSciSyncAttrList,
    ) -> NvSciError;
    /// Whether a reconciled list satisfies the given unreconciled lists
    /// (`*isReconciledListValid`).
    pub fn NvSciSyncAttrListValidateReconciled(
        reconciledAttrList: NvSciSyncAttrList,
        inputUnreconciledAttrListArray: *const NvSciSyncAttrList,
        inputUnreconciledAttrListCount: usize,
        isReconciledListValid: *mut bool,
    ) -> NvSciError;
    /// Number of slots of a list (0 for NULL).
    pub fn NvSciSyncAttrListGetSlotCount(attrList: NvSciSyncAttrList) -> usize;
    /// Reads keys from slot `slotIndex` of a (multi-slot) list.
    pub fn NvSciSyncAttrListSlotGetAttrs(
        attrList: NvSciSyncAttrList,
        slotIndex: usize,
        pairArray: *mut NvSciSyncAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Dumps a list into a binary blob (a debugging aid, deprecated by the header; not in
    /// safety builds).
    pub fn NvSciSyncAttrListDebugDump(
        attrList: NvSciSyncAttrList,
        buf: *mut *mut c_void,
        len: *mut usize,
    ) -> NvSciError;
    /// Validates a reconciled list against the key/value pairs the user set (a no-op that
    /// returns success outside safety builds).
    pub fn NvSciSyncAttrListValidateReconciledAgainstAttrs(
        reconciledAttrList: NvSciSyncAttrList,
        pairArray: *const NvSciSyncAttrKeyValuePair,
        pairCount: usize,
        permissions: NvSciSyncAccessPerm,
    ) -> NvSciError;
    /// Whether the loaded library is compatible with the version the caller was built
    /// against (`*isCompatible`).
    pub fn NvSciSyncCheckVersionCompatibility(
        majorVer: u32,
        minorVer: u32,
        isCompatible: *mut bool,
    ) -> NvSciError;

    /// Allocates an object from a reconciled list.
    pub fn NvSciSyncObjAlloc(
        reconciledList: NvSciSyncAttrList,
        syncObj: *mut NvSciSyncObj,
    ) -> NvSciError;
    /// Frees an object (clear every fence on it first).
    pub fn NvSciSyncObjFree(syncObj: NvSciSyncObj);
    /// Validates an object against its list (a no-op that returns success outside safety
    /// builds).
    pub fn NvSciSyncObjValidate(syncObj: NvSciSyncObj) -> NvSciError;
    /// Duplicates an object handle.
    pub fn NvSciSyncObjDup(syncObj: NvSciSyncObj, dupObj: *mut NvSciSyncObj) -> NvSciError;
    /// Gets the object's reconciled list (lives as long as the object).
    pub fn NvSciSyncObjGetAttrList(
        syncObj: NvSciSyncObj,
        syncAttrList: *mut NvSciSyncAttrList,
    ) -> NvSciError;
    /// Reconciles and allocates in one call.
    pub fn NvSciSyncAttrListReconcileAndObjAlloc(
        attrListArray: *const NvSciSyncAttrList,
        attrListCount: usize,
        syncObj: *mut NvSciSyncObj,
        newConflictList: *mut NvSciSyncAttrList,
    ) -> NvSciError;
    /// CPU signaler only: moves to the next timeline point and fills the fence.
    pub fn NvSciSyncObjGenerateFence(
        syncObj: NvSciSyncObj,
        syncFence: *mut NvSciSyncFence,
    ) -> NvSciError;
    /// CPU signaler only: signals the object.
    pub fn NvSciSyncObjSignal(syncObj: NvSciSyncObj) -> NvSciError;

    /// Waits on a fence from the CPU; `timeoutUs` in µs, −1 = forever, at most
    /// [`NvSciSyncFenceMaxTimeout`].
    pub fn NvSciSyncFenceWait(
        syncFence: *const NvSciSyncFence,
        context: NvSciSyncCpuWaitContext,
        timeoutUs: i64,
    ) -> NvSciError;
    /// Like [`NvSciSyncFenceWait`] with a wait strategy. NvSciSync 2.8 (DRIVE OS 6.0.10)
    /// only.
    pub fn NvSciSyncFenceWaitWithMode(
        syncFence: *const NvSciSyncFence,
        context: NvSciSyncCpuWaitContext,
        timeoutUs: i64,
        waitMode: NvSciSyncWaitMode,
    ) -> NvSciError;
    /// Drops the fence's object reference and zeroes it.
    pub fn NvSciSyncFenceClear(syncFence: *mut NvSciSyncFence);
    /// Duplicates a fence (src and dst must differ; dst is cleared first).
    pub fn NvSciSyncFenceDup(
        srcSyncFence: *const NvSciSyncFence,
        dstSyncFence: *mut NvSciSyncFence,
    ) -> NvSciError;
    /// Reads (id, value) from a fence. Not in NvSciSync 2.0 (DRIVE OS 5.2.6).
    pub fn NvSciSyncFenceExtractFence(
        syncFence: *const NvSciSyncFence,
        id: *mut u64,
        value: *mut u64,
    ) -> NvSciError;
    /// Builds a fence from (id, value). Not in NvSciSync 2.0 (DRIVE OS 5.2.6).
    pub fn NvSciSyncFenceUpdateFence(
        syncObj: NvSciSyncObj,
        id: u64,
        value: u64,
        syncFence: *mut NvSciSyncFence,
    ) -> NvSciError;
    /// Timestamp (µs) of an expired fence.
    pub fn NvSciSyncFenceGetTimestamp(
        syncFence: *const NvSciSyncFence,
        timestampUS: *mut u64,
    ) -> NvSciError;
    /// Task status of an expired fence. Since 2.3.
    pub fn NvSciSyncFenceGetTaskStatus(
        syncFence: *const NvSciSyncFence,
        taskStatus: *mut NvSciSyncTaskStatus,
    ) -> NvSciError;
    /// Attaches a timestamp slot to a fence. Since 2.3.
    pub fn NvSciSyncFenceAddTimestampSlot(
        syncFence: *mut NvSciSyncFence,
        timestampSlot: u32,
    ) -> NvSciError;
    /// Attaches a task-status slot to a fence. Since 2.3.
    pub fn NvSciSyncFenceAddTaskStatusSlot(
        syncFence: *mut NvSciSyncFence,
        taskStatusSlot: u32,
    ) -> NvSciError;
    /// Reads the timestamp slot of a fence. Since 2.3.
    pub fn NvSciSyncFenceExtractTimestampSlot(
        syncFence: *mut NvSciSyncFence,
        timeStampSlot: *mut u32,
    ) -> NvSciError;
}

// ---------------------------------------------------------------------------------------
// Layout (LP64; values computed in api-facts §1)
// ---------------------------------------------------------------------------------------

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<NvSciSyncAttrKey>() == 4);
    assert!(size_of::<NvSciSyncAttrValPrimitiveType>() == 4);
    assert!(size_of::<NvSciSyncWaitMode>() == 4);
    assert!(size_of::<NvSciSyncTaskStatusVal>() == 4);
    assert!(size_of::<NvSciSyncAccessPerm>() == 8);

    assert!(size_of::<NvSciSyncAttrKeyValuePair>() == 24);
    assert!(align_of::<NvSciSyncAttrKeyValuePair>() == 8);
    assert!(offset_of!(NvSciSyncAttrKeyValuePair, attrKey) == 0);
    assert!(offset_of!(NvSciSyncAttrKeyValuePair, value) == 8);
    assert!(offset_of!(NvSciSyncAttrKeyValuePair, len) == 16);

    assert!(size_of::<NvSciSyncFence>() == 48);
    assert!(align_of::<NvSciSyncFence>() == 8);
    assert!(offset_of!(NvSciSyncFence, payload) == 0);

    assert!(size_of::<NvSciSyncFenceIpcExportDescriptor>() == 56);
    assert!(align_of::<NvSciSyncFenceIpcExportDescriptor>() == 8);
    assert!(offset_of!(NvSciSyncFenceIpcExportDescriptor, payload) == 0);

    assert!(size_of::<NvSciSyncObjIpcExportDescriptor>() == 1024);
    assert!(align_of::<NvSciSyncObjIpcExportDescriptor>() == 8);
    assert!(offset_of!(NvSciSyncObjIpcExportDescriptor, payload) == 0);

    assert!(size_of::<NvSciSyncTaskStatus>() == 16);
    assert!(align_of::<NvSciSyncTaskStatus>() == 1);
    assert!(offset_of!(NvSciSyncTaskStatus, timestamp) == 0);
    assert!(offset_of!(NvSciSyncTaskStatus, statusEngine) == 8);
    assert!(offset_of!(NvSciSyncTaskStatus, subframe) == 12);
    assert!(offset_of!(NvSciSyncTaskStatus, status) == 14);
};

/// Covers: REQ-FND-003
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants() {
        assert_eq!(NvSciSyncAccessPerm_WaitSignal, 3);
        assert_eq!(NvSciSyncAccessPerm_Auto, 0x8000_0000_0000_0000);
        assert_eq!(NvSciSyncFenceMaxTimeout, 9_223_372_036_854_775);
        assert_eq!(NvSciSyncFenceInitializer.payload, [0; 6]);
    }
}
