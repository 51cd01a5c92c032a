//! Every public attribute key of nvscibuf.h: its storage index, whether a client may set
//! it or read it, and how a value is checked when it is set.
//!
//! Accessibility (input, output, input/output) is the "Accessibility" line of each key's
//! documentation in nvscibuf.h; value types and valid ranges are its "Value" and "valid
//! input value" lines (`sil/README.md`, "NvSciBuf", "Keys").

use nvsci_sys::*;

/// Who may use a key: `SetAttrs` takes input keys, `GetAttrs` refuses output keys on
/// unreconciled lists and input-only keys on reconciled lists (nvscibuf.h `GetAttrs`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Access {
    /// Set in unreconciled lists only; not readable from a reconciled list.
    In,
    /// Computed by reconciliation only.
    Out,
    /// Both.
    InOut,
}

/// How a value given to `SetAttrs` is checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `NvSciBufType[]`, each in (General, MaxValid).
    Types,
    /// `bool` (one byte).
    Bool,
    /// `NvSciBufAttrValAccessPerm`: Readonly or ReadWrite.
    Perm,
    /// `NvSciRmGpuId[]`, 1..=16.
    GpuIds,
    /// One `NvSciRmGpuId`.
    GpuId,
    /// `NvSciBufAttrValGpuCache[]` (17 bytes each), 1..=16.
    GpuCache,
    /// `NvSciBufAttrValGpuCompression[]` (20 bytes each), 1..=16, GenericCompressible.
    GpuCompression,
    /// `NvSciBufPeerLocationInfo[]` (16 bytes each), 1..=128.
    PeerLocations,
    /// `NvSciBufPeerHwEngine[]` (8 bytes each), 1..=128, known engine and platform.
    PeerEngines,
    /// `uint64_t` > 0.
    Positive,
    /// `uint64_t`, a power of two or 0 (NVIDIA's CUDA sample sets `RawBuffer_Align` = 0).
    AlignOrZero,
    /// `uint64_t`, a power of two.
    Pow2,
    /// `uint64_t`, any value.
    U64,
    /// `uint32_t`, any value.
    U32,
    /// A 4-byte C enum value below the bound.
    Enum(u32),
    /// `NvSciBufSurfType`: only YUV (the header: RGBA and RAW "setting this attribute key
    /// will fail").
    SurfType,
    /// `uint64_t[]`, one per plane (1..=3).
    PlaneU64s,
    /// `uint32_t[]`, one per plane (1..=3).
    PlaneU32s,
    /// `uint32_t[]`, one power of two per plane (1..=3).
    PlaneAligns,
    /// `NvSciBufAttrValColorStd[]`, one per plane (1..=3).
    PlaneColorStds,
    /// `NvSciBufAttrValColorFmt[]`, one per plane (1..=3).
    PlaneColorFmts,
    /// One `NvSciBufAttrValColorFmt`.
    ColorFmt,
    /// `uint32_t` in 1..=`NV_SCI_BUF_IMAGE_MAX_PLANES`.
    PlaneCount,
    /// `uint64_t` = 1 (the header: "valid input value: 1").
    ImageCount,
    /// `NvSciBufAttrValDataType` in Int4..=Float32 (tensors).
    TensorDataType,
    /// `NvSciBufAttrValDataType` in Int4..=Bool (arrays).
    ArrayDataType,
    /// `uint32_t` in 1..=8.
    NumDims,
    /// `uint64_t[]`, 1..=8 elements.
    DimSizes,
    /// `uint32_t[]`, 1..=8 powers of two.
    DimAligns,
    /// `uint32_t` in 1..=10.
    NumLevels,
    /// `float` in (0, 1].
    Scale,
    /// Output only: never set.
    Output,
}

/// One key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyDef {
    /// The key value.
    pub key: NvSciBufAttrKey,
    /// Accessibility.
    pub access: Access,
    /// Value check.
    pub kind: Kind,
}

const fn d(key: NvSciBufAttrKey, access: Access, kind: Kind) -> KeyDef {
    KeyDef { key, access, kind }
}

use Access::{In, InOut, Out};

/// Every public key, in storage order (index = position). `PlaneScanType` and `ScanType`
/// are one key (same value).
pub(crate) const KEYS: [KeyDef; NK] = [
    d(NvSciBufGeneralAttrKey_Types, InOut, Kind::Types),
    d(NvSciBufGeneralAttrKey_NeedCpuAccess, InOut, Kind::Bool),
    d(NvSciBufGeneralAttrKey_RequiredPerm, In, Kind::Perm),
    d(NvSciBufGeneralAttrKey_EnableCpuCache, InOut, Kind::Bool),
    d(NvSciBufGeneralAttrKey_GpuId, InOut, Kind::GpuIds),
    d(
        NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency,
        Out,
        Kind::Output,
    ),
    d(NvSciBufGeneralAttrKey_ActualPerm, Out, Kind::Output),
    d(NvSciBufGeneralAttrKey_VidMem_GpuId, InOut, Kind::GpuId),
    d(NvSciBufGeneralAttrKey_EnableGpuCache, InOut, Kind::GpuCache),
    d(
        NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency,
        Out,
        Kind::Output,
    ),
    d(
        NvSciBufGeneralAttrKey_EnableGpuCompression,
        InOut,
        Kind::GpuCompression,
    ),
    d(
        NvSciBufGeneralAttrKey_PeerLocationInfo,
        InOut,
        Kind::PeerLocations,
    ),
    d(
        NvSciBufGeneralAttrKey_PeerHwEngineArray,
        InOut,
        Kind::PeerEngines,
    ),
    d(NvSciBufRawBufferAttrKey_Size, InOut, Kind::Positive),
    d(NvSciBufRawBufferAttrKey_Align, InOut, Kind::AlignOrZero),
    d(NvSciBufImageAttrKey_Layout, InOut, Kind::Enum(2)),
    d(NvSciBufImageAttrKey_TopPadding, InOut, Kind::PlaneU64s),
    d(NvSciBufImageAttrKey_BottomPadding, InOut, Kind::PlaneU64s),
    d(NvSciBufImageAttrKey_LeftPadding, InOut, Kind::PlaneU64s),
    d(NvSciBufImageAttrKey_RightPadding, InOut, Kind::PlaneU64s),
    d(NvSciBufImageAttrKey_VprFlag, InOut, Kind::Bool),
    d(NvSciBufImageAttrKey_Size, Out, Kind::Output),
    d(NvSciBufImageAttrKey_Alignment, Out, Kind::Output),
    d(NvSciBufImageAttrKey_PlaneCount, InOut, Kind::PlaneCount),
    d(
        NvSciBufImageAttrKey_PlaneColorFormat,
        InOut,
        Kind::PlaneColorFmts,
    ),
    d(
        NvSciBufImageAttrKey_PlaneColorStd,
        InOut,
        Kind::PlaneColorStds,
    ),
    d(
        NvSciBufImageAttrKey_PlaneBaseAddrAlign,
        InOut,
        Kind::PlaneAligns,
    ),
    d(NvSciBufImageAttrKey_PlaneWidth, InOut, Kind::PlaneU32s),
    d(NvSciBufImageAttrKey_PlaneHeight, InOut, Kind::PlaneU32s),
    d(NvSciBufImageAttrKey_ScanType, InOut, Kind::Enum(2)),
    d(NvSciBufImageAttrKey_PlaneBitsPerPixel, Out, Kind::Output),
    d(NvSciBufImageAttrKey_PlaneOffset, Out, Kind::Output),
    d(NvSciBufImageAttrKey_PlaneDatatype, Out, Kind::Output),
    d(NvSciBufImageAttrKey_PlaneChannelCount, Out, Kind::Output),
    d(
        NvSciBufImageAttrKey_PlaneSecondFieldOffset,
        Out,
        Kind::Output,
    ),
    d(NvSciBufImageAttrKey_PlanePitch, Out, Kind::Output),
    d(NvSciBufImageAttrKey_PlaneAlignedHeight, Out, Kind::Output),
    d(NvSciBufImageAttrKey_PlaneAlignedSize, Out, Kind::Output),
    d(NvSciBufImageAttrKey_ImageCount, InOut, Kind::ImageCount),
    d(NvSciBufImageAttrKey_SurfType, InOut, Kind::SurfType),
    d(NvSciBufImageAttrKey_SurfMemLayout, InOut, Kind::Enum(3)),
    d(NvSciBufImageAttrKey_SurfSampleType, InOut, Kind::Enum(5)),
    d(NvSciBufImageAttrKey_SurfBPC, InOut, Kind::Enum(7)),
    d(
        NvSciBufImageAttrKey_SurfComponentOrder,
        InOut,
        Kind::Enum(3),
    ),
    d(NvSciBufImageAttrKey_SurfWidthBase, InOut, Kind::U32),
    d(NvSciBufImageAttrKey_SurfHeightBase, InOut, Kind::U32),
    d(NvSciBufImageAttrKey_SurfColorStd, InOut, Kind::Enum(12)),
    d(NvSciBufTensorAttrKey_DataType, InOut, Kind::TensorDataType),
    d(NvSciBufTensorAttrKey_NumDims, InOut, Kind::NumDims),
    d(NvSciBufTensorAttrKey_SizePerDim, InOut, Kind::DimSizes),
    d(
        NvSciBufTensorAttrKey_AlignmentPerDim,
        InOut,
        Kind::DimAligns,
    ),
    d(NvSciBufTensorAttrKey_StridesPerDim, Out, Kind::Output),
    d(NvSciBufTensorAttrKey_PixelFormat, InOut, Kind::ColorFmt),
    d(NvSciBufTensorAttrKey_BaseAddrAlign, InOut, Kind::Pow2),
    d(NvSciBufTensorAttrKey_Size, Out, Kind::Output),
    d(NvSciBufArrayAttrKey_DataType, InOut, Kind::ArrayDataType),
    d(NvSciBufArrayAttrKey_Stride, InOut, Kind::U64),
    d(NvSciBufArrayAttrKey_Capacity, InOut, Kind::U64),
    d(NvSciBufArrayAttrKey_Size, Out, Kind::Output),
    d(NvSciBufArrayAttrKey_Alignment, Out, Kind::Output),
    d(NvSciBufPyramidAttrKey_NumLevels, InOut, Kind::NumLevels),
    d(NvSciBufPyramidAttrKey_Scale, InOut, Kind::Scale),
    d(NvSciBufPyramidAttrKey_LevelOffset, Out, Kind::Output),
    d(NvSciBufPyramidAttrKey_LevelSize, Out, Kind::Output),
    d(NvSciBufPyramidAttrKey_Alignment, Out, Kind::Output),
];

/// Number of keys.
pub(crate) const NK: usize = 65;

// Storage indices (positions in `KEYS`; checked by a test).
pub(crate) const TYPES: usize = 0;
pub(crate) const NEED_CPU: usize = 1;
pub(crate) const REQ_PERM: usize = 2;
pub(crate) const CPU_CACHE: usize = 3;
pub(crate) const GPU_ID: usize = 4;
pub(crate) const CPU_SW_COHERENCY: usize = 5;
pub(crate) const ACTUAL_PERM: usize = 6;
pub(crate) const VIDMEM_GPU: usize = 7;
pub(crate) const GPU_CACHE: usize = 8;
pub(crate) const GPU_SW_COHERENCY: usize = 9;
pub(crate) const GPU_COMPRESSION: usize = 10;
pub(crate) const PEER_LOCATION: usize = 11;
pub(crate) const PEER_ENGINES: usize = 12;
pub(crate) const RAW_SIZE: usize = 13;
pub(crate) const RAW_ALIGN: usize = 14;
pub(crate) const IMG_LAYOUT: usize = 15;
pub(crate) const IMG_TOP_PAD: usize = 16;
pub(crate) const IMG_BOTTOM_PAD: usize = 17;
pub(crate) const IMG_LEFT_PAD: usize = 18;
pub(crate) const IMG_RIGHT_PAD: usize = 19;
pub(crate) const IMG_VPR: usize = 20;
pub(crate) const IMG_SIZE: usize = 21;
pub(crate) const IMG_ALIGNMENT: usize = 22;
pub(crate) const IMG_PLANE_COUNT: usize = 23;
pub(crate) const IMG_COLOR_FMT: usize = 24;
pub(crate) const IMG_COLOR_STD: usize = 25;
pub(crate) const IMG_BASE_ALIGN: usize = 26;
pub(crate) const IMG_WIDTH: usize = 27;
pub(crate) const IMG_HEIGHT: usize = 28;
pub(crate) const IMG_SCAN: usize = 29;
pub(crate) const IMG_BPP: usize = 30;
pub(crate) const IMG_OFFSET: usize = 31;
pub(crate) const IMG_DATATYPE: usize = 32;
pub(crate) const IMG_CHANNELS: usize = 33;
pub(crate) const IMG_SECOND_FIELD: usize = 34;
pub(crate) const IMG_PITCH: usize = 35;
pub(crate) const IMG_ALIGNED_HEIGHT: usize = 36;
pub(crate) const IMG_ALIGNED_SIZE: usize = 37;
pub(crate) const IMG_COUNT: usize = 38;
pub(crate) const SURF_TYPE: usize = 39;
pub(crate) const SURF_MEM_LAYOUT: usize = 40;
pub(crate) const SURF_SAMPLE: usize = 41;
pub(crate) const SURF_BPC: usize = 42;
pub(crate) const SURF_ORDER: usize = 43;
pub(crate) const SURF_WIDTH: usize = 44;
pub(crate) const SURF_HEIGHT: usize = 45;
pub(crate) const SURF_COLOR_STD: usize = 46;
pub(crate) const T_DATATYPE: usize = 47;
pub(crate) const T_NUMDIMS: usize = 48;
pub(crate) const T_SIZES: usize = 49;
pub(crate) const T_ALIGNS: usize = 50;
pub(crate) const T_STRIDES: usize = 51;
pub(crate) const T_PIXEL_FMT: usize = 52;
pub(crate) const T_BASE_ALIGN: usize = 53;
pub(crate) const T_SIZE: usize = 54;
pub(crate) const A_DATATYPE: usize = 55;
pub(crate) const A_STRIDE: usize = 56;
pub(crate) const A_CAPACITY: usize = 57;
pub(crate) const A_SIZE: usize = 58;
pub(crate) const A_ALIGNMENT: usize = 59;
pub(crate) const P_LEVELS: usize = 60;
pub(crate) const P_SCALE: usize = 61;
pub(crate) const P_LEVEL_OFFSET: usize = 62;
pub(crate) const P_LEVEL_SIZE: usize = 63;
pub(crate) const P_ALIGNMENT: usize = 64;

/// The plane-based image keys (mutually exclusive with the surface keys).
pub(crate) const PLANE_KEYS: [usize; 10] = [
    IMG_PLANE_COUNT,
    IMG_COLOR_FMT,
    IMG_COLOR_STD,
    IMG_BASE_ALIGN,
    IMG_WIDTH,
    IMG_HEIGHT,
    IMG_TOP_PAD,
    IMG_BOTTOM_PAD,
    IMG_LEFT_PAD,
    IMG_RIGHT_PAD,
];
/// The surface-based image keys.
pub(crate) const SURF_KEYS: [usize; 8] = [
    SURF_TYPE,
    SURF_MEM_LAYOUT,
    SURF_SAMPLE,
    SURF_BPC,
    SURF_ORDER,
    SURF_WIDTH,
    SURF_HEIGHT,
    SURF_COLOR_STD,
];

/// Storage index of a public key (`None` for anything that is not a valid key of the
/// `NvSciBufAttrKey` enum).
pub(crate) fn index(key: NvSciBufAttrKey) -> Option<usize> {
    KEYS.iter().position(|d| d.key == key)
}

/// The buffer type whose keys `key` belongs to (`General` for the general keys).
pub(crate) fn key_type(key: NvSciBufAttrKey) -> NvSciBufType {
    NvSciBufType(key.0 >> 16)
}

/// A set of storage indices.
pub(crate) type Mask = u128;

/// The mask of one key.
pub(crate) const fn bit(k: usize) -> Mask {
    1 << k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_match_the_table() {
        let pairs = [
            (TYPES, NvSciBufGeneralAttrKey_Types),
            (ACTUAL_PERM, NvSciBufGeneralAttrKey_ActualPerm),
            (PEER_ENGINES, NvSciBufGeneralAttrKey_PeerHwEngineArray),
            (RAW_ALIGN, NvSciBufRawBufferAttrKey_Align),
            (IMG_SCAN, NvSciBufImageAttrKey_PlaneScanType),
            (IMG_ALIGNED_SIZE, NvSciBufImageAttrKey_PlaneAlignedSize),
            (SURF_COLOR_STD, NvSciBufImageAttrKey_SurfColorStd),
            (T_SIZE, NvSciBufTensorAttrKey_Size),
            (A_ALIGNMENT, NvSciBufArrayAttrKey_Alignment),
            (P_ALIGNMENT, NvSciBufPyramidAttrKey_Alignment),
        ];
        for (i, k) in pairs {
            assert_eq!(index(k), Some(i), "{k:?}");
        }
        // The table is in increasing key order (the header's enum order).
        for w in KEYS.windows(2) {
            assert!(w[0].key.0 < w[1].key.0);
        }
        assert!(NK <= Mask::BITS as usize);
        assert_eq!(index(NvSciBufAttrKey_LowerBound), None);
        assert_eq!(index(NvSciBufAttrKey_UpperBound), None);
        assert_eq!(index(NvSciBufAttrKey(0x2_0020)), None);
    }
}
