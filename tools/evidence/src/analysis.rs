//! What the report computes from a trace: per task the execution-time samples and their
//! statistics, deadline misses and their longest run, the observed envelope of start and end
//! per mode; the release error per frame; faults with their reactions; mode switches.
//!
//! Percentiles are exact (nearest rank over every sample), as in
//! [`orin_exec_trace::summarize`], so the report's numbers equal the runners' JSON summaries.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use orin_exec_table::{Action, FaultKind};
use orin_exec_trace::{TraceMeta, executions};
use serde::Serialize;

use orin_exec::trace::{Event, Record};

/// A trace file as the report reads it: whole records up to where the file ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The schedule the trace was recorded with.
    pub meta: TraceMeta,
    /// The records.
    pub records: Vec<Record>,
    /// The file ends early (a partial record or no end marker: a killed or crashed run).
    pub truncated: bool,
    /// The last frame any record names.
    pub last_frame: Option<u64>,
}

impl Trace {
    /// Read a trace file, also one cut off anywhere after its header.
    pub fn read(path: &Path) -> io::Result<Trace> {
        let t = orin_exec_trace::read_trace(path)?;
        Ok(Trace {
            meta: t.meta,
            records: t.records,
            truncated: t.truncated,
            last_frame: t.last_frame,
        })
    }
}

/// Sample statistics (ns).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Samples.
    pub samples: u64,
    /// Minimum.
    pub min_ns: u64,
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile (fewer than 1000 samples: it is the maximum or next to it, and says
    /// little).
    pub p999_ns: u64,
    /// Maximum.
    pub max_ns: u64,
}

/// The nearest-rank percentile `p` of sorted samples (0 for none).
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

impl Stats {
    /// The statistics of `samples` (any order).
    pub fn of(samples: &[u64]) -> Stats {
        let mut s = samples.to_vec();
        s.sort_unstable();
        Stats {
            samples: s.len() as u64,
            min_ns: s.first().copied().unwrap_or(0),
            p50_ns: percentile(&s, 50.0),
            p99_ns: percentile(&s, 99.0),
            p999_ns: percentile(&s, 99.9),
            max_ns: s.last().copied().unwrap_or(0),
        }
    }
}

/// Start and end of a task's executions relative to their frame's release, in one mode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Envelope {
    /// The mode index.
    pub mode: u16,
    /// Executions seen.
    pub executions: u64,
    /// Earliest start.
    pub min_start_ns: u64,
    /// Latest start.
    pub max_start_ns: u64,
    /// Earliest end.
    pub min_end_ns: u64,
    /// Latest end.
    pub max_end_ns: u64,
}

/// One task over the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
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
    /// Execution times, ns, in frame order.
    pub samples_ns: Vec<u64>,
    /// Their statistics.
    pub stats: Stats,
    /// Deadline misses.
    pub deadline_misses: u64,
    /// Fence timeouts (the task did not finish before its deadline; counted as misses for the
    /// longest run).
    pub fence_timeouts: u64,
    /// Budget overruns.
    pub budget_overruns: u64,
    /// Engine and task errors.
    pub errors: u64,
    /// Longest run of consecutive frames with a deadline miss or fence timeout.
    pub longest_miss_run: u64,
    /// Latest end relative to the frame release, ns.
    pub max_finish_ns: u64,
    /// Observed envelope per mode it ran in.
    pub envelope: Vec<Envelope>,
}

/// A fault and the health monitor's reaction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultEvent {
    /// The frame.
    pub frame: u64,
    /// When it was detected, ns after the frame's release (`null` without a release record).
    pub at_ns: Option<u64>,
    /// The task.
    pub task: String,
    /// The fault (`deadline_miss`, `fence_timeout`, ...).
    pub fault: String,
    /// The reaction (`log`, `skip`, `switch_mode to degraded`, `safe_stop`; `none recorded`).
    pub reaction: String,
}

/// A mode switch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModeSwitch {
    /// The first frame planned in the new mode.
    pub frame: u64,
    /// The new mode.
    pub mode: String,
}

/// The release error of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Release {
    /// The frame.
    pub frame: u64,
    /// Actual minus planned release, ns.
    pub error_ns: i64,
}

/// Release error over the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReleaseStats {
    /// Frames released.
    pub frames: u64,
    /// Smallest error, ns.
    pub min_error_ns: i64,
    /// Mean error, ns (rounded toward zero).
    pub mean_error_ns: i64,
    /// 99th percentile, ns.
    pub p99_error_ns: i64,
    /// Largest error, ns.
    pub max_error_ns: i64,
}

/// Everything the report shows from a trace.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// Per task, in schedule order.
    pub tasks: Vec<TaskAnalysis>,
    /// Release error per frame.
    pub releases: Vec<Release>,
    /// Their statistics.
    pub release: ReleaseStats,
    /// Faults with their reactions, in order.
    pub faults: Vec<FaultEvent>,
    /// Mode switches, in order.
    pub mode_switches: Vec<ModeSwitch>,
    /// Modes frames ran in (indices).
    pub modes_run: Vec<u16>,
    /// Records lost to ring overflow.
    pub lost_records: u64,
}

fn fault_name(k: FaultKind) -> &'static str {
    k.name()
}

impl Analysis {
    /// Analyse `records` recorded with `meta`.
    pub fn of(meta: &TraceMeta, records: &[Record]) -> Analysis {
        let mut a = Analysis::default();
        // Releases and the mode of each frame (a switch takes effect from the frame it names).
        let mut release_at: HashMap<u64, u64> = HashMap::new();
        let mut switches: Vec<(u64, u16)> = Vec::new();
        for r in records {
            match r.event {
                Event::FrameRelease => {
                    let err = r.value as i64;
                    release_at.insert(r.frame, (r.time_ns as i64 - err) as u64);
                    a.releases.push(Release {
                        frame: r.frame,
                        error_ns: err,
                    });
                }
                Event::ModeSwitch => {
                    switches.push((r.frame, r.value as u16));
                    a.mode_switches.push(ModeSwitch {
                        frame: r.frame,
                        mode: mode_name(meta, r.value as u16),
                    });
                }
                Event::Overflow => a.lost_records += r.value,
                _ => {}
            }
        }
        switches.sort_by_key(|s| s.0);
        let mode_of = |frame: u64| -> u16 {
            switches
                .iter()
                .take_while(|(f, _)| *f <= frame)
                .last()
                .map_or(0, |s| s.1)
        };
        let mut modes_run: Vec<u16> = a.releases.iter().map(|r| mode_of(r.frame)).collect();
        modes_run.sort_unstable();
        modes_run.dedup();
        a.modes_run = modes_run;

        a.tasks = meta
            .tasks
            .iter()
            .map(|t| TaskAnalysis {
                task: t.name.clone(),
                engine: meta
                    .engines
                    .get(t.engine as usize)
                    .map_or_else(|| "?".into(), |e| e.0.clone()),
                wcet_ns: t.wcet_ns,
                budget_ns: t.budget_ns,
                deadline_ns: t.deadline_ns,
                ..TaskAnalysis::default()
            })
            .collect();
        let mut runs = executions(records);
        runs.sort_by_key(|x| (x.frame, x.start_ns));
        for x in runs {
            let Some(t) = a.tasks.get_mut(x.task as usize) else {
                continue;
            };
            if x.skipped {
                t.skipped += 1;
                continue;
            }
            t.runs += 1;
            t.samples_ns.push(x.end_ns.saturating_sub(x.start_ns));
            if let Some(&rel) = release_at.get(&x.frame) {
                let (start, end) = (x.start_ns.saturating_sub(rel), x.end_ns.saturating_sub(rel));
                t.max_finish_ns = t.max_finish_ns.max(end);
                let mode = mode_of(x.frame);
                let e = match t.envelope.iter_mut().position(|e| e.mode == mode) {
                    Some(i) => &mut t.envelope[i],
                    None => {
                        t.envelope.push(Envelope {
                            mode,
                            min_start_ns: u64::MAX,
                            min_end_ns: u64::MAX,
                            ..Envelope::default()
                        });
                        t.envelope.last_mut().expect("just pushed")
                    }
                };
                e.executions += 1;
                e.min_start_ns = e.min_start_ns.min(start);
                e.max_start_ns = e.max_start_ns.max(start);
                e.min_end_ns = e.min_end_ns.min(end);
                e.max_end_ns = e.max_end_ns.max(end);
            }
        }

        // Faults, each with the reaction recorded after it for the same task and frame.
        let mut miss_frames: Vec<Vec<u64>> = vec![Vec::new(); a.tasks.len()];
        for (i, r) in records.iter().enumerate() {
            let Event::Fault(kind) = r.event else {
                continue;
            };
            if let Some(t) = a.tasks.get_mut(r.task as usize) {
                match kind {
                    FaultKind::DeadlineMiss => {
                        t.deadline_misses += 1;
                        miss_frames[r.task as usize].push(r.frame);
                    }
                    FaultKind::FenceTimeout => {
                        t.fence_timeouts += 1;
                        miss_frames[r.task as usize].push(r.frame);
                    }
                    FaultKind::BudgetOverrun => t.budget_overruns += 1,
                    FaultKind::EngineError | FaultKind::TaskError => t.errors += 1,
                }
            }
            let reaction = records[i + 1..]
                .iter()
                .take_while(|n| !matches!(n.event, Event::Fault(_)) || n.task != r.task)
                .find_map(|n| match n.event {
                    Event::Reaction(action) if n.task == r.task && n.frame == r.frame => {
                        Some(match action {
                            Action::Log => "log".to_string(),
                            Action::Skip => "skip".to_string(),
                            Action::SwitchMode(_) => {
                                format!("switch to mode `{}`", mode_name(meta, n.value as u16))
                            }
                            Action::SafeStop => "safe stop".to_string(),
                        })
                    }
                    _ => None,
                })
                .unwrap_or_else(|| "none recorded".to_string());
            a.faults.push(FaultEvent {
                frame: r.frame,
                at_ns: release_at
                    .get(&r.frame)
                    .map(|&rel| r.time_ns.saturating_sub(rel)),
                task: meta
                    .tasks
                    .get(r.task as usize)
                    .map_or_else(|| format!("#{}", r.task), |t| t.name.clone()),
                fault: fault_name(kind).to_string(),
                reaction,
            });
        }
        for (t, frames) in a.tasks.iter_mut().zip(&mut miss_frames) {
            t.stats = Stats::of(&t.samples_ns);
            frames.sort_unstable();
            frames.dedup();
            let (mut run, mut best, mut prev) = (0u64, 0u64, None::<u64>);
            for &f in frames.iter() {
                run = if prev.is_some_and(|p| p + 1 == f) {
                    run + 1
                } else {
                    1
                };
                best = best.max(run);
                prev = Some(f);
            }
            t.longest_miss_run = best;
        }

        let mut errors: Vec<i64> = a.releases.iter().map(|r| r.error_ns).collect();
        errors.sort_unstable();
        if !errors.is_empty() {
            let n = errors.len();
            a.release = ReleaseStats {
                frames: n as u64,
                min_error_ns: errors[0],
                mean_error_ns: errors.iter().sum::<i64>() / n as i64,
                p99_error_ns: errors[(((0.99 * n as f64).ceil() as usize).max(1) - 1).min(n - 1)],
                max_error_ns: errors[n - 1],
            };
        }
        a
    }
}

/// The name of mode `m` (`#m` if the trace does not name it).
pub fn mode_name(meta: &TraceMeta, m: u16) -> String {
    meta.modes
        .get(m as usize)
        .cloned()
        .unwrap_or_else(|| format!("#{m}"))
}
