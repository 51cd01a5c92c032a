//! Percentiles of a stream of samples in fixed memory: exact (nearest rank) over the first
//! [`EXACT_SAMPLES`] samples, then from a log-linear histogram whose buckets are at most
//! [`RELATIVE_ERROR`] of their value wide.
//!
//! # Error bound
//!
//! Up to [`EXACT_SAMPLES`] samples every percentile is the exact nearest-rank value (as
//! [`crate::percentile`] computes it). Beyond, a percentile is the lower edge of the
//! histogram bucket that holds the exact nearest-rank sample `v`, clamped to the observed
//! minimum and maximum: it is `v` for `|v| < 2^SUB_BITS` (1024 ns), and otherwise within
//! `|v| * 2^-SUB_BITS` of `v` (0.098 %: 1 µs at 1 ms). Counts, minimum, maximum and mean stay
//! exact whatever the number of samples.
//!
//! Both stores are allocated when the structure is made and never grow, so feeding it
//! allocates nothing and its memory does not depend on the number of samples (the histogram is
//! zero-allocated: the operating system maps its pages only when a bucket is used).
//!
//! ```
//! use orin_exec_trace::quantiles::Quantiles;
//! let mut q = Quantiles::new();
//! for v in 1..=1000 {
//!     q.add(v);
//! }
//! assert_eq!((q.count(), q.min(), q.max(), q.mean()), (1000, 1, 1000, 500));
//! assert_eq!(q.percentile(99.0), 990); // exact: fewer than EXACT_SAMPLES samples
//! ```

use crate::summary::nearest_rank;

/// Samples kept exactly before the histogram takes over.
pub const EXACT_SAMPLES: usize = 4096;

/// Sub-buckets per power of two (as a bit count): the histogram's resolution.
pub const SUB_BITS: u32 = 10;

/// The largest relative error of a percentile taken from the histogram (`2^-SUB_BITS`).
pub const RELATIVE_ERROR: f64 = 1.0 / (1u64 << SUB_BITS) as f64;

/// How [`Quantiles`] states its percentiles' precision in reports.
pub const METHOD: &str = "nearest rank; exact up to 4096 samples, beyond from a log-linear \
                          histogram: exact below 1024 ns, else within 2^-10 (0.098 %) of the \
                          exact value";

const SUB: u64 = 1 << SUB_BITS;
/// Buckets per sign: magnitudes below `SUB` one each, then `SUB` per power of two.
const BUCKETS: usize = ((64 - SUB_BITS as usize) + 1) * SUB as usize;

/// Bucket of magnitude `m`.
fn bucket(m: u64) -> usize {
    if m < SUB {
        return m as usize;
    }
    let shift = 63 - m.leading_zeros() - SUB_BITS;
    (((shift as u64 + 1) << SUB_BITS) + ((m >> shift) - SUB)) as usize
}

/// Lowest magnitude in bucket `b`.
fn bucket_low(b: usize) -> u64 {
    let b = b as u64;
    if b < SUB {
        return b;
    }
    let shift = (b >> SUB_BITS) - 1;
    (SUB + (b & (SUB - 1))) << shift
}

/// Percentiles, minimum, maximum and mean of signed samples in fixed memory (see the module
/// docs for the error bound).
#[derive(Clone, Debug)]
pub struct Quantiles {
    count: u64,
    sum: i128,
    min: i64,
    max: i64,
    /// The first `EXACT_SAMPLES` samples.
    exact: Vec<i64>,
    /// Counts per bucket of the magnitude of negative samples, then of the others; filled
    /// once the exact store is full (from it first).
    negative: Vec<u64>,
    positive: Vec<u64>,
}

impl Default for Quantiles {
    fn default() -> Self {
        Quantiles::new()
    }
}

impl Quantiles {
    /// An empty set (allocates both stores now).
    pub fn new() -> Quantiles {
        Quantiles {
            count: 0,
            sum: 0,
            min: 0,
            max: 0,
            exact: Vec::with_capacity(EXACT_SAMPLES),
            negative: vec![0; BUCKETS],
            positive: vec![0; BUCKETS],
        }
    }

    /// Add a sample.
    pub fn add(&mut self, v: i64) {
        if self.count == 0 {
            (self.min, self.max) = (v, v);
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.count += 1;
        self.sum += i128::from(v);
        if self.exact.len() < EXACT_SAMPLES && self.count as usize <= EXACT_SAMPLES {
            self.exact.push(v);
            return;
        }
        if !self.exact.is_empty() {
            // The exact store is full: from now on everything is in the histogram.
            for i in 0..self.exact.len() {
                let x = self.exact[i];
                self.bin(x);
            }
            self.exact.clear();
        }
        self.bin(v);
    }

    /// Add an unsigned sample (clamped to `i64::MAX`).
    pub fn add_u64(&mut self, v: u64) {
        self.add(i64::try_from(v).unwrap_or(i64::MAX));
    }

    fn bin(&mut self, v: i64) {
        if v < 0 {
            self.negative[bucket(v.unsigned_abs())] += 1;
        } else {
            self.positive[bucket(v as u64)] += 1;
        }
    }

    /// Samples added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Smallest sample (0 without samples).
    pub fn min(&self) -> i64 {
        self.min
    }

    /// Largest sample (0 without samples).
    pub fn max(&self) -> i64 {
        self.max
    }

    /// Mean, rounded toward zero (0 without samples).
    pub fn mean(&self) -> i64 {
        if self.count == 0 {
            0
        } else {
            (self.sum / i128::from(self.count)) as i64
        }
    }

    /// Whether [`Quantiles::percentile`] is exact (at most [`EXACT_SAMPLES`] samples).
    pub fn exact(&self) -> bool {
        self.count as usize <= EXACT_SAMPLES
    }

    /// The `p`-th percentile (0 < `p` <= 100) by nearest rank, 0 without samples: exact up to
    /// [`EXACT_SAMPLES`] samples, else within the module's error bound. Sorts the exact store
    /// in place (no allocation).
    pub fn percentile(&mut self, p: f64) -> i64 {
        let Some(rank) = nearest_rank(self.count as usize, p) else {
            return 0;
        };
        if self.exact() {
            self.exact.sort_unstable();
            return self.exact[rank - 1];
        }
        let rank = rank as u64;
        let negatives: u64 = self.negative.iter().sum();
        let value = if rank <= negatives {
            // Most negative first: the largest magnitudes first. The bucket's lower
            // magnitude is its value nearest zero.
            let mut seen = 0;
            let mut found = 0;
            for b in (0..BUCKETS).rev() {
                seen += self.negative[b];
                if seen >= rank {
                    found = -(bucket_low(b).min(i64::MAX as u64) as i64);
                    break;
                }
            }
            found
        } else {
            let mut seen = negatives;
            let mut found = self.max;
            for (b, &c) in self.positive.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    found = bucket_low(b).min(i64::MAX as u64) as i64;
                    break;
                }
            }
            found
        };
        value.clamp(self.min, self.max)
    }
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-EVD-009
    use super::*;
    use crate::percentile;
    use sil_common::rng::SplitMix64;

    #[test]
    fn buckets_cover_every_magnitude_in_order() {
        let mut prev = None;
        for shift in 0..64 {
            for m in [
                1u64 << shift,
                (1u64 << shift) + 1,
                (1u64 << shift) - 1,
                u64::MAX >> (63 - shift),
            ] {
                let b = bucket(m);
                assert!(b < BUCKETS, "{m}");
                assert!(bucket_low(b) <= m, "{m}: low {}", bucket_low(b));
                assert!(b + 1 == BUCKETS || bucket_low(b + 1) > m, "{m}");
            }
            let b = bucket(1u64 << shift);
            assert!(prev.is_none_or(|p| p <= b));
            prev = Some(b);
        }
    }

    /// Random data of several shapes and sizes: every percentile within the stated error of
    /// the exact nearest-rank one; exact up to EXACT_SAMPLES samples.
    #[test]
    fn percentiles_within_the_stated_error_of_exact_ones() {
        let mut rng = SplitMix64::new(0x5eed_0013);
        for case in 0..24 {
            let n = [10, 1000, EXACT_SAMPLES, EXACT_SAMPLES + 1, 20_000, 100_000][case % 6];
            let mut q = Quantiles::new();
            let mut all = Vec::with_capacity(n);
            for _ in 0..n {
                let r = rng.next_u64();
                let v = match case / 6 {
                    // Execution times around 4 ms with a long tail.
                    0 => {
                        3_000_000
                            + (r % 2_000_000) as i64
                            + if r.is_multiple_of(97) {
                                (r >> 40) as i64
                            } else {
                                0
                            }
                    }
                    // Small values (exact buckets) and zero.
                    1 => (r % 3000) as i64,
                    // Release errors: signed, around zero.
                    2 => (r % 200_001) as i64 - 100_000,
                    // Any magnitude.
                    _ => (r >> (r % 60)) as i64 * if r & 1 == 0 { 1 } else { -1 },
                };
                q.add(v);
                all.push(v);
            }
            all.sort_unstable();
            assert_eq!(q.count(), n as u64);
            assert_eq!((q.min(), q.max()), (all[0], all[n - 1]));
            let mean = all.iter().map(|&v| i128::from(v)).sum::<i128>() / n as i128;
            assert_eq!(q.mean() as i128, mean);
            for p in [0.1, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0] {
                let exact = crate::summary::percentile_of(&all, p).unwrap();
                let got = q.percentile(p);
                if n <= EXACT_SAMPLES {
                    assert_eq!(got, exact, "case {case}, n {n}, p {p}");
                } else {
                    let bound = (exact.unsigned_abs() as f64 * RELATIVE_ERROR) as u64;
                    let bound = if exact.unsigned_abs() < SUB { 0 } else { bound };
                    assert!(
                        got.abs_diff(exact) <= bound,
                        "case {case}, n {n}, p {p}: {got} vs exact {exact} (bound {bound})"
                    );
                }
            }
        }
        // The unsigned helper agrees with `percentile` on exact data.
        let mut q = Quantiles::new();
        let s: Vec<u64> = (1..=100).collect();
        s.iter().for_each(|&v| q.add_u64(v));
        assert_eq!(q.percentile(50.0) as u64, percentile(&s, 50.0));
    }

    /// Feeding allocates nothing: the stores never grow.
    #[test]
    fn stores_do_not_grow() {
        let mut q = Quantiles::new();
        let (exact, neg, pos) = (q.exact.capacity(), q.negative.len(), q.positive.len());
        for v in 0..3 * EXACT_SAMPLES as i64 {
            q.add(v - 100);
        }
        assert_eq!(
            (q.exact.capacity(), q.negative.len(), q.positive.len()),
            (exact, neg, pos)
        );
        assert!(!q.exact());
    }
}
