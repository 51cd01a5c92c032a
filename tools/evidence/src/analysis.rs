//! What the report shows from a trace, gathered from [`orin_exec_trace::analysis`] (samples,
//! percentiles, misses, release errors, incidents, mode switches, envelopes) into one view
//! per task and per run.
//!
//! The release statistics are [`orin_exec_trace::summarize`]'s, the same the runners write to
//! their JSON summaries; the per-task numbers come from the analysis module's own code path,
//! so a test that compares the report with a summary compares two computations.

use std::io;
use std::path::Path;

use orin_exec::trace::Record;
use orin_exec_trace::analysis::{self, Envelope, Percentiles, ReleasePoint};
use orin_exec_trace::{ReleaseSummary, TraceMeta};
use serde::Serialize;

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
    /// Read a trace file, also one cut off anywhere after its header
    /// ([`orin_exec_trace::read_trace`]).
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
    /// Their statistics (p99.9 is flagged below 1000 samples).
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

/// Everything the report shows from a trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Analysis {
    /// Per task, in schedule order.
    pub tasks: Vec<TaskAnalysis>,
    /// Release error per frame.
    pub releases: Vec<ReleasePoint>,
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

impl Analysis {
    /// Analyse `records` recorded with `meta`.
    pub fn of(meta: &TraceMeta, records: &[Record]) -> Analysis {
        let run = analysis::analyze(meta, records);
        let (_, release) = orin_exec_trace::summarize(meta, records);
        let tasks = run
            .tasks
            .iter()
            .map(|t| {
                let faults = |kinds: &[&str]| {
                    run.incidents
                        .iter()
                        .filter(|i| i.index == t.index && kinds.contains(&i.fault.as_str()))
                        .count() as u64
                };
                TaskAnalysis {
                    task: t.task.clone(),
                    engine: t.engine.clone(),
                    wcet_ns: t.wcet_ns,
                    budget_ns: t.budget_ns,
                    deadline_ns: t.deadline_ns,
                    runs: t.samples_ns.len() as u64,
                    skipped: t.skipped,
                    samples_ns: t.samples_ns.clone(),
                    stats: t.stats.clone(),
                    deadline_misses: t.misses.deadline_miss_frames.len() as u64,
                    fence_timeouts: t.misses.fence_timeout_frames.len() as u64,
                    budget_overruns: faults(&["budget_overrun"]),
                    errors: faults(&["engine_error", "task_error"]),
                    longest_miss_run: t.misses.longest_run,
                    max_finish_ns: run
                        .envelopes
                        .iter()
                        .filter(|e| e.index == t.index)
                        .filter_map(|e| e.observed.map(|o| o.max_end_ns.max(0) as u64))
                        .max()
                        .unwrap_or(0),
                }
            })
            .collect();
        let faults = run
            .incidents
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
        let mode_switches: Vec<ModeSwitch> = run
            .mode_switches
            .iter()
            .map(|m| ModeSwitch {
                frame: m.frame,
                from: m.from.clone(),
                mode: m.to.clone(),
                requested_by: m.requested_by.clone(),
            })
            .collect();
        let mode_of = |frame: u64| {
            run.mode_switches
                .iter()
                .take_while(|m| m.frame <= frame)
                .last()
                .map_or(0, |m| m.to_index)
        };
        let mut modes_run: Vec<u16> = run.release.iter().map(|r| mode_of(r.frame)).collect();
        modes_run.sort_unstable();
        modes_run.dedup();
        Analysis {
            tasks,
            releases: run.release.clone(),
            release,
            faults,
            mode_switches,
            envelopes: run.envelopes.clone(),
            modes_run,
            lost_records: run.lost_records,
        }
    }
}

/// The name of mode `m` (`mode#m` if the trace does not name it).
pub fn mode_name(meta: &TraceMeta, m: u16) -> String {
    meta.mode_name(m)
}
