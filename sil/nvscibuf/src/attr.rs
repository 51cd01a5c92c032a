//! Attribute values: the checks of `NvSciBufAttrListSetAttrs` and reconciliation of the
//! general, raw-buffer, tensor and array keys (images and pyramids: [`crate::image`]).
//!
//! Every rule cites the key documentation of nvscibuf.h; where the header is silent the
//! choice is listed in `sil/README.md` ("NvSciBuf").

use std::collections::{BTreeMap, BTreeSet};

use nvsci_sys::*;
use sil_common::attr::{ne_u32s, ne_u64s, union_in_order};

use crate::color;
use crate::keys::{self, Kind, Mask, bit};
use crate::list::{Slot, Value};

/// Page size: SIL allocations are aligned to at least this and padded to whole pages; it
/// is also the "default alignment with which buffer is allocated" of the alignment keys.
pub(crate) const PAGE: u64 = 4096;
/// `NV_SCI_BUF_TENSOR_MAX_DIMS`.
pub(crate) const MAX_DIMS: usize = 8;
/// `NV_SCI_BUF_IMAGE_MAX_PLANES`.
pub(crate) const MAX_PLANES: usize = 3;
/// `NV_SCI_BUF_MAX_GPUS`.
const MAX_GPUS: usize = 16;
/// `NV_SCI_BUF_PEER_INFO_MAX_NUMBER` and `NV_SCI_BUF_PEER_HW_ENGINE_MAX_NUMBER`.
const MAX_PEERS: usize = 128;
/// Size of `NvSciBufAttrValGpuCache`.
pub(crate) const GPU_CACHE_LEN: usize = 17;
/// Size of `NvSciBufAttrValGpuCompression`.
pub(crate) const GPU_COMPRESSION_LEN: usize = 20;

/// The object a reconciled list describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufInfo {
    /// Bytes the buffer needs.
    pub size: u64,
    /// Base alignment.
    pub align: u64,
    /// Reconciled `NeedCpuAccess`.
    pub need_cpu: bool,
    /// Reconciled `ActualPerm` value.
    pub perm: u32,
}

/// Bit of a buffer type in a type set.
pub(crate) fn type_bit(t: NvSciBufType) -> u32 {
    1u32 << t.0.min(31)
}

/// The type set of a `Types` value.
pub(crate) fn type_set_of(v: &Value) -> u32 {
    v.u32s().fold(0, |m, t| m | type_bit(NvSciBufType(t)))
}

/// The type set of a slot.
pub(crate) fn type_set(s: &Slot) -> u32 {
    s.get(keys::TYPES).map_or(0, type_set_of)
}

/// Whether keys of buffer type `kt` may be set in a list whose type set is `types`: the
/// type must be there (nvscibuf.h `SetAttrs`); image keys also describe the levels of a
/// pyramid (nvscibuf.h `Pyramid_LevelSize` computes from the image keys).
fn type_allows(kt: NvSciBufType, types: u32) -> bool {
    kt == NvSciBufType_General
        || types & type_bit(kt) != 0
        || (kt == NvSciBufType_Image && types & type_bit(NvSciBufType_Pyramid) != 0)
}

/// A 1..=`max`-element array of `size`-byte items.
fn array_of(b: &[u8], size: usize, max: usize) -> bool {
    !b.is_empty() && b.len().is_multiple_of(size) && b.len() / size <= max
}

/// Checks one (key, value) for `NvSciBufAttrListSetAttrs` and copies the value. `types`
/// is the list's type set (including a `Types` pair of the same call). Unknown keys,
/// output keys, keys of a type not in `Types`, NULL values, wrong lengths and invalid
/// values are `BadParameter` (nvscibuf.h `SetAttrs`).
pub(crate) fn validate_set(
    key: NvSciBufAttrKey,
    bytes: Option<&[u8]>,
    types: u32,
) -> Result<(usize, Value), NvSciError> {
    let bad = Err(NvSciError_BadParameter);
    let Some(k) = keys::index(key) else {
        return bad;
    };
    let Some(b) = bytes else {
        return bad;
    };
    if !type_allows(keys::key_type(key), types) {
        return bad;
    }
    let u32s = || ne_u32s(b);
    let u64s = || ne_u64s(b);
    let one32 = |ok: &dyn Fn(u32) -> bool| b.len() == 4 && u32s().all(ok);
    let one64 = |ok: &dyn Fn(u64) -> bool| b.len() == 8 && u64s().all(ok);
    let ok = match keys::KEYS[k].kind {
        Kind::Types => {
            array_of(b, 4, usize::MAX)
                && u32s().all(|t| t > NvSciBufType_General.0 && t < NvSciBufType_MaxValid.0)
        }
        Kind::Bool => b.len() == 1,
        Kind::Perm => {
            one32(&|p| p == NvSciBufAccessPerm_Readonly.0 || p == NvSciBufAccessPerm_ReadWrite.0)
        }
        Kind::GpuIds => array_of(b, 16, MAX_GPUS),
        Kind::GpuId => b.len() == 16,
        Kind::GpuCache => array_of(b, GPU_CACHE_LEN, MAX_GPUS),
        Kind::GpuCompression => {
            array_of(b, GPU_COMPRESSION_LEN, MAX_GPUS)
                && b.chunks_exact(GPU_COMPRESSION_LEN).all(|c| {
                    // The header: `None` may not be set in an unreconciled list.
                    ne_u32s(&c[16..]).next() == Some(NvSciBufCompressionType_GenericCompressible.0)
                })
        }
        Kind::PeerLocations => array_of(b, 16, MAX_PEERS),
        Kind::PeerEngines => {
            array_of(b, 8, MAX_PEERS)
                && b.chunks_exact(8).all(|c| {
                    let mut it = ne_u32s(c);
                    let (e, p) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
                    valid_engine(e)
                        && p > NvSciBufPlatformName_LowerBound.0
                        && p < NvSciBufPlatformName_UpperBound.0
                })
        }
        Kind::Positive => one64(&|v| v > 0),
        Kind::AlignOrZero => one64(&|v| v == 0 || v.is_power_of_two()),
        Kind::Pow2 => one64(&u64::is_power_of_two),
        Kind::U64 => b.len() == 8,
        Kind::U32 => b.len() == 4,
        Kind::Enum(n) => one32(&|v| v < n),
        Kind::SurfType => one32(&|v| v == NvSciSurfType_YUV.0),
        Kind::PlaneU64s => array_of(b, 8, MAX_PLANES),
        Kind::PlaneU32s => array_of(b, 4, MAX_PLANES),
        Kind::PlaneAligns => array_of(b, 4, MAX_PLANES) && u32s().all(u32::is_power_of_two),
        Kind::PlaneColorStds => {
            array_of(b, 4, MAX_PLANES) && u32s().all(|v| v <= NvSciColorStd_REQ2020PQ_ER.0)
        }
        Kind::PlaneColorFmts => {
            array_of(b, 4, MAX_PLANES) && u32s().all(|v| color::info(v).is_some())
        }
        Kind::ColorFmt => one32(&|v| color::info(v).is_some()),
        Kind::PlaneCount => one32(&|v| (1..=MAX_PLANES as u32).contains(&v)),
        Kind::ImageCount => one64(&|v| v == 1),
        Kind::TensorDataType => one32(&|v| v <= NvSciDataType_Float32.0),
        Kind::ArrayDataType => one32(&|v| v <= NvSciDataType_Bool.0),
        Kind::NumDims => one32(&|v| (1..=MAX_DIMS as u32).contains(&v)),
        Kind::DimSizes => array_of(b, 8, MAX_DIMS),
        Kind::DimAligns => array_of(b, 4, MAX_DIMS) && u32s().all(u32::is_power_of_two),
        Kind::NumLevels => one32(&|v| (1..=10).contains(&v)),
        Kind::Scale => one32(&|v| {
            let s = f32::from_bits(v);
            s > 0.0 && s <= 1.0
        }),
        Kind::Output => false,
    };
    if ok {
        Ok((k, Value::from_bytes(b)))
    } else {
        bad
    }
}

/// A named value of `NvSciBufHwEngName` other than `Invalid` and `Num`.
fn valid_engine(e: u32) -> bool {
    [
        4, 11, 12, 30, 106, 107, 109, 117, 118, 121, 122, 123, 124, 125,
    ]
    .contains(&e)
}

/// Why reconciliation failed.
#[derive(Debug)]
pub(crate) enum ReconError {
    /// Conflicting values (`ReconciliationFailed`): the keys of the conflict list.
    Conflict(Mask),
    /// Refused with this status, no conflict list.
    Refused(NvSciError),
}

/// A reconciliation in progress: the input slots, the output slot and what went wrong.
pub(crate) struct Recon<'a> {
    /// The input slots (every slot of every input list).
    pub inputs: &'a [Slot],
    /// The reconciled keys.
    pub out: Slot,
    /// Keys whose values conflict.
    pub conflicts: Mask,
    /// First refusal (a mandatory key unset or an unsupported value: `BadParameter`;
    /// `NotSupported`; `Overflow`).
    pub refused: Option<NvSciError>,
}

impl<'a> Recon<'a> {
    fn new(inputs: &'a [Slot]) -> Self {
        Recon {
            inputs,
            out: Slot::default(),
            conflicts: 0,
            refused: None,
        }
    }

    /// Records a refusal (the first one wins).
    pub(crate) fn refuse(&mut self, e: NvSciError) {
        self.refused.get_or_insert(e);
    }

    /// Records a conflict on the keys of `mask`.
    pub(crate) fn conflict(&mut self, mask: Mask) {
        self.conflicts |= mask;
    }

    /// The values of key `k` in the inputs that set it.
    pub(crate) fn values(&self, k: usize) -> impl Iterator<Item = &'a Value> + use<'a> {
        let inputs = self.inputs;
        inputs.iter().filter_map(move |s| s.get(k))
    }

    /// Whether some input set key `k`.
    pub(crate) fn is_set(&self, k: usize) -> bool {
        self.values(k).next().is_some()
    }

    /// The value every input that set key `k` agrees on ("reconciliation is successful
    /// if all the input attributes of this type match"): `None` when nobody set it, or
    /// when they disagree (a conflict).
    pub(crate) fn agreed(&mut self, k: usize) -> Option<Value> {
        let mut it = self.values(k);
        let first = it.next()?.clone();
        if it.any(|v| v.bytes() != first.bytes()) {
            self.conflict(bit(k));
            return None;
        }
        Some(first)
    }

    /// [`agreed`](Self::agreed) for a mandatory key: unset everywhere is `BadParameter`
    /// (nvscibuf.h `Reconcile`: "an attribute key necessary for reconciling ... is unset").
    pub(crate) fn mandatory(&mut self, k: usize) -> Option<Value> {
        if !self.is_set(k) {
            self.refuse(NvSciError_BadParameter);
            return None;
        }
        self.agreed(k)
    }

    /// OR of a `bool` key over the inputs.
    pub(crate) fn any(&self, k: usize) -> bool {
        self.inputs.iter().any(|s| s.flag(k))
    }

    /// The largest `uint64_t` value of key `k`.
    pub(crate) fn max_u64(&self, k: usize) -> Option<u64> {
        self.values(k).map(Value::as_u64).max()
    }

    /// Per index, the largest `uint32_t` of the arrays of key `k` that have that index;
    /// `default` where none has; `n` elements.
    pub(crate) fn max_u32s(&self, k: usize, n: usize, default: u32) -> Vec<u32> {
        (0..n)
            .map(|i| {
                self.values(k)
                    .filter_map(|v| v.u32s().nth(i))
                    .max()
                    .unwrap_or(default)
            })
            .collect()
    }

    /// The result.
    fn finish(self, info: BufInfo) -> Result<(Slot, BufInfo), ReconError> {
        if self.conflicts != 0 {
            Err(ReconError::Conflict(self.conflicts))
        } else if let Some(e) = self.refused {
            Err(ReconError::Refused(e))
        } else {
            Ok((self.out, info))
        }
    }
}

/// Rounds `v` up to a multiple of `a` (`a` 0 or 1: unchanged); `None` on overflow.
pub(crate) fn align_up(v: u64, a: u64) -> Option<u64> {
    let a = a.max(1);
    v.checked_next_multiple_of(a)
}

/// Tensor strides (bytes, outermost first) and size: see `sil/README.md` ("NvSciBuf").
pub(crate) fn tensor_layout(dt: u32, sizes: &[u64], aligns: &[u32]) -> Option<(Vec<u64>, u64)> {
    let n = sizes.len();
    let bits = color::element_bits(dt);
    let mut strides = vec![0u64; n];
    let mut extent = 0u64;
    for i in (0..n).rev() {
        let a = u64::from(aligns[i]);
        if i == n - 1 {
            strides[i] = (bits / 8).max(1);
            extent = align_up(sizes[i].checked_mul(bits)?.div_ceil(8), a)?;
        } else {
            strides[i] = extent;
            extent = align_up(extent.checked_mul(sizes[i])?, a)?;
        }
    }
    Some((strides, extent))
}

/// Reconciles the input slots (every slot of every input list, in order).
pub(crate) fn reconcile(inputs: &[Slot]) -> Result<(Slot, BufInfo), ReconError> {
    let mut r = Recon::new(inputs);
    let mut info = BufInfo {
        size: 0,
        align: PAGE,
        need_cpu: false,
        perm: NvSciBufAccessPerm_Readonly.0,
    };

    // Types: mandatory; one type, or exactly Image + Tensor (nvscibuf.h `Types`).
    if !r.is_set(keys::TYPES) {
        r.refuse(NvSciError_BadParameter);
        return r.finish(info);
    }
    let types = inputs.iter().fold(0, |m, s| m | type_set(s));
    let image_tensor = type_bit(NvSciBufType_Image) | type_bit(NvSciBufType_Tensor);
    if types.count_ones() > 1 && types != image_tensor {
        r.conflict(bit(keys::TYPES));
        return r.finish(info);
    }
    let list: Vec<u32> = (1..NvSciBufType_MaxValid.0)
        .filter(|&t| types & (1 << t) != 0)
        .collect();
    r.out.put(keys::TYPES, Value::from_u32s(&list));

    general(&mut r, &mut info);

    let (size, align) = if types == image_tensor {
        crate::image::image_tensor(&mut r)
    } else if types == type_bit(NvSciBufType_RawBuffer) {
        raw(&mut r)
    } else if types == type_bit(NvSciBufType_Tensor) {
        tensor(&mut r)
    } else if types == type_bit(NvSciBufType_Image) {
        crate::image::image(&mut r)
    } else if types == type_bit(NvSciBufType_Array) {
        array(&mut r)
    } else {
        crate::image::pyramid(&mut r)
    };
    info.size = size;
    info.align = align;
    r.finish(info)
}

/// The general keys.
fn general(r: &mut Recon<'_>, info: &mut BufInfo) {
    // NeedCpuAccess, EnableCpuCache: OR (nvscibuf.h).
    let need_cpu = r.any(keys::NEED_CPU);
    info.need_cpu = need_cpu;
    r.out.put(keys::NEED_CPU, Value::from_bool(need_cpu));
    r.out
        .put(keys::CPU_CACHE, Value::from_bool(r.any(keys::CPU_CACHE)));
    // ActualPerm: the largest RequiredPerm, Readonly by default.
    let perm = r
        .values(keys::REQ_PERM)
        .map(Value::as_u32)
        .max()
        .unwrap_or(NvSciBufAccessPerm_Readonly.0);
    info.perm = perm;
    r.out.put(keys::ACTUAL_PERM, Value::from_u32(perm));
    // No ISO engine touches SIL memory.
    r.out.put(keys::CPU_SW_COHERENCY, Value::from_bool(false));

    // GpuId: the union; an invalid (all-zero) id when nobody set one.
    let gpus = union_in_order(
        r.values(keys::GPU_ID)
            .flat_map(|v| v.bytes().chunks_exact(16))
            .map(|c| <[u8; 16]>::try_from(c).unwrap_or([0; 16])),
    );
    let gpu_set = !gpus.is_empty();
    let stored: Vec<u8> = if gpu_set { gpus.concat() } else { vec![0; 16] };
    r.out.put(keys::GPU_ID, Value::from_bytes(&stored));

    // VidMem_GpuId: must match; the invalid id by default. Orin has no dGPU video memory.
    match r.agreed(keys::VIDMEM_GPU) {
        Some(v) if v.bytes().iter().any(|b| *b != 0) => r.refuse(NvSciError_NotSupported),
        Some(v) => r.out.put(keys::VIDMEM_GPU, v),
        None => r.out.put(keys::VIDMEM_GPU, Value::from_bytes(&[0; 16])),
    }

    // Membership tests against a set: one per input entry, so O(n log n) in all.
    let known: BTreeSet<[u8; 16]> = gpus.iter().copied().collect();
    gpu_cache(r, &gpus, &known, need_cpu);
    gpu_compression(r, &gpus, &known, need_cpu);
    if !gpu_set && (r.is_set(keys::GPU_CACHE) || r.is_set(keys::GPU_COMPRESSION)) {
        // Their GPU ids must be among the GpuId values (nvscibuf.h).
        r.conflict(bit(keys::GPU_ID));
    }

    // Peer keys: the aggregate of all values.
    for (k, size) in [(keys::PEER_LOCATION, 16), (keys::PEER_ENGINES, 8)] {
        let all = union_in_order(r.values(k).flat_map(|v| v.bytes().chunks_exact(size)));
        if !all.is_empty() {
            r.out.put(k, Value::from_bytes(&all.concat()));
        }
    }
}

/// `EnableGpuCache` and `GpuSwNeedCacheCoherency` (nvscibuf.h): one iGPU may be named, in
/// `GpuId`; per GPU id the AND of the lists' values, a list that names none counting as
/// the iGPU default `true`. Written only when some list set `GpuId`.
fn gpu_cache(r: &mut Recon<'_>, gpus: &[[u8; 16]], known: &BTreeSet<[u8; 16]>, need_cpu: bool) {
    let mut named: Option<[u8; 16]> = None;
    let mut cache = true;
    let entries: Vec<Vec<u8>> = r
        .values(keys::GPU_CACHE)
        .map(|v| v.bytes().to_vec())
        .collect();
    for b in &entries {
        if b.len() != GPU_CACHE_LEN {
            r.conflict(bit(keys::GPU_CACHE));
            continue;
        }
        let id: [u8; 16] = b[..16].try_into().unwrap_or([0; 16]);
        if !known.contains(&id) || named.is_some_and(|n| n != id) {
            r.conflict(bit(keys::GPU_CACHE) | bit(keys::GPU_ID));
        }
        named = Some(id);
        cache &= b[16] != 0;
    }
    if gpus.is_empty() {
        return;
    }
    let per_gpu: Vec<bool> = gpus
        .iter()
        .map(|id| if named == Some(*id) { cache } else { true })
        .collect();
    let any_uncached = per_gpu.iter().any(|c| !c);
    let enc = |f: &dyn Fn(bool) -> bool| {
        let b: Vec<u8> = gpus
            .iter()
            .zip(&per_gpu)
            .flat_map(|(id, c)| id.iter().copied().chain([u8::from(f(*c))]))
            .collect();
        Value::from_bytes(&b)
    };
    r.out.put(keys::GPU_CACHE, enc(&|c| c));
    // Sysmem: maintenance needed for a cached GPU when another GPU is uncached or the CPU
    // accesses the buffer (no other engine touches SIL memory).
    r.out.put(
        keys::GPU_SW_COHERENCY,
        enc(&|c| c && (any_uncached || need_cpu)),
    );
}

/// `EnableGpuCompression` (nvscibuf.h rules 1-5): every named GPU must be in `GpuId` and
/// the lists must agree per GPU; compression is granted only to a single requesting GPU
/// without CPU access, `None` elsewhere. Written only when some list set `GpuId`.
fn gpu_compression(
    r: &mut Recon<'_>,
    gpus: &[[u8; 16]],
    known: &BTreeSet<[u8; 16]>,
    need_cpu: bool,
) {
    let mut asked: BTreeMap<[u8; 16], [u8; 4]> = BTreeMap::new();
    let entries: Vec<Vec<u8>> = r
        .values(keys::GPU_COMPRESSION)
        .map(|v| v.bytes().to_vec())
        .collect();
    for b in &entries {
        for c in b.chunks_exact(GPU_COMPRESSION_LEN) {
            let id: [u8; 16] = c[..16].try_into().unwrap_or([0; 16]);
            let ty: [u8; 4] = c[16..].try_into().unwrap_or([0; 4]);
            if !known.contains(&id) {
                r.conflict(bit(keys::GPU_COMPRESSION) | bit(keys::GPU_ID));
            }
            match asked.get(&id) {
                Some(t) if *t != ty => r.conflict(bit(keys::GPU_COMPRESSION)),
                Some(_) => {}
                None => {
                    asked.insert(id, ty);
                }
            }
        }
    }
    if gpus.is_empty() {
        return;
    }
    let grant = asked.len() == 1 && !need_cpu;
    let b: Vec<u8> = gpus
        .iter()
        .flat_map(|id| {
            let ty = match asked.get(id) {
                Some(t) if grant => *t,
                _ => NvSciBufCompressionType_None.0.to_ne_bytes(),
            };
            id.iter().copied().chain(ty)
        })
        .collect();
    r.out.put(keys::GPU_COMPRESSION, Value::from_bytes(&b));
}

/// RawBuffer: `Size` mandatory and equal everywhere; `Align` the largest, the page size by
/// default (0 counts as no requirement). Returns (size, alignment).
fn raw(r: &mut Recon<'_>) -> (u64, u64) {
    let size = r.mandatory(keys::RAW_SIZE);
    let align = match r.max_u64(keys::RAW_ALIGN) {
        Some(a) => a.max(1),
        None => PAGE,
    };
    r.out.put(keys::RAW_ALIGN, Value::from_u64(align));
    let size = size.map_or(0, |v| {
        let s = v.as_u64();
        r.out.put(keys::RAW_SIZE, v);
        s
    });
    (size, align)
}

/// Tensor only: `DataType`, `NumDims`, `SizePerDim` mandatory and equal everywhere;
/// `AlignmentPerDim` mandatory, the largest per dimension; `BaseAddrAlign` the largest,
/// the page size by default; `PixelFormat` equal where set. Returns (size, alignment).
fn tensor(r: &mut Recon<'_>) -> (u64, u64) {
    let dt = r.mandatory(keys::T_DATATYPE);
    let nd = r.mandatory(keys::T_NUMDIMS);
    let sz = r.mandatory(keys::T_SIZES);
    if !r.is_set(keys::T_ALIGNS) {
        r.refuse(NvSciError_BadParameter);
    }
    if let Some(v) = r.agreed(keys::T_PIXEL_FMT) {
        r.out.put(keys::T_PIXEL_FMT, v);
    }
    let base = r.max_u64(keys::T_BASE_ALIGN).unwrap_or(PAGE);
    r.out.put(keys::T_BASE_ALIGN, Value::from_u64(base));
    let (Some(dt), Some(nd), Some(sz)) = (dt, nd, sz) else {
        return (0, base);
    };
    let n = nd.as_u32() as usize;
    let sizes: Vec<u64> = sz.u64s().collect();
    // Arrays shorter than NumDims, or a zero-sized dimension: a value the tensor type does
    // not support (`BadParameter`).
    let short = sizes.len() < n || r.values(keys::T_ALIGNS).any(|v| v.u32s().count() < n);
    if short || sizes[..n.min(sizes.len())].contains(&0) {
        r.refuse(NvSciError_BadParameter);
        return (0, base);
    }
    let aligns = r.max_u32s(keys::T_ALIGNS, n, 1);
    let Some((strides, size)) = tensor_layout(dt.as_u32(), &sizes[..n], &aligns) else {
        r.refuse(NvSciError_Overflow);
        return (0, base);
    };
    r.out.put(keys::T_DATATYPE, dt);
    r.out.put(keys::T_NUMDIMS, nd);
    r.out.put(keys::T_SIZES, Value::from_u64s(&sizes[..n]));
    r.out.put(keys::T_ALIGNS, Value::from_u32s(&aligns));
    r.out.put(keys::T_STRIDES, Value::from_u64s(&strides));
    r.out.put(keys::T_SIZE, Value::from_u64(size));
    (size, base)
}

/// Array: `DataType`, `Stride`, `Capacity` mandatory and equal everywhere; the stride must
/// hold one element; `Size` = capacity × stride (no engine adds alignment in the SIL);
/// `Alignment` the page size. Returns (size, alignment).
fn array(r: &mut Recon<'_>) -> (u64, u64) {
    let dt = r.mandatory(keys::A_DATATYPE);
    let stride = r.mandatory(keys::A_STRIDE);
    let cap = r.mandatory(keys::A_CAPACITY);
    let (Some(dt), Some(stride), Some(cap)) = (dt, stride, cap) else {
        return (0, PAGE);
    };
    let elem = color::element_bits(dt.as_u32()).div_ceil(8);
    if stride.as_u64() < elem {
        r.refuse(NvSciError_BadParameter);
        return (0, PAGE);
    }
    let Some(size) = cap.as_u64().checked_mul(stride.as_u64()) else {
        r.refuse(NvSciError_Overflow);
        return (0, PAGE);
    };
    r.out.put(keys::A_DATATYPE, dt);
    r.out.put(keys::A_STRIDE, stride);
    r.out.put(keys::A_CAPACITY, cap);
    r.out.put(keys::A_SIZE, Value::from_u64(size));
    r.out.put(keys::A_ALIGNMENT, Value::from_u64(PAGE));
    (size, PAGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-BUF-001
    #[test]
    fn tensor_strides() {
        // The cuDLA standalone sample: Int8, one dimension, alignment 1.
        assert_eq!(tensor_layout(2, &[1000], &[1]), Some((vec![1], 1000)));
        // NCHW fp16 with the innermost extent aligned to 32 bytes.
        let (s, size) = tensor_layout(8, &[1, 3, 224, 224], &[1, 1, 1, 32]).unwrap();
        assert_eq!(s, vec![301_056, 100_352, 448, 2]);
        assert_eq!(size, 301_056);
        // Int4: two per byte, innermost extent rounded up to whole bytes.
        assert_eq!(tensor_layout(0, &[2, 3], &[1, 1]), Some((vec![2, 1], 4)));
        assert_eq!(tensor_layout(9, &[u64::MAX, 2], &[1, 1]), None);
    }

    /// Covers: REQ-BUF-005
    #[test]
    fn set_checks_image_values() {
        let img = type_bit(NvSciBufType_Image);
        let fmt = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
        let key = NvSciBufImageAttrKey_PlaneColorFormat;
        assert!(validate_set(key, Some(&fmt(&[NvSciColor_Y8.0, NvSciColor_V8U8.0])), img).is_ok());
        assert!(validate_set(key, Some(&fmt(&[NvSciColor_Signed_X12Bayer20GBRG.0])), img).is_err());
        assert!(validate_set(key, Some(&fmt(&[1, 1, 1, 1])), img).is_err());
        // Image keys on a pyramid list; not on a tensor list.
        assert!(
            validate_set(
                key,
                Some(&fmt(&[NvSciColor_Y8.0])),
                type_bit(NvSciBufType_Pyramid)
            )
            .is_ok()
        );
        assert!(
            validate_set(
                key,
                Some(&fmt(&[NvSciColor_Y8.0])),
                type_bit(NvSciBufType_Tensor)
            )
            .is_err()
        );
        let scale = |s: f32| s.to_bits().to_ne_bytes();
        let pyr = type_bit(NvSciBufType_Pyramid);
        assert!(validate_set(NvSciBufPyramidAttrKey_Scale, Some(&scale(0.5)), pyr).is_ok());
        assert!(validate_set(NvSciBufPyramidAttrKey_Scale, Some(&scale(0.0)), pyr).is_err());
        assert!(validate_set(NvSciBufPyramidAttrKey_Scale, Some(&scale(1.5)), pyr).is_err());
        let eng = [122u32, 1]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect::<Vec<u8>>();
        assert!(validate_set(NvSciBufGeneralAttrKey_PeerHwEngineArray, Some(&eng), 0).is_ok());
        let bad_eng = [5u32, 1]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect::<Vec<u8>>();
        assert!(validate_set(NvSciBufGeneralAttrKey_PeerHwEngineArray, Some(&bad_eng), 0).is_err());
    }
}
