//! What the report shows from a trace, gathered from [`orin_exec_trace::analysis`] (samples,
//! percentiles, misses, release errors, incidents, mode switches, envelopes) into one view
//! per task and per run.
//!
//! The release statistics are [`orin_exec_trace::summarize`]'s, the same the runners write to
//! their JSON summaries; the per-task numbers come from the analysis module's own code path,
//! so a test that compares the report with a summary compares two computations.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::Path;

use orin_exec::trace::{Event, Record};
use orin_exec_trace::analysis::{self, Envelope, Envelopes, Percentiles};
use orin_exec_trace::quantiles::Quantiles;
use orin_exec_trace::window::FrameMap;
use orin_exec_trace::{ReleaseSummary, Summarizer, TraceMeta, TraceReader};
use serde::Serialize;

/// Bins of each task's execution-time histogram.
pub const HIST_BINS: usize = 80;

/// Columns of the release-error plot (one per pixel of its plot area): frames beyond this
/// many are drawn as the min and max of the frames of a column.
pub const RELEASE_COLUMNS: usize = 882;

/// Frames an execution's frame may trail the newest released frame and still find its
/// planned release in the second pass (older ones are extrapolated from the first release
/// and the period), which keeps that state bounded.
pub const RELEASE_WINDOW: u64 = 256;

/// A trace file as the report reads it: its header and what the file says about its end.
/// The records themselves are not kept: the report reads the file twice, record by record
/// (see [`Analysis::read`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The schedule the trace was recorded with.
    pub meta: TraceMeta,
    /// Whole records in the file.
    pub records: u64,
    /// The file ends early (a partial record or no end marker: a killed or crashed run).
    pub truncated: bool,
    /// The last frame any record names.
    pub last_frame: Option<u64>,
}

/// One task over the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskAnalysis {
    /// Task name.
    pub task: String,
    /// Engine instance name.
    pub engine: String,
    /// WCET the validator used, ns.
    pub wcet_ns: u64,
    /// Budget, ns.
    pub budget_ns: u64,
    /// Deadline after the frame release, ns.
    pub deadline_ns: u64,
    /// Executions that ran (not skipped).
    pub runs: u64,
    /// Executions skipped by the health monitor.
    pub skipped: u64,
    /// Executions per bin of [`HIST_BINS`] equal bins over `[0, hist_max_ns)` (the last bin
    /// also holds the executions at or above it).
    pub histogram: Vec<u64>,
    /// The histogram's range, ns (from the statistics, the WCET, budget and deadline).
    pub hist_max_ns: f64,
    /// Their statistics (p99.9 is flagged below 1000 samples; exact up to
    /// [`orin_exec_trace::quantiles::EXACT_SAMPLES`] samples).
    pub stats: Percentiles,
    /// Deadline misses.
    pub deadline_misses: u64,
    /// Fence timeouts (the task had not finished at its deadline).
    pub fence_timeouts: u64,
    /// Budget overruns.
    pub budget_overruns: u64,
    /// Engine and task errors.
    pub errors: u64,
    /// Longest run of consecutive frames with a deadline miss or a fence timeout.
    pub longest_miss_run: u64,
    /// Latest end after the frame's planned release, ns (0 without executions).
    pub max_finish_ns: u64,
}

/// A fault and the health monitor's reaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultEvent {
    /// The frame.
    pub frame: u64,
    /// When it was detected, ns after the frame's planned release.
    pub at_ns: Option<i64>,
    /// The task.
    pub task: String,
    /// The fault (`deadline_miss`, `fence_timeout`, ...).
    pub fault: String,
    /// The reaction (`log`, `skip`, `switch to mode `degraded``, `safe stop`; `none recorded`
    /// when the trace ends first).
    pub reaction: String,
}

/// A mode switch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModeSwitch {
    /// The first frame run in the new mode.
    pub frame: u64,
    /// The mode before.
    pub from: String,
    /// The new mode.
    pub mode: String,
    /// The task whose fault requested it, and that fault's frame.
    pub requested_by: Option<(String, u64)>,
}

/// The release error of every frame, drawn into [`RELEASE_COLUMNS`] + 1 columns: frame `f`
/// goes to column `round(RELEASE_COLUMNS * (f - first) / (last - first))`, each column keeps
/// the min and max error of its frames.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReleaseSeries {
    /// The first frame released.
    pub first_frame: u64,
    /// The last frame released (at least `first_frame + 1`, the plot's width).
    pub last_frame: u64,
    /// Per column, (min, max) release error, ns; `None`: no frame in the column.
    pub columns: Vec<Option<(i64, i64)>>,
}

impl ReleaseSeries {
    /// An empty series over frames `first..=last`.
    pub fn new(first: u64, last: u64) -> ReleaseSeries {
        ReleaseSeries {
            first_frame: first,
            last_frame: last.max(first + 1),
            columns: vec![None; RELEASE_COLUMNS + 1],
        }
    }

    /// The column of `frame` (frames outside the range are clamped to the ends).
    pub fn column(&self, frame: u64) -> usize {
        let span = (self.last_frame - self.first_frame) as f64;
        let f = frame.clamp(self.first_frame, self.last_frame) - self.first_frame;
        ((RELEASE_COLUMNS as f64 * f as f64 / span).round() as usize).min(RELEASE_COLUMNS)
    }

    /// Take frame `frame`'s release error into account.
    pub fn add(&mut self, frame: u64, error_ns: i64) {
        let c = self.column(frame);
        self.columns[c] = Some(self.columns[c].map_or((error_ns, error_ns), |(a, b)| {
            (a.min(error_ns), b.max(error_ns))
        }));
    }
}

/// Everything the report shows from a trace, in memory that does not grow with the run:
/// counts, fixed-size histograms and series, and lists of faults and mode switches.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Analysis {
    /// Per task, in schedule order.
    pub tasks: Vec<TaskAnalysis>,
    /// Release error per frame, min/max per plot column.
    pub releases: ReleaseSeries,
    /// The last frame released (`None`: none was).
    pub last_release: Option<u64>,
    /// Their statistics (as in the runners' JSON summaries).
    pub release: ReleaseSummary,
    /// Faults with their reactions, in order.
    pub faults: Vec<FaultEvent>,
    /// Mode switches, in order.
    pub mode_switches: Vec<ModeSwitch>,
    /// Per mode and task, the validator's worst case beside the observed envelope.
    pub envelopes: Vec<Envelope>,
    /// Modes that frames were released in (indices, ascending).
    pub modes_run: Vec<u16>,
    /// Records lost to ring overflow.
    pub lost_records: u64,
}

/// Planned releases of the recent frames, else extrapolated from the first release and the
/// period (a frame whose release record was lost or is too old).
struct ReleaseWindow {
    /// Keyed by (0, frame).
    planned: FrameMap<u64>,
    anchor: Option<(u64, u64)>,
    period_ns: u64,
}

impl ReleaseWindow {
    fn new(anchor: Option<&Record>, period_ns: u64) -> ReleaseWindow {
        ReleaseWindow {
            planned: FrameMap::new(1, RELEASE_WINDOW),
            anchor: anchor.map(|r| (r.frame, planned_of(r))),
            period_ns,
        }
    }

    fn add(&mut self, r: &Record) {
        self.planned.insert(0, r.frame, planned_of(r));
    }

    fn relative(&self, frame: u64, time_ns: u64) -> Option<i64> {
        let planned = match self.planned.get(0, frame) {
            Some(&t) => t,
            None => {
                let (f0, t0) = self.anchor?;
                let delta = (frame as i128 - f0 as i128) * self.period_ns as i128;
                u64::try_from(t0 as i128 + delta).ok()?
            }
        };
        Some((time_ns as i128 - planned as i128) as i64)
    }
}

/// A release record's planned release time.
fn planned_of(r: &Record) -> u64 {
    (r.time_ns as i64).wrapping_sub(r.value as i64) as u64
}

/// Start and end records paired into executions (memory per execution in flight, in a
/// table allocated once).
struct Pairs {
    open: FrameMap<u64>,
}

impl Pairs {
    fn new(tasks: usize) -> Pairs {
        Pairs {
            open: FrameMap::new(tasks, RELEASE_WINDOW),
        }
    }

    /// `Some((start, end, skipped))` when `r` ends an execution.
    fn add(&mut self, r: &Record) -> Option<(u64, u64, bool)> {
        match r.event {
            Event::TaskStart => {
                self.open.insert(r.task, r.frame, r.time_ns);
                None
            }
            Event::TaskEnd | Event::TaskSkipped => self
                .open
                .remove(r.task, r.frame)
                .map(|start| (start, r.time_ns, r.event == Event::TaskSkipped)),
            _ => None,
        }
    }
}

/// What the first pass gathers.
struct FirstPass {
    records: u64,
    last_frame: Option<u64>,
    lost: u64,
    summarizer: Summarizer,
    pairs: Pairs,
    durations: Vec<Quantiles>,
    skipped: Vec<u64>,
    /// The release with the lowest frame (the anchor of extrapolated releases).
    first_release: Option<Record>,
    last_release: Option<u64>,
    /// Faults, reactions and mode switches: memory per fault, not per frame.
    events: Vec<Record>,
}

impl FirstPass {
    fn new(meta: &TraceMeta) -> FirstPass {
        let n = meta.tasks.len();
        FirstPass {
            records: 0,
            last_frame: None,
            lost: 0,
            summarizer: Summarizer::new(meta),
            pairs: Pairs::new(n),
            durations: (0..n).map(|_| Quantiles::new()).collect(),
            skipped: vec![0; n],
            first_release: None,
            last_release: None,
            events: Vec::new(),
        }
    }

    fn add(&mut self, r: &Record) {
        self.records += 1;
        self.summarizer.add(r);
        match r.event {
            Event::Overflow => {
                self.lost += r.value;
                return;
            }
            Event::FrameRelease => {
                if self.first_release.is_none_or(|f| r.frame < f.frame) {
                    self.first_release = Some(*r);
                }
                self.last_release = self.last_release.max(Some(r.frame));
            }
            Event::Fault(_) | Event::ModeSwitch | Event::Reaction(_) => self.events.push(*r),
            _ => {}
        }
        self.last_frame = self.last_frame.max(Some(r.frame));
        if let Some((start, end, skipped)) = self.pairs.add(r) {
            let t = r.task as usize;
            if t >= self.durations.len() {
                return;
            }
            if skipped {
                self.skipped[t] += 1;
            } else {
                self.durations[t].add_u64(end.saturating_sub(start));
            }
        }
    }
}

/// What the second pass gathers, with the first pass's results to go by.
struct SecondPass<'m> {
    window: ReleaseWindow,
    pairs: Pairs,
    /// Mode steps: (first frame, mode).
    steps: BTreeMap<u64, u16>,
    fault_frames: BTreeSet<u64>,
    envelopes: Envelopes<'m>,
    histograms: Vec<Vec<u64>>,
    hist_max: Vec<f64>,
    series: ReleaseSeries,
    modes_run: BTreeSet<u16>,
    /// Releases of frames with a fault: their incidents' times relative to the release.
    fault_releases: Vec<Record>,
}

impl SecondPass<'_> {
    fn add(&mut self, r: &Record) {
        if r.event == Event::FrameRelease {
            self.window.add(r);
            self.series.add(r.frame, r.value as i64);
            let mode = self
                .steps
                .range(..=r.frame)
                .next_back()
                .map_or(0, |(_, &m)| m);
            self.modes_run.insert(mode);
            if self.fault_frames.contains(&r.frame) {
                self.fault_releases.push(*r);
            }
            return;
        }
        let Some((start, end, false)) = self.pairs.add(r) else {
            return;
        };
        let t = r.task as usize;
        if let (Some(h), Some(&xmax)) = (self.histograms.get_mut(t), self.hist_max.get(t)) {
            let b = ((end.saturating_sub(start) as f64 / xmax) * HIST_BINS as f64) as usize;
            h[b.min(HIST_BINS - 1)] += 1;
        }
        if let (Some(s), Some(e)) = (
            self.window.relative(r.frame, start),
            self.window.relative(r.frame, end),
        ) {
            let mode = self
                .steps
                .range(..=r.frame)
                .next_back()
                .map_or(0, |(_, &m)| m);
            self.envelopes.add(mode, r.task, s, e);
        }
    }
}

impl Analysis {
    /// Analyse the trace file at `path` in two passes over its records, in memory that does
    /// not grow with the run: the first gathers counts, percentiles (fixed memory, see
    /// [`orin_exec_trace::quantiles`]) and the faults; the second, knowing the ranges, fills
    /// the histograms, the release series and the envelopes.
    pub fn read(path: &Path) -> io::Result<(Trace, Analysis)> {
        let mut reader = TraceReader::open(path)?;
        let meta = reader.meta.clone();
        let mut first = FirstPass::new(&meta);
        while let Some(r) = reader.next_record()? {
            first.add(&r);
        }
        let trace = Trace {
            meta,
            records: first.records,
            truncated: reader.truncated(),
            last_frame: first.last_frame,
        };
        let mut second = Analysis::between(&trace.meta, &mut first);
        let mut reader = TraceReader::open(path)?;
        while let Some(r) = reader.next_record()? {
            second.0.add(&r);
        }
        let analysis = Analysis::finish(&trace.meta, first, second);
        Ok((trace, analysis))
    }

    /// Analyse `records` recorded with `meta` (the same two passes as [`Analysis::read`],
    /// over records in memory).
    pub fn of(meta: &TraceMeta, records: &[Record]) -> Analysis {
        let mut first = FirstPass::new(meta);
        records.iter().for_each(|r| first.add(r));
        let mut second = Analysis::between(meta, &mut first);
        records.iter().for_each(|r| second.0.add(r));
        Analysis::finish(meta, first, second)
    }

    fn between<'m>(
        meta: &'m TraceMeta,
        first: &mut FirstPass,
    ) -> (SecondPass<'m>, Vec<Percentiles>) {
        let stats: Vec<Percentiles> = first.durations.iter_mut().map(Percentiles::of).collect();
        let hist_max = meta
            .tasks
            .iter()
            .zip(&stats)
            .map(|(t, s)| {
                let top = t.deadline_ns.max(t.budget_ns).max(t.wcet_ns).max(s.max_ns);
                crate::html::hist_range(top).1
            })
            .collect();
        let steps = std::iter::once((0, 0))
            .chain(
                analysis::mode_switches(meta, &first.events)
                    .iter()
                    .map(|m| (m.frame, m.to_index)),
            )
            .collect();
        let fault_frames = first
            .events
            .iter()
            .filter(|r| matches!(r.event, Event::Fault(_)))
            .map(|r| r.frame)
            .collect();
        let series = ReleaseSeries::new(
            first.first_release.map_or(0, |r| r.frame),
            first.last_release.unwrap_or(0),
        );
        (
            SecondPass {
                window: ReleaseWindow::new(first.first_release.as_ref(), meta.period_ns),
                pairs: Pairs::new(meta.tasks.len()),
                steps,
                fault_frames,
                envelopes: Envelopes::new(meta),
                histograms: vec![vec![0; HIST_BINS]; meta.tasks.len()],
                hist_max,
                series,
                modes_run: BTreeSet::new(),
                fault_releases: Vec::new(),
            },
            stats,
        )
    }

    fn finish(
        meta: &TraceMeta,
        first: FirstPass,
        second: (SecondPass<'_>, Vec<Percentiles>),
    ) -> Analysis {
        let (second, stats) = second;
        // The faults' analysis runs over the faults, reactions and mode switches with the
        // releases it needs (their frames' and the anchor): memory per fault.
        let mut events = first.events;
        events.extend(second.fault_releases);
        if let Some(anchor) = first.first_release
            && !events.contains(&anchor)
        {
            events.push(anchor);
        }
        let run_incidents = analysis::incidents(meta, &events);
        let misses = analysis::deadline_misses(meta, &events);
        let switches = analysis::mode_switches(meta, &events);
        let envelopes = second.envelopes.finish();
        let (_, release) = first.summarizer.finish();
        let tasks = meta
            .tasks
            .iter()
            .enumerate()
            .zip(stats)
            .zip(second.histograms)
            .zip(second.hist_max)
            .zip(misses)
            .map(|(((((i, t), stats), histogram), hist_max_ns), m)| {
                let faults = |kinds: &[&str]| {
                    run_incidents
                        .iter()
                        .filter(|x| x.index as usize == i && kinds.contains(&x.fault.as_str()))
                        .count() as u64
                };
                TaskAnalysis {
                    task: meta.task_name(i as u16),
                    engine: meta.engine_of(i as u16),
                    wcet_ns: t.wcet_ns,
                    budget_ns: t.budget_ns,
                    deadline_ns: t.deadline_ns,
                    runs: stats.samples,
                    skipped: first.skipped[i],
                    histogram,
                    hist_max_ns,
                    stats,
                    deadline_misses: m.deadline_miss_frames.len() as u64,
                    fence_timeouts: m.fence_timeout_frames.len() as u64,
                    budget_overruns: faults(&["budget_overrun"]),
                    errors: faults(&["engine_error", "task_error"]),
                    longest_miss_run: m.longest_run,
                    max_finish_ns: envelopes
                        .iter()
                        .filter(|e| e.index as usize == i)
                        .filter_map(|e| e.observed.map(|o| o.max_end_ns.max(0) as u64))
                        .max()
                        .unwrap_or(0),
                }
            })
            .collect();
        let faults = run_incidents
            .iter()
            .map(|i| FaultEvent {
                frame: i.frame,
                at_ns: i.detected_rel_ns,
                task: i.task.clone(),
                fault: i.fault.clone(),
                reaction: match (i.reaction.as_deref(), &i.reaction_mode) {
                    (None, _) => "none recorded (the trace ends first)".into(),
                    (Some("switch_mode"), Some(m)) => format!("switch to mode `{m}`"),
                    (Some("safe_stop"), _) => "safe stop".into(),
                    (Some(r), _) => r.into(),
                },
            })
            .collect();
        let mode_switches = switches
            .into_iter()
            .map(|m| ModeSwitch {
                frame: m.frame,
                from: m.from,
                mode: m.to,
                requested_by: m.requested_by,
            })
            .collect();
        Analysis {
            tasks,
            releases: second.series,
            last_release: first.last_release,
            release,
            faults,
            mode_switches,
            envelopes,
            modes_run: second.modes_run.into_iter().collect(),
            lost_records: first.lost,
        }
    }
}

/// The name of mode `m` (`mode#m` if the trace does not name it).
pub fn mode_name(meta: &TraceMeta, m: u16) -> String {
    meta.mode_name(m)
}
