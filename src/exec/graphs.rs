//! Graph submission (schedule `submit = "graph"` on a GPU engine).
//!
//! At init, after the warm-up, each graph-mode stream gets one CUDA graph holding its work of
//! one frame in schedule order: per task, the semaphore waits the stream path enqueues in the
//! steady state (a dependency the stream itself orders gets none, as on the stream path), the
//! timer stamps when they are on, the kernel launch and the signal. Per frame, when the
//! frame's operations are exactly those (every task planned and not skipped, the same waits),
//! the executive sets the frame's values (wait and signal values and fences, stamp slots,
//! the parameter copy) and launches the graph once; any other frame goes the stream path, in
//! the same FIFO, so both give the same fences and outputs.

use crate::engine::gpu::ParamBlock;
use crate::engine::graph::{GpuGraph, GraphBuilder, KernelOp, NodeId, SemOp};
use crate::engine::nvsci::RawFence;
use crate::error::{Context, Error, Phase, Result, ScheduleFault, Table};
use crate::exec::state::{Stamps, State, Submit, TaskRt};
use crate::limits::{FENCE_HISTORY, MAX_COPIES, MAX_WAITS};
use crate::table::{Schedule, TaskId};

/// Tasks one graph-mode stream holds at most (each has at least two nodes, so the node
/// table fills first).
pub(crate) const MAX_GRAPH_TASKS: usize = crate::engine::graph::MAX_GRAPH_NODES / 2;

/// One frame's dependencies of a task with the fence values to wait for.
pub(crate) type Waits = heapless::Vec<(TaskId, u64), MAX_WAITS>;

/// A task's nodes in its stream's graph.
pub(crate) struct GraphTask {
    /// The task.
    pub id: TaskId,
    /// The dependencies it waits for on their semaphores, in table order, with their nodes.
    waits: heapless::Vec<(TaskId, NodeId), MAX_WAITS>,
    /// Start and end timer stamps (when on).
    stamps: Option<[NodeId; 2]>,
    kernel: NodeId,
    signal: NodeId,
}

impl GraphTask {
    /// Whether a frame's waits are the graph's (same dependencies, same order).
    pub(crate) fn waits_match(&self, waits: &[(TaskId, u64)]) -> bool {
        waits.len() == self.waits.len()
            && waits
                .iter()
                .zip(self.waits.iter())
                .all(|((a, _), (b, _))| a == b)
    }
}

/// A graph-mode stream's executable graph and its tasks in schedule order.
pub(crate) struct StreamGraph {
    graph: GpuGraph,
    tasks: heapless::Vec<GraphTask, MAX_GRAPH_TASKS>,
    /// The last frame launched as a graph and whether its launch succeeded.
    launched: Option<(u64, bool)>,
}

impl StreamGraph {
    /// Its tasks, in schedule order.
    pub(crate) fn tasks(&self) -> &[GraphTask] {
        &self.tasks
    }

    /// Driver operations one launch performs (its nodes).
    pub(crate) fn ops(&self) -> u64 {
        self.graph.len() as u64
    }

    /// Whether frame `f` went out as this graph (`Some(true)`), failed to (`Some(false)`), or
    /// took the stream path (`None`).
    pub(crate) fn outcome(&self, f: u64) -> Option<bool> {
        self.launched.filter(|(lf, _)| *lf == f).map(|(_, ok)| ok)
    }

    /// Record frame `f`'s launch.
    pub(crate) fn launched(&mut self, f: u64, ok: bool) {
        self.launched = Some((f, ok));
    }

    /// Destroy the executable graph (the stream is idle).
    pub(crate) fn destroy(self) -> Result<()> {
        self.graph.destroy()
    }
}

/// Whether `dep` precedes `task` on the same stream in issue order (an earlier frame, or
/// earlier in schedule order): then the stream orders them and the task waits for no
/// semaphore, as long as `dep`'s enqueue succeeded (the executive checks that per frame).
pub(crate) fn stream_orders(tasks: &[TaskRt], task: TaskId, dep: TaskId, lag: u8) -> bool {
    let (Some(t), Some(d)) = (tasks.get(task.0 as usize), tasks.get(dep.0 as usize)) else {
        return false;
    };
    let same_stream = matches!(
        (&t.submit, &d.submit),
        (Submit::Gpu { stream: a, .. }, Submit::Gpu { stream: b, .. }) if a == b
    );
    same_stream && (lag > 0 || dep.0 < task.0)
}

/// The parameter block of timer stamp `which` (0 start, 1 end) of stamp slot `stamp` in
/// history entry `h`, as the stream path builds it.
pub(crate) fn stamp_block(
    stamps: &Stamps,
    stamp: usize,
    h: usize,
    which: usize,
) -> Result<ParamBlock> {
    let slot = (stamp * FENCE_HISTORY + h) * 2 + which;
    ParamBlock::builder(stamps.kernel.function())
        .memory_at(&stamps.memory, 8 * slot as u64)?
        .finish()
}

/// Add timer stamp `which` of slot `stamp` when stamps are on.
fn stamp_node(
    b: &mut GraphBuilder,
    stamps: Option<&Stamps>,
    stamp: usize,
    which: usize,
) -> Result<Option<NodeId>> {
    let Some(stamps) = stamps else {
        return Ok(None);
    };
    let p = stamp_block(stamps, stamp, 0, which)?;
    b.kernel(&KernelOp {
        function: stamps.kernel.function(),
        grid: [1; 3],
        block: [1; 3],
        shared: 0,
        params: &p,
    })
    .map(Some)
}

/// Build the graph of every graph-mode stream (init, after the warm-up: the modules are
/// loaded and every semaphore's fences can be built). A failure names the engine and the
/// driver call (a platform without graphs fails here).
pub(crate) fn build(st: &mut State, s: &Schedule) -> Result<()> {
    let State {
        tasks,
        sems,
        gpu_sems,
        streams,
        stamps,
        gpu,
        ..
    } = st;
    for (k, entry) in streams.iter_mut().enumerate() {
        let engine = &s.engines[entry.engine.0 as usize];
        if !engine.graph {
            continue;
        }
        let gpu = gpu.as_ref().ok_or(Error::Phase(Phase::GpuNotOpen))?;
        let mut b = GraphBuilder::new(gpu, engine.name)?;
        let mut list: heapless::Vec<GraphTask, MAX_GRAPH_TASKS> = heapless::Vec::new();
        for i in 0..tasks.len() {
            let id = TaskId(i as u16);
            let Submit::Gpu {
                stream,
                function,
                grid,
                block,
                shared,
                params,
                stamp,
            } = &tasks[i].submit
            else {
                continue;
            };
            if *stream != k {
                continue;
            }
            let context = Context::Task(s.task(id).name);
            // Placeholders until the first frame sets them: value 1 (every semaphore reached
            // it at the warm-up) and scratch fence storage.
            let mut scratch = RawFence::cleared();
            let mut waits = heapless::Vec::new();
            for w in s.task(id).waits {
                if stream_orders(tasks, id, w.task, w.lag) {
                    continue;
                }
                let gsem = gpu_sems[w.task.0 as usize]
                    .as_ref()
                    .ok_or(Error::BadSchedule {
                        fault: ScheduleFault::DependencyNotOnGpu,
                        context,
                    })?;
                sems[w.task.0 as usize].fence_at(1, &mut scratch, context)?;
                let node = b.wait(SemOp {
                    sem: gsem,
                    value: 1,
                    fence: &mut scratch,
                })?;
                waits.push((w.task, node)).map_err(|_| Error::Capacity {
                    table: Table::WaitsPerTask,
                    limit: MAX_WAITS as u32,
                })?;
            }
            let start = stamp_node(&mut b, stamps.as_ref(), *stamp, 0)?;
            let kernel = b.kernel(&KernelOp {
                function,
                grid: *grid,
                block: *block,
                shared: *shared,
                params: &params[0],
            })?;
            let end = stamp_node(&mut b, stamps.as_ref(), *stamp, 1)?;
            let gsem = gpu_sems[i]
                .as_ref()
                .ok_or(Error::Phase(Phase::GpuSemaphoreMissing))?;
            let mut eof = RawFence::cleared();
            let signal = b.signal(SemOp {
                sem: gsem,
                value: 1,
                fence: &mut eof,
            })?;
            list.push(GraphTask {
                id,
                waits,
                stamps: start.zip(end).map(|(a, b)| [a, b]),
                kernel,
                signal,
            })
            .map_err(|_| Error::Capacity {
                table: Table::GraphNodes,
                limit: MAX_GRAPH_TASKS as u32,
            })?;
        }
        entry.graph = Some(StreamGraph {
            graph: b.instantiate()?,
            tasks: list,
            launched: None,
        });
    }
    Ok(())
}

/// Set frame `f`'s values on stream `k`'s graph and launch it: `frame` holds, per graph
/// task in order, its fence value and its waits (checked by the caller to be the graph's).
/// Never allocates.
pub(crate) fn launch(
    st: &mut State,
    s: &Schedule,
    k: usize,
    f: u64,
    frame: &[(u64, Waits)],
) -> Result<()> {
    let State {
        tasks,
        sems,
        gpu_sems,
        streams,
        stamps,
        ..
    } = st;
    let entry = &mut streams[k];
    let g = entry.graph.as_mut().ok_or(Error::Phase(Phase::NoGraph))?;
    let copy = (f % MAX_COPIES as u64) as usize;
    let h = (f % FENCE_HISTORY as u64) as usize;
    for (t, (value, waits)) in g.tasks.iter().zip(frame) {
        let context = Context::Task(s.task(t.id).name);
        let TaskRt {
            submit,
            waits: fences,
            eof,
            ..
        } = &mut tasks[t.id.0 as usize];
        let Submit::Gpu {
            function,
            grid,
            block,
            shared,
            params,
            stamp,
            ..
        } = submit
        else {
            return Err(Error::Phase(Phase::NoGraph));
        };
        for (((dep, v), (_, node)), fence) in
            waits.iter().zip(t.waits.iter()).zip(fences.iter_mut())
        {
            sems[dep.0 as usize].fence_at(*v, fence, context)?;
            let gsem = gpu_sems[dep.0 as usize]
                .as_ref()
                .ok_or(Error::BadSchedule {
                    fault: ScheduleFault::DependencyNotOnGpu,
                    context,
                })?;
            g.graph.set_wait(
                *node,
                SemOp {
                    sem: gsem,
                    value: *v,
                    fence,
                },
            )?;
        }
        if let (Some(nodes), Some(stamps)) = (t.stamps, stamps.as_ref()) {
            for (which, node) in nodes.into_iter().enumerate() {
                let p = stamp_block(stamps, *stamp, h, which)?;
                g.graph.set_kernel(
                    node,
                    &KernelOp {
                        function: stamps.kernel.function(),
                        grid: [1; 3],
                        block: [1; 3],
                        shared: 0,
                        params: &p,
                    },
                )?;
            }
        }
        g.graph.set_kernel(
            t.kernel,
            &KernelOp {
                function,
                grid: *grid,
                block: *block,
                shared: *shared,
                params: &params[copy],
            },
        )?;
        let gsem = gpu_sems[t.id.0 as usize]
            .as_ref()
            .ok_or(Error::Phase(Phase::GpuSemaphoreMissing))?;
        g.graph.set_signal(
            t.signal,
            SemOp {
                sem: gsem,
                value: *value,
                fence: &mut eof[h],
            },
        )?;
    }
    g.graph.launch(&entry.stream)
}
