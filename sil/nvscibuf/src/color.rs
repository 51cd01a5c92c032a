//! What the SIL derives from a colour format: bits per pixel, channels per pixel and the
//! data type of one channel (the image output keys `PlaneBitsPerPixel`,
//! `PlaneChannelCount`, `PlaneDatatype`).
//!
//! nvscibuf.h names each format by its words and components (for example `V10U10` is one
//! 32-bit word holding a 10-bit V and a 10-bit U, with the bit layout drawn in the
//! header); it gives no table. The SIL reads the sizes off the names and the header's
//! bit-layout drawings (`sil/README.md`, "NvSciBuf", "Images").

use nvsci_sys::*;

/// Per-pixel facts of a colour format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct FmtInfo {
    /// Bits per pixel (always a multiple of 8 for the formats of nvscibuf.h).
    pub bpp: u32,
    /// Channels per pixel.
    pub channels: u8,
    /// Data type of one channel.
    pub datatype: NvSciBufAttrValDataType,
}

// Channel data types, short for the table.
const U8: NvSciBufAttrValDataType = NvSciDataType_Uint8;
const U16: NvSciBufAttrValDataType = NvSciDataType_Uint16;
const U32: NvSciBufAttrValDataType = NvSciDataType_Uint32;
const I8: NvSciBufAttrValDataType = NvSciDataType_Int8;
const I16: NvSciBufAttrValDataType = NvSciDataType_Int16;
const I32: NvSciBufAttrValDataType = NvSciDataType_Int32;
const F16: NvSciBufAttrValDataType = NvSciDataType_Float16;
const FISP: NvSciBufAttrValDataType = NvSciDataType_FloatISP;

/// One row of [`FORMATS`]: the formats `first..=last` (header enum order) share `info`.
struct Row {
    first: NvSciBufAttrValColorFmt,
    last: NvSciBufAttrValColorFmt,
    info: FmtInfo,
}

const fn r(
    first: NvSciBufAttrValColorFmt,
    last: NvSciBufAttrValColorFmt,
    bpp: u32,
    channels: u8,
    datatype: NvSciBufAttrValDataType,
) -> Row {
    Row {
        first,
        last,
        info: FmtInfo {
            bpp,
            channels,
            datatype,
        },
    }
}

/// A row of one format.
const fn one(
    fmt: NvSciBufAttrValColorFmt,
    bpp: u32,
    channels: u8,
    dt: NvSciBufAttrValDataType,
) -> Row {
    r(fmt, fmt, bpp, channels, dt)
}

/// Every supported format: (first, last, bits per pixel, channels, channel type). Rows do not
/// overlap; a value in no row is unknown.
const FORMATS: [Row; 31] = [
    r(NvSciColor_Bayer8RGGB, NvSciColor_Bayer8GRBG, 8, 1, U8),
    // 16-bit containers: Bayer16 and the X2/X4/X6 (14/12/10 bits in 16) Bayer formats.
    r(NvSciColor_Bayer16BGGR, NvSciColor_X4Bayer12CCRC, 16, 1, U16),
    r(
        NvSciColor_Signed_X2Bayer14CCCC,
        NvSciColor_Signed_Bayer16CCCC,
        16,
        1,
        I16,
    ),
    r(
        NvSciColor_FloatISP_Bayer16CCCC,
        NvSciColor_FloatISP_Bayer16CCRC,
        16,
        1,
        FISP,
    ),
    // 20 bits in a 32-bit container (the header's X12Bayer20 drawing).
    r(
        NvSciColor_X12Bayer20CCCC,
        NvSciColor_X12Bayer20CCRC,
        32,
        1,
        U32,
    ),
    one(NvSciColor_Signed_X12Bayer20CCCC, 32, 1, I32),
    // Semi-planar chroma: two 8-bit components, or two 16-bit containers.
    r(NvSciColor_U8V8, NvSciColor_V8_U8, 16, 2, U8),
    r(NvSciColor_U10V10, NvSciColor_V16U16, 32, 2, U16),
    one(NvSciColor_Y8, 8, 1, U8),
    one(NvSciColor_U8, 8, 1, U8),
    one(NvSciColor_V8, 8, 1, U8),
    r(NvSciColor_Y10, NvSciColor_Y16, 16, 1, U16),
    r(NvSciColor_U10, NvSciColor_V16, 16, 1, U16),
    one(NvSciColor_A8Y8U8V8, 32, 4, U8),
    // Packed 4:2:2: one 32-bit word per two pixels, Y plus one chroma component each.
    r(NvSciColor_Y8U8Y8V8, NvSciColor_V8Y8U8Y8, 16, 2, U8),
    one(NvSciColor_A16Y16U16V16, 64, 4, U16),
    one(NvSciColor_A8, 8, 1, U8),
    one(NvSciColor_Signed_A8, 8, 1, I8),
    r(NvSciColor_B8G8R8A8, NvSciColor_A8B8G8R8, 32, 4, U8),
    // 10-bit components in a 32-bit word: the smallest type holding one component.
    one(NvSciColor_A2R10G10B10, 32, 4, U16),
    one(NvSciColor_A16, 16, 1, U16),
    one(NvSciColor_Signed_A16, 16, 1, I16),
    one(NvSciColor_Signed_R16G16, 32, 2, I16),
    one(NvSciColor_A16B16G16R16, 64, 4, U16),
    one(NvSciColor_Signed_A16B16G16R16, 64, 4, I16),
    one(NvSciColor_Float_A16B16G16R16, 64, 4, F16),
    one(NvSciColor_A32, 32, 1, U32),
    one(NvSciColor_Signed_A32, 32, 1, I32),
    one(NvSciColor_Float_A16, 16, 1, F16),
    // RGB-IR 4x4 Bayer (10/12/14/16 bits in 16) and the right-justified 12-bit Bayer.
    r(
        NvSciColor_X6Bayer10BGGI_RGGI,
        NvSciColor_X4Bayer12RGGB_RJ,
        16,
        1,
        U16,
    ),
    r(NvSciColor_R8, NvSciColor_B8, 8, 1, U8),
];

fn within(v: u32, lo: NvSciBufAttrValColorFmt, hi: NvSciBufAttrValColorFmt) -> bool {
    (lo.0..=hi.0).contains(&v)
}

/// The facts of a colour format; `None` for values outside (LowerBound, UpperBound) and for
/// `Signed_X12Bayer20GBRG` (the header: "currently not supported, and setting this
/// attribute key will fail").
pub(crate) fn info(fmt: u32) -> Option<FmtInfo> {
    FORMATS
        .iter()
        .find(|row| within(fmt, row.first, row.last))
        .map(|row| row.info)
}

/// Whether a colour format is a YUV-family format (its default colour standard differs).
pub(crate) fn is_yuv(fmt: u32) -> bool {
    within(fmt, NvSciColor_U8V8, NvSciColor_A16Y16U16V16)
}

/// Bits per element of a data type (`Int4`/`Uint4` are 4; `FloatISP` is taken as 16, the
/// size of the FloatISP Bayer formats; `Bool` as 8).
pub(crate) fn element_bits(dt: u32) -> u64 {
    match dt {
        0 | 1 => 4,
        2 | 3 | 11 => 8,
        4 | 5 | 8 | 10 => 16,
        _ => 32,
    }
}

/// Covers: REQ-BUF-005
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_do_not_overlap() {
        for (i, a) in FORMATS.iter().enumerate() {
            assert!(a.first.0 <= a.last.0, "row {i}");
            for b in &FORMATS[i + 1..] {
                assert!(a.last.0 < b.first.0 || b.last.0 < a.first.0, "row {i}");
            }
        }
    }

    #[test]
    fn every_valid_format_is_known_and_byte_sized() {
        for v in 1..NvSciColor_UpperBound.0 {
            match info(v) {
                Some(i) => assert!(i.bpp.is_multiple_of(8) && i.channels >= 1, "{v}"),
                None => assert_eq!(v, NvSciColor_Signed_X12Bayer20GBRG.0),
            }
        }
        assert_eq!(info(NvSciColor_LowerBound.0), None);
        assert_eq!(info(NvSciColor_UpperBound.0), None);
        let abgr = info(NvSciColor_A8B8G8R8.0).unwrap();
        assert_eq!((abgr.bpp, abgr.channels), (32, 4));
        assert_eq!(info(NvSciColor_V10U10.0).unwrap().bpp, 32);
        assert_eq!(info(NvSciColor_Y8.0).unwrap().bpp, 8);
        assert_eq!(info(NvSciColor_X12Bayer20GBRG.0).unwrap().bpp, 32);
        assert!(is_yuv(NvSciColor_Y8.0) && !is_yuv(NvSciColor_A8B8G8R8.0));
    }
}
