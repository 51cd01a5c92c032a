//! Perfetto / Chrome trace-event JSON export (loads in <https://ui.perfetto.dev> and
//! `chrome://tracing`).
//!
//! One process, named after the schedule and the run id; one thread track per engine instance
//! (named `cpu0 (CPU 0)`, ...) plus one for the executive; one slice per task execution; a flow
//! arrow (`ph: "s"` / `"f"`) per dependency that was waited on, from the end of the signalling
//! task's execution to the start of the waiting one's; the executive's release error as a
//! counter track (`release error ns`); fault and reaction instants on the faulty task's
//! engine track; releases, mode switches and ring overflows on the executive's track.

use crate::window::FrameMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use orin_exec::table::Action;
use orin_exec::trace::{Event, Record};

use crate::{Execution, TraceMeta, TraceReader};

/// The process id every event carries.
pub const PID: u32 = 1;

/// Name of the release-error counter (Perfetto shows the track as `release error ns`).
pub const RELEASE_COUNTER: &str = "release error";

/// Category (and name) of the dependency flow events.
pub const FLOW_CATEGORY: &str = "dependency";

#[derive(Serialize)]
struct ChromeEvent<'a, A> {
    name: &'a str,
    ph: &'a str,
    pid: u32,
    tid: u32,
    ts: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    /// Instant scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'a str>,
    /// Flow id.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    /// Flow binding point.
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'a str>,
    args: A,
}

impl<'a, A> ChromeEvent<'a, A> {
    fn new(name: &'a str, ph: &'a str, tid: u32, ts: f64, args: A) -> Self {
        ChromeEvent {
            name,
            ph,
            pid: PID,
            tid,
            ts,
            dur: None,
            s: None,
            cat: None,
            id: None,
            bp: None,
            args,
        }
    }
}

// The events' arguments, borrowed (nothing is allocated per event); fields in alphabetical
// order, as the exporter has always written them.
#[derive(Serialize)]
struct NameArgs<'a> {
    name: &'a str,
}
#[derive(Serialize)]
struct LabelArgs<'a> {
    labels: &'a str,
}
#[derive(Serialize)]
struct SortArgs {
    sort_index: usize,
}
#[derive(Serialize)]
struct SliceArgs {
    frame: u64,
    skipped: bool,
}
#[derive(Serialize)]
struct FlowArgs<'a> {
    frame: u64,
    from: &'a str,
    lag: u8,
    to: &'a str,
}
#[derive(Serialize)]
struct CounterArgs {
    ns: i64,
}
#[derive(Serialize)]
struct ReleaseArgs {
    frame: u64,
    release_error_ns: i64,
}
#[derive(Serialize)]
struct FaultArgs<'a> {
    fault: &'a str,
    frame: u64,
    task: Option<&'a str>,
}
#[derive(Serialize)]
struct ReactionArgs<'a> {
    action: &'a str,
    frame: u64,
    mode: Option<&'a str>,
    task: Option<&'a str>,
}
#[derive(Serialize)]
struct ModeArgs<'a> {
    frame: u64,
    mode: &'a str,
}
#[derive(Serialize)]
struct OverflowArgs {
    lost_records: u64,
}

/// The track (`tid`) of the executive: one past the engines.
pub fn executive_tid(meta: &TraceMeta) -> u32 {
    meta.engines.len() as u32
}

/// The process name: the schedule's name and the run id.
pub fn process_name(meta: &TraceMeta) -> String {
    if meta.run_id.is_empty() {
        meta.name.clone()
    } else {
        format!("{} (run {})", meta.name, meta.run_id)
    }
}

/// The time the export counts from: the earliest timed record (0 without one).
pub fn time_base<'r>(records: impl IntoIterator<Item = &'r Record>) -> u64 {
    records
        .into_iter()
        .filter(|r| r.time_ns > 0)
        .map(|r| r.time_ns)
        .min()
        .unwrap_or(0)
}

/// Perfetto / Chrome trace-event JSON of a run (see the module docs for what it holds).
/// Times are µs relative to the first timed record. In memory; [`export_file`] streams.
///
/// ```
/// use orin_exec_trace::{TraceMeta, chrome_json};
/// let meta = TraceMeta { name: "aeb".into(), run_id: "20250101T000000Z-0badcafe".into(),
///                        ..TraceMeta::default() };
/// let json: serde_json::Value = serde_json::from_str(&chrome_json(&meta, &[])).unwrap();
/// let process = &json["traceEvents"][0];
/// assert_eq!(process["name"], "process_name");
/// assert_eq!(process["args"]["name"], "aeb (run 20250101T000000Z-0badcafe)");
/// ```
pub fn chrome_json(meta: &TraceMeta, records: &[Record]) -> String {
    let mut out = Vec::new();
    let written = ChromeWriter::new(meta, time_base(records), &mut out).and_then(|mut w| {
        records.iter().try_for_each(|r| w.add(r))?;
        w.finish().map(|_| ())
    });
    // Writing into memory cannot fail, and serde_json writes UTF-8.
    debug_assert!(written.is_ok());
    String::from_utf8(out).unwrap_or_default()
}

/// Export the trace file `trace` to Perfetto / Chrome JSON at `out` (parent directories are
/// created), record by record: two passes over the file (the first finds the time base), in
/// memory that does not grow with the run. Returns the number of events written.
pub fn export_file(trace: &Path, out: &Path) -> io::Result<u64> {
    let mut reader = TraceReader::open(trace)?;
    let mut base = None::<u64>;
    while let Some(r) = reader.next_record()? {
        if r.time_ns > 0 {
            base = Some(base.map_or(r.time_ns, |b| b.min(r.time_ns)));
        }
    }
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut reader = TraceReader::open(trace)?;
    let meta = reader.meta.clone();
    let file = BufWriter::with_capacity(1 << 16, File::create(out)?);
    let mut w = ChromeWriter::new(&meta, base.unwrap_or(0), file)?;
    while let Some(r) = reader.next_record()? {
        w.add(&r)?;
    }
    let events = w.events;
    w.finish()?.flush()?;
    Ok(events)
}

/// An instant event (thread scope) of category `cat`.
fn instant<'a, A>(name: &'a str, tid: u32, ts: f64, cat: &'a str, args: A) -> ChromeEvent<'a, A> {
    ChromeEvent {
        s: Some("t"),
        cat: Some(cat),
        ..ChromeEvent::new(name, "i", tid, ts, args)
    }
}

/// Frames an execution is remembered for its dependency arrows, beyond the largest lag.
const FLOW_WINDOW: u64 = 256;

/// Writes Perfetto / Chrome JSON event by event as records come (the names and tracks first,
/// then each record's events), in memory bounded by the executions in flight and a window of
/// recent frames for the dependency arrows. The events are those of [`chrome_json`], in the
/// order their records complete (viewers sort by time); flow ids are numbered in that order.
///
/// ```
/// use orin_exec::trace::{Event, Record};
/// use orin_exec_trace::{TaskMeta, TraceMeta, perfetto::ChromeWriter};
/// let meta = TraceMeta { engines: vec![("cpu0".into(), "cpu".into(), 0)],
///                        tasks: vec![TaskMeta { name: "t".into(), ..TaskMeta::default() }],
///                        ..TraceMeta::default() };
/// let mut w = ChromeWriter::new(&meta, 1_000, Vec::new())?;
/// w.add(&Record { time_ns: 1_000, frame: 0, task: 0, event: Event::TaskStart, value: 0 })?;
/// w.add(&Record { time_ns: 3_000, frame: 0, task: 0, event: Event::TaskEnd, value: 0 })?;
/// let json: serde_json::Value = serde_json::from_slice(&w.finish()?).unwrap();
/// let slice = json["traceEvents"].as_array().unwrap().iter().find(|e| e["ph"] == "X").unwrap();
/// assert_eq!((slice["ts"].as_f64(), slice["dur"].as_f64()), (Some(0.0), Some(2.0)));
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct ChromeWriter<'m, W: Write> {
    meta: &'m TraceMeta,
    out: W,
    base_ns: u64,
    exec_tid: u32,
    /// Events written.
    events: u64,
    /// Executions started, not yet ended: (task, frame) -> start.
    open: FrameMap<u64>,
    /// Recent executions, for the arrows: (task, frame) -> execution.
    done: FrameMap<Execution>,
    /// Per task, the tasks that wait for it and with which lag.
    waited_by: Vec<Vec<(u16, u8)>>,
    flow_id: u64,
}

impl<'m, W: Write> ChromeWriter<'m, W> {
    /// Start the export into `out`, times counted from `base_ns` ([`time_base`]): writes the
    /// process and track names.
    pub fn new(meta: &'m TraceMeta, base_ns: u64, out: W) -> io::Result<Self> {
        let mut waited_by = vec![Vec::new(); meta.tasks.len()];
        let mut max_lag = 0u64;
        for (i, t) in meta.tasks.iter().enumerate() {
            for w in &t.waits {
                if let Some(v) = waited_by.get_mut(w.task as usize) {
                    v.push((i as u16, w.lag));
                }
                max_lag = max_lag.max(w.lag.into());
            }
        }
        let window = max_lag + FLOW_WINDOW;
        let mut w = ChromeWriter {
            meta,
            out,
            base_ns,
            exec_tid: executive_tid(meta),
            events: 0,
            open: FrameMap::new(meta.tasks.len(), window),
            done: FrameMap::new(meta.tasks.len(), window),
            waited_by,
            flow_id: 0,
        };
        w.out
            .write_all(br#"{"displayTimeUnit":"ms","traceEvents":["#)?;
        // Names: the process, one thread per engine instance and the executive, in that order.
        let pname = process_name(meta);
        w.event(&ChromeEvent::new(
            "process_name",
            "M",
            0,
            0.0,
            NameArgs { name: &pname },
        ))?;
        let labels = format!("platform {}", meta.platform);
        w.event(&ChromeEvent::new(
            "process_labels",
            "M",
            0,
            0.0,
            LabelArgs { labels: &labels },
        ))?;
        let tracks = meta
            .engines
            .iter()
            .map(|(name, kind, instance)| format!("{name} ({} {instance})", kind.to_uppercase()))
            .chain(std::iter::once("executive".to_string()));
        for (tid, name) in tracks.enumerate() {
            w.event(&ChromeEvent::new(
                "thread_name",
                "M",
                tid as u32,
                0.0,
                NameArgs { name: &name },
            ))?;
            w.event(&ChromeEvent::new(
                "thread_sort_index",
                "M",
                tid as u32,
                0.0,
                SortArgs { sort_index: tid },
            ))?;
        }
        Ok(w)
    }

    fn us(&self, ns: u64) -> f64 {
        ns.saturating_sub(self.base_ns) as f64 / 1000.0
    }

    fn event<A: Serialize>(&mut self, e: &ChromeEvent<'_, A>) -> io::Result<()> {
        if self.events > 0 {
            self.out.write_all(b",")?;
        }
        serde_json::to_writer(&mut self.out, e).map_err(io::Error::other)?;
        self.events += 1;
        Ok(())
    }

    /// The events of one record (a task's slice and its arrows when it ends, the release
    /// counter, instants).
    pub fn add(&mut self, r: &Record) -> io::Result<()> {
        let meta = self.meta;
        match r.event {
            Event::TaskStart => {
                self.open.insert(r.task, r.frame, r.time_ns);
                return Ok(());
            }
            Event::TaskEnd | Event::TaskSkipped => {
                if let Some(start_ns) = self.open.remove(r.task, r.frame) {
                    let x = Execution {
                        task: r.task,
                        frame: r.frame,
                        start_ns,
                        end_ns: r.time_ns,
                        skipped: r.event == Event::TaskSkipped,
                    };
                    self.execution(x)?;
                }
                return Ok(());
            }
            _ => {}
        }
        let task_name = meta.tasks.get(r.task as usize).map(|t| t.name.as_str());
        let task_tid = meta
            .tasks
            .get(r.task as usize)
            .map_or(self.exec_tid, |t| t.engine as u32);
        let (name, ts, exec_tid) = (r.event.name(), self.us(r.time_ns), self.exec_tid);
        match r.event {
            Event::FrameRelease => {
                let err = r.value as i64;
                let counter = CounterArgs { ns: err };
                self.event(&ChromeEvent::new(
                    RELEASE_COUNTER,
                    "C",
                    exec_tid,
                    ts,
                    counter,
                ))?;
                let args = ReleaseArgs {
                    frame: r.frame,
                    release_error_ns: err,
                };
                self.event(&instant(name, exec_tid, ts, "release", args))
            }
            Event::Fault(kind) => {
                let args = FaultArgs {
                    fault: kind.name(),
                    frame: r.frame,
                    task: task_name,
                };
                self.event(&instant(name, task_tid, ts, "fault", args))
            }
            Event::Reaction(action) => {
                let mode = match action {
                    Action::SwitchMode(m) => Some(meta.mode_name(m.0.into())),
                    _ => None,
                };
                let args = ReactionArgs {
                    action: name,
                    frame: r.frame,
                    mode: mode.as_deref(),
                    task: task_name,
                };
                self.event(&instant(name, task_tid, ts, "reaction", args))
            }
            Event::ModeSwitch => {
                let mode = meta.mode_name(r.value as u16);
                let args = ModeArgs {
                    frame: r.frame,
                    mode: &mode,
                };
                self.event(&instant(name, exec_tid, ts, "mode", args))
            }
            Event::Overflow => {
                let args = OverflowArgs {
                    lost_records: r.value,
                };
                self.event(&instant(name, exec_tid, ts, "overflow", args))
            }
            _ => Ok(()),
        }
    }

    /// An execution's slice, and an arrow for each dependency between it and a remembered
    /// execution.
    fn execution(&mut self, x: Execution) -> io::Result<()> {
        let meta = self.meta;
        if let Some(t) = meta.tasks.get(x.task as usize) {
            let e = ChromeEvent {
                dur: Some((x.end_ns.saturating_sub(x.start_ns)) as f64 / 1000.0),
                cat: Some(if x.skipped { "skipped" } else { "task" }),
                ..ChromeEvent::new(
                    &t.name,
                    "X",
                    t.engine as u32,
                    self.us(x.start_ns),
                    SliceArgs {
                        frame: x.frame,
                        skipped: x.skipped,
                    },
                )
            };
            self.event(&e)?;
            // The executions it waited for.
            for w in &t.waits {
                let Some(on_frame) = x.frame.checked_sub(w.lag.into()) else {
                    continue;
                };
                if let Some(&sig) = self.done.get(w.task, on_frame) {
                    self.flow(&sig, &x, w.lag)?;
                }
            }
        }
        // The executions that waited for it and ended first.
        for i in 0..self.waited_by.get(x.task as usize).map_or(0, Vec::len) {
            let (waiter, lag) = self.waited_by[x.task as usize][i];
            if let Some(&y) = x
                .frame
                .checked_add(lag.into())
                .and_then(|f| self.done.get(waiter, f))
            {
                self.flow(&x, &y, lag)?;
            }
        }
        self.done.insert(x.task, x.frame, x);
        Ok(())
    }

    /// A dependency arrow from the end of `sig` to the start of `x`, which waited for it.
    fn flow(&mut self, sig: &Execution, x: &Execution, lag: u8) -> io::Result<()> {
        let meta = self.meta;
        let (Some(t), Some(on)) = (
            meta.tasks.get(x.task as usize),
            meta.tasks.get(sig.task as usize),
        ) else {
            return Ok(());
        };
        self.flow_id += 1;
        let args = || FlowArgs {
            frame: x.frame,
            from: &on.name,
            lag,
            to: &t.name,
        };
        // Inside the slices, not on their edges, so each end binds to its slice.
        let from = if sig.end_ns > sig.start_ns {
            sig.end_ns - 1
        } else {
            sig.end_ns
        };
        let to = if x.end_ns > x.start_ns {
            x.start_ns + 1
        } else {
            x.start_ns
        };
        let id = Some(self.flow_id);
        self.event(&ChromeEvent {
            cat: Some(FLOW_CATEGORY),
            id,
            ..ChromeEvent::new(FLOW_CATEGORY, "s", on.engine as u32, self.us(from), args())
        })?;
        self.event(&ChromeEvent {
            cat: Some(FLOW_CATEGORY),
            id,
            bp: Some("e"),
            ..ChromeEvent::new(FLOW_CATEGORY, "f", t.engine as u32, self.us(to), args())
        })
    }

    /// Close the JSON and hand back the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(b"]}")?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, PERIOD};
    use crate::summary::executions;
    use serde_json::{Value, json};
    use std::collections::HashMap;

    /// The exporter as it was before it streamed (everything in memory, executions sorted by
    /// start, then the arrows, then the records' events): the streaming export must hold the
    /// same events.
    fn reference_chrome_json(meta: &TraceMeta, records: &[Record]) -> String {
        let base = records
            .iter()
            .filter(|r| r.time_ns > 0)
            .map(|r| r.time_ns)
            .min()
            .unwrap_or(0);
        let us = |ns: u64| ns.saturating_sub(base) as f64 / 1000.0;
        let exec_tid = executive_tid(meta);
        let mut events: Vec<ChromeEvent<'_, Value>> = Vec::new();

        // Names: the process, one thread per engine instance and the executive, in that order.
        let pname = process_name(meta);
        events.push(ChromeEvent::new(
            "process_name",
            "M",
            0,
            0.0,
            json!({ "name": pname }),
        ));
        events.push(ChromeEvent::new(
            "process_labels",
            "M",
            0,
            0.0,
            json!({ "labels": format!("platform {}", meta.platform) }),
        ));
        let tracks = meta
            .engines
            .iter()
            .map(|(name, kind, instance)| format!("{name} ({} {instance})", kind.to_uppercase()))
            .chain(std::iter::once("executive".to_string()));
        for (tid, name) in tracks.enumerate() {
            events.push(ChromeEvent::new(
                "thread_name",
                "M",
                tid as u32,
                0.0,
                json!({ "name": name }),
            ));
            events.push(ChromeEvent::new(
                "thread_sort_index",
                "M",
                tid as u32,
                0.0,
                json!({ "sort_index": tid }),
            ));
        }

        // A slice per execution.
        let xs = executions(records);
        for x in &xs {
            let Some(t) = meta.tasks.get(x.task as usize) else {
                continue;
            };
            events.push(ChromeEvent {
                dur: Some((x.end_ns.saturating_sub(x.start_ns)) as f64 / 1000.0),
                cat: Some(if x.skipped { "skipped" } else { "task" }),
                ..ChromeEvent::new(
                    &t.name,
                    "X",
                    t.engine as u32,
                    us(x.start_ns),
                    json!({ "frame": x.frame, "skipped": x.skipped }),
                )
            });
        }

        // A flow per dependency that was waited on: both executions are in the trace.
        let by_key: HashMap<(u16, u64), &Execution> =
            xs.iter().map(|x| ((x.task, x.frame), x)).collect();
        let mut flow_id = 0u64;
        for x in &xs {
            let Some(t) = meta.tasks.get(x.task as usize) else {
                continue;
            };
            for w in &t.waits {
                let Some(on_frame) = x.frame.checked_sub(w.lag.into()) else {
                    continue;
                };
                let (Some(sig), Some(on)) = (
                    by_key.get(&(w.task, on_frame)),
                    meta.tasks.get(w.task as usize),
                ) else {
                    continue;
                };
                flow_id += 1;
                let args = json!({
                    "from": on.name, "to": t.name, "frame": x.frame, "lag": w.lag,
                });
                // Inside the slices, not on their edges, so each end binds to its slice.
                let from = if sig.end_ns > sig.start_ns {
                    sig.end_ns - 1
                } else {
                    sig.end_ns
                };
                let to = if x.end_ns > x.start_ns {
                    x.start_ns + 1
                } else {
                    x.start_ns
                };
                events.push(ChromeEvent {
                    cat: Some(FLOW_CATEGORY),
                    id: Some(flow_id),
                    ..ChromeEvent::new(FLOW_CATEGORY, "s", on.engine as u32, us(from), args.clone())
                });
                events.push(ChromeEvent {
                    cat: Some(FLOW_CATEGORY),
                    id: Some(flow_id),
                    bp: Some("e"),
                    ..ChromeEvent::new(FLOW_CATEGORY, "f", t.engine as u32, us(to), args)
                });
            }
        }

        // The release error as a counter, and instants.
        for r in records {
            let task_name = meta.tasks.get(r.task as usize).map(|t| t.name.as_str());
            let task_tid = meta
                .tasks
                .get(r.task as usize)
                .map_or(exec_tid, |t| t.engine as u32);
            let (tid, cat, args) = match r.event {
                Event::FrameRelease => {
                    let err = r.value as i64;
                    events.push(ChromeEvent::new(
                        RELEASE_COUNTER,
                        "C",
                        exec_tid,
                        us(r.time_ns),
                        json!({ "ns": err }),
                    ));
                    (
                        exec_tid,
                        "release",
                        json!({ "frame": r.frame, "release_error_ns": err }),
                    )
                }
                Event::Fault(kind) => (
                    task_tid,
                    "fault",
                    json!({ "frame": r.frame, "task": task_name, "fault": kind.name() }),
                ),
                Event::Reaction(action) => (
                    task_tid,
                    "reaction",
                    json!({
                        "frame": r.frame, "task": task_name, "action": r.event.name(),
                        "mode": match action {
                            orin_exec::table::Action::SwitchMode(m) => Some(meta.mode_name(m.0.into())),
                            _ => None,
                        },
                    }),
                ),
                Event::ModeSwitch => (
                    exec_tid,
                    "mode",
                    json!({ "frame": r.frame, "mode": meta.mode_name(r.value as u16) }),
                ),
                Event::Overflow => (exec_tid, "overflow", json!({ "lost_records": r.value })),
                _ => continue,
            };
            events.push(ChromeEvent {
                s: Some("t"),
                cat: Some(cat),
                ..ChromeEvent::new(r.event.name(), "i", tid, us(r.time_ns), args)
            });
        }
        json!({ "traceEvents": events, "displayTimeUnit": "ms" }).to_string()
    }

    /// The events of an export, comparable whatever their order: each as its JSON text, the
    /// flow ids replaced by what the arrow joins (ids are numbered in emission order).
    fn event_set(json: &str) -> Vec<String> {
        let v: Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["displayTimeUnit"], "ms");
        let mut out: Vec<String> = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let mut e = e.clone();
                if e.get("id").is_some() {
                    e["id"] = Value::Null;
                }
                e.to_string()
            })
            .collect();
        out.sort();
        out
    }

    /// A random run of the fixture's schedule: jittered executions, skipped ones, faults,
    /// reactions, mode switches, an overflow, records slightly out of time order (several
    /// threads push into the ring).
    fn random_run(seed: u64, frames: u64) -> Vec<Record> {
        use orin_exec::table::{Action, FaultKind, ModeId};
        use orin_exec::trace::record::NO_TASK;
        let mut rng = sil_common::rng::SplitMix64::new(seed);
        let mut out = Vec::new();
        let rec = |time_ns, frame, task, event, value| Record {
            time_ns,
            frame,
            task,
            event,
            value,
        };
        for f in 0..frames {
            let t0 = fixture::T0 + f * PERIOD;
            let err = rng.in_range(0, 5_000);
            out.push(rec(t0 + err, f, NO_TASK, Event::FrameRelease, err));
            let mut at = t0 + err;
            for task in 0..3u16 {
                if task == 1 && rng.in_range(0, 10) == 0 {
                    continue; // b not run this frame
                }
                let start = at + rng.in_range(1_000, 50_000);
                let end = start + rng.in_range(0, 300_000);
                out.push(rec(start, f, task, Event::TaskStart, 0));
                let skipped = rng.in_range(0, 20) == 0;
                let event = if skipped {
                    Event::TaskSkipped
                } else {
                    Event::TaskEnd
                };
                out.push(rec(end, f, task, event, end - start));
                at = end;
            }
            match rng.in_range(0, 30) {
                0 => {
                    out.push(rec(at + 10, f, 1, Event::Fault(FaultKind::DeadlineMiss), 0));
                    out.push(rec(
                        at + 20,
                        f,
                        1,
                        Event::Reaction(Action::SwitchMode(ModeId(1))),
                        1,
                    ));
                    out.push(rec(at + 30, f + 1, NO_TASK, Event::ModeSwitch, 1));
                }
                1 => out.push(rec(
                    at + 10,
                    f,
                    2,
                    Event::Fault(FaultKind::BudgetOverrun),
                    0,
                )),
                2 => out.push(rec(0, 0, NO_TASK, Event::Overflow, rng.in_range(1, 9))),
                _ => {}
            }
        }
        // Neighbours swap now and then.
        for i in 1..out.len() {
            if rng.in_range(0, 8) == 0 {
                out.swap(i - 1, i);
            }
        }
        out
    }

    /// Covers: REQ-EVD-009
    #[test]
    fn streaming_export_holds_the_in_memory_exports_events() {
        let meta = TraceMeta::from_schedule(&fixture::SCHEDULE, "sil").with_run_id("r-stream");
        let fixed = fixture::run();
        assert_eq!(
            event_set(&chrome_json(&meta, &fixed)),
            event_set(&reference_chrome_json(&meta, &fixed))
        );
        for seed in 0..8 {
            let records = random_run(seed, 300);
            let new = event_set(&chrome_json(&meta, &records));
            let old = event_set(&reference_chrome_json(&meta, &records));
            assert!(
                new.iter().any(|e| e.contains("\"ph\":\"f\"")),
                "seed {seed}: no arrow"
            );
            assert_eq!(new.len(), old.len(), "seed {seed}");
            assert_eq!(new, old, "seed {seed}");
        }
    }

    /// The file export (two passes over a trace file) writes what `chrome_json` writes.
    ///
    /// Covers: REQ-EVD-009
    #[test]
    fn file_export_equals_the_in_memory_export() {
        use orin_exec::trace::TraceRing;
        let meta = TraceMeta::from_schedule(&fixture::SCHEDULE, "sil").with_run_id("r-file");
        let records = random_run(99, 40);
        let dir = std::env::temp_dir().join(format!("orin-exec-perfetto-{}", std::process::id()));
        let (trace, out) = (dir.join("trace.bin"), dir.join("sub/trace.perfetto.json"));
        let ring: &'static TraceRing<4096> = Box::leak(Box::new(TraceRing::new()));
        let d = crate::Drainer::start(
            ring.as_log(),
            &meta,
            &trace,
            std::time::Duration::from_millis(1),
        )
        .unwrap();
        records.iter().for_each(|r| ring.push(*r));
        d.finish().unwrap();
        let events = export_file(&trace, &out).unwrap();
        let written = std::fs::read_to_string(&out).unwrap();
        let want = chrome_json(&meta, &records);
        let at = written
            .bytes()
            .zip(want.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        assert!(
            written == want,
            "differs at byte {at}: {:?} vs {:?}",
            &written[at.saturating_sub(200)..(at + 200).min(written.len())],
            &want[at.saturating_sub(200)..(at + 200).min(want.len())]
        );
        assert_eq!(events as usize, event_set(&written).len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn export() -> Vec<Value> {
        let meta = TraceMeta::from_schedule(&fixture::SCHEDULE, "sil")
            .with_run_id("20250102T030405Z-0123abcd");
        let json: Value = serde_json::from_str(&chrome_json(&meta, &fixture::run())).unwrap();
        assert_eq!(json["displayTimeUnit"], "ms");
        json["traceEvents"].as_array().unwrap().clone()
    }

    fn of<'a>(events: &'a [Value], ph: &str) -> Vec<&'a Value> {
        events.iter().filter(|e| e["ph"] == ph).collect()
    }

    /// µs since the first record (frame 0's release, at T0) of `ns` after T0.
    fn at(ns: u64) -> f64 {
        ns as f64 / 1000.0
    }

    /// Covers: REQ-EVD-007
    #[test]
    fn process_and_thread_names() {
        let ev = export();
        let meta = of(&ev, "M");
        let process = meta.iter().find(|e| e["name"] == "process_name").unwrap();
        assert_eq!(
            process["args"]["name"],
            "fixture (run 20250102T030405Z-0123abcd)"
        );
        assert_eq!(process["pid"], PID);
        let threads: Vec<(u64, &str)> = meta
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .map(|e| {
                (
                    e["tid"].as_u64().unwrap(),
                    e["args"]["name"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            threads,
            [(0, "cpu0 (CPU 0)"), (1, "cpu1 (CPU 1)"), (2, "executive")]
        );
        assert!(ev.iter().all(|e| e["pid"] == PID));
    }

    /// Covers: REQ-EVD-007
    #[test]
    fn one_slice_per_execution_on_its_engine() {
        let ev = export();
        let slices = of(&ev, "X");
        let count = |name: &str, tid: u64| {
            slices
                .iter()
                .filter(|e| e["name"] == name && e["tid"] == tid)
                .count()
        };
        assert_eq!((count("a", 0), count("b", 1), count("c", 0)), (4, 2, 4));
        assert_eq!(slices.len(), 10);
        // b of frame 1: 400us..600us after frame 1's planned release.
        let b1 = slices
            .iter()
            .find(|e| e["name"] == "b" && e["args"]["frame"] == 1)
            .unwrap();
        assert_eq!(b1["ts"].as_f64().unwrap(), at(PERIOD + 400_000));
        assert_eq!(b1["dur"].as_f64().unwrap(), 200.0);
    }

    /// Covers: REQ-EVD-007
    #[test]
    fn flows_for_every_dependency_waited_on() {
        let ev = export();
        let slices = of(&ev, "X");
        let starts = of(&ev, "s");
        let finishes = of(&ev, "f");
        // b waits a (lag 0) in frames 0 and 1; c waits b of the previous frame in frames 1
        // and 2 (b did not run in frame 2, so frame 3 has nothing to wait for; frame 0 has
        // no previous frame).
        let mut pairs: Vec<(String, String, u64)> = finishes
            .iter()
            .map(|f| {
                (
                    f["args"]["from"].as_str().unwrap().to_string(),
                    f["args"]["to"].as_str().unwrap().to_string(),
                    f["args"]["frame"].as_u64().unwrap(),
                )
            })
            .collect();
        pairs.sort();
        let want = [("a", "b", 0), ("a", "b", 1), ("b", "c", 1), ("b", "c", 2)];
        assert_eq!(
            pairs,
            want.map(|(a, b, f)| (a.to_string(), b.to_string(), f))
        );
        assert_eq!(starts.len(), finishes.len());
        let slice = |name: &str, frame: u64| {
            *slices
                .iter()
                .find(|e| e["name"] == name && e["args"]["frame"] == frame)
                .unwrap()
        };
        let inside = |e: &Value, s: &Value| {
            let (ts, s0) = (e["ts"].as_f64().unwrap(), s["ts"].as_f64().unwrap());
            e["tid"] == s["tid"] && s0 <= ts && ts <= s0 + s["dur"].as_f64().unwrap()
        };
        let mut ids = Vec::new();
        for f in &finishes {
            let id = f["id"].as_u64().unwrap();
            ids.push(id);
            let s = starts.iter().find(|s| s["id"] == id).expect("flow start");
            assert_eq!(
                (s["cat"].clone(), f["cat"].clone()),
                ("dependency".into(), "dependency".into())
            );
            assert_eq!(s["name"], f["name"]);
            assert_eq!(f["bp"], "e");
            let to_frame = f["args"]["frame"].as_u64().unwrap();
            let lag = f["args"]["lag"].as_u64().unwrap();
            let signaller = slice(f["args"]["from"].as_str().unwrap(), to_frame - lag);
            let waiter = slice(f["args"]["to"].as_str().unwrap(), to_frame);
            // From the signaller's end (inside its slice) to the waiter's start.
            assert!(inside(s, signaller), "{s} not in {signaller}");
            assert!(inside(f, waiter), "{f} not in {waiter}");
            let end = signaller["ts"].as_f64().unwrap() + signaller["dur"].as_f64().unwrap();
            assert!((s["ts"].as_f64().unwrap() - end).abs() < 0.0015);
            assert!((f["ts"].as_f64().unwrap() - waiter["ts"].as_f64().unwrap()).abs() < 0.0015);
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 4, "flow ids are unique");
    }

    /// Covers: REQ-EVD-007
    #[test]
    fn release_error_counter() {
        let ev = export();
        let counters = of(&ev, "C");
        let points: Vec<(f64, i64)> = counters
            .iter()
            .map(|c| {
                assert_eq!(c["name"], RELEASE_COUNTER);
                (c["ts"].as_f64().unwrap(), c["args"]["ns"].as_i64().unwrap())
            })
            .collect();
        let want: Vec<(f64, i64)> = (0..4u64)
            .map(|f| (at(f * PERIOD + f * 1000), (f * 1000) as i64))
            .collect();
        assert_eq!(points, want);
    }

    /// Covers: REQ-EVD-007
    #[test]
    fn faults_and_reactions_on_the_task_track() {
        let ev = export();
        let instants = of(&ev, "i");
        assert!(instants.iter().all(|i| i["s"] == "t"));
        let find = |name: &str| {
            instants
                .iter()
                .filter(|i| i["name"] == name)
                .copied()
                .collect::<Vec<_>>()
        };
        let miss = find("deadline_miss");
        assert_eq!(miss.len(), 1);
        // b runs on cpu1 (tid 1).
        assert_eq!(
            (miss[0]["tid"].as_u64(), miss[0]["cat"].as_str()),
            (Some(1), Some("fault"))
        );
        assert_eq!(miss[0]["args"]["frame"], 1);
        assert_eq!(miss[0]["args"]["task"], "b");
        assert_eq!(miss[0]["ts"].as_f64().unwrap(), at(PERIOD + 950_000));
        let overrun = find("budget_overrun");
        assert_eq!(overrun.len(), 1);
        assert_eq!(
            (
                overrun[0]["tid"].as_u64(),
                overrun[0]["args"]["task"].as_str()
            ),
            (Some(0), Some("c"))
        );
        let switch = find("reaction:switch_mode");
        assert_eq!(switch.len(), 1);
        assert_eq!(
            (
                switch[0]["tid"].as_u64(),
                switch[0]["args"]["mode"].as_str()
            ),
            (Some(1), Some("degraded"))
        );
        let mode = find("mode_switch");
        assert_eq!(mode.len(), 1);
        assert_eq!(
            (mode[0]["tid"].as_u64(), mode[0]["args"]["mode"].as_str()),
            (Some(2), Some("degraded"))
        );
        assert_eq!(find("release").len(), 4);
    }
}
