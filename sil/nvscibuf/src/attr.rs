//! Attribute lists: the supported keys, their validation, and reconciliation.
//!
//! Values are stored as raw bytes, 8-byte aligned, and never replaced while the list
//! lives (a set key is locked), so the pointers returned by `NvSciBufAttrListGetAttrs`
//! stay valid for the list's life.

use nvsci_sys::{
    NvSciBufAccessPerm_ReadWrite, NvSciBufAccessPerm_Readonly, NvSciBufAttrKey,
    NvSciBufGeneralAttrKey_ActualPerm, NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency,
    NvSciBufGeneralAttrKey_EnableCpuCache, NvSciBufGeneralAttrKey_EnableGpuCache,
    NvSciBufGeneralAttrKey_GpuId, NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency,
    NvSciBufGeneralAttrKey_NeedCpuAccess, NvSciBufGeneralAttrKey_RequiredPerm,
    NvSciBufGeneralAttrKey_Types, NvSciBufRawBufferAttrKey_Align, NvSciBufRawBufferAttrKey_Size,
    NvSciBufTensorAttrKey_AlignmentPerDim, NvSciBufTensorAttrKey_BaseAddrAlign,
    NvSciBufTensorAttrKey_DataType, NvSciBufTensorAttrKey_NumDims, NvSciBufTensorAttrKey_Size,
    NvSciBufTensorAttrKey_SizePerDim, NvSciBufTensorAttrKey_StridesPerDim, NvSciBufType,
    NvSciBufType_General, NvSciBufType_Image, NvSciBufType_MaxValid, NvSciBufType_RawBuffer,
    NvSciBufType_Tensor, NvSciDataType_Float32, NvSciError, NvSciError_BadParameter,
    NvSciError_NotSupported,
};
use sil_common::attr::{conflict_slots, ne_u32s, ne_u64s, union_gpu_ids};

/// Page size: SIL allocations are aligned to at least this and padded to whole pages.
pub(crate) const PAGE: u64 = 4096;
/// Most tensor dimensions (`NV_SCI_BUF_TENSOR_MAX_DIMS`).
pub(crate) const MAX_DIMS: usize = 8;
/// Most GPU ids (`NV_SCI_BUF_MAX_GPUS`).
const MAX_GPUS: usize = 16;

/// How a key's value is checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// `NvSciBufType[]`.
    Types,
    /// `bool`.
    Bool,
    /// `NvSciBufAttrValAccessPerm`: Readonly or ReadWrite.
    Perm,
    /// `NvSciRmGpuId[]`.
    GpuIds,
    /// `NvSciBufAttrValGpuCache[]` (17 bytes each).
    GpuCache,
    /// `uint64_t` > 0.
    Positive,
    /// `uint64_t`, a power of two (0 accepted as "no requirement": NVIDIA's CUDA sample
    /// sets `RawBuffer_Align` = 0).
    AlignOrZero,
    /// `uint64_t`, a power of two.
    Pow2,
    /// `NvSciBufAttrValDataType` in Int4..=Float32.
    DataType,
    /// `uint32_t` in 1..=8.
    NumDims,
    /// `uint64_t[1..=8]`, each > 0.
    Sizes,
    /// `uint32_t[1..=8]`, each a power of two.
    Aligns,
    /// Output only.
    Output,
}

/// The keys the SIL supports, in storage order.
const KEYS: [(NvSciBufAttrKey, Kind); 18] = [
    (NvSciBufGeneralAttrKey_Types, Kind::Types),
    (NvSciBufGeneralAttrKey_NeedCpuAccess, Kind::Bool),
    (NvSciBufGeneralAttrKey_RequiredPerm, Kind::Perm),
    (NvSciBufGeneralAttrKey_EnableCpuCache, Kind::Bool),
    (NvSciBufGeneralAttrKey_GpuId, Kind::GpuIds),
    (NvSciBufGeneralAttrKey_CpuNeedSwCacheCoherency, Kind::Output),
    (NvSciBufGeneralAttrKey_ActualPerm, Kind::Output),
    (NvSciBufGeneralAttrKey_EnableGpuCache, Kind::GpuCache),
    (NvSciBufGeneralAttrKey_GpuSwNeedCacheCoherency, Kind::Output),
    (NvSciBufRawBufferAttrKey_Size, Kind::Positive),
    (NvSciBufRawBufferAttrKey_Align, Kind::AlignOrZero),
    (NvSciBufTensorAttrKey_DataType, Kind::DataType),
    (NvSciBufTensorAttrKey_NumDims, Kind::NumDims),
    (NvSciBufTensorAttrKey_SizePerDim, Kind::Sizes),
    (NvSciBufTensorAttrKey_AlignmentPerDim, Kind::Aligns),
    (NvSciBufTensorAttrKey_StridesPerDim, Kind::Output),
    (NvSciBufTensorAttrKey_BaseAddrAlign, Kind::Pow2),
    (NvSciBufTensorAttrKey_Size, Kind::Output),
];

/// Number of stored keys.
pub(crate) const NK: usize = KEYS.len();

pub(crate) const K_TYPES: usize = 0;
pub(crate) const K_NEED_CPU: usize = 1;
pub(crate) const K_REQ_PERM: usize = 2;
pub(crate) const K_CPU_CACHE: usize = 3;
pub(crate) const K_GPU_ID: usize = 4;
pub(crate) const K_CPU_SW_COHERENCY: usize = 5;
pub(crate) const K_ACTUAL_PERM: usize = 6;
pub(crate) const K_GPU_CACHE: usize = 7;
pub(crate) const K_GPU_SW_COHERENCY: usize = 8;
pub(crate) const K_RAW_SIZE: usize = 9;
pub(crate) const K_RAW_ALIGN: usize = 10;
pub(crate) const K_T_DATATYPE: usize = 11;
pub(crate) const K_T_NUMDIMS: usize = 12;
pub(crate) const K_T_SIZES: usize = 13;
pub(crate) const K_T_ALIGNS: usize = 14;
pub(crate) const K_T_STRIDES: usize = 15;
pub(crate) const K_T_BASE_ALIGN: usize = 16;
pub(crate) const K_T_SIZE: usize = 17;

/// Storage index of a supported key.
pub(crate) fn key_index(key: NvSciBufAttrKey) -> Option<usize> {
    KEYS.iter().position(|(k, _)| *k == key)
}

/// The buffer type whose keys `key` belongs to (`General` for the general keys).
fn key_type(key: NvSciBufAttrKey) -> NvSciBufType {
    NvSciBufType(key.0 >> 16)
}

/// Bit of a buffer type in a type set.
pub(crate) fn type_bit(t: NvSciBufType) -> u32 {
    1u32 << t.0.min(31)
}

// Value and slot types of this library (storage: `sil_common::attr`).
pub(crate) use sil_common::attr::Value;
/// The keys of one list (index = storage index; conflict lists have one slot per
/// offending input list).
pub(crate) type Slot = sil_common::attr::Slot<NK>;

/// The type set of a list.
pub(crate) fn type_set(s: &Slot) -> u32 {
    s.get(K_TYPES).map_or(0, type_set_of)
}

/// The type set of a `Types` value.
pub(crate) fn type_set_of(v: &Value) -> u32 {
    v.u32s().fold(0, |m, t| m | type_bit(NvSciBufType(t)))
}

/// The object a reconciled list describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufInfo {
    /// Bytes the buffer needs (`RawBuffer_Size` or `Tensor_Size`).
    pub size: u64,
    /// Base alignment (`RawBuffer_Align` or `Tensor_BaseAddrAlign`).
    pub align: u64,
    /// Reconciled `NeedCpuAccess`.
    pub need_cpu: bool,
    /// Reconciled `ActualPerm` value.
    pub perm: u32,
}

/// The contents of an attribute list (one slot; several for a conflict list).
pub(crate) type ListData = sil_common::attr::ListData<BufInfo, NK>;

/// An attribute list.
pub(crate) type AttrList = sil_common::attr::AttrList<BufInfo, NK>;

fn pow2(v: u64) -> bool {
    v.is_power_of_two()
}

/// Checks one (key, value) for `NvSciBufAttrListSetAttrs` and copies the value. `types`
/// is the list's type set (including a `Types` pair of the same call).
pub(crate) fn validate_set(
    key: NvSciBufAttrKey,
    bytes: Option<&[u8]>,
    types: u32,
) -> Result<(usize, Value), NvSciError> {
    let bad = Err(NvSciError_BadParameter);
    let Some(k) = key_index(key) else {
        return bad;
    };
    let Some(b) = bytes else {
        return bad;
    };
    let kt = key_type(key);
    if kt != NvSciBufType_General && types & type_bit(kt) == 0 {
        return bad;
    }
    let u32s = || ne_u32s(b);
    let u64s = || ne_u64s(b);
    let ok = match KEYS[k].1 {
        Kind::Types => {
            !b.is_empty()
                && b.len() % 4 == 0
                && u32s().all(|t| t > NvSciBufType_General.0 && t < NvSciBufType_MaxValid.0)
        }
        Kind::Bool => b.len() == 1,
        Kind::Perm => {
            b.len() == 4
                && u32s().all(|p| {
                    p == NvSciBufAccessPerm_Readonly.0 || p == NvSciBufAccessPerm_ReadWrite.0
                })
        }
        Kind::GpuIds => !b.is_empty() && b.len() % 16 == 0 && b.len() / 16 <= MAX_GPUS,
        Kind::GpuCache => !b.is_empty() && b.len() % 17 == 0 && b.len() / 17 <= MAX_GPUS,
        Kind::Positive => b.len() == 8 && u64s().all(|v| v > 0),
        Kind::AlignOrZero => b.len() == 8 && u64s().all(|v| v == 0 || pow2(v)),
        Kind::Pow2 => b.len() == 8 && u64s().all(pow2),
        Kind::DataType => b.len() == 4 && u32s().all(|t| t <= NvSciDataType_Float32.0),
        Kind::NumDims => b.len() == 4 && u32s().all(|n| (1..=MAX_DIMS as u32).contains(&n)),
        Kind::Sizes => {
            !b.is_empty() && b.len() % 8 == 0 && b.len() / 8 <= MAX_DIMS && u64s().all(|v| v > 0)
        }
        Kind::Aligns => {
            !b.is_empty()
                && b.len() % 4 == 0
                && b.len() / 4 <= MAX_DIMS
                && u32s().all(|v| v.is_power_of_two())
        }
        Kind::Output => false,
    };
    if ok {
        Ok((k, Value::from_bytes(b)))
    } else {
        bad
    }
}

/// Why reconciliation failed: a conflict list, or `NotSupported` for buffer types the SIL
/// does not implement (Image, Array, Pyramid).
pub(crate) type ReconError = sil_common::list_api::ReconError<NK, NvSciError>;

/// Bits per element of a tensor data type.
fn element_bits(dt: u32) -> u64 {
    match dt {
        0 | 1 => 4,
        2 | 3 => 8,
        4 | 5 | 8 => 16,
        _ => 32,
    }
}

fn align_up(v: u64, a: u64) -> Option<u64> {
    let a = a.max(1);
    v.checked_add(a - 1).map(|x| x / a * a)
}

/// Tensor strides (bytes, outermost first) and size: see `sil/README.md` ("NvSciBuf").
pub(crate) fn tensor_layout(dt: u32, sizes: &[u64], aligns: &[u32]) -> Option<(Vec<u64>, u64)> {
    let n = sizes.len();
    let bits = element_bits(dt);
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

/// Reconciles the input slots.
pub(crate) fn reconcile(inputs: &[Slot]) -> Result<(Slot, BufInfo), ReconError> {
    let mut conflicts: u32 = 0;

    // Types.
    let types = inputs.iter().fold(0, |m, s| m | type_set(s));
    let supported = type_bit(NvSciBufType_RawBuffer) | type_bit(NvSciBufType_Tensor);
    let image_tensor = type_bit(NvSciBufType_Image) | type_bit(NvSciBufType_Tensor);
    if types == 0 || (types.count_ones() > 1 && types != image_tensor) {
        conflicts |= 1 << K_TYPES;
    } else if types & !supported != 0 {
        return Err(ReconError::Refused(NvSciError_NotSupported));
    }
    let ty = if types == type_bit(NvSciBufType_Tensor) {
        NvSciBufType_Tensor
    } else {
        NvSciBufType_RawBuffer
    };

    // The value every list that set key `k` agrees on (`None`: nobody set it or they
    // disagree; the latter flags a conflict).
    let agreed = |k: usize, conflicts: &mut u32| -> Option<Value> {
        let mut it = inputs.iter().filter_map(|s| s.get(k));
        let first = it.next()?.clone();
        if it.any(|v| v.bytes() != first.bytes()) {
            *conflicts |= 1 << k;
            return None;
        }
        Some(first)
    };
    let max_u64 = |k: usize| {
        inputs
            .iter()
            .filter_map(|s| s.get(k))
            .map(Value::as_u64)
            .max()
    };

    let mut out = Slot::default();
    out.put(K_TYPES, Value::from_u32s(&[ty.0]));
    let need_cpu = inputs.iter().any(|s| s.flag(K_NEED_CPU));
    out.put(K_NEED_CPU, Value::from_bool(need_cpu));
    out.put(
        K_CPU_CACHE,
        Value::from_bool(inputs.iter().any(|s| s.flag(K_CPU_CACHE))),
    );
    let perm = inputs
        .iter()
        .filter_map(|s| s.get(K_REQ_PERM))
        .map(Value::as_u32)
        .max()
        .unwrap_or(NvSciBufAccessPerm_Readonly.0);
    out.put(K_ACTUAL_PERM, Value::from_u32(perm));
    out.put(K_CPU_SW_COHERENCY, Value::from_bool(false));
    let mut gpus = union_gpu_ids(inputs, K_GPU_ID);
    if gpus.is_empty() {
        gpus.push([0; 16]); // the documented "invalid id" default
    }
    out.put(K_GPU_ID, Value::from_bytes(&gpus.concat()));
    // EnableGpuCache: AND per GPU id over the lists that name it.
    let mut cache: Vec<([u8; 16], bool)> = Vec::new();
    for s in inputs {
        if let Some(v) = s.get(K_GPU_CACHE) {
            for c in v.bytes().chunks_exact(17) {
                let mut id = [0u8; 16];
                id.copy_from_slice(&c[..16]);
                match cache.iter_mut().find(|e| e.0 == id) {
                    Some(e) => e.1 &= c[16] != 0,
                    None => cache.push((id, c[16] != 0)),
                }
            }
        }
    }
    if !cache.is_empty() {
        let enc = |f: &dyn Fn(bool) -> bool| {
            let b: Vec<u8> = cache
                .iter()
                .flat_map(|(id, c)| id.iter().copied().chain([u8::from(f(*c))]))
                .collect();
            Value::from_bytes(&b)
        };
        out.put(K_GPU_CACHE, enc(&|c| c));
        out.put(K_GPU_SW_COHERENCY, enc(&|_| false));
    }

    let mut info = BufInfo {
        size: 0,
        align: PAGE,
        need_cpu,
        perm,
    };
    if conflicts == 0 && ty == NvSciBufType_RawBuffer {
        match agreed(K_RAW_SIZE, &mut conflicts) {
            Some(v) => {
                info.size = v.as_u64();
                out.put(K_RAW_SIZE, v);
            }
            None => conflicts |= 1 << K_RAW_SIZE,
        }
        info.align = match max_u64(K_RAW_ALIGN) {
            Some(a) => a.max(1),
            None => PAGE,
        };
        out.put(K_RAW_ALIGN, Value::from_u64(info.align));
    } else if conflicts == 0 {
        let dt = agreed(K_T_DATATYPE, &mut conflicts);
        let nd = agreed(K_T_NUMDIMS, &mut conflicts);
        let sz = agreed(K_T_SIZES, &mut conflicts);
        for (k, v) in [(K_T_DATATYPE, &dt), (K_T_NUMDIMS, &nd), (K_T_SIZES, &sz)] {
            if v.is_none() {
                conflicts |= 1 << k;
            }
        }
        let n = nd.as_ref().map_or(0, |v| v.as_u32() as usize);
        let mut aligns = vec![1u32; n];
        let mut any_align = false;
        for s in inputs {
            if let Some(v) = s.get(K_T_ALIGNS) {
                any_align = true;
                let a: Vec<u32> = v.u32s().collect();
                if a.len() < n {
                    conflicts |= 1 << K_T_ALIGNS;
                    conflicts |= 1 << K_T_NUMDIMS;
                    continue;
                }
                for (o, x) in aligns.iter_mut().zip(a) {
                    *o = (*o).max(x);
                }
            }
        }
        if !any_align {
            conflicts |= 1 << K_T_ALIGNS;
        }
        let sizes: Vec<u64> = sz.as_ref().map(|v| v.u64s().collect()).unwrap_or_default();
        if sz.is_some() && sizes.len() < n {
            conflicts |= 1 << K_T_SIZES;
            conflicts |= 1 << K_T_NUMDIMS;
        }
        if let (0, Some(dt), Some(nd), Some(_)) = (conflicts, dt, nd, sz) {
            match tensor_layout(dt.as_u32(), &sizes[..n], &aligns) {
                Some((strides, size)) => {
                    info.size = size;
                    out.put(K_T_DATATYPE, dt);
                    out.put(K_T_NUMDIMS, nd);
                    out.put(K_T_SIZES, Value::from_u64s(&sizes[..n]));
                    out.put(K_T_ALIGNS, Value::from_u32s(&aligns));
                    out.put(K_T_STRIDES, Value::from_u64s(&strides));
                    out.put(K_T_SIZE, Value::from_u64(size));
                }
                None => conflicts |= 1 << K_T_SIZES,
            }
        }
        info.align = max_u64(K_T_BASE_ALIGN).unwrap_or(PAGE);
        out.put(K_T_BASE_ALIGN, Value::from_u64(info.align));
    }

    if conflicts != 0 {
        return Err(ReconError::Conflict(conflict_slots(inputs, conflicts)));
    }
    Ok((out, info))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
