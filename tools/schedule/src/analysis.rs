//! Graph and timing analysis: dependency cycles, FIFO deadlocks, queue and semaphore
//! capacities, buffer races and the worst-case timeline, per mode.

use std::collections::BTreeMap;

use crate::diag::Diagnostic;
use crate::model::{Action, Kind, Model, Task, Work};
use crate::read::quoted;
use crate::units::{ms, ms_signed};

/// cuDLA accepts at most this many pre-fences (waits) per submitted task.
pub(crate) const DLA_MAX_WAITS: usize = 29;

const INF: u32 = u32::MAX;

/// Why a task starts when it does in the worst-case timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// Its release offset (0 for accelerator tasks).
    Release,
    /// A same-frame dependency finished.
    Dep(usize),
    /// The previous task on its engine (same frame) finished.
    Fifo(usize),
    /// A dependency `lag` frames back finished (steady state).
    Lagged(usize, u8),
    /// The last task of the previous frame on its engine finished.
    FifoPrevFrame(usize),
}

/// One task in a mode's worst-case timeline. Times are nanoseconds from the frame's release,
/// in `i128`: a chain of WCETs near `u64::MAX` exceeds `u64` without wrapping (at most
/// 4 passes × tasks × 2^64, far below 2^127), and such a timeline is judged, and rejected,
/// with its true value. An accepted timeline lies within `0..=period` (see [`Row::ns`]).
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub task: usize,
    pub start: i128,
    pub finish: i128,
    pub cause: Cause,
}

impl Row {
    /// A time of an accepted timeline as `u64` (it lies within `0..=period`; saturates
    /// otherwise, which only a rejected timeline reaches).
    pub(crate) fn ns(t: i128) -> u64 {
        u64::try_from(t.max(0)).unwrap_or(u64::MAX)
    }
}

/// The worst-case timeline of one mode.
#[derive(Clone, Debug)]
pub(crate) struct ModeTimeline {
    pub mode: usize,
    /// In submission order.
    pub rows: Vec<Row>,
    /// The chain (task, frames back) that ends at the latest-finishing task, earliest first.
    pub critical: Vec<(usize, u8)>,
    /// Busy time per engine (engine index, sum of WCETs).
    pub busy: Vec<(usize, u64)>,
}

/// The results of a successful analysis.
#[derive(Clone, Debug)]
pub(crate) struct Analysis {
    /// Submission order: declaration indices.
    pub order: Vec<usize>,
    pub timelines: Vec<ModeTimeline>,
}

fn mode_names(model: &Model, modes: &[usize]) -> String {
    let names: Vec<&str> = modes
        .iter()
        .map(|&m| model.modes[m].name.as_str())
        .collect();
    if names.len() == 1 {
        format!("mode `{}`", names[0])
    } else {
        format!("modes {}", quoted(&names))
    }
}

/// Tasks of a mode on each engine, in queue (declaration) order.
fn queues(model: &Model, mode: usize) -> Vec<Vec<usize>> {
    let mut q = vec![Vec::new(); model.engines.len()];
    for (i, t) in model.tasks.iter().enumerate() {
        if t.in_mode(mode) {
            q[t.engine].push(i);
        }
    }
    q
}

/// The queues whose order orders the signals of their tasks, for a mode's chains: each
/// engine's queue (index: the engine), except with `accelerators_only`, where a CPU task is
/// a queue of its own (index: engines + task). A CPU worker runs its tasks in order, but a
/// task's signal waits for its own dependencies only, not for those of the task before it
/// (REQ-RT-019): accelerator accesses are ordered by chains without a worker's order in them.
fn ordering_queues(model: &Model, mode: usize, accelerators_only: bool) -> Vec<Vec<usize>> {
    let mut q = queues(model, mode);
    if !accelerators_only {
        return q;
    }
    let mut own = vec![Vec::new(); model.tasks.len()];
    for (e, engine) in model.engines.iter().enumerate() {
        if engine.kind == Kind::Cpu {
            for t in std::mem::take(&mut q[e]) {
                own[t].push(t);
            }
        }
    }
    q.extend(own);
    q
}

/// Whether `task` runs on a CPU worker: the chains that order its accesses may pass through
/// a worker's order (the access is in the task's body, after the tasks before it there).
fn on_worker(model: &Model, task: &Task) -> bool {
    model.engines[task.engine].kind == Kind::Cpu
}

/// Runs every graph and timing check. `Err` holds the errors.
pub(crate) fn analyse(model: &Model) -> Result<Analysis, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    errors.extend(after_cycles(model));
    if errors.is_empty() {
        errors.extend(fifo_deadlocks(model));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let order = match submission_order(model) {
        Ok(o) => o,
        Err(d) => return Err(vec![d]),
    };
    errors.extend(capacities(model));
    errors.extend(races(model));
    errors.extend(switch_races(model));
    errors.extend(switch_sequence_races(model, &order, SWITCH_SEARCH_STATES));
    let mut timelines = Vec::new();
    for mode in 0..model.modes.len() {
        let (tl, errs) = timeline(model, mode, &order);
        errors.extend(errs);
        timelines.push(tl);
    }
    if errors.is_empty() {
        Ok(Analysis { order, timelines })
    } else {
        Err(errors)
    }
}

/// Finds one cycle through each strongly connected component with a cycle (Tarjan), as a
/// list of nodes `[a, b, ..]` where each precedes the next and the last precedes `a`.
fn cycles(n: usize, succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct St<'a> {
        succ: &'a [Vec<usize>],
        index: Vec<usize>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        sccs: Vec<Vec<usize>>,
    }
    fn visit(s: &mut St<'_>, v: usize) {
        s.index[v] = s.next;
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in &s.succ[v] {
            if s.index[w] == usize::MAX {
                visit(s, w);
                s.low[v] = s.low[v].min(s.low[w]);
            } else if s.on[w] {
                s.low[v] = s.low[v].min(s.index[w]);
            }
        }
        if s.low[v] == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            s.sccs.push(scc);
        }
    }
    let mut s = St {
        succ,
        index: vec![usize::MAX; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        sccs: Vec::new(),
    };
    for v in 0..n {
        if s.index[v] == usize::MAX {
            visit(&mut s, v);
        }
    }
    let mut out = Vec::new();
    for scc in s.sccs {
        let start = *scc.iter().min().expect("non-empty");
        if scc.len() == 1 && !succ[start].contains(&start) {
            continue;
        }
        // Breadth-first search from `start` back to itself inside the component.
        let inside = |v: usize| scc.contains(&v);
        let mut prev = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::from([start]);
        let mut found = None;
        'bfs: while let Some(v) = queue.pop_front() {
            let mut next: Vec<usize> = succ[v].iter().copied().filter(|&w| inside(w)).collect();
            next.sort_unstable();
            for w in next {
                if w == start {
                    found = Some(v);
                    break 'bfs;
                }
                if prev[w] == usize::MAX {
                    prev[w] = v;
                    queue.push_back(w);
                }
            }
        }
        let mut path = Vec::new();
        let mut v = found.expect("a cycle exists in a non-trivial component");
        while v != start {
            path.push(v);
            v = prev[v];
        }
        path.push(start);
        path.reverse();
        out.push(path);
    }
    out.sort();
    out
}

/// Cycles of same-frame `after` dependencies.
fn after_cycles(model: &Model) -> Vec<Diagnostic> {
    let n = model.tasks.len();
    let mut succ = vec![Vec::new(); n];
    for (i, t) in model.tasks.iter().enumerate() {
        for d in t.after.iter().filter(|d| d.lag == 0) {
            succ[d.task].push(i);
        }
    }
    cycles(n, &succ)
        .into_iter()
        .map(|cycle| {
            let names: Vec<String> = cycle
                .iter()
                .chain(std::iter::once(&cycle[0]))
                .map(|&t| format!("`{}`", model.tasks[t].name))
                .collect();
            // Point at the `after` entry of the first task that closes the cycle.
            let first = &model.tasks[cycle[0]];
            let last = *cycle.last().expect("non-empty");
            let span = first
                .after
                .iter()
                .find(|d| d.task == last && d.lag == 0)
                .map_or(first.span.clone(), |d| d.span.clone());
            if cycle.len() == 1 {
                return model
                    .src
                    .error(&span, format!("task `{}` waits for itself in the same frame", first.name))
                    .help(format!("to wait for its previous instance, write `after = [\"{}@-1\"]`", first.name));
            }
            model
                .src
                .error(&span, format!("dependency cycle within a frame: {}", names.join(" → ")))
                .note("`A → B` means B has `after = [\"A\"]`: no task of the cycle can start")
                .help("break the cycle, or wait for the previous frame's result with `after = [\"task@-1\"]`")
        })
        .collect()
}

/// Deadlocks between same-frame dependencies and FIFO queue order, per mode.
fn fifo_deadlocks(model: &Model) -> Vec<Diagnostic> {
    let n = model.tasks.len();
    let mut found: BTreeMap<Vec<usize>, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    for mode in 0..model.modes.len() {
        let mut succ = vec![Vec::new(); n];
        for q in queues(model, mode) {
            for w in q.windows(2) {
                succ[w[0]].push(w[1]);
            }
        }
        for (i, t) in model.tasks.iter().enumerate() {
            if !t.in_mode(mode) {
                continue;
            }
            for d in t
                .after
                .iter()
                .filter(|d| d.lag == 0 && model.tasks[d.task].in_mode(mode))
            {
                succ[d.task].push(i);
            }
        }
        for cycle in cycles(n, &succ) {
            let mut key = cycle.clone();
            key.sort_unstable();
            found
                .entry(key)
                .or_insert_with(|| (cycle, Vec::new()))
                .1
                .push(mode);
        }
    }
    found
        .into_values()
        .map(|(mut cycle, modes)| {
            let k = cycle.len();
            // Start the description at a dependency (not at a queue edge).
            let is_dep = |a: usize, b: usize| model.tasks[b].after.iter().any(|d| d.task == a && d.lag == 0);
            if let Some(r) = (0..k).find(|&i| is_dep(cycle[i], cycle[(i + 1) % k])) {
                cycle.rotate_left(r);
            }
            let mut parts = Vec::new();
            let mut span = None;
            let mut engines = Vec::new();
            for i in 0..k {
                let (a, b) = (cycle[i], cycle[(i + 1) % k]);
                let (ta, tb) = (&model.tasks[a], &model.tasks[b]);
                let dep = tb.after.iter().find(|d| d.task == a && d.lag == 0);
                if let Some(d) = dep {
                    parts.push(format!("`{}` waits for `{}`", tb.name, ta.name));
                    span.get_or_insert(d.span.clone());
                } else {
                    let e = &model.engines[ta.engine].name;
                    parts.push(format!("`{}` is queued after `{}` on `{e}`", tb.name, ta.name));
                    if !engines.contains(e) {
                        engines.push(e.clone());
                    }
                }
            }
            let span = span.unwrap_or_else(|| model.tasks[cycle[0]].span.clone());
            model
                .src
                .error(&span, format!("FIFO deadlock in {}: {}", mode_names(model, &modes), parts.join(", ")))
                .note("an engine instance runs its queue in declaration order, so no task of this loop can start")
                .help(format!(
                    "declare the tasks on {} in dependency order, or drop the dependency",
                    quoted(&engines)
                ))
        })
        .collect()
}

/// A submission order that respects same-frame dependencies and per-engine declaration order
/// in every mode at once (the table has one task order).
fn submission_order(model: &Model) -> Result<Vec<usize>, Diagnostic> {
    let n = model.tasks.len();
    let mut succ = vec![Vec::new(); n];
    let mut indeg = vec![0usize; n];
    let mut last_on: Vec<Option<usize>> = vec![None; model.engines.len()];
    for (i, t) in model.tasks.iter().enumerate() {
        if let Some(p) = last_on[t.engine] {
            succ[p].push(i);
            indeg[i] += 1;
        }
        last_on[t.engine] = Some(i);
        for d in t.after.iter().filter(|d| d.lag == 0) {
            succ[d.task].push(i);
            indeg[i] += 1;
        }
    }
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(v) = ready.pop_first() {
        order.push(v);
        for &w in &succ[v] {
            indeg[w] -= 1;
            if indeg[w] == 0 {
                ready.insert(w);
            }
        }
    }
    if order.len() == n {
        return Ok(order);
    }
    let stuck: Vec<String> = (0..n)
        .filter(|i| !order.contains(i))
        .map(|i| model.tasks[i].name.clone())
        .collect();
    let first = (0..n)
        .find(|i| !order.contains(i))
        .expect("some task is stuck");
    Err(model
        .src
        .error(
            &model.tasks[first].span,
            format!("no single submission order fits every mode: tasks {} are ordered differently by different modes", quoted(&stuck)),
        )
        .note("the table has one task order; per engine it must be the declaration order, and it must respect every same-frame `after`")
        .help("reorder the declarations of these tasks on their engines"))
}

/// Queue capacity, DLA pre-fence count.
fn capacities(model: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let la = u64::from(model.lookahead);
    for (e, engine) in model.engines.iter().enumerate() {
        // The worst mode.
        let mut worst: Option<(u64, usize, Vec<usize>)> = None;
        for mode in 0..model.modes.len() {
            let q: Vec<usize> = queues(model, mode).swap_remove(e);
            let frames = if engine.kind.is_accelerator() {
                1 + la
            } else {
                1
            };
            let in_flight = q.len() as u64 * frames;
            if worst.as_ref().is_none_or(|w| in_flight > w.0) {
                worst = Some((in_flight, mode, q));
            }
        }
        let Some((in_flight, mode, q)) = worst else {
            continue;
        };
        if in_flight > u64::from(engine.queue_capacity) {
            let span = engine
                .capacity_span
                .clone()
                .unwrap_or_else(|| engine.span.clone());
            let names: Vec<&str> = q.iter().map(|&t| model.tasks[t].name.as_str()).collect();
            let how = if engine.kind.is_accelerator() {
                format!(
                    "{} per frame × (1 + lookahead {})",
                    q.len(),
                    model.lookahead
                )
            } else {
                format!("{} per frame", q.len())
            };
            out.push(
                model
                    .src
                    .error(
                        &span,
                        format!(
                            "engine `{}` can hold {in_flight} tasks in mode `{}` ({how}), but its `queue_capacity` is {}",
                            engine.name, model.modes[mode].name, engine.queue_capacity
                        ),
                    )
                    .note(format!("tasks on `{}`: {}", engine.name, quoted(&names)))
                    .help(format!("raise `queue_capacity` of `{}` to {in_flight}, or move tasks to another instance", engine.name)),
            );
        }
    }
    out.extend(stream_ops(model));
    for t in &model.tasks {
        if model.engines[t.engine].kind != Kind::Dla {
            continue;
        }
        let mut waited: Vec<usize> = t.after.iter().map(|d| d.task).collect();
        waited.sort_unstable();
        waited.dedup();
        if waited.len() > DLA_MAX_WAITS {
            out.push(
                model
                    .src
                    .error(
                        &t.span,
                        format!(
                            "DLA task `{}` waits for {} semaphores; cuDLA takes at most {DLA_MAX_WAITS} pre-fences per task",
                            t.name,
                            waited.len()
                        ),
                    )
                    .help("let a task on another engine wait for some of them and depend on that task instead"),
            );
        }
    }
    out
}

/// A GPU engine's stream holds at most `MAX_STREAM_OPS` operations: per frame in flight
/// (`1 + lookahead`), `STREAM_OPS_PER_TASK` plus one wait per `after` entry for each of its
/// tasks. The same rule as `Schedule::check` (`TableError::StreamOps`), with its constants, so
/// the validator refuses what the generated code would refuse at compile time.
fn stream_ops(model: &Model) -> Vec<Diagnostic> {
    use orin_exec_table::{MAX_STREAM_OPS, STREAM_OPS_PER_TASK};
    let frames = 1 + model.lookahead as usize;
    let mut out = Vec::new();
    for (e, engine) in model.engines.iter().enumerate() {
        if engine.kind != Kind::Gpu {
            continue;
        }
        let per_frame: usize = model
            .tasks
            .iter()
            .filter(|t| t.engine == e && matches!(t.work, Work::Gpu { .. }))
            .map(|t| STREAM_OPS_PER_TASK + t.after.len())
            .sum();
        let ops = per_frame * frames;
        if ops > MAX_STREAM_OPS {
            out.push(
                model
                    .src
                    .error(
                        &engine.span,
                        format!(
                            "GPU engine `{}` would hold {ops} stream operations ({per_frame} per frame × (1 + lookahead {})), more than the {MAX_STREAM_OPS} a stream's queue takes",
                            engine.name, model.lookahead
                        ),
                    )
                    .note(format!("each GPU task enqueues up to {STREAM_OPS_PER_TASK} operations (two timer stamps, the launch, the signal) plus one wait per `after` entry"))
                    .help("move tasks to another GPU engine, drop `after` entries the stream already orders, or lower `lookahead`"),
            );
        }
    }
    out
}

/// Shortest total lag of a precedence chain between every pair of the mode's tasks (min-plus
/// closure). `d[x][y] = k` means instance f of x completes before instance f+k of y starts;
/// every task follows its own previous instance (FIFO), so this holds for all larger k too.
/// `accelerators_only`: chains through a CPU worker's task order are left out
/// ([`ordering_queues`]).
fn lag_distances(
    model: &Model,
    mode: usize,
    nodes: &[usize],
    accelerators_only: bool,
) -> Vec<Vec<u32>> {
    let n = nodes.len();
    let pos = |t: usize| nodes.iter().position(|&x| x == t);
    let mut d = vec![vec![INF; n]; n];
    let relax = |d: &mut Vec<Vec<u32>>, a: usize, b: usize, w: u32| {
        if w < d[a][b] {
            d[a][b] = w;
        }
    };
    for q in ordering_queues(model, mode, accelerators_only) {
        let q: Vec<usize> = q.into_iter().filter_map(pos).collect();
        for w in q.windows(2) {
            relax(&mut d, w[0], w[1], 0);
        }
        if let (Some(&first), Some(&last)) = (q.first(), q.last()) {
            relax(&mut d, last, first, 1);
        }
    }
    for (bi, &b) in nodes.iter().enumerate() {
        for dep in &model.tasks[b].after {
            if let Some(ai) = pos(dep.task) {
                relax(&mut d, ai, bi, u32::from(dep.lag));
            }
        }
    }
    for k in 0..n {
        for i in 0..n {
            if d[i][k] == INF {
                continue;
            }
            for j in 0..n {
                if d[k][j] != INF {
                    let via = d[i][k] + d[k][j];
                    if via < d[i][j] {
                        d[i][j] = via;
                    }
                }
            }
        }
    }
    d
}

/// A race found in one or more modes.
struct Race {
    buffer: usize,
    /// The earlier instance (frame f) and the later one (frame f + distance).
    first: (usize, bool),
    second: (usize, bool),
    /// 0 = within a frame.
    distance: u32,
    /// Shortest chain from `first` to `second` (frames), if any.
    chain: Option<u32>,
    /// A CPU worker's task order would order the pair (the second access is an
    /// accelerator's, which it does not order).
    through_worker: bool,
    modes: Vec<usize>,
}

/// Buffer races, per mode.
fn races(model: &Model) -> Vec<Diagnostic> {
    let mut found: BTreeMap<(usize, usize, usize, u32), Race> = BTreeMap::new();
    for mode in 0..model.modes.len() {
        let nodes: Vec<usize> = (0..model.tasks.len())
            .filter(|&t| model.tasks[t].in_mode(mode))
            .collect();
        // Per task: the distances that order an access of it (the second of a pair).
        let all = lag_distances(model, mode, &nodes, false);
        let strict = lag_distances(model, mode, &nodes, true);
        let d_into = |t: usize| {
            if on_worker(model, &model.tasks[nodes[t]]) {
                &all
            } else {
                &strict
            }
        };
        for (b, buffer) in model.buffers.iter().enumerate() {
            let m = u32::from(buffer.multiplicity);
            // (node position, writes?) of every task touching the buffer.
            let users: Vec<(usize, bool)> = nodes
                .iter()
                .enumerate()
                .filter_map(|(i, &t)| {
                    let acc: Vec<bool> = model.tasks[t]
                        .accesses
                        .iter()
                        .filter(|a| a.buffer == b)
                        .map(|a| a.write)
                        .collect();
                    (!acc.is_empty()).then(|| (i, acc.contains(&true)))
                })
                .collect();
            for (ui, &(x, xw)) in users.iter().enumerate() {
                for &(y, yw) in &users[ui + 1..] {
                    if !(xw || yw) {
                        continue;
                    }
                    let (tx, ty) = (nodes[x], nodes[y]);
                    let mut record =
                        |first: (usize, bool), second: (usize, bool), distance: u32, chain: u32| {
                            let (p, q) = if first.0 == tx { (x, y) } else { (y, x) };
                            let through_worker = if distance == 0 {
                                all[p][q] == 0 || all[q][p] == 0
                            } else {
                                all[p][q] <= distance
                            };
                            let key = (b, first.0, second.0, distance);
                            found
                                .entry(key)
                                .or_insert_with(|| Race {
                                    buffer: b,
                                    first,
                                    second,
                                    distance,
                                    chain: (chain != INF).then_some(chain),
                                    through_worker,
                                    modes: Vec::new(),
                                })
                                .modes
                                .push(mode);
                        };
                    let (dxy, dyx) = (d_into(y)[x][y], d_into(x)[y][x]);
                    if dxy != 0 && dyx != 0 {
                        // Within a frame; suggest the writer first (producer → consumer).
                        let (first, second) = if xw || !yw {
                            ((tx, xw), (ty, yw))
                        } else {
                            ((ty, yw), (tx, xw))
                        };
                        record(first, second, 0, INF);
                        continue;
                    }
                    // Across frames: x of frame f vs y of frame f + m, and y of f vs x of f + m.
                    if dxy > m {
                        record((tx, xw), (ty, yw), m, dxy);
                    }
                    if dyx > m {
                        record((ty, yw), (tx, xw), m, dyx);
                    }
                }
            }
        }
    }
    found.into_values().map(|r| race_diag(model, r)).collect()
}

/// A race at a mode switch: `first` of frame `s - back` (mode `from`) and `second` of frame
/// `s - back + multiplicity` (mode `to`), where `s` is the first frame of `to`.
struct SwitchRace {
    buffer: usize,
    first: (usize, bool),
    second: (usize, bool),
    back: u32,
}

/// A mode's tasks and their lag distances ([`lag_distances`]); `dist(x, y)` is 0 for `x == y`
/// (the empty chain).
struct Distances {
    pos: Vec<Option<usize>>,
    d: Vec<Vec<u32>>,
}

impl Distances {
    fn new(model: &Model, mode: usize, accelerators_only: bool) -> Distances {
        let nodes: Vec<usize> = (0..model.tasks.len())
            .filter(|&t| model.tasks[t].in_mode(mode))
            .collect();
        let mut pos = vec![None; model.tasks.len()];
        for (i, &t) in nodes.iter().enumerate() {
            pos[t] = Some(i);
        }
        let d = lag_distances(model, mode, &nodes, accelerators_only);
        Distances { pos, d }
    }

    fn dist(&self, x: usize, y: usize) -> Option<u32> {
        if x == y {
            return Some(0);
        }
        let d = self.d[self.pos[x]?][self.pos[y]?];
        (d != INF).then_some(d)
    }
}

/// Buffer races across the frame in which the mode changes, for every ordered pair of modes
/// (`from` then `to`) where a health rule switches to `to`; `s` is the first frame of `to`.
///
/// Pairs within one mode's frames are the per-mode analysis' ([`races`]): a chain only runs
/// forward in frames, so it stays within that mode's frames, where that mode's lag distances
/// are exact. A pair that straddles the switch, `x` of frame `s - k` (mode `from`) and `y` of
/// frame `s - k + m` (mode `to`) on the same copy (multiplicity `m`, `1 ≤ k ≤ m`), is
/// ordered iff a chain crosses the switch exactly once, over an edge `u` of frame `s - j` →
/// `v` of frame `s + r` that the executive keeps there: a wait `u@-L` of a `to` task on a
/// `from` task (`j + r = L`; a wait on a task the frame did not plan is dropped), or an
/// engine's FIFO from the last `from` task of frame `s - 1` to the first `to` task of frame
/// `s` (`L = 1`). With `a = d_from(x, u)` and `b = d_to(v, y)`, the edge orders the pair for
/// every `k` in `a + 1 ..= m - b` when `a + b + L ≤ m`; the pair is safe iff those ranges
/// cover `1..=m`. Pairs further apart follow (`y` runs in every frame of `to` after the
/// switch, and `x` in every frame of `from` before it).
/// The modes a health rule switches to (the only modes entered after the first frame).
fn switch_targets(model: &Model) -> Vec<usize> {
    (0..model.modes.len())
        .filter(|&m| {
            model
                .health
                .iter()
                .any(|r| r.action == Action::SwitchMode(m))
        })
        .collect()
}

fn switch_races(model: &Model) -> Vec<Diagnostic> {
    // Only health rules switch modes: a mode no rule switches to is never entered after
    // the first frame. Any other mode may be the one left (a rule may fire in any mode).
    let targets = switch_targets(model);
    if targets.is_empty() {
        return Vec::new();
    }
    let mut found: BTreeMap<(usize, usize, usize, usize, usize), SwitchRace> = BTreeMap::new();
    // Accesses of CPU tasks, then of accelerator tasks, each with the chains that order them.
    for accelerators_only in [false, true] {
        let dists: Vec<Distances> = (0..model.modes.len())
            .map(|mode| Distances::new(model, mode, accelerators_only))
            .collect();
        let seconds = |y: usize| on_worker(model, &model.tasks[y]) != accelerators_only;
        switch_races_of(
            model,
            &targets,
            &dists,
            accelerators_only,
            &seconds,
            &mut found,
        );
    }
    found
        .into_iter()
        .map(|((from, to, ..), r)| switch_race_diag(model, from, to, &r))
        .collect()
}

/// [`switch_races`] for the second accesses `seconds` admits, with `dists` and
/// `accelerators_only` the chains that order them.
fn switch_races_of(
    model: &Model,
    targets: &[usize],
    dists: &[Distances],
    accelerators_only: bool,
    seconds: &dyn Fn(usize) -> bool,
    found: &mut BTreeMap<(usize, usize, usize, usize, usize), SwitchRace>,
) {
    for &to in targets {
        for from in (0..model.modes.len()).filter(|&from| from != to) {
            // The edges that cross the switch: (u of `from`, v of `to`, lag).
            let mut crossing: Vec<(usize, usize, u32)> = Vec::new();
            for (v, tv) in model
                .tasks
                .iter()
                .enumerate()
                .filter(|(_, t)| t.in_mode(to))
            {
                for d in tv.after.iter().filter(|d| d.lag > 0) {
                    if model.tasks[d.task].in_mode(from) {
                        crossing.push((d.task, v, u32::from(d.lag)));
                    }
                }
            }
            let (qfrom, qto) = (
                ordering_queues(model, from, accelerators_only),
                ordering_queues(model, to, accelerators_only),
            );
            for (qa, qb) in qfrom.iter().zip(qto.iter()) {
                if let (Some(&u), Some(&v)) = (qa.last(), qb.first()) {
                    crossing.push((u, v, 1));
                }
            }
            let (da, db) = (&dists[from], &dists[to]);
            for (x, tx) in model
                .tasks
                .iter()
                .enumerate()
                .filter(|(_, t)| t.in_mode(from) && !t.accesses.is_empty())
            {
                // Per task v of `to`, the edges into it as (a + L, a + 1), sorted, with the
                // smallest a + 1 so far: an edge serves threshold t = m - b iff a + L ≤ t,
                // and then orders every k in a + 1 ..= t.
                let mut entry: Vec<Vec<(u32, u32)>> = vec![Vec::new(); model.tasks.len()];
                for &(u, v, lag) in &crossing {
                    if let Some(ax) = da.dist(x, u) {
                        entry[v].push((ax.saturating_add(lag), ax.saturating_add(1)));
                    }
                }
                for e in &mut entry {
                    e.sort_unstable();
                    for i in 1..e.len() {
                        e[i].1 = e[i].1.min(e[i - 1].1);
                    }
                }
                for a in &tx.accesses {
                    let m = u32::from(model.buffers[a.buffer].multiplicity);
                    for (y, ty) in model
                        .tasks
                        .iter()
                        .enumerate()
                        .filter(|&(y, t)| t.in_mode(to) && seconds(y))
                    {
                        let Some(b) = ty
                            .accesses
                            .iter()
                            .find(|b| b.buffer == a.buffer && (a.write || b.write))
                        else {
                            continue;
                        };
                        // The frames back (k) each entry task orders, then the first k in
                        // 1..=m that none does.
                        let mut ranges: Vec<(u32, u32)> = entry
                            .iter()
                            .enumerate()
                            .filter_map(|(v, e)| {
                                let t = m.checked_sub(db.dist(v, y)?)?;
                                let served = e.partition_point(|&(need, _)| need <= t);
                                let lo = e[..served].last()?.1;
                                (lo <= t).then_some((lo, t))
                            })
                            .collect();
                        ranges.sort_unstable();
                        let mut k = 1;
                        for (lo, hi) in ranges {
                            if lo > k {
                                break;
                            }
                            k = k.max(hi + 1);
                        }
                        if k <= m {
                            found
                                .entry((from, to, a.buffer, x, y))
                                .or_insert(SwitchRace {
                                    buffer: a.buffer,
                                    first: (x, a.write),
                                    second: (y, b.write),
                                    back: k,
                                });
                        }
                    }
                }
            }
        }
    }
}

/// The most states [`switch_sequence_races`] visits for one schedule. Its search is exact
/// but, in theory, exponential in the modes rules switch to and in the lags (a state holds the
/// reached instances of the last `MAX_LAG` frames); the schedules of this repository need
/// fewer than a thousand. Past it the schedule is rejected, never accepted unproven.
pub(crate) const SWITCH_SEARCH_STATES: usize = 1 << 17;

/// What the instances reached from `x` of frame `f` look like after frame `h` (see
/// [`switch_sequence_races`]). Bit `t` of a mask is task `t` (at most 64 tasks, a limit the
/// analysis runs within).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Reach {
    /// The mode of frame `h`.
    mode: usize,
    /// `h - f` modulo the largest multiplicity of `x`'s buffers (all divide `MAX_COPIES`).
    phase: u32,
    /// Mode changes in frames `f + 1 ..= h`, counted up to 2.
    switches: u8,
    /// Tasks on an engine instance that ran a reached instance: each later instance there
    /// is reached too (FIFO).
    engines: u64,
    /// Reached instances of frames `h`, `h - 1`, ..., kept only for tasks that some wait
    /// names that far back.
    hist: [u64; orin_exec_table::MAX_LAG],
}

/// The per-task facts [`switch_sequence_races`] steps frames with.
struct Stepper<'a> {
    order: &'a [usize],
    /// Tasks of each mode.
    planned: Vec<u64>,
    /// Tasks on the engine instance of each task.
    engine: Vec<u64>,
    /// Same-frame waits of each task.
    now: Vec<u64>,
    /// Lagged waits of each task: (task, lag).
    lagged: Vec<Vec<(usize, usize)>>,
    /// Per slot of [`Reach::hist`], the tasks a wait names that far back.
    keep: [u64; orin_exec_table::MAX_LAG],
}

impl Stepper<'_> {
    /// The instances of a frame in `mode` reached from `seed` (in this frame) or from the
    /// frames before (`before`), and the engines-reached mask after it.
    fn frame(&self, mode: usize, before: &Reach, seed: u64) -> (u64, u64) {
        let (mut reached, mut engines) = (0u64, before.engines);
        for &t in self.order {
            let bit = 1u64 << t;
            if self.planned[mode] & bit == 0 {
                continue;
            }
            // A wait is kept iff its task was planned in the frame it names, and reached
            // there only then.
            let hit = seed & bit != 0
                || engines & bit != 0
                || self.now[t] & reached != 0
                || self.lagged[t]
                    .iter()
                    .any(|&(u, lag)| before.hist[lag - 1] & (1u64 << u) != 0);
            if hit {
                reached |= bit;
                engines |= self.engine[t];
            }
        }
        (reached, engines)
    }

    fn shift(
        &self,
        reached: u64,
        hist: &[u64; orin_exec_table::MAX_LAG],
    ) -> [u64; orin_exec_table::MAX_LAG] {
        let mut next = [0u64; orin_exec_table::MAX_LAG];
        next[0] = reached & self.keep[0];
        for i in 1..next.len() {
            next[i] = hist[i - 1] & self.keep[i];
        }
        next
    }
}

/// A race that only a sequence of two or more switches exposes: `first` of frame `f` and
/// `second` of frame `f + modes.len() - 1`, with `modes` the modes of those frames.
struct SequenceRace {
    buffer: usize,
    first: (usize, bool),
    second: (usize, bool),
    modes: Vec<usize>,
}

/// Buffer races across any sequence of mode switches the health rules can make, switches in
/// quick succession included (`A, B, A` or `A, B, C` within a buffer's multiplicity, or a
/// mode that does not touch the buffer between two that do).
///
/// The executive plans one mode per frame; a rule's request applies to the next frame not yet
/// planned, so consecutive frames may have any modes where each change enters a mode a rule
/// switches to. For `x` of frame `f` (any mode running `x`), the instances a chain from it
/// reaches in frame `h + 1` depend only on the mode of `h + 1`, on the engine instances
/// reached so far (FIFO: every later instance there is reached) and on the reached instances
/// of the last `MAX_LAG` frames (kept waits). That is the finite state [`Reach`]; a
/// breadth-first search over it visits every mode sequence at once, and `y` of frame `g`
/// (`g - f` a multiple of the buffer's multiplicity, one of the two writing) that is planned
/// but not reached is a race. The search is exact; it also finds the races of one mode and
/// of a single switch, which [`races`] and [`switch_races`] report with their own messages,
/// so only the (buffer, `x`, `y`) that need two or more switches are reported here, each with
/// its shortest sequence. At most `budget` states ([`SWITCH_SEARCH_STATES`]), past which the
/// schedule is rejected.
fn switch_sequence_races(model: &Model, order: &[usize], mut budget: usize) -> Vec<Diagnostic> {
    use std::collections::{HashSet, VecDeque};
    let targets = switch_targets(model);
    if targets.is_empty() {
        return Vec::new();
    }
    // Masks of 64 bits: the analysis only runs on schedules within `Limit::Tasks` (64).
    debug_assert!(model.tasks.len() <= 64);
    let bit = |t: usize| 1u64 << t;
    let mask = |f: &dyn Fn(&Task) -> bool| {
        model
            .tasks
            .iter()
            .enumerate()
            .filter(|(_, t)| f(t))
            .fold(0u64, |m, (i, _)| m | bit(i))
    };
    let mut keep = [0u64; orin_exec_table::MAX_LAG];
    let mut lagged = Vec::new();
    for t in &model.tasks {
        let mut l = Vec::new();
        for d in t.after.iter().filter(|d| d.lag > 0) {
            let lag = usize::from(d.lag).min(keep.len());
            for slot in &mut keep[..lag] {
                *slot |= bit(d.task);
            }
            l.push((d.task, lag));
        }
        lagged.push(l);
    }
    let cpu = mask(&|t: &Task| on_worker(model, t));
    // Tasks whose later instances the instance of a task orders: its engine's queue, or
    // only itself on a CPU worker when accelerator accesses are checked.
    let stepper = |accelerators_only: bool| Stepper {
        order,
        planned: (0..model.modes.len())
            .map(|m| mask(&|t: &Task| t.in_mode(m)))
            .collect(),
        engine: (0..model.tasks.len())
            .map(|t| {
                if accelerators_only && cpu & bit(t) != 0 {
                    bit(t)
                } else {
                    mask(&|u: &Task| u.engine == model.tasks[t].engine)
                }
            })
            .collect(),
        now: model
            .tasks
            .iter()
            .map(|t| {
                t.after
                    .iter()
                    .filter(|d| d.lag == 0)
                    .fold(0, |m, d| m | bit(d.task))
            })
            .collect(),
        lagged: lagged.clone(),
        keep,
    };
    let passes = [(stepper(false), cpu), (stepper(true), !cpu)];
    let mut out = Vec::new();
    for (x, tx) in model.tasks.iter().enumerate() {
        // x's buffers: (buffer, multiplicity, x writes, tasks that conflict with x on it).
        let mut uses: Vec<(usize, u32, bool, u64)> = Vec::new();
        for a in &tx.accesses {
            if uses.iter().any(|u| u.0 == a.buffer) {
                continue;
            }
            let xw = tx.accesses.iter().any(|b| b.buffer == a.buffer && b.write);
            let others = mask(&|t: &Task| {
                t.accesses
                    .iter()
                    .any(|b| b.buffer == a.buffer && (xw || b.write))
            });
            let m = u32::from(model.buffers[a.buffer].multiplicity);
            uses.push((a.buffer, m, xw, others));
        }
        let Some(period) = uses.iter().map(|u| u.1).max() else {
            continue;
        };
        // Accesses of CPU tasks, then of accelerator tasks, each with the chains that
        // order them (`ordering_queues`).
        for (step, seconds) in &passes {
            // Per (buffer, y): the fewest switches of a race, and the first race with 2 (the
            // state before its last frame, and that frame's mode).
            type Witness = Option<(usize, usize)>;
            let mut found: BTreeMap<(usize, usize), (u8, Witness)> = BTreeMap::new();
            // Every state once, with the state it was first reached from (for the witness).
            let mut states: Vec<(Reach, usize)> = Vec::new();
            let mut seen: HashSet<Reach> = HashSet::new();
            let mut queue = VecDeque::new();
            for mode in (0..model.modes.len()).filter(|&m| tx.in_mode(m)) {
                let empty = Reach {
                    mode,
                    phase: 0,
                    switches: 0,
                    engines: 0,
                    hist: [0; orin_exec_table::MAX_LAG],
                };
                let (reached, engines) = step.frame(mode, &empty, bit(x));
                let r = Reach {
                    engines,
                    hist: step.shift(reached, &empty.hist),
                    ..empty
                };
                if seen.insert(r) {
                    queue.push_back(states.len());
                    states.push((r, usize::MAX));
                }
            }
            while let Some(i) = queue.pop_front() {
                let cur = states[i].0;
                let next_modes = std::iter::once(cur.mode)
                    .chain(targets.iter().copied().filter(|&m| m != cur.mode));
                for mode in next_modes {
                    let (reached, engines) = step.frame(mode, &cur, 0);
                    let phase = (cur.phase + 1) % period;
                    let switches = (cur.switches + u8::from(mode != cur.mode)).min(2);
                    let next = Reach {
                        mode,
                        phase,
                        switches,
                        engines,
                        hist: step.shift(reached, &cur.hist),
                    };
                    for &(b, m, _, others) in &uses {
                        if !phase.is_multiple_of(m) {
                            continue;
                        }
                        let mut open = step.planned[mode] & others & seconds & !reached;
                        while open != 0 {
                            let y = open.trailing_zeros() as usize;
                            open &= open - 1;
                            let e = found.entry((b, y)).or_insert((switches, None));
                            e.0 = e.0.min(switches);
                            if switches == 2 {
                                e.1.get_or_insert((i, mode));
                            }
                        }
                    }
                    let fresh = seen.insert(next);
                    if fresh {
                        if budget == 0 {
                            return vec![search_limit_diag(model, &targets, SWITCH_SEARCH_STATES)];
                        }
                        budget -= 1;
                        queue.push_back(states.len());
                        states.push((next, i));
                    }
                }
            }
            for ((b, y), (least, race)) in found {
                let (Some((parent, last)), 2) = (race, least) else {
                    continue;
                };
                let mut modes = vec![last];
                let mut j = parent;
                while j != usize::MAX {
                    modes.push(states[j].0.mode);
                    j = states[j].1;
                }
                modes.reverse();
                let yw = model.tasks[y]
                    .accesses
                    .iter()
                    .any(|a| a.buffer == b && a.write);
                let xw = uses.iter().any(|u| u.0 == b && u.2);
                out.push(sequence_race_diag(
                    model,
                    &SequenceRace {
                        buffer: b,
                        first: (x, xw),
                        second: (y, yw),
                        modes,
                    },
                ));
            }
        }
    }
    out
}

fn search_limit_diag(model: &Model, targets: &[usize], states: usize) -> Diagnostic {
    let rule = model
        .health
        .iter()
        .find(|r| matches!(r.action, Action::SwitchMode(_)))
        .expect("a rule switches modes");
    let names: Vec<&str> = targets
        .iter()
        .map(|&m| model.modes[m].name.as_str())
        .collect();
    model
        .src
        .error(
            &rule.span,
            format!(
                "the mode switches are too many to prove race-free: the analysis of the mode sequences the health rules can make (into {}) stopped after {states} states",
                quoted(&names)
            ),
        )
        .note("every sequence of modes is followed frame by frame, with the instances a chain reaches in the last frames that waits look back")
        .help("let fewer rules switch modes, into fewer modes, or shorten the lags of `after` entries")
}

fn sequence_race_diag(model: &Model, r: &SequenceRace) -> Diagnostic {
    let buffer = &model.buffers[r.buffer];
    let (a, aw) = r.first;
    let (b, bw) = r.second;
    let (ta, tb) = (&model.tasks[a], &model.tasks[b]);
    let verb = |w: bool| if w { "writes" } else { "reads" };
    let name = |m: usize| format!("`{}`", model.modes[m].name);
    let mut path: Vec<String> = Vec::new();
    for &m in &r.modes {
        if path.last() != Some(&name(m)) {
            path.push(name(m));
        }
    }
    let g = r.modes.len() - 1;
    let (first, last) = (r.modes[0], r.modes[g]);
    let copy = if buffer.multiplicity == 1 {
        "the same buffer".to_owned()
    } else {
        format!("the same copy (multiplicity {})", buffer.multiplicity)
    };
    let span = tb
        .accesses
        .iter()
        .find(|x| x.buffer == r.buffer)
        .map_or(tb.span.clone(), |x| x.span.clone());
    let frames: Vec<String> = r.modes.iter().map(|&m| name(m)).collect();
    // A lag orders only sequences of that length: the modes between may last longer.
    let mut help = format!(
        "order `{}` before `{}` whatever the modes between: run both on one engine instance, or chain them through tasks that run in those modes",
        ta.name, tb.name
    );
    if g <= orin_exec_table::MAX_LAG {
        help += &format!(
            "; `after = [\"{}@-{g}\"]` on `{}` orders this sequence of frames only",
            ta.name, tb.name
        );
    }
    model
        .src
        .error(
            &span,
            format!(
                "buffer race on `{}` across the mode switches {}: `{}` of frame f (mode {}) {} it and `{}` of frame f+{g} (mode {}) {} {copy}, and nothing orders them",
                buffer.name,
                path.join(" → "),
                ta.name,
                name(first),
                verb(aw),
                tb.name,
                name(last),
                verb(bw),
            ),
        )
        .note(format!(
            "the modes of frames f .. f+{g}: {} (a rule's switch takes effect at the next frame not yet planned, so switches may follow each other in consecutive frames); a wait for a task its frame did not plan is dropped, so the chains that order them in one mode, or across one switch, do not exist here",
            frames.join(", ")
        ))
        .help(help)
}

fn switch_race_diag(model: &Model, from: usize, to: usize, r: &SwitchRace) -> Diagnostic {
    let buffer = &model.buffers[r.buffer];
    let (a, aw) = r.first;
    let (b, bw) = r.second;
    let (ta, tb) = (&model.tasks[a], &model.tasks[b]);
    let (from, to) = (&model.modes[from].name, &model.modes[to].name);
    let verb = |w: bool| if w { "writes" } else { "reads" };
    let frame = |k: i64| match k {
        0 => "s".to_owned(),
        k if k > 0 => format!("s+{k}"),
        k => format!("s{k}"),
    };
    let m = i64::from(buffer.multiplicity);
    let back = i64::from(r.back);
    let copy = if m == 1 {
        "the same buffer".to_owned()
    } else {
        format!("the same copy (multiplicity {m})")
    };
    let span = tb
        .accesses
        .iter()
        .find(|x| x.buffer == r.buffer)
        .map_or(tb.span.clone(), |x| x.span.clone());
    model
        .src
        .error(
            &span,
            format!(
                "buffer race on `{}` when mode `{from}` switches to `{to}`: `{}` of frame {} (mode `{from}`) {} it and `{}` of frame {} (mode `{to}`) {} {copy}, and nothing orders them",
                buffer.name,
                ta.name,
                frame(-back),
                verb(aw),
                tb.name,
                frame(m - back),
                verb(bw),
            ),
        )
        .note(format!(
            "`s` is the first frame of mode `{to}`; each mode alone is race-free, but a wait for a task its frame did not plan is dropped, so the chains that order them in mode `{from}` or `{to}` do not exist across the switch"
        ))
        .help(format!(
            "add `after = [\"{}@-{m}\"]` to `{}` (a wait for a task planned in the frame it names is kept across the switch), or run both on one engine instance",
            ta.name, tb.name
        ))
}

/// For a race that a CPU worker's task order would order: why it does not.
fn worker_order_note(r: &Race) -> &'static str {
    if r.through_worker {
        " (for an accelerator's access, a CPU worker's task order is no order: a CPU task's signal waits for its own `after` entries, not for those of the task before it on its worker)"
    } else {
        ""
    }
}

fn race_diag(model: &Model, r: Race) -> Diagnostic {
    let buffer = &model.buffers[r.buffer];
    let (a, aw) = r.first;
    let (b, bw) = r.second;
    let (ta, tb) = (&model.tasks[a], &model.tasks[b]);
    let verb = |w: bool| if w { "writes" } else { "reads" };
    let span = tb
        .accesses
        .iter()
        .find(|x| x.buffer == r.buffer)
        .map_or(tb.span.clone(), |x| x.span.clone());
    let ea = &model.engines[ta.engine].name;
    let eb = &model.engines[tb.engine].name;
    let modes = mode_names(model, &r.modes);
    if r.distance == 0 {
        return model
            .src
            .error(
                &span,
                format!(
                    "buffer race on `{}` within a frame ({modes}): `{}` {} it and `{}` {} it, and nothing orders them",
                    buffer.name,
                    ta.name,
                    verb(aw),
                    tb.name,
                    verb(bw)
                ),
            )
            .note(format!(
                "`{}` runs on `{ea}`, `{}` on `{eb}`; only `after` chains and the FIFO order of one engine instance order tasks{}",
                ta.name,
                tb.name,
                worker_order_note(&r)
            ))
            .help(format!("add `after = [\"{}\"]` to `{}`", ta.name, tb.name));
    }
    let m = buffer.multiplicity;
    let copy = if m == 1 {
        "the same buffer".to_owned()
    } else {
        format!("the same copy (multiplicity {m})")
    };
    let mut d = model
        .src
        .error(
            &span,
            format!(
                "buffer race on `{}` across frames ({modes}): `{}` of frame f {} it and `{}` of frame f+{} {} {copy}, and nothing orders them",
                buffer.name,
                ta.name,
                verb(aw),
                tb.name,
                r.distance,
                verb(bw)
            ),
        );
    d = match r.chain {
        Some(k) => d.note(format!(
            "the shortest chain orders `{}` of frame f only before `{}` of frame f+{k}",
            ta.name, tb.name
        )),
        None => d.note(format!(
            "no chain of `after` dependencies or FIFO order leads from `{}` to `{}`{}",
            ta.name,
            tb.name,
            worker_order_note(&r)
        )),
    };
    // The fewest copies that cover the chain, among those the runtime takes.
    let copies = r.chain.and_then(|k| {
        (u64::from(k)..=orin_exec_table::MAX_COPIES as u64)
            .find(|&c| orin_exec_table::Limit::Multiplicity.admits(c))
    });
    let help = match copies {
        Some(c) => format!(
            "add `after = [\"{}@-{}\"]` to `{}`, or raise `multiplicity` of `{}` to {c}",
            ta.name, r.distance, tb.name, buffer.name
        ),
        _ if m == 1 => format!(
            "add `after = [\"{}@-1\"]` to `{}`, or double-buffer `{}` (`multiplicity = 2`) and add `after = [\"{}@-2\"]`",
            ta.name, tb.name, buffer.name, ta.name
        ),
        _ => format!(
            "add `after = [\"{}@-{}\"]` to `{}`",
            ta.name, r.distance, tb.name
        ),
    };
    d.help(help)
}

/// The worst-case timeline of one mode, and its deadline errors.
fn timeline(model: &Model, mode: usize, order: &[usize]) -> (ModeTimeline, Vec<Diagnostic>) {
    let nodes: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&t| model.tasks[t].in_mode(mode))
        .collect();
    let period = i128::from(model.period);
    let qs = queues(model, mode);
    let n = model.tasks.len();
    // Previous pass's finishes (steady state is reached when nothing changes).
    let mut prev_finish: Option<Vec<i128>> = None;
    let mut rows: Vec<Row> = Vec::new();
    for _pass in 0..4 {
        let mut finish = vec![0i128; n];
        let mut start_of = vec![0i128; n];
        let mut cause_of = vec![Cause::Release; n];
        for &t in &nodes {
            let task = &model.tasks[t];
            let release = if model.engines[task.engine].kind == Kind::Cpu {
                i128::from(task.release)
            } else {
                0
            };
            let mut best = (release, Cause::Release);
            let mut consider = |v: i128, c: Cause| {
                if v > best.0 {
                    best = (v, c);
                }
            };
            for d in task
                .after
                .iter()
                .filter(|d| model.tasks[d.task].in_mode(mode))
            {
                if d.lag == 0 {
                    consider(finish[d.task], Cause::Dep(d.task));
                } else if let Some(pf) = &prev_finish {
                    consider(
                        pf[d.task] - i128::from(d.lag) * period,
                        Cause::Lagged(d.task, d.lag),
                    );
                }
            }
            let q = &qs[task.engine];
            let qi = q
                .iter()
                .position(|&x| x == t)
                .expect("task is in its queue");
            if qi > 0 {
                consider(finish[q[qi - 1]], Cause::Fifo(q[qi - 1]));
            } else if let Some(pf) = &prev_finish {
                let last = *q.last().expect("non-empty");
                consider(pf[last] - period, Cause::FifoPrevFrame(last));
            }
            start_of[t] = best.0;
            cause_of[t] = best.1;
            finish[t] = best.0 + i128::from(task.wcet);
        }
        rows = nodes
            .iter()
            .map(|&t| Row {
                task: t,
                start: start_of[t],
                finish: finish[t],
                cause: cause_of[t],
            })
            .collect();
        let stable = prev_finish
            .as_ref()
            .is_some_and(|pf| nodes.iter().all(|&t| pf[t] == finish[t]));
        // A frame that overruns the period has no steady state: report the first frame.
        let overrun = nodes.iter().any(|&t| finish[t] > period);
        prev_finish = Some(finish);
        if stable || overrun {
            break;
        }
    }
    let chain_to = |t: usize| -> Vec<(usize, u8)> {
        let mut chain = vec![(t, 0u8)];
        let mut cur = t;
        let mut back = 0u8;
        for _ in 0..rows.len() * 2 {
            let Some(row) = rows.iter().find(|r| r.task == cur) else {
                break;
            };
            let (next, extra) = match row.cause {
                Cause::Release => break,
                Cause::Dep(d) | Cause::Fifo(d) => (d, 0),
                Cause::Lagged(d, lag) => (d, lag),
                Cause::FifoPrevFrame(d) => (d, 1),
            };
            back = back.saturating_add(extra);
            chain.push((next, back));
            cur = next;
        }
        chain.reverse();
        chain
    };
    let mut errors = Vec::new();
    for row in &rows {
        let task = &model.tasks[row.task];
        if row.finish > i128::from(task.deadline) || row.finish > period {
            let chain = chain_to(row.task);
            let path = describe_chain(model, &rows, &chain, model.period);
            let what = if row.finish > i128::from(task.deadline) {
                format!("after its deadline {}", ms(task.deadline))
            } else {
                format!("after the end of the period {}", ms(model.period))
            };
            let span = task
                .deadline_span
                .clone()
                .unwrap_or_else(|| task.span.clone());
            errors.push(
                model
                    .src
                    .error(
                        &span,
                        format!(
                            "task `{}` can finish at {} in mode `{}`, {what}",
                            task.name,
                            ms_signed(row.finish),
                            model.modes[mode].name
                        ),
                    )
                    .note(format!("worst-case chain: {path}"))
                    .help("shorten WCETs on this chain, release CPU tasks earlier, move work to another engine instance, or relax the deadline"),
            );
        }
    }
    let critical = rows
        .iter()
        .max_by_key(|r| (r.finish, std::cmp::Reverse(r.task)))
        .map(|r| chain_to(r.task))
        .unwrap_or_default();
    let busy = (0..model.engines.len())
        .filter(|&e| !qs[e].is_empty())
        .map(|e| {
            (
                e,
                qs[e]
                    .iter()
                    .fold(0u64, |acc, &t| acc.saturating_add(model.tasks[t].wcet)),
            )
        })
        .collect();
    (
        ModeTimeline {
            mode,
            rows,
            critical,
            busy,
        },
        errors,
    )
}

/// `a` (cpu0, 0.000ms → 2.000ms) → `b` (gpu0, ...) ...
pub(crate) fn describe_chain(
    model: &Model,
    rows: &[Row],
    chain: &[(usize, u8)],
    period: u64,
) -> String {
    // The chain starts at a release: say so when it is not the frame start.
    let start = chain.first().and_then(|&(t, back)| {
        let row = rows.iter().find(|r| r.task == t)?;
        let task = &model.tasks[t];
        (row.cause == Cause::Release
            && task.release > 0
            && model.engines[task.engine].kind == Kind::Cpu)
            .then(|| {
                format!(
                    "release at {} → ",
                    ms_signed(i128::from(task.release) - i128::from(back) * i128::from(period))
                )
            })
    });
    let links = chain
        .iter()
        .map(|&(t, back)| {
            let task: &Task = &model.tasks[t];
            let row = rows.iter().find(|r| r.task == t);
            let shift = i128::from(back) * i128::from(period);
            let (s, f) = row.map_or((0, 0), |r| (r.start - shift, r.finish - shift));
            let frame = if back == 0 {
                String::new()
            } else {
                format!(" of frame f-{back}")
            };
            format!(
                "`{}`{frame} ({}, {} → {})",
                task.name,
                model.engines[task.engine].name,
                ms_signed(s),
                ms_signed(f)
            )
        })
        .collect::<Vec<_>>()
        .join(" → ");
    format!("{}{links}", start.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    //! Covers: REQ-ROB-121
    use super::*;

    /// Modes `a` and `b`, each a rule's target, and `w` (A) and `v` (B) on one buffer.
    const TWO_WAY: &str = "name = \"t\"\nprofile = \"sil\"\nperiod = \"10ms\"\nmodes = [\"a\", \"b\"]\n\
        [engines]\ncpu = [{ name = \"cpu0\" }, { name = \"cpu1\" }]\n\
        [[buffer]]\nname = \"buf\"\nkind = \"raw\"\nsize = 64\n\
        [[task]]\nname = \"w\"\nengine = \"cpu0\"\nmodes = [\"a\"]\nwcet = \"1ms\"\nwrites = [\"buf\"]\n\
        [[task]]\nname = \"v\"\nengine = \"cpu0\"\nmodes = [\"b\"]\nwcet = \"1ms\"\nreads = [\"buf\"]\n\
        [[health]]\nfault = \"task_error\"\ntask = \"w\"\naction = \"switch_mode\"\nmode = \"b\"\n\
        [[health]]\nfault = \"task_error\"\ntask = \"v\"\naction = \"switch_mode\"\nmode = \"a\"\n";

    fn run(text: &str, budget: usize) -> Vec<Diagnostic> {
        let (model, _) = crate::model::parse(std::path::Path::new("s.toml"), text.to_owned())
            .unwrap_or_else(|_| panic!("a valid model"));
        let order = submission_order(&model).unwrap_or_else(|_| panic!("an order"));
        switch_sequence_races(&model, &order, budget)
    }

    #[test]
    fn the_search_is_bounded_and_rejects_past_its_bound() {
        // One engine instance orders every sequence: proven within a few states.
        assert!(run(TWO_WAY, 16).is_empty());
        let d = run(TWO_WAY, 1);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].message.starts_with("the mode switches are too many to prove race-free: the analysis of the mode sequences the health rules can make (into `a`, `b`) stopped after"),
            "{}",
            d[0].message
        );
    }

    #[test]
    fn the_docs_state_the_bound() {
        let doc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schedule.md");
        let doc = std::fs::read_to_string(doc).expect("docs/schedule.md");
        let n = SWITCH_SEARCH_STATES.to_string();
        let grouped = format!("{},{}", &n[..n.len() - 3], &n[n.len() - 3..]);
        assert!(
            doc.contains(&format!("`SWITCH_SEARCH_STATES` ({grouped})")),
            "{grouped}"
        );
    }
}
