//! Validation of a reconciled list against unreconciled lists
//! (`NvSciBufAttrListValidateReconciled`, `NvSciBufAttrListValidateReconciledAgainstAttrs`,
//! `NvSciBufObjAttachPeer`).
//!
//! The reconciled list is valid for the inputs when reconciling the inputs together with
//! the reconciled list's own input values succeeds and changes nothing: every "must
//! match" key then agrees, every "maximum" key (alignments) and every "OR" key
//! (`NeedCpuAccess`, `EnableCpuCache`, `VprFlag`) stays as it is, `Types` and `GpuId` gain
//! no value, and every computed size, offset, pitch and stride is at most the reconciled
//! one. `ActualPerm` must be at least the largest input `RequiredPerm`, and a GPU the
//! inputs leave uncompressed must be uncompressed (the "During validation" paragraphs of
//! the key documentation in nvscibuf.h).

use nvsci_sys::*;
use sil_common::attr::ne_u32s;

use crate::attr::{GPU_COMPRESSION_LEN, reconcile};
use crate::keys::{self, Access, KEYS, NK};
use crate::list::{Slot, Value};

/// Keys compared as "computed by reconciliation: at most the reconciled value", element
/// by element (`uint64_t` values).
const LE_U64: [usize; 12] = [
    keys::IMG_SIZE,
    keys::IMG_ALIGNMENT,
    keys::IMG_OFFSET,
    keys::IMG_SECOND_FIELD,
    keys::IMG_ALIGNED_SIZE,
    keys::T_STRIDES,
    keys::T_SIZE,
    keys::A_SIZE,
    keys::A_ALIGNMENT,
    keys::P_LEVEL_OFFSET,
    keys::P_LEVEL_SIZE,
    keys::P_ALIGNMENT,
];
/// As [`LE_U64`], `uint32_t` values.
const LE_U32: [usize; 2] = [keys::IMG_PITCH, keys::IMG_ALIGNED_HEIGHT];
/// Keys not compared directly.
const SKIP: [usize; 6] = [
    keys::REQ_PERM,
    keys::ACTUAL_PERM,
    keys::CPU_SW_COHERENCY,
    keys::GPU_CACHE,
    keys::GPU_SW_COHERENCY,
    keys::GPU_COMPRESSION,
];

/// The reconciled list's input values as one more unreconciled slot.
fn as_input(recon: &Slot) -> Slot {
    let mut s = Slot::default();
    let surface = recon.get(keys::SURF_TYPE).is_some();
    for (k, d) in KEYS.iter().enumerate() {
        let Some(v) = recon.get(k) else { continue };
        let skip = d.access == Access::Out
            || k == keys::GPU_CACHE
            || k == keys::GPU_COMPRESSION
            // The default invalid GPU id and the default zero paddings are not requests.
            || (k == keys::GPU_ID && v.bytes().iter().all(|b| *b == 0))
            || (keys::PLANE_KEYS[6..].contains(&k) && v.u64s().all(|x| x == 0))
            // A surface-based image lists its planes too: only its surface keys are input.
            || (surface && keys::PLANE_KEYS.contains(&k));
        if !skip {
            s.put(k, v.clone());
        }
    }
    s
}

fn le<T: PartialOrd>(a: impl Iterator<Item = T>, b: impl Iterator<Item = T>) -> bool {
    let (a, b): (Vec<T>, Vec<T>) = (a.collect(), b.collect());
    a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x <= y)
}

/// Whether `recon` (a reconciled slot) satisfies the constraints of `inputs`.
pub(crate) fn satisfies(recon: &Slot, inputs: &[Slot]) -> bool {
    let mut all = inputs.to_vec();
    all.push(as_input(recon));
    let Ok((merged, _)) = reconcile(&all) else {
        return false;
    };
    // ActualPerm: at least the largest RequiredPerm of the inputs (Readonly by default).
    let need = inputs
        .iter()
        .filter_map(|s| s.get(keys::REQ_PERM))
        .map(Value::as_u32)
        .max()
        .unwrap_or(NvSciBufAccessPerm_Readonly.0);
    if recon.get(keys::ACTUAL_PERM).map_or(0, Value::as_u32) < need {
        return false;
    }
    if merged.flag(keys::CPU_SW_COHERENCY) && !recon.flag(keys::CPU_SW_COHERENCY) {
        return false;
    }
    if !compression_ok(&merged, recon) {
        return false;
    }
    (0..NK)
        .filter(|k| !SKIP.contains(k))
        .all(|k| match (merged.get(k), recon.get(k)) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(m), Some(r)) if LE_U64.contains(&k) => le(m.u64s(), r.u64s()),
            (Some(m), Some(r)) if LE_U32.contains(&k) => le(m.u32s(), r.u32s()),
            (Some(m), Some(r)) => m.bytes() == r.bytes(),
        })
}

/// A GPU that the inputs leave uncompressed must not be compressed in `recon`.
fn compression_ok(merged: &Slot, recon: &Slot) -> bool {
    let (Some(m), Some(r)) = (
        merged.get(keys::GPU_COMPRESSION),
        recon.get(keys::GPU_COMPRESSION),
    ) else {
        return true;
    };
    let none = NvSciBufCompressionType_None.0;
    m.bytes().chunks_exact(GPU_COMPRESSION_LEN).all(|mc| {
        let mty = ne_u32s(&mc[16..]).next();
        r.bytes()
            .chunks_exact(GPU_COMPRESSION_LEN)
            .find(|rc| rc[..16] == mc[..16])
            .is_none_or(|rc| mty != Some(none) || ne_u32s(&rc[16..]).next() == Some(none))
    })
}
