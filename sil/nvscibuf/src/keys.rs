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

/// Declares the key table. Each row, in storage order, names the storage-index constant (the
/// row's position) and gives the key, its accessibility and its value check; `KEYS` and `NK`
/// follow from the rows, so an index cannot drift from its key.
macro_rules! key_table {
    ($($name:ident = $key:ident, $access:ident, $kind:ident $(($bound:literal))?;)*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[repr(usize)]
        enum Slot {
            $($name,)*
            Count,
        }
        $(pub(crate) const $name: usize = Slot::$name as usize;)*
        /// Number of keys.
        pub(crate) const NK: usize = Slot::Count as usize;
        /// Every public key, in storage order (index = position).
        pub(crate) const KEYS: [KeyDef; NK] = [$(KeyDef {
            key: $key,
            access: Access::$access,
            kind: Kind::$kind $(($bound))?,
        }),*];
    };
}

// Storage index = key, accessibility, value check. `PlaneScanType` and `ScanType` are one key
// (same value).
#[rustfmt::skip]
key_table! {
    TYPES              = NvSciBufGeneralAttrKey_Types, InOut, Types;
    NEED_CPU           = NvSciBufGeneralAttrKey_NeedCpuAccess, InOut, Bool;
    REQ_PERM           = NvSciBufGeneralAttrKey_RequiredPerm, In, Perm;
    CPU_CACHE          = NvSciBufGeneralAttrKey_EnableCpuCache, InOut, Bool;
    GPU_ID             = NvSciBufGeneralAttrKey_GpuId, InOut, GpuIds;
    CPU_SW_COHERENCY   = NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency, Out, Output;
    ACTUAL_PERM        = NvSciBufGeneralAttrKey_ActualPerm, Out, Output;
    VIDMEM_GPU         = NvSciBufGeneralAttrKey_VidMem_GpuId, InOut, GpuId;
    GPU_CACHE          = NvSciBufGeneralAttrKey_EnableGpuCache, InOut, GpuCache;
    GPU_SW_COHERENCY   = NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency, Out, Output;
    GPU_COMPRESSION    = NvSciBufGeneralAttrKey_EnableGpuCompression, InOut, GpuCompression;
    PEER_LOCATION      = NvSciBufGeneralAttrKey_PeerLocationInfo, InOut, PeerLocations;
    PEER_ENGINES       = NvSciBufGeneralAttrKey_PeerHwEngineArray, InOut, PeerEngines;
    RAW_SIZE           = NvSciBufRawBufferAttrKey_Size, InOut, Positive;
    RAW_ALIGN          = NvSciBufRawBufferAttrKey_Align, InOut, AlignOrZero;
    IMG_LAYOUT         = NvSciBufImageAttrKey_Layout, InOut, Enum(2);
    IMG_TOP_PAD        = NvSciBufImageAttrKey_TopPadding, InOut, PlaneU64s;
    IMG_BOTTOM_PAD     = NvSciBufImageAttrKey_BottomPadding, InOut, PlaneU64s;
    IMG_LEFT_PAD       = NvSciBufImageAttrKey_LeftPadding, InOut, PlaneU64s;
    IMG_RIGHT_PAD      = NvSciBufImageAttrKey_RightPadding, InOut, PlaneU64s;
    IMG_VPR            = NvSciBufImageAttrKey_VprFlag, InOut, Bool;
    IMG_SIZE           = NvSciBufImageAttrKey_Size, Out, Output;
    IMG_ALIGNMENT      = NvSciBufImageAttrKey_Alignment, Out, Output;
    IMG_PLANE_COUNT    = NvSciBufImageAttrKey_PlaneCount, InOut, PlaneCount;
    IMG_COLOR_FMT      = NvSciBufImageAttrKey_PlaneColorFormat, InOut, PlaneColorFmts;
    IMG_COLOR_STD      = NvSciBufImageAttrKey_PlaneColorStd, InOut, PlaneColorStds;
    IMG_BASE_ALIGN     = NvSciBufImageAttrKey_PlaneBaseAddrAlign, InOut, PlaneAligns;
    IMG_WIDTH          = NvSciBufImageAttrKey_PlaneWidth, InOut, PlaneU32s;
    IMG_HEIGHT         = NvSciBufImageAttrKey_PlaneHeight, InOut, PlaneU32s;
    IMG_SCAN           = NvSciBufImageAttrKey_ScanType, InOut, Enum(2);
    IMG_BPP            = NvSciBufImageAttrKey_PlaneBitsPerPixel, Out, Output;
    IMG_OFFSET         = NvSciBufImageAttrKey_PlaneOffset, Out, Output;
    IMG_DATATYPE       = NvSciBufImageAttrKey_PlaneDatatype, Out, Output;
    IMG_CHANNELS       = NvSciBufImageAttrKey_PlaneChannelCount, Out, Output;
    IMG_SECOND_FIELD   = NvSciBufImageAttrKey_PlaneSecondFieldOffset, Out, Output;
    IMG_PITCH          = NvSciBufImageAttrKey_PlanePitch, Out, Output;
    IMG_ALIGNED_HEIGHT = NvSciBufImageAttrKey_PlaneAlignedHeight, Out, Output;
    IMG_ALIGNED_SIZE   = NvSciBufImageAttrKey_PlaneAlignedSize, Out, Output;
    IMG_COUNT          = NvSciBufImageAttrKey_ImageCount, InOut, ImageCount;
    SURF_TYPE          = NvSciBufImageAttrKey_SurfType, InOut, SurfType;
    SURF_MEM_LAYOUT    = NvSciBufImageAttrKey_SurfMemLayout, InOut, Enum(3);
    SURF_SAMPLE        = NvSciBufImageAttrKey_SurfSampleType, InOut, Enum(5);
    SURF_BPC           = NvSciBufImageAttrKey_SurfBPC, InOut, Enum(7);
    SURF_ORDER         = NvSciBufImageAttrKey_SurfComponentOrder, InOut, Enum(3);
    SURF_WIDTH         = NvSciBufImageAttrKey_SurfWidthBase, InOut, U32;
    SURF_HEIGHT        = NvSciBufImageAttrKey_SurfHeightBase, InOut, U32;
    SURF_COLOR_STD     = NvSciBufImageAttrKey_SurfColorStd, InOut, Enum(12);
    T_DATATYPE         = NvSciBufTensorAttrKey_DataType, InOut, TensorDataType;
    T_NUMDIMS          = NvSciBufTensorAttrKey_NumDims, InOut, NumDims;
    T_SIZES            = NvSciBufTensorAttrKey_SizePerDim, InOut, DimSizes;
    T_ALIGNS           = NvSciBufTensorAttrKey_AlignmentPerDim, InOut, DimAligns;
    T_STRIDES          = NvSciBufTensorAttrKey_StridesPerDim, Out, Output;
    T_PIXEL_FMT        = NvSciBufTensorAttrKey_PixelFormat, InOut, ColorFmt;
    T_BASE_ALIGN       = NvSciBufTensorAttrKey_BaseAddrAlign, InOut, Pow2;
    T_SIZE             = NvSciBufTensorAttrKey_Size, Out, Output;
    A_DATATYPE         = NvSciBufArrayAttrKey_DataType, InOut, ArrayDataType;
    A_STRIDE           = NvSciBufArrayAttrKey_Stride, InOut, U64;
    A_CAPACITY         = NvSciBufArrayAttrKey_Capacity, InOut, U64;
    A_SIZE             = NvSciBufArrayAttrKey_Size, Out, Output;
    A_ALIGNMENT        = NvSciBufArrayAttrKey_Alignment, Out, Output;
    P_LEVELS           = NvSciBufPyramidAttrKey_NumLevels, InOut, NumLevels;
    P_SCALE            = NvSciBufPyramidAttrKey_Scale, InOut, Scale;
    P_LEVEL_OFFSET     = NvSciBufPyramidAttrKey_LevelOffset, Out, Output;
    P_LEVEL_SIZE       = NvSciBufPyramidAttrKey_LevelSize, Out, Output;
    P_ALIGNMENT        = NvSciBufPyramidAttrKey_Alignment, Out, Output;
}

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

/// Covers: REQ-BUF-001
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
