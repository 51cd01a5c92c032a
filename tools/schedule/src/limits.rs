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
        Limit::DlaHandlesPerBuffer | Limit::DlaHandlesPerSemaphore => {
            "run the DLA tasks that share it with fewer networks or on fewer cores, or hand data over through another buffer"
        }
        Limit::DlaImports => {
            "lower the multiplicity of its buffers, or run some of its tasks on the other DLA core"
        }
        Limit::PvaParams => "pass a struct through a buffer instead of many parameters",
        Limit::PvaSymbol => "give the VPU program's parameter a shorter symbol name",
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
        Limit::DlaHandlesPerBuffer => "the buffer",
        Limit::DlaHandlesPerSemaphore => "the task",
        Limit::DlaImports => "the first task of the network on that core",
        Limit::PvaParams => "the task",
        Limit::PvaSymbol => "the first task running the program",
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
    let mut programs_seen = Vec::new();
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
            Work::Pva { program, params } => {
                if !Limit::PvaParams.admits(params.len() as u64) {
                    exceeded(&t.span, Limit::PvaParams, &t.name, params.len() as u64);
                }
                if !programs_seen.contains(program) {
                    programs_seen.push(*program);
                    let prog = &model.pva_programs[*program];
                    for q in &prog.params {
                        if !Limit::PvaSymbol.admits(q.name.len() as u64) {
                            exceeded(&t.span, Limit::PvaSymbol, &prog.name, q.name.len() as u64);
                        }
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
    let imports = DlaImports::of(model);
    for (b, set) in imports.per_buffer.iter().enumerate() {
        let n = set.count_ones() as u64;
        if !Limit::DlaHandlesPerBuffer.admits(n) {
            let b = &model.buffers[b];
            exceeded(&b.span, Limit::DlaHandlesPerBuffer, &b.name, n);
        }
    }
    for (i, set) in imports.per_semaphore.iter().enumerate() {
        let n = set.count_ones() as u64;
        if !Limit::DlaHandlesPerSemaphore.admits(n) {
            let t = &model.tasks[i];
            exceeded(&t.span, Limit::DlaHandlesPerSemaphore, &t.name, n);
        }
    }
    for (h, &n) in imports.per_handle.iter().enumerate() {
        if let Work::Dla { loadable, .. } = &model.tasks[h].work
            && !Limit::DlaImports.admits(n)
        {
            let name = &model.loadables[*loadable].name;
            exceeded(&model.tasks[h].span, Limit::DlaImports, name, n);
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

/// The runtime's DLA imports, counted as `Schedule::check` counts them. A DLA device handle
/// (one per network and DLA core) is named by its first task.
struct DlaImports {
    /// Per buffer: the handles (bit per first task) whose tasks use it.
    per_buffer: Vec<u64>,
    /// Per task: the handles its semaphore is imported into (its own, its DLA waiters').
    per_semaphore: Vec<u64>,
    /// Per first task of a handle: the imports into that handle.
    per_handle: Vec<u64>,
}

impl DlaImports {
    fn of(model: &Model) -> Self {
        let handle = |i: usize| -> Option<usize> {
            let t = &model.tasks[i];
            let Work::Dla { loadable, .. } = &t.work else {
                return None;
            };
            let core = model.engines[t.engine].instance;
            model.tasks.iter().position(|u| {
                matches!(&u.work, Work::Dla { loadable: l, .. } if l == loadable)
                    && model.engines[u.engine].instance == core
            })
        };
        let bit = |h: Option<usize>| h.filter(|&h| h < 64).map_or(0, |h| 1u64 << h);
        let handles: Vec<Option<usize>> = (0..model.tasks.len()).map(handle).collect();
        let mut per_buffer = vec![0u64; model.buffers.len()];
        let mut per_semaphore: Vec<u64> = handles.iter().map(|&h| bit(h)).collect();
        for (i, t) in model.tasks.iter().enumerate() {
            for a in &t.accesses {
                per_buffer[a.buffer] |= bit(handles[i]);
            }
            for d in &t.after {
                per_semaphore[d.task] |= bit(handles[i]);
            }
        }
        let mut per_handle = vec![0u64; model.tasks.len()];
        let mut add = |set: u64, n: u64| {
            for (h, count) in per_handle.iter_mut().enumerate().take(64) {
                if set & (1 << h) != 0 {
                    *count += n;
                }
            }
        };
        for (b, &set) in per_buffer.iter().enumerate() {
            add(set, u64::from(model.buffers[b].multiplicity));
        }
        for &set in &per_semaphore {
            add(set, 1);
        }
        for h in handles.iter().flatten() {
            per_handle[*h] += 1; // the task's start semaphore
        }
        DlaImports {
            per_buffer,
            per_semaphore,
            per_handle,
        }
    }
}
