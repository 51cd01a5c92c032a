//! The committed ceiling (`ci/instructions-ceiling.toml`) and the check of measurements
//! against it: the runtime's own instructions per dispatched task must stay under the shape's
//! ceiling (itself at most the issue's 1,000), and flat in the schedule's size.
//!
//! ```
//! use orin_exec_icount::ceiling::{Ceiling, Measurement};
//! use orin_exec_icount::shapes::Shape;
//! let ceiling = Ceiling::parse("max_flat_ratio = 1.25\n[per_task]\ncpu-chain = 500\n")?;
//! let m = |tasks, runtime_ir| Measurement {
//!     shape: Shape::CpuChain, tasks, dispatched: tasks as u64 * 10, runtime_ir, total_ir: 0,
//! };
//! let report = ceiling.check(&[m(4, 18_000), m(64, 300_000)]);
//! assert!(report.failures.is_empty(), "{:?}", report.failures);
//! let report = ceiling.check(&[m(4, 18_000), m(64, 330_000)]);
//! assert_eq!(report.failures.len(), 1); // 515.6 per task > 500
//! # Ok::<(), String>(())
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::shapes::Shape;

/// The issue's cap: no ceiling may allow more runtime instructions per task than this.
pub const CAP_PER_TASK: u64 = 1_000;

/// The ceiling file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ceiling {
    /// Largest allowed ratio of the per-task figure at the largest size to the smallest.
    pub max_flat_ratio: f64,
    /// Runtime-own instructions per dispatched task, per shape (names as in [`Shape::name`]).
    pub per_task: BTreeMap<String, u64>,
}

/// One measured run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measurement {
    /// The schedule's shape.
    pub shape: Shape,
    /// Its tasks.
    pub tasks: usize,
    /// Tasks dispatched in the measured frames (tasks x frames).
    pub dispatched: u64,
    /// The runtime's own instructions in the measured frames.
    pub runtime_ir: u64,
    /// All instructions in the measured frames (SIL libraries, std, kernel models included).
    pub total_ir: u64,
}

impl Measurement {
    /// Runtime-own instructions per dispatched task.
    pub fn runtime_per_task(&self) -> f64 {
        self.runtime_ir as f64 / self.dispatched.max(1) as f64
    }

    /// All instructions per dispatched task.
    pub fn total_per_task(&self) -> f64 {
        self.total_ir as f64 / self.dispatched.max(1) as f64
    }

    /// The line `measure` prints and `check` reads:
    /// `shape tasks dispatched runtime_ir total_ir`.
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.shape, self.tasks, self.dispatched, self.runtime_ir, self.total_ir
        )
    }

    /// Reads a [`Measurement::line`].
    ///
    /// # Errors
    /// Not five fields, an unknown shape or a bad number.
    pub fn parse_line(line: &str) -> Result<Measurement, String> {
        let f: Vec<&str> = line.split_ascii_whitespace().collect();
        let [shape, tasks, dispatched, runtime_ir, total_ir] = f[..] else {
            return Err(format!(
                "{line:?}: expected `shape tasks dispatched runtime_ir total_ir`"
            ));
        };
        let shape = Shape::ALL
            .into_iter()
            .find(|s| s.name() == shape)
            .ok_or_else(|| format!("{line:?}: unknown shape {shape:?}"))?;
        let num = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("{line:?}: {v:?} is not a count"))
        };
        Ok(Measurement {
            shape,
            tasks: num(tasks)? as usize,
            dispatched: num(dispatched)?,
            runtime_ir: num(runtime_ir)?,
            total_ir: num(total_ir)?,
        })
    }
}

/// What [`Ceiling::check`] found.
#[derive(Debug, Default)]
pub struct Report {
    /// The table (and flatness ratios), for the log.
    pub table: String,
    /// Every violation, one message each; empty when the measurements pass.
    pub failures: Vec<String>,
}

impl Ceiling {
    /// Reads the ceiling file's text.
    ///
    /// # Errors
    /// Not TOML of this form, a ceiling above [`CAP_PER_TASK`], an unknown shape, or a flatness
    /// ratio below 1.
    pub fn parse(text: &str) -> Result<Ceiling, String> {
        let c: Ceiling = toml::from_str(text).map_err(|e| format!("the ceiling file: {e}"))?;
        for (shape, &v) in &c.per_task {
            if !Shape::ALL.iter().any(|s| s.name() == shape) {
                let known: Vec<&str> = Shape::ALL.iter().map(|s| s.name()).collect();
                return Err(format!(
                    "the ceiling file names shape {shape:?}; known: {}",
                    known.join(", ")
                ));
            }
            if v > CAP_PER_TASK {
                return Err(format!(
                    "the ceiling of {shape} is {v}, above the cap of {CAP_PER_TASK} runtime instructions per task: fix the runtime instead of raising it"
                ));
            }
        }
        if c.max_flat_ratio.is_nan() || c.max_flat_ratio < 1.0 {
            return Err(format!(
                "max_flat_ratio is {}: it must be at least 1",
                c.max_flat_ratio
            ));
        }
        Ok(c)
    }

    /// Checks `measurements` against the ceiling and for flatness (per shape: the largest
    /// size's per-task figure over the smallest size's).
    pub fn check(&self, measurements: &[Measurement]) -> Report {
        let mut r = Report::default();
        let _ = writeln!(
            r.table,
            "{:<16} {:>6} {:>16} {:>8} {:>24}",
            "shape", "tasks", "runtime Ir/task", "ceiling", "total Ir/task (w/ SIL)"
        );
        for m in measurements {
            let ceiling = self.per_task.get(m.shape.name()).copied();
            let per_task = m.runtime_per_task();
            let _ = writeln!(
                r.table,
                "{:<16} {:>6} {:>16.1} {:>8} {:>24.1}",
                m.shape.name(),
                m.tasks,
                per_task,
                ceiling.map_or("none".into(), |c| c.to_string()),
                m.total_per_task()
            );
            if m.dispatched == 0 {
                r.failures.push(format!(
                    "{} with {} tasks: no task was dispatched",
                    m.shape, m.tasks
                ));
            }
            match ceiling {
                None => r.failures.push(format!(
                    "{}: no ceiling in the ceiling file (add `{} = ...` under [per_task])",
                    m.shape, m.shape
                )),
                Some(c) if per_task > c as f64 => r.failures.push(format!(
                    "{} with {} tasks: {per_task:.1} runtime instructions per task, above the ceiling of {c}",
                    m.shape, m.tasks
                )),
                Some(_) => {}
            }
        }
        for shape in Shape::ALL {
            let of: Vec<&Measurement> = measurements.iter().filter(|m| m.shape == shape).collect();
            let (Some(small), Some(large)) = (
                of.iter().min_by_key(|m| m.tasks),
                of.iter().max_by_key(|m| m.tasks),
            ) else {
                continue;
            };
            if small.tasks == large.tasks {
                continue;
            }
            let ratio = large.runtime_per_task() / small.runtime_per_task().max(f64::MIN_POSITIVE);
            let _ = writeln!(
                r.table,
                "flatness {shape}: {} tasks / {} tasks = {ratio:.3} (at most {})",
                large.tasks, small.tasks, self.max_flat_ratio
            );
            if ratio > self.max_flat_ratio {
                r.failures.push(format!(
                    "{shape}: instructions per task grow with the schedule: {ratio:.3} times as many at {} tasks as at {} (at most {})",
                    large.tasks, small.tasks, self.max_flat_ratio
                ));
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-PERF-001
    use super::*;

    fn m(shape: Shape, tasks: usize, per_task: u64) -> Measurement {
        Measurement {
            shape,
            tasks,
            dispatched: tasks as u64 * 100,
            runtime_ir: per_task * tasks as u64 * 100,
            total_ir: per_task * tasks as u64 * 1000,
        }
    }

    fn ceiling() -> Ceiling {
        Ceiling::parse(
            "max_flat_ratio = 1.25\n[per_task]\ncpu-independent = 600\ncpu-chain = 700\ngpu-chain = 900\n",
        )
        .unwrap()
    }

    #[test]
    fn counts_under_the_ceiling_and_flat_pass() {
        let r = ceiling().check(&[
            m(Shape::CpuIndependent, 4, 600),
            m(Shape::CpuIndependent, 64, 550),
            m(Shape::GpuChain, 4, 800),
            m(Shape::GpuChain, 64, 900),
        ]);
        assert!(r.failures.is_empty(), "{:?}", r.failures);
        assert!(
            r.table
                .contains("flatness gpu-chain: 64 tasks / 4 tasks = 1.125"),
            "{}",
            r.table
        );
    }

    #[test]
    fn a_count_above_the_ceiling_fails() {
        let r = ceiling().check(&[m(Shape::CpuChain, 16, 701)]);
        assert_eq!(r.failures.len(), 1, "{:?}", r.failures);
        assert!(r.failures[0].contains("701.0") && r.failures[0].contains("700"));
    }

    #[test]
    fn growth_with_the_schedule_fails_even_under_the_ceiling() {
        let r = ceiling().check(&[m(Shape::CpuChain, 4, 400), m(Shape::CpuChain, 64, 520)]);
        assert_eq!(r.failures.len(), 1, "{:?}", r.failures);
        assert!(r.failures[0].contains("1.300"), "{}", r.failures[0]);
    }

    #[test]
    fn a_shape_without_ceiling_or_dispatch_fails() {
        let c = Ceiling::parse("max_flat_ratio = 1.25\n[per_task]\ncpu-chain = 700\n").unwrap();
        let mut none = m(Shape::CpuChain, 4, 1);
        none.dispatched = 0;
        let r = c.check(&[m(Shape::GpuChain, 4, 1), none]);
        assert_eq!(r.failures.len(), 2, "{:?}", r.failures);
    }

    #[test]
    fn a_ceiling_above_the_cap_is_refused() {
        let e =
            Ceiling::parse("max_flat_ratio = 1.25\n[per_task]\ncpu-chain = 1001\n").unwrap_err();
        assert!(e.contains("1001") && e.contains("1000"), "{e}");
        assert!(Ceiling::parse("max_flat_ratio = 0.5\n[per_task]\n").is_err());
        assert!(Ceiling::parse("max_flat_ratio = 1.2\n[per_task]\ncpu = 1\n").is_err());
    }

    #[test]
    fn the_committed_ceiling_parses_within_the_cap() {
        let text = include_str!("../../../ci/instructions-ceiling.toml");
        let c = Ceiling::parse(text).expect("ci/instructions-ceiling.toml");
        for shape in Shape::ALL {
            assert!(
                c.per_task.contains_key(shape.name()),
                "{shape} has no ceiling"
            );
        }
    }

    #[test]
    fn measurement_lines_round_trip() {
        let x = m(Shape::GpuChain, 64, 812);
        assert_eq!(Measurement::parse_line(&x.line()).unwrap(), x);
        assert!(Measurement::parse_line("gpu-chain 4 1").is_err());
        assert!(Measurement::parse_line("gpu 4 1 2 3").is_err());
    }
}
