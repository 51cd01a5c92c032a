//! CUDA graphs for a stream's per-frame work (schedule `submit = "graph"`).
//!
//! A [`GraphBuilder`] adds the operations the stream path would enqueue (semaphore waits,
//! kernel launches, semaphore signals) as a linear chain of nodes, each after the previous
//! one, and instantiates the chain into a [`GpuGraph`]. Each frame, the executive sets the
//! values that change with the frame on the executable graph (`cuGraphExec*SetParams`: they
//! take effect for launches after the call, never for one already enqueued) and launches it
//! with one `cuGraphLaunch`. Counter semaphores (`rig`) become batch memory-operation nodes
//! (64-bit wait / write value); imported NvSciSync semaphores become external-semaphore nodes.
//!
//! Node handles are kept in a fixed-capacity table: nothing allocates after the build (the
//! driver's own memory is its business, as on the stream path).
//!
//! Only the crate uses graphs: a node names a semaphore by its driver handle, so a graph must
//! be destroyed before the semaphores it names are released (the executive's release order).

use core::ffi::c_void;
use core::ptr;

use cuda_sys as cu;

use crate::engine::gpu::{
    Function, Gpu, GpuSemaphore, ParamBlock, SemaphoreKind, Stream, check, zeroed_signal_params,
    zeroed_wait_params,
};
use crate::engine::keep::Hold;
use crate::engine::nvsci::RawFence;
use crate::error::{Context, Error, Misuse, Result, Table};
use crate::limits::MAX_PARAMS;

/// Nodes one graph holds at most (a stream's tasks of one frame: waits, stamps, launch,
/// signal each); the validator and `Schedule::check` count them (`Limit::GraphNodes`).
pub use crate::limits::MAX_GRAPH_NODES;

/// A node of one graph: an index into its table (meaningless in another graph, where the
/// kind check refuses it or it names a node of the same kind, never a driver object of a
/// dead graph).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NodeId(u16);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Kernel,
    Wait,
    Signal,
}

#[derive(Debug)]
struct Node {
    raw: cu::CUgraphNode,
    op: Op,
    /// Kernel nodes: the function (kept loaded) and the block last set (keeps the memory it
    /// points at allocated; its values are compared to skip unchanged updates).
    kernel: Option<(Function, ParamBlock)>,
}

/// Builds one linear chain of nodes (each node depends on the one before).
#[derive(Debug)]
pub(crate) struct GraphBuilder {
    /// NULL once instantiated (then the executable graph owns what it needs).
    graph: cu::CUgraph,
    nodes: heapless::Vec<Node, MAX_GRAPH_NODES>,
    engine: &'static str,
    ctx: cu::CUcontext,
    gpu: Hold,
}

/// How a semaphore node is set: the semaphore, the value (counters: waited for or written;
/// NvSciSync: the fence carries it) and the fence storage (NvSciSync: the wait fence to read
/// or the signal fence the driver writes; it must stay valid until the next launch).
pub(crate) struct SemOp<'a> {
    /// The semaphore.
    pub sem: &'a GpuSemaphore,
    /// Counter value.
    pub value: u64,
    /// NvSciSync fence storage.
    pub fence: &'a mut RawFence,
}

/// One kernel launch's shape and parameters.
pub(crate) struct KernelOp<'a> {
    /// The kernel.
    pub function: &'a Function,
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Dynamic shared memory, bytes.
    pub shared: u32,
    /// Parameters (checked against the kernel's list).
    pub params: &'a ParamBlock,
}

/// The driver's view of a kernel launch, pointing at `slots` (which must outlive the call
/// that reads it).
fn kernel_params(
    op: &KernelOp<'_>,
    slots: &mut [u64; MAX_PARAMS],
    ptrs: &mut [*mut c_void; MAX_PARAMS],
    ctx: cu::CUcontext,
) -> cu::CUDA_KERNEL_NODE_PARAMS {
    for (p, slot) in ptrs.iter_mut().zip(slots.iter_mut()) {
        *p = (slot as *mut u64).cast();
    }
    cu::CUDA_KERNEL_NODE_PARAMS {
        func: op.function.raw(),
        gridDimX: op.grid[0],
        gridDimY: op.grid[1],
        gridDimZ: op.grid[2],
        blockDimX: op.block[0],
        blockDimY: op.block[1],
        blockDimZ: op.block[2],
        sharedMemBytes: op.shared,
        kernelParams: if op.function.param_count() == 0 {
            ptr::null_mut()
        } else {
            ptrs.as_mut_ptr()
        },
        extra: ptr::null_mut(),
        kern: ptr::null_mut(),
        ctx,
    }
}

/// One 64-bit wait (GEQ) or write on a mapped counter.
fn mem_op(wait: bool, device_addr: u64, value: u64) -> cu::CUstreamBatchMemOpParams {
    let mut p = cu::CUstreamBatchMemOpParams { pad: [0; 6] };
    if wait {
        p.waitValue = cu::CUstreamMemOpWaitValueParams_st {
            operation: cu::CU_STREAM_MEM_OP_WAIT_VALUE_64,
            address: device_addr,
            value: cu::CUstreamMemOpValue { value64: value },
            flags: cu::CU_STREAM_WAIT_VALUE_GEQ.0,
            alias: 0,
        };
    } else {
        // The default flag orders the earlier nodes' writes (the task's outputs) before it,
        // as `cuStreamWriteValue64` does on the stream path.
        p.writeValue = cu::CUstreamMemOpWriteValueParams_st {
            operation: cu::CU_STREAM_MEM_OP_WRITE_VALUE_64,
            address: device_addr,
            value: cu::CUstreamMemOpValue { value64: value },
            flags: cu::CU_STREAM_WRITE_VALUE_DEFAULT.0,
            alias: 0,
        };
    }
    p
}

impl GraphBuilder {
    /// An empty graph in `gpu`'s context (current on this thread), for engine `engine`.
    pub(crate) fn new(gpu: &Gpu, engine: &'static str) -> Result<Self> {
        let mut graph = ptr::null_mut();
        // SAFETY: valid out-pointer; flags must be 0.
        let status = unsafe { cu::cuGraphCreate(&mut graph, 0) };
        check("cuGraphCreate", status, Context::Engine(engine))?;
        Ok(GraphBuilder {
            graph,
            nodes: heapless::Vec::new(),
            engine,
            ctx: gpu.raw_context(),
            gpu: gpu.hold(),
        })
    }

    fn context(&self) -> Context {
        Context::Engine(self.engine)
    }

    /// Add a node after the last one with `add(out, graph, deps, n)`.
    fn add(
        &mut self,
        call: &'static str,
        op: Op,
        kernel: Option<(Function, ParamBlock)>,
        add: impl FnOnce(
            *mut cu::CUgraphNode,
            cu::CUgraph,
            *const cu::CUgraphNode,
            usize,
        ) -> cu::CUresult,
    ) -> Result<NodeId> {
        let context = self.context();
        if self.nodes.is_full() {
            return Err(Error::Capacity {
                table: Table::GraphNodes,
                limit: MAX_GRAPH_NODES as u32,
            });
        }
        let last = self.nodes.last().map(|n| n.raw);
        let (deps, n) = match &last {
            Some(raw) => (raw as *const cu::CUgraphNode, 1),
            None => (ptr::null(), 0),
        };
        let mut raw = ptr::null_mut();
        check(call, add(&mut raw, self.graph, deps, n), context)?;
        let id = NodeId(self.nodes.len() as u16);
        // Capacity checked above.
        let _ = self.nodes.push(Node { raw, op, kernel });
        Ok(id)
    }

    /// Add a kernel launch.
    pub(crate) fn kernel(&mut self, op: &KernelOp<'_>) -> Result<NodeId> {
        let context = self.context();
        let mut slots = *op.params.values_for(op.function, context)?;
        let mut ptrs = [ptr::null_mut(); MAX_PARAMS];
        let ctx = self.ctx;
        let params = kernel_params(op, &mut slots, &mut ptrs, ctx);
        let kept = Some((op.function.clone(), op.params.clone()));
        self.add(
            "cuGraphAddKernelNode",
            Op::Kernel,
            kept,
            |out, g, deps, n| {
                // SAFETY: live graph, dependencies from this graph, valid out-pointer; `params`
                // points at `slots`, which outlive the call (the driver copies the values); the
                // block fits the kernel (checked) and keeps its memory allocated in the node.
                unsafe { cu::cuGraphAddKernelNode_v2(out, g, deps, n, &params) }
            },
        )
    }

    /// Add a wait for `op.sem` to reach `op.value`.
    pub(crate) fn wait(&mut self, op: SemOp<'_>) -> Result<NodeId> {
        self.sem_node(Op::Wait, op)
    }

    /// Add a signal of `op.sem` (counters: to `op.value`).
    pub(crate) fn signal(&mut self, op: SemOp<'_>) -> Result<NodeId> {
        self.sem_node(Op::Signal, op)
    }

    /// A semaphore node (`kind`: wait or signal): a batch memory operation on a counter, an
    /// external-semaphore node on an imported NvSciSync semaphore.
    fn sem_node(&mut self, kind: Op, op: SemOp<'_>) -> Result<NodeId> {
        match op.sem.kind() {
            SemaphoreKind::Counter { device_addr, .. } => {
                let mut entry = mem_op(kind == Op::Wait, *device_addr, op.value);
                let params = cu::CUDA_BATCH_MEM_OP_NODE_PARAMS {
                    ctx: self.ctx,
                    count: 1,
                    paramArray: &mut entry,
                    flags: 0,
                };
                self.add("cuGraphAddBatchMemOpNode", kind, None, |out, g, deps, n| {
                    // SAFETY: live graph and dependencies; `entry` outlives the call (the
                    // driver copies it); a mapped counter kept registered by the semaphore.
                    unsafe { cu::cuGraphAddBatchMemOpNode(out, g, deps, n, &params) }
                })
            }
            SemaphoreKind::External(raw) => {
                let mut sems = [*raw];
                if kind == Op::Wait {
                    let mut wait = zeroed_wait_params();
                    wait.params.nvSciSync.fence = op.fence.as_mut_ptr();
                    let params = cu::CUDA_EXT_SEM_WAIT_NODE_PARAMS {
                        extSemArray: sems.as_mut_ptr(),
                        paramsArray: &wait,
                        numExtSems: 1,
                    };
                    self.add(
                        "cuGraphAddExternalSemaphoresWaitNode",
                        kind,
                        None,
                        |out, g, deps, n| {
                            // SAFETY: live graph and dependencies; the arrays and the fence
                            // outlive the call; a live semaphore import.
                            unsafe {
                                cu::cuGraphAddExternalSemaphoresWaitNode(out, g, deps, n, &params)
                            }
                        },
                    )
                } else {
                    let mut signal = zeroed_signal_params();
                    signal.params.nvSciSync.fence = op.fence.as_mut_ptr();
                    let params = cu::CUDA_EXT_SEM_SIGNAL_NODE_PARAMS {
                        extSemArray: sems.as_mut_ptr(),
                        paramsArray: &signal,
                        numExtSems: 1,
                    };
                    self.add(
                        "cuGraphAddExternalSemaphoresSignalNode",
                        kind,
                        None,
                        |out, g, deps, n| {
                            // SAFETY: as for the wait; the fence storage is set again before
                            // every launch.
                            unsafe {
                                cu::cuGraphAddExternalSemaphoresSignalNode(out, g, deps, n, &params)
                            }
                        },
                    )
                }
            }
        }
    }

    /// Instantiate the chain. The graph is kept with the executable graph: the driver names
    /// an executable graph's nodes for `cuGraphExec*SetParams` by the nodes of the graph it
    /// was instantiated from, which must still exist (the real driver answers
    /// `CUDA_ERROR_INVALID_VALUE` once that graph is destroyed: measured on an H200).
    pub(crate) fn instantiate(mut self) -> Result<GpuGraph> {
        let context = self.context();
        let mut exec = ptr::null_mut();
        // SAFETY: a live graph, valid out-pointer, no flags.
        let status = unsafe { cu::cuGraphInstantiateWithFlags(&mut exec, self.graph, 0) };
        // On failure the builder's Drop frees the graph.
        check("cuGraphInstantiate", status, context)?;
        Ok(GpuGraph {
            exec,
            graph: core::mem::replace(&mut self.graph, ptr::null_mut()),
            nodes: core::mem::take(&mut self.nodes),
            engine: self.engine,
            ctx: self.ctx,
            _gpu: self.gpu.clone(),
        })
    }
}

impl Drop for GraphBuilder {
    /// A builder dropped before `instantiate` (a failed build) frees its graph; errors are
    /// ignored (nothing can be done about them here, and Drop must not panic).
    fn drop(&mut self) {
        if !self.graph.is_null() {
            // SAFETY: created in `new`, not destroyed yet (`instantiate` clears it).
            let _ = unsafe { cu::cuGraphDestroy(self.graph) };
        }
    }
}

/// An instantiated chain: set the frame's values, then launch.
#[derive(Debug)]
pub(crate) struct GpuGraph {
    exec: cu::CUgraphExec,
    /// The graph `exec` was instantiated from: its nodes name `exec`'s nodes.
    graph: cu::CUgraph,
    nodes: heapless::Vec<Node, MAX_GRAPH_NODES>,
    engine: &'static str,
    ctx: cu::CUcontext,
    _gpu: Hold,
}

// SAFETY: executable graph handles are usable from any thread with the context current; the
// executive alone sets and launches them.
unsafe impl Send for GpuGraph {}
// SAFETY: no &self method calls the driver (setting and launching take &mut self).
unsafe impl Sync for GpuGraph {}

impl GpuGraph {
    fn node(&self, id: NodeId, op: Op) -> Result<cu::CUgraphNode> {
        match self.nodes.get(id.0 as usize) {
            Some(n) if n.op == op => Ok(n.raw),
            _ => Err(Error::Misuse {
                misuse: Misuse::GraphNodeMismatch,
                context: Context::Engine(self.engine),
            }),
        }
    }

    /// Nodes in the chain (the driver operations one launch performs).
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Set kernel node `id` to `op` for later launches; the call is left out when the values
    /// are those already set (the function and shape never change: a graph is built per
    /// stream, node per launch).
    pub(crate) fn set_kernel(&mut self, id: NodeId, op: &KernelOp<'_>) -> Result<()> {
        let raw = self.node(id, Op::Kernel)?;
        let context = Context::Engine(self.engine);
        let mut slots = *op.params.values_for(op.function, context)?;
        let kept = &mut self.nodes[id.0 as usize].kernel;
        if let Some((_, last)) = kept.as_ref()
            && last.values_for(op.function, context).ok() == Some(&slots)
        {
            return Ok(());
        }
        let mut ptrs = [ptr::null_mut(); MAX_PARAMS];
        let params = kernel_params(op, &mut slots, &mut ptrs, self.ctx);
        // SAFETY: a live executable graph and one of its kernel nodes (kind checked); the
        // values outlive the call (copied); the block fits the kernel (checked) and is kept
        // with the node, so the memory it points at stays allocated.
        let status = unsafe { cu::cuGraphExecKernelNodeSetParams_v2(self.exec, raw, &params) };
        check("cuGraphExecKernelNodeSetParams", status, context)?;
        *kept = Some((op.function.clone(), op.params.clone()));
        Ok(())
    }

    /// Set wait node `id` to `op` for later launches.
    pub(crate) fn set_wait(&mut self, id: NodeId, op: SemOp<'_>) -> Result<()> {
        self.set_sem(id, Op::Wait, op)
    }

    /// Set signal node `id` to `op` for later launches.
    pub(crate) fn set_signal(&mut self, id: NodeId, op: SemOp<'_>) -> Result<()> {
        self.set_sem(id, Op::Signal, op)
    }

    fn set_sem(&mut self, id: NodeId, kind: Op, op: SemOp<'_>) -> Result<()> {
        let raw = self.node(id, kind)?;
        let context = Context::Engine(self.engine);
        match op.sem.kind() {
            SemaphoreKind::Counter { device_addr, .. } => {
                let mut entry = mem_op(kind == Op::Wait, *device_addr, op.value);
                let params = cu::CUDA_BATCH_MEM_OP_NODE_PARAMS {
                    ctx: self.ctx,
                    count: 1,
                    paramArray: &mut entry,
                    flags: 0,
                };
                // SAFETY: a live executable graph and one of its semaphore nodes (built with
                // the same semaphore kind: one operation, same kind); `entry` outlives the
                // call (copied); a mapped counter kept registered by the semaphore.
                let status =
                    unsafe { cu::cuGraphExecBatchMemOpNodeSetParams(self.exec, raw, &params) };
                check("cuGraphExecBatchMemOpNodeSetParams", status, context)
            }
            SemaphoreKind::External(sem) => {
                let mut sems = [*sem];
                if kind == Op::Wait {
                    let mut wait = zeroed_wait_params();
                    wait.params.nvSciSync.fence = op.fence.as_mut_ptr();
                    let params = cu::CUDA_EXT_SEM_WAIT_NODE_PARAMS {
                        extSemArray: sems.as_mut_ptr(),
                        paramsArray: &wait,
                        numExtSems: 1,
                    };
                    // SAFETY: live executable graph and wait node; the arrays outlive the
                    // call; the fence storage stays valid until after the next launch (the
                    // caller's contract, `SemOp`); a live semaphore import.
                    let status = unsafe {
                        cu::cuGraphExecExternalSemaphoresWaitNodeSetParams(self.exec, raw, &params)
                    };
                    check(
                        "cuGraphExecExternalSemaphoresWaitNodeSetParams",
                        status,
                        context,
                    )
                } else {
                    let mut signal = zeroed_signal_params();
                    signal.params.nvSciSync.fence = op.fence.as_mut_ptr();
                    let params = cu::CUDA_EXT_SEM_SIGNAL_NODE_PARAMS {
                        extSemArray: sems.as_mut_ptr(),
                        paramsArray: &signal,
                        numExtSems: 1,
                    };
                    // SAFETY: as above, for the signal node.
                    let status = unsafe {
                        cu::cuGraphExecExternalSemaphoresSignalNodeSetParams(
                            self.exec, raw, &params,
                        )
                    };
                    check(
                        "cuGraphExecExternalSemaphoresSignalNodeSetParams",
                        status,
                        context,
                    )
                }
            }
        }
    }

    /// Enqueue the chain on `stream` (behind everything already queued there).
    pub(crate) fn launch(&mut self, stream: &Stream) -> Result<()> {
        // SAFETY: a live executable graph and stream of the same context.
        let status = unsafe { cu::cuGraphLaunch(self.exec, stream.raw()) };
        check("cuGraphLaunch", status, Context::Engine(self.engine))
    }

    /// Destroy the executable graph (after the work it launched is done: the executive
    /// waits for its streams first).
    pub(crate) fn destroy(self) -> Result<()> {
        let GpuGraph {
            exec,
            graph,
            engine,
            _gpu,
            ..
        } = self;
        // SAFETY: instantiated in `GraphBuilder::instantiate`, destroyed once (consumed).
        let status = unsafe { cu::cuGraphExecDestroy(exec) };
        let r = check("cuGraphExecDestroy", status, Context::Engine(engine));
        // SAFETY: the graph it was instantiated from, destroyed once, after the executable.
        let status = unsafe { cu::cuGraphDestroy(graph) };
        r.and(check("cuGraphDestroy", status, Context::Engine(engine)))
    }
}
