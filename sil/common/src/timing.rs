//! Execution-time models: fixed, uniform, or an empirical histogram; seeded and reproducible.
//!
//! ```
//! use sil_common::timing::{TimingModel, TimingSampler};
//! let model = TimingModel::histogram(100, &[(200, 1), (300, 3)]).unwrap();
//! let mut a = TimingSampler::new(model, 42);
//! let mut b = TimingSampler::new(model, 42);
//! for _ in 0..100 {
//!     let t = a.sample();
//!     assert!((100..=300).contains(&t));
//!     assert_eq!(t, b.sample());
//! }
//! ```

use crate::rng::SplitMix64;

/// Most bins an empirical histogram may have.
pub const MAX_BINS: usize = 32;

/// Why a timing model was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// Unknown kind code.
    UnknownKind(u32),
    /// Uniform with min > max.
    EmptyRange,
    /// Histogram with no bins, too many bins, zero total weight or decreasing edges.
    BadHistogram,
}

impl core::fmt::Display for ModelError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ModelError::UnknownKind(k) => write!(f, "unknown timing model kind {k}"),
            ModelError::EmptyRange => f.write_str("uniform model with min > max"),
            ModelError::BadHistogram => {
                f.write_str("histogram needs 1..=32 bins, rising edges and positive total weight")
            }
        }
    }
}

impl std::error::Error for ModelError {}

/// An execution-time model in ns. Stored inline (no heap), so the histogram variant is large.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimingModel {
    /// Always the same.
    Fixed(u64),
    /// Uniform in `[min, max]`.
    Uniform {
        /// Lower bound.
        min: u64,
        /// Upper bound.
        max: u64,
    },
    /// A bin is chosen by weight, then a time uniform within it. Bin `i` spans
    /// `(upper[i-1], upper[i]]`, the first bin `[min, upper[0]]`.
    Histogram {
        /// Lower edge of the first bin.
        min: u64,
        /// (upper edge, weight) per bin; only the first `len` are used.
        bins: [(u64, u32); MAX_BINS],
        /// Number of bins.
        len: usize,
    },
}

/// The C-side kind codes of the `*SilTimingModel` structs.
pub const KIND_FIXED: u32 = 0;
/// Uniform.
pub const KIND_UNIFORM: u32 = 1;
/// Histogram.
pub const KIND_HISTOGRAM: u32 = 2;

impl TimingModel {
    /// A histogram model from (upper edge, weight) pairs.
    pub fn histogram(min: u64, bins: &[(u64, u32)]) -> Result<Self, ModelError> {
        if bins.is_empty() || bins.len() > MAX_BINS {
            return Err(ModelError::BadHistogram);
        }
        let mut lower = min;
        let mut total = 0u64;
        for &(upper, weight) in bins {
            if upper < lower {
                return Err(ModelError::BadHistogram);
            }
            lower = upper;
            total += weight as u64;
        }
        if total == 0 {
            return Err(ModelError::BadHistogram);
        }
        let mut array = [(0, 0); MAX_BINS];
        array[..bins.len()].copy_from_slice(bins);
        Ok(TimingModel::Histogram {
            min,
            bins: array,
            len: bins.len(),
        })
    }

    /// A model from the fields of a C `*SilTimingModel` struct (bins already read as slices).
    pub fn from_parts(
        kind: u32,
        min: u64,
        max: u64,
        upper: &[u64],
        weights: &[u32],
    ) -> Result<Self, ModelError> {
        match kind {
            KIND_FIXED => Ok(TimingModel::Fixed(min)),
            KIND_UNIFORM if min <= max => Ok(TimingModel::Uniform { min, max }),
            KIND_UNIFORM => Err(ModelError::EmptyRange),
            KIND_HISTOGRAM => {
                if upper.len() != weights.len() || upper.len() > MAX_BINS {
                    return Err(ModelError::BadHistogram);
                }
                let mut bins = [(0, 0); MAX_BINS];
                for (i, (&u, &w)) in upper.iter().zip(weights).enumerate() {
                    bins[i] = (u, w);
                }
                Self::histogram(min, &bins[..upper.len()])
            }
            other => Err(ModelError::UnknownKind(other)),
        }
    }
}

/// Draws times from a model with its own seeded generator.
#[derive(Clone, Copy, Debug)]
pub struct TimingSampler {
    model: TimingModel,
    rng: SplitMix64,
}

impl TimingSampler {
    /// A sampler for `model` seeded with `seed`.
    pub const fn new(model: TimingModel, seed: u64) -> Self {
        TimingSampler {
            model,
            rng: SplitMix64::new(seed),
        }
    }

    /// The model.
    pub const fn model(&self) -> TimingModel {
        self.model
    }

    /// The next execution time in ns.
    pub fn sample(&mut self) -> u64 {
        match self.model {
            TimingModel::Fixed(t) => t,
            TimingModel::Uniform { min, max } => self.rng.in_range(min, max),
            TimingModel::Histogram { min, bins, len } => {
                let total: u64 = bins[..len].iter().map(|b| b.1 as u64).sum();
                let mut pick = self.rng.in_range(0, total - 1);
                let mut lower = min;
                for &(upper, weight) in &bins[..len] {
                    if pick < weight as u64 {
                        return self.rng.in_range(lower, upper);
                    }
                    pick -= weight as u64;
                    lower = upper;
                }
                lower
            }
        }
    }
}
