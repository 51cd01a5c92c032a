//! NvSciBuf (`nvscibuf.h`, `libnvscibuf.so.1`), api-facts §2.
//!
//! Target: NvSciBuf 2.11 (DRIVE OS 6.0.10). Only the keys and enum values this runtime
//! needs are declared; enums marked "subset" have more values in the header.

use core::ffi::c_void;

use crate::error::NvSciError;

// ---------------------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------------------

// sdk-check: version
/// NvSciBuf major version these declarations were written against (DRIVE OS 6.0.10).
///
/// A `static const` in the header, not an exported symbol.
pub const NvSciBufMajorVersion: u32 = 2;
// sdk-check: version
/// NvSciBuf minor version these declarations were written against (DRIVE OS 6.0.10).
///
/// 6.0.6/6.0.8.1 ship 2.9, 6.0.5 ships 2.8, 5.2.6 ships 2.0.
pub const NvSciBufMinorVersion: u32 = 11;

// ---------------------------------------------------------------------------------------
// Opaque handles
// ---------------------------------------------------------------------------------------

/// Opaque NvSciBuf module (only used behind [`NvSciBufModule`]).
#[repr(C)]
pub struct NvSciBufModuleRec {
    _opaque: [u8; 0],
}
/// Opaque attribute list (only used behind [`NvSciBufAttrList`]).
#[repr(C)]
pub struct NvSciBufAttrListRec {
    _opaque: [u8; 0],
}
/// Opaque buffer object reference (only used behind [`NvSciBufObj`]).
#[repr(C)]
pub struct NvSciBufObjRefRec {
    _opaque: [u8; 0],
}

/// Handle of an NvSciBuf module.
pub type NvSciBufModule = *mut NvSciBufModuleRec;
/// Handle of a buffer attribute list.
pub type NvSciBufAttrList = *mut NvSciBufAttrListRec;
/// Handle of a buffer object.
pub type NvSciBufObj = *mut NvSciBufObjRefRec;
/// Read-only handle of a buffer object.
pub type NvSciBufObjConst = *const NvSciBufObjRefRec;

// ---------------------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------------------

/// Buffer type (a C enum), value type of [`NvSciBufGeneralAttrKey_Types`] (an array).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufType(pub u32);
/// General buffer.
pub const NvSciBufType_General: NvSciBufType = NvSciBufType(0);
/// Raw byte buffer.
pub const NvSciBufType_RawBuffer: NvSciBufType = NvSciBufType(1);
/// Image.
pub const NvSciBufType_Image: NvSciBufType = NvSciBufType(2);
/// Tensor.
pub const NvSciBufType_Tensor: NvSciBufType = NvSciBufType(3);
/// Array.
pub const NvSciBufType_Array: NvSciBufType = NvSciBufType(4);
/// Image pyramid.
pub const NvSciBufType_Pyramid: NvSciBufType = NvSciBufType(5);
/// One past the last valid type.
pub const NvSciBufType_MaxValid: NvSciBufType = NvSciBufType(6);
/// Same value as [`NvSciBufType_MaxValid`] (that both names exist is read from
/// api-facts "MaxValid (= UpperBound)"; UNCONFIRMED).
pub const NvSciBufType_UpperBound: NvSciBufType = NvSciBufType(6);

/// Buffer access permission (a C enum, 4 bytes), value type of
/// [`NvSciBufGeneralAttrKey_RequiredPerm`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrValAccessPerm(pub u32);
/// Read only.
pub const NvSciBufAccessPerm_Readonly: NvSciBufAttrValAccessPerm = NvSciBufAttrValAccessPerm(1);
/// Read and write.
pub const NvSciBufAccessPerm_ReadWrite: NvSciBufAttrValAccessPerm = NvSciBufAttrValAccessPerm(3);
/// Derived automatically (IPC import); value computed in api-facts.
pub const NvSciBufAccessPerm_Auto: NvSciBufAttrValAccessPerm = NvSciBufAttrValAccessPerm(4);
/// Invalid permission; value computed in api-facts.
pub const NvSciBufAccessPerm_Invalid: NvSciBufAttrValAccessPerm = NvSciBufAttrValAccessPerm(5);

/// Tensor element data type (a C enum), value type of [`NvSciBufTensorAttrKey_DataType`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrValDataType(pub u32);
/// Signed 4-bit.
pub const NvSciDataType_Int4: NvSciBufAttrValDataType = NvSciBufAttrValDataType(0);
/// Unsigned 4-bit.
pub const NvSciDataType_Uint4: NvSciBufAttrValDataType = NvSciBufAttrValDataType(1);
/// Signed 8-bit.
pub const NvSciDataType_Int8: NvSciBufAttrValDataType = NvSciBufAttrValDataType(2);
/// Unsigned 8-bit.
pub const NvSciDataType_Uint8: NvSciBufAttrValDataType = NvSciBufAttrValDataType(3);
/// Signed 16-bit.
pub const NvSciDataType_Int16: NvSciBufAttrValDataType = NvSciBufAttrValDataType(4);
/// Unsigned 16-bit.
pub const NvSciDataType_Uint16: NvSciBufAttrValDataType = NvSciBufAttrValDataType(5);
/// Signed 32-bit.
pub const NvSciDataType_Int32: NvSciBufAttrValDataType = NvSciBufAttrValDataType(6);
/// Unsigned 32-bit.
pub const NvSciDataType_Uint32: NvSciBufAttrValDataType = NvSciBufAttrValDataType(7);
/// IEEE half.
pub const NvSciDataType_Float16: NvSciBufAttrValDataType = NvSciBufAttrValDataType(8);
/// IEEE single.
pub const NvSciDataType_Float32: NvSciBufAttrValDataType = NvSciBufAttrValDataType(9);
/// ISP float format.
pub const NvSciDataType_FloatISP: NvSciBufAttrValDataType = NvSciBufAttrValDataType(10);
/// Boolean.
pub const NvSciDataType_Bool: NvSciBufAttrValDataType = NvSciBufAttrValDataType(11);
/// Upper bound; not a valid type.
pub const NvSciDataType_UpperBound: NvSciBufAttrValDataType = NvSciBufAttrValDataType(12);

// sdk-check: subset
/// Hardware engine name (a C enum; subset: only the Orin engines this runtime uses).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufHwEngName(pub u32);
/// Video image compositor.
pub const NvSciBufHwEngName_Vic: NvSciBufHwEngName = NvSciBufHwEngName(106);
/// GPU.
pub const NvSciBufHwEngName_Gpu: NvSciBufHwEngName = NvSciBufHwEngName(107);
/// Programmable vision accelerator.
pub const NvSciBufHwEngName_PVA: NvSciBufHwEngName = NvSciBufHwEngName(121);
/// Deep learning accelerator.
pub const NvSciBufHwEngName_DLA: NvSciBufHwEngName = NvSciBufHwEngName(122);

// sdk-check: subset
/// Platform name (a C enum; subset).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufPlatformName(pub u32);
/// Orin.
pub const NvSciBufPlatformName_Orin: NvSciBufPlatformName = NvSciBufPlatformName(1);

// ---------------------------------------------------------------------------------------
// Attribute keys (value = type << 16 | index; api-facts §2.3)
// ---------------------------------------------------------------------------------------

// sdk-check: subset
/// Public NvSciBuf attribute key (a C enum; subset: image, array and pyramid keys are
/// not declared beyond the first of each range).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrKey(pub u32);
/// Lower bound; not a valid key.
pub const NvSciBufAttrKey_LowerBound: NvSciBufAttrKey = NvSciBufAttrKey(0x0);
/// [`NvSciBufType`]`[]` (len = 4·n).
pub const NvSciBufGeneralAttrKey_Types: NvSciBufAttrKey = NvSciBufAttrKey(0x1);
/// `bool`: the CPU accesses the buffer.
pub const NvSciBufGeneralAttrKey_NeedCpuAccess: NvSciBufAttrKey = NvSciBufAttrKey(0x2);
/// [`NvSciBufAttrValAccessPerm`] (4 bytes).
pub const NvSciBufGeneralAttrKey_RequiredPerm: NvSciBufAttrKey = NvSciBufAttrKey(0x3);
/// `bool`: write-back cached CPU mapping (false = uncached).
pub const NvSciBufGeneralAttrKey_EnableCpuCache: NvSciBufAttrKey = NvSciBufAttrKey(0x4);
/// [`NvSciRmGpuId`]`[]`: GPUs that access the buffer.
pub const NvSciBufGeneralAttrKey_GpuId: NvSciBufAttrKey = NvSciBufAttrKey(0x5);
/// `bool`, output: CPU software cache maintenance is needed.
pub const NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency: NvSciBufAttrKey = NvSciBufAttrKey(0x6);
/// Output: the reconciled permission.
pub const NvSciBufGeneralAttrKey_ActualPerm: NvSciBufAttrKey = NvSciBufAttrKey(0x7);
/// [`NvSciRmGpuId`]: allocate in this dGPU's video memory.
pub const NvSciBufGeneralAttrKey_VidMem_GpuId: NvSciBufAttrKey = NvSciBufAttrKey(0x8);
/// [`NvSciBufAttrValGpuCache`]`[]`. Since DRIVE OS 6.0.5.
pub const NvSciBufGeneralAttrKey_EnableGpuCache: NvSciBufAttrKey = NvSciBufAttrKey(0x9);
/// Output: GPU software cache maintenance is needed. Since DRIVE OS 6.0.5.
pub const NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency: NvSciBufAttrKey = NvSciBufAttrKey(0xA);
/// GPU compression. Since DRIVE OS 6.0.5.
pub const NvSciBufGeneralAttrKey_EnableGpuCompression: NvSciBufAttrKey = NvSciBufAttrKey(0xB);
/// Peer location info. Since DRIVE OS 6.0.6.
pub const NvSciBufGeneralAttrKey_PeerLocationInfo: NvSciBufAttrKey = NvSciBufAttrKey(0xC);
/// Peer hardware engines. DRIVE OS 6.0.10 only.
pub const NvSciBufGeneralAttrKey_PeerHwEngineArray: NvSciBufAttrKey = NvSciBufAttrKey(0xD);
/// `uint64_t`: raw buffer size (mandatory for RawBuffer, > 0).
pub const NvSciBufRawBufferAttrKey_Size: NvSciBufAttrKey = NvSciBufAttrKey(0x10000);
/// `uint64_t`: raw buffer alignment (power of two; reconciled = max).
pub const NvSciBufRawBufferAttrKey_Align: NvSciBufAttrKey = NvSciBufAttrKey(0x10001);
/// Image layout (first image key).
pub const NvSciBufImageAttrKey_Layout: NvSciBufAttrKey = NvSciBufAttrKey(0x20000);
/// [`NvSciBufAttrValDataType`] (mandatory for tensors).
pub const NvSciBufTensorAttrKey_DataType: NvSciBufAttrKey = NvSciBufAttrKey(0x30000);
/// `uint32_t`: number of dimensions (mandatory, ≤ 8).
pub const NvSciBufTensorAttrKey_NumDims: NvSciBufAttrKey = NvSciBufAttrKey(0x30001);
/// `uint64_t[]`: size per dimension (mandatory).
pub const NvSciBufTensorAttrKey_SizePerDim: NvSciBufAttrKey = NvSciBufAttrKey(0x30002);
/// `uint32_t[]`: alignment per dimension.
pub const NvSciBufTensorAttrKey_AlignmentPerDim: NvSciBufAttrKey = NvSciBufAttrKey(0x30003);
/// `uint64_t[]`, output: strides per dimension.
pub const NvSciBufTensorAttrKey_StridesPerDim: NvSciBufAttrKey = NvSciBufAttrKey(0x30004);
/// Tensor pixel format.
pub const NvSciBufTensorAttrKey_PixelFormat: NvSciBufAttrKey = NvSciBufAttrKey(0x30005);
/// `uint64_t`: base address alignment.
pub const NvSciBufTensorAttrKey_BaseAddrAlign: NvSciBufAttrKey = NvSciBufAttrKey(0x30006);
/// `uint64_t`, output: tensor size in bytes.
pub const NvSciBufTensorAttrKey_Size: NvSciBufAttrKey = NvSciBufAttrKey(0x30007);
/// Array data type (first array key).
pub const NvSciBufArrayAttrKey_DataType: NvSciBufAttrKey = NvSciBufAttrKey(0x40000);
/// Number of pyramid levels (first pyramid key).
pub const NvSciBufPyramidAttrKey_NumLevels: NvSciBufAttrKey = NvSciBufAttrKey(0x50000);
/// Upper bound of the public keys.
pub const NvSciBufAttrKey_UpperBound: NvSciBufAttrKey = NvSciBufAttrKey(0x3ff_ffff);

// ---------------------------------------------------------------------------------------
// Structs
// ---------------------------------------------------------------------------------------

/// One (key, value, length) entry for the attribute-list set/get calls.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct NvSciBufAttrKeyValuePair {
    /// The key.
    pub key: NvSciBufAttrKey,
    /// Pointer to the value (input) or set by the library (output).
    pub value: *const c_void,
    /// Length of the value in bytes.
    pub len: usize,
}

/// GPU identifier: the 16 UUID bytes from `cuDeviceGetUuid`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct NvSciRmGpuId {
    /// UUID bytes.
    pub bytes: [u8; 16],
}

/// Per-GPU cacheability, element of [`NvSciBufGeneralAttrKey_EnableGpuCache`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvSciBufAttrValGpuCache {
    /// The GPU.
    pub gpuId: NvSciRmGpuId,
    /// Whether that GPU caches the buffer.
    pub cacheability: bool,
}

// ---------------------------------------------------------------------------------------
// Functions (api-facts §2.4)
// ---------------------------------------------------------------------------------------

unsafe extern "C" {
    /// Opens a new module.
    pub fn NvSciBufModuleOpen(newModule: *mut NvSciBufModule) -> NvSciError;
    /// Closes a module.
    pub fn NvSciBufModuleClose(module: NvSciBufModule);
    /// Creates an empty unreconciled attribute list.
    pub fn NvSciBufAttrListCreate(
        module: NvSciBufModule,
        newAttrList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// Frees an attribute list.
    pub fn NvSciBufAttrListFree(attrList: NvSciBufAttrList);
    /// Sets attributes (the pair array is non-`const` in the prototype).
    pub fn NvSciBufAttrListSetAttrs(
        attrList: NvSciBufAttrList,
        pairArray: *mut NvSciBufAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Reads attributes into the `value`/`len` fields of the pairs.
    pub fn NvSciBufAttrListGetAttrs(
        attrList: NvSciBufAttrList,
        pairArray: *mut NvSciBufAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Reconciles lists; on failure `*newConflictList` may describe the conflict.
    pub fn NvSciBufAttrListReconcile(
        inputArray: *const NvSciBufAttrList,
        inputCount: usize,
        newReconciledAttrList: *mut NvSciBufAttrList,
        newConflictList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// Reconciles and allocates in one call.
    pub fn NvSciBufAttrListReconcileAndObjAlloc(
        attrListArray: *const NvSciBufAttrList,
        attrListCount: usize,
        bufObj: *mut NvSciBufObj,
        newConflictList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// Allocates a buffer from a reconciled list.
    pub fn NvSciBufObjAlloc(
        reconciledAttrList: NvSciBufAttrList,
        bufObj: *mut NvSciBufObj,
    ) -> NvSciError;
    /// Frees a buffer object reference.
    pub fn NvSciBufObjFree(bufObj: NvSciBufObj);
    /// Gets the buffer's reconciled list.
    pub fn NvSciBufObjGetAttrList(
        bufObj: NvSciBufObj,
        bufAttrList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// CPU pointer (needs `NeedCpuAccess` and ReadWrite).
    pub fn NvSciBufObjGetCpuPtr(bufObj: NvSciBufObj, ptr: *mut *mut c_void) -> NvSciError;
    /// Read-only CPU pointer (needs `NeedCpuAccess` and at least Readonly).
    pub fn NvSciBufObjGetConstCpuPtr(bufObj: NvSciBufObj, ptr: *mut *const c_void) -> NvSciError;
    /// Flushes a CPU cache range (only if `CpuNeedSwCacheCoherency`).
    pub fn NvSciBufObjFlushCpuCacheRange(bufObj: NvSciBufObj, offset: u64, len: u64) -> NvSciError;
    /// Duplicates a buffer object reference.
    pub fn NvSciBufObjDup(bufObj: NvSciBufObj, dupObj: *mut NvSciBufObj) -> NvSciError;
    /// Duplicates with reduced permission.
    pub fn NvSciBufObjDupWithReducePerm(
        bufObj: NvSciBufObj,
        reducedPerm: NvSciBufAttrValAccessPerm,
        newBufObj: *mut NvSciBufObj,
    ) -> NvSciError;
}

// ---------------------------------------------------------------------------------------
// Layout (LP64; values computed in api-facts §2)
// ---------------------------------------------------------------------------------------

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<NvSciBufType>() == 4);
    assert!(size_of::<NvSciBufAttrValAccessPerm>() == 4);
    assert!(size_of::<NvSciBufAttrKey>() == 4);
    assert!(size_of::<NvSciBufAttrValDataType>() == 4);

    assert!(size_of::<NvSciBufAttrKeyValuePair>() == 24);
    assert!(align_of::<NvSciBufAttrKeyValuePair>() == 8);
    assert!(offset_of!(NvSciBufAttrKeyValuePair, key) == 0);
    assert!(offset_of!(NvSciBufAttrKeyValuePair, value) == 8);
    assert!(offset_of!(NvSciBufAttrKeyValuePair, len) == 16);

    assert!(size_of::<NvSciRmGpuId>() == 16);
    assert!(align_of::<NvSciRmGpuId>() == 1);
    assert!(offset_of!(NvSciRmGpuId, bytes) == 0);

    assert!(size_of::<NvSciBufAttrValGpuCache>() == 17);
    assert!(align_of::<NvSciBufAttrValGpuCache>() == 1);
    assert!(offset_of!(NvSciBufAttrValGpuCache, gpuId) == 0);
    assert!(offset_of!(NvSciBufAttrValGpuCache, cacheability) == 16);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ranges() {
        assert_eq!(NvSciBufRawBufferAttrKey_Size.0, 1 << 16);
        assert_eq!(NvSciBufTensorAttrKey_Size.0, (3 << 16) | 7);
        assert_eq!(NvSciBufAttrKey_UpperBound.0, (1 << 26) - 1);
    }
}
