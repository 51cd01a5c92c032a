//! The health monitor: an ARINC 653-style table from (fault kind × task or engine) to a
//! reaction, with fault counters.
//!
//! Reactions and their bounds (frames are major frames, `L` is the schedule's lookahead):
//!
//! | action | takes effect | bound |
//! |---|---|---|
//! | `log` | at once: trace record and counter | O(rules) table lookup in the monitoring thread |
//! | `skip` | the task runs as a no-op in the first frame not yet planned | frame `f + 1 + L` |
//! | `switch_mode` | at the first major-frame boundary not yet planned | frame `f + 1 + L` |
//! | `safe_stop` | the safe-state function runs in the monitoring thread right after detection; no further frame is released | before the next release |
//!
//! A fault without a matching rule is logged.

use crate::table::{Action, FaultKind, ModeId, Schedule, TaskId};

/// What the executive must do after a fault was reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reaction {
    /// The fault.
    pub fault: FaultKind,
    /// The task it concerns.
    pub task: TaskId,
    /// The action from the table (or `Log` without a rule).
    pub action: Action,
}

/// Fault counters and pending reactions.
///
/// ```
/// # use orin_exec::table::*;
/// # use orin_exec::exec::health::HealthMonitor;
/// # static ENGINES: [EngineDesc; 1] = [EngineDesc { name: "dla0", kind: EngineKind::Dla, instance: 0, queue_capacity: 4, graph: false, vpu: None }];
/// # static LOADABLES: [LoadableDesc; 1] = [LoadableDesc { name: "net", onnx_sha256: [0; 32],
/// #   onnx: &[], loadable: None, inputs: &[], outputs: &[] }];
/// # static TASKS: [TaskDesc; 1] = [TaskDesc { name: "detector", engine: EngineId(0),
/// #   work: Work::Dla(DlaWork { loadable: LoadableId(0), inputs: &[], outputs: &[] }),
/// #   wcet_ns: 1, budget_ns: 1, deadline_ns: 10, release_ns: 0, reads: &[], writes: &[], waits: &[], modes: ModeMask(1) }];
/// static HEALTH: [HealthRule; 1] = [HealthRule {
///     fault: FaultKind::FenceTimeout,
///     scope: FaultScope::Engine(EngineId(0)),
///     action: Action::SwitchMode(ModeId(1)),
/// }];
/// # static TABLES: ScheduleTables = ScheduleTables { name: "s", profile: "sil", period_ns: 10,
/// #   minor_frames_ns: &[0], lookahead: 1, threads: &[], engines: &ENGINES, buffers: &[], tasks: &TASKS,
/// #   modes: &[ModeDesc { name: "normal" }, ModeDesc { name: "degraded" }], health: &HEALTH,
/// #   cubins: &[], loadables: &LOADABLES, pva_programs: &[], timeline: &[], cpu_waits: &[] };
/// # static S: Schedule = match Schedule::check(&TABLES) { Ok(s) => s, Err(e) => panic!("{}", e.message()) };
/// let mut counts = [[0; 5]; 1];
/// let mut hm = HealthMonitor::new(&mut counts);
/// let r = hm.report(&S, FaultKind::FenceTimeout, TaskId(0));
/// assert_eq!(r.action, Action::SwitchMode(ModeId(1)));
/// assert_eq!(hm.take_mode_request(), Some(ModeId(1)));
/// assert_eq!(hm.count(TaskId(0), FaultKind::FenceTimeout), 1);
/// assert_eq!(hm.report(&S, FaultKind::DeadlineMiss, TaskId(0)).action, Action::Log);
/// ```
#[derive(Debug)]
pub struct HealthMonitor<'a> {
    counts: &'a mut [FaultCounts],
    skip_next: u64,
    mode_request: Option<ModeId>,
    safe_stop: bool,
}

/// Fault counts of one task, by [`FaultKind::ALL`] order.
pub type FaultCounts = [u32; FaultKind::ALL.len()];

fn kind_index(kind: FaultKind) -> usize {
    FaultKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

impl<'a> HealthMonitor<'a> {
    /// No faults yet; `counts` holds one row per task of the schedule.
    pub fn new(counts: &'a mut [FaultCounts]) -> Self {
        counts.fill([0; FaultKind::ALL.len()]);
        HealthMonitor {
            counts,
            skip_next: 0,
            mode_request: None,
            safe_stop: false,
        }
    }

    /// Count a fault, look up its reaction and remember what the executive must apply.
    pub fn report(&mut self, schedule: &Schedule, fault: FaultKind, task: TaskId) -> Reaction {
        if let Some(row) = self.counts.get_mut(task.0 as usize) {
            row[kind_index(fault)] = row[kind_index(fault)].saturating_add(1);
        }
        let action = schedule
            .health_rule(fault, task)
            .map_or(Action::Log, |r| r.action);
        match action {
            Action::Log => {}
            Action::Skip => {
                if task.0 < 64 {
                    self.skip_next |= 1 << task.0;
                }
            }
            Action::SwitchMode(m) => {
                // The first request wins until it has been applied.
                self.mode_request.get_or_insert(m);
            }
            Action::SafeStop => self.safe_stop = true,
        }
        Reaction {
            fault,
            task,
            action,
        }
    }

    /// How many faults of `kind` `task` had.
    pub fn count(&self, task: TaskId, kind: FaultKind) -> u32 {
        self.counts
            .get(task.0 as usize)
            .map_or(0, |row| row[kind_index(kind)])
    }

    /// Total faults of every kind and task.
    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().map(|&c| c as u64).sum()
    }

    /// Tasks to skip in the next frame planned, clearing the request.
    pub fn take_skips(&mut self) -> u64 {
        core::mem::take(&mut self.skip_next)
    }

    /// A pending mode switch, clearing the request.
    pub fn take_mode_request(&mut self) -> Option<ModeId> {
        self.mode_request.take()
    }

    /// Whether a safe stop was requested.
    pub const fn safe_stop_requested(&self) -> bool {
        self.safe_stop
    }
}
