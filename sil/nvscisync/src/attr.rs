//! Attribute lists: storage, key validation and reconciliation.
//!
//! A list has one or more slots (more after `NvSciSyncAttrListAppendUnreconciled`); each slot
//! stores the raw bytes of each key that was set, 8-byte aligned so the pointers returned by
//! the get calls can be read as the key's C type. A value is never replaced while its list
//! is alive (a set key is locked), so those pointers stay valid for the list's life.

use std::sync::Mutex;

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

/// Primitive types the SIL implements, as a bit set over `NvSciSyncAttrValPrimitiveType`.
pub(crate) const SIL_PRIMITIVES: u32 =
    1 << NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0;

/// Primitives NvSciSync adds for a list with `NeedCpuAccess` and no `PrimitiveInfo`.
const CPU_PRIMITIVES: u32 = (1 << NvSciSyncAttrValPrimitiveType_Syncpoint.0)
    | (1 << NvSciSyncAttrValPrimitiveType_SysmemSemaphore.0)
    | (1 << NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0);

/// The bytes of one attribute value, stored 8-byte aligned.
#[derive(Clone, Debug)]
pub(crate) struct Value {
    words: Box<[u64]>,
    len: usize,
}

impl Value {
    /// A copy of `bytes`.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8).max(1)].into_boxed_slice();
        // SAFETY: `words` holds at least `bytes.len()` bytes; the regions do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                words.as_mut_ptr().cast::<u8>(),
                bytes.len(),
            );
        }
        Value {
            words,
            len: bytes.len(),
        }
    }
    pub(crate) fn from_bool(v: bool) -> Self {
        Self::from_bytes(&[u8::from(v)])
    }
    pub(crate) fn from_u32(v: u32) -> Self {
        Self::from_bytes(&v.to_ne_bytes())
    }
    pub(crate) fn from_u64(v: u64) -> Self {
        Self::from_bytes(&v.to_ne_bytes())
    }
    pub(crate) fn from_u32s(v: &[u32]) -> Self {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        Self::from_bytes(&bytes)
    }
    /// The stored bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `words` owns at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
    /// Pointer to the stored bytes (8-byte aligned, valid while the value lives).
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.words.as_ptr().cast()
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    pub(crate) fn as_bool(&self) -> bool {
        self.bytes().first().is_some_and(|b| *b != 0)
    }
    pub(crate) fn as_u64(&self) -> u64 {
        let mut b = [0u8; 8];
        let n = self.len.min(8);
        b[..n].copy_from_slice(&self.bytes()[..n]);
        u64::from_ne_bytes(b)
    }
    pub(crate) fn u32s(&self) -> impl Iterator<Item = u32> + '_ {
        self.bytes()
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
    }
}

/// The keys of one slot.
#[derive(Clone, Default, Debug)]
pub(crate) struct Slot {
    /// Value per key (index = key value).
    pub vals: [Option<Value>; KEY_COUNT],
    /// Keys set in this list (bit = key): they may not be set again.
    pub locked: u32,
}

impl Slot {
    pub(crate) fn get(&self, key: usize) -> Option<&Value> {
        self.vals.get(key).and_then(Option::as_ref)
    }
    fn flag(&self, key: usize) -> bool {
        self.get(key).is_some_and(Value::as_bool)
    }
    fn perm(&self) -> u64 {
        self.get(K_REQUIRED_PERM).map_or(0, Value::as_u64)
    }
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
}

/// The contents of an attribute list.
#[derive(Clone, Debug)]
pub(crate) struct ListData {
    /// One slot, or more for an appended list.
    pub slots: Vec<Slot>,
    /// `NvSciSyncAttrListSetAttrs` allowed (single-slot unreconciled lists only).
    pub writable: bool,
    /// `Some` for a reconciled list.
    pub recon: Option<ReconInfo>,
    /// Values replaced by a set on a cloned list, kept so that pointers handed out
    /// before stay valid for the list's life.
    pub retired: Vec<Value>,
}

impl ListData {
    /// A new, empty, writable unreconciled list.
    pub(crate) fn new_unreconciled() -> Self {
        ListData {
            slots: vec![Slot::default()],
            writable: true,
            recon: None,
            retired: Vec::new(),
        }
    }
}

/// An attribute list.
#[derive(Debug)]
pub(crate) struct AttrList {
    /// Handle of the module it is bound to.
    pub module: u64,
    /// Its contents.
    pub data: Mutex<ListData>,
}

impl AttrList {
    pub(crate) fn new(module: u64, data: ListData) -> Self {
        AttrList {
            module,
            data: Mutex::new(data),
        }
    }
    /// Locks the contents.
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, ListData> {
        self.data
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

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
            for c in b.chunks_exact(4) {
                let p = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
                if !(NvSciSyncAttrValPrimitiveType_LowerBound.0 + 1
                    ..NvSciSyncAttrValPrimitiveType_UpperBound.0)
                    .contains(&p)
                {
                    return bad;
                }
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
        .filter(|s| s.perm() & NvSciSyncAccessPerm_SignalOnly != 0)
        .count();
    let waiters = inputs
        .iter()
        .filter(|s| s.perm() & NvSciSyncAccessPerm_WaitOnly != 0)
        .count();
    let perm_ok = signalers == 1 && waiters >= 1;

    let mut allowed = SIL_PRIMITIVES;
    for s in inputs {
        if let Some(v) = s.get(K_PRIM_INFO) {
            allowed &= v.u32s().fold(0u32, |m, p| m | (1u32 << p));
        } else if s.flag(K_NEED_CPU) {
            allowed &= CPU_PRIMITIVES;
        }
    }
    let prim_ok = allowed != 0;

    if !perm_ok || !prim_ok {
        let mut keys = Vec::new();
        if !perm_ok {
            keys.push(K_REQUIRED_PERM);
        }
        if !prim_ok {
            keys.push(K_PRIM_INFO);
        }
        let mut out = Vec::new();
        for s in inputs {
            let mut c = Slot::default();
            let mut any = false;
            for &k in &keys {
                if let Some(v) = s.get(k) {
                    c.vals[k] = Some(v.clone());
                    c.locked |= 1 << k;
                    any = true;
                }
            }
            if any {
                out.push(c);
            }
        }
        if out.is_empty() {
            out.push(Slot::default());
        }
        return Err(out);
    }

    let is_waiter = |s: &Slot| s.perm() & NvSciSyncAccessPerm_WaitOnly != 0;
    let info = ReconInfo {
        need_cpu: inputs.iter().any(|s| s.flag(K_NEED_CPU)),
        cpu_signaler: inputs
            .iter()
            .any(|s| s.perm() & NvSciSyncAccessPerm_SignalOnly != 0 && s.flag(K_NEED_CPU)),
        cpu_waiter: inputs.iter().any(|s| is_waiter(s) && s.flag(K_NEED_CPU)),
        timestamps: inputs
            .iter()
            .any(|s| is_waiter(s) && s.flag(K_NEED_CPU) && s.flag(K_TIMESTAMPS)),
        deterministic: inputs.iter().any(|s| s.flag(K_DETERMINISTIC)),
    };
    let perm_or = inputs.iter().fold(0u64, |a, s| a | s.perm());
    let mut gpus: Vec<[u8; 16]> = Vec::new();
    for s in inputs {
        if let Some(v) = s.get(K_GPU_ID) {
            for c in v.bytes().chunks_exact(16) {
                let mut id = [0u8; 16];
                id.copy_from_slice(c);
                if !gpus.contains(&id) {
                    gpus.push(id);
                }
            }
        }
    }

    let mut out = Slot::default();
    let mut put = |k: usize, v: Value| {
        out.vals[k] = Some(v);
        out.locked |= 1 << k;
    };
    put(K_NEED_CPU, Value::from_bool(info.need_cpu));
    put(K_REQUIRED_PERM, Value::from_u64(perm_or));
    put(
        K_ACTUAL_PERM,
        Value::from_u64(NvSciSyncAccessPerm_WaitSignal),
    );
    put(
        K_CTX_INSENSITIVE,
        Value::from_bool(inputs.iter().any(|s| s.flag(K_CTX_INSENSITIVE))),
    );
    put(K_TIMESTAMPS, Value::from_bool(info.timestamps));
    put(K_DETERMINISTIC, Value::from_bool(info.deterministic));
    put(
        K_NUM_TS_SLOTS,
        Value::from_u32(if info.timestamps {
            NUM_TIMESTAMP_SLOTS
        } else {
            0
        }),
    );
    put(K_NUM_TASK_SLOTS, Value::from_u32(0));
    put(K_MAX_PRIM, Value::from_u64(u64::MAX));
    put(
        K_PRIM_INFO,
        Value::from_u32s(&[NvSciSyncAttrValPrimitiveType_SysmemSemaphorePayload64b.0]),
    );
    if !gpus.is_empty() {
        put(K_GPU_ID, Value::from_bytes(&gpus.concat()));
    }
    Ok((out, info))
}

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
    fn value_round_trips_and_is_aligned() {
        let v = Value::from_u64(0x1122_3344_5566_7788);
        assert_eq!(v.as_u64(), 0x1122_3344_5566_7788);
        assert_eq!(v.as_ptr() as usize % 8, 0);
        assert_eq!(v.len(), 8);
        let v = Value::from_u32s(&[4, 2]);
        assert_eq!(v.u32s().collect::<Vec<_>>(), vec![4, 2]);
        assert!(Value::from_bool(true).as_bool());
    }

    #[test]
    fn wait_signal_counts_as_signaler_and_waiter() {
        let (_, info) = reconcile(&[slot(NvSciSyncAccessPerm_WaitSignal, true)]).unwrap();
        assert!(info.cpu_signaler && info.cpu_waiter);
        assert!(reconcile(&[slot(3, false), slot(2, false)]).is_err());
    }
}
