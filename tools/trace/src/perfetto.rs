//! Perfetto / Chrome trace-event JSON export (loads in <https://ui.perfetto.dev> and
//! `chrome://tracing`).
//!
//! One process, named after the schedule and the run id; one thread track per engine instance
//! (named `cpu0 (CPU 0)`, ...) plus one for the executive; one slice per task execution; a flow
//! arrow (`ph: "s"` / `"f"`) per dependency that was waited on, from the end of the signalling
//! task's execution to the start of the waiting one's; the executive's release error as a
//! counter track (`release error ns`); fault and reaction instants on the faulty task's
//! engine track; releases, mode switches and ring overflows on the executive's track.

use std::collections::HashMap;

use serde::Serialize;

use orin_exec::trace::{Event, Record};

use crate::{Execution, TraceMeta, executions};

/// The process id every event carries.
pub const PID: u32 = 1;

/// Name of the release-error counter (Perfetto shows the track as `release error ns`).
pub const RELEASE_COUNTER: &str = "release error";

/// Category (and name) of the dependency flow events.
pub const FLOW_CATEGORY: &str = "dependency";

#[derive(Serialize)]
struct ChromeEvent<'a> {
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
    args: serde_json::Value,
}

impl<'a> ChromeEvent<'a> {
    fn new(name: &'a str, ph: &'a str, tid: u32, ts: f64, args: serde_json::Value) -> Self {
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

/// Perfetto / Chrome trace-event JSON of a run (see the module docs for what it holds).
/// Times are µs relative to the first timed record.
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
    let base = records
        .iter()
        .filter(|r| r.time_ns > 0)
        .map(|r| r.time_ns)
        .min()
        .unwrap_or(0);
    let us = |ns: u64| ns.saturating_sub(base) as f64 / 1000.0;
    let exec_tid = executive_tid(meta);
    let mut events = Vec::new();

    // Names: the process, one thread per engine instance and the executive, in that order.
    let pname = process_name(meta);
    events.push(ChromeEvent::new(
        "process_name",
        "M",
        0,
        0.0,
        serde_json::json!({ "name": pname }),
    ));
    events.push(ChromeEvent::new(
        "process_labels",
        "M",
        0,
        0.0,
        serde_json::json!({ "labels": format!("platform {}", meta.platform) }),
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
            serde_json::json!({ "name": name }),
        ));
        events.push(ChromeEvent::new(
            "thread_sort_index",
            "M",
            tid as u32,
            0.0,
            serde_json::json!({ "sort_index": tid }),
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
                serde_json::json!({ "frame": x.frame, "skipped": x.skipped }),
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
            let args = serde_json::json!({
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
                    serde_json::json!({ "ns": err }),
                ));
                (
                    exec_tid,
                    "release",
                    serde_json::json!({ "frame": r.frame, "release_error_ns": err }),
                )
            }
            Event::Fault(kind) => (
                task_tid,
                "fault",
                serde_json::json!({ "frame": r.frame, "task": task_name, "fault": kind.name() }),
            ),
            Event::Reaction(action) => (
                task_tid,
                "reaction",
                serde_json::json!({
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
                serde_json::json!({ "frame": r.frame, "mode": meta.mode_name(r.value as u16) }),
            ),
            Event::Overflow => (
                exec_tid,
                "overflow",
                serde_json::json!({ "lost_records": r.value }),
            ),
            _ => continue,
        };
        events.push(ChromeEvent {
            s: Some("t"),
            cat: Some(cat),
            ..ChromeEvent::new(r.event.name(), "i", tid, us(r.time_ns), args)
        });
    }
    serde_json::json!({ "traceEvents": events, "displayTimeUnit": "ms" }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, PERIOD};
    use serde_json::Value;

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
