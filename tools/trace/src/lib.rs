//! Host side of the trace: a drainer thread that writes the ring to a file without
//! allocating, a reader, a Perfetto/Chrome JSON exporter (one track per engine instance, one
//! slice per task execution) and the per-task timing summary of the evidence report.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;

use orin_exec::table::{EngineKind, FaultKind, Schedule};
use orin_exec::trace::record::NO_TASK;
use orin_exec::trace::ring::Pop;
use orin_exec::trace::{Event, Record, TraceLog};

/// What a trace file says about the schedule it was recorded with, so reports need nothing
/// else.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct TraceMeta {
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
}

/// A task as the trace file records it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
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
}

impl TraceMeta {
    /// From a schedule.
    pub fn from_schedule(s: &Schedule, platform: &str) -> Self {
        let kind = |k| match k {
            EngineKind::Cpu => "cpu",
            EngineKind::Gpu => "gpu",
            EngineKind::Dla => "dla",
            EngineKind::Pva => "pva",
        };
        TraceMeta {
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
                })
                .collect(),
            modes: s.modes.iter().map(|m| m.name.into()).collect(),
        }
    }
}

/// Bytes per record in a trace file.
pub const RECORD_BYTES: usize = 32;

/// Magic at the start of a trace file.
pub const MAGIC: &[u8; 8] = b"OXTRACE1";

fn encode(r: &Record) -> [u8; RECORD_BYTES] {
    let mut out = [0u8; RECORD_BYTES];
    for (chunk, w) in out.chunks_exact_mut(8).zip(r.pack()) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// Drains a trace ring into a file from its own thread, every `period`. Allocates only when
/// started; writing goes through a fixed-size buffer.
pub struct Drainer {
    stop: Arc<AtomicBool>,
    records: Arc<AtomicU64>,
    join: Option<JoinHandle<io::Result<u64>>>,
}

impl Drainer {
    /// Start draining `ring` into `path`; the file starts with `meta`.
    pub fn start(
        ring: &'static TraceLog,
        meta: &TraceMeta,
        path: &Path,
        period: Duration,
    ) -> io::Result<Drainer> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        out.write_all(MAGIC)?;
        let header = serde_json::to_vec(meta).map_err(io::Error::other)?;
        out.write_all(&(header.len() as u64).to_le_bytes())?;
        out.write_all(&header)?;
        let stop = Arc::new(AtomicBool::new(false));
        let records = Arc::new(AtomicU64::new(0));
        let (stop2, records2) = (stop.clone(), records.clone());
        let join = std::thread::Builder::new()
            .name("orin-exec-trace".into())
            .spawn(move || {
                let mut written = 0u64;
                loop {
                    let stopping = stop2.load(Ordering::Acquire);
                    loop {
                        match ring.pop() {
                            Pop::Record(r) => {
                                out.write_all(&encode(&r))?;
                                written += 1;
                            }
                            Pop::Lost(n) => {
                                let r = Record {
                                    time_ns: 0,
                                    frame: 0,
                                    task: NO_TASK,
                                    event: Event::Overflow,
                                    value: n,
                                };
                                out.write_all(&encode(&r))?;
                                written += 1;
                            }
                            Pop::Empty => break,
                        }
                    }
                    records2.store(written, Ordering::Relaxed);
                    if stopping {
                        out.flush()?;
                        return Ok(written);
                    }
                    std::thread::sleep(period);
                }
            })?;
        Ok(Drainer {
            stop,
            records,
            join: Some(join),
        })
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.records.load(Ordering::Relaxed)
    }

    /// Drain what is left, flush and stop; returns the number of records written.
    pub fn finish(mut self) -> io::Result<u64> {
        self.stop.store(true, Ordering::Release);
        match self.join.take() {
            Some(j) => j
                .join()
                .map_err(|_| io::Error::other("trace drainer panicked"))?,
            None => Ok(self.written()),
        }
    }
}

/// Read a trace file written by [`Drainer`].
pub fn read_file(path: &Path) -> io::Result<(TraceMeta, Vec<Record>)> {
    let bad = |what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {what}", path.display()),
        )
    };
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(bad("not an orin-exec trace file (bad magic)"));
    }
    let len = u64::from_le_bytes(bytes[8..16].try_into().unwrap_or([0; 8])) as usize;
    let header = bytes
        .get(16..16usize.saturating_add(len))
        .ok_or_else(|| bad("header truncated"))?;
    let meta: TraceMeta = serde_json::from_slice(header).map_err(|e| bad(&e.to_string()))?;
    let body = &bytes[16 + len..];
    if body.len() % RECORD_BYTES != 0 {
        return Err(bad("truncated inside a record"));
    }
    let mut out = Vec::with_capacity(body.len() / RECORD_BYTES);
    for chunk in body.chunks_exact(RECORD_BYTES) {
        let mut words = [0u64; 4];
        for (w, c) in words.iter_mut().zip(chunk.chunks_exact(8)) {
            *w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        }
        out.push(Record::unpack(words).ok_or_else(|| bad("unknown event code"))?);
    }
    Ok((meta, out))
}

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

#[derive(Serialize)]
struct ChromeEvent<'a> {
    name: &'a str,
    ph: &'a str,
    pid: u32,
    tid: u32,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'a str>,
    args: serde_json::Value,
}

/// Perfetto / Chrome trace-event JSON: a track per engine instance (plus one for the
/// executive), a slice per task execution, instants for releases, faults, reactions and
/// mode switches. Times are µs relative to the first record.
pub fn chrome_json(meta: &TraceMeta, records: &[Record]) -> String {
    let base = records
        .iter()
        .filter(|r| r.time_ns > 0)
        .map(|r| r.time_ns)
        .min()
        .unwrap_or(0);
    let us = |ns: u64| ns.saturating_sub(base) as f64 / 1000.0;
    let exec_tid = meta.engines.len() as u32;
    let mut events = Vec::new();
    for (i, (name, kind, instance)) in meta.engines.iter().enumerate() {
        events.push(ChromeEvent {
            name: "thread_name",
            ph: "M",
            pid: 1,
            tid: i as u32,
            ts: 0.0,
            dur: None,
            s: None,
            cat: None,
            args: serde_json::json!({ "name": format!("{name} ({} {instance})", kind.to_uppercase()) }),
        });
    }
    events.push(ChromeEvent {
        name: "thread_name",
        ph: "M",
        pid: 1,
        tid: exec_tid,
        ts: 0.0,
        dur: None,
        s: None,
        cat: None,
        args: serde_json::json!({ "name": "executive" }),
    });
    for x in executions(records) {
        let Some(t) = meta.tasks.get(x.task as usize) else {
            continue;
        };
        events.push(ChromeEvent {
            name: &t.name,
            ph: "X",
            pid: 1,
            tid: t.engine as u32,
            ts: us(x.start_ns),
            dur: Some((x.end_ns.saturating_sub(x.start_ns)) as f64 / 1000.0),
            s: None,
            cat: Some(if x.skipped { "skipped" } else { "task" }),
            args: serde_json::json!({ "frame": x.frame, "skipped": x.skipped }),
        });
    }
    for r in records {
        let task_name = meta.tasks.get(r.task as usize).map(|t| t.name.as_str());
        let (tid, args) = match r.event {
            Event::FrameRelease => (
                exec_tid,
                serde_json::json!({ "frame": r.frame, "release_error_ns": r.value as i64 }),
            ),
            Event::Fault(_) | Event::Reaction(_) => (
                meta.tasks
                    .get(r.task as usize)
                    .map_or(exec_tid, |t| t.engine as u32),
                serde_json::json!({ "frame": r.frame, "task": task_name, "value": r.value }),
            ),
            Event::ModeSwitch => (
                exec_tid,
                serde_json::json!({ "frame": r.frame, "mode": meta.modes.get(r.value as usize) }),
            ),
            Event::Overflow => (exec_tid, serde_json::json!({ "lost_records": r.value })),
            _ => continue,
        };
        events.push(ChromeEvent {
            name: r.event.name(),
            ph: "i",
            pid: 1,
            tid,
            ts: us(r.time_ns),
            dur: None,
            s: Some("t"),
            cat: Some("event"),
            args,
        });
    }
    serde_json::json!({ "traceEvents": events, "displayTimeUnit": "ms" }).to_string()
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

fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
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
        s.min_ns = d.first().copied().unwrap_or(0);
        s.max_ns = d.last().copied().unwrap_or(0);
        s.p50_ns = percentile(d, 50.0);
        s.p99_ns = percentile(d, 99.0);
        s.p999_ns = percentile(d, 99.9);
        let frames = &mut miss_frames[i];
        frames.sort_unstable();
        frames.dedup();
        let (mut run, mut best, mut prev) = (0u64, 0u64, None::<u64>);
        for &f in frames.iter() {
            run = if prev == Some(f.wrapping_sub(1)) {
                run + 1
            } else {
                1
            };
            best = best.max(run);
            prev = Some(f);
        }
        s.longest_miss_run = best;
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
        p99_error_ns: if sorted.is_empty() {
            0
        } else {
            sorted
                [(((0.99 * sorted.len() as f64).ceil() as usize).max(1) - 1).min(sorted.len() - 1)]
        },
    };
    (out, release)
}

/// Write `bytes` to `path`, creating parent directories.
pub fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
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
