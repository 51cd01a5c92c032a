//! The report of a successful check: the worst-case timeline per mode.

use std::fmt;
use std::path::PathBuf;

use crate::analysis::{Analysis, Row, describe_chain};
use crate::diag::Diagnostic;
use crate::model::{BufKind, Model};
use crate::units::ms;

/// One task in a mode's worst-case timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskTiming {
    /// Task name.
    pub task: String,
    /// Engine instance name.
    pub engine: String,
    /// Release offset (CPU tasks; 0 for accelerator tasks).
    pub release_ns: u64,
    /// Latest start relative to the frame release.
    pub latest_start_ns: u64,
    /// Latest finish relative to the frame release.
    pub latest_finish_ns: u64,
    /// Deadline relative to the frame release.
    pub deadline_ns: u64,
    /// Deadline minus latest finish.
    pub slack_ns: u64,
}

/// The busy time of one engine instance in a mode.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineLoad {
    /// Engine instance name.
    pub engine: String,
    /// Sum of the WCETs of the mode's tasks on it, per frame.
    pub busy_ns: u64,
    /// `busy_ns / period`.
    pub utilisation: f64,
}

/// The worst-case timeline of one mode.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeReport {
    /// Mode name.
    pub mode: String,
    /// The mode's tasks in submission order.
    pub tasks: Vec<TaskTiming>,
    /// Engine instances that run tasks in this mode.
    pub engines: Vec<EngineLoad>,
    /// Task names on the chain that ends at the latest finish, earliest first (a name is
    /// followed by `@-k` when the link is k frames back).
    pub critical_path: Vec<String>,
    /// The same chain with engines and times.
    pub critical_path_text: String,
}

/// The result of a successful check.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The schedule file.
    pub file: PathBuf,
    /// Schedule name.
    pub name: String,
    /// Platform profile.
    pub profile: String,
    /// Major frame period.
    pub period_ns: u64,
    /// Minor frame offsets.
    pub minor_frames_ns: Vec<u64>,
    /// Frames of accelerator work submitted ahead.
    pub lookahead: u8,
    /// Engine instances: (name, kind and instance, queue capacity).
    pub engines: Vec<(String, String, u16)>,
    /// Buffers: (name, description).
    pub buffers: Vec<(String, String)>,
    /// Per mode, in declaration order (the first is the initial mode).
    pub modes: Vec<ModeReport>,
    /// Warnings (the schedule is valid nevertheless).
    pub warnings: Vec<Diagnostic>,
}

impl Report {
    pub(crate) fn new(model: &Model, analysis: &Analysis, warnings: Vec<Diagnostic>) -> Report {
        let modes = analysis
            .timelines
            .iter()
            .map(|tl| {
                let tasks = tl
                    .rows
                    .iter()
                    .map(|r| {
                        let t = &model.tasks[r.task];
                        TaskTiming {
                            task: t.name.clone(),
                            engine: model.engines[t.engine].name.clone(),
                            release_ns: if model.engines[t.engine].kind.is_accelerator() {
                                0
                            } else {
                                t.release
                            },
                            latest_start_ns: Row::ns(r.start),
                            latest_finish_ns: Row::ns(r.finish),
                            deadline_ns: t.deadline,
                            slack_ns: t.deadline.saturating_sub(Row::ns(r.finish)),
                        }
                    })
                    .collect();
                let engines = tl
                    .busy
                    .iter()
                    .map(|&(e, busy)| EngineLoad {
                        engine: model.engines[e].name.clone(),
                        busy_ns: busy,
                        utilisation: busy as f64 / model.period as f64,
                    })
                    .collect();
                let critical_path = tl
                    .critical
                    .iter()
                    .map(|&(t, back)| {
                        let name = &model.tasks[t].name;
                        if back == 0 {
                            name.clone()
                        } else {
                            format!("{name}@-{back}")
                        }
                    })
                    .collect();
                ModeReport {
                    mode: model.modes[tl.mode].name.clone(),
                    tasks,
                    engines,
                    critical_path,
                    critical_path_text: describe_chain(model, &tl.rows, &tl.critical, model.period),
                }
            })
            .collect();
        let engines = model
            .engines
            .iter()
            .map(|e| {
                (
                    e.name.clone(),
                    format!(
                        "{} {} {}{}{}",
                        e.kind.upper(),
                        e.kind.instance_key(),
                        e.instance,
                        crate::model::vpu_suffix(e.vpu),
                        e.thread.describe()
                    ),
                    e.queue_capacity,
                )
            })
            .collect();
        let buffers = model
            .buffers
            .iter()
            .map(|b| {
                let kind = match b.kind {
                    BufKind::Raw { size, align } => format!("raw {size} B, align {align}"),
                    BufKind::Tensor {
                        data_type,
                        dims,
                        align,
                    } => format!(
                        "tensor {} {}x{}x{}x{}, align {align}",
                        data_type.name(),
                        dims[0],
                        dims[1],
                        dims[2],
                        dims[3]
                    ),
                    BufKind::Pinned { size } => format!("pinned {size} B"),
                };
                let mut desc = kind;
                if b.multiplicity > 1 {
                    desc.push_str(&format!(", {} copies", b.multiplicity));
                }
                if b.cpu_access {
                    desc.push_str(", CPU access");
                }
                (b.name.clone(), desc)
            })
            .collect();
        Report {
            file: model.src.path.clone(),
            name: model.name.clone(),
            profile: model.profile.name().to_owned(),
            period_ns: model.period,
            minor_frames_ns: model.minor_frames.clone(),
            lookahead: model.lookahead,
            engines,
            buffers,
            modes,
            warnings,
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minors: Vec<String> = self.minor_frames_ns.iter().map(|&m| ms(m)).collect();
        writeln!(
            f,
            "schedule `{}` ({}): valid. Profile `{}`, period {}, minor frames at {}, lookahead {}.",
            self.name,
            self.file.display(),
            self.profile,
            ms(self.period_ns),
            minors.join(", "),
            self.lookahead
        )?;
        let engines: Vec<String> = self
            .engines
            .iter()
            .map(|(n, k, q)| format!("{n} ({k}, queue {q})"))
            .collect();
        writeln!(f, "engines: {}", engines.join(", "))?;
        let buffers: Vec<String> = self
            .buffers
            .iter()
            .map(|(n, d)| format!("{n} ({d})"))
            .collect();
        writeln!(f, "buffers: {}", buffers.join(", "))?;
        for (i, m) in self.modes.iter().enumerate() {
            writeln!(f)?;
            let initial = if i == 0 { " (initial)" } else { "" };
            writeln!(
                f,
                "mode `{}`{initial}: worst-case timeline (each engine a FIFO, each task at its WCET)",
                m.mode
            )?;
            let widths = (
                column_width("task", m.tasks.iter().map(|t| t.task.as_str())),
                column_width("engine", m.tasks.iter().map(|t| t.engine.as_str())),
            );
            let headings = ["release", "start", "finish", "deadline", "slack"];
            timeline_row(f, widths, "task", "engine", headings.map(String::from))?;
            for t in &m.tasks {
                let times = [
                    t.release_ns,
                    t.latest_start_ns,
                    t.latest_finish_ns,
                    t.deadline_ns,
                    t.slack_ns,
                ];
                timeline_row(f, widths, &t.task, &t.engine, times.map(ms))?;
            }
            let loads: Vec<String> = m
                .engines
                .iter()
                .map(|e| {
                    format!(
                        "{} {:.1}% ({})",
                        e.engine,
                        e.utilisation * 100.0,
                        ms(e.busy_ns)
                    )
                })
                .collect();
            writeln!(f, "  utilisation: {}", loads.join(", "))?;
            writeln!(f, "  critical path: {}", m.critical_path_text)?;
        }
        for w in &self.warnings {
            writeln!(f)?;
            write!(f, "{w}")?;
        }
        Ok(())
    }
}

/// The width of a column: its heading or its widest cell.
fn column_width<'a>(heading: &str, cells: impl Iterator<Item = &'a str>) -> usize {
    cells.map(str::len).fold(heading.len(), usize::max)
}

/// A line of a mode's timeline: task and engine (left-aligned in columns of `widths`), then
/// five times (right-aligned).
fn timeline_row(
    f: &mut fmt::Formatter<'_>,
    (w, we): (usize, usize),
    task: &str,
    engine: &str,
    [release, start, finish, deadline, slack]: [String; 5],
) -> fmt::Result {
    writeln!(
        f,
        "  {task:<w$}  {engine:<we$}  {release:>11}  {start:>11}  {finish:>11}  {deadline:>11}  {slack:>11}"
    )
}
