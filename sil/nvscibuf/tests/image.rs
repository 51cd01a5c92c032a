//! Images (plane- and surface-based), image/tensor, arrays, pyramids, and
//! `NvSciBufObjGetPixels`/`NvSciBufObjPutPixels` (nvscibuf.h, DRIVE OS 6.0.10).
//!
//! Covers: REQ-BUF-005

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::*;
use nvsci_sys::*;

const PAGE: u64 = 4096;

/// Image keys of a plane-based image.
struct Img<'a> {
    layout: NvSciBufAttrValImageLayoutType,
    scan: NvSciBufAttrValImageScanType,
    fmts: &'a [NvSciBufAttrValColorFmt],
    widths: &'a [u32],
    heights: &'a [u32],
}

fn pl(
    fmts: &'static [NvSciBufAttrValColorFmt],
    widths: &'static [u32],
    heights: &'static [u32],
) -> Img<'static> {
    Img {
        layout: NvSciBufImage_PitchLinearType,
        scan: NvSciBufScan_ProgressiveType,
        fmts,
        widths,
        heights,
    }
}

/// An image list; `cpu` asks CPU access, ReadWrite.
fn image_list(
    m: NvSciBufModule,
    img: &Img<'_>,
    cpu: bool,
    extra: &[NvSciBufAttrKeyValuePair],
) -> NvSciBufAttrList {
    let ty = [NvSciBufType_Image];
    let count = img.fmts.len() as u32;
    let perm = NvSciBufAccessPerm_ReadWrite;
    let mut pairs = vec![
        pair(NvSciBufGeneralAttrKey_Types, &ty),
        pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu),
        pair(NvSciBufGeneralAttrKey_RequiredPerm, &perm),
        pair(NvSciBufImageAttrKey_Layout, &img.layout),
        pair(NvSciBufImageAttrKey_ScanType, &img.scan),
        pair(NvSciBufImageAttrKey_PlaneCount, &count),
        pair(NvSciBufImageAttrKey_PlaneColorFormat, img.fmts),
        pair(NvSciBufImageAttrKey_PlaneWidth, img.widths),
        pair(NvSciBufImageAttrKey_PlaneHeight, img.heights),
    ];
    pairs.extend_from_slice(extra);
    list_with(m, &pairs)
}

fn up(v: u64, a: u64) -> u64 {
    v.next_multiple_of(a)
}

#[test]
fn plane_image_outputs() {
    let m = module();
    let r = reconcile(&[image_list(
        m,
        &pl(&[NvSciColor_A8B8G8R8], &[100], &[30]),
        true,
        &[],
    )])
    .unwrap();
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlanePitch),
        Some(vec![400])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneAlignedHeight),
        Some(vec![30])
    );
    assert_eq!(
        get_u64s(r, NvSciBufImageAttrKey_PlaneAlignedSize),
        Some(vec![up(12_000, PAGE)])
    );
    assert_eq!(
        get_u64(r, NvSciBufImageAttrKey_Size),
        Some(up(12_000, PAGE))
    );
    assert_eq!(get_u64(r, NvSciBufImageAttrKey_Alignment), Some(PAGE));
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneBitsPerPixel),
        Some(vec![32])
    );
    assert_eq!(
        get(r, NvSciBufImageAttrKey_PlaneChannelCount),
        Some(vec![4])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneDatatype),
        Some(vec![NvSciDataType_Uint8.0])
    );
    assert_eq!(get_u64s(r, NvSciBufImageAttrKey_PlaneOffset), Some(vec![0]));
    assert_eq!(
        get_u64s(r, NvSciBufImageAttrKey_PlaneSecondFieldOffset),
        Some(vec![0])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneColorStd),
        Some(vec![NvSciColorStd_SRGB.0])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneBaseAddrAlign),
        Some(vec![PAGE as u32])
    );
    assert_eq!(get_u64s(r, NvSciBufImageAttrKey_TopPadding), Some(vec![0]));
    assert_eq!(get_u64(r, NvSciBufImageAttrKey_ImageCount), Some(1));
    assert_eq!(get_bool(r, NvSciBufImageAttrKey_VprFlag), Some(false));
    assert_eq!(get(r, NvSciBufImageAttrKey_SurfType), None);
    assert_eq!(memory(alloc(r)).1, up(12_000, PAGE));

    // NV12 by planes, with a larger base alignment for the chroma plane, BT.709 asked.
    let align = [256u32, 16384];
    let std = [NvSciColorStd_REC709_ER, NvSciColorStd_REC709_ER];
    let img = pl(
        &[NvSciColor_Y8, NvSciColor_V8U8],
        &[1920, 960],
        &[1080, 540],
    );
    let l = image_list(
        m,
        &img,
        false,
        &[
            pair(NvSciBufImageAttrKey_PlaneBaseAddrAlign, &align),
            pair(NvSciBufImageAttrKey_PlaneColorStd, &std),
        ],
    );
    let r = reconcile(&[l]).unwrap();
    let y = up(1920 * 1080, 16384);
    let uv = up(1920 * 540, 16384);
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlanePitch),
        Some(vec![1920, 1920])
    );
    assert_eq!(
        get_u64s(r, NvSciBufImageAttrKey_PlaneAlignedSize),
        Some(vec![y, uv])
    );
    assert_eq!(
        get_u64s(r, NvSciBufImageAttrKey_PlaneOffset),
        Some(vec![0, y])
    );
    assert_eq!(get_u64(r, NvSciBufImageAttrKey_Size), Some(y + uv));
    assert_eq!(get_u64(r, NvSciBufImageAttrKey_Alignment), Some(256));
    assert_eq!(
        get(r, NvSciBufImageAttrKey_PlaneChannelCount),
        Some(vec![1, 2])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneBitsPerPixel),
        Some(vec![8, 16])
    );
    // The chroma plane starts aligned to its own base alignment.
    let (p, _) = memory(alloc(r));
    assert_eq!((p.addr() as u64 + y) % 16384, 0);
}

#[test]
fn interlaced_and_padded_images() {
    let m = module();
    let mut img = pl(&[NvSciColor_Y16], &[10], &[7]);
    img.scan = NvSciBufScan_InterlaceType;
    let r = reconcile(&[image_list(m, &img, false, &[])]).unwrap();
    // Two fields of ceil(7 / 2) rows of 20 bytes.
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneAlignedHeight),
        Some(vec![4])
    );
    assert_eq!(
        get_u64s(r, NvSciBufImageAttrKey_PlaneSecondFieldOffset),
        Some(vec![80])
    );
    assert_eq!(get_u64(r, NvSciBufImageAttrKey_Size), Some(PAGE));

    let (t, b, l, rt) = ([1u64], [2u64], [3u64], [4u64]);
    let img = pl(&[NvSciColor_A8], &[10], &[5]);
    let pads = [
        pair(NvSciBufImageAttrKey_TopPadding, &t),
        pair(NvSciBufImageAttrKey_BottomPadding, &b),
        pair(NvSciBufImageAttrKey_LeftPadding, &l),
        pair(NvSciBufImageAttrKey_RightPadding, &rt),
    ];
    let r = reconcile(&[image_list(m, &img, false, &pads)]).unwrap();
    assert_eq!(get_u32s(r, NvSciBufImageAttrKey_PlanePitch), Some(vec![17]));
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneAlignedHeight),
        Some(vec![8])
    );
    assert_eq!(get_u64s(r, NvSciBufImageAttrKey_LeftPadding), Some(vec![3]));
}

#[test]
fn image_conflicts_and_missing_keys() {
    let m = module();
    let a = image_list(m, &pl(&[NvSciColor_A8B8G8R8], &[100], &[30]), false, &[]);
    let b = image_list(m, &pl(&[NvSciColor_A8B8G8R8], &[101], &[30]), false, &[]);
    let (rc, c) = reconcile(&[a, b]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(
        get_u32s(c, NvSciBufImageAttrKey_PlaneWidth),
        Some(vec![100])
    );
    assert_eq!(get(c, NvSciBufImageAttrKey_PlaneHeight), None);
    // The base alignments reconcile to the largest.
    let x = image_list(
        m,
        &pl(&[NvSciColor_A8], &[8], &[8]),
        false,
        &[pair(NvSciBufImageAttrKey_PlaneBaseAddrAlign, &[64u32])],
    );
    let y = image_list(
        m,
        &pl(&[NvSciColor_A8], &[8], &[8]),
        false,
        &[pair(NvSciBufImageAttrKey_PlaneBaseAddrAlign, &[512u32])],
    );
    let r = reconcile(&[x, y]).unwrap();
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneBaseAddrAlign),
        Some(vec![512])
    );
    // Missing ScanType, missing width, arrays shorter than PlaneCount, a zero width.
    let ty = [NvSciBufType_Image];
    let (lay, scan, one, two) = (
        NvSciBufImage_PitchLinearType,
        NvSciBufScan_ProgressiveType,
        1u32,
        2u32,
    );
    let fmt = [NvSciColor_Y8];
    let base = |extra: &[NvSciBufAttrKeyValuePair]| {
        let mut p = vec![
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufImageAttrKey_Layout, &lay),
            pair(NvSciBufImageAttrKey_PlaneColorFormat, &fmt),
            pair(NvSciBufImageAttrKey_PlaneHeight, &[4u32]),
        ];
        p.extend_from_slice(extra);
        list_with(m, &p)
    };
    for l in [
        base(&[
            pair(NvSciBufImageAttrKey_PlaneCount, &one),
            pair(NvSciBufImageAttrKey_PlaneWidth, &[4u32]),
        ]),
        base(&[
            pair(NvSciBufImageAttrKey_ScanType, &scan),
            pair(NvSciBufImageAttrKey_PlaneCount, &one),
        ]),
        base(&[
            pair(NvSciBufImageAttrKey_ScanType, &scan),
            pair(NvSciBufImageAttrKey_PlaneCount, &two),
            pair(NvSciBufImageAttrKey_PlaneWidth, &[4u32]),
        ]),
        base(&[
            pair(NvSciBufImageAttrKey_ScanType, &scan),
            pair(NvSciBufImageAttrKey_PlaneCount, &one),
            pair(NvSciBufImageAttrKey_PlaneWidth, &[0u32]),
        ]),
    ] {
        assert_eq!(reconcile(&[l]).unwrap_err(), (BAD, null_mut()));
    }
    // Set-time checks: plane count, image count, colour formats, surface type.
    let l = image_list(m, &pl(&[NvSciColor_A8], &[8], &[8]), false, &[]);
    let c = new_list(m);
    ok(set1(c, NvSciBufGeneralAttrKey_Types, &ty));
    assert_eq!(set1(c, NvSciBufImageAttrKey_PlaneCount, &4u32), BAD);
    assert_eq!(set1(c, NvSciBufImageAttrKey_ImageCount, &2u64), BAD);
    assert_eq!(
        set1(
            c,
            NvSciBufImageAttrKey_PlaneColorFormat,
            &[NvSciColor_UpperBound]
        ),
        BAD
    );
    assert_eq!(
        set1(c, NvSciBufImageAttrKey_SurfType, &NvSciSurfType_RGBA),
        BAD
    );
    assert_eq!(set1(c, NvSciBufImageAttrKey_Layout, &2u32), BAD);
    assert_eq!(
        set1(l, NvSciBufImageAttrKey_PlaneBitsPerPixel, &[8u32]),
        BAD
    );
}

/// A surface-based list.
fn surface_list(
    m: NvSciBufModule,
    mem: NvSciBufSurfMemLayout,
    sample: NvSciBufSurfSampleType,
    bpc: NvSciBufSurfBPC,
    order: NvSciBufSurfComponentOrder,
    extra: &[NvSciBufAttrKeyValuePair],
) -> NvSciBufAttrList {
    let ty = [NvSciBufType_Image];
    let (lay, scan) = (NvSciBufImage_PitchLinearType, NvSciBufScan_ProgressiveType);
    let (w, h) = (64u32, 32u32);
    let st = NvSciSurfType_YUV;
    let mut p = vec![
        pair(NvSciBufGeneralAttrKey_Types, &ty),
        pair(NvSciBufImageAttrKey_Layout, &lay),
        pair(NvSciBufImageAttrKey_ScanType, &scan),
        pair(NvSciBufImageAttrKey_SurfType, &st),
        pair(NvSciBufImageAttrKey_SurfMemLayout, &mem),
        pair(NvSciBufImageAttrKey_SurfSampleType, &sample),
        pair(NvSciBufImageAttrKey_SurfBPC, &bpc),
        pair(NvSciBufImageAttrKey_SurfComponentOrder, &order),
        pair(NvSciBufImageAttrKey_SurfWidthBase, &w),
        pair(NvSciBufImageAttrKey_SurfHeightBase, &h),
    ];
    p.extend_from_slice(extra);
    list_with(m, &p)
}

#[test]
fn surface_images() {
    let m = module();
    let yuv = NvSciSurfComponentOrder_YUV;
    // NV12: Y8 64x32 and V8U8 32x16.
    let r = reconcile(&[surface_list(
        m,
        NvSciSurfMemLayout_SemiPlanar,
        NvSciSurfSampleType_420,
        NvSciSurfBPC_8,
        yuv,
        &[],
    )])
    .unwrap();
    assert_eq!(get_u32(r, NvSciBufImageAttrKey_PlaneCount), Some(2));
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneColorFormat),
        Some(vec![NvSciColor_Y8.0, NvSciColor_V8U8.0])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneWidth),
        Some(vec![64, 32])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneHeight),
        Some(vec![32, 16])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlanePitch),
        Some(vec![64, 64])
    );
    assert_eq!(
        get_u32(r, NvSciBufImageAttrKey_SurfMemLayout),
        Some(NvSciSurfMemLayout_SemiPlanar.0)
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneColorStd),
        Some(vec![NvSciColorStd_REC601_ER.0; 2])
    );
    // Planar 4:2:2, 10 bits, YVU, BT.709: Y10, V10, U10.
    let std = NvSciColorStd_REC709_SR;
    let r = reconcile(&[surface_list(
        m,
        NvSciSurfMemLayout_Planar,
        NvSciSurfSampleType_422,
        NvSciSurfBPC_10,
        NvSciSurfComponentOrder_YVU,
        &[pair(NvSciBufImageAttrKey_SurfColorStd, &std)],
    )])
    .unwrap();
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneColorFormat),
        Some(vec![NvSciColor_Y10.0, NvSciColor_V10.0, NvSciColor_U10.0])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneHeight),
        Some(vec![32; 3])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneWidth),
        Some(vec![64, 32, 32])
    );
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneColorStd),
        Some(vec![std.0; 3])
    );
    // Packed luma-only: one plane.
    let luma = NvSciSurfComponentOrder_Luma;
    let r = reconcile(&[surface_list(
        m,
        NvSciSurfMemLayout_Packed,
        NvSciSurfSampleType_400,
        NvSciSurfBPC_16,
        luma,
        &[],
    )])
    .unwrap();
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneColorFormat),
        Some(vec![NvSciColor_Y16.0])
    );
    // Packed 4:2:0: not supported; luma order with chroma: unsupported value; surface and
    // plane keys together: a conflict.
    let l = surface_list(
        m,
        NvSciSurfMemLayout_Packed,
        NvSciSurfSampleType_420,
        NvSciSurfBPC_8,
        yuv,
        &[],
    );
    assert_eq!(reconcile(&[l]).unwrap_err().0, NvSciError_NotSupported);
    let l = surface_list(
        m,
        NvSciSurfMemLayout_Planar,
        NvSciSurfSampleType_420,
        NvSciSurfBPC_8,
        luma,
        &[],
    );
    assert_eq!(reconcile(&[l]).unwrap_err().0, BAD);
    let l = surface_list(
        m,
        NvSciSurfMemLayout_Planar,
        NvSciSurfSampleType_420,
        NvSciSurfBPC_8,
        yuv,
        &[],
    );
    let p = image_list(m, &pl(&[NvSciColor_Y8], &[64], &[32]), false, &[]);
    let (rc, c) = reconcile(&[l, p]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert!(get(c, NvSciBufImageAttrKey_SurfType).is_some());
}

fn image_tensor_lists(
    m: NvSciBufModule,
    dims: &[u64],
    fmt: NvSciBufAttrValColorFmt,
    dt: NvSciBufAttrValDataType,
    aligns: Option<&[u32]>,
) -> [NvSciBufAttrList; 2] {
    let img = image_list(
        m,
        &pl(&[NvSciColor_A8B8G8R8], &[64], &[16]),
        true,
        &[pair(NvSciBufImageAttrKey_ImageCount, &1u64)],
    );
    let ty = [NvSciBufType_Tensor];
    let nd = dims.len() as u32;
    let mut p = vec![
        pair(NvSciBufGeneralAttrKey_Types, &ty),
        pair(NvSciBufTensorAttrKey_DataType, &dt),
        pair(NvSciBufTensorAttrKey_NumDims, &nd),
        pair(NvSciBufTensorAttrKey_SizePerDim, dims),
        pair(NvSciBufTensorAttrKey_PixelFormat, &fmt),
    ];
    if let Some(a) = aligns {
        p.push(pair(NvSciBufTensorAttrKey_AlignmentPerDim, a));
    }
    [img, list_with(m, &p)]
}

#[test]
fn image_with_tensor() {
    let m = module();
    let abgr = NvSciColor_A8B8G8R8;
    let u8_ = NvSciDataType_Uint8;
    let r = reconcile(&image_tensor_lists(m, &[1, 16, 64, 4], abgr, u8_, None)).unwrap();
    let size = up(256 * 16, PAGE);
    assert_eq!(
        get_u32s(r, NvSciBufGeneralAttrKey_Types),
        Some(vec![NvSciBufType_Image.0, NvSciBufType_Tensor.0])
    );
    assert_eq!(
        get_u64s(r, NvSciBufTensorAttrKey_StridesPerDim),
        Some(vec![size, 256, 4, 1])
    );
    assert_eq!(get_u64(r, NvSciBufTensorAttrKey_Size), Some(size));
    assert_eq!(get_u64(r, NvSciBufImageAttrKey_Size), Some(size));
    // AlignmentPerDim[2] aligns the rows (the W extent).
    let r = reconcile(&image_tensor_lists(
        m,
        &[1, 16, 64, 4],
        abgr,
        u8_,
        Some(&[1, 1, 512, 1]),
    ))
    .unwrap();
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlanePitch),
        Some(vec![512])
    );
    // Mismatched width: a conflict naming the tensor sizes and the plane width.
    let (rc, c) = reconcile(&image_tensor_lists(m, &[1, 16, 63, 4], abgr, u8_, None)).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    // SAFETY: a handle from this library.
    assert_eq!(unsafe { NvSciBufAttrListGetSlotCount(c) }, 2);
    assert_eq!(get_u32s(c, NvSciBufImageAttrKey_PlaneWidth), Some(vec![64]));
    assert!(slot_get(c, 1, NvSciBufTensorAttrKey_SizePerDim).is_some());
    assert!(slot_get(c, 1, NvSciBufImageAttrKey_PlaneWidth).is_none());
    // A data type that is not the format's.
    let lists = image_tensor_lists(m, &[1, 16, 64, 4], abgr, NvSciDataType_Int8, None);
    assert_eq!(
        reconcile(&lists).unwrap_err().0,
        NvSciError_ReconciliationFailed
    );
    // Unsupported for image/tensor: 3 dimensions, another pixel format.
    let lists = image_tensor_lists(m, &[16, 64, 4], abgr, u8_, None);
    assert_eq!(reconcile(&lists).unwrap_err().0, BAD);
    let lists = image_tensor_lists(m, &[1, 16, 64, 1], NvSciColor_Y8, u8_, None);
    assert_eq!(reconcile(&lists).unwrap_err().0, BAD);
    // Without ImageCount (mandatory for image/tensor).
    let [_, t] = image_tensor_lists(m, &[1, 16, 64, 4], abgr, u8_, None);
    let img = image_list(m, &pl(&[NvSciColor_A8B8G8R8], &[64], &[16]), false, &[]);
    assert_eq!(reconcile(&[img, t]).unwrap_err().0, BAD);
    // Any other mix of types is a conflict on Types.
    let raw = raw_list(m, 64, None, false, NvSciBufAccessPerm_ReadWrite);
    let (rc, c) = reconcile(&[img, raw]).unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert!(get(c, NvSciBufGeneralAttrKey_Types).is_some());
}

#[test]
fn arrays() {
    let m = module();
    let ty = [NvSciBufType_Array];
    let array = |dt: NvSciBufAttrValDataType, stride: u64, cap: Option<u64>| {
        let mut p = vec![
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufArrayAttrKey_DataType, &dt),
            pair(NvSciBufArrayAttrKey_Stride, &stride),
        ];
        let c;
        if let Some(x) = cap {
            c = x;
            p.push(pair(NvSciBufArrayAttrKey_Capacity, &c));
        }
        list_with(m, &p)
    };
    let r = reconcile(&[array(NvSciDataType_Uint16, 6, Some(100))]).unwrap();
    assert_eq!(get_u64(r, NvSciBufArrayAttrKey_Size), Some(600));
    assert_eq!(get_u64(r, NvSciBufArrayAttrKey_Alignment), Some(PAGE));
    assert_eq!(memory(alloc(r)).1, PAGE);
    let same = array(NvSciDataType_Uint16, 6, Some(100));
    assert_eq!(validate(r, &[same]), NvSciError_Success);
    let more = array(NvSciDataType_Uint16, 6, Some(101));
    assert_eq!(validate(r, &[more]), NvSciError_ReconciliationFailed);
    // Stride smaller than one element; no capacity; capacities that differ.
    assert_eq!(
        reconcile(&[array(NvSciDataType_Uint16, 1, Some(10))])
            .unwrap_err()
            .0,
        BAD
    );
    assert_eq!(
        reconcile(&[array(NvSciDataType_Uint16, 2, None)])
            .unwrap_err()
            .0,
        BAD
    );
    let (rc, c) = reconcile(&[
        array(NvSciDataType_Bool, 1, Some(1)),
        array(NvSciDataType_Bool, 1, Some(2)),
    ])
    .unwrap_err();
    assert_eq!(rc, NvSciError_ReconciliationFailed);
    assert_eq!(get_u64(c, NvSciBufArrayAttrKey_Capacity), Some(1));
    // Overflow.
    let big = array(NvSciDataType_Uint8, u64::MAX, Some(2));
    assert_eq!(reconcile(&[big]).unwrap_err().0, NvSciError_Overflow);
}

#[test]
fn pyramids() {
    let m = module();
    let ty = [NvSciBufType_Pyramid];
    let (lay, scan, count) = (
        NvSciBufImage_PitchLinearType,
        NvSciBufScan_ProgressiveType,
        1u32,
    );
    let (levels, scale) = (3u32, 0.5f32);
    let pyramid = |with_scale: bool| {
        let mut p = vec![
            pair(NvSciBufGeneralAttrKey_Types, &ty),
            pair(NvSciBufImageAttrKey_Layout, &lay),
            pair(NvSciBufImageAttrKey_ScanType, &scan),
            pair(NvSciBufImageAttrKey_PlaneCount, &count),
            pair(NvSciBufImageAttrKey_PlaneColorFormat, &[NvSciColor_Y8]),
            pair(NvSciBufImageAttrKey_PlaneWidth, &[100u32]),
            pair(NvSciBufImageAttrKey_PlaneHeight, &[50u32]),
            pair(NvSciBufPyramidAttrKey_NumLevels, &levels),
        ];
        if with_scale {
            p.push(pair(NvSciBufPyramidAttrKey_Scale, &scale));
        }
        list_with(m, &p)
    };
    let r = reconcile(&[pyramid(true)]).unwrap();
    // Levels 100x50, 50x25, 25x12 of Y8: 5000, 1250, 300 bytes, each in whole pages.
    assert_eq!(
        get_u64s(r, NvSciBufPyramidAttrKey_LevelSize),
        Some(vec![8192, 4096, 4096])
    );
    assert_eq!(
        get_u64s(r, NvSciBufPyramidAttrKey_LevelOffset),
        Some(vec![0, 8192, 12288])
    );
    assert_eq!(get_u64(r, NvSciBufPyramidAttrKey_Alignment), Some(PAGE));
    assert_eq!(
        get_u32s(r, NvSciBufImageAttrKey_PlaneWidth),
        Some(vec![100])
    );
    assert_eq!(memory(alloc(r)).1, 16384);
    assert_eq!(validate(r, &[pyramid(true)]), NvSciError_Success);
    assert_eq!(reconcile(&[pyramid(false)]).unwrap_err().0, BAD);
    let c = new_list(m);
    ok(set1(c, NvSciBufGeneralAttrKey_Types, &ty));
    assert_eq!(set1(c, NvSciBufPyramidAttrKey_NumLevels, &11u32), BAD);
    assert_eq!(set1(c, NvSciBufPyramidAttrKey_Scale, &0.0f32), BAD);
}

// ---------------------------------------------------------------------------------------
// Pixels
// ---------------------------------------------------------------------------------------

fn get_pixels(
    o: NvSciBufObj,
    rect: Option<&NvSciBufRect>,
    planes: &mut [&mut [u8]],
    pitches: &[u32],
) -> NvSciError {
    let mut ptrs: Vec<*mut c_void> = planes.iter_mut().map(|p| p.as_mut_ptr().cast()).collect();
    let sizes: Vec<u32> = planes.iter().map(|p| p.len() as u32).collect();
    let rect = rect.map_or(null(), |r| r as *const NvSciBufRect);
    // SAFETY: every plane is a live, writable, distinct slice of `sizes[i]` bytes.
    unsafe { NvSciBufObjGetPixels(o, rect, ptrs.as_mut_ptr(), sizes.as_ptr(), pitches.as_ptr()) }
}

fn put_pixels(
    o: NvSciBufObj,
    rect: Option<&NvSciBufRect>,
    planes: &[&[u8]],
    pitches: &[u32],
) -> NvSciError {
    let mut ptrs: Vec<*const c_void> = planes.iter().map(|p| p.as_ptr().cast()).collect();
    let sizes: Vec<u32> = planes.iter().map(|p| p.len() as u32).collect();
    let rect = rect.map_or(null(), |r| r as *const NvSciBufRect);
    // SAFETY: every plane is a live slice of `sizes[i]` bytes.
    unsafe { NvSciBufObjPutPixels(o, rect, ptrs.as_mut_ptr(), sizes.as_ptr(), pitches.as_ptr()) }
}

fn cpu(o: NvSciBufObj) -> *mut u8 {
    let mut p = null_mut();
    // SAFETY: a local.
    ok(unsafe { NvSciBufObjGetCpuPtr(o, &mut p) });
    p.cast()
}

#[test]
fn put_and_get_pixels_follow_the_reconciled_pitch() {
    let m = module();
    // 5x3 A8B8G8R8 with two columns of left padding: pitch (2 + 5) * 4 = 28 bytes.
    let pad = [2u64];
    let l = image_list(
        m,
        &pl(&[NvSciColor_A8B8G8R8], &[5], &[3]),
        true,
        &[pair(NvSciBufImageAttrKey_LeftPadding, &pad)],
    );
    let o = alloc(reconcile(&[l]).unwrap());
    assert_eq!(
        get_u32s(obj_list(o), NvSciBufImageAttrKey_PlanePitch),
        Some(vec![28])
    );
    // The caller's plane: pitch 24 (20 bytes of pixels, 4 spare), pixel (x, y) = 10y + x.
    let mut src = vec![0xEEu8; 24 * 3];
    for y in 0..3 {
        for x in 0..5 {
            src[y * 24 + x * 4..][..4].fill((10 * y + x) as u8);
        }
    }
    ok(put_pixels(o, None, &[&src], &[24]));
    let base = cpu(o);
    for y in 0..3usize {
        for x in 0..5usize {
            // SAFETY: inside the image (28 · 3 bytes).
            let b = unsafe { base.add(y * 28 + (2 + x) * 4).read() };
            assert_eq!(b, (10 * y + x) as u8, "({x}, {y})");
        }
        // SAFETY: the padding bytes of row y are inside the image.
        assert_eq!(unsafe { base.add(y * 28).read() }, 0, "padding untouched");
    }
    // Back out with another pitch.
    let mut dst = vec![0u8; 32 * 3];
    ok(get_pixels(o, None, &mut [&mut dst], &[32]));
    for y in 0..3 {
        assert_eq!(dst[y * 32..][..20], src[y * 24..][..20]);
        assert!(dst[y * 32 + 20..][..12].iter().all(|b| *b == 0));
    }
    // A rectangle: columns 1..3, rows 1..3.
    let rect = NvSciBufRect {
        x0: 1,
        y0: 1,
        x1: 3,
        y1: 3,
    };
    let mut part = vec![0u8; 8 * 2];
    ok(get_pixels(o, Some(&rect), &mut [&mut part], &[8]));
    assert_eq!(part[..4], [11; 4]);
    assert_eq!(part[4..8], [12; 4]);
    assert_eq!(part[8..12], [21; 4]);
    ok(put_pixels(o, Some(&rect), &[&[99u8; 16]], &[8]));
    // SAFETY: pixel (1, 1) and (0, 1) are inside the image.
    unsafe {
        assert_eq!(base.add(28 + 3 * 4).read(), 99);
        assert_eq!(base.add(28 + 2 * 4).read(), 10);
    }
}

#[test]
fn multi_plane_pixels() {
    let m = module();
    let img = pl(&[NvSciColor_Y8, NvSciColor_V8U8], &[4, 2], &[2, 1]);
    let o = alloc(reconcile(&[image_list(m, &img, true, &[])]).unwrap());
    let y: Vec<u8> = (1..=8).collect();
    let uv: Vec<u8> = (101..=104).collect();
    ok(put_pixels(o, None, &[&y, &uv], &[4, 4]));
    let off = get_u64s(obj_list(o), NvSciBufImageAttrKey_PlaneOffset).unwrap();
    assert_eq!(off[1], PAGE);
    let base = cpu(o);
    // SAFETY: plane 1 starts at `off[1]`, inside the buffer.
    assert_eq!(unsafe { base.add(off[1] as usize + 3).read() }, 104);
    let (mut y2, mut uv2) = (vec![0u8; 8], vec![0u8; 4]);
    ok(get_pixels(o, None, &mut [&mut y2, &mut uv2], &[4, 4]));
    assert_eq!((y2, uv2), (y, uv));
}

#[test]
fn pixel_errors() {
    let m = module();
    let img = pl(&[NvSciColor_A8B8G8R8], &[4], &[2]);
    let o = alloc(reconcile(&[image_list(m, &img, true, &[])]).unwrap());
    let mut buf = vec![0u8; 64];
    let mut other = vec![0u8; 64];
    let r = |x0, y0, x1, y1| NvSciBufRect { x0, y0, x1, y1 };
    // Rectangles outside or reversed; a pitch below the row; a size below pitch × rows; a
    // zero pitch or size.
    for (rect, pitch, size) in [
        (Some(r(0, 0, 5, 1)), 32, 64),
        (Some(r(0, 0, 1, 3)), 32, 64),
        (Some(r(2, 0, 1, 1)), 32, 64),
        (Some(r(0, 2, 1, 1)), 32, 64),
        (None, 15, 64),
        (None, 32, 63),
        (None, 0, 64),
        (None, 16, 0),
    ] {
        assert_eq!(
            get_pixels(o, rect.as_ref(), &mut [&mut buf[..size]], &[pitch]),
            BAD
        );
    }
    // An empty rectangle copies nothing.
    ok(get_pixels(o, Some(&r(1, 1, 1, 1)), &mut [&mut buf], &[16]));
    // SAFETY: NULL arrays and planes, overlaps, bad handles are checked by the library.
    unsafe {
        let sizes = [64u32];
        let pitches = [16u32];
        let mut ptrs = [buf.as_mut_ptr().cast::<c_void>()];
        assert_eq!(
            NvSciBufObjGetPixels(o, null(), null_mut(), sizes.as_ptr(), pitches.as_ptr()),
            BAD
        );
        assert_eq!(
            NvSciBufObjGetPixels(o, null(), ptrs.as_mut_ptr(), null(), pitches.as_ptr()),
            BAD
        );
        assert_eq!(
            NvSciBufObjGetPixels(o, null(), ptrs.as_mut_ptr(), sizes.as_ptr(), null()),
            BAD
        );
        assert_eq!(
            NvSciBufObjGetPixels(
                bogus(),
                null(),
                ptrs.as_mut_ptr(),
                sizes.as_ptr(),
                pitches.as_ptr()
            ),
            BAD
        );
        let mut nul = [null_mut::<c_void>()];
        assert_eq!(
            NvSciBufObjGetPixels(
                o,
                null(),
                nul.as_mut_ptr(),
                sizes.as_ptr(),
                pitches.as_ptr()
            ),
            BAD
        );
        // The caller's plane inside the buffer itself.
        let mut inside = [cpu(o).cast::<c_void>()];
        assert_eq!(
            NvSciBufObjGetPixels(
                o,
                null(),
                inside.as_mut_ptr(),
                sizes.as_ptr(),
                pitches.as_ptr()
            ),
            BAD
        );
    }
    // Overlapping caller planes.
    let img2 = pl(&[NvSciColor_Y8, NvSciColor_Y8], &[4, 4], &[2, 2]);
    let o2 = alloc(reconcile(&[image_list(m, &img2, true, &[])]).unwrap());
    let (a, b) = other.split_at_mut(8);
    ok(get_pixels(o2, None, &mut [a, &mut b[..8]], &[4, 4]));
    // SAFETY: two views of one live buffer, overlapping: the library refuses before writing.
    unsafe {
        let p = other.as_mut_ptr().cast::<c_void>();
        let mut ptrs = [p, p.cast::<u8>().add(4).cast()];
        assert_eq!(
            NvSciBufObjGetPixels(
                o2,
                null(),
                ptrs.as_mut_ptr(),
                [8u32, 8].as_ptr(),
                [4u32, 4].as_ptr()
            ),
            BAD
        );
    }
    // Not an image; no CPU access; a read-only handle may get but not put.
    let raw =
        alloc(reconcile(&[raw_list(m, 64, None, true, NvSciBufAccessPerm_ReadWrite)]).unwrap());
    assert_eq!(get_pixels(raw, None, &mut [&mut buf], &[16]), BAD);
    let nocpu = alloc(reconcile(&[image_list(m, &img, false, &[])]).unwrap());
    assert_eq!(get_pixels(nocpu, None, &mut [&mut buf], &[16]), BAD);
    let mut ro = null_mut();
    // SAFETY: a local.
    ok(unsafe { NvSciBufObjDupWithReducePerm(o, NvSciBufAccessPerm_Readonly, &mut ro) });
    ok(get_pixels(ro, None, &mut [&mut buf], &[16]));
    assert_eq!(put_pixels(ro, None, &[&buf], &[16]), BAD);
    ok(put_pixels(o, None, &[&buf], &[16]));
    // Block-linear and interlaced images: not understood.
    let mut bl = pl(&[NvSciColor_A8B8G8R8], &[4], &[2]);
    bl.layout = NvSciBufImage_BlockLinearType;
    let ob = alloc(reconcile(&[image_list(m, &bl, true, &[])]).unwrap());
    assert_eq!(
        get_pixels(ob, None, &mut [&mut buf], &[16]),
        NvSciError_NotSupported
    );
    let mut il = pl(&[NvSciColor_A8B8G8R8], &[4], &[2]);
    il.scan = NvSciBufScan_InterlaceType;
    let oi = alloc(reconcile(&[image_list(m, &il, true, &[])]).unwrap());
    assert_eq!(
        get_pixels(oi, None, &mut [&mut buf], &[16]),
        NvSciError_NotSupported
    );
    // A rectangle on a YUV surface.
    let cpu_ = true;
    let l = surface_list(
        m,
        NvSciSurfMemLayout_Packed,
        NvSciSurfSampleType_400,
        NvSciSurfBPC_8,
        NvSciSurfComponentOrder_Luma,
        &[pair(NvSciBufGeneralAttrKey_NeedCpuAccess, &cpu_)],
    );
    let os = alloc(reconcile(&[l]).unwrap());
    let mut luma = vec![0u8; 64 * 32];
    ok(get_pixels(os, None, &mut [&mut luma], &[64]));
    assert_eq!(
        get_pixels(os, Some(&r(0, 0, 1, 1)), &mut [&mut luma], &[64]),
        BAD
    );
}

fn validate(r: NvSciBufAttrList, lists: &[NvSciBufAttrList]) -> NvSciError {
    let mut v = false;
    // SAFETY: locals and a live slice.
    let rc = unsafe { NvSciBufAttrListValidateReconciled(r, lists.as_ptr(), lists.len(), &mut v) };
    assert_eq!(v, rc == NvSciError_Success);
    rc
}

#[test]
fn every_type_validates_against_its_own_inputs() {
    let m = module();
    let failed = NvSciError_ReconciliationFailed;
    let t = true;
    let gpu = [NvSciRmGpuId { bytes: [7; 16] }];
    let cache = [NvSciBufAttrValGpuCache {
        gpuId: gpu[0],
        cacheability: false,
    }];
    let with_gpu = [
        pair(NvSciBufGeneralAttrKey_GpuId, &gpu),
        pair(NvSciBufGeneralAttrKey_EnableGpuCache, &cache),
        pair(NvSciBufImageAttrKey_VprFlag, &t),
    ];
    let plane = image_list(
        m,
        &pl(&[NvSciColor_Y8, NvSciColor_V8U8], &[64, 32], &[32, 16]),
        true,
        &with_gpu,
    );
    let surface = surface_list(
        m,
        NvSciSurfMemLayout_SemiPlanar,
        NvSciSurfSampleType_420,
        NvSciSurfBPC_8,
        NvSciSurfComponentOrder_YUV,
        &[],
    );
    let it = image_tensor_lists(
        m,
        &[1, 16, 64, 4],
        NvSciColor_A8B8G8R8,
        NvSciDataType_Uint8,
        Some(&[1, 1, 64, 1]),
    );
    let tensor = tensor_list(m, NvSciDataType_Float16, &[2, 3, 5], &[1, 8, 2], 256);
    let raw = raw_list(m, 100, Some(64), true, NvSciBufAccessPerm_Readonly);
    for inputs in [
        vec![plane],
        vec![surface],
        it.to_vec(),
        vec![tensor],
        vec![raw],
    ] {
        let r = reconcile(&inputs).unwrap();
        assert_eq!(validate(r, &inputs), NvSciError_Success);
        // The object's list (ActualPerm ReadWrite) satisfies them too.
        assert_eq!(validate(obj_list(alloc(r)), &inputs), NvSciError_Success);
    }
    let r = reconcile(&[plane]).unwrap();
    assert_eq!(get_bool(r, NvSciBufImageAttrKey_VprFlag), Some(true));
    // Another plane width; VPR asked where the reconciled list has none.
    let narrow = image_list(
        m,
        &pl(&[NvSciColor_Y8, NvSciColor_V8U8], &[63, 32], &[32, 16]),
        true,
        &[],
    );
    assert_eq!(validate(r, &[narrow]), failed);
    let r_novpr =
        reconcile(&[image_list(m, &pl(&[NvSciColor_Y8], &[8], &[8]), false, &[])]).unwrap();
    let vpr = image_list(
        m,
        &pl(&[NvSciColor_Y8], &[8], &[8]),
        false,
        &[pair(NvSciBufImageAttrKey_VprFlag, &t)],
    );
    assert_eq!(validate(r_novpr, &[vpr]), failed);
    // An image/tensor list asking a larger row alignment than the reconciled pitch has.
    let r = reconcile(&it).unwrap();
    let wider = image_tensor_lists(
        m,
        &[1, 16, 64, 4],
        NvSciColor_A8B8G8R8,
        NvSciDataType_Uint8,
        Some(&[1, 1, 1024, 1]),
    );
    assert_eq!(validate(r, &wider[1..]), failed);
}
