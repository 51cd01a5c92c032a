//! Per-task timing and fault statistics of a run (the summary table and `summary.json`).

use serde::Serialize;

use orin_exec::table::FaultKind;
use orin_exec::trace::{Event, Record};

use crate::TraceMeta;

/// One execution of a task: from its start and end records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Execution {
    /// Task index.
    pub task: u16,
    /// Frame.
    pub frame: u64,
    /// Start, ns.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// Ran as a no-op.
    pub skipped: bool,
}

/// Pair start and end records into executions.
pub fn executions(records: &[Record]) -> Vec<Execution> {
    let mut open: std::collections::HashMap<(u16, u64), u64> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for r in records {
        match r.event {
            Event::TaskStart => {
                open.insert((r.task, r.frame), r.time_ns);
            }
            Event::TaskEnd | Event::TaskSkipped => {
                if let Some(start) = open.remove(&(r.task, r.frame)) {
                    out.push(Execution {
                        task: r.task,
                        frame: r.frame,
                        start_ns: start,
                        end_ns: r.time_ns,
                        skipped: r.event == Event::TaskSkipped,
                    });
                }
            }
            _ => {}
        }
    }
    out.sort_by_key(|e| (e.start_ns, e.task));
    out
}

/// Timing of one task over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskSummary {
    /// Task name.
    pub task: String,
    /// Engine instance name.
    pub engine: String,
    /// Executions (not skipped).
    pub runs: u64,
    /// Execution-time samples the percentiles are taken over (the executions not skipped,
    /// so equal to `runs`); p99.9 says little below 1000.
    pub samples: u64,
    /// Executions skipped by the health monitor.
    pub skipped: u64,
    /// Minimum execution time, ns.
    pub min_ns: u64,
    /// Median, ns.
    pub p50_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Maximum, ns.
    pub max_ns: u64,
    /// Budget, ns.
    pub budget_ns: u64,
    /// WCET used by the validator, ns.
    pub wcet_ns: u64,
    /// Deadline relative to the frame release, ns.
    pub deadline_ns: u64,
    /// Latest finish relative to the frame release, ns.
    pub max_finish_ns: u64,
    /// Deadline misses.
    pub deadline_misses: u64,
    /// Longest run of consecutive frames with a deadline miss.
    pub longest_miss_run: u64,
    /// Budget overruns.
    pub budget_overruns: u64,
    /// Fence timeouts.
    pub fence_timeouts: u64,
    /// Engine and task errors.
    pub errors: u64,
}

/// Frame release jitter over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReleaseSummary {
    /// Frames released.
    pub frames: u64,
    /// Smallest release error (actual - planned), ns.
    pub min_error_ns: i64,
    /// Largest release error, ns.
    pub max_error_ns: i64,
    /// Mean release error, ns.
    pub mean_error_ns: i64,
    /// 99th percentile of the release error, ns.
    pub p99_error_ns: i64,
}

/// The `p`-th percentile (0 < `p` <= 100) of ascending `sorted` samples by the nearest-rank
/// method: the smallest sample with at least `p` % of the samples at or below it (0 when
/// there are none). Exact, no interpolation: every value it returns was observed.
///
/// ```
/// use orin_exec_trace::percentile;
/// let s: Vec<u64> = (1..=1000).collect();
/// assert_eq!(percentile(&s, 50.0), 500);
/// assert_eq!(percentile(&s, 99.9), 999);
/// assert_eq!(percentile(&s[..10], 99.9), 10); // < 1000 samples: p99.9 is the maximum
/// ```
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    percentile_of(sorted, p).unwrap_or(0)
}

/// [`percentile`] over any ordered samples; `None` when there are none.
pub(crate) fn percentile_of<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    let rank = nearest_rank(sorted.len(), p)?;
    sorted.get(rank - 1).copied()
}

/// The 1-based nearest rank of percentile `p` among `n` samples (`None` when `n` is 0).
fn nearest_rank(n: usize, p: f64) -> Option<usize> {
    if n == 0 {
        return None;
    }
    // `p / 100 * n` carries rounding error (99.9 % of 1000 computes as 999.0000000000001):
    // shave a relative 1e-12 off before rounding up so exact ranks stay exact.
    let x = p / 100.0 * n as f64;
    let rank = (x - x.abs() * 1e-12).ceil().max(1.0) as usize;
    Some(rank.min(n))
}

/// Per-task timing and fault statistics from a run's records (exact percentiles).
pub fn summarize(meta: &TraceMeta, records: &[Record]) -> (Vec<TaskSummary>, ReleaseSummary) {
    let mut durations: Vec<Vec<u64>> = vec![Vec::new(); meta.tasks.len()];
    let mut out: Vec<TaskSummary> = meta
        .tasks
        .iter()
        .map(|t| TaskSummary {
            task: t.name.clone(),
            engine: meta
                .engines
                .get(t.engine as usize)
                .map_or("?".into(), |e| e.0.clone()),
            budget_ns: t.budget_ns,
            wcet_ns: t.wcet_ns,
            deadline_ns: t.deadline_ns,
            ..TaskSummary::default()
        })
        .collect();
    let mut releases: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    let mut release_errors = Vec::new();
    for r in records {
        if r.event == Event::FrameRelease {
            let err = r.value as i64;
            releases.insert(r.frame, (r.time_ns as i64 - err) as u64);
            release_errors.push(err);
        }
    }
    for x in executions(records) {
        let Some(s) = out.get_mut(x.task as usize) else {
            continue;
        };
        if x.skipped {
            s.skipped += 1;
            continue;
        }
        s.runs += 1;
        durations[x.task as usize].push(x.end_ns.saturating_sub(x.start_ns));
        if let Some(&rel) = releases.get(&x.frame) {
            s.max_finish_ns = s.max_finish_ns.max(x.end_ns.saturating_sub(rel));
        }
    }
    let mut miss_frames: Vec<Vec<u64>> = vec![Vec::new(); meta.tasks.len()];
    for r in records {
        let Event::Fault(kind) = r.event else {
            continue;
        };
        let Some(s) = out.get_mut(r.task as usize) else {
            continue;
        };
        match kind {
            FaultKind::DeadlineMiss => {
                s.deadline_misses += 1;
                miss_frames[r.task as usize].push(r.frame);
            }
            FaultKind::BudgetOverrun => s.budget_overruns += 1,
            FaultKind::FenceTimeout => {
                s.fence_timeouts += 1;
                miss_frames[r.task as usize].push(r.frame);
            }
            FaultKind::EngineError | FaultKind::TaskError => s.errors += 1,
        }
    }
    for (i, s) in out.iter_mut().enumerate() {
        let d = &mut durations[i];
        d.sort_unstable();
        s.samples = d.len() as u64;
        s.min_ns = d.first().copied().unwrap_or(0);
        s.max_ns = d.last().copied().unwrap_or(0);
        s.p50_ns = percentile(d, 50.0);
        s.p99_ns = percentile(d, 99.0);
        s.p999_ns = percentile(d, 99.9);
        let frames = &mut miss_frames[i];
        frames.sort_unstable();
        frames.dedup();
        s.longest_miss_run = crate::analysis::longest_run(frames).0;
    }
    let mut sorted = release_errors.clone();
    sorted.sort_unstable();
    let release = ReleaseSummary {
        frames: release_errors.len() as u64,
        min_error_ns: sorted.first().copied().unwrap_or(0),
        max_error_ns: sorted.last().copied().unwrap_or(0),
        mean_error_ns: if sorted.is_empty() {
            0
        } else {
            sorted.iter().sum::<i64>() / sorted.len() as i64
        },
        p99_error_ns: percentile_of(&sorted, 99.0).unwrap_or(0),
    };
    (out, release)
}

fn ms(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// The per-task summary as a text table (times in ms).
pub fn summary_table(tasks: &[TaskSummary]) -> String {
    let w = tasks.iter().map(|t| t.task.len()).max().unwrap_or(4).max(4);
    let row = |cells: [&str; 11]| {
        format!(
            "{:<w$} {:<7} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7}\n",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            cells[5],
            cells[6],
            cells[7],
            cells[8],
            cells[9],
            cells[10]
        )
    };
    let mut out = row([
        "task", "engine", "runs", "min", "p50", "p99", "max", "budget", "deadline", "misses",
        "faults",
    ]);
    for t in tasks {
        let faults = (t.budget_overruns + t.fence_timeouts + t.errors).to_string();
        out.push_str(&row([
            &t.task,
            &t.engine,
            &t.runs.to_string(),
            &ms(t.min_ns),
            &ms(t.p50_ns),
            &ms(t.p99_ns),
            &ms(t.max_ns),
            &ms(t.budget_ns),
            &ms(t.deadline_ns),
            &t.deadline_misses.to_string(),
            &faults,
        ]));
    }
    out
}
