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

const fn f(bpp: u32, channels: u8, datatype: NvSciBufAttrValDataType) -> Option<FmtInfo> {
    Some(FmtInfo {
        bpp,
        channels,
        datatype,
    })
}

fn within(v: u32, lo: NvSciBufAttrValColorFmt, hi: NvSciBufAttrValColorFmt) -> bool {
    (lo.0..=hi.0).contains(&v)
}

/// The facts of a colour format; `None` for values outside (LowerBound, UpperBound) and for
/// `Signed_X12Bayer20GBRG` (the header: "currently not supported, and setting this
/// attribute key will fail").
pub(crate) fn info(fmt: u32) -> Option<FmtInfo> {
    let (u8_, u16_, u32_) = (
        NvSciDataType_Uint8,
        NvSciDataType_Uint16,
        NvSciDataType_Uint32,
    );
    let (i8_, i16_, i32_) = (NvSciDataType_Int8, NvSciDataType_Int16, NvSciDataType_Int32);
    match fmt {
        v if within(v, NvSciColor_Bayer8RGGB, NvSciColor_Bayer8GRBG) => f(8, 1, u8_),
        // 16-bit containers: Bayer16 and the X2/X4/X6 (14/12/10 bits in 16) Bayer formats.
        v if within(v, NvSciColor_Bayer16BGGR, NvSciColor_X4Bayer12CCRC) => f(16, 1, u16_),
        v if within(
            v,
            NvSciColor_Signed_X2Bayer14CCCC,
            NvSciColor_Signed_Bayer16CCCC,
        ) =>
        {
            f(16, 1, i16_)
        }
        v if within(
            v,
            NvSciColor_FloatISP_Bayer16CCCC,
            NvSciColor_FloatISP_Bayer16CCRC,
        ) =>
        {
            f(16, 1, NvSciDataType_FloatISP)
        }
        // 20 bits in a 32-bit container (the header's X12Bayer20 drawing).
        v if within(v, NvSciColor_X12Bayer20CCCC, NvSciColor_X12Bayer20CCRC) => f(32, 1, u32_),
        v if v == NvSciColor_Signed_X12Bayer20CCCC.0 => f(32, 1, i32_),
        // Semi-planar chroma: two 8-bit components, or two 16-bit containers.
        v if within(v, NvSciColor_U8V8, NvSciColor_V8_U8) => f(16, 2, u8_),
        v if within(v, NvSciColor_U10V10, NvSciColor_V16U16) => f(32, 2, u16_),
        v if v == NvSciColor_Y8.0 || v == NvSciColor_U8.0 || v == NvSciColor_V8.0 => f(8, 1, u8_),
        v if within(v, NvSciColor_Y10, NvSciColor_Y16) => f(16, 1, u16_),
        v if within(v, NvSciColor_U10, NvSciColor_V16) => f(16, 1, u16_),
        v if v == NvSciColor_A8Y8U8V8.0 => f(32, 4, u8_),
        // Packed 4:2:2: one 32-bit word per two pixels, Y plus one chroma component each.
        v if within(v, NvSciColor_Y8U8Y8V8, NvSciColor_V8Y8U8Y8) => f(16, 2, u8_),
        v if v == NvSciColor_A16Y16U16V16.0 => f(64, 4, u16_),
        v if v == NvSciColor_A8.0 => f(8, 1, u8_),
        v if v == NvSciColor_Signed_A8.0 => f(8, 1, i8_),
        v if within(v, NvSciColor_B8G8R8A8, NvSciColor_A8B8G8R8) => f(32, 4, u8_),
        // 10-bit components in a 32-bit word: the smallest type holding one component.
        v if v == NvSciColor_A2R10G10B10.0 => f(32, 4, u16_),
        v if v == NvSciColor_A16.0 => f(16, 1, u16_),
        v if v == NvSciColor_Signed_A16.0 => f(16, 1, i16_),
        v if v == NvSciColor_Signed_R16G16.0 => f(32, 2, i16_),
        v if v == NvSciColor_A16B16G16R16.0 => f(64, 4, u16_),
        v if v == NvSciColor_Signed_A16B16G16R16.0 => f(64, 4, i16_),
        v if v == NvSciColor_Float_A16B16G16R16.0 => f(64, 4, NvSciDataType_Float16),
        v if v == NvSciColor_A32.0 => f(32, 1, u32_),
        v if v == NvSciColor_Signed_A32.0 => f(32, 1, i32_),
        v if v == NvSciColor_Float_A16.0 => f(16, 1, NvSciDataType_Float16),
        // RGB-IR 4x4 Bayer (10/12/14/16 bits in 16) and the right-justified 12-bit Bayer.
        v if within(
            v,
            NvSciColor_X6Bayer10BGGI_RGGI,
            NvSciColor_X4Bayer12RGGB_RJ,
        ) =>
        {
            f(16, 1, u16_)
        }
        v if within(v, NvSciColor_R8, NvSciColor_B8) => f(8, 1, u8_),
        _ => None,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
