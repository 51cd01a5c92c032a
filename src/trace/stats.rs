//! A fixed-size log-linear histogram of durations, for live statistics without allocation.
//!
//! Values are grouped by their highest set bit and then into 16 linear sub-buckets, so a
//! percentile read from the histogram is within 1/16 (6.25 %) of the true value, above it.
//! Exact percentiles come from the host-side evidence tools, which keep every sample.
//!
//! ```
//! use orin_exec::trace::Histogram;
//! let mut h = Histogram::new();
//! for v in 1..=1000u64 {
//!     h.record(v * 1000);
//! }
//! assert_eq!((h.min(), h.max(), h.count()), (1000, 1_000_000, 1000));
//! let p50 = h.percentile(50.0);
//! assert!(p50 >= 500_000 && p50 <= 500_000 + 500_000 / 16);
//! ```

const SUB_BITS: u32 = 4;
const SUB: usize = 1 << SUB_BITS;
const BUCKETS: usize = 64 * SUB;

/// Counts of durations in ns.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: [u32; BUCKETS],
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

fn bucket(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let top = 63 - v.leading_zeros();
    let sub = (v >> (top - SUB_BITS)) as usize & (SUB - 1);
    ((top - SUB_BITS + 1) as usize) * SUB + sub
}

fn upper_bound(b: usize) -> u64 {
    if b < SUB {
        return b as u64;
    }
    let group = (b / SUB) as u32 - 1 + SUB_BITS;
    let sub = (b % SUB) as u64;
    let base = (SUB as u64 + sub) << (group - SUB_BITS);
    base + (1u64 << (group - SUB_BITS)) - 1
}

impl Histogram {
    /// An empty histogram.
    pub const fn new() -> Self {
        Histogram {
            counts: [0; BUCKETS],
            count: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
        }
    }

    /// Add one duration.
    pub fn record(&mut self, ns: u64) {
        let b = bucket(ns);
        self.counts[b] = self.counts[b].saturating_add(1);
        self.count += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        self.sum += ns as u128;
    }

    /// Number of values.
    pub const fn count(&self) -> u64 {
        self.count
    }

    /// Smallest value (0 when empty).
    pub const fn min(&self) -> u64 {
        if self.count == 0 { 0 } else { self.min }
    }

    /// Largest value.
    pub const fn max(&self) -> u64 {
        self.max
    }

    /// Mean value (0 when empty).
    pub fn mean(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            (self.sum / self.count as u128) as u64
        }
    }

    /// The `p`-th percentile (0..=100), as the upper edge of its bucket, capped by the maximum.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let x = (p / 100.0) * self.count as f64;
        let rank = (x as u64 + ((x as u64 as f64) < x) as u64).max(1);
        let mut seen = 0u64;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                return upper_bound(b).min(self.max).max(self.min);
            }
        }
        self.max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_with_bounded_error() {
        for v in [0u64, 1, 15, 16, 17, 31, 32, 1000, 123_456_789, u64::MAX / 3] {
            let b = bucket(v);
            let ub = upper_bound(b);
            assert!(ub >= v, "{v} above its bucket's upper bound {ub}");
            assert!(ub - v <= v / 16 + 1, "{v}: bound {ub} too loose");
            if b > 0 {
                assert!(upper_bound(b - 1) < v);
            }
        }
    }
}
