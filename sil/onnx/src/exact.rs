//! Why the interpreter's float results are the ones onnxruntime gets: value grids and
//! bounds, checked per node at load.
//!
//! Every float value of a Q/DQ network is an integer multiple of a power of two: a
//! dequantised int8 `v` is `(v - z) · s`, and a float32 `s` is itself `m · 2^e` with a
//! 24-bit `m`. The loader tracks, for every float value, a grid `2^q` (all its values are
//! integer multiples of it; exact for constants, enumerated for dequantised int8) and a
//! bound on its magnitude. A float32 sum whose terms all lie on a grid `2^q` and whose
//! partial sums stay within `2^24 · 2^q` in magnitude is exact **in any order**: every
//! partial sum is an integer below 2^24 times `2^q`, which float32 represents. Hence the
//! rule for a node that sums (Conv, Gemm, MatMul, AveragePool, GlobalAveragePool):
//!
//! 1. the products (or the pooled values) lie on a common grid and the sum of their worst
//!    magnitudes is at most `2^24` grid steps: the product sum is exact whatever order an
//!    engine uses (it is what the interpreter computes, in f64);
//! 2. a bias on the same grid, with the bound still holding: the whole result is exact
//!    ([`Rounding::Exact`]). Otherwise the bias is added to the exact product sum with one
//!    float32 addition, as onnxruntime's CPU Conv and Gemm do
//!    ([`Rounding::Specified`]);
//! 3. an average divides the exact sum by the element count: exact for a power-of-two
//!    count, else one correctly rounded float32 division ([`Rounding::Specified`]).
//!
//! QuantizeLinear divides by its scale: exact for a power-of-two scale, else one correctly
//! rounded division, as the ONNX definition says (`Specified`). Single float32 operations
//! (DequantizeLinear's multiply, Add) are correctly rounded by every IEEE engine: `Exact`.
//! Where rule 1 fails (values not on a grid, or a sum that can exceed 2^24 steps) the
//! result depends on the engine's summation order: [`Rounding::Unproven`], a warning
//! ([`crate::Model::rounding_notes`]); the interpreter still computes the exactly rounded
//! sum.

use std::fmt;

use crate::error::NodeRef;

/// How a node's float result relates to other engines' (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Exact in any evaluation order: every engine computes the same bits.
    Exact,
    /// One correctly rounded float32 operation, in the order ONNX specifies and
    /// onnxruntime's CPU kernels use (named in the text).
    Specified(&'static str),
    /// Exactness cannot be argued (the text says why): an engine that sums in another
    /// order may differ.
    Unproven(String),
}

/// A node whose result is not [`Rounding::Exact`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundingNote {
    /// The node.
    pub node: NodeRef,
    /// Why.
    pub rounding: Rounding,
}

impl fmt::Display for RoundingNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rounding {
            Rounding::Exact => write!(f, "{}: exact", self.node),
            Rounding::Specified(why) => write!(f, "{}: {why}", self.node),
            Rounding::Unproven(why) => write!(
                f,
                "{}: bit-exactness with other engines cannot be argued: {why}",
                self.node
            ),
        }
    }
}

/// What is known about a float value: all its values are integer multiples of `2^q` (`q`
/// `None`: no such grid is known) and at most `max_abs` in magnitude.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Range {
    pub max_abs: f64,
    pub q: Option<i32>,
}

/// The grid of a value set with no non-zero element (it is on every grid).
const ZERO_Q: i32 = 1 << 20;

/// The exponent of the lowest set bit of `x` (finite, non-zero).
fn trailing_exp(x: f64) -> Option<i32> {
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        return Some(ZERO_Q);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    Some(e + mant.trailing_zeros() as i32)
}

impl Range {
    /// Integers in `-max..=max`.
    pub fn integers(max: f64) -> Self {
        Range {
            max_abs: max,
            q: Some(0),
        }
    }

    /// Unknown values (`q` unknown, unbounded).
    pub fn unknown() -> Self {
        Range {
            max_abs: f64::INFINITY,
            q: None,
        }
    }

    /// The range of these exact values.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let mut r = Range {
            max_abs: 0.0,
            q: Some(ZERO_Q),
        };
        for v in values {
            r.max_abs = r.max_abs.max(v.abs());
            r.q = match (r.q, trailing_exp(v)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                _ => None,
            };
        }
        if !r.max_abs.is_finite() {
            r.q = None;
        }
        r
    }

    /// A value that may come from either range.
    pub fn join(self, o: Range) -> Self {
        Range {
            max_abs: self.max_abs.max(o.max_abs),
            q: match (self.q, o.q) {
                (Some(a), Some(b)) => Some(a.min(b)),
                _ => None,
            },
        }
    }
}

/// Whether every partial sum of terms on grid `2^q` bounded by `bound` in total is exact in
/// float32 (`bound ≤ 2^24 · 2^q`, with a margin for the bound's own rounding).
pub(crate) fn fits(bound: f64, q: i32) -> bool {
    let steps = bound * (1.0 + f64::EPSILON * 64.0) / 2f64.powi(q);
    steps.is_finite() && steps <= f64::from(1u32 << 24)
}

/// Whether `s` is a power of two (dividing by it is exact).
pub(crate) fn is_power_of_two(s: f32) -> bool {
    s.is_finite() && s > 0.0 && (s.to_bits() & 0x007f_ffff) == 0 && s.is_normal()
}

/// The outcome for a sum of products (or pooled values) `products` (grid, bound) plus an
/// optional bias; returns the rounding and the output's range.
pub(crate) fn sum_with_bias(
    q_products: Option<i32>,
    bound: f64,
    bias: Option<Range>,
    what: &str,
) -> (Rounding, Range) {
    let Some(qp) = q_products else {
        return (
            Rounding::Unproven(format!(
                "the {what} are not on a power-of-two grid (a scale whose dequantised values \
                 need more than 24 bits)"
            )),
            Range::unknown(),
        );
    };
    if !fits(bound, qp) {
        return (
            Rounding::Unproven(format!(
                "the sum of {what} can reach {bound} = {:.0} steps of 2^{qp}, beyond float32's \
                 exact 2^24",
                bound / 2f64.powi(qp)
            )),
            Range::unknown(),
        );
    }
    match bias {
        None => (
            Rounding::Exact,
            Range {
                max_abs: bound,
                q: Some(qp),
            },
        ),
        Some(b) => {
            let total = bound + b.max_abs;
            match b.q.map(|qb| qb.min(qp)) {
                Some(q) if fits(total, q) => (
                    Rounding::Exact,
                    Range {
                        max_abs: total,
                        q: Some(q),
                    },
                ),
                _ => (
                    Rounding::Specified(
                        "the bias is added to the exact sum of products with one float32 \
                         addition (as onnxruntime's CPU kernels do)",
                    ),
                    Range {
                        max_abs: total,
                        q: None,
                    },
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-LDB-008
    use super::*;

    #[test]
    fn grids_and_bounds() {
        assert_eq!(trailing_exp(1.0), Some(0));
        assert_eq!(trailing_exp(0.25), Some(-2));
        assert_eq!(trailing_exp(24.0), Some(3));
        assert_eq!(trailing_exp(-3.0 / 64.0), Some(-6));
        assert_eq!(trailing_exp(f64::NAN), None);
        let r = Range::of([0.5, -1.0, 6.0]);
        assert_eq!(
            r,
            Range {
                max_abs: 6.0,
                q: Some(-1)
            }
        );
        // 2^24 steps is the limit; the bound gets a small safety margin.
        assert!(fits(f64::from(1u32 << 24) * 0.999, 0));
        assert!(!fits(f64::from(1u32 << 24) + 1.0, 0));
        assert!(fits(4.0, -21));
        assert!(!fits(4.0, -23));
        assert!(is_power_of_two(0.125) && is_power_of_two(2.0));
        assert!(!is_power_of_two(24.0) && !is_power_of_two(0.1) && !is_power_of_two(0.0));
    }

    #[test]
    fn the_three_outcomes() {
        // Products on grid 1 up to 1000, bias on grid 1/4: exact.
        let b = Range::of([0.25, -8.0]);
        assert_eq!(
            sum_with_bias(Some(0), 1000.0, Some(b), "products").0,
            Rounding::Exact
        );
        // A bias on a much finer grid: one rounding, bias last.
        let fine = Range::of([2f64.powi(-20)]);
        assert!(matches!(
            sum_with_bias(Some(0), 1000.0, Some(fine), "products").0,
            Rounding::Specified(_)
        ));
        // Products beyond 2^24 steps: unproven.
        assert!(matches!(
            sum_with_bias(Some(0), 3e7, None, "products").0,
            Rounding::Unproven(_)
        ));
        assert!(matches!(
            sum_with_bias(None, 1.0, None, "products").0,
            Rounding::Unproven(_)
        ));
    }
}
