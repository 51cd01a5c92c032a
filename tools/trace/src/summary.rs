//! Per-task timing and fault statistics of a run (the summary table and `summary.json`).

use serde::Serialize;

use orin_exec::table::FaultKind;
use orin_exec::trace::{Event, Record};

use crate::TraceMeta;
use crate::quantiles::Quantiles;
use crate::window::FrameMap;

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
    /// The percentiles are exact (at most [`crate::quantiles::EXACT_SAMPLES`] samples);
    /// otherwise within [`crate::quantiles::RELATIVE_ERROR`] of the exact values.
    pub percentiles_exact: bool,
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
    /// `p99_error_ns` is exact (at most [`crate::quantiles::EXACT_SAMPLES`] frames);
    /// otherwise within [`crate::quantiles::RELATIVE_ERROR`] of the exact value.
    pub p99_exact: bool,
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
pub(crate) fn nearest_rank(n: usize, p: f64) -> Option<usize> {
    if n == 0 {
        return None;
    }
    // `p / 100 * n` carries rounding error (99.9 % of 1000 computes as 999.0000000000001):
    // shave a relative 1e-12 off before rounding up so exact ranks stay exact.
    let x = p / 100.0 * n as f64;
    let rank = (x - x.abs() * 1e-12).ceil().max(1.0) as usize;
    Some(rank.min(n))
}

/// Per-task timing and fault statistics from a run's records (a [`Summarizer`] fed with
/// them: percentiles exact up to [`crate::quantiles::EXACT_SAMPLES`] executions per task).
pub fn summarize(meta: &TraceMeta, records: &[Record]) -> (Vec<TaskSummary>, ReleaseSummary) {
    let mut s = Summarizer::new(meta);
    records.iter().for_each(|r| s.add(r));
    s.finish()
}

/// Frames an execution's frame may trail the newest frame seen and still find its release
/// (records of a frame arrive within a few frames of each other; older releases are
/// forgotten, which keeps the state bounded).
const RELEASE_WINDOW: u64 = 256;

/// The summary of a run computed record by record in memory that does not grow with the
/// run (see [`crate::quantiles`] for the percentiles' error bound). Deadline misses and fence
/// timeouts of a task are taken to arrive in frame order, as the executive records them.
///
/// ```
/// use orin_exec::trace::{Event, Record};
/// use orin_exec_trace::{Summarizer, TaskMeta, TraceMeta};
/// let meta = TraceMeta { tasks: vec![TaskMeta { name: "t".into(), ..TaskMeta::default() }],
///                        ..TraceMeta::default() };
/// let mut s = Summarizer::new(&meta);
/// for f in 0..10u64 {
///     s.add(&Record { time_ns: f * 100, frame: f, task: 0, event: Event::TaskStart, value: 0 });
///     s.add(&Record { time_ns: f * 100 + 10 + f, frame: f, task: 0, event: Event::TaskEnd, value: 0 });
/// }
/// let (tasks, _) = s.finish();
/// assert_eq!((tasks[0].runs, tasks[0].min_ns, tasks[0].max_ns, tasks[0].p50_ns), (10, 10, 19, 14));
/// ```
pub struct Summarizer {
    tasks: Vec<TaskSummary>,
    durations: Vec<Quantiles>,
    /// Per task: (the last miss frame, the length of the run of misses ending there).
    miss_run: Vec<Option<(u64, u64)>>,
    /// Executions started, not yet ended: (task, frame) -> start.
    open: FrameMap<u64>,
    /// Planned release of the recent frames (task 0).
    releases: FrameMap<u64>,
    release_errors: Quantiles,
}

impl Summarizer {
    /// A summary of a run recorded with `meta`, before any record.
    pub fn new(meta: &TraceMeta) -> Summarizer {
        let tasks: Vec<TaskSummary> = meta
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
        let n = tasks.len();
        Summarizer {
            tasks,
            durations: (0..n).map(|_| Quantiles::new()).collect(),
            miss_run: vec![None; n],
            open: FrameMap::new(n, RELEASE_WINDOW),
            releases: FrameMap::new(1, RELEASE_WINDOW),
            release_errors: Quantiles::new(),
        }
    }

    /// Take one record into account.
    pub fn add(&mut self, r: &Record) {
        match r.event {
            Event::FrameRelease => {
                let err = r.value as i64;
                // Saturating: a corrupt record must not overflow (found by fuzzing).
                self.releases.insert(
                    0,
                    r.frame,
                    r.time_ns.saturating_add_signed(err.saturating_neg()),
                );
                self.release_errors.add(err);
            }
            Event::TaskStart => {
                self.open.insert(r.task, r.frame, r.time_ns);
            }
            Event::TaskEnd | Event::TaskSkipped => {
                let Some(start) = self.open.remove(r.task, r.frame) else {
                    return;
                };
                let Some(s) = self.tasks.get_mut(r.task as usize) else {
                    return;
                };
                if r.event == Event::TaskSkipped {
                    s.skipped += 1;
                    return;
                }
                s.runs += 1;
                self.durations[r.task as usize].add_u64(r.time_ns.saturating_sub(start));
                if let Some(&rel) = self.releases.get(0, r.frame) {
                    s.max_finish_ns = s.max_finish_ns.max(r.time_ns.saturating_sub(rel));
                }
            }
            Event::Fault(kind) => {
                let Some(s) = self.tasks.get_mut(r.task as usize) else {
                    return;
                };
                let missed = match kind {
                    FaultKind::DeadlineMiss => {
                        s.deadline_misses += 1;
                        true
                    }
                    FaultKind::BudgetOverrun => {
                        s.budget_overruns += 1;
                        false
                    }
                    FaultKind::FenceTimeout => {
                        s.fence_timeouts += 1;
                        true
                    }
                    FaultKind::EngineError | FaultKind::TaskError => {
                        s.errors += 1;
                        false
                    }
                };
                if missed {
                    let run = &mut self.miss_run[r.task as usize];
                    let len = match *run {
                        Some((last, len)) if r.frame <= last => len.max(1),
                        Some((last, len)) if r.frame == last + 1 => len + 1,
                        _ => 1,
                    };
                    if run.is_none_or(|(last, _)| r.frame >= last) {
                        *run = Some((r.frame, len));
                    }
                    s.longest_miss_run = s.longest_miss_run.max(len);
                }
            }
            _ => {}
        }
    }

    /// The summary of the records seen.
    pub fn finish(mut self) -> (Vec<TaskSummary>, ReleaseSummary) {
        for (s, d) in self.tasks.iter_mut().zip(&mut self.durations) {
            s.samples = d.count();
            s.min_ns = d.min() as u64;
            s.max_ns = d.max() as u64;
            s.p50_ns = d.percentile(50.0) as u64;
            s.p99_ns = d.percentile(99.0) as u64;
            s.p999_ns = d.percentile(99.9) as u64;
            s.percentiles_exact = d.exact();
        }
        let e = &mut self.release_errors;
        let release = ReleaseSummary {
            frames: e.count(),
            min_error_ns: e.min(),
            max_error_ns: e.max(),
            mean_error_ns: e.mean(),
            p99_error_ns: e.percentile(99.0),
            p99_exact: e.exact(),
        };
        (self.tasks, release)
    }
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
