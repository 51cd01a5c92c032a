//! The runtime's capacities as validator rules: every [`Limit`] of `orin-exec-table` (the
//! values `Schedule::check` and the runtime's init use) is an error at the line and column of
//! what exceeds it, and a row of the limits table in `docs/schedule.md` ([`markdown`]).
//!
//! Most are checked here, on the resolved model, before the analysis (which then never sees a
//! schedule the runtime cannot hold); a few where the value is read: modes, lags and
//! multiplicities (in `model.rs`, with the other errors of their item), the lookahead (a range
//! of its key), the stream operations (`analysis.rs`).

use orin_exec_table::{Bound, GRAPH_NODES_PER_TASK, Limit};

use crate::diag::Diagnostic;
use crate::model::{Kind, Model, Work};

/// What to do about a schedule beyond `limit`.
pub(crate) fn help(limit: Limit) -> &'static str {
    match limit {
        Limit::Tasks | Limit::Buffers | Limit::Modes => {
            "split the schedule, or merge items that always run together"
        }
        Limit::Lookahead => "write `lookahead = 0` or `lookahead = 1`",
        Limit::Multiplicity => "write `multiplicity = 1`, `2` or `4`",
        Limit::Waits => "wait for fewer tasks: one waited task can stand for its own waits",
        Limit::Lag => "wait for a task of a nearer frame, or chain lags through other tasks",
        Limit::KernelParams => "pass a struct through a buffer instead of many parameters",
        Limit::KernelName => "give the kernel a shorter name (`extern \"C\"` avoids mangling)",
        Limit::LoadableInputs | Limit::LoadableOutputs => {
            "concatenate tensors, or split the network"
        }
        Limit::DlaAlign => "raise `align` (or leave it out: DLA buffers default to 512)",
        Limit::StreamOps => {
            "move tasks to another GPU engine, drop `after` entries the stream already orders, or lower `lookahead`"
        }
        Limit::GraphNodes => {
            "move tasks to another GPU engine, or submit this one as a stream (`submit = \"stream\"`)"
        }
        _ => "stay within the limit",
    }
}

/// Where the validator reports `limit` (the diagnostic column of the docs table).
fn reported_at(limit: Limit) -> &'static str {
    match limit {
        Limit::Tasks => "the first `[[task]]` beyond it",
        Limit::Buffers => "the first `[[buffer]]` beyond it",
        Limit::Modes => "`modes`",
        Limit::Lookahead => "`lookahead`",
        Limit::Multiplicity => "the buffer's `multiplicity`",
        Limit::Waits => "the first `after` entry beyond it",
        Limit::Lag => "the `after` entry",
        Limit::KernelParams | Limit::KernelName => "the task",
        Limit::LoadableInputs | Limit::LoadableOutputs => "the first task running the network",
        Limit::DlaAlign => "the buffer's `align`",
        Limit::StreamOps | Limit::GraphNodes => "the engine",
        _ => "the schedule",
    }
}

/// The bound as the docs table writes it.
fn bound_text(limit: Limit) -> String {
    match limit.bound() {
        Bound::AtMost(max) => format!("≤ {max}"),
        Bound::AtLeast(min) => format!("≥ {min}"),
        Bound::DivisorOf(n) => {
            let divisors: Vec<String> = (1..=n)
                .filter(|d| n % d == 0)
                .map(|d| d.to_string())
                .collect();
            format!("{} (divides {n})", divisors.join(", "))
        }
    }
}

/// The limits table of `docs/schedule.md`, from [`Limit::ALL`]: the text between its markers.
///
/// ```
/// let table = orin_exec_schedule::limits_markdown();
/// assert!(table.contains("| waits of one task (`after` entries) | ≤ 16 | `MAX_WAITS` |"));
/// ```
pub fn markdown() -> String {
    let mut out =
        String::from("| Limit | Value | Constant | Why | Reported at |\n|---|---|---|---|---|\n");
    for limit in Limit::ALL {
        let constant = match limit.constant() {
            "-" => "—".to_owned(),
            c => format!("`{c}`"),
        };
        out.push_str(&format!(
            "| {} | {} | {constant} | {} | {} |\n",
            limit.counts().replace('|', "\\|"),
            bound_text(limit),
            limit.reason(),
            reported_at(limit),
        ));
    }
    out
}

/// The limits checked on the resolved model; empty when the schedule fits the runtime.
pub(crate) fn check(model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut exceeded = |span: &crate::node::Span, limit: Limit, name: &str, value: u64| {
        out.push(
            model
                .src
                .error(span, limit.exceeded(name, value).to_string())
                .help(help(limit)),
        );
    };
    let cap = |limit: Limit| match limit.bound() {
        Bound::AtMost(max) => max as usize,
        _ => usize::MAX,
    };
    if let Some(t) = model.tasks.get(cap(Limit::Tasks)) {
        let n = model.tasks.len() as u64;
        exceeded(&t.span, Limit::Tasks, &model.name, n);
    }
    if let Some(b) = model.buffers.get(cap(Limit::Buffers)) {
        let n = model.buffers.len() as u64;
        exceeded(&b.span, Limit::Buffers, &model.name, n);
    }
    let mut dla_buffers = vec![false; model.buffers.len()];
    let mut networks_seen = Vec::new();
    for t in &model.tasks {
        if let Some(d) = t.after.get(cap(Limit::Waits)) {
            exceeded(&d.span, Limit::Waits, &t.name, t.after.len() as u64);
        }
        match &t.work {
            Work::Gpu { kernel, params, .. } => {
                for (limit, value) in [
                    (Limit::KernelParams, params.len()),
                    (Limit::KernelName, kernel.len()),
                ] {
                    if !limit.admits(value as u64) {
                        exceeded(&t.span, limit, &t.name, value as u64);
                    }
                }
            }
            Work::Dla { loadable, .. } if !networks_seen.contains(loadable) => {
                networks_seen.push(*loadable);
                let l = &model.loadables[*loadable];
                for (limit, value) in [
                    (Limit::LoadableInputs, l.inputs.len()),
                    (Limit::LoadableOutputs, l.outputs.len()),
                ] {
                    if !limit.admits(value as u64) {
                        exceeded(&t.span, limit, &l.name, value as u64);
                    }
                }
            }
            _ => {}
        }
        if model.engines[t.engine].kind == Kind::Dla {
            for a in &t.accesses {
                dla_buffers[a.buffer] = true;
            }
        }
    }
    for (b, _) in dla_buffers.iter().enumerate().filter(|(_, on)| **on) {
        let b = &model.buffers[b];
        let align = b.kind.align();
        if !Limit::DlaAlign.admits(align) {
            let span = b.align_span.as_ref().unwrap_or(&b.span);
            exceeded(span, Limit::DlaAlign, &b.name, align);
        }
    }
    for (e, engine) in model.engines.iter().enumerate() {
        if engine.kind == Kind::Gpu && engine.graph {
            let nodes = graph_nodes(model, e);
            if !Limit::GraphNodes.admits(nodes) {
                exceeded(&engine.span, Limit::GraphNodes, &engine.name, nodes);
            }
        }
    }
    out
}

/// The nodes of graph-mode GPU engine `e`'s graph, as `Schedule::check` counts them: per GPU
/// task, [`GRAPH_NODES_PER_TASK`] and each wait its stream does not order already. The stream
/// orders a wait on another GPU task of the engine: of an earlier frame, or of this frame,
/// which then precedes the task in the tables (same-frame waits point backward).
fn graph_nodes(model: &Model, e: usize) -> u64 {
    let gpu_on_e = |i: usize| {
        let t = &model.tasks[i];
        t.engine == e && matches!(t.work, Work::Gpu { .. })
    };
    let mut nodes = 0;
    for (_, t) in model.tasks.iter().enumerate().filter(|(i, _)| gpu_on_e(*i)) {
        let unordered = t.after.iter().filter(|d| !gpu_on_e(d.task)).count();
        nodes += (GRAPH_NODES_PER_TASK + unordered) as u64;
    }
    nodes
}
