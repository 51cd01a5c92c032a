//! SIL-only extension calls and structs (feature `sil-ext`), as specified in
//! `docs/architecture.md` ("SIL extension calls"). Only `sil-cuda` defines these
//! symbols; the link stubs and `check-against-sdk.sh` ignore this module.

use crate::{CUfunction, CUresult};

/// Execution-time model of a SIL kernel: the same layout and meaning as cuDLA's
/// `cudlaSilTimingModel` (48 bytes; `kind` 0 fixed, 1 uniform, 2 histogram).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct cuSilTimingModel {
    /// 0 fixed (`minNs`), 1 uniform (`[minNs, maxNs]`), 2 histogram.
    pub kind: u32,
    /// Histogram: number of bins.
    pub numBins: u32,
    /// Fixed: the time; uniform: lower bound; histogram: lower edge of bin 0.
    pub minNs: u64,
    /// Uniform: upper bound.
    pub maxNs: u64,
    /// Histogram: upper edge of each bin.
    pub binUpperNs: *const u64,
    /// Histogram: relative weight of each bin.
    pub binWeights: *const u32,
    /// RNG seed; the same seed gives the same sequence.
    pub seed: u64,
}

unsafe extern "C" {
    /// Sets the timing model of a kernel (default: fixed 20 µs).
    pub fn cuSilSetKernelTimingModel(f: CUfunction, model: *const cuSilTimingModel) -> CUresult;
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    use core::mem::{align_of, offset_of, size_of};

    assert!(size_of::<cuSilTimingModel>() == 48);
    assert!(align_of::<cuSilTimingModel>() == 8);
    assert!(offset_of!(cuSilTimingModel, kind) == 0);
    assert!(offset_of!(cuSilTimingModel, numBins) == 4);
    assert!(offset_of!(cuSilTimingModel, minNs) == 8);
    assert!(offset_of!(cuSilTimingModel, maxNs) == 16);
    assert!(offset_of!(cuSilTimingModel, binUpperNs) == 24);
    assert!(offset_of!(cuSilTimingModel, binWeights) == 32);
    assert!(offset_of!(cuSilTimingModel, seed) == 40);
};
