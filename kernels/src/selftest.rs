//! Reference models of the back-to-back test kernels (`kernels/cuda/selftest.cu`).

use crate::ModelError;
use crate::fp::fmaf;

/// The value `fill_pattern_u32` writes at index `i` (a 32-bit integer mix, wrapping
/// arithmetic; identical to `pattern_u32` in `selftest.cu`).
pub const fn pattern_u32(i: u32, seed: u32) -> u32 {
    let mut x = i.wrapping_mul(0x9E37_79B9).wrapping_add(seed);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^= x >> 16;
    x
}

/// Reference model of `fill_pattern_u32`: `dst[i] = pattern_u32(i, seed)` for `i < n`.
///
/// `dst` needs at least `n` elements (longer is fine; the rest is untouched). Expected to match
/// the GPU bit-exactly.
pub fn fill_pattern_u32(dst: &mut [u32], n: u32, seed: u32) -> Result<(), ModelError> {
    ModelError::check_len("dst", Some(n as usize), dst.len())?;
    for (i, d) in (0u32..).zip(dst.iter_mut().take(n as usize)) {
        *d = pattern_u32(i, seed);
    }
    Ok(())
}

/// Reference model of `saxpy_f32`: `y[i] = fmaf(a, x[i], y[i])` for `i < n`.
///
/// `x` and `y` need at least `n` elements each. Expected to match bit-exactly (one correctly
/// rounded FMA on both sides); the back-to-back test allows [`crate::fp::SAXPY_MAX_ULPS`].
pub fn saxpy_f32(a: f32, x: &[f32], y: &mut [f32], n: u32) -> Result<(), ModelError> {
    let n = n as usize;
    ModelError::check_len("x", Some(n), x.len())?;
    ModelError::check_len("y", Some(n), y.len())?;
    for (yi, &xi) in y.iter_mut().zip(x).take(n) {
        *yi = fmaf(a, xi, *yi);
    }
    Ok(())
}
