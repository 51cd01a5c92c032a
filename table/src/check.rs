//! The checks behind [`Schedule::check`]: the rules of the schedule validator
//! (`orin-exec-schedule`'s `model.rs` and `analysis.rs`) that the runtime's soundness and
//! timing rest on, re-run on the tables themselves.
//!
//! Everything here is a `const fn` (loops, no iterators, no trait calls, no allocation), so a
//! generated `static` is checked by the compiler. Task sets are `u64` bit sets, hence
//! [`MAX_TASKS`]; per-buffer sets are fixed arrays, hence [`MAX_BUFFERS`].

use crate::{
    Action, BufferId, CpuWait, CubinId, EngineId, EngineKind, FaultScope, GRAPH_NODES_PER_TASK,
    Limit, LoadableId, MAX_COPIES, MAX_FIFO_PRIORITY, ModeId, ModeMask, Param, PvaAccess,
    PvaParamKind, PvaProgramId, Schedule, ScheduleTables, TableError, TaskDesc, TaskId, Thread,
    Work,
};

/// Most tasks a schedule may have (task sets are 64-bit masks, here and in the runtime).
pub const MAX_TASKS: usize = 64;
/// Most modes a schedule may have (a [`ModeMask`] has 32 bits).
pub const MAX_MODES: usize = 32;
/// Most buffers a schedule may have (the runtime's limit too; per-buffer task sets are
/// fixed arrays).
pub const MAX_BUFFERS: usize = 64;

/// Most operations one GPU engine's stream may hold: the frames in flight (lookahead + 1)
/// times the operations its tasks enqueue per frame ([`STREAM_OPS_PER_TASK`] plus one per
/// wait, every task on the engine counted whatever its modes). The CUDA driver documents no
/// stream depth; its launch call was seen to block once about 1,000 launches were pending on
/// one stream (NVIDIA developer forum 68937, Stack Overflow 53970187), and a blocked
/// executive would miss its release. The bound keeps a schedule well below that, and the SIL
/// stream queue (1,024) above it. The largest GPU chain the other limits allow (64 tasks,
/// one wait each, lookahead 1) needs 638.
pub const MAX_STREAM_OPS: usize = 768;
/// Stream operations of a GPU task besides its waits: two timer stamps, the kernel, the
/// completion signal.
pub const STREAM_OPS_PER_TASK: usize = 4;

const NONE: usize = usize::MAX;

/// `?` for `const fn` (which cannot call `From`).
macro_rules! check {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

type Result<T = ()> = core::result::Result<T, TableError>;

impl Schedule {
    /// Checks `tables` and wraps them: the only way to make a [`Schedule`].
    ///
    /// It re-runs the rules the runtime relies on: every id in range; the tasks in a
    /// submission order (same-frame waits point to earlier tasks, so they are acyclic); each
    /// task's work fits its engine's kind and names only buffers it declares; sane buffer
    /// sizes, alignments and multiplicities; minor frames, deadlines and releases within the
    /// period; lookahead 0 or 1; no buffer race in any mode, within a frame or across frames
    /// (the validator's rules, see below); and a feasible worst-case timeline in every mode.
    ///
    /// Races, per mode (a wait for a task outside the mode orders nothing): `d[x][y]` is the
    /// smallest total lag of a chain of waits and engine FIFO order from `x` to `y` (the last
    /// task of an engine's queue precedes the first of the next frame). Two tasks touching a
    /// buffer, one writing, race within a frame unless `d[x][y] = 0` or `d[y][x] = 0`, and
    /// across frames when `d[x][y]` exceeds the buffer's multiplicity (frame `f + m` reuses
    /// frame `f`'s copy).
    ///
    /// Timeline, per mode: every engine runs its queue in table order, every task for its
    /// WCET, starting at the latest of its release (CPU tasks), its waits (lagged ones a
    /// period per frame back) and its predecessor on the engine (the previous frame's last
    /// task for the first); iterated to the steady state like the validator. Every task must
    /// finish by its deadline.
    ///
    /// Being a `const fn`, it checks generated tables at compile time:
    ///
    /// ```
    /// use orin_exec_table::*;
    ///
    /// static TABLES: ScheduleTables = ScheduleTables {
    ///     name: "idle",
    ///     profile: "sil",
    ///     period_ns: 1_000_000,
    ///     minor_frames_ns: &[0],
    ///     lookahead: 0,
    ///     threads: &[],
    ///     engines: &[],
    ///     buffers: &[],
    ///     tasks: &[],
    ///     modes: &[ModeDesc { name: "normal" }],
    ///     health: &[],
    ///     cubins: &[],
    ///     loadables: &[],
    ///     pva_programs: &[],
    ///     timeline: &[],
    ///     cpu_waits: &[],
    /// };
    /// pub static SCHEDULE: Schedule = match Schedule::check(&TABLES) {
    ///     Ok(s) => s,
    ///     Err(e) => panic!("{}", e.message()),
    /// };
    /// assert_eq!(SCHEDULE.period_ns, 1_000_000);
    /// ```
    ///
    /// Compile-time cost: the race check walks bit sets level by level up to the largest
    /// multiplicity of a contended buffer, once per distinct mode task set. Within the
    /// runtime's limits (multiplicity at most 4, lags at most 6) even 64 tasks in 32 modes stay
    /// well inside rustc's const-evaluation budget; tables with multiplicities and lags near
    /// 255 in many modes may trip the `long_running_const_eval` lint.
    ///
    /// At run time it gives the reason:
    ///
    /// ```
    /// use orin_exec_table::*;
    ///
    /// static NO_MODE: ScheduleTables = ScheduleTables {
    ///     name: "broken",
    ///     profile: "sil",
    ///     period_ns: 1_000_000,
    ///     minor_frames_ns: &[0],
    ///     lookahead: 0,
    ///     threads: &[],
    ///     engines: &[],
    ///     buffers: &[],
    ///     tasks: &[],
    ///     modes: &[],
    ///     health: &[],
    ///     cubins: &[],
    ///     loadables: &[],
    ///     pva_programs: &[],
    ///     timeline: &[],
    ///     cpu_waits: &[],
    /// };
    /// assert_eq!(Schedule::check(&NO_MODE), Err(TableError::ModeCount { count: 0 }));
    /// ```
    pub const fn check(
        tables: &'static ScheduleTables,
    ) -> core::result::Result<Schedule, TableError> {
        check!(header(tables));
        check!(pva_engines(tables));
        check!(pva_programs(tables));
        check!(buffers(tables));
        let mut i = 0;
        while i < tables.tasks.len() {
            check!(task(tables, i));
            i += 1;
        }
        check!(loadables(tables));
        check!(health(tables));
        check!(timeline_entries(tables));
        check!(cpu_waits(tables));
        check!(threads(tables));
        check!(stream_ops(tables));
        check!(graph_nodes(tables));
        check!(dla_imports(tables));
        let users = users(tables);
        // Modes with the same task set have the same races and timeline.
        let mut sets = [0u64; MAX_MODES];
        let mut mode = 0;
        while mode < tables.modes.len() {
            let set = mode_set(tables, mode);
            sets[mode] = set;
            let mut seen = false;
            let mut earlier = 0;
            while earlier < mode {
                seen |= sets[earlier] == set;
                earlier += 1;
            }
            if !seen {
                let fifo_prev = fifo_predecessors(tables, set, 0);
                let levels = max_contended_multiplicity(tables, set, &users);
                // A CPU access is ordered by every chain, a worker's order included; an
                // accelerator access only by chains without a worker's order in them (a CPU
                // task's signal waits for its own dependencies, not for those of the task
                // before it on its worker: REQ-RT-019).
                let cpu = cpu_tasks(tables);
                let reaches = Reaches {
                    all: reach(tables, set, &fifo_prev, levels),
                    accelerators: reach(tables, set, &fifo_predecessors(tables, set, cpu), levels),
                    cpu,
                };
                check!(races(tables, mode, set, &reaches, &users));
                check!(timeline(tables, mode, set, &fifo_prev));
            }
            mode += 1;
        }
        Ok(Schedule { tables })
    }
}

/// Every PVA engine has a VPU affinity and no other engine has one; no two PVA engines of one
/// instance can run on the same VPU. Each engine's FIFO is then alone on its VPUs, which the
/// race rule and the worst-case timeline assume of every engine instance: the order in which
/// the PVA firmware interleaves two streams on one VPU is not documented.
const fn pva_engines(s: &ScheduleTables) -> Result {
    let mut e = 0;
    while e < s.engines.len() {
        let engine = &s.engines[e];
        let is_pva = matches!(engine.kind, EngineKind::Pva);
        let Some(vpu) = engine.vpu else {
            if is_pva {
                return Err(TableError::VpuAffinity {
                    engine: EngineId(e as u8),
                    engine_name: engine.name,
                });
            }
            e += 1;
            continue;
        };
        if !is_pva {
            return Err(TableError::VpuAffinity {
                engine: EngineId(e as u8),
                engine_name: engine.name,
            });
        }
        let mut other = 0;
        while other < e {
            let o = &s.engines[other];
            if let (EngineKind::Pva, Some(ovpu)) = (o.kind, o.vpu)
                && o.instance == engine.instance
                && ovpu.overlaps(vpu)
            {
                return Err(TableError::SharedVpu {
                    engine: EngineId(e as u8),
                    engine_name: engine.name,
                    other: EngineId(other as u8),
                    other_name: o.name,
                });
            }
            other += 1;
        }
        e += 1;
    }
    Ok(())
}

/// Every PVA program parameter's symbol name fits the runtime's look-up buffer, is not empty
/// and holds no NUL byte.
const fn pva_programs(s: &ScheduleTables) -> Result {
    let mut p = 0;
    while p < s.pva_programs.len() {
        let program = &s.pva_programs[p];
        let mut k = 0;
        while k < program.params.len() {
            let name = program.params[k].name.as_bytes();
            check!(within(Limit::PvaSymbol, program.name, name.len() as u64));
            // The runtime passes the name NUL-terminated (`CupvaCmdProgramGetParameter`).
            let mut b = 0;
            while b < name.len() && name[b] != 0 {
                b += 1;
            }
            if name.is_empty() || b < name.len() {
                return Err(TableError::PvaSymbolName {
                    program: PvaProgramId(p as u16),
                    program_name: program.name,
                    index: k,
                });
            }
            k += 1;
        }
        p += 1;
    }
    Ok(())
}

/// Every GPU engine's stream holds at most [`MAX_STREAM_OPS`] operations (runs after the
/// tasks' ids are checked).
const fn stream_ops(s: &ScheduleTables) -> Result {
    let mut e = 0;
    while e < s.engines.len() {
        if matches!(s.engines[e].kind, EngineKind::Gpu) {
            let mut per_frame = 0;
            let mut i = 0;
            while i < s.tasks.len() {
                let t = &s.tasks[i];
                if t.engine.0 as usize == e && matches!(t.work, Work::Gpu(_)) {
                    per_frame += STREAM_OPS_PER_TASK + t.waits.len();
                }
                i += 1;
            }
            let ops = per_frame * (s.lookahead as usize + 1);
            if ops > MAX_STREAM_OPS {
                return Err(TableError::StreamOps {
                    engine: EngineId(e as u8),
                    engine_name: s.engines[e].name,
                    ops,
                });
            }
        }
        e += 1;
    }
    Ok(())
}

/// `Err(Limit)` unless `limit` admits `value` of the item `name`.
const fn within(limit: Limit, name: &'static str, value: u64) -> Result {
    if limit.admits(value) {
        Ok(())
    } else {
        Err(TableError::Limit { limit, name, value })
    }
}

/// Every graph-mode GPU engine's graph holds at most [`MAX_GRAPH_NODES`](crate::MAX_GRAPH_NODES)
/// nodes: per task, its waits that the stream does not order already (on an earlier task of
/// the same engine, or on any of its tasks in an earlier frame) and
/// [`GRAPH_NODES_PER_TASK`].
const fn graph_nodes(s: &ScheduleTables) -> Result {
    let mut e = 0;
    while e < s.engines.len() {
        if matches!(s.engines[e].kind, EngineKind::Gpu) && s.engines[e].graph {
            let mut nodes = 0;
            let mut i = 0;
            while i < s.tasks.len() {
                let t = &s.tasks[i];
                if t.engine.0 as usize == e && matches!(t.work, Work::Gpu(_)) {
                    nodes += GRAPH_NODES_PER_TASK;
                    let mut k = 0;
                    while k < t.waits.len() {
                        let w = t.waits[k];
                        let d = &s.tasks[w.task.0 as usize];
                        let same_stream =
                            d.engine.0 == t.engine.0 && matches!(d.work, Work::Gpu(_));
                        if !(same_stream && (w.lag > 0 || (w.task.0 as usize) < i)) {
                            nodes += 1;
                        }
                        k += 1;
                    }
                }
                i += 1;
            }
            check!(within(Limit::GraphNodes, s.engines[e].name, nodes as u64));
        }
        e += 1;
    }
    Ok(())
}

/// The DLA device handle task `i` runs on, as the index of the first task with the same
/// network on the same DLA core (the runtime opens one handle per network and core); `None` for
/// other work. Runs after the tasks' ids are checked.
const fn dla_handle(s: &ScheduleTables, i: usize) -> Option<usize> {
    let Work::Dla(d) = s.tasks[i].work else {
        return None;
    };
    let core = s.engines[s.tasks[i].engine.0 as usize].instance;
    let mut j = 0;
    while j < i {
        if let Work::Dla(e) = s.tasks[j].work
            && e.loadable.0 == d.loadable.0
            && s.engines[s.tasks[j].engine.0 as usize].instance == core
        {
            return Some(j);
        }
        j += 1;
    }
    Some(i)
}

/// The DLA handles (a bit per representative task, see [`dla_handle`]) whose tasks use buffer
/// `b`.
const fn handles_of_buffer(s: &ScheduleTables, b: usize) -> u64 {
    let mut set = 0u64;
    let mut i = 0;
    while i < s.tasks.len() {
        if let Some(h) = dla_handle(s, i)
            && touches(&s.tasks[i], BufferId(b as u16))
        {
            set |= 1 << h;
        }
        i += 1;
    }
    set
}

/// The DLA handles task `id`'s semaphore is imported into: its own, and those of the tasks
/// that wait for it (at any lag).
const fn handles_of_semaphore(s: &ScheduleTables, id: usize) -> u64 {
    let mut set = match dla_handle(s, id) {
        Some(h) => 1u64 << h,
        None => 0,
    };
    let mut i = 0;
    while i < s.tasks.len() {
        if let Some(h) = dla_handle(s, i) {
            let waits = s.tasks[i].waits;
            let mut k = 0;
            while k < waits.len() {
                if waits[k].task.0 as usize == id {
                    set |= 1 << h;
                }
                k += 1;
            }
        }
        i += 1;
    }
    set
}

/// The DLA imports fit the runtime's tables, as init makes them: per buffer copy, one into each
/// handle whose tasks use the buffer; per task, its semaphore into each handle that signals or
/// waits for it; per DLA task, a start semaphore into its handle. Each handle holds at most
/// [`MAX_DLA_IMPORTS`](crate::MAX_DLA_IMPORTS).
const fn dla_imports(s: &ScheduleTables) -> Result {
    let mut imports = [0u64; MAX_TASKS];
    let mut b = 0;
    while b < s.buffers.len() {
        let set = handles_of_buffer(s, b);
        check!(within(
            Limit::DlaHandlesPerBuffer,
            s.buffers[b].name,
            set.count_ones() as u64
        ));
        add_to_each(&mut imports, set, s.buffers[b].multiplicity as u64);
        b += 1;
    }
    let mut i = 0;
    while i < s.tasks.len() {
        let set = handles_of_semaphore(s, i);
        check!(within(
            Limit::DlaHandlesPerSemaphore,
            s.tasks[i].name,
            set.count_ones() as u64
        ));
        add_to_each(&mut imports, set, 1);
        if let Some(h) = dla_handle(s, i) {
            imports[h] += 1; // the start semaphore
        }
        i += 1;
    }
    let mut h = 0;
    while h < s.tasks.len() {
        if let Work::Dla(d) = s.tasks[h].work {
            let network = s.loadables[d.loadable.0 as usize].name;
            check!(within(Limit::DlaImports, network, imports[h]));
        }
        h += 1;
    }
    Ok(())
}

/// Adds `n` to `counts[h]` for each bit `h` of `set`.
const fn add_to_each(counts: &mut [u64; MAX_TASKS], set: u64, n: u64) {
    let mut h = 0;
    while h < MAX_TASKS {
        if set & (1 << h) != 0 {
            counts[h] += n;
        }
        h += 1;
    }
}

/// Every loadable's input and output tensors fit the runtime's descriptor arrays.
const fn loadables(s: &ScheduleTables) -> Result {
    let mut l = 0;
    while l < s.loadables.len() {
        let desc = &s.loadables[l];
        check!(within(
            Limit::LoadableInputs,
            desc.name,
            desc.inputs.len() as u64
        ));
        check!(within(
            Limit::LoadableOutputs,
            desc.name,
            desc.outputs.len() as u64
        ));
        l += 1;
    }
    Ok(())
}

const fn header(s: &ScheduleTables) -> Result {
    if s.tasks.len() > MAX_TASKS {
        return Err(TableError::TooManyTasks {
            count: s.tasks.len(),
        });
    }
    if s.buffers.len() > MAX_BUFFERS {
        return Err(TableError::TooManyBuffers {
            count: s.buffers.len(),
        });
    }
    if s.modes.is_empty() || s.modes.len() > MAX_MODES {
        return Err(TableError::ModeCount {
            count: s.modes.len(),
        });
    }
    if s.period_ns == 0 {
        return Err(TableError::ZeroPeriod);
    }
    if s.lookahead > 1 {
        return Err(TableError::Lookahead {
            lookahead: s.lookahead,
        });
    }
    if s.minor_frames_ns.is_empty() {
        return Err(TableError::NoMinorFrame);
    }
    let mut k = 0;
    while k < s.minor_frames_ns.len() {
        let offset_ns = s.minor_frames_ns[k];
        let bad = if k == 0 {
            offset_ns != 0
        } else {
            offset_ns <= s.minor_frames_ns[k - 1]
        };
        if bad || offset_ns >= s.period_ns {
            return Err(TableError::MinorFrame {
                index: k,
                offset_ns,
            });
        }
        k += 1;
    }
    Ok(())
}

const fn buffers(s: &ScheduleTables) -> Result {
    let mut b = 0;
    while b < s.buffers.len() {
        let desc = &s.buffers[b];
        let buffer = BufferId(b as u16);
        let buffer_name = desc.name;
        match desc.kind.checked_size() {
            Some(size) if size > 0 => {}
            _ => {
                return Err(TableError::BufferSize {
                    buffer,
                    buffer_name,
                });
            }
        }
        let align = desc.kind.align();
        if !align.is_power_of_two() {
            return Err(TableError::BufferAlign {
                buffer,
                buffer_name,
                align,
            });
        }
        if desc.multiplicity == 0 {
            return Err(TableError::Multiplicity {
                buffer,
                buffer_name,
            });
        }
        check!(within(
            Limit::Multiplicity,
            buffer_name,
            desc.multiplicity as u64
        ));
        b += 1;
    }
    Ok(())
}

const fn lists(list: &[BufferId], buffer: BufferId) -> bool {
    let mut k = 0;
    while k < list.len() {
        if list[k].0 == buffer.0 {
            return true;
        }
        k += 1;
    }
    false
}

const fn touches(t: &TaskDesc, buffer: BufferId) -> bool {
    lists(t.reads, buffer) || lists(t.writes, buffer)
}

/// Range check of a buffer named by task `i`.
const fn buffer_in_range(s: &ScheduleTables, i: usize, buffer: BufferId) -> Result {
    if (buffer.0 as usize) < s.buffers.len() {
        Ok(())
    } else {
        Err(TableError::BufferOutOfRange {
            task: TaskId(i as u16),
            task_name: s.tasks[i].name,
            buffer,
        })
    }
}

/// `buffer`, used by task `i`'s work, must be in range and in `declared`.
const fn declared(s: &ScheduleTables, i: usize, buffer: BufferId, declared: bool) -> Result {
    check!(buffer_in_range(s, i, buffer));
    if declared {
        Ok(())
    } else {
        Err(TableError::UndeclaredAccess {
            task: TaskId(i as u16),
            task_name: s.tasks[i].name,
            buffer,
            buffer_name: s.buffers[buffer.0 as usize].name,
        })
    }
}

const fn task(s: &ScheduleTables, i: usize) -> Result {
    let t = &s.tasks[i];
    let task = TaskId(i as u16);
    let task_name = t.name;
    if t.engine.0 as usize >= s.engines.len() {
        return Err(TableError::EngineOutOfRange {
            task,
            task_name,
            engine: t.engine,
        });
    }
    let mut k = 0;
    while k < t.reads.len() {
        check!(buffer_in_range(s, i, t.reads[k]));
        k += 1;
    }
    k = 0;
    while k < t.writes.len() {
        check!(buffer_in_range(s, i, t.writes[k]));
        k += 1;
    }
    check!(within(Limit::Waits, task_name, t.waits.len() as u64));
    k = 0;
    while k < t.waits.len() {
        let w = t.waits[k];
        check!(within(Limit::Lag, task_name, w.lag as u64));
        if w.task.0 as usize >= s.tasks.len() {
            return Err(TableError::WaitOutOfRange {
                task,
                task_name,
                waited: w.task,
            });
        }
        if w.lag == 0 && w.task.0 as usize >= i {
            return Err(TableError::WaitOutOfOrder {
                task,
                task_name,
                waited: w.task,
                waited_name: s.tasks[w.task.0 as usize].name,
            });
        }
        k += 1;
    }
    let engine = &s.engines[t.engine.0 as usize];
    match (&t.work, engine.kind) {
        (Work::Cpu, EngineKind::Cpu) => {}
        (Work::Gpu(g), EngineKind::Gpu) => {
            if g.cubin.0 as usize >= s.cubins.len() {
                return Err(TableError::CubinOutOfRange {
                    task,
                    task_name,
                    cubin: CubinId(g.cubin.0),
                });
            }
            check!(within(
                Limit::KernelParams,
                task_name,
                g.params.len() as u64
            ));
            check!(within(Limit::KernelName, task_name, g.kernel.len() as u64));
            k = 0;
            while k < g.params.len() {
                if let Param::Buffer(b) = g.params[k] {
                    check!(declared(s, i, b, touches(t, b)));
                }
                k += 1;
            }
        }
        (Work::Dla(d), EngineKind::Dla) => {
            if d.loadable.0 as usize >= s.loadables.len() {
                return Err(TableError::LoadableOutOfRange {
                    task,
                    task_name,
                    loadable: LoadableId(d.loadable.0),
                });
            }
            k = 0;
            while k < d.inputs.len() {
                let b = d.inputs[k].buffer;
                check!(declared(s, i, b, lists(t.reads, b)));
                k += 1;
            }
            k = 0;
            while k < d.outputs.len() {
                let b = d.outputs[k].buffer;
                check!(declared(s, i, b, lists(t.writes, b)));
                k += 1;
            }
            // Init registers every buffer a DLA task touches with cuDLA.
            k = 0;
            while k < t.reads.len() + t.writes.len() {
                let b = if k < t.reads.len() {
                    t.reads[k]
                } else {
                    t.writes[k - t.reads.len()]
                };
                let desc = &s.buffers[b.0 as usize];
                check!(within(Limit::DlaAlign, desc.name, desc.kind.align()));
                k += 1;
            }
        }
        (Work::Pva(w), EngineKind::Pva) => {
            if w.program.0 as usize >= s.pva_programs.len() {
                return Err(TableError::PvaProgramOutOfRange {
                    task,
                    task_name,
                    program: PvaProgramId(w.program.0),
                });
            }
            check!(within(Limit::PvaParams, task_name, w.params.len() as u64));
            let specs = s.pva_programs[w.program.0 as usize].params;
            k = 0;
            while k < w.params.len() || k < specs.len() {
                if k >= w.params.len() || k >= specs.len() || !specs[k].kind.admits(w.params[k]) {
                    return Err(TableError::PvaParam {
                        task,
                        task_name,
                        index: k,
                    });
                }
                // The access the program declares must be in the task's lists, where the
                // race check sees it.
                if let (Param::Buffer(b), PvaParamKind::Pointer(access)) =
                    (w.params[k], specs[k].kind)
                {
                    let reads = !matches!(access, PvaAccess::Write);
                    let writes = !matches!(access, PvaAccess::Read);
                    check!(declared(s, i, b, !reads || lists(t.reads, b)));
                    check!(declared(s, i, b, !writes || lists(t.writes, b)));
                }
                k += 1;
            }
        }
        _ => {
            return Err(TableError::WrongEngineKind {
                task,
                task_name,
                engine: EngineId(t.engine.0),
                engine_name: engine.name,
                engine_kind: engine.kind,
            });
        }
    }
    if t.deadline_ns == 0 || t.deadline_ns > s.period_ns {
        return Err(TableError::Deadline {
            task,
            task_name,
            deadline_ns: t.deadline_ns,
        });
    }
    let accelerator = !matches!(engine.kind, EngineKind::Cpu);
    if t.release_ns >= t.deadline_ns || (accelerator && t.release_ns != 0) {
        return Err(TableError::Release {
            task,
            task_name,
            release_ns: t.release_ns,
        });
    }
    Ok(())
}

const fn health(s: &ScheduleTables) -> Result {
    let mut r = 0;
    while r < s.health.len() {
        let rule = &s.health[r];
        let in_range = match rule.scope {
            FaultScope::Task(t) => (t.0 as usize) < s.tasks.len(),
            FaultScope::Engine(e) => (e.0 as usize) < s.engines.len(),
            FaultScope::Any => true,
        };
        if !in_range {
            return Err(TableError::HealthScopeOutOfRange {
                rule: r,
                scope: rule.scope,
            });
        }
        if let Action::SwitchMode(mode) = rule.action
            && mode.0 as usize >= s.modes.len()
        {
            return Err(TableError::HealthModeOutOfRange { rule: r, mode });
        }
        r += 1;
    }
    Ok(())
}

const fn cpu_waits(s: &ScheduleTables) -> Result {
    let n = s.cpu_waits.len();
    if n != 0 && n != s.tasks.len() {
        return Err(TableError::CpuWaitOutOfRange { entry: n });
    }
    let mut k = 0;
    while k < n {
        if let CpuWait::Spin { from_ns, until_ns } = s.cpu_waits[k]
            && from_ns > until_ns
        {
            return Err(TableError::CpuWaitOutOfRange { entry: k });
        }
        k += 1;
    }
    Ok(())
}

/// Every `threads` entry names the executive or a CPU engine's worker, no thread twice, with
/// a priority the runtime may ask for.
const fn threads(s: &ScheduleTables) -> Result {
    let mut k = 0;
    while k < s.threads.len() {
        let t = s.threads[k];
        let known = match t.thread {
            Thread::Executive => true,
            Thread::Worker(e) => {
                (e.0 as usize) < s.engines.len()
                    && matches!(s.engines[e.0 as usize].kind, EngineKind::Cpu)
            }
        };
        let mut repeated = false;
        let mut j = 0;
        while j < k {
            repeated |= match (s.threads[j].thread, t.thread) {
                (Thread::Executive, Thread::Executive) => true,
                (Thread::Worker(a), Thread::Worker(b)) => a.0 == b.0,
                _ => false,
            };
            j += 1;
        }
        if !known || repeated || t.priority > MAX_FIFO_PRIORITY {
            return Err(TableError::ThreadOutOfRange { entry: k });
        }
        k += 1;
    }
    Ok(())
}

const fn timeline_entries(s: &ScheduleTables) -> Result {
    let mut k = 0;
    while k < s.timeline.len() {
        let e = &s.timeline[k];
        if e.task.0 as usize >= s.tasks.len() || e.mode.0 as usize >= s.modes.len() {
            return Err(TableError::TimelineOutOfRange {
                entry: k,
                task: e.task,
                mode: e.mode,
            });
        }
        k += 1;
    }
    Ok(())
}

/// The tasks that run in `mode`.
const fn mode_set(s: &ScheduleTables, mode: usize) -> u64 {
    let mut set = 0u64;
    let mut i = 0;
    while i < s.tasks.len() {
        if ModeMask::contains(s.tasks[i].modes, ModeId(mode as u8)) {
            set |= 1 << i;
        }
        i += 1;
    }
    set
}

const fn has(set: u64, i: usize) -> bool {
    set & (1 << i) != 0
}

/// The tasks of `set` before `i`.
const fn before(set: u64, i: usize) -> u64 {
    set & ((1u64 << i) - 1)
}

/// The tasks of `set` on task `i`'s engine.
const fn same_engine(s: &ScheduleTables, set: u64, i: usize) -> u64 {
    let engine = s.tasks[i].engine.0;
    let mut out = 0u64;
    let mut rest = set;
    while rest != 0 {
        let j = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if s.tasks[j].engine.0 == engine {
            out |= 1 << j;
        }
    }
    out
}

const fn first(set: u64) -> usize {
    if set == 0 {
        NONE
    } else {
        set.trailing_zeros() as usize
    }
}

const fn last(set: u64) -> usize {
    if set == 0 {
        NONE
    } else {
        63 - set.leading_zeros() as usize
    }
}

/// Most levels of [`Reach`]: one more than the largest multiplicity (checked before the
/// races: a multiplicity divides [`MAX_COPIES`]).
const LEVELS: usize = MAX_COPIES + 1;

/// The validator's lag distances as bit sets. `d(u, v)` is the smallest total lag of a chain
/// from `u` to `v` over FIFO order (consecutive tasks of an engine's queue: 0; its last task
/// to its first: 1) and waits (their lag) among the tasks of the mode: instance `f` of `u`
/// completes before instance `f + d(u, v)` of `v` starts. `levels[k][v]` is the set of tasks
/// `u` with `d(u, v) <= k` (and `v` itself).
struct Reach {
    levels: [[u64; MAX_TASKS]; LEVELS],
    /// The highest level computed; the levels above it equal it.
    top: usize,
}

impl Reach {
    /// The tasks `u` with `d(u, v) <= k`.
    const fn within(&self, k: usize, v: usize) -> u64 {
        self.levels[if k < self.top { k } else { self.top }][v]
    }
}

/// Level `k` in table order: a chain into `v` ends with an edge `a -> v` of lag `l`, and then
/// `d(u, a) <= k - l`. Zero-lag edges point forward in the table (same-frame waits point to
/// earlier tasks, FIFO order is table order), so `levels[k][a]` is already known for them.
/// Stops at `max_level`, or earlier once enough consecutive levels are equal that every later
/// one must be too.
const fn reach(
    s: &ScheduleTables,
    set: u64,
    fifo_prev: &[usize; MAX_TASKS],
    max_level: usize,
) -> Reach {
    let mut levels = [[0u64; MAX_TASKS]; LEVELS];
    // The largest lag of an edge (the FIFO wrap-around has lag 1).
    let mut max_lag = 1;
    let mut rest = set;
    while rest != 0 {
        let v = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let waits = s.tasks[v].waits;
        let mut k = 0;
        while k < waits.len() {
            if has(set, waits[k].task.0 as usize) && waits[k].lag as usize > max_lag {
                max_lag = waits[k].lag as usize;
            }
            k += 1;
        }
    }
    let mut equal_run = 0;
    let mut k = 0;
    loop {
        let mut rest = set;
        while rest != 0 {
            let v = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut from = 1u64 << v;
            let waits = s.tasks[v].waits;
            let mut w = 0;
            while w < waits.len() {
                let (a, lag) = (waits[w].task.0 as usize, waits[w].lag as usize);
                if has(set, a) && lag <= k {
                    from |= levels[k - lag][a];
                }
                w += 1;
            }
            let p = fifo_prev[v];
            if p < v {
                from |= levels[k][p];
            } else if k >= 1 {
                from |= levels[k - 1][p];
            }
            levels[k][v] = from;
        }
        if k == max_level {
            break;
        }
        if k > 0 && same_level(&levels[k], &levels[k - 1], set) {
            equal_run += 1;
        } else {
            equal_run = 0;
        }
        // Level k + 1 reads levels k + 1 - max_lag ..= k; once those and level k's inputs are
        // all equal, so is every later level.
        if equal_run >= max_lag {
            break;
        }
        k += 1;
    }
    Reach { levels, top: k }
}

const fn same_level(a: &[u64; MAX_TASKS], b: &[u64; MAX_TASKS], set: u64) -> bool {
    let mut rest = set;
    while rest != 0 {
        let v = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if a[v] != b[v] {
            return false;
        }
    }
    true
}

/// Per task: its predecessor on its engine in the mode, or, for the first task of a queue,
/// the queue's last task (which precedes it from the previous frame). A task of `alone` is
/// its own queue: its predecessor is its own run of the previous frame (for CPU tasks when
/// accelerator accesses are ordered: a worker's signals keep each task's frame order, not
/// the worker's task order).
const fn fifo_predecessors(s: &ScheduleTables, set: u64, alone: u64) -> [usize; MAX_TASKS] {
    let mut fifo_prev = [NONE; MAX_TASKS];
    let mut rest = set;
    while rest != 0 {
        let t = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let queue = if has(alone, t) {
            1 << t
        } else {
            same_engine(s, set, t)
        };
        let earlier = before(queue, t);
        fifo_prev[t] = if earlier != 0 {
            last(earlier)
        } else {
            last(queue)
        };
    }
    fifo_prev
}

/// The largest multiplicity of a buffer that two tasks of `set` touch, one writing it: the
/// highest level of [`Reach`] the race check reads.
const fn max_contended_multiplicity(s: &ScheduleTables, set: u64, users: &Users) -> usize {
    let mut max = 0;
    let mut b = 0;
    while b < s.buffers.len() {
        let (touch, write) = (users.touch[b] & set, users.write[b] & set);
        let m = s.buffers[b].multiplicity as usize;
        if write != 0 && touch.count_ones() >= 2 && m > max {
            max = m;
        }
        b += 1;
    }
    max
}

/// Per buffer, the tasks touching it and the tasks writing it (all modes).
struct Users {
    touch: [u64; MAX_BUFFERS],
    write: [u64; MAX_BUFFERS],
}

const fn users(s: &ScheduleTables) -> Users {
    let mut u = Users {
        touch: [0; MAX_BUFFERS],
        write: [0; MAX_BUFFERS],
    };
    let mut t = 0;
    while t < s.tasks.len() {
        let task = &s.tasks[t];
        let mut k = 0;
        while k < task.reads.len() {
            u.touch[task.reads[k].0 as usize] |= 1 << t;
            k += 1;
        }
        k = 0;
        while k < task.writes.len() {
            u.touch[task.writes[k].0 as usize] |= 1 << t;
            u.write[task.writes[k].0 as usize] |= 1 << t;
            k += 1;
        }
        t += 1;
    }
    u
}

/// The tasks of the mode that conflict with `y` on a buffer: any user if `y` writes it, the
/// writers otherwise.
const fn partners(touch: u64, write: u64, y: usize) -> u64 {
    (if has(write, y) { touch } else { write }) & !(1 << y)
}

/// The validator's `races` for one mode: two tasks touching a buffer, one writing it, race
/// within a frame unless `d(x, y) = 0` or `d(y, x) = 0`, and across frames when `d(x, y)`
/// exceeds the multiplicity `m` (frame `f + m` reuses frame `f`'s copy). A pair unordered
/// within a frame is reported as such, not as a race across frames.
/// The tasks on CPU engines.
const fn cpu_tasks(s: &ScheduleTables) -> u64 {
    let mut out = 0u64;
    let mut t = 0;
    while t < s.tasks.len() && t < MAX_TASKS {
        if matches!(
            s.engines[s.tasks[t].engine.0 as usize].kind,
            EngineKind::Cpu
        ) {
            out |= 1 << t;
        }
        t += 1;
    }
    out
}

/// The chains that order a task's access: every chain for a CPU task, chains without a
/// worker's order in them for an accelerator task.
struct Reaches {
    all: Reach,
    accelerators: Reach,
    /// The CPU tasks.
    cpu: u64,
}

impl Reaches {
    /// The tasks `u` with `d(u, v) <= k` over the chains that order `v`'s access.
    const fn within(&self, k: usize, v: usize) -> u64 {
        if has(self.cpu, v) {
            self.all.within(k, v)
        } else {
            self.accelerators.within(k, v)
        }
    }
}

const fn races(
    s: &ScheduleTables,
    mode: usize,
    set: u64,
    reach: &Reaches,
    users: &Users,
) -> Result {
    let mode_id = ModeId(mode as u8);
    let mode_name = s.modes[mode].name;
    let mut b = 0;
    while b < s.buffers.len() {
        let (touch, write) = (users.touch[b] & set, users.write[b] & set);
        let mut ys = if write == 0 { 0 } else { touch };
        while ys != 0 {
            let y = ys.trailing_zeros() as usize;
            ys &= ys - 1;
            // Zero-lag chains point forward, so only an earlier `x` can precede `y`.
            let unordered = before(partners(touch, write, y), y) & !reach.within(0, y);
            if unordered != 0 {
                let x = first(unordered);
                let (first, second) = if has(write, x) { (x, y) } else { (y, x) };
                return Err(TableError::RaceWithinFrame {
                    buffer: BufferId(b as u16),
                    buffer_name: s.buffers[b].name,
                    mode: mode_id,
                    mode_name,
                    first: TaskId(first as u16),
                    first_name: s.tasks[first].name,
                    second: TaskId(second as u16),
                    second_name: s.tasks[second].name,
                });
            }
        }
        b += 1;
    }
    b = 0;
    while b < s.buffers.len() {
        let (touch, write) = (users.touch[b] & set, users.write[b] & set);
        let m = s.buffers[b].multiplicity;
        let mut ys = if write == 0 { 0 } else { touch };
        while ys != 0 {
            let y = ys.trailing_zeros() as usize;
            ys &= ys - 1;
            let late = partners(touch, write, y) & !reach.within(m as usize, y);
            if late != 0 {
                let x = first(late);
                return Err(TableError::RaceAcrossFrames {
                    buffer: BufferId(b as u16),
                    buffer_name: s.buffers[b].name,
                    mode: mode_id,
                    mode_name,
                    first: TaskId(x as u16),
                    first_name: s.tasks[x].name,
                    second: TaskId(y as u16),
                    second_name: s.tasks[y].name,
                    distance: m,
                });
            }
        }
        b += 1;
    }
    Ok(())
}

const fn max(a: i128, b: i128) -> i128 {
    if a > b { a } else { b }
}

/// The validator's `timeline` for one mode: up to four passes towards the steady state (a
/// pass that overruns the period stops early), then every task's finish against its deadline
/// and the period.
const fn timeline(
    s: &ScheduleTables,
    mode: usize,
    set: u64,
    fifo_prev: &[usize; MAX_TASKS],
) -> Result {
    let period = s.period_ns as i128;
    let mut prev_finish = [0i128; MAX_TASKS];
    let mut pass = 0;
    while pass < 4 {
        let mut finish = [0i128; MAX_TASKS];
        let mut rest = set;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let task = &s.tasks[t];
            let mut start = match s.engines[task.engine.0 as usize].kind {
                EngineKind::Cpu => task.release_ns as i128,
                _ => 0,
            };
            let mut k = 0;
            while k < task.waits.len() {
                let w = task.waits[k];
                let u = w.task.0 as usize;
                if has(set, u) {
                    if w.lag == 0 {
                        start = max(start, finish[u]);
                    } else if pass > 0 {
                        start = max(start, prev_finish[u] - w.lag as i128 * period);
                    }
                }
                k += 1;
            }
            let p = fifo_prev[t];
            if p < t {
                start = max(start, finish[p]);
            } else if pass > 0 {
                start = max(start, prev_finish[p] - period);
            }
            finish[t] = start + task.wcet_ns as i128;
        }
        let mut stable = pass > 0;
        let mut overrun = false;
        let mut rest = set;
        while rest != 0 {
            let t = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            stable &= prev_finish[t] == finish[t];
            overrun |= finish[t] > period;
        }
        prev_finish = finish;
        pass += 1;
        if stable || overrun {
            break;
        }
    }
    // The last pass is judged, steady or not.
    let mut rest = set;
    while rest != 0 {
        let t = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let task = &s.tasks[t];
        let finish = prev_finish[t];
        if finish > task.deadline_ns as i128 || finish > period {
            return Err(TableError::DeadlineMiss {
                task: TaskId(t as u16),
                task_name: task.name,
                mode: ModeId(mode as u8),
                mode_name: s.modes[mode].name,
                finish_ns: if finish > u64::MAX as i128 {
                    u64::MAX
                } else {
                    finish as u64
                },
                deadline_ns: task.deadline_ns,
            });
        }
    }
    Ok(())
}
