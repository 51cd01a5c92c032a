//! NvSciBuf (`nvscibuf.h`, `libnvscibuf.so.1`), api-facts §2.
//!
//! Target: NvSciBuf 2.11 (DRIVE OS 6.0.10). Every type, enum value, key and function of
//! `nvscibuf.h` is declared except the NvSciIpc export/import calls (listed with the
//! reason in `sil/nvscibuf/header-functions.txt`).

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
// Constants (macros in the C header)
// ---------------------------------------------------------------------------------------

/// Most dimensions of a tensor.
pub const NV_SCI_BUF_TENSOR_MAX_DIMS: u32 = 8;
/// Most planes of an image.
pub const NV_SCI_BUF_IMAGE_MAX_PLANES: u32 = 3;
/// Most levels of a pyramid.
pub const NV_SCI_BUF_PYRAMID_MAX_LEVELS: u32 = 10;
/// Number of `uint64_t` words in [`NvSciBufObjIpcExportDescriptor`].
pub const NVSCIBUF_EXPORT_DESC_SIZE: u32 = 32;
/// Most entries of [`NvSciBufGeneralAttrKey_PeerLocationInfo`].
pub const NV_SCI_BUF_PEER_INFO_MAX_NUMBER: u32 = 128;
/// `socID` of a late peer on the same SoC.
pub const NV_SCI_BUF_PEER_INFO_SELF_SOCID: u32 = 0xFFFF_FFFF;
/// `vmID` of a late peer in the same VM.
pub const NV_SCI_BUF_PEER_INFO_SELF_VMID: u32 = 0xFFFF_FFFF;
/// Most entries of [`NvSciBufGeneralAttrKey_PeerHwEngineArray`].
pub const NV_SCI_BUF_PEER_HW_ENGINE_MAX_NUMBER: u32 = 128;
/// Most GPUs sharing one buffer.
pub const NV_SCI_BUF_MAX_GPUS: u32 = 16;
/// Bits of the key index inside a key value (`key = type << 16 | index`).
pub const NV_SCI_BUF_ATTRKEY_BIT_COUNT: u32 = 16;
/// Bits of the buffer type inside a key value.
pub const NV_SCI_BUF_DATATYPE_BIT_COUNT: u32 = 10;
/// Key type of the public keys.
pub const NV_SCI_BUF_ATTR_KEY_TYPE_PUBLIC: u32 = 0;

// ---------------------------------------------------------------------------------------
// Enums
// ---------------------------------------------------------------------------------------

/// Buffer type (a C enum), value type of [`NvSciBufGeneralAttrKey_Types`] (an array).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufType(pub u32);
/// Reserved for the general keys; not a valid `Types` value.
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
/// Same value as [`NvSciBufType_MaxValid`].
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
/// Derived automatically (IPC export/import only).
pub const NvSciBufAccessPerm_Auto: NvSciBufAttrValAccessPerm = NvSciBufAttrValAccessPerm(4);
/// Invalid permission.
pub const NvSciBufAccessPerm_Invalid: NvSciBufAttrValAccessPerm = NvSciBufAttrValAccessPerm(5);

/// Image layout (a C enum), value type of [`NvSciBufImageAttrKey_Layout`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrValImageLayoutType(pub u32);
/// Block-linear (hardware tiled) layout.
pub const NvSciBufImage_BlockLinearType: NvSciBufAttrValImageLayoutType =
    NvSciBufAttrValImageLayoutType(0);
/// Pitch-linear layout.
pub const NvSciBufImage_PitchLinearType: NvSciBufAttrValImageLayoutType =
    NvSciBufAttrValImageLayoutType(1);

/// Image scan type (a C enum), value type of [`NvSciBufImageAttrKey_ScanType`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrValImageScanType(pub u32);
/// Progressive.
pub const NvSciBufScan_ProgressiveType: NvSciBufAttrValImageScanType =
    NvSciBufAttrValImageScanType(0);
/// Interlaced (two fields).
pub const NvSciBufScan_InterlaceType: NvSciBufAttrValImageScanType =
    NvSciBufAttrValImageScanType(1);

/// Image colour format (a C enum), value type of
/// [`NvSciBufImageAttrKey_PlaneColorFormat`] (an array) and
/// [`NvSciBufTensorAttrKey_PixelFormat`]. Values count up from 0 in header order.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrValColorFmt(pub u32);
/// Lower bound; not a valid format.
pub const NvSciColor_LowerBound: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(0);
/// `Bayer8RGGB`.
pub const NvSciColor_Bayer8RGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(1);
/// `Bayer8CCCC`.
pub const NvSciColor_Bayer8CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(2);
/// `Bayer8BGGR`.
pub const NvSciColor_Bayer8BGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(3);
/// `Bayer8GBRG`.
pub const NvSciColor_Bayer8GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(4);
/// `Bayer8GRBG`.
pub const NvSciColor_Bayer8GRBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(5);
/// `Bayer16BGGR`.
pub const NvSciColor_Bayer16BGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(6);
/// `Bayer16CCCC`.
pub const NvSciColor_Bayer16CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(7);
/// `Bayer16GBRG`.
pub const NvSciColor_Bayer16GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(8);
/// `Bayer16GRBG`.
pub const NvSciColor_Bayer16GRBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(9);
/// `Bayer16RGGB`.
pub const NvSciColor_Bayer16RGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(10);
/// `Bayer16RCCB`.
pub const NvSciColor_Bayer16RCCB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(11);
/// `Bayer16BCCR`.
pub const NvSciColor_Bayer16BCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(12);
/// `Bayer16CRBC`.
pub const NvSciColor_Bayer16CRBC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(13);
/// `Bayer16CBRC`.
pub const NvSciColor_Bayer16CBRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(14);
/// `Bayer16RCCC`.
pub const NvSciColor_Bayer16RCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(15);
/// `Bayer16CCCR`.
pub const NvSciColor_Bayer16CCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(16);
/// `Bayer16CRCC`.
pub const NvSciColor_Bayer16CRCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(17);
/// `Bayer16CCRC`.
pub const NvSciColor_Bayer16CCRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(18);
/// `X2Bayer14GBRG`.
pub const NvSciColor_X2Bayer14GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(19);
/// `X4Bayer12GBRG`.
pub const NvSciColor_X4Bayer12GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(20);
/// `X6Bayer10GBRG`.
pub const NvSciColor_X6Bayer10GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(21);
/// `X2Bayer14GRBG`.
pub const NvSciColor_X2Bayer14GRBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(22);
/// `X4Bayer12GRBG`.
pub const NvSciColor_X4Bayer12GRBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(23);
/// `X6Bayer10GRBG`.
pub const NvSciColor_X6Bayer10GRBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(24);
/// `X2Bayer14BGGR`.
pub const NvSciColor_X2Bayer14BGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(25);
/// `X4Bayer12BGGR`.
pub const NvSciColor_X4Bayer12BGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(26);
/// `X6Bayer10BGGR`.
pub const NvSciColor_X6Bayer10BGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(27);
/// `X2Bayer14RGGB`.
pub const NvSciColor_X2Bayer14RGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(28);
/// `X4Bayer12RGGB`.
pub const NvSciColor_X4Bayer12RGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(29);
/// `X6Bayer10RGGB`.
pub const NvSciColor_X6Bayer10RGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(30);
/// `X2Bayer14CCCC`.
pub const NvSciColor_X2Bayer14CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(31);
/// `X4Bayer12CCCC`.
pub const NvSciColor_X4Bayer12CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(32);
/// `X6Bayer10CCCC`.
pub const NvSciColor_X6Bayer10CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(33);
/// `X4Bayer12RCCB`.
pub const NvSciColor_X4Bayer12RCCB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(34);
/// `X4Bayer12BCCR`.
pub const NvSciColor_X4Bayer12BCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(35);
/// `X4Bayer12CRBC`.
pub const NvSciColor_X4Bayer12CRBC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(36);
/// `X4Bayer12CBRC`.
pub const NvSciColor_X4Bayer12CBRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(37);
/// `X4Bayer12RCCC`.
pub const NvSciColor_X4Bayer12RCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(38);
/// `X4Bayer12CCCR`.
pub const NvSciColor_X4Bayer12CCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(39);
/// `X4Bayer12CRCC`.
pub const NvSciColor_X4Bayer12CRCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(40);
/// `X4Bayer12CCRC`.
pub const NvSciColor_X4Bayer12CCRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(41);
/// `Signed_X2Bayer14CCCC`.
pub const NvSciColor_Signed_X2Bayer14CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(42);
/// `Signed_X4Bayer12CCCC`.
pub const NvSciColor_Signed_X4Bayer12CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(43);
/// `Signed_X6Bayer10CCCC`.
pub const NvSciColor_Signed_X6Bayer10CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(44);
/// `Signed_Bayer16CCCC`.
pub const NvSciColor_Signed_Bayer16CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(45);
/// `FloatISP_Bayer16CCCC`.
pub const NvSciColor_FloatISP_Bayer16CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(46);
/// `FloatISP_Bayer16RGGB`.
pub const NvSciColor_FloatISP_Bayer16RGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(47);
/// `FloatISP_Bayer16BGGR`.
pub const NvSciColor_FloatISP_Bayer16BGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(48);
/// `FloatISP_Bayer16GRBG`.
pub const NvSciColor_FloatISP_Bayer16GRBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(49);
/// `FloatISP_Bayer16GBRG`.
pub const NvSciColor_FloatISP_Bayer16GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(50);
/// `FloatISP_Bayer16RCCB`.
pub const NvSciColor_FloatISP_Bayer16RCCB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(51);
/// `FloatISP_Bayer16BCCR`.
pub const NvSciColor_FloatISP_Bayer16BCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(52);
/// `FloatISP_Bayer16CRBC`.
pub const NvSciColor_FloatISP_Bayer16CRBC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(53);
/// `FloatISP_Bayer16CBRC`.
pub const NvSciColor_FloatISP_Bayer16CBRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(54);
/// `FloatISP_Bayer16RCCC`.
pub const NvSciColor_FloatISP_Bayer16RCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(55);
/// `FloatISP_Bayer16CCCR`.
pub const NvSciColor_FloatISP_Bayer16CCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(56);
/// `FloatISP_Bayer16CRCC`.
pub const NvSciColor_FloatISP_Bayer16CRCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(57);
/// `FloatISP_Bayer16CCRC`.
pub const NvSciColor_FloatISP_Bayer16CCRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(58);
/// `X12Bayer20CCCC`.
pub const NvSciColor_X12Bayer20CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(59);
/// `X12Bayer20BGGR`.
pub const NvSciColor_X12Bayer20BGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(60);
/// `X12Bayer20RGGB`.
pub const NvSciColor_X12Bayer20RGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(61);
/// `X12Bayer20GRBG`.
pub const NvSciColor_X12Bayer20GRBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(62);
/// `X12Bayer20GBRG`.
pub const NvSciColor_X12Bayer20GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(63);
/// `X12Bayer20RCCB`.
pub const NvSciColor_X12Bayer20RCCB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(64);
/// `X12Bayer20BCCR`.
pub const NvSciColor_X12Bayer20BCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(65);
/// `X12Bayer20CRBC`.
pub const NvSciColor_X12Bayer20CRBC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(66);
/// `X12Bayer20CBRC`.
pub const NvSciColor_X12Bayer20CBRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(67);
/// `X12Bayer20RCCC`.
pub const NvSciColor_X12Bayer20RCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(68);
/// `X12Bayer20CCCR`.
pub const NvSciColor_X12Bayer20CCCR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(69);
/// `X12Bayer20CRCC`.
pub const NvSciColor_X12Bayer20CRCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(70);
/// `X12Bayer20CCRC`.
pub const NvSciColor_X12Bayer20CCRC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(71);
/// `Signed_X12Bayer20CCCC`.
pub const NvSciColor_Signed_X12Bayer20CCCC: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(72);
/// `Signed_X12Bayer20GBRG`.
pub const NvSciColor_Signed_X12Bayer20GBRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(73);
/// `U8V8`.
pub const NvSciColor_U8V8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(74);
/// `U8_V8`.
pub const NvSciColor_U8_V8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(75);
/// `V8U8`.
pub const NvSciColor_V8U8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(76);
/// `V8_U8`.
pub const NvSciColor_V8_U8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(77);
/// `U10V10`.
pub const NvSciColor_U10V10: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(78);
/// `V10U10`.
pub const NvSciColor_V10U10: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(79);
/// `U12V12`.
pub const NvSciColor_U12V12: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(80);
/// `V12U12`.
pub const NvSciColor_V12U12: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(81);
/// `U16V16`.
pub const NvSciColor_U16V16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(82);
/// `V16U16`.
pub const NvSciColor_V16U16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(83);
/// `Y8`.
pub const NvSciColor_Y8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(84);
/// `Y10`.
pub const NvSciColor_Y10: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(85);
/// `Y12`.
pub const NvSciColor_Y12: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(86);
/// `Y16`.
pub const NvSciColor_Y16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(87);
/// `U8`.
pub const NvSciColor_U8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(88);
/// `V8`.
pub const NvSciColor_V8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(89);
/// `U10`.
pub const NvSciColor_U10: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(90);
/// `V10`.
pub const NvSciColor_V10: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(91);
/// `U12`.
pub const NvSciColor_U12: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(92);
/// `V12`.
pub const NvSciColor_V12: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(93);
/// `U16`.
pub const NvSciColor_U16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(94);
/// `V16`.
pub const NvSciColor_V16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(95);
/// `A8Y8U8V8`.
pub const NvSciColor_A8Y8U8V8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(96);
/// `Y8U8Y8V8`.
pub const NvSciColor_Y8U8Y8V8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(97);
/// `Y8V8Y8U8`.
pub const NvSciColor_Y8V8Y8U8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(98);
/// `U8Y8V8Y8`.
pub const NvSciColor_U8Y8V8Y8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(99);
/// `V8Y8U8Y8`.
pub const NvSciColor_V8Y8U8Y8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(100);
/// `A16Y16U16V16`.
pub const NvSciColor_A16Y16U16V16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(101);
/// `A8`.
pub const NvSciColor_A8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(102);
/// `Signed_A8`.
pub const NvSciColor_Signed_A8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(103);
/// `B8G8R8A8`.
pub const NvSciColor_B8G8R8A8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(104);
/// `A8R8G8B8`.
pub const NvSciColor_A8R8G8B8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(105);
/// `A8B8G8R8`.
pub const NvSciColor_A8B8G8R8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(106);
/// `A2R10G10B10`.
pub const NvSciColor_A2R10G10B10: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(107);
/// `A16`.
pub const NvSciColor_A16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(108);
/// `Signed_A16`.
pub const NvSciColor_Signed_A16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(109);
/// `Signed_R16G16`.
pub const NvSciColor_Signed_R16G16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(110);
/// `A16B16G16R16`.
pub const NvSciColor_A16B16G16R16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(111);
/// `Signed_A16B16G16R16`.
pub const NvSciColor_Signed_A16B16G16R16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(112);
/// `Float_A16B16G16R16`.
pub const NvSciColor_Float_A16B16G16R16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(113);
/// `A32`.
pub const NvSciColor_A32: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(114);
/// `Signed_A32`.
pub const NvSciColor_Signed_A32: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(115);
/// `Float_A16`.
pub const NvSciColor_Float_A16: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(116);
/// `X6Bayer10BGGI_RGGI`.
pub const NvSciColor_X6Bayer10BGGI_RGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(117);
/// `X6Bayer10GBIG_GRIG`.
pub const NvSciColor_X6Bayer10GBIG_GRIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(118);
/// `X6Bayer10GIBG_GIRG`.
pub const NvSciColor_X6Bayer10GIBG_GIRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(119);
/// `X6Bayer10IGGB_IGGR`.
pub const NvSciColor_X6Bayer10IGGB_IGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(120);
/// `X6Bayer10RGGI_BGGI`.
pub const NvSciColor_X6Bayer10RGGI_BGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(121);
/// `X6Bayer10GRIG_GBIG`.
pub const NvSciColor_X6Bayer10GRIG_GBIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(122);
/// `X6Bayer10GIRG_GIBG`.
pub const NvSciColor_X6Bayer10GIRG_GIBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(123);
/// `X6Bayer10IGGR_IGGB`.
pub const NvSciColor_X6Bayer10IGGR_IGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(124);
/// `X4Bayer12BGGI_RGGI`.
pub const NvSciColor_X4Bayer12BGGI_RGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(125);
/// `X4Bayer12GBIG_GRIG`.
pub const NvSciColor_X4Bayer12GBIG_GRIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(126);
/// `X4Bayer12GIBG_GIRG`.
pub const NvSciColor_X4Bayer12GIBG_GIRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(127);
/// `X4Bayer12IGGB_IGGR`.
pub const NvSciColor_X4Bayer12IGGB_IGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(128);
/// `X4Bayer12RGGI_BGGI`.
pub const NvSciColor_X4Bayer12RGGI_BGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(129);
/// `X4Bayer12GRIG_GBIG`.
pub const NvSciColor_X4Bayer12GRIG_GBIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(130);
/// `X4Bayer12GIRG_GIBG`.
pub const NvSciColor_X4Bayer12GIRG_GIBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(131);
/// `X4Bayer12IGGR_IGGB`.
pub const NvSciColor_X4Bayer12IGGR_IGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(132);
/// `X2Bayer14BGGI_RGGI`.
pub const NvSciColor_X2Bayer14BGGI_RGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(133);
/// `X2Bayer14GBIG_GRIG`.
pub const NvSciColor_X2Bayer14GBIG_GRIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(134);
/// `X2Bayer14GIBG_GIRG`.
pub const NvSciColor_X2Bayer14GIBG_GIRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(135);
/// `X2Bayer14IGGB_IGGR`.
pub const NvSciColor_X2Bayer14IGGB_IGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(136);
/// `X2Bayer14RGGI_BGGI`.
pub const NvSciColor_X2Bayer14RGGI_BGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(137);
/// `X2Bayer14GRIG_GBIG`.
pub const NvSciColor_X2Bayer14GRIG_GBIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(138);
/// `X2Bayer14GIRG_GIBG`.
pub const NvSciColor_X2Bayer14GIRG_GIBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(139);
/// `X2Bayer14IGGR_IGGB`.
pub const NvSciColor_X2Bayer14IGGR_IGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(140);
/// `Bayer16BGGI_RGGI`.
pub const NvSciColor_Bayer16BGGI_RGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(141);
/// `Bayer16GBIG_GRIG`.
pub const NvSciColor_Bayer16GBIG_GRIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(142);
/// `Bayer16GIBG_GIRG`.
pub const NvSciColor_Bayer16GIBG_GIRG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(143);
/// `Bayer16IGGB_IGGR`.
pub const NvSciColor_Bayer16IGGB_IGGR: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(144);
/// `Bayer16RGGI_BGGI`.
pub const NvSciColor_Bayer16RGGI_BGGI: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(145);
/// `Bayer16GRIG_GBIG`.
pub const NvSciColor_Bayer16GRIG_GBIG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(146);
/// `Bayer16GIRG_GIBG`.
pub const NvSciColor_Bayer16GIRG_GIBG: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(147);
/// `Bayer16IGGR_IGGB`.
pub const NvSciColor_Bayer16IGGR_IGGB: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(148);
/// `X4Bayer12RGGB_RJ`.
pub const NvSciColor_X4Bayer12RGGB_RJ: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(149);
/// `R8`.
pub const NvSciColor_R8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(150);
/// `G8`.
pub const NvSciColor_G8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(151);
/// `B8`.
pub const NvSciColor_B8: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(152);
/// Upper bound; not a valid format.
pub const NvSciColor_UpperBound: NvSciBufAttrValColorFmt = NvSciBufAttrValColorFmt(153);

/// Image colour standard (a C enum), value type of
/// [`NvSciBufImageAttrKey_PlaneColorStd`] (an array) and
/// [`NvSciBufImageAttrKey_SurfColorStd`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrValColorStd(pub u32);
/// sRGB.
pub const NvSciColorStd_SRGB: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(0);
/// ITU-R BT.601, studio range.
pub const NvSciColorStd_REC601_SR: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(1);
/// ITU-R BT.601, extended range.
pub const NvSciColorStd_REC601_ER: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(2);
/// ITU-R BT.709, studio range.
pub const NvSciColorStd_REC709_SR: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(3);
/// ITU-R BT.709, extended range.
pub const NvSciColorStd_REC709_ER: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(4);
/// ITU-R BT.2020 RGB.
pub const NvSciColorStd_REC2020_RGB: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(5);
/// ITU-R BT.2020, studio range.
pub const NvSciColorStd_REC2020_SR: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(6);
/// ITU-R BT.2020, extended range.
pub const NvSciColorStd_REC2020_ER: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(7);
/// YcCbcCrc, studio range.
pub const NvSciColorStd_YcCbcCrc_SR: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(8);
/// YcCbcCrc, extended range.
pub const NvSciColorStd_YcCbcCrc_ER: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(9);
/// Sensor RGBA.
pub const NvSciColorStd_SENSOR_RGBA: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(10);
/// BT.2020 PQ, extended range.
pub const NvSciColorStd_REQ2020PQ_ER: NvSciBufAttrValColorStd = NvSciBufAttrValColorStd(11);

/// Surface type (a C enum), value type of [`NvSciBufImageAttrKey_SurfType`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufSurfType(pub u32);
/// YUV surface.
pub const NvSciSurfType_YUV: NvSciBufSurfType = NvSciBufSurfType(0);
/// RGBA surface (the header: not supported yet, setting it fails).
pub const NvSciSurfType_RGBA: NvSciBufSurfType = NvSciBufSurfType(1);
/// RAW surface (the header: not supported yet, setting it fails).
pub const NvSciSurfType_RAW: NvSciBufSurfType = NvSciBufSurfType(2);
/// One past the last valid value.
pub const NvSciSurfType_MaxValid: NvSciBufSurfType = NvSciBufSurfType(3);

/// Surface memory layout (a C enum), value type of [`NvSciBufImageAttrKey_SurfMemLayout`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufSurfMemLayout(pub u32);
/// Packed (one plane).
pub const NvSciSurfMemLayout_Packed: NvSciBufSurfMemLayout = NvSciBufSurfMemLayout(0);
/// Semi-planar (luma plane and interleaved chroma plane).
pub const NvSciSurfMemLayout_SemiPlanar: NvSciBufSurfMemLayout = NvSciBufSurfMemLayout(1);
/// Planar (one plane per component).
pub const NvSciSurfMemLayout_Planar: NvSciBufSurfMemLayout = NvSciBufSurfMemLayout(2);
/// One past the last valid value.
pub const NvSciSurfMemLayout_MaxValid: NvSciBufSurfMemLayout = NvSciBufSurfMemLayout(3);

/// Chroma subsampling (a C enum), value type of [`NvSciBufImageAttrKey_SurfSampleType`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufSurfSampleType(pub u32);
/// 4:2:0.
pub const NvSciSurfSampleType_420: NvSciBufSurfSampleType = NvSciBufSurfSampleType(0);
/// 4:2:2.
pub const NvSciSurfSampleType_422: NvSciBufSurfSampleType = NvSciBufSurfSampleType(1);
/// 4:4:4.
pub const NvSciSurfSampleType_444: NvSciBufSurfSampleType = NvSciBufSurfSampleType(2);
/// 4:2:2 transposed.
pub const NvSciSurfSampleType_422R: NvSciBufSurfSampleType = NvSciBufSurfSampleType(3);
/// 4:0:0 (luma only).
pub const NvSciSurfSampleType_400: NvSciBufSurfSampleType = NvSciBufSurfSampleType(4);
/// One past the last valid value.
pub const NvSciSurfSampleType_MaxValid: NvSciBufSurfSampleType = NvSciBufSurfSampleType(5);

/// Bits per component (a C enum), value type of [`NvSciBufImageAttrKey_SurfBPC`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufSurfBPC(pub u32);
/// 16-bit luma, 8-bit chroma.
pub const NvSciSurfBPC_Layout_16_8_8: NvSciBufSurfBPC = NvSciBufSurfBPC(0);
/// 10-bit luma, 8-bit chroma.
pub const NvSciSurfBPC_Layout_10_8_8: NvSciBufSurfBPC = NvSciBufSurfBPC(1);
/// 8 bits.
pub const NvSciSurfBPC_8: NvSciBufSurfBPC = NvSciBufSurfBPC(2);
/// 10 bits.
pub const NvSciSurfBPC_10: NvSciBufSurfBPC = NvSciBufSurfBPC(3);
/// 12 bits.
pub const NvSciSurfBPC_12: NvSciBufSurfBPC = NvSciBufSurfBPC(4);
/// 14 bits (behaves as 16 bits).
pub const NvSciSurfBPC_14: NvSciBufSurfBPC = NvSciBufSurfBPC(5);
/// 16 bits.
pub const NvSciSurfBPC_16: NvSciBufSurfBPC = NvSciBufSurfBPC(6);
/// One past the last valid value.
pub const NvSciSurfBPC_MaxValid: NvSciBufSurfBPC = NvSciBufSurfBPC(7);

/// Component order (a C enum), value type of [`NvSciBufImageAttrKey_SurfComponentOrder`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufSurfComponentOrder(pub u32);
/// Y, then U, then V.
pub const NvSciSurfComponentOrder_YUV: NvSciBufSurfComponentOrder = NvSciBufSurfComponentOrder(0);
/// Y, then V, then U.
pub const NvSciSurfComponentOrder_YVU: NvSciBufSurfComponentOrder = NvSciBufSurfComponentOrder(1);
/// Luma only.
pub const NvSciSurfComponentOrder_Luma: NvSciBufSurfComponentOrder = NvSciBufSurfComponentOrder(2);
/// One past the last valid value.
pub const NvSciSurfComponentOrder_MaxValid: NvSciBufSurfComponentOrder =
    NvSciBufSurfComponentOrder(3);

/// Element data type (a C enum), value type of [`NvSciBufTensorAttrKey_DataType`],
/// [`NvSciBufArrayAttrKey_DataType`] and [`NvSciBufImageAttrKey_PlaneDatatype`].
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

/// GPU compression (a C enum), member of [`NvSciBufAttrValGpuCompression`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufCompressionType(pub u32);
/// No compression (reconciled value only; may not be set in an unreconciled list).
pub const NvSciBufCompressionType_None: NvSciBufCompressionType = NvSciBufCompressionType(0);
/// Every compression the GPU offers.
pub const NvSciBufCompressionType_GenericCompressible: NvSciBufCompressionType =
    NvSciBufCompressionType(1);

/// Hardware engine name (a C enum), member of [`NvSciBufPeerHwEngine`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufHwEngName(pub u32);
/// Invalid engine.
pub const NvSciBufHwEngName_Invalid: NvSciBufHwEngName = NvSciBufHwEngName(0);
/// Display.
pub const NvSciBufHwEngName_Display: NvSciBufHwEngName = NvSciBufHwEngName(4);
/// Image signal processor.
pub const NvSciBufHwEngName_Isp: NvSciBufHwEngName = NvSciBufHwEngName(11);
/// Video input.
pub const NvSciBufHwEngName_Vi: NvSciBufHwEngName = NvSciBufHwEngName(12);
/// Camera serial interface.
pub const NvSciBufHwEngName_Csi: NvSciBufHwEngName = NvSciBufHwEngName(30);
/// Video image compositor.
pub const NvSciBufHwEngName_Vic: NvSciBufHwEngName = NvSciBufHwEngName(106);
/// GPU.
pub const NvSciBufHwEngName_Gpu: NvSciBufHwEngName = NvSciBufHwEngName(107);
/// Video encoder.
pub const NvSciBufHwEngName_MSENC: NvSciBufHwEngName = NvSciBufHwEngName(109);
/// Video decoder.
pub const NvSciBufHwEngName_NVDEC: NvSciBufHwEngName = NvSciBufHwEngName(117);
/// JPEG codec.
pub const NvSciBufHwEngName_NVJPG: NvSciBufHwEngName = NvSciBufHwEngName(118);
/// Programmable vision accelerator.
pub const NvSciBufHwEngName_PVA: NvSciBufHwEngName = NvSciBufHwEngName(121);
/// Deep learning accelerator.
pub const NvSciBufHwEngName_DLA: NvSciBufHwEngName = NvSciBufHwEngName(122);
/// PCIe.
pub const NvSciBufHwEngName_PCIe: NvSciBufHwEngName = NvSciBufHwEngName(123);
/// Optical flow accelerator.
pub const NvSciBufHwEngName_OFA: NvSciBufHwEngName = NvSciBufHwEngName(124);
/// NPM.
pub const NvSciBufHwEngName_NPM: NvSciBufHwEngName = NvSciBufHwEngName(125);
/// One past the last engine value.
pub const NvSciBufHwEngName_Num: NvSciBufHwEngName = NvSciBufHwEngName(126);

/// Platform of a late-attaching peer (a C enum), member of [`NvSciBufPeerHwEngine`].
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufPlatformName(pub u32);
/// Lower bound; not a valid platform.
pub const NvSciBufPlatformName_LowerBound: NvSciBufPlatformName = NvSciBufPlatformName(0);
/// DRIVE OS Orin.
pub const NvSciBufPlatformName_Orin: NvSciBufPlatformName = NvSciBufPlatformName(1);
/// x86 PG189.
pub const NvSciBufPlatformName_PG189: NvSciBufPlatformName = NvSciBufPlatformName(2);
/// x86 PG199.
pub const NvSciBufPlatformName_PG199: NvSciBufPlatformName = NvSciBufPlatformName(3);
/// Upper bound; not a valid platform.
pub const NvSciBufPlatformName_UpperBound: NvSciBufPlatformName = NvSciBufPlatformName(4);

/// NvSciIpc endpoint handle (`nvsciipc.h`: a `uint64_t`). Only
/// [`NvSciBufObjGetMaxPerm`] takes one among the calls declared here.
pub type NvSciIpcEndpoint = u64;

// ---------------------------------------------------------------------------------------
// Attribute keys (value = type << 16 | index; api-facts §2.3, nvscibuf.h enum order)
// ---------------------------------------------------------------------------------------

/// Public NvSciBuf attribute key (a C enum).
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NvSciBufAttrKey(pub u32);
/// Lower bound; not a valid key.
pub const NvSciBufAttrKey_LowerBound: NvSciBufAttrKey = NvSciBufAttrKey(0x0);
/// [`NvSciBufType`]`[]` (len = 4·n), in/out, mandatory.
pub const NvSciBufGeneralAttrKey_Types: NvSciBufAttrKey = NvSciBufAttrKey(0x1);
/// `bool`, in/out: the CPU accesses the buffer (reconciled: OR).
pub const NvSciBufGeneralAttrKey_NeedCpuAccess: NvSciBufAttrKey = NvSciBufAttrKey(0x2);
/// [`NvSciBufAttrValAccessPerm`] (4 bytes), input only: Readonly or ReadWrite.
pub const NvSciBufGeneralAttrKey_RequiredPerm: NvSciBufAttrKey = NvSciBufAttrKey(0x3);
/// `bool`, in/out: write-back cached CPU mapping (false = uncached; reconciled: OR).
pub const NvSciBufGeneralAttrKey_EnableCpuCache: NvSciBufAttrKey = NvSciBufAttrKey(0x4);
/// [`NvSciRmGpuId`]`[]`, in/out: GPUs that access the buffer (reconciled: union).
pub const NvSciBufGeneralAttrKey_GpuId: NvSciBufAttrKey = NvSciBufAttrKey(0x5);
/// `bool`, output: CPU software cache maintenance is needed.
pub const NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency: NvSciBufAttrKey = NvSciBufAttrKey(0x6);
/// [`NvSciBufAttrValAccessPerm`], output: the granted permission.
pub const NvSciBufGeneralAttrKey_ActualPerm: NvSciBufAttrKey = NvSciBufAttrKey(0x7);
/// [`NvSciRmGpuId`], in/out: allocate in this dGPU's video memory.
pub const NvSciBufGeneralAttrKey_VidMem_GpuId: NvSciBufAttrKey = NvSciBufAttrKey(0x8);
/// [`NvSciBufAttrValGpuCache`]`[]`, in/out. Since DRIVE OS 6.0.5.
pub const NvSciBufGeneralAttrKey_EnableGpuCache: NvSciBufAttrKey = NvSciBufAttrKey(0x9);
/// [`NvSciBufAttrValGpuCache`]`[]`, output: GPU software cache maintenance is needed. Since DRIVE OS 6.0.5.
pub const NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency: NvSciBufAttrKey = NvSciBufAttrKey(0xa);
/// [`NvSciBufAttrValGpuCompression`]`[]`, in/out. Since DRIVE OS 6.0.5.
pub const NvSciBufGeneralAttrKey_EnableGpuCompression: NvSciBufAttrKey = NvSciBufAttrKey(0xb);
/// [`NvSciBufPeerLocationInfo`]`[]`, in/out: late-attaching peers. Since DRIVE OS 6.0.6.
pub const NvSciBufGeneralAttrKey_PeerLocationInfo: NvSciBufAttrKey = NvSciBufAttrKey(0xc);
/// [`NvSciBufPeerHwEngine`]`[]`, in/out: engines of late-attaching peers. DRIVE OS 6.0.10.
pub const NvSciBufGeneralAttrKey_PeerHwEngineArray: NvSciBufAttrKey = NvSciBufAttrKey(0xd);
/// `uint64_t`, in/out: raw buffer size (mandatory for RawBuffer, > 0; lists must agree).
pub const NvSciBufRawBufferAttrKey_Size: NvSciBufAttrKey = NvSciBufAttrKey(0x10000);
/// `uint64_t`, in/out: raw buffer alignment (power of two; reconciled = max).
pub const NvSciBufRawBufferAttrKey_Align: NvSciBufAttrKey = NvSciBufAttrKey(0x10001);
/// [`NvSciBufAttrValImageLayoutType`], in/out, mandatory for images.
pub const NvSciBufImageAttrKey_Layout: NvSciBufAttrKey = NvSciBufAttrKey(0x20000);
/// `uint64_t[]` per plane, in/out: top padding in pixels (default 0).
pub const NvSciBufImageAttrKey_TopPadding: NvSciBufAttrKey = NvSciBufAttrKey(0x20001);
/// `uint64_t[]` per plane, in/out: bottom padding in pixels (default 0).
pub const NvSciBufImageAttrKey_BottomPadding: NvSciBufAttrKey = NvSciBufAttrKey(0x20002);
/// `uint64_t[]` per plane, in/out: left padding in pixels (default 0).
pub const NvSciBufImageAttrKey_LeftPadding: NvSciBufAttrKey = NvSciBufAttrKey(0x20003);
/// `uint64_t[]` per plane, in/out: right padding in pixels (default 0).
pub const NvSciBufImageAttrKey_RightPadding: NvSciBufAttrKey = NvSciBufAttrKey(0x20004);
/// `bool`, in/out: video-protected memory (reconciled: OR).
pub const NvSciBufImageAttrKey_VprFlag: NvSciBufAttrKey = NvSciBufAttrKey(0x20005);
/// `uint64_t`, output: image size (sum of the aligned plane sizes).
pub const NvSciBufImageAttrKey_Size: NvSciBufAttrKey = NvSciBufAttrKey(0x20006);
/// `uint64_t`, output: image alignment (that of plane 0).
pub const NvSciBufImageAttrKey_Alignment: NvSciBufAttrKey = NvSciBufAttrKey(0x20007);
/// `uint32_t`, in/out: number of planes, 1 to [`NV_SCI_BUF_IMAGE_MAX_PLANES`].
pub const NvSciBufImageAttrKey_PlaneCount: NvSciBufAttrKey = NvSciBufAttrKey(0x20008);
/// [`NvSciBufAttrValColorFmt`]`[]`, in/out: colour format per plane.
pub const NvSciBufImageAttrKey_PlaneColorFormat: NvSciBufAttrKey = NvSciBufAttrKey(0x20009);
/// [`NvSciBufAttrValColorStd`]`[]`, in/out: colour standard per plane.
pub const NvSciBufImageAttrKey_PlaneColorStd: NvSciBufAttrKey = NvSciBufAttrKey(0x2000a);
/// `uint32_t[]`, in/out: base address alignment per plane (powers of two; reconciled = max).
pub const NvSciBufImageAttrKey_PlaneBaseAddrAlign: NvSciBufAttrKey = NvSciBufAttrKey(0x2000b);
/// `uint32_t[]`, in/out: width per plane in pixels.
pub const NvSciBufImageAttrKey_PlaneWidth: NvSciBufAttrKey = NvSciBufAttrKey(0x2000c);
/// `uint32_t[]`, in/out: height per plane in pixels.
pub const NvSciBufImageAttrKey_PlaneHeight: NvSciBufAttrKey = NvSciBufAttrKey(0x2000d);
/// [`NvSciBufAttrValImageScanType`], in/out, mandatory (deprecated name of [`NvSciBufImageAttrKey_ScanType`]).
pub const NvSciBufImageAttrKey_PlaneScanType: NvSciBufAttrKey = NvSciBufAttrKey(0x2000e);
/// [`NvSciBufAttrValImageScanType`], in/out, mandatory: progressive or interlaced.
pub const NvSciBufImageAttrKey_ScanType: NvSciBufAttrKey = NvSciBufAttrKey(0x2000e);
/// `uint32_t[]`, output: bits per pixel of each plane's colour format.
pub const NvSciBufImageAttrKey_PlaneBitsPerPixel: NvSciBufAttrKey = NvSciBufAttrKey(0x2000f);
/// `uint64_t[]`, output: byte offset of each plane from the first.
pub const NvSciBufImageAttrKey_PlaneOffset: NvSciBufAttrKey = NvSciBufAttrKey(0x20010);
/// [`NvSciBufAttrValDataType`]`[]`, output: data type of each plane.
pub const NvSciBufImageAttrKey_PlaneDatatype: NvSciBufAttrKey = NvSciBufAttrKey(0x20011);
/// `uint8_t[]`, output: channels per plane.
pub const NvSciBufImageAttrKey_PlaneChannelCount: NvSciBufAttrKey = NvSciBufAttrKey(0x20012);
/// `uint64_t[]`, output: offset of the second field (0 when progressive).
pub const NvSciBufImageAttrKey_PlaneSecondFieldOffset: NvSciBufAttrKey = NvSciBufAttrKey(0x20013);
/// `uint32_t[]`, output: pitch (bytes per row) of each plane.
pub const NvSciBufImageAttrKey_PlanePitch: NvSciBufAttrKey = NvSciBufAttrKey(0x20014);
/// `uint32_t[]`, output: aligned height of each plane in rows.
pub const NvSciBufImageAttrKey_PlaneAlignedHeight: NvSciBufAttrKey = NvSciBufAttrKey(0x20015);
/// `uint64_t[]`, output: aligned size of each plane in bytes.
pub const NvSciBufImageAttrKey_PlaneAlignedSize: NvSciBufAttrKey = NvSciBufAttrKey(0x20016);
/// `uint64_t`, in/out: number of images (must be 1).
pub const NvSciBufImageAttrKey_ImageCount: NvSciBufAttrKey = NvSciBufAttrKey(0x20017);
/// [`NvSciBufSurfType`], in/out: surface-based image description.
pub const NvSciBufImageAttrKey_SurfType: NvSciBufAttrKey = NvSciBufAttrKey(0x20018);
/// [`NvSciBufSurfMemLayout`], in/out: surface-based image description.
pub const NvSciBufImageAttrKey_SurfMemLayout: NvSciBufAttrKey = NvSciBufAttrKey(0x20019);
/// [`NvSciBufSurfSampleType`], in/out: surface-based image description.
pub const NvSciBufImageAttrKey_SurfSampleType: NvSciBufAttrKey = NvSciBufAttrKey(0x2001a);
/// [`NvSciBufSurfBPC`], in/out: surface-based image description.
pub const NvSciBufImageAttrKey_SurfBPC: NvSciBufAttrKey = NvSciBufAttrKey(0x2001b);
/// [`NvSciBufSurfComponentOrder`], in/out: surface-based image description.
pub const NvSciBufImageAttrKey_SurfComponentOrder: NvSciBufAttrKey = NvSciBufAttrKey(0x2001c);
/// `uint32_t`, in/out: surface width in pixels.
pub const NvSciBufImageAttrKey_SurfWidthBase: NvSciBufAttrKey = NvSciBufAttrKey(0x2001d);
/// `uint32_t`, in/out: surface height in pixels.
pub const NvSciBufImageAttrKey_SurfHeightBase: NvSciBufAttrKey = NvSciBufAttrKey(0x2001e);
/// [`NvSciBufAttrValColorStd`], in/out: colour standard of every surface plane.
pub const NvSciBufImageAttrKey_SurfColorStd: NvSciBufAttrKey = NvSciBufAttrKey(0x2001f);
/// [`NvSciBufAttrValDataType`], in/out, mandatory for tensors (Int4..=Float32).
pub const NvSciBufTensorAttrKey_DataType: NvSciBufAttrKey = NvSciBufAttrKey(0x30000);
/// `uint32_t`, in/out: number of dimensions (mandatory, 1..=8).
pub const NvSciBufTensorAttrKey_NumDims: NvSciBufAttrKey = NvSciBufAttrKey(0x30001);
/// `uint64_t[]`, in/out: size per dimension (mandatory).
pub const NvSciBufTensorAttrKey_SizePerDim: NvSciBufAttrKey = NvSciBufAttrKey(0x30002);
/// `uint32_t[]`, in/out: alignment per dimension (powers of two; reconciled = max).
pub const NvSciBufTensorAttrKey_AlignmentPerDim: NvSciBufAttrKey = NvSciBufAttrKey(0x30003);
/// `uint64_t[]`, output: stride per dimension in bytes, largest first.
pub const NvSciBufTensorAttrKey_StridesPerDim: NvSciBufAttrKey = NvSciBufAttrKey(0x30004);
/// [`NvSciBufAttrValColorFmt`], in/out: pixel format for image/tensor reconciliation.
pub const NvSciBufTensorAttrKey_PixelFormat: NvSciBufAttrKey = NvSciBufAttrKey(0x30005);
/// `uint64_t`, in/out: base address alignment (power of two; reconciled = max).
pub const NvSciBufTensorAttrKey_BaseAddrAlign: NvSciBufAttrKey = NvSciBufAttrKey(0x30006);
/// `uint64_t`, output: tensor size in bytes.
pub const NvSciBufTensorAttrKey_Size: NvSciBufAttrKey = NvSciBufAttrKey(0x30007);
/// [`NvSciBufAttrValDataType`], in/out, mandatory for arrays (Int4..=Bool).
pub const NvSciBufArrayAttrKey_DataType: NvSciBufAttrKey = NvSciBufAttrKey(0x40000);
/// `uint64_t`, in/out: bytes per element (mandatory).
pub const NvSciBufArrayAttrKey_Stride: NvSciBufAttrKey = NvSciBufAttrKey(0x40001);
/// `uint64_t`, in/out: number of elements (mandatory).
pub const NvSciBufArrayAttrKey_Capacity: NvSciBufAttrKey = NvSciBufAttrKey(0x40002);
/// `uint64_t`, output: array size in bytes.
pub const NvSciBufArrayAttrKey_Size: NvSciBufAttrKey = NvSciBufAttrKey(0x40003);
/// `uint64_t`, output: array base alignment.
pub const NvSciBufArrayAttrKey_Alignment: NvSciBufAttrKey = NvSciBufAttrKey(0x40004);
/// `uint32_t`, in/out: pyramid levels, 1 to [`NV_SCI_BUF_PYRAMID_MAX_LEVELS`].
pub const NvSciBufPyramidAttrKey_NumLevels: NvSciBufAttrKey = NvSciBufAttrKey(0x50000);
/// `float`, in/out: scale from one level to the next, in (0, 1].
pub const NvSciBufPyramidAttrKey_Scale: NvSciBufAttrKey = NvSciBufAttrKey(0x50001);
/// `uint64_t[]`, output: byte offset of each level from the first.
pub const NvSciBufPyramidAttrKey_LevelOffset: NvSciBufAttrKey = NvSciBufAttrKey(0x50002);
/// `uint64_t[]`, output: byte size of each level.
pub const NvSciBufPyramidAttrKey_LevelSize: NvSciBufAttrKey = NvSciBufAttrKey(0x50003);
/// `uint64_t`, output: pyramid alignment (that of the image).
pub const NvSciBufPyramidAttrKey_Alignment: NvSciBufAttrKey = NvSciBufAttrKey(0x50004);
/// Upper bound of the public keys; not a valid key.
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

/// Per-GPU compression, element of [`NvSciBufGeneralAttrKey_EnableGpuCompression`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvSciBufAttrValGpuCompression {
    /// The GPU.
    pub gpuId: NvSciRmGpuId,
    /// The compression for that GPU.
    pub compressionType: NvSciBufCompressionType,
}

/// A rectangle of pixels for [`NvSciBufObjGetPixels`] / [`NvSciBufObjPutPixels`]:
/// `x0`/`y0` inclusive, `x1`/`y1` exclusive.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct NvSciBufRect {
    /// Left column (inclusive).
    pub x0: u64,
    /// Top row (inclusive).
    pub y0: u64,
    /// Right column (exclusive).
    pub x1: u64,
    /// Bottom row (exclusive).
    pub y1: u64,
}

/// An engine of a late-attaching peer, element of
/// [`NvSciBufGeneralAttrKey_PeerHwEngineArray`] (packed).
#[repr(C, packed)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvSciBufPeerHwEngine {
    /// The engine.
    pub engName: NvSciBufHwEngName,
    /// The peer's platform.
    pub platName: NvSciBufPlatformName,
}

/// Exported form of a buffer object for NvSciIpc (packed; the IPC calls are not declared
/// here).
#[repr(C, packed)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvSciBufObjIpcExportDescriptor {
    /// Opaque data.
    pub data: [u64; 32],
}

/// Location of a late-attaching peer, element of
/// [`NvSciBufGeneralAttrKey_PeerLocationInfo`] (packed).
#[repr(C, packed)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NvSciBufPeerLocationInfo {
    /// Peer SoC id.
    pub socID: u32,
    /// Peer VM id.
    pub vmID: u32,
    /// Reserved.
    pub reserved: u64,
}

// ---------------------------------------------------------------------------------------
// Functions (nvscibuf.h, in header order; the NvSciIpc export/import calls and their
// descriptor frees are not declared: sil/nvscibuf/header-functions.txt)
// ---------------------------------------------------------------------------------------

unsafe extern "C" {
    /// Creates an empty single-slot unreconciled attribute list.
    pub fn NvSciBufAttrListCreate(
        module: NvSciBufModule,
        newAttrList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// Frees an attribute list.
    pub fn NvSciBufAttrListFree(attrList: NvSciBufAttrList);
    /// Sets attributes in slot 0 (the pair array is non-`const` in the prototype).
    pub fn NvSciBufAttrListSetAttrs(
        attrList: NvSciBufAttrList,
        pairArray: *mut NvSciBufAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Number of slots of a list.
    pub fn NvSciBufAttrListGetSlotCount(attrList: NvSciBufAttrList) -> usize;
    /// Reads attributes of slot 0 into the `value`/`len` fields of the pairs.
    pub fn NvSciBufAttrListGetAttrs(
        attrList: NvSciBufAttrList,
        pairArray: *mut NvSciBufAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Reads attributes of slot `slotIndex`.
    pub fn NvSciBufAttrListSlotGetAttrs(
        attrList: NvSciBufAttrList,
        slotIndex: usize,
        pairArray: *mut NvSciBufAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Deprecated: allocates a buffer holding a dump of the list.
    pub fn NvSciBufAttrListDebugDump(
        attrList: NvSciBufAttrList,
        buf: *mut *mut c_void,
        len: *mut usize,
    ) -> NvSciError;
    /// Reconciles lists; on failure `*newConflictList` may describe the conflict.
    pub fn NvSciBufAttrListReconcile(
        inputArray: *const NvSciBufAttrList,
        inputCount: usize,
        newReconciledAttrList: *mut NvSciBufAttrList,
        newConflictList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// Clones a list (a clone of an unreconciled list is writable again).
    pub fn NvSciBufAttrListClone(
        origAttrList: NvSciBufAttrList,
        newAttrList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// Appends unreconciled lists into one read-only multi-slot list.
    pub fn NvSciBufAttrListAppendUnreconciled(
        inputUnreconciledAttrListArray: *const NvSciBufAttrList,
        inputUnreconciledAttrListCount: usize,
        newUnreconciledAttrList: *mut NvSciBufAttrList,
    ) -> NvSciError;
    /// Whether a list is reconciled.
    pub fn NvSciBufAttrListIsReconciled(
        attrList: NvSciBufAttrList,
        isReconciled: *mut bool,
    ) -> NvSciError;
    /// Validates a reconciled list against unreconciled lists.
    pub fn NvSciBufAttrListValidateReconciled(
        reconciledAttrList: NvSciBufAttrList,
        unreconciledAttrListArray: *const NvSciBufAttrList,
        unreconciledAttrListCount: usize,
        isReconcileListValid: *mut bool,
    ) -> NvSciError;
    /// Duplicates a buffer object reference.
    pub fn NvSciBufObjDup(bufObj: NvSciBufObj, dupObj: *mut NvSciBufObj) -> NvSciError;
    /// Reconciles and allocates in one call.
    pub fn NvSciBufAttrListReconcileAndObjAlloc(
        attrListArray: *const NvSciBufAttrList,
        attrListCount: usize,
        bufObj: *mut NvSciBufObj,
        newConflictList: *mut NvSciBufAttrList,
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
    /// Allocates a buffer from a reconciled list.
    pub fn NvSciBufObjAlloc(
        reconciledAttrList: NvSciBufAttrList,
        bufObj: *mut NvSciBufObj,
    ) -> NvSciError;
    /// Duplicates with reduced permission.
    pub fn NvSciBufObjDupWithReducePerm(
        bufObj: NvSciBufObj,
        reducedPerm: NvSciBufAttrValAccessPerm,
        newBufObj: *mut NvSciBufObj,
    ) -> NvSciError;
    /// Copies an image's pixels out, plane by plane, into the caller's planes.
    pub fn NvSciBufObjGetPixels(
        bufObj: NvSciBufObj,
        rect: *const NvSciBufRect,
        dstPtrs: *mut *mut c_void,
        dstPtrSizes: *const u32,
        dstPitches: *const u32,
    ) -> NvSciError;
    /// Copies the caller's planes into an image, plane by plane.
    pub fn NvSciBufObjPutPixels(
        bufObj: NvSciBufObj,
        rect: *const NvSciBufRect,
        srcPtrs: *mut *const c_void,
        srcPtrSizes: *const u32,
        srcPitches: *const u32,
    ) -> NvSciError;
    /// Checks an allocated object against the unreconciled lists of late-attaching peers.
    pub fn NvSciBufObjAttachPeer(
        bufObj: NvSciBufObj,
        inputArray: *const NvSciBufAttrList,
        inputCount: usize,
    ) -> NvSciError;
    /// Opens a new module.
    pub fn NvSciBufModuleOpen(newModule: *mut NvSciBufModule) -> NvSciError;
    /// Closes a module.
    pub fn NvSciBufModuleClose(module: NvSciBufModule);
    /// Whether the loaded library is compatible with the version a client was built for.
    pub fn NvSciBufCheckVersionCompatibility(
        majorVer: u32,
        minorVer: u32,
        isCompatible: *mut bool,
    ) -> NvSciError;
    /// Validates an object against its list (a no-op outside safety builds).
    pub fn NvSciBufObjValidate(bufObj: NvSciBufObj) -> NvSciError;
    /// Validates a reconciled list against (key, value) pairs.
    pub fn NvSciBufAttrListValidateReconciledAgainstAttrs(
        reconciledAttrList: NvSciBufAttrList,
        pairArray: *const NvSciBufAttrKeyValuePair,
        pairCount: usize,
    ) -> NvSciError;
    /// Permission of an object for an IPC peer (a no-op outside safety builds).
    pub fn NvSciBufObjGetMaxPerm(
        bufObj: NvSciBufObj,
        ipcEndpoint: NvSciIpcEndpoint,
        accPerm: *mut NvSciBufAttrValAccessPerm,
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

    assert!(size_of::<NvSciBufAttrValGpuCompression>() == 20);
    assert!(align_of::<NvSciBufAttrValGpuCompression>() == 4);
    assert!(offset_of!(NvSciBufAttrValGpuCompression, compressionType) == 16);

    assert!(size_of::<NvSciBufRect>() == 32);
    assert!(align_of::<NvSciBufRect>() == 8);
    assert!(offset_of!(NvSciBufRect, x0) == 0);
    assert!(offset_of!(NvSciBufRect, y0) == 8);
    assert!(offset_of!(NvSciBufRect, x1) == 16);
    assert!(offset_of!(NvSciBufRect, y1) == 24);

    assert!(size_of::<NvSciBufPeerHwEngine>() == 8);
    assert!(align_of::<NvSciBufPeerHwEngine>() == 1);
    assert!(offset_of!(NvSciBufPeerHwEngine, platName) == 4);
    assert!(size_of::<NvSciBufPeerLocationInfo>() == 16);
    assert!(align_of::<NvSciBufPeerLocationInfo>() == 1);
    assert!(offset_of!(NvSciBufPeerLocationInfo, vmID) == 4);
    assert!(offset_of!(NvSciBufPeerLocationInfo, reserved) == 8);
    assert!(size_of::<NvSciBufObjIpcExportDescriptor>() == 256);
    assert!(align_of::<NvSciBufObjIpcExportDescriptor>() == 1);
};

/// Covers: REQ-FND-003
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ranges() {
        assert_eq!(NvSciBufRawBufferAttrKey_Size.0, 1 << 16);
        assert_eq!(NvSciBufTensorAttrKey_Size.0, (3 << 16) | 7);
        assert_eq!(NvSciBufAttrKey_UpperBound.0, (1 << 26) - 1);
        // The one explicit value inside the image range, and its alias.
        assert_eq!(NvSciBufImageAttrKey_PlaneScanType.0, 0x2000e);
        assert_eq!(
            NvSciBufImageAttrKey_ScanType,
            NvSciBufImageAttrKey_PlaneScanType
        );
        assert_eq!(NvSciBufImageAttrKey_SurfColorStd.0, (2 << 16) | 31);
        assert_eq!(NvSciBufPyramidAttrKey_Alignment.0, (5 << 16) | 4);
    }

    #[test]
    fn color_formats_count_up_in_header_order() {
        assert_eq!(NvSciColor_Bayer8RGGB.0, 1);
        assert_eq!(NvSciColor_U8V8.0, NvSciColor_Signed_X12Bayer20GBRG.0 + 1);
        assert_eq!(NvSciColor_Y8.0, 84);
        assert_eq!(NvSciColor_A8B8G8R8.0, 106);
        assert_eq!(NvSciColor_Float_A16B16G16R16.0, 113);
        assert_eq!(NvSciColor_UpperBound.0, NvSciColor_B8.0 + 1);
    }
}
