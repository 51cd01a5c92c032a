//! Host side of the trace: a drainer thread that writes the ring to a file without
//! allocating, a lenient reader (a killed run's trace still reads), a Perfetto/Chrome JSON
//! exporter (one track per engine instance, one slice per task execution, dependency arrows,
//! the release error as a counter), the per-task timing summary and the analyses the evidence
//! report draws from.
//!
//! # File format
//!
//! A trace file is [`MAGIC`], the length of the meta header (u64, little endian), the meta
//! header ([`TraceMeta`] as JSON), then records of [`RECORD_BYTES`] bytes each, then an end
//! marker (a record-sized block that no record can equal) written by [`Drainer::finish`]. The
//! drainer flushes the header when it starts and the records at every drain period, so a run
//! that is killed leaves the header and every record drained before the kill;
//! [`read_trace`] reads such a file and says it is [`TraceFile::truncated`].
//!
//! ```
//! use orin_exec::trace::{Event, Record, TraceRing};
//! use orin_exec_trace::{Drainer, TraceMeta, read_trace};
//! use std::time::Duration;
//!
//! static RING: TraceRing<64> = TraceRing::new();
//! let path = std::env::temp_dir().join(format!("doc-{}.bin", std::process::id()));
//! let meta = TraceMeta { name: "demo".into(), run_id: "20250101T000000Z-0badcafe".into(),
//!                        ..TraceMeta::default() };
//! let drainer = Drainer::start(RING.as_log(), &meta, &path, Duration::from_millis(1))?;
//! RING.push(Record { time_ns: 1_000, frame: 0, task: 0, event: Event::TaskStart, value: 0 });
//! RING.push(Record { time_ns: 2_000, frame: 0, task: 0, event: Event::TaskEnd, value: 1_000 });
//! assert_eq!(drainer.finish()?, 2);
//! let trace = read_trace(&path)?;
//! assert_eq!(trace.meta.run_id, "20250101T000000Z-0badcafe");
//! assert_eq!(trace.records.len(), 2);
//! assert!(!trace.truncated);
//! assert_eq!(trace.last_frame, Some(0));
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use orin_exec::table::{EngineKind, Schedule, TimelineEntry};

pub mod analysis;
mod file;
pub mod perfetto;
pub mod quantiles;
mod summary;
pub mod window;

pub use file::{
    Drainer, END_MAGIC, MAGIC, MAGIC_V1, RECORD_BYTES, TraceFile, TraceReader, read_file,
    read_trace,
};
pub use perfetto::chrome_json;
pub use summary::{
    Execution, ReleaseSummary, Summarizer, TaskSummary, executions, percentile, summarize,
    summary_table,
};

/// What a trace file says about the schedule it was recorded with, so reports need nothing
/// else.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceMeta {
    /// The run this trace belongs to (`YYYYMMDDTHHMMSSZ-xxxxxxxx`); set by the caller, empty
    /// in traces written before run ids existed.
    #[serde(default)]
    pub run_id: String,
    /// Application name.
    pub name: String,
    /// Platform the run used.
    pub platform: String,
    /// Major frame period, ns.
    pub period_ns: u64,
    /// Engine instances: (name, kind, instance).
    pub engines: Vec<(String, String, u8)>,
    /// Tasks.
    pub tasks: Vec<TaskMeta>,
    /// Mode names.
    pub modes: Vec<String>,
    /// The validator's worst-case timeline (per mode and task), empty in older traces.
    #[serde(default)]
    pub timeline: Vec<TimelineMeta>,
}

/// A task as the trace file records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskMeta {
    /// Name.
    pub name: String,
    /// Engine index.
    pub engine: u8,
    /// WCET, ns.
    pub wcet_ns: u64,
    /// Budget, ns.
    pub budget_ns: u64,
    /// Deadline, ns after the frame release.
    pub deadline_ns: u64,
    /// CPU tasks: release offset within the major frame, ns (0 for accelerator tasks).
    #[serde(default)]
    pub release_ns: u64,
    /// The modes the task runs in (bit `m` = mode `m`); every mode in older traces.
    #[serde(default = "all_modes")]
    pub modes: u32,
    /// The tasks it waits for (its explicit dependencies); empty in older traces.
    #[serde(default)]
    pub waits: Vec<WaitMeta>,
}

fn all_modes() -> u32 {
    u32::MAX
}

impl Default for TaskMeta {
    fn default() -> Self {
        TaskMeta {
            name: String::new(),
            engine: 0,
            wcet_ns: 0,
            budget_ns: 0,
            deadline_ns: 0,
            release_ns: 0,
            modes: all_modes(),
            waits: Vec::new(),
        }
    }
}

impl TaskMeta {
    /// Whether the task runs in mode `mode`.
    pub fn in_mode(&self, mode: u16) -> bool {
        mode < 32 && self.modes & (1 << mode) != 0
    }
}

/// A dependency of a task: it waits for task `task` of frame `f - lag` to complete.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitMeta {
    /// The task waited for (index in [`TraceMeta::tasks`]).
    pub task: u16,
    /// 0 = the same frame, 1 = the previous frame, ...
    pub lag: u8,
}

/// One row of the validator's worst-case timeline (`Schedule::timeline`): what the schedule
/// guarantees, to set beside what a run observed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineMeta {
    /// Mode index.
    pub mode: u16,
    /// Task index.
    pub task: u16,
    /// Latest start relative to the frame release, ns.
    pub latest_start_ns: u64,
    /// Latest finish relative to the frame release, ns.
    pub latest_finish_ns: u64,
    /// Deadline minus latest finish, ns.
    pub slack_ns: u64,
}

impl From<&TimelineEntry> for TimelineMeta {
    fn from(e: &TimelineEntry) -> Self {
        TimelineMeta {
            mode: e.mode.0.into(),
            task: e.task.0,
            latest_start_ns: e.latest_start_ns,
            latest_finish_ns: e.latest_finish_ns,
            slack_ns: e.slack_ns,
        }
    }
}

impl TraceMeta {
    /// From a schedule: tasks (with their modes and dependencies), engines, modes and the
    /// validator's worst-case timeline. [`TraceMeta::run_id`] is left empty; set it with
    /// [`TraceMeta::with_run_id`].
    pub fn from_schedule(s: &Schedule, platform: &str) -> Self {
        let kind = |k| match k {
            EngineKind::Cpu => "cpu",
            EngineKind::Gpu => "gpu",
            EngineKind::Dla => "dla",
            EngineKind::Pva => "pva",
        };
        TraceMeta {
            run_id: String::new(),
            name: s.name.into(),
            platform: platform.into(),
            period_ns: s.period_ns,
            engines: s
                .engines
                .iter()
                .map(|e| (e.name.into(), kind(e.kind).into(), e.instance))
                .collect(),
            tasks: s
                .tasks
                .iter()
                .map(|t| TaskMeta {
                    name: t.name.into(),
                    engine: t.engine.0,
                    wcet_ns: t.wcet_ns,
                    budget_ns: t.budget_ns,
                    deadline_ns: t.deadline_ns,
                    release_ns: t.release_ns,
                    modes: t.modes.0,
                    waits: t
                        .waits
                        .iter()
                        .map(|w| WaitMeta {
                            task: w.task.0,
                            lag: w.lag,
                        })
                        .collect(),
                })
                .collect(),
            modes: s.modes.iter().map(|m| m.name.into()).collect(),
            timeline: s.timeline.iter().map(TimelineMeta::from).collect(),
        }
    }

    /// The same meta with `run_id` set.
    pub fn with_run_id(mut self, run_id: impl Into<String>) -> Self {
        self.run_id = run_id.into();
        self
    }

    /// The name of task `task`, or `"task#N"` for an index the meta does not know.
    pub fn task_name(&self, task: u16) -> String {
        self.tasks
            .get(task as usize)
            .map_or_else(|| format!("task#{task}"), |t| t.name.clone())
    }

    /// The name of mode `mode`, or `"mode#N"` for an index the meta does not know.
    pub fn mode_name(&self, mode: u16) -> String {
        self.modes
            .get(mode as usize)
            .cloned()
            .unwrap_or_else(|| format!("mode#{mode}"))
    }

    /// The name of the engine instance running task `task` (`"?"` when unknown).
    pub fn engine_of(&self, task: u16) -> String {
        self.tasks
            .get(task as usize)
            .and_then(|t| self.engines.get(t.engine as usize))
            .map_or_else(|| "?".into(), |e| e.0.clone())
    }
}

/// Write `bytes` to `path`, creating parent directories.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

/// The room [`json_pretty`] reserves: more than a run's manifest or summary needs.
pub const JSON_CAPACITY: usize = 64 * 1024;

/// `value` as pretty-printed JSON in a buffer reserved at [`JSON_CAPACITY`] bytes, so that
/// up to that size the text costs one allocation, whatever the width of its numbers (the
/// demo's allocation count must not depend on the run's length).
///
/// ```
/// let text = orin_exec_trace::json_pretty(&serde_json::json!({"frames": 3}))?;
/// assert_eq!(text, b"{\n  \"frames\": 3\n}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(JSON_CAPACITY);
    serde_json::to_writer_pretty(&mut out, value).map_err(io::Error::other)?;
    Ok(out)
}

#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use super::*;

    /// Covers: REQ-EVD-008
    #[test]
    fn from_schedule_carries_timeline_waits_and_modes() {
        let m = TraceMeta::from_schedule(&fixture::SCHEDULE, "sil").with_run_id("r-1");
        assert_eq!(m.run_id, "r-1");
        assert_eq!(m.name, "fixture");
        assert_eq!(m.modes, ["normal", "degraded"]);
        assert_eq!(m.engines[1], ("cpu1".to_string(), "cpu".to_string(), 1));
        assert_eq!(
            m.timeline,
            // Spelled out: the expected mapping, field by field.
            fixture::TIMELINE
                .iter()
                .map(|e| TimelineMeta {
                    mode: e.mode.0.into(),
                    task: e.task.0,
                    latest_start_ns: e.latest_start_ns,
                    latest_finish_ns: e.latest_finish_ns,
                    slack_ns: e.slack_ns,
                })
                .collect::<Vec<_>>()
        );
        assert_eq!(m.tasks[1].waits, [WaitMeta { task: 0, lag: 0 }]);
        assert_eq!(m.tasks[2].waits, [WaitMeta { task: 1, lag: 1 }]);
        assert!(m.tasks[0].in_mode(1) && !m.tasks[1].in_mode(1));
        assert_eq!(m.tasks[0].release_ns, 100_000);
        // The meta round-trips through the file header's JSON.
        let back: TraceMeta = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
    }
}
