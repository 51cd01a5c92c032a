//! Perfetto / Chrome trace-event JSON export.

use serde::Serialize;

use orin_exec::trace::{Event, Record};

use crate::TraceMeta;
use crate::executions;

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
