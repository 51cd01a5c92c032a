//! Attribute lists: storage, key validation and reconciliation.
//!
//! A list has one or more slots (more after `NvSciSyncAttrListAppendUnreconciled`); each slot
//! stores the raw bytes of each key that was set, 8-byte aligned so the pointers returned by
//! the get calls can be read as the key's C type. A value is never replaced while its list
//! is alive (a set key is locked), so those pointers stay valid for the list's life.

use nvsci_sys::{
    NvSciError, NvSciError_BadParameter, NvSciSyncAccessPerm_SignalOnly,
    NvSciSyncAccessPerm_WaitOnly, NvSciSyncAccessPerm_WaitSignal, NvSciSyncAttrKey_ActualPerm,
    NvSciSyncAttrKey_GpuId, NvSciSyncAttrKey_MaxPrimitiveValue, NvSciSyncAttrKey_NeedCpuAccess,
    NvSciSyncAttrKey_NumTaskStatusSlots, NvSciSyncAttrKey_NumTimestampSlots,
    NvSciSyncAttrKey_PeerHwEngineArray, NvSciSyncAttrKey_PeerLocationInfo,
    NvSciSyncAttrKey_PrimitiveInfo, NvSciSyncAttrKey_RequireDeterministicFences,
    NvSciSyncAttrKey_RequiredPerm, NvSciSyncAttrKey_UpperBound,
    NvSciSyncAttrKey_WaiterContextInsensitiveFenceExports,
    NvSciSyncAttrKey_WaiterRequireTimestamps, NvSciSyncAttrValPrimitiveType_LowerBound,
    NvSciSyncAttrValPrimitiveType_Syncpoint, NvSciSyncAttrValPrimitiveType_SysmemSemaphore,
    NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b,
    NvSciSyncAttrValPrimitiveType_UpperBound,
};
use sil_common::attr::{conflict_slots, ne_u32s, union_gpu_ids};

/// Number of key slots (keys `0..UpperBound`).
pub(crate) const KEY_COUNT: usize = NvSciSyncAttrKey_UpperBound.0 as usize;

/// Timestamp slots of an object whose waiter asked for timestamps (= the signal ring).
pub(crate) const NUM_TIMESTAMP_SLOTS: u32 = 512;

pub(crate) const K_NEED_CPU: usize = NvSciSyncAttrKey_NeedCpuAccess.0 as usize;
pub(crate) const K_REQUIRED_PERM: usize = NvSciSyncAttrKey_RequiredPerm.0 as usize;
pub(crate) const K_ACTUAL_PERM: usize = NvSciSyncAttrKey_ActualPerm.0 as usize;
pub(crate) const K_CTX_INSENSITIVE: usize =
    NvSciSyncAttrKey_WaiterContextInsensitiveFenceExports.0 as usize;
pub(crate) const K_TIMESTAMPS: usize = NvSciSyncAttrKey_WaiterRequireTimestamps.0 as usize;
pub(crate) const K_DETERMINISTIC: usize = NvSciSyncAttrKey_RequireDeterministicFences.0 as usize;
pub(crate) const K_NUM_TS_SLOTS: usize = NvSciSyncAttrKey_NumTimestampSlots.0 as usize;
pub(crate) const K_NUM_TASK_SLOTS: usize = NvSciSyncAttrKey_NumTaskStatusSlots.0 as usize;
pub(crate) const K_MAX_PRIM: usize = NvSciSyncAttrKey_MaxPrimitiveValue.0 as usize;
pub(crate) const K_PRIM_INFO: usize = NvSciSyncAttrKey_PrimitiveInfo.0 as usize;
pub(crate) const K_PEER_LOC: usize = NvSciSyncAttrKey_PeerLocationInfo.0 as usize;
pub(crate) const K_GPU_ID: usize = NvSciSyncAttrKey_GpuId.0 as usize;
pub(crate) const K_PEER_HW: usize = NvSciSyncAttrKey_PeerHwEngineArray.0 as usize;

/// Bit of a primitive type in a set over `NvSciSyncAttrValPrimitiveType`.
const fn bit(p: u32) -> u32 {
    1 << p
}

const SYNCPOINT: u32 = NvSciSyncAttrValPrimitiveType_Syncpoint.0;
const SEMAPHORE64: u32 = NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0;

/// Primitive types the SIL implements: the sync point and the 64-bit sysmem semaphore.
pub(crate) const SIL_PRIMITIVES: u32 = bit(SYNCPOINT) | bit(SEMAPHORE64);

/// Primitives NvSciSync adds for a list with `NeedCpuAccess` and no `PrimitiveInfo`, in
/// the order nvscisync.h lists them (`NvSciSyncAttrKey_NeedCpuAccess`); also the order of
/// preference when no list gives one.
const CPU_PRIMITIVE_ORDER: [u32; 3] = [
    SYNCPOINT,
    NvSciSyncAttrValPrimitiveType_SysmemSemaphore.0,
    SEMAPHORE64,
];

const CPU_PRIMITIVES: u32 =
    bit(CPU_PRIMITIVE_ORDER[0]) | bit(CPU_PRIMITIVE_ORDER[1]) | bit(CPU_PRIMITIVE_ORDER[2]);

/// The primitive backing an object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Prim {
    /// `SysmemSemaphorePayload64b`: a 64-bit counter in memory, primitive id 0.
    #[default]
    Semaphore64,
    /// `Syncpoint`: a 32-bit counter with its own non-zero id and a threshold.
    Syncpoint,
}

impl Prim {
    /// The `NvSciSyncAttrValPrimitiveType` value.
    pub(crate) fn type_value(self) -> u32 {
        match self {
            Prim::Semaphore64 => SEMAPHORE64,
            Prim::Syncpoint => SYNCPOINT,
        }
    }

    /// The largest value (`NvSciSyncAttrKey_MaxPrimitiveValue`), also the mask of values.
    pub(crate) fn max_value(self) -> u64 {
        match self {
            Prim::Semaphore64 => u64::MAX,
            Prim::Syncpoint => u64::from(u32::MAX),
        }
    }

    fn of_type(p: u32) -> Option<Self> {
        match p {
            SEMAPHORE64 => Some(Prim::Semaphore64),
            SYNCPOINT => Some(Prim::Syncpoint),
            _ => None,
        }
    }
}

// Value, slot, contents and list types of this library (storage: `sil_common::attr`).
pub(crate) use sil_common::attr::Value;
/// The keys of one slot (index = key value).
pub(crate) type Slot = sil_common::attr::Slot<KEY_COUNT>;

fn perm(s: &Slot) -> u64 {
    s.get(K_REQUIRED_PERM).map_or(0, Value::as_u64)
}

/// What a reconciled list says about the object allocated from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReconInfo {
    /// Reconciled `NeedCpuAccess`.
    pub need_cpu: bool,
    /// The signaler's list asked for CPU access: `GenerateFence`/`ObjSignal` allowed.
    pub cpu_signaler: bool,
    /// A waiter's list asked for CPU access: `NvSciSyncFenceWait` allowed.
    pub cpu_waiter: bool,
    /// Timestamps on (a CPU waiter asked for them).
    pub timestamps: bool,
    /// Reconciled `RequireDeterministicFences`.
    pub deterministic: bool,
    /// The reconciled primitive.
    pub prim: Prim,
}

/// The contents of an attribute list (`retired`: values replaced by a set on a cloned
/// list, kept so that pointers handed out before stay valid for the list's life).
pub(crate) type ListData = sil_common::attr::ListData<ReconInfo, KEY_COUNT>;

/// An attribute list.
pub(crate) type AttrList = sil_common::attr::AttrList<ReconInfo, KEY_COUNT>;

/// Whether `key` is a key value the get calls accept (`LowerBound < key < UpperBound`).
pub(crate) fn key_in_range(key: u32) -> bool {
    key > 0 && (key as usize) < KEY_COUNT
}

/// Checks one (key, value) for `NvSciSyncAttrListSetAttrs` and copies the value.
pub(crate) fn validate_set(key: u32, bytes: Option<&[u8]>) -> Result<Value, NvSciError> {
    let bad = Err(NvSciError_BadParameter);
    if !key_in_range(key) {
        return bad;
    }
    let Some(b) = bytes else {
        return bad;
    };
    let k = key as usize;
    match k {
        K_NEED_CPU | K_CTX_INSENSITIVE | K_TIMESTAMPS | K_DETERMINISTIC => {
            if b.len() != 1 {
                return bad;
            }
        }
        K_REQUIRED_PERM => {
            if b.len() != 8 {
                return bad;
            }
            let v = u64::from_ne_bytes(b.try_into().map_err(|_| NvSciError_BadParameter)?);
            if !(NvSciSyncAccessPerm_WaitOnly..=NvSciSyncAccessPerm_WaitSignal).contains(&v) {
                return bad;
            }
        }
        K_PRIM_INFO => {
            if b.is_empty() || b.len() % 4 != 0 {
                return bad;
            }
            let valid = NvSciSyncAttrValPrimitiveType_LowerBound.0 + 1
                ..NvSciSyncAttrValPrimitiveType_UpperBound.0;
            if !ne_u32s(b).all(|p| valid.contains(&p)) {
                return bad;
            }
        }
        K_GPU_ID => {
            if b.is_empty() || b.len() % 16 != 0 {
                return bad;
            }
        }
        // Output-only keys, and the late-peer keys the SIL does not support.
        K_ACTUAL_PERM | K_NUM_TS_SLOTS | K_NUM_TASK_SLOTS | K_MAX_PRIM | K_PEER_LOC | K_PEER_HW => {
            return bad;
        }
        _ => return bad,
    }
    Ok(Value::from_bytes(b))
}

/// Reconciles the slots of the input lists. On a conflict returns the slots of the
/// conflict list (see `sil/README.md`).
pub(crate) fn reconcile(inputs: &[Slot]) -> Result<(Slot, ReconInfo), Vec<Slot>> {
    let signalers = inputs
        .iter()
        .filter(|s| perm(s) & NvSciSyncAccessPerm_SignalOnly != 0)
        .count();
    let waiters = inputs
        .iter()
        .filter(|s| perm(s) & NvSciSyncAccessPerm_WaitOnly != 0)
        .count();
    let perm_ok = signalers == 1 && waiters >= 1;

    // The primitives each slot allows (nvscisync.h `PrimitiveInfo`, `NeedCpuAccess`).
    let allowed_by = |s: &Slot| match s.get(K_PRIM_INFO) {
        Some(v) => v.u32s().fold(0u32, |m, p| m | bit(p)),
        None if s.flag(K_NEED_CPU) => CPU_PRIMITIVES,
        None => u32::MAX,
    };
    let allowed = inputs.iter().fold(SIL_PRIMITIVES, |a, s| a & allowed_by(s));
    let deterministic = inputs.iter().any(|s| s.flag(K_DETERMINISTIC));
    // Deterministic fences need the 64-bit semaphore (the signaler adds 1 to instance 0 at
    // each submission, nvscisync.h `RequireDeterministicFences`).
    let candidates = if deterministic {
        allowed & bit(SEMAPHORE64)
    } else {
        allowed
    };

    let mut mask = 0;
    if !perm_ok {
        mask |= 1 << K_REQUIRED_PERM;
    }
    if allowed == 0 {
        mask |= 1 << K_PRIM_INFO;
    } else if candidates == 0 {
        mask |= (1 << K_PRIM_INFO) | (1 << K_DETERMINISTIC);
    }
    if mask != 0 {
        return Err(conflict_slots(inputs, mask));
    }

    // Order of preference: the signaler's `PrimitiveInfo`, else the first slot's that has
    // one, else the header's order (sync point first).
    let is_signaler = |s: &&Slot| perm(s) & NvSciSyncAccessPerm_SignalOnly != 0;
    let order_list = inputs
        .iter()
        .find(is_signaler)
        .and_then(|s| s.get(K_PRIM_INFO))
        .or_else(|| inputs.iter().find_map(|s| s.get(K_PRIM_INFO)));
    let chosen = order_list
        .and_then(|v| v.u32s().find(|p| candidates & bit(*p) != 0))
        .or_else(|| {
            CPU_PRIMITIVE_ORDER
                .into_iter()
                .find(|p| candidates & bit(*p) != 0)
        })
        .and_then(Prim::of_type)
        .unwrap_or_default();

    let is_waiter = |s: &Slot| perm(s) & NvSciSyncAccessPerm_WaitOnly != 0;
    let info = ReconInfo {
        need_cpu: inputs.iter().any(|s| s.flag(K_NEED_CPU)),
        cpu_signaler: inputs
            .iter()
            .any(|s| perm(s) & NvSciSyncAccessPerm_SignalOnly != 0 && s.flag(K_NEED_CPU)),
        cpu_waiter: inputs.iter().any(|s| is_waiter(s) && s.flag(K_NEED_CPU)),
        timestamps: inputs
            .iter()
            .any(|s| is_waiter(s) && s.flag(K_NEED_CPU) && s.flag(K_TIMESTAMPS)),
        deterministic,
        prim: chosen,
    };
    let perm_or = inputs.iter().fold(0u64, |a, s| a | perm(s));
    let gpus = union_gpu_ids(inputs, K_GPU_ID);

    let mut out = Slot::default();
    out.put(K_NEED_CPU, Value::from_bool(info.need_cpu));
    out.put(K_REQUIRED_PERM, Value::from_u64(perm_or));
    out.put(
        K_ACTUAL_PERM,
        Value::from_u64(NvSciSyncAccessPerm_WaitSignal),
    );
    out.put(
        K_CTX_INSENSITIVE,
        Value::from_bool(inputs.iter().any(|s| s.flag(K_CTX_INSENSITIVE))),
    );
    out.put(K_TIMESTAMPS, Value::from_bool(info.timestamps));
    out.put(K_DETERMINISTIC, Value::from_bool(info.deterministic));
    out.put(
        K_NUM_TS_SLOTS,
        Value::from_u32(if info.timestamps {
            NUM_TIMESTAMP_SLOTS
        } else {
            0
        }),
    );
    out.put(K_NUM_TASK_SLOTS, Value::from_u32(0));
    out.put(K_MAX_PRIM, Value::from_u64(chosen.max_value()));
    out.put(K_PRIM_INFO, Value::from_u32s(&[chosen.type_value()]));
    if !gpus.is_empty() {
        out.put(K_GPU_ID, Value::from_bytes(&gpus.concat()));
    }
    Ok((out, info))
}

/// Whether the reconciled slot `rec` satisfies every slot of `inputs`
/// (`NvSciSyncAttrListValidateReconciled`, the per-key rules of nvscisync.h):
///
/// * `NeedCpuAccess`: true if some input set it, false if none did;
/// * `ActualPerm` covers every input's `RequiredPerm`;
/// * the reconciled primitive is one every input allows (its `PrimitiveInfo`, the set
///   `NeedCpuAccess` implies, or any);
/// * `RequireDeterministicFences`, `WaiterContextInsensitiveFenceExports`: true if some
///   input set it;
/// * `WaiterRequireTimestamps`: true if some waiter input with `NeedCpuAccess` asked;
/// * `GpuId`: holds every input's GPU ids.
pub(crate) fn satisfies(rec: &Slot, info: &ReconInfo, inputs: &[Slot]) -> bool {
    let rec_flag = |k| rec.flag(k);
    let any = |k| inputs.iter().any(|s| s.flag(k));
    let actual = rec.get(K_ACTUAL_PERM).map_or(0, Value::as_u64);
    let prim = bit(info.prim.type_value());
    let allows = |s: &Slot| match s.get(K_PRIM_INFO) {
        Some(v) => v.u32s().any(|p| bit(p) == prim),
        None if s.flag(K_NEED_CPU) => CPU_PRIMITIVES & prim != 0,
        None => true,
    };
    let is_waiter = |s: &Slot| perm(s) & NvSciSyncAccessPerm_WaitOnly != 0;
    let wants_ts = inputs
        .iter()
        .any(|s| is_waiter(s) && s.flag(K_NEED_CPU) && s.flag(K_TIMESTAMPS));
    let gpus = union_gpu_ids(inputs, K_GPU_ID);
    // Sorted, for a binary search per input id: O(n log n), not a scan per id.
    let mut rec_gpus = union_gpu_ids(std::slice::from_ref(rec), K_GPU_ID);
    rec_gpus.sort_unstable();
    rec_flag(K_NEED_CPU) == any(K_NEED_CPU)
        && inputs.iter().all(|s| perm(s) & !actual == 0)
        && inputs.iter().all(allows)
        && (!any(K_DETERMINISTIC) || rec_flag(K_DETERMINISTIC))
        && (!any(K_CTX_INSENSITIVE) || rec_flag(K_CTX_INSENSITIVE))
        && (!wants_ts || rec_flag(K_TIMESTAMPS))
        && gpus.iter().all(|g| rec_gpus.binary_search(g).is_ok())
}

/// Word 0 of a `NvSciSyncAttrListDebugDump` blob ("NvSSilL" + format version 1).
pub(crate) const DUMP_MAGIC: u64 = 0x4E76_5353_696C_4C01;

/// The `NvSciSyncAttrListDebugDump` blob of a list (see `sil/README.md`): a header of
/// three `u64` (magic, flags: bit 0 reconciled, bit 1 writable; slot count), then one
/// record per set key of each slot in slot and key order: `u32` slot index, `u32` key,
/// `u64` length, the value's bytes zero-padded to a multiple of 8.
pub(crate) fn dump(data: &ListData) -> Vec<u8> {
    let mut out = Vec::new();
    let flags = u64::from(data.recon.is_some()) | (u64::from(data.writable) << 1);
    for w in [DUMP_MAGIC, flags, data.slots.len() as u64] {
        out.extend_from_slice(&w.to_ne_bytes());
    }
    for (i, slot) in data.slots.iter().enumerate() {
        for k in 0..KEY_COUNT {
            if let Some(v) = slot.get(k) {
                out.extend_from_slice(&(i as u32).to_ne_bytes());
                out.extend_from_slice(&(k as u32).to_ne_bytes());
                out.extend_from_slice(&(v.len() as u64).to_ne_bytes());
                out.extend_from_slice(v.bytes());
                out.resize(out.len().next_multiple_of(8), 0);
            }
        }
    }
    out
}

/// Covers: REQ-SYNC-001
#[cfg(test)]
mod tests {
    use super::*;

    fn slot(perm: u64, cpu: bool) -> Slot {
        let mut s = Slot::default();
        s.vals[K_REQUIRED_PERM] = Some(Value::from_u64(perm));
        s.vals[K_NEED_CPU] = Some(Value::from_bool(cpu));
        s
    }

    #[test]
    fn wait_signal_counts_as_signaler_and_waiter() {
        let (_, info) = reconcile(&[slot(NvSciSyncAccessPerm_WaitSignal, true)]).unwrap();
        assert!(info.cpu_signaler && info.cpu_waiter);
        assert!(reconcile(&[slot(3, false), slot(2, false)]).is_err());
    }
}
