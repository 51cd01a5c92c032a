//! Reference model of the timestamp kernel (`kernels/cuda/timing.cu`).

/// Reference model of `stamp_globaltimer`: writes `now_ns` to `slot`.
///
/// On the GPU the kernel writes the PTX `%globaltimer` register (ns). In SIL, `now_ns` is the
/// SIL CUDA stream clock at the moment the launch executes, supplied by the caller.
pub fn stamp_globaltimer(slot: &mut u64, now_ns: u64) {
    *slot = now_ns;
}
