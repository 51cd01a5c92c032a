//! Floating-point helpers that reproduce the CUDA operations the kernels use, bit for bit, in
//! `no_std` Rust (where `f32::mul_add` and `f32::round` are not available), and the tolerance
//! policy for comparing GPU results with the reference models.
//!
//! # Tolerance policy
//!
//! The kernels are written so that the reference models are expected to match **bit-exactly**:
//! no fast-math, IEEE division (`__fdiv_rn`), explicit round-to-nearest arithmetic
//! (`__fmul_rn`, `__fadd_rn`, `__fsub_rn`) where nvcc could otherwise contract to FMA, and an
//! explicit `fmaf` where an FMA is wanted (reproduced here by [`fmaf`], a correctly rounded
//! software FMA). Denormals are not flushed (no `-ftz`). The back-to-back tests (GPU vs
//! model) still allow a small, documented slack so that a compiler change shows up as a
//! reviewable tolerance hit rather than a flaky bit mismatch:
//!
//! * integer kernels (`aeb_preprocess`, `fill_pattern_u32`) and every integer output of
//!   `aeb_postprocess` (`found`, `row`, `score`): **bit-exact**;
//! * `aeb_postprocess` `distance_mm`: `|gpu - model| <= 1` mm ([`DISTANCE_MM_TOLERANCE`]);
//! * `saxpy_f32`: at most 1 ulp ([`SAXPY_MAX_ULPS`]), with any NaN equal to any NaN (the GPU
//!   returns the canonical NaN, the model may keep a payload); see [`f32_within_ulps`].

/// `aeb_postprocess` `distance_mm`: the largest allowed `|gpu - model|`, in mm.
pub const DISTANCE_MM_TOLERANCE: i32 = 1;

/// `saxpy_f32`: the largest allowed distance between GPU and model results, in ulps.
pub const SAXPY_MAX_ULPS: u32 = 1;

/// `fmaf(a, b, c)`: `a * b + c` with a single rounding to nearest-even, like CUDA's `fmaf`
/// (`fma.rn.f32`, denormals preserved).
///
/// `a * b` is exact in `f64` (24 + 24 significand bits). The sum is computed in `f64` and
/// rounded *to odd* (the exact error comes from Knuth's TwoSum), which has at least 2 more bits
/// than `f32`; rounding that to `f32` is then correctly rounded, including for `f32` subnormal
/// results (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums", 2008).
pub fn fmaf(a: f32, b: f32, c: f32) -> f32 {
    let p = f64::from(a) * f64::from(b);
    let z = f64::from(c);
    let s = p + z;
    if !s.is_finite() || s == 0.0 {
        // NaN, infinities, and exact zeros (whose sign IEEE addition already gets right).
        return s as f32;
    }
    // TwoSum: err = (p + z) - s exactly (no overflow: |p| <= 2^256, |z| < 2^128).
    let bv = s - p;
    let err = (p - (s - bv)) + (z - bv);
    let mut bits = s.to_bits();
    if err != 0.0 && bits & 1 == 0 {
        // Inexact and even: step to the odd neighbour on the side of the exact value.
        if (err > 0.0) == (s > 0.0) {
            bits += 1;
        } else {
            bits -= 1;
        }
    }
    f64::from_bits(bits) as f32
}

/// `(int32_t) roundf(x)` as CUDA computes it: round half away from zero, then convert with
/// saturation (`cvt.rzi.s32.f32`: out-of-range values saturate, NaN becomes 0), which is what
/// Rust's `as i32` does.
pub fn roundf_to_i32(x: f32) -> i32 {
    const TWO_23: f32 = 8_388_608.0;
    if x.is_nan() || x.abs() >= TWO_23 {
        // Already integral (or NaN / infinite).
        return x as i32;
    }
    let t = x as i32; // truncation toward zero; exact for |x| < 2^23
    let frac = x - t as f32; // exact
    if frac >= 0.5 {
        t + 1
    } else if frac <= -0.5 {
        t - 1
    } else {
        t
    }
}

/// The distance between two finite or infinite `f32` values in ulps (the number of
/// representable values between them, +0 and -0 counting as one); `None` if either is NaN.
pub fn f32_ulp_distance(a: f32, b: f32) -> Option<u32> {
    if a.is_nan() || b.is_nan() {
        return None;
    }
    let ord = |x: f32| {
        let u = x.to_bits();
        let mag = i64::from(u & 0x7fff_ffff);
        if u & 0x8000_0000 != 0 { -mag } else { mag }
    };
    u32::try_from((ord(a) - ord(b)).unsigned_abs()).ok()
}

/// The `saxpy_f32` comparison: both NaN, or at most `max_ulps` apart.
pub fn f32_within_ulps(a: f32, b: f32, max_ulps: u32) -> bool {
    match f32_ulp_distance(a, b) {
        Some(d) => d <= max_ulps,
        None => a.is_nan() && b.is_nan(),
    }
}
