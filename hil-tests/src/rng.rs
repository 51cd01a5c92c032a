//! A small seeded random number generator (SplitMix64) for reproducible test inputs.
//!
//! The same seed gives the same sequence on every platform and build, so a failing
//! back-to-back trial can be replayed from its seed and trial number.

/// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, passes BigCrush, trivially seedable.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// An independent generator derived from this seed and `stream` (e.g. a trial number).
    pub fn derive(seed: u64, stream: u64) -> Self {
        let mut r = Rng::new(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `0..n` (`n > 0`; 0 for `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Multiply-shift; the bias is below 2^-32 for the ranges used here.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi` (`lo` if `hi < lo`).
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(u64::from(hi - lo) + 1) as u32
    }

    /// Uniform in `lo..=hi` for signed values.
    pub fn range_i32(&mut self, lo: i32, hi: i32) -> i32 {
        if hi <= lo {
            return lo;
        }
        (i64::from(lo) + self.below((i64::from(hi) - i64::from(lo) + 1) as u64) as i64) as i32
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < u64::from(percent)
    }

    /// Log-uniform in `lo..=hi` (`1 <= lo`): small sizes as often as large ones.
    pub fn log_uniform(&mut self, lo: u32, hi: u32) -> u32 {
        let (lo, hi) = (lo.max(1), hi.max(lo.max(1)));
        let (a, b) = (f64::from(lo).ln(), f64::from(hi).ln());
        let u = self.next_u64() as f64 / u64::MAX as f64;
        ((a + u * (b - a)).exp().round() as u32).clamp(lo, hi)
    }

    /// One element of `items` (which must not be empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    /// Uniform in `[lo, hi)`.
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
        lo + u * (hi - lo)
    }

    /// A float that exercises the corners: about 1 in 4 is a special value (±0, ±inf, NaN
    /// with a random payload, subnormals, the extremes of the normal range), 1 in 4 is any
    /// bit pattern, the rest ordinary values of random sign over a wide range of magnitudes.
    pub fn f32_interesting(&mut self) -> f32 {
        match self.below(8) {
            0 => self.pick(&[
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::MIN_POSITIVE,
                -f32::MIN_POSITIVE,
                f32::MAX,
                f32::MIN,
                f32::EPSILON,
                1.0,
                -1.0,
            ]),
            1 => {
                // Subnormal (or NaN with a random payload).
                let mantissa = self.next_u32() & 0x007f_ffff;
                if self.chance(50) {
                    f32::from_bits(mantissa | (self.next_u32() & 0x8000_0000))
                } else {
                    f32::from_bits(0x7f80_0000 | mantissa.max(1) | (self.next_u32() & 0x8000_0000))
                }
            }
            2 | 3 => f32::from_bits(self.next_u32()),
            _ => {
                let exp = self.range_i32(-30, 30);
                let sign = if self.chance(50) { -1.0 } else { 1.0 };
                sign * self.f32_in(1.0, 2.0) * 2f32.powi(exp)
            }
        }
    }
}

/// Covers: REQ-GPU-011
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::new(42), Rng::new(42));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(Rng::derive(1, 0).next_u64(), Rng::derive(1, 1).next_u64());
    }

    #[test]
    fn ranges_stay_in_bounds() {
        let mut r = Rng::new(7);
        for _ in 0..10_000 {
            let v = r.range(3, 9);
            assert!((3..=9).contains(&v));
            let s = r.range_i32(-128, 127);
            assert!((-128..=127).contains(&s));
            let l = r.log_uniform(1, 1 << 20);
            assert!((1..=1 << 20).contains(&l));
            let f = r.f32_in(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&f));
        }
        assert_eq!(r.range(5, 5), 5);
        assert_eq!(r.below(0), 0);
    }
}
