//! What the evidence report draws from a run: per-task execution-time samples and their
//! percentiles, deadline misses and their longest run, the release error of every frame,
//! faults with the health monitor's reactions, mode switches and the observed start/end
//! envelope of each task beside the validator's worst-case timeline.
//!
//! Every function takes the trace's meta and records (as [`crate::read_trace`] returns them,
//! a truncated trace included) and returns plain structs that serialise with serde. Times are
//! ns; "relative" times are measured from the frame's *planned* release (the release error
//! of the frame is in [`ReleasePoint`]). [`analyze`] runs them all.
//!
//! ```
//! use orin_exec::trace::{Event, Record};
//! use orin_exec::trace::record::NO_TASK;
//! use orin_exec_trace::{TaskMeta, TraceMeta, analysis};
//!
//! let meta = TraceMeta {
//!     name: "demo".into(),
//!     period_ns: 1_000_000,
//!     engines: vec![("cpu0".into(), "cpu".into(), 0)],
//!     tasks: vec![TaskMeta { name: "t".into(), deadline_ns: 500_000, ..TaskMeta::default() }],
//!     modes: vec!["normal".into()],
//!     ..TraceMeta::default()
//! };
//! let r = |time_ns, frame, task, event, value| Record { time_ns, frame, task, event, value };
//! let records = [
//!     r(1_000_050, 1, NO_TASK, Event::FrameRelease, 50), // planned at 1 ms, 50 ns late
//!     r(1_100_000, 1, 0, Event::TaskStart, 0),
//!     r(1_300_000, 1, 0, Event::TaskEnd, 200_000),
//! ];
//! let a = analysis::analyze(&meta, &records);
//! assert_eq!(a.tasks[0].samples_ns, [200_000]);
//! assert_eq!(a.tasks[0].stats.p999_ns, 200_000);
//! assert!(!a.tasks[0].stats.p999_reliable); // fewer than 1000 samples
//! assert_eq!(a.release[0].error_ns, 50);
//! let env = &a.envelopes[0];
//! assert_eq!(env.observed.as_ref().unwrap().max_end_ns, 300_000);
//! assert_eq!(env.observed_margin_ns, Some(200_000));
//! ```

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use orin_exec::table::{Action, FaultKind};
use orin_exec::trace::{Event, Record};

use crate::quantiles::Quantiles;
use crate::summary::percentile_of;
use crate::{TraceMeta, executions};

/// Below this many samples, p99.9 is not backed by data (it is the maximum or close to it).
pub const P999_MIN_SAMPLES: u64 = 1000;

/// Order statistics of a set of samples (nearest-rank percentiles: every value was observed).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    /// How many samples.
    pub samples: u64,
    /// Minimum, ns (0 without samples, as every field).
    pub min_ns: u64,
    /// Median, ns.
    pub p50_ns: u64,
    /// 90th percentile, ns.
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Maximum, ns.
    pub max_ns: u64,
    /// Mean, ns (rounded down).
    pub mean_ns: u64,
    /// `samples >= P999_MIN_SAMPLES`: p99.9 rests on at least one sample above it. A report
    /// flags p99.9 when this is false.
    pub p999_reliable: bool,
    /// The percentiles are exact nearest-rank values. False only for [`Percentiles::of`] over
    /// more than [`crate::quantiles::EXACT_SAMPLES`] samples: then each is within
    /// [`crate::quantiles::RELATIVE_ERROR`] of the exact value (min, max, mean stay exact).
    pub exact: bool,
}

impl Percentiles {
    /// The statistics of samples gathered in fixed memory (a [`Quantiles`]; negative samples
    /// count as 0, as execution times cannot be negative).
    ///
    /// ```
    /// use orin_exec_trace::analysis::Percentiles;
    /// use orin_exec_trace::quantiles::Quantiles;
    /// let mut q = Quantiles::new();
    /// (1..=5).for_each(|v| q.add(v));
    /// let p = Percentiles::of(&mut q);
    /// assert_eq!((p.samples, p.min_ns, p.p50_ns, p.max_ns, p.exact), (5, 1, 3, 5, true));
    /// ```
    pub fn of(q: &mut Quantiles) -> Percentiles {
        let mut p = |pct| q.percentile(pct).max(0) as u64;
        let (p50_ns, p90_ns, p99_ns, p999_ns) = (p(50.0), p(90.0), p(99.0), p(99.9));
        Percentiles {
            samples: q.count(),
            min_ns: q.min().max(0) as u64,
            p50_ns,
            p90_ns,
            p99_ns,
            p999_ns,
            max_ns: q.max().max(0) as u64,
            mean_ns: q.mean().max(0) as u64,
            p999_reliable: q.count() >= P999_MIN_SAMPLES,
            exact: q.exact(),
        }
    }
}

/// Order statistics of `samples` (any order).
///
/// ```
/// let p = orin_exec_trace::analysis::percentiles(&[5, 1, 4, 2, 3]);
/// assert_eq!((p.samples, p.min_ns, p.p50_ns, p.max_ns, p.mean_ns), (5, 1, 3, 5, 3));
/// ```
pub fn percentiles(samples: &[u64]) -> Percentiles {
    let mut s = samples.to_vec();
    s.sort_unstable();
    let p = |q| percentile_of(&s, q).unwrap_or(0);
    Percentiles {
        samples: s.len() as u64,
        min_ns: s.first().copied().unwrap_or(0),
        p50_ns: p(50.0),
        p90_ns: p(90.0),
        p99_ns: p(99.0),
        p999_ns: p(99.9),
        max_ns: s.last().copied().unwrap_or(0),
        mean_ns: if s.is_empty() {
            0
        } else {
            (s.iter().map(|&x| u128::from(x)).sum::<u128>() / s.len() as u128) as u64
        },
        p999_reliable: s.len() as u64 >= P999_MIN_SAMPLES,
        exact: true,
    }
}

/// The execution times of one task, in frame order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TaskSamples {
    /// Task index.
    pub index: u16,
    /// Task name.
    pub task: String,
    /// Engine instance name.
    pub engine: String,
    /// Execution time (end - start) of every execution that was not skipped, ns, in frame
    /// order.
    pub samples_ns: Vec<u64>,
    /// The frame of each sample.
    pub frames: Vec<u64>,
    /// Executions skipped by the health monitor (not in the samples).
    pub skipped: u64,
}

/// Per task of the meta, its execution-time samples in frame order.
pub fn execution_samples(meta: &TraceMeta, records: &[Record]) -> Vec<TaskSamples> {
    let mut out: Vec<TaskSamples> = (0..meta.tasks.len() as u16)
        .map(|i| TaskSamples {
            index: i,
            task: meta.task_name(i),
            engine: meta.engine_of(i),
            ..TaskSamples::default()
        })
        .collect();
    let mut xs = executions(records);
    xs.sort_by_key(|x| (x.task, x.frame));
    for x in xs {
        let Some(t) = out.get_mut(x.task as usize) else {
            continue;
        };
        if x.skipped {
            t.skipped += 1;
        } else {
            t.samples_ns.push(x.end_ns.saturating_sub(x.start_ns));
            t.frames.push(x.frame);
        }
    }
    out
}

/// The deadline misses of one task.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Misses {
    /// Task index.
    pub index: u16,
    /// Task name.
    pub task: String,
    /// Frames with a deadline-miss fault, ascending.
    pub deadline_miss_frames: Vec<u64>,
    /// Frames with a fence-timeout fault (the task had not completed at its deadline),
    /// ascending.
    pub fence_timeout_frames: Vec<u64>,
    /// Frames with either, ascending, without duplicates: the frames in which the task's
    /// result was late.
    pub frames: Vec<u64>,
    /// Longest run of consecutive frames in `frames` (0 when none).
    pub longest_run: u64,
    /// First frame of the (first) longest run.
    pub longest_run_first_frame: Option<u64>,
}

/// Longest run of consecutive values in ascending, deduplicated `frames`: (length, first).
pub(crate) fn longest_run(frames: &[u64]) -> (u64, Option<u64>) {
    let (mut run, mut best, mut first, mut best_first) = (0u64, 0u64, 0u64, None);
    let mut prev = None::<u64>;
    for &f in frames {
        if prev.is_some_and(|p| p.checked_add(1) == Some(f)) {
            run += 1;
        } else {
            run = 1;
            first = f;
        }
        if run > best {
            best = run;
            best_first = Some(first);
        }
        prev = Some(f);
    }
    (best, best_first)
}

/// Per task of the meta, its deadline misses (deadline-miss and fence-timeout faults) and
/// their longest run of consecutive frames.
pub fn deadline_misses(meta: &TraceMeta, records: &[Record]) -> Vec<Misses> {
    let mut out: Vec<Misses> = (0..meta.tasks.len() as u16)
        .map(|i| Misses {
            index: i,
            task: meta.task_name(i),
            ..Misses::default()
        })
        .collect();
    for r in records {
        let Some(m) = out.get_mut(r.task as usize) else {
            continue;
        };
        match r.event {
            Event::Fault(FaultKind::DeadlineMiss) => m.deadline_miss_frames.push(r.frame),
            Event::Fault(FaultKind::FenceTimeout) => m.fence_timeout_frames.push(r.frame),
            _ => {}
        }
    }
    for m in &mut out {
        for v in [&mut m.deadline_miss_frames, &mut m.fence_timeout_frames] {
            v.sort_unstable();
            v.dedup();
        }
        m.frames = m
            .deadline_miss_frames
            .iter()
            .chain(&m.fence_timeout_frames)
            .copied()
            .collect();
        m.frames.sort_unstable();
        m.frames.dedup();
        (m.longest_run, m.longest_run_first_frame) = longest_run(&m.frames);
    }
    out
}

/// The release of one major frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReleasePoint {
    /// Frame.
    pub frame: u64,
    /// When the executive released it, ns.
    pub time_ns: u64,
    /// When it was planned, ns.
    pub planned_ns: u64,
    /// `time_ns - planned_ns` (release jitter; positive = late).
    pub error_ns: i64,
}

/// The release error of every frame released, in frame order.
pub fn release_errors(records: &[Record]) -> Vec<ReleasePoint> {
    let mut out: Vec<ReleasePoint> = records
        .iter()
        .filter(|r| r.event == Event::FrameRelease)
        .map(|r| {
            let error_ns = r.value as i64;
            ReleasePoint {
                frame: r.frame,
                time_ns: r.time_ns,
                planned_ns: (r.time_ns as i64).wrapping_sub(error_ns) as u64,
                error_ns,
            }
        })
        .collect();
    out.sort_by_key(|p| p.frame);
    out
}

/// Planned release times: recorded ones, else extrapolated from any recorded one and the
/// period (a frame whose release record was lost to an overflow).
struct Releases {
    planned: HashMap<u64, u64>,
    anchor: Option<(u64, u64)>,
    period_ns: u64,
}

impl Releases {
    fn new(meta: &TraceMeta, records: &[Record]) -> Self {
        let points = release_errors(records);
        Releases {
            anchor: points.first().map(|p| (p.frame, p.planned_ns)),
            planned: points.iter().map(|p| (p.frame, p.planned_ns)).collect(),
            period_ns: meta.period_ns,
        }
    }

    fn planned(&self, frame: u64) -> Option<u64> {
        if let Some(&t) = self.planned.get(&frame) {
            return Some(t);
        }
        let (f0, t0) = self.anchor?;
        let delta = (frame as i128 - f0 as i128) * self.period_ns as i128;
        u64::try_from(t0 as i128 + delta).ok()
    }

    fn relative(&self, frame: u64, time_ns: u64) -> Option<i64> {
        self.planned(frame)
            .map(|rel| (time_ns as i128 - rel as i128) as i64)
    }
}

/// A fault the health monitor detected, and its reaction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Incident {
    /// Frame of the faulty execution.
    pub frame: u64,
    /// Task index.
    pub index: u16,
    /// Task name.
    pub task: String,
    /// Engine instance name.
    pub engine: String,
    /// Fault kind (`deadline_miss`, `budget_overrun`, `fence_timeout`, `engine_error`,
    /// `task_error`).
    pub fault: String,
    /// When it was detected, ns.
    pub detected_ns: u64,
    /// The same, relative to the frame's planned release (`None` without any release in the
    /// trace).
    pub detected_rel_ns: Option<i64>,
    /// The reaction (`log`, `skip`, `switch_mode`, `safe_stop`); `None` when the trace ends
    /// before it was recorded.
    pub reaction: Option<String>,
    /// For `switch_mode`: the mode requested.
    pub reaction_mode: Option<String>,
    /// When the reaction was recorded, ns.
    pub reacted_ns: Option<u64>,
    /// The same, relative to the frame's planned release.
    pub reacted_rel_ns: Option<i64>,
}

fn action_name(a: Action) -> &'static str {
    match a {
        Action::Log => "log",
        Action::Skip => "skip",
        Action::SwitchMode(_) => "switch_mode",
        Action::SafeStop => "safe_stop",
    }
}

/// Every detected fault with the reaction the executive recorded for it (the next reaction
/// of the same task and frame), in trace order. The trace holds detections, not the faults
/// a test injected: a fault plan lists those.
pub fn incidents(meta: &TraceMeta, records: &[Record]) -> Vec<Incident> {
    let rel = Releases::new(meta, records);
    let mut out: Vec<Incident> = Vec::new();
    // Incidents waiting for their reaction, per (task, frame), oldest first.
    let mut open: HashMap<(u16, u64), Vec<usize>> = HashMap::new();
    for r in records {
        match r.event {
            Event::Fault(kind) => {
                open.entry((r.task, r.frame)).or_default().push(out.len());
                out.push(Incident {
                    frame: r.frame,
                    index: r.task,
                    task: meta.task_name(r.task),
                    engine: meta.engine_of(r.task),
                    fault: kind.name().into(),
                    detected_ns: r.time_ns,
                    detected_rel_ns: rel.relative(r.frame, r.time_ns),
                    ..Incident::default()
                });
            }
            Event::Reaction(action) => {
                let Some(waiting) = open.get_mut(&(r.task, r.frame)) else {
                    continue;
                };
                if waiting.is_empty() {
                    continue;
                }
                let i = waiting.remove(0);
                let inc = &mut out[i];
                inc.reaction = Some(action_name(action).into());
                inc.reaction_mode = match action {
                    Action::SwitchMode(m) => Some(meta.mode_name(m.0.into())),
                    _ => None,
                };
                inc.reacted_ns = Some(r.time_ns);
                inc.reacted_rel_ns = rel.relative(r.frame, r.time_ns);
            }
            _ => {}
        }
    }
    out
}

/// A mode switch of the executive.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ModeChange {
    /// First frame run in the new mode.
    pub frame: u64,
    /// When the executive switched, ns.
    pub time_ns: u64,
    /// Mode index before.
    pub from_index: u16,
    /// Mode name before.
    pub from: String,
    /// Mode index after.
    pub to_index: u16,
    /// Mode name after.
    pub to: String,
    /// The task whose fault requested it (the latest `switch_mode` reaction to this mode
    /// before the switch), with that fault's frame.
    pub requested_by: Option<(String, u64)>,
}

/// The executive's mode switches, in order (the run starts in mode 0).
pub fn mode_switches(meta: &TraceMeta, records: &[Record]) -> Vec<ModeChange> {
    let mut out = Vec::new();
    let mut mode = 0u16;
    let mut request: Option<(u16, u16, u64)> = None; // (mode, task, frame)
    let mut ordered: Vec<&Record> = records
        .iter()
        .filter(|r| {
            matches!(
                r.event,
                Event::ModeSwitch | Event::Reaction(Action::SwitchMode(_))
            )
        })
        .collect();
    ordered.sort_by_key(|r| r.time_ns);
    for r in ordered {
        match r.event {
            Event::Reaction(Action::SwitchMode(m)) => request = Some((m.0.into(), r.task, r.frame)),
            Event::ModeSwitch => {
                let to = r.value as u16;
                let requested_by = request
                    .filter(|&(m, _, _)| m == to)
                    .map(|(_, task, frame)| (meta.task_name(task), frame));
                out.push(ModeChange {
                    frame: r.frame,
                    time_ns: r.time_ns,
                    from_index: mode,
                    from: meta.mode_name(mode),
                    to_index: to,
                    to: meta.mode_name(to),
                    requested_by,
                });
                mode = to;
                request = None;
            }
            _ => {}
        }
    }
    out
}

/// The mode of every frame: (first frame, mode) steps, from the mode switches.
fn mode_steps(meta: &TraceMeta, records: &[Record]) -> BTreeMap<u64, u16> {
    let mut steps = BTreeMap::new();
    steps.insert(0, 0);
    for m in mode_switches(meta, records) {
        steps.insert(m.frame, m.to_index);
    }
    steps
}

/// The validator's worst case for a task in a mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WorstCase {
    /// Latest start relative to the frame release, ns.
    pub latest_start_ns: u64,
    /// Latest finish relative to the frame release, ns.
    pub latest_finish_ns: u64,
    /// Deadline minus latest finish, ns.
    pub slack_ns: u64,
}

/// What a run observed of a task in a mode: start and end relative to the planned release.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Observed {
    /// Executions (not skipped) in frames of this mode.
    pub executions: u64,
    /// Earliest start, ns after the planned release (negative: before it).
    pub min_start_ns: i64,
    /// Latest start, ns.
    pub max_start_ns: i64,
    /// Earliest end, ns.
    pub min_end_ns: i64,
    /// Latest end, ns.
    pub max_end_ns: i64,
}

/// A task's envelope in one mode: the validator's worst case beside what was observed (the
/// Gantt of one major frame).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Envelope {
    /// Mode index.
    pub mode_index: u16,
    /// Mode name.
    pub mode: String,
    /// Task index.
    pub index: u16,
    /// Task name.
    pub task: String,
    /// Engine instance name.
    pub engine: String,
    /// The task's release offset in the frame, ns (CPU tasks).
    pub release_ns: u64,
    /// Deadline relative to the frame release, ns.
    pub deadline_ns: u64,
    /// The validator's worst-case timeline row (`None` in traces without one).
    pub worst_case: Option<WorstCase>,
    /// What the run observed (`None`: the task never ran in this mode).
    pub observed: Option<Observed>,
    /// Deadline minus the latest observed end, ns (negative: a miss).
    pub observed_margin_ns: Option<i64>,
}

/// Per mode and task, the observed envelope of start and end relative to the planned frame
/// release, beside the validator's worst-case timeline: one entry for every (mode, task)
/// that has a timeline row or was observed, ordered by mode then task. Skipped executions
/// and executions of frames with no known release are left out.
pub fn envelopes(meta: &TraceMeta, records: &[Record]) -> Vec<Envelope> {
    let rel = Releases::new(meta, records);
    let steps = mode_steps(meta, records);
    let mode_of = |frame: u64| steps.range(..=frame).next_back().map_or(0, |(_, &m)| m);
    let mut env = Envelopes::new(meta);
    for x in executions(records) {
        if x.skipped {
            continue;
        }
        if let (Some(start), Some(end)) = (
            rel.relative(x.frame, x.start_ns),
            rel.relative(x.frame, x.end_ns),
        ) {
            env.add(mode_of(x.frame), x.task, start, end);
        }
    }
    env.finish()
}

/// The observed envelopes gathered execution by execution (memory per (mode, task), not per
/// execution): what [`envelopes`] computes, for a caller that streams the trace.
///
/// ```
/// use orin_exec_trace::{TaskMeta, TraceMeta, analysis::Envelopes};
/// let meta = TraceMeta {
///     tasks: vec![TaskMeta { name: "t".into(), deadline_ns: 500, ..TaskMeta::default() }],
///     ..TraceMeta::default()
/// };
/// let mut env = Envelopes::new(&meta);
/// env.add(0, 0, 10, 300);
/// env.add(0, 0, 20, 200);
/// let e = env.finish();
/// let o = e[0].observed.unwrap();
/// assert_eq!((o.executions, o.min_start_ns, o.max_end_ns), (2, 10, 300));
/// assert_eq!(e[0].observed_margin_ns, Some(200));
/// ```
#[derive(Clone, Debug)]
pub struct Envelopes<'m> {
    meta: &'m TraceMeta,
    map: BTreeMap<(u16, u16), Envelope>,
}

impl<'m> Envelopes<'m> {
    /// The worst-case rows of `meta`'s timeline, nothing observed yet.
    pub fn new(meta: &'m TraceMeta) -> Envelopes<'m> {
        let mut env = Envelopes {
            meta,
            map: BTreeMap::new(),
        };
        for row in &meta.timeline {
            env.entry(row.mode, row.task).worst_case = Some(WorstCase {
                latest_start_ns: row.latest_start_ns,
                latest_finish_ns: row.latest_finish_ns,
                slack_ns: row.slack_ns,
            });
        }
        env
    }

    fn entry(&mut self, mode: u16, task: u16) -> &mut Envelope {
        let meta = self.meta;
        self.map.entry((mode, task)).or_insert_with(|| {
            let t = meta.tasks.get(task as usize);
            Envelope {
                mode_index: mode,
                mode: meta.mode_name(mode),
                index: task,
                task: meta.task_name(task),
                engine: meta.engine_of(task),
                release_ns: t.map_or(0, |t| t.release_ns),
                deadline_ns: t.map_or(0, |t| t.deadline_ns),
                ..Envelope::default()
            }
        })
    }

    /// One execution (not skipped) of `task` in a frame of `mode`, its start and end relative
    /// to the frame's planned release. Tasks the meta does not name are left out.
    pub fn add(&mut self, mode: u16, task: u16, start_ns: i64, end_ns: i64) {
        if task as usize >= self.meta.tasks.len() {
            return;
        }
        let o = self.entry(mode, task).observed.get_or_insert(Observed {
            executions: 0,
            min_start_ns: start_ns,
            max_start_ns: start_ns,
            min_end_ns: end_ns,
            max_end_ns: end_ns,
        });
        o.executions += 1;
        o.min_start_ns = o.min_start_ns.min(start_ns);
        o.max_start_ns = o.max_start_ns.max(start_ns);
        o.min_end_ns = o.min_end_ns.min(end_ns);
        o.max_end_ns = o.max_end_ns.max(end_ns);
    }

    /// The envelopes, ordered by mode then task, with their observed margins.
    pub fn finish(self) -> Vec<Envelope> {
        self.map
            .into_values()
            .map(|mut e| {
                e.observed_margin_ns = e.observed.map(|o| e.deadline_ns as i64 - o.max_end_ns);
                e
            })
            .collect()
    }
}

/// A histogram of samples over `[lo_ns, hi_ns]` in `bins` equal bins.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Histogram {
    /// Lower edge of the first bin, ns.
    pub lo_ns: u64,
    /// Width of each bin, ns (at least 1).
    pub bin_ns: u64,
    /// Samples per bin.
    pub counts: Vec<u64>,
    /// Samples below `lo_ns`.
    pub below: u64,
    /// Samples above the last bin.
    pub above: u64,
}

/// Histogram of `samples` in `bins` (at least 1) bins of equal width covering
/// `[lo_ns, hi_ns]` (the last bin includes `hi_ns`).
///
/// ```
/// let h = orin_exec_trace::analysis::histogram(&[0, 1, 5, 9, 10, 11], 0, 10, 2);
/// assert_eq!((h.bin_ns, h.counts.as_slice(), h.above), (5, &[2, 3][..], 1));
/// ```
pub fn histogram(samples: &[u64], lo_ns: u64, hi_ns: u64, bins: usize) -> Histogram {
    let bins = bins.max(1);
    let bin_ns = hi_ns.saturating_sub(lo_ns).div_ceil(bins as u64).max(1);
    let mut h = Histogram {
        lo_ns,
        bin_ns,
        counts: vec![0; bins],
        below: 0,
        above: 0,
    };
    for &s in samples {
        if s < lo_ns {
            h.below += 1;
        } else if s > hi_ns {
            h.above += 1;
        } else {
            let i = (((s - lo_ns) / bin_ns) as usize).min(bins - 1);
            h.counts[i] += 1;
        }
    }
    h
}

/// One task's timing over a run: its samples, their statistics and its misses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TaskTiming {
    /// Task index.
    pub index: u16,
    /// Task name.
    pub task: String,
    /// Engine instance name.
    pub engine: String,
    /// Budget, ns.
    pub budget_ns: u64,
    /// WCET used by the validator, ns.
    pub wcet_ns: u64,
    /// Deadline relative to the frame release, ns.
    pub deadline_ns: u64,
    /// Execution times in frame order, ns (executions not skipped).
    pub samples_ns: Vec<u64>,
    /// The frame of each sample.
    pub frames: Vec<u64>,
    /// Executions skipped by the health monitor.
    pub skipped: u64,
    /// Statistics of `samples_ns`.
    pub stats: Percentiles,
    /// Samples above the budget.
    pub over_budget: u64,
    /// Samples above the WCET.
    pub over_wcet: u64,
    /// Deadline misses.
    pub misses: Misses,
}

/// Everything the report draws from one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunAnalysis {
    /// Run id from the trace meta.
    pub run_id: String,
    /// Schedule name.
    pub schedule: String,
    /// Major frame period, ns.
    pub period_ns: u64,
    /// Frames released.
    pub frames_released: u64,
    /// Lowest frame any record names.
    pub first_frame: Option<u64>,
    /// Highest frame any record names.
    pub last_frame: Option<u64>,
    /// Records lost to ring overflow (the trace is incomplete when > 0).
    pub lost_records: u64,
    /// Per task, in schedule order.
    pub tasks: Vec<TaskTiming>,
    /// Release error of every frame.
    pub release: Vec<ReleasePoint>,
    /// Statistics of the release error (over `error_ns`; negative values are clamped to 0
    /// here, `release` has them signed).
    pub release_stats: Percentiles,
    /// Faults and reactions.
    pub incidents: Vec<Incident>,
    /// Mode switches.
    pub mode_switches: Vec<ModeChange>,
    /// Observed envelopes beside the worst-case timeline.
    pub envelopes: Vec<Envelope>,
}

/// All the analyses of this module over one run.
pub fn analyze(meta: &TraceMeta, records: &[Record]) -> RunAnalysis {
    let samples = execution_samples(meta, records);
    let misses = deadline_misses(meta, records);
    let tasks = samples
        .into_iter()
        .zip(misses)
        .map(|(s, m)| {
            let t = &meta.tasks[s.index as usize];
            TaskTiming {
                index: s.index,
                task: s.task,
                engine: s.engine,
                budget_ns: t.budget_ns,
                wcet_ns: t.wcet_ns,
                deadline_ns: t.deadline_ns,
                stats: percentiles(&s.samples_ns),
                over_budget: s.samples_ns.iter().filter(|&&d| d > t.budget_ns).count() as u64,
                over_wcet: s.samples_ns.iter().filter(|&&d| d > t.wcet_ns).count() as u64,
                samples_ns: s.samples_ns,
                frames: s.frames,
                skipped: s.skipped,
                misses: m,
            }
        })
        .collect();
    let release = release_errors(records);
    let errors: Vec<u64> = release.iter().map(|p| p.error_ns.max(0) as u64).collect();
    let framed = || {
        records
            .iter()
            .filter(|r| r.event != Event::Overflow)
            .map(|r| r.frame)
    };
    RunAnalysis {
        run_id: meta.run_id.clone(),
        schedule: meta.name.clone(),
        period_ns: meta.period_ns,
        frames_released: release.len() as u64,
        first_frame: framed().min(),
        last_frame: framed().max(),
        lost_records: records
            .iter()
            .filter(|r| r.event == Event::Overflow)
            .map(|r| r.value)
            .sum(),
        tasks,
        release_stats: percentiles(&errors),
        release,
        incidents: incidents(meta, records),
        mode_switches: mode_switches(meta, records),
        envelopes: envelopes(meta, records),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, PERIOD, T0};
    use crate::summarize;
    use orin_exec::trace::record::NO_TASK;

    fn meta() -> TraceMeta {
        TraceMeta::from_schedule(&fixture::SCHEDULE, "sil").with_run_id("run-x")
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn samples_in_frame_order_with_percentiles() {
        let a = analyze(&meta(), &fixture::run());
        assert_eq!(a.run_id, "run-x");
        let by = |name: &str| a.tasks.iter().find(|t| t.task == name).unwrap();
        assert_eq!(by("a").samples_ns, [200_000, 201_000, 202_000, 203_000]);
        assert_eq!(by("a").frames, [0, 1, 2, 3]);
        assert_eq!(by("b").samples_ns, [200_000, 200_000]);
        assert_eq!(by("c").samples_ns, [150_000, 149_000, 148_000, 147_000]);
        let s = &by("a").stats;
        assert_eq!(
            (
                s.samples, s.min_ns, s.p50_ns, s.p99_ns, s.p999_ns, s.max_ns, s.mean_ns
            ),
            (4, 200_000, 201_000, 203_000, 203_000, 203_000, 201_500)
        );
        assert!(!s.p999_reliable);
        // a's samples are above its 200 us WCET three times, never above its 250 us budget.
        assert_eq!((by("a").over_wcet, by("a").over_budget), (3, 0));
        assert_eq!(
            (by("a").engine.as_str(), by("b").engine.as_str()),
            ("cpu0", "cpu1")
        );
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn p999_over_many_samples_agrees_with_summarize() {
        let mut m = meta();
        m.tasks.truncate(1);
        m.timeline.clear();
        // 1500 executions of task 0 with durations 1..=1500 us in a scrambled frame order,
        // misses in frames 3, 4, 5 (deadline), 9 (fence timeout), 10 (deadline).
        let mut records = Vec::new();
        for f in 0..1500u64 {
            let d = ((f * 7919) % 1500 + 1) * 1000;
            let rel = T0 + f * PERIOD;
            records.push(Record {
                time_ns: rel,
                frame: f,
                task: NO_TASK,
                event: Event::FrameRelease,
                value: 0,
            });
            records.push(Record {
                time_ns: rel + 10,
                frame: f,
                task: 0,
                event: Event::TaskStart,
                value: 0,
            });
            records.push(Record {
                time_ns: rel + 10 + d,
                frame: f,
                task: 0,
                event: Event::TaskEnd,
                value: d,
            });
        }
        for (f, k) in [
            (3, FaultKind::DeadlineMiss),
            (4, FaultKind::DeadlineMiss),
            (5, FaultKind::DeadlineMiss),
            (9, FaultKind::FenceTimeout),
            (10, FaultKind::DeadlineMiss),
        ] {
            records.push(Record {
                time_ns: T0 + f * PERIOD + 900,
                frame: f,
                task: 0,
                event: Event::Fault(k),
                value: 0,
            });
        }
        let a = analyze(&m, &records);
        let t = &a.tasks[0];
        assert_eq!(t.samples_ns.len(), 1500);
        assert_eq!(t.frames, (0..1500).collect::<Vec<_>>());
        assert_eq!(t.samples_ns[1], (7919 % 1500 + 1) * 1000);
        let s = &t.stats;
        assert_eq!(
            (s.min_ns, s.p50_ns, s.p99_ns, s.p999_ns, s.max_ns),
            (1000, 750_000, 1_485_000, 1_499_000, 1_500_000)
        );
        assert!(s.p999_reliable);
        assert_eq!(t.misses.deadline_miss_frames, [3, 4, 5, 10]);
        assert_eq!(t.misses.fence_timeout_frames, [9]);
        assert_eq!(t.misses.frames, [3, 4, 5, 9, 10]);
        assert_eq!(
            (t.misses.longest_run, t.misses.longest_run_first_frame),
            (3, Some(3))
        );
        let (sum, _) = summarize(&m, &records);
        let s0 = &sum[0];
        assert_eq!(
            (
                s0.samples, s0.min_ns, s0.p50_ns, s0.p99_ns, s0.p999_ns, s0.max_ns
            ),
            (s.samples, s.min_ns, s.p50_ns, s.p99_ns, s.p999_ns, s.max_ns)
        );
        assert_eq!(
            (s0.deadline_misses, s0.fence_timeouts, s0.longest_miss_run),
            (4, 1, 3)
        );
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn longest_run_finds_the_first_longest() {
        assert_eq!(longest_run(&[]), (0, None));
        assert_eq!(longest_run(&[7]), (1, Some(7)));
        assert_eq!(longest_run(&[1, 2, 5, 6, 7, 9, 10, 11]), (3, Some(5)));
        assert_eq!(longest_run(&[0, u64::MAX]), (1, Some(0)));
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn release_error_per_frame() {
        let a = analyze(&meta(), &fixture::run());
        let want: Vec<ReleasePoint> = (0..4u64)
            .map(|f| ReleasePoint {
                frame: f,
                time_ns: T0 + f * PERIOD + f * 1000,
                planned_ns: T0 + f * PERIOD,
                error_ns: (f * 1000) as i64,
            })
            .collect();
        assert_eq!(a.release, want);
        assert_eq!(
            (a.frames_released, a.first_frame, a.last_frame),
            (4, Some(0), Some(3))
        );
        assert_eq!(
            (a.release_stats.max_ns, a.release_stats.mean_ns),
            (3000, 1500)
        );
        assert_eq!(a.lost_records, 0);
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn incidents_with_reactions() {
        let inc = incidents(&meta(), &fixture::run());
        assert_eq!(
            inc,
            [
                Incident {
                    frame: 1,
                    index: 1,
                    task: "b".into(),
                    engine: "cpu1".into(),
                    fault: "deadline_miss".into(),
                    detected_ns: T0 + PERIOD + 950_000,
                    detected_rel_ns: Some(950_000),
                    reaction: Some("switch_mode".into()),
                    reaction_mode: Some("degraded".into()),
                    reacted_ns: Some(T0 + PERIOD + 960_000),
                    reacted_rel_ns: Some(960_000),
                },
                Incident {
                    frame: 3,
                    index: 2,
                    task: "c".into(),
                    engine: "cpu0".into(),
                    fault: "budget_overrun".into(),
                    detected_ns: T0 + 3 * PERIOD + 460_000,
                    detected_rel_ns: Some(460_000),
                    reaction: Some("log".into()),
                    reaction_mode: None,
                    reacted_ns: Some(T0 + 3 * PERIOD + 470_000),
                    reacted_rel_ns: Some(470_000),
                },
            ]
        );
        // A trace cut between a fault and its reaction keeps the fault, without reaction.
        let mut cut = fixture::run();
        let last = cut.pop().unwrap();
        assert!(matches!(last.event, Event::Reaction(_)));
        let inc = incidents(&meta(), &cut);
        assert_eq!((inc.len(), inc[1].reaction.as_deref()), (2, None));
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn mode_switch_with_its_cause() {
        let m = mode_switches(&meta(), &fixture::run());
        assert_eq!(
            m,
            [ModeChange {
                frame: 2,
                time_ns: T0 + 2 * PERIOD - 10_000,
                from_index: 0,
                from: "normal".into(),
                to_index: 1,
                to: "degraded".into(),
                requested_by: Some(("b".into(), 1)),
            }]
        );
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn envelopes_per_mode_beside_the_timeline() {
        let env = envelopes(&meta(), &fixture::run());
        let key: Vec<(&str, &str)> = env
            .iter()
            .map(|e| (e.mode.as_str(), e.task.as_str()))
            .collect();
        // b never runs in "degraded" and has no timeline row there: no entry.
        assert_eq!(
            key,
            [
                ("normal", "a"),
                ("normal", "b"),
                ("normal", "c"),
                ("degraded", "a"),
                ("degraded", "c")
            ]
        );
        let get = |mode: &str, task: &str| {
            env.iter()
                .find(|e| e.mode == mode && e.task == task)
                .unwrap()
        };
        let o = |mode: &str, task: &str| {
            let x = get(mode, task).observed.unwrap();
            (
                x.executions,
                x.min_start_ns,
                x.max_start_ns,
                x.min_end_ns,
                x.max_end_ns,
            )
        };
        assert_eq!(o("normal", "a"), (2, 100_000, 100_000, 300_000, 301_000));
        assert_eq!(o("normal", "b"), (2, 400_000, 400_000, 600_000, 600_000));
        assert_eq!(o("normal", "c"), (2, 300_000, 301_000, 450_000, 450_000));
        assert_eq!(o("degraded", "a"), (2, 100_000, 100_000, 302_000, 303_000));
        assert_eq!(o("degraded", "c"), (2, 302_000, 303_000, 450_000, 450_000));
        let b = get("normal", "b");
        assert_eq!(
            b.worst_case,
            Some(WorstCase {
                latest_start_ns: 300_000,
                latest_finish_ns: 500_000,
                slack_ns: 400_000
            })
        );
        // b's observed end (600 us) is past the validator's latest finish: the report shows it.
        assert_eq!(b.observed_margin_ns, Some(900_000 - 600_000));
        assert_eq!((b.deadline_ns, b.engine.as_str()), (900_000, "cpu1"));
        assert_eq!(get("normal", "a").release_ns, 100_000);
        // A timeline row never observed still has an entry.
        let mut records = fixture::run();
        records.retain(|r| r.task != 2);
        let env = envelopes(&meta(), &records);
        let c = env
            .iter()
            .find(|e| e.mode == "degraded" && e.task == "c")
            .unwrap();
        assert!(c.worst_case.is_some() && c.observed.is_none() && c.observed_margin_ns.is_none());
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn the_analysis_serialises() {
        let a = analyze(&meta(), &fixture::run());
        let v: serde_json::Value = serde_json::to_value(&a).unwrap();
        assert_eq!(v["tasks"][0]["stats"]["p999_ns"], 203_000);
        assert_eq!(v["incidents"][0]["reaction_mode"], "degraded");
        assert_eq!(v["envelopes"][0]["worst_case"]["latest_finish_ns"], 300_000);
    }

    /// Covers: REQ-EVD-008
    #[test]
    fn histogram_bins() {
        let h = histogram(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 2, 7, 3);
        assert_eq!(
            (h.bin_ns, h.counts.as_slice(), h.below, h.above),
            (2, &[2, 2, 2][..], 2, 2)
        );
        let h = histogram(&[5, 5], 5, 5, 4);
        assert_eq!((h.bin_ns, h.counts.as_slice()), (1, &[2, 0, 0, 0][..]));
    }
}
