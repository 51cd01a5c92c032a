//! Image, image/tensor and pyramid reconciliation, and the plane layout that
//! `NvSciBufObjGetPixels`/`NvSciBufObjPutPixels` follow.
//!
//! Plane layout (nvscibuf.h `PlanePitch`, `PlaneAlignedHeight`, `PlaneAlignedSize`,
//! `Size`, `Alignment`; the SIL has no hardware engine, so no engine adds pitch, height or
//! size alignment): `pitch = ceil((left + width + right) · bpp / 8)`, `aligned height =
//! top + height + bottom` (half of it, rounded up, when interlaced), `plane size = pitch ·
//! aligned height` (× 2 fields when interlaced) rounded up to the largest plane base
//! alignment, so that every plane, placed right after the previous one, starts aligned;
//! `Size` = the sum of the plane sizes. Block-linear images get the same numbers (the
//! block-linear tiling is not public). Choices: `sil/README.md`, "NvSciBuf", "Images".

use nvsci_sys::*;

use crate::attr::{MAX_PLANES, PAGE, Recon, align_up};
use crate::color;
use crate::keys::{self, Mask, bit};
use crate::list::{Slot, Value};

/// The input description of one plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlaneIn {
    /// `NvSciBufAttrValColorFmt` value.
    pub fmt: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Top, bottom, left, right padding in pixels.
    pub pad: [u64; 4],
    /// Base address alignment.
    pub align: u32,
    /// `NvSciBufAttrValColorStd` value.
    pub std: u32,
}

/// The computed layout of one plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlaneOut {
    /// Bits per pixel.
    pub bpp: u32,
    /// Bytes per row.
    pub pitch: u32,
    /// Rows per field.
    pub aligned_height: u32,
    /// Bytes of the plane, padded.
    pub aligned_size: u64,
    /// Byte offset from the first plane.
    pub offset: u64,
    /// Byte offset of the second field (0 when progressive).
    pub second_field: u64,
}

/// The layout of an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ImageLayout {
    /// Per plane.
    pub planes: Vec<PlaneOut>,
    /// Bytes of the image.
    pub size: u64,
    /// Alignment every plane start satisfies (the largest plane base alignment).
    pub align: u64,
}

/// Lays the planes out; `pitch_align`/`size_align` are extra constraints (1 for none).
/// `None` on arithmetic overflow or an unknown format.
pub(crate) fn layout(
    planes: &[PlaneIn],
    interlaced: bool,
    pitch_align: u64,
    size_align: u64,
) -> Option<ImageLayout> {
    let group = planes
        .iter()
        .map(|p| u64::from(p.align))
        .max()
        .unwrap_or(1)
        .max(size_align);
    let fields = if interlaced { 2 } else { 1 };
    let mut out = Vec::with_capacity(planes.len());
    let mut offset = 0u64;
    for p in planes {
        let bpp = color::info(p.fmt)?.bpp;
        let [top, bottom, left, right] = p.pad;
        let w = left.checked_add(u64::from(p.width))?.checked_add(right)?;
        let h = top.checked_add(u64::from(p.height))?.checked_add(bottom)?;
        let pitch = align_up(w.checked_mul(u64::from(bpp))?.div_ceil(8), pitch_align)?;
        let aligned_height = h.div_ceil(fields);
        let field = pitch.checked_mul(aligned_height)?;
        let aligned_size = align_up(field.checked_mul(fields)?, group)?;
        out.push(PlaneOut {
            bpp,
            pitch: u32::try_from(pitch).ok()?,
            aligned_height: u32::try_from(aligned_height).ok()?,
            aligned_size,
            offset,
            second_field: if interlaced { field } else { 0 },
        });
        offset = offset.checked_add(aligned_size)?;
    }
    Some(ImageLayout {
        planes: out,
        size: offset,
        align: group,
    })
}

/// The image description shared by the image, image/tensor and pyramid types.
struct Desc {
    scan: Value,
    planes: Vec<PlaneIn>,
}

/// Defaults an image/tensor reconciliation takes from the tensor keys.
#[derive(Clone, Copy)]
struct TensorDefaults {
    fmt: u32,
    width: u32,
    height: u32,
}

/// The default colour standard of a plane (the header: "implementation chosen").
fn default_std(fmt: u32) -> u32 {
    if color::is_yuv(fmt) {
        NvSciColorStd_REC601_ER.0
    } else {
        NvSciColorStd_SRGB.0
    }
}

/// The keys of `mask` set in some input.
fn set_in(r: &Recon<'_>, list: &[usize]) -> Mask {
    list.iter()
        .filter(|&&k| r.is_set(k))
        .fold(0, |m, &k| m | bit(k))
}

/// Reads the image keys; writes the input/output image keys to the reconciled slot.
fn describe(r: &mut Recon<'_>, tensor: Option<TensorDefaults>) -> Option<Desc> {
    let surf = set_in(r, &keys::SURF_KEYS);
    let plane = set_in(r, &keys::PLANE_KEYS);
    if surf != 0 && plane != 0 {
        // Surface and plane keys are mutually exclusive (nvscibuf.h `SurfType` note).
        r.conflict(surf | plane);
        return None;
    }
    let layout = r.mandatory(keys::IMG_LAYOUT);
    let scan = r.mandatory(keys::IMG_SCAN);
    let count = if tensor.is_some() {
        r.mandatory(keys::IMG_COUNT)
    } else {
        r.agreed(keys::IMG_COUNT).or(Some(Value::from_u64(1)))
    };
    let vpr = r.any(keys::IMG_VPR);
    let planes = if surf != 0 {
        if tensor.is_some() {
            r.refuse(NvSciError_BadParameter);
            return None;
        }
        surface(r)?
    } else {
        planes(r, tensor)?
    };
    let (layout, scan, count) = (layout?, scan?, count?);
    let n = planes.len();
    let col = |f: fn(&PlaneIn) -> u32| -> Vec<u32> { planes.iter().map(f).collect() };
    r.out.put(keys::IMG_LAYOUT, layout);
    r.out.put(keys::IMG_SCAN, scan.clone());
    r.out.put(keys::IMG_COUNT, count);
    r.out.put(keys::IMG_VPR, Value::from_bool(vpr));
    r.out.put(keys::IMG_PLANE_COUNT, Value::from_u32(n as u32));
    r.out
        .put(keys::IMG_COLOR_FMT, Value::from_u32s(&col(|p| p.fmt)));
    r.out
        .put(keys::IMG_COLOR_STD, Value::from_u32s(&col(|p| p.std)));
    r.out
        .put(keys::IMG_BASE_ALIGN, Value::from_u32s(&col(|p| p.align)));
    r.out
        .put(keys::IMG_WIDTH, Value::from_u32s(&col(|p| p.width)));
    r.out
        .put(keys::IMG_HEIGHT, Value::from_u32s(&col(|p| p.height)));
    let pads = [
        keys::IMG_TOP_PAD,
        keys::IMG_BOTTOM_PAD,
        keys::IMG_LEFT_PAD,
        keys::IMG_RIGHT_PAD,
    ];
    for (i, k) in pads.into_iter().enumerate() {
        let v: Vec<u64> = planes.iter().map(|p| p.pad[i]).collect();
        r.out.put(k, Value::from_u64s(&v));
    }
    Some(Desc { scan, planes })
}

/// Plane-based description: `PlaneCount`, `PlaneColorFormat`, `PlaneWidth`,
/// `PlaneHeight` mandatory and equal everywhere (image/tensor: taken from the tensor when
/// unset); `PlaneColorStd` and the paddings equal where set; `PlaneBaseAddrAlign` the
/// largest per plane, the page size by default.
fn planes(r: &mut Recon<'_>, tensor: Option<TensorDefaults>) -> Option<Vec<PlaneIn>> {
    let bad = NvSciError_BadParameter;
    let count = match (r.agreed(keys::IMG_PLANE_COUNT), tensor) {
        (Some(v), Some(_)) if v.as_u32() != 1 => {
            // Image/tensor: one plane only (nvscibuf.h `PlaneCount`).
            r.refuse(bad);
            return None;
        }
        (Some(v), _) => v.as_u32() as usize,
        (None, Some(_)) if !r.is_set(keys::IMG_PLANE_COUNT) => 1,
        (None, Some(_)) => return None,
        (None, None) => {
            r.mandatory(keys::IMG_PLANE_COUNT);
            return None;
        }
    };
    let arr = |r: &mut Recon<'_>, k: usize, default: Option<u32>| -> Option<Vec<u32>> {
        match (r.agreed(k), default) {
            (Some(v), _) => {
                let a: Vec<u32> = v.u32s().collect();
                if a.len() < count {
                    r.refuse(bad);
                    return None;
                }
                Some(a[..count].to_vec())
            }
            (None, Some(d)) if !r.is_set(k) => Some(vec![d; count]),
            (None, _) => {
                r.mandatory(k);
                None
            }
        }
    };
    let fmts = arr(r, keys::IMG_COLOR_FMT, tensor.map(|t| t.fmt));
    let widths = arr(r, keys::IMG_WIDTH, tensor.map(|t| t.width));
    let heights = arr(r, keys::IMG_HEIGHT, tensor.map(|t| t.height));
    let stds = if r.is_set(keys::IMG_COLOR_STD) {
        arr(r, keys::IMG_COLOR_STD, None)
    } else {
        fmts.as_ref()
            .map(|f| f.iter().map(|&x| default_std(x)).collect())
    };
    let mut pads = [[0u64; MAX_PLANES]; 4];
    let pad_keys = [
        keys::IMG_TOP_PAD,
        keys::IMG_BOTTOM_PAD,
        keys::IMG_LEFT_PAD,
        keys::IMG_RIGHT_PAD,
    ];
    for (i, k) in pad_keys.into_iter().enumerate() {
        if let Some(v) = r.agreed(k) {
            if tensor.is_some() {
                // No padding in image/tensor reconciliation (nvscibuf.h paddings).
                r.refuse(bad);
                return None;
            }
            let a: Vec<u64> = v.u64s().collect();
            if a.len() < count {
                r.refuse(bad);
                return None;
            }
            pads[i][..count].copy_from_slice(&a[..count]);
        }
    }
    let aligns = r.max_u32s(keys::IMG_BASE_ALIGN, count, PAGE as u32);
    let (fmts, widths, heights, stds) = (fmts?, widths?, heights?, stds?);
    if widths.contains(&0) || heights.contains(&0) {
        r.refuse(bad);
        return None;
    }
    Some(
        (0..count)
            .map(|i| PlaneIn {
                fmt: fmts[i],
                width: widths[i],
                height: heights[i],
                pad: [pads[0][i], pads[1][i], pads[2][i], pads[3][i]],
                align: aligns[i],
                std: stds[i],
            })
            .collect(),
    )
}

/// Surface-based description: every surface key but `SurfColorStd` mandatory, all equal
/// everywhere, turned into planes (`sil/README.md`, "Images").
fn surface(r: &mut Recon<'_>) -> Option<Vec<PlaneIn>> {
    let ty = r.mandatory(keys::SURF_TYPE);
    let mem = r.mandatory(keys::SURF_MEM_LAYOUT);
    let sample = r.mandatory(keys::SURF_SAMPLE);
    let bpc = r.mandatory(keys::SURF_BPC);
    let order = r.mandatory(keys::SURF_ORDER);
    let w = r.mandatory(keys::SURF_WIDTH);
    let h = r.mandatory(keys::SURF_HEIGHT);
    let cstd = r.agreed(keys::SURF_COLOR_STD);
    let (ty, mem, sample, bpc, order, w, h) = (ty?, mem?, sample?, bpc?, order?, w?, h?);
    for (k, v) in [
        (keys::SURF_TYPE, &ty),
        (keys::SURF_MEM_LAYOUT, &mem),
        (keys::SURF_SAMPLE, &sample),
        (keys::SURF_BPC, &bpc),
        (keys::SURF_ORDER, &order),
        (keys::SURF_WIDTH, &w),
        (keys::SURF_HEIGHT, &h),
    ] {
        r.out.put(k, v.clone());
    }
    if let Some(v) = &cstd {
        r.out.put(keys::SURF_COLOR_STD, v.clone());
    }
    let (width, height) = (w.as_u32(), h.as_u32());
    let (mem, sample, order) = (mem.as_u32(), sample.as_u32(), order.as_u32());
    let luma_only = sample == NvSciSurfSampleType_400.0;
    if width == 0 || height == 0 || (order == NvSciSurfComponentOrder_Luma.0) != luma_only {
        r.refuse(NvSciError_BadParameter);
        return None;
    }
    if mem == NvSciSurfMemLayout_Packed.0 && !luma_only {
        // The header: packed surfaces reconcile for YUV 400 only.
        r.refuse(NvSciError_NotSupported);
        return None;
    }
    // Luma format and chroma bits per component.
    let (luma, chroma_bits) = match bpc.as_u32() {
        v if v == NvSciSurfBPC_Layout_16_8_8.0 => (NvSciColor_Y16, 8),
        v if v == NvSciSurfBPC_Layout_10_8_8.0 => (NvSciColor_Y10, 8),
        v if v == NvSciSurfBPC_8.0 => (NvSciColor_Y8, 8),
        v if v == NvSciSurfBPC_10.0 => (NvSciColor_Y10, 10),
        v if v == NvSciSurfBPC_12.0 => (NvSciColor_Y12, 12),
        // 14 bits behave as 16 (the header's `NvSciSurfBPC_14` note).
        _ => (NvSciColor_Y16, 16),
    };
    let std = cstd.map_or(NvSciColorStd_REC601_ER.0, |v| v.as_u32());
    let plane = |fmt: NvSciBufAttrValColorFmt, width: u32, height: u32| PlaneIn {
        fmt: fmt.0,
        width,
        height,
        pad: [0; 4],
        align: PAGE as u32,
        std,
    };
    let mut out = vec![plane(luma, width, height)];
    if luma_only {
        return Some(out);
    }
    let (cw, ch) = match sample {
        v if v == NvSciSurfSampleType_420.0 => (width.div_ceil(2), height.div_ceil(2)),
        v if v == NvSciSurfSampleType_422.0 => (width.div_ceil(2), height),
        v if v == NvSciSurfSampleType_422R.0 => (width, height.div_ceil(2)),
        _ => (width, height),
    };
    let yvu = order == NvSciSurfComponentOrder_YVU.0;
    if mem == NvSciSurfMemLayout_SemiPlanar.0 {
        // U in the low bits (NV12) is V8U8 in the header's bit drawings; YVU swaps.
        let (uv, vu) = match chroma_bits {
            8 => (NvSciColor_V8U8, NvSciColor_U8V8),
            10 => (NvSciColor_V10U10, NvSciColor_U10V10),
            12 => (NvSciColor_V12U12, NvSciColor_U12V12),
            _ => (NvSciColor_V16U16, NvSciColor_U16V16),
        };
        out.push(plane(if yvu { vu } else { uv }, cw, ch));
    } else {
        let (u, v) = match chroma_bits {
            8 => (NvSciColor_U8, NvSciColor_V8),
            10 => (NvSciColor_U10, NvSciColor_V10),
            12 => (NvSciColor_U12, NvSciColor_V12),
            _ => (NvSciColor_U16, NvSciColor_V16),
        };
        let (a, b) = if yvu { (v, u) } else { (u, v) };
        out.push(plane(a, cw, ch));
        out.push(plane(b, cw, ch));
    }
    Some(out)
}

/// Writes the output keys of a layout.
fn put_layout(out: &mut Slot, planes: &[PlaneIn], lay: &ImageLayout) {
    let p = &lay.planes;
    let u32s = |f: fn(&PlaneOut) -> u32| -> Value {
        Value::from_u32s(&p.iter().map(f).collect::<Vec<_>>())
    };
    let u64s = |f: fn(&PlaneOut) -> u64| -> Value {
        Value::from_u64s(&p.iter().map(f).collect::<Vec<_>>())
    };
    out.put(keys::IMG_BPP, u32s(|x| x.bpp));
    out.put(keys::IMG_OFFSET, u64s(|x| x.offset));
    out.put(keys::IMG_SECOND_FIELD, u64s(|x| x.second_field));
    out.put(keys::IMG_PITCH, u32s(|x| x.pitch));
    out.put(keys::IMG_ALIGNED_HEIGHT, u32s(|x| x.aligned_height));
    out.put(keys::IMG_ALIGNED_SIZE, u64s(|x| x.aligned_size));
    let info: Vec<color::FmtInfo> = planes.iter().filter_map(|q| color::info(q.fmt)).collect();
    let dts: Vec<u32> = info.iter().map(|i| i.datatype.0).collect();
    let chans: Vec<u8> = info.iter().map(|i| i.channels).collect();
    out.put(keys::IMG_DATATYPE, Value::from_u32s(&dts));
    out.put(keys::IMG_CHANNELS, Value::from_bytes(&chans));
    out.put(keys::IMG_SIZE, Value::from_u64(lay.size));
    let first = planes.first().map_or(PAGE, |q| u64::from(q.align));
    out.put(keys::IMG_ALIGNMENT, Value::from_u64(first));
}

fn interlaced(d: &Desc) -> bool {
    d.scan.as_u32() == NvSciBufScan_InterlaceType.0
}

/// Image only. Returns (size, alignment).
pub(crate) fn image(r: &mut Recon<'_>) -> (u64, u64) {
    let Some(d) = describe(r, None) else {
        return (0, PAGE);
    };
    let Some(lay) = layout(&d.planes, interlaced(&d), 1, 1) else {
        r.refuse(NvSciError_Overflow);
        return (0, PAGE);
    };
    put_layout(&mut r.out, &d.planes, &lay);
    (lay.size, lay.align)
}

/// Image and tensor together (nvscibuf.h: an NHWC tensor with N = 1 over a one-plane
/// pitch-linear A8B8G8R8 or Float_A16B16G16R16 image). Returns (size, alignment).
pub(crate) fn image_tensor(r: &mut Recon<'_>) -> (u64, u64) {
    let bad = NvSciError_BadParameter;
    let dt = r.mandatory(keys::T_DATATYPE);
    let nd = r.mandatory(keys::T_NUMDIMS);
    let sz = r.mandatory(keys::T_SIZES);
    let pf = r.mandatory(keys::T_PIXEL_FMT);
    let base = r.max_u64(keys::T_BASE_ALIGN).unwrap_or(PAGE);
    let (Some(dt), Some(nd), Some(sz), Some(pf)) = (dt, nd, sz, pf) else {
        return (0, PAGE);
    };
    let sizes: Vec<u64> = sz.u64s().collect();
    let fmt = pf.as_u32();
    let supported = [NvSciColor_A8B8G8R8.0, NvSciColor_Float_A16B16G16R16.0];
    let layout_pl = r
        .values(keys::IMG_LAYOUT)
        .all(|v| v.as_u32() == NvSciBufImage_PitchLinearType.0);
    if nd.as_u32() != 4 || sizes.len() < 4 || !supported.contains(&fmt) || !layout_pl {
        r.refuse(bad);
        return (0, PAGE);
    }
    let short = r.values(keys::T_ALIGNS).any(|v| v.u32s().count() < 4);
    if short {
        r.refuse(bad);
        return (0, PAGE);
    }
    let aligns = r.max_u32s(keys::T_ALIGNS, 4, 1);
    let Some(fi) = color::info(fmt) else {
        r.refuse(bad);
        return (0, PAGE);
    };
    let elem = u64::from(fi.bpp) / 8 / u64::from(fi.channels);
    if u64::from(aligns[3]) > elem {
        // Image pixels are packed: a larger per-channel alignment cannot hold.
        r.refuse(bad);
        return (0, PAGE);
    }
    let (Ok(h), Ok(w)) = (u32::try_from(sizes[1]), u32::try_from(sizes[2])) else {
        r.refuse(bad);
        return (0, PAGE);
    };
    let defaults = TensorDefaults {
        fmt,
        width: w,
        height: h,
    };
    let Some(d) = describe(r, Some(defaults)) else {
        return (0, PAGE);
    };
    let p = d.planes[0];
    if p.fmt != fmt {
        r.conflict(bit(keys::T_PIXEL_FMT) | bit(keys::IMG_COLOR_FMT));
    }
    if sizes[0] != 1 {
        r.conflict(bit(keys::T_SIZES) | bit(keys::IMG_COUNT));
    }
    if sizes[1] != u64::from(p.height) {
        r.conflict(bit(keys::T_SIZES) | bit(keys::IMG_HEIGHT));
    }
    if sizes[2] != u64::from(p.width) {
        r.conflict(bit(keys::T_SIZES) | bit(keys::IMG_WIDTH));
    }
    if sizes[3] != u64::from(fi.channels) {
        r.conflict(bit(keys::T_SIZES) | bit(keys::T_PIXEL_FMT));
    }
    if dt.as_u32() != fi.datatype.0 {
        r.conflict(bit(keys::T_DATATYPE) | bit(keys::T_PIXEL_FMT));
    }
    if r.conflicts != 0 {
        return (0, PAGE);
    }
    // The tensor's per-dimension alignments act as the row (dimension W) and plane
    // (dimensions H and N) alignments.
    let size_align = u64::from(aligns[0].max(aligns[1]));
    let Some(lay) = layout(&d.planes, interlaced(&d), u64::from(aligns[2]), size_align) else {
        r.refuse(NvSciError_Overflow);
        return (0, PAGE);
    };
    put_layout(&mut r.out, &d.planes, &lay);
    let pl = lay.planes[0];
    let strides = [
        pl.aligned_size,
        u64::from(pl.pitch),
        u64::from(pl.bpp / 8),
        elem,
    ];
    r.out.put(keys::T_DATATYPE, dt);
    r.out.put(keys::T_NUMDIMS, nd);
    r.out.put(keys::T_SIZES, Value::from_u64s(&sizes[..4]));
    r.out.put(keys::T_ALIGNS, Value::from_u32s(&aligns));
    r.out.put(keys::T_STRIDES, Value::from_u64s(&strides));
    r.out.put(keys::T_PIXEL_FMT, pf);
    r.out.put(keys::T_BASE_ALIGN, Value::from_u64(base));
    r.out.put(keys::T_SIZE, Value::from_u64(lay.size));
    (lay.size, lay.align.max(base))
}

/// The planes of pyramid level `level`: each level scales the previous one's width and
/// height by `scale`, rounded down, at least 1.
pub(crate) fn level_planes(planes: &[PlaneIn], scale: f32, level: u32) -> Vec<PlaneIn> {
    let mut out = planes.to_vec();
    for _ in 0..level {
        for p in &mut out {
            let s = f64::from(scale);
            p.width = ((f64::from(p.width) * s).floor() as u32).max(1);
            p.height = ((f64::from(p.height) * s).floor() as u32).max(1);
        }
    }
    out
}

/// Pyramid: the image keys describe level 0; `NumLevels` and `Scale` mandatory and equal
/// everywhere. Returns (size, alignment).
pub(crate) fn pyramid(r: &mut Recon<'_>) -> (u64, u64) {
    let levels = r.mandatory(keys::P_LEVELS);
    let scale = r.mandatory(keys::P_SCALE);
    let d = describe(r, None);
    let (Some(levels), Some(scale), Some(d)) = (levels, scale, d) else {
        return (0, PAGE);
    };
    let s = f32::from_bits(scale.as_u32());
    let mut sizes = Vec::new();
    let mut offsets = Vec::new();
    let mut total = 0u64;
    let mut align = PAGE;
    for l in 0..levels.as_u32() {
        let planes = level_planes(&d.planes, s, l);
        let Some(lay) = layout(&planes, interlaced(&d), 1, 1) else {
            r.refuse(NvSciError_Overflow);
            return (0, PAGE);
        };
        if l == 0 {
            put_layout(&mut r.out, &planes, &lay);
            align = lay.align;
        }
        offsets.push(total);
        sizes.push(lay.size);
        let Some(t) = total.checked_add(lay.size) else {
            r.refuse(NvSciError_Overflow);
            return (0, PAGE);
        };
        total = t;
    }
    let first = d.planes.first().map_or(PAGE, |q| u64::from(q.align));
    r.out.put(keys::P_LEVELS, levels);
    r.out.put(keys::P_SCALE, scale);
    r.out.put(keys::P_LEVEL_OFFSET, Value::from_u64s(&offsets));
    r.out.put(keys::P_LEVEL_SIZE, Value::from_u64s(&sizes));
    r.out.put(keys::P_ALIGNMENT, Value::from_u64(first));
    (total, align)
}

/// The plane description and layout stored in a reconciled image slot (for the pixel
/// calls): `None` when the slot is not an image.
pub(crate) fn stored(slot: &Slot) -> Option<(Vec<PlaneIn>, ImageLayout, bool, bool)> {
    let u32s = |k: usize| slot.get(k).map(|v| v.u32s().collect::<Vec<u32>>());
    let u64s = |k: usize| slot.get(k).map(|v| v.u64s().collect::<Vec<u64>>());
    let n = slot.get(keys::IMG_PLANE_COUNT)?.as_u32() as usize;
    let (fmt, w, h) = (
        u32s(keys::IMG_COLOR_FMT)?,
        u32s(keys::IMG_WIDTH)?,
        u32s(keys::IMG_HEIGHT)?,
    );
    let (top, left) = (u64s(keys::IMG_TOP_PAD)?, u64s(keys::IMG_LEFT_PAD)?);
    let (pitch, off) = (u32s(keys::IMG_PITCH)?, u64s(keys::IMG_OFFSET)?);
    let (bpp, size) = (u32s(keys::IMG_BPP)?, u64s(keys::IMG_ALIGNED_SIZE)?);
    if [
        fmt.len(),
        w.len(),
        h.len(),
        top.len(),
        left.len(),
        pitch.len(),
        off.len(),
        bpp.len(),
        size.len(),
    ]
    .iter()
    .any(|&l| l < n)
    {
        return None;
    }
    let planes = (0..n)
        .map(|i| PlaneIn {
            fmt: fmt[i],
            width: w[i],
            height: h[i],
            pad: [top[i], 0, left[i], 0],
            align: 1,
            std: 0,
        })
        .collect();
    let outs = (0..n)
        .map(|i| PlaneOut {
            bpp: bpp[i],
            pitch: pitch[i],
            aligned_height: 0,
            aligned_size: size[i],
            offset: off[i],
            second_field: 0,
        })
        .collect();
    let block = slot.get(keys::IMG_LAYOUT)?.as_u32() == NvSciBufImage_BlockLinearType.0;
    let inter = slot.get(keys::IMG_SCAN)?.as_u32() == NvSciBufScan_InterlaceType.0;
    let total = slot.get(keys::IMG_SIZE)?.as_u64();
    Some((
        planes,
        ImageLayout {
            planes: outs,
            size: total,
            align: 1,
        },
        block,
        inter,
    ))
}

/// Covers: REQ-BUF-005
#[cfg(test)]
mod tests {
    use super::*;

    fn plane(fmt: NvSciBufAttrValColorFmt, w: u32, h: u32, align: u32) -> PlaneIn {
        PlaneIn {
            fmt: fmt.0,
            width: w,
            height: h,
            pad: [0; 4],
            align,
            std: 0,
        }
    }

    #[test]
    fn nv12_layout() {
        let p = [
            plane(NvSciColor_Y8, 1920, 1080, 4096),
            plane(NvSciColor_V8U8, 960, 540, 4096),
        ];
        let l = layout(&p, false, 1, 1).unwrap();
        assert_eq!(l.planes[0].pitch, 1920);
        assert_eq!(l.planes[1].pitch, 1920);
        assert_eq!(
            l.planes[0].aligned_size,
            (1920 * 1080u64).next_multiple_of(4096)
        );
        assert_eq!(l.planes[1].offset, l.planes[0].aligned_size);
        assert_eq!(l.size, l.planes[0].aligned_size + l.planes[1].aligned_size);
        // Interlaced: two fields of ceil(h / 2) rows.
        let l = layout(&[plane(NvSciColor_Y8, 4, 5, 1)], true, 1, 1).unwrap();
        assert_eq!(l.planes[0].aligned_height, 3);
        assert_eq!(l.planes[0].second_field, 12);
        assert_eq!(l.size, 24);
        // Padding and a pitch alignment.
        let mut q = plane(NvSciColor_A8B8G8R8, 10, 2, 1);
        q.pad = [1, 1, 2, 3];
        let l = layout(&[q], false, 64, 1).unwrap();
        assert_eq!(l.planes[0].pitch, 64);
        assert_eq!(l.planes[0].aligned_height, 4);
        assert!(layout(&[plane(NvSciColor_A32, u32::MAX, 2, 1)], false, 1, 1).is_none());
    }

    #[test]
    fn pyramid_levels_shrink() {
        let p = [plane(NvSciColor_Y8, 100, 51, 1)];
        let l2 = level_planes(&p, 0.5, 2);
        assert_eq!((l2[0].width, l2[0].height), (25, 12));
        let l9 = level_planes(&p, 0.1, 9);
        assert_eq!((l9[0].width, l9[0].height), (1, 1));
    }
}
