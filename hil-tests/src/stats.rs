//! Descriptive statistics for the benchmark printouts (exact percentiles over all samples).

use serde::Serialize;

/// Summary of a set of samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Minimum.
    pub min: f64,
    /// 10th percentile.
    pub p10: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Maximum.
    pub max: f64,
}

impl Summary {
    /// Summarise `samples` (any order; NaNs are ignored).
    pub fn of(samples: &[f64]) -> Summary {
        let mut v: Vec<f64> = samples.iter().copied().filter(|x| !x.is_nan()).collect();
        if v.is_empty() {
            return Summary::default();
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let pct = |p: f64| {
            // Nearest rank; the epsilon keeps 99.9% of 2000 at rank 1998 (0.999 * 2000 is
            // 1998.0000000000002 in floating point).
            let rank = ((p / 100.0) * n as f64 - 1e-9).ceil().max(1.0) as usize;
            v[rank.min(n) - 1]
        };
        Summary {
            n,
            mean,
            stddev: var.sqrt(),
            min: v[0],
            p10: pct(10.0),
            p50: pct(50.0),
            p90: pct(90.0),
            p99: pct(99.0),
            p999: pct(99.9),
            max: v[n - 1],
        }
    }
}

/// Covers: REQ-GPU-012
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_one_to_hundred() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Summary::of(&v);
        assert_eq!(s.n, 100);
        assert_eq!(s.mean, 50.5);
        assert_eq!(
            (s.min, s.p10, s.p50, s.p90, s.p99, s.max),
            (1.0, 10.0, 50.0, 90.0, 99.0, 100.0)
        );
        let v: Vec<f64> = (1..=2000).map(f64::from).collect();
        assert_eq!(Summary::of(&v).p999, 1998.0);
        assert_eq!(Summary::of(&[]), Summary::default());
    }
}
