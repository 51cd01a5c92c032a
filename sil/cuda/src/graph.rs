//! CUDA graphs: explicit construction (kernel, batch memory-operation and external-semaphore
//! nodes), stream capture, instantiation, launch and per-launch parameter updates.
//!
//! A node holds the stream steps it stands for (validated and copied from the caller's
//! parameters when it is added) and its dependencies. Dependencies can only name nodes that
//! already exist in the same graph (there is no call that adds an edge later), so insertion
//! order is a topological order of the graph; running the nodes one after another in that
//! order on the launch stream's worker is a correct serialisation of it.
//!
//! Instantiation copies the nodes, in that order, into an executable graph. `cuGraphLaunch`
//! turns every step into a stream operation and enqueues them all in one queue transaction,
//! so a launch is ordered after the stream's earlier work and after the exec's earlier
//! launches on the same stream (FIFO); it allocates nothing (the operations are plain values,
//! as `cuLaunchKernel`'s are). The `cuGraphExec*SetParams` calls overwrite the executable
//! graph's copy in place (no allocation either), so they change later launches only: an
//! enqueued launch already holds its own operations.

use core::ffi::c_uint;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;

use cuda_sys::*;
use nvsci_sys::NvSciSyncFence;

use crate::driver::{out, primary_handle, require_ctx, require_init};
use crate::external::{self, SemParams, check_sem, sem_arrays};
use crate::registry::{Registry, new_handle};
use crate::stream::{KernelLaunch, MemOp, Op, function_of, ready_stream, stream_of};
use crate::{CuResult, ret};

/// What one node does on the stream, in a form that is turned into a stream operation at
/// each launch (a kernel draws its execution time, a signal reserves its fence then).
#[derive(Clone)]
pub(crate) enum Step {
    /// A stream memory operation (wait or write value), enqueued as is.
    Op(Op),
    /// A kernel launch.
    Kernel(KernelLaunch),
    /// A signal of the imported NvSciSync object `obj`; the fence is written to the
    /// `NvSciSyncFence` at address `fence` when the operation is made.
    ExtSignal { obj: usize, fence: usize },
    /// A wait on the `NvSciSyncFence` at address `fence`, read when the operation is made.
    ExtWait { fence: usize },
}

impl Step {
    /// The stream operation of this step, made now (at enqueue or graph launch).
    pub(crate) fn op(&self) -> CuResult<Op> {
        match self {
            Step::Op(op) => Ok(op.clone()),
            Step::Kernel(k) => Ok(k.op()),
            // SAFETY: `obj` is an imported object and `fence` a fence the caller keeps valid
            // (the contract of the call that made the step).
            Step::ExtSignal { obj, fence } => unsafe {
                external::signal_op(*obj, *fence as *mut NvSciSyncFence)
            },
            // SAFETY: as above.
            Step::ExtWait { fence } => Ok(unsafe { external::wait_op(*fence as *const _) }),
        }
    }

    /// The kind of node that holds this step.
    fn kind(&self) -> Kind {
        match self {
            Step::Op(_) => Kind::MemOp,
            Step::Kernel(_) => Kind::Kernel,
            Step::ExtSignal { .. } => Kind::ExtSignal,
            Step::ExtWait { .. } => Kind::ExtWait,
        }
    }

    /// Whether `new` may replace this step in an executable graph: same kind and, for memory
    /// operations, the same operation (wait or write) and width.
    fn same_shape(&self, new: &Step) -> bool {
        match (self, new) {
            (Step::Op(Op::WaitValue { wide: a, .. }), Step::Op(Op::WaitValue { wide: b, .. }))
            | (
                Step::Op(Op::WriteValue { wide: a, .. }),
                Step::Op(Op::WriteValue { wide: b, .. }),
            ) => a == b,
            (Step::Op(_), _) => false,
            _ => self.kind() == new.kind(),
        }
    }
}

/// The type of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Kernel,
    MemOp,
    ExtWait,
    ExtSignal,
}

/// One node of a graph.
struct Node {
    handle: usize,
    kind: Kind,
    steps: Vec<Step>,
}

/// A graph under construction.
pub(crate) struct Graph {
    nodes: Mutex<Vec<Node>>,
}

impl Graph {
    fn new() -> Graph {
        Graph {
            nodes: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Node>> {
        self.nodes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a node after `deps`, which must be distinct nodes of this graph
    /// (`CUDA_ERROR_INVALID_VALUE`); returns its handle.
    fn add(&self, kind: Kind, deps: &[CUgraphNode], steps: Vec<Step>) -> CuResult<usize> {
        let mut nodes = self.lock();
        for (i, d) in deps.iter().enumerate() {
            let known = nodes.iter().any(|n| n.handle == *d as usize);
            if !known || deps[..i].contains(d) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        }
        // The node runs after every earlier node (see the module doc), so its dependencies
        // need not be stored.
        let handle = new_handle();
        nodes.push(Node {
            handle,
            kind,
            steps,
        });
        Ok(handle)
    }
}

/// The capture state of a stream (`cuStreamBeginCapture`).
pub(crate) struct Capture {
    graph: Arc<Graph>,
    /// The last captured node's handle: the next one depends on it.
    last: Option<usize>,
    mode: CUstreamCaptureMode,
    thread: ThreadId,
    invalidated: bool,
}

impl Capture {
    /// A capture begun now by the calling thread.
    pub(crate) fn new(mode: CUstreamCaptureMode) -> Capture {
        Capture {
            graph: Arc::new(Graph::new()),
            last: None,
            mode,
            thread: std::thread::current().id(),
            invalidated: false,
        }
    }

    /// An unsupported operation happened: the capture ends without a graph.
    pub(crate) fn invalidate(&mut self) {
        self.invalidated = true;
    }

    /// Appends `step` as a node after the last captured one.
    pub(crate) fn append(&mut self, step: Step) -> CuResult<()> {
        if self.invalidated {
            return Err(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        }
        let last = self.last.map(|h| h as CUgraphNode);
        let h = self.graph.add(step.kind(), last.as_slice(), vec![step])?;
        self.last = Some(h);
        Ok(())
    }

    /// A global or thread-local capture must be ended by the thread that began it
    /// (`CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD`).
    pub(crate) fn check_thread(&self) -> CuResult<()> {
        if self.mode != CU_STREAM_CAPTURE_MODE_RELAXED && self.thread != std::thread::current().id()
        {
            return Err(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
        }
        Ok(())
    }

    /// The captured graph, or `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`.
    pub(crate) fn end(self) -> CuResult<Arc<Graph>> {
        if self.invalidated {
            return Err(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        }
        Ok(self.graph)
    }
}

/// A node of an executable graph (its own copy of the parameters).
struct ExecNode {
    handle: usize,
    kind: Kind,
    steps: Vec<Step>,
}

struct ExecState {
    /// The handle of the graph it was instantiated from: its nodes name this one's.
    source: usize,
    /// The nodes in launch order.
    nodes: Vec<ExecNode>,
    /// Stream operations per launch.
    ops: usize,
    /// The stream of the latest launch (0: none yet).
    last_stream: usize,
}

/// An executable graph.
pub(crate) struct Exec {
    st: Mutex<ExecState>,
}

impl Exec {
    fn lock(&self) -> MutexGuard<'_, ExecState> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Replaces the steps of node `node` (which must be of `kind`, else
    /// `CUDA_ERROR_INVALID_VALUE`) with `make(i)` for each of its steps: all are made and
    /// checked against the node's current steps ([`Step::same_shape`]) before any is written,
    /// so a refused update changes nothing. Allocates nothing.
    fn update(
        &self,
        node: CUgraphNode,
        kind: Kind,
        n: usize,
        mut make: impl FnMut(usize) -> CuResult<Step>,
    ) -> CuResult<()> {
        let mut st = self.lock();
        // The driver names an executable graph's nodes by the nodes of its source graph:
        // once that graph is destroyed, the handles name nothing (an H200 with driver 580
        // answers CUDA_ERROR_INVALID_VALUE).
        if GRAPHS.get(st.source).is_none() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let node = st
            .nodes
            .iter_mut()
            .find(|e| e.handle == node as usize)
            .ok_or(CUDA_ERROR_INVALID_VALUE)?;
        if node.kind != kind || node.steps.len() != n {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        for (i, old) in node.steps.iter().enumerate() {
            if !old.same_shape(&make(i)?) {
                return Err(CUDA_ERROR_INVALID_VALUE);
            }
        }
        for (i, old) in node.steps.iter_mut().enumerate() {
            *old = make(i)?;
        }
        Ok(())
    }
}

static GRAPHS: Registry<Graph> = Registry::new();
static EXECS: Registry<Exec> = Registry::new();

fn graph_of(h: CUgraph) -> CuResult<Arc<Graph>> {
    GRAPHS.get(h as usize).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

fn exec_of(h: CUgraphExec) -> CuResult<Arc<Exec>> {
    EXECS.get(h as usize).ok_or(CUDA_ERROR_INVALID_HANDLE)
}

/// A node's context: NULL (the current one) or the primary context.
fn ctx_ok(ctx: CUcontext) -> CuResult<()> {
    if ctx.is_null() || ctx == primary_handle() {
        Ok(())
    } else {
        Err(CUDA_ERROR_INVALID_VALUE)
    }
}

/// The step of a kernel node: `func` must be a live function (NULL, i.e. a library kernel
/// in `kern`, is `CUDA_ERROR_INVALID_VALUE`: SIL CUDA has no libraries), then the checks of
/// `cuLaunchKernel`.
///
/// # Safety
/// `p.kernelParams` as for `cuLaunchKernel`.
unsafe fn kernel_step(p: &CUDA_KERNEL_NODE_PARAMS) -> CuResult<Step> {
    if p.func.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    ctx_ok(p.ctx)?;
    let func = function_of(p.func)?;
    // SAFETY: forwarded caller contract.
    let k = unsafe {
        KernelLaunch::new(
            func,
            [p.gridDimX, p.gridDimY, p.gridDimZ],
            [p.blockDimX, p.blockDimY, p.blockDimZ],
            p.sharedMemBytes,
            p.kernelParams,
            p.extra,
        )
    }?;
    Ok(Step::Kernel(k))
}

/// The checked operations of a batch memory-operation node (count > 0, a non-NULL array,
/// flags 0).
///
/// # Safety
/// `p.paramArray` valid for `p.count` entries.
unsafe fn batch_ops(p: &CUDA_BATCH_MEM_OP_NODE_PARAMS) -> CuResult<&[CUstreamBatchMemOpParams]> {
    ctx_ok(p.ctx)?;
    if p.count == 0 || p.paramArray.is_null() || p.flags != 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: caller contract (`n` readable elements); NULL, misaligned or oversized: refused.
    Ok(unsafe {
        sil_common::ffi::slice(p.paramArray, p.count as usize).ok_or(CUDA_ERROR_INVALID_VALUE)?
    })
}

/// The step of one batch entry: a 32/64-bit wait or write, checked like the stream calls.
/// Flush-remote-writes and barrier entries are `CUDA_ERROR_NOT_SUPPORTED`.
fn batch_step(p: &CUstreamBatchMemOpParams) -> CuResult<Step> {
    // SAFETY: every member starts with the operation (a plain integer).
    let op = unsafe { p.operation };
    let (mem, wide) = match op {
        CU_STREAM_MEM_OP_WAIT_VALUE_32 => (MemOp::Wait, false),
        CU_STREAM_MEM_OP_WAIT_VALUE_64 => (MemOp::Wait, true),
        CU_STREAM_MEM_OP_WRITE_VALUE_32 => (MemOp::Write, false),
        CU_STREAM_MEM_OP_WRITE_VALUE_64 => (MemOp::Write, true),
        CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES | CU_STREAM_MEM_OP_BARRIER => {
            return Err(CUDA_ERROR_NOT_SUPPORTED);
        }
        _ => return Err(CUDA_ERROR_INVALID_VALUE),
    };
    // SAFETY: the member `op` selects; the wait and write members have the same layout, and
    // the value union is read at the width of the operation (plain integers).
    let (addr, value, flags) = unsafe {
        if mem == MemOp::Wait {
            let w = p.waitValue;
            let v = if wide {
                w.value.value64
            } else {
                u64::from(w.value.value)
            };
            (w.address, v, w.flags)
        } else {
            let w = p.writeValue;
            let v = if wide {
                w.value.value64
            } else {
                u64::from(w.value.value)
            };
            (w.address, v, w.flags)
        }
    };
    Ok(Step::Op(mem.op(addr, value, flags, wide)?))
}

/// The step of one semaphore of an external-semaphore node ([`check_sem`]).
fn sem_step<P: SemParams>(h: CUexternalSemaphore, p: &P, signal: bool) -> CuResult<Step> {
    let (obj, fence) = check_sem(h, p)?;
    let fence = fence as usize;
    Ok(if signal {
        Step::ExtSignal { obj, fence }
    } else {
        Step::ExtWait { fence }
    })
}

/// The common part of the `cuGraphAdd*Node` calls: a current context, non-NULL `ph` and
/// `params` (`CUDA_ERROR_INVALID_VALUE`), a live graph (`CUDA_ERROR_INVALID_HANDLE`), a
/// dependency array (NULL only when empty), then the node's steps from `make`.
///
/// # Safety
/// `ph` NULL or writable; `deps` NULL or valid for `n` handles.
unsafe fn add_node<P>(
    ph: *mut CUgraphNode,
    g: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    params: *const P,
    kind: Kind,
    make: impl FnOnce(&P) -> CuResult<Vec<Step>>,
) -> CuResult<()> {
    require_ctx()?;
    if ph.is_null() || params.is_null() || (n > 0 && deps.is_null()) {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    let graph = graph_of(g)?;
    let deps = if n == 0 {
        &[][..]
    } else {
        // SAFETY: caller contract (`n` readable elements); NULL, misaligned or oversized: refused.
        unsafe { sil_common::ffi::slice(deps, n).ok_or(CUDA_ERROR_INVALID_VALUE)? }
    };
    // SAFETY: non-NULL (checked) and valid (caller contract).
    let steps = make(unsafe { &*params })?;
    let h = graph.add(kind, deps, steps)?;
    // SAFETY: checked non-NULL, writable (caller contract).
    unsafe { out(ph, h as CUgraphNode) }
}

/// The common part of the `cuGraphExec*SetParams` calls: a live exec
/// (`CUDA_ERROR_INVALID_HANDLE`), non-NULL `params`, then [`Exec::update`].
///
/// # Safety
/// `params` NULL or valid for a read.
unsafe fn set_params<P>(
    e: CUgraphExec,
    node: CUgraphNode,
    params: *const P,
    kind: Kind,
    n_steps: impl FnOnce(&P) -> CuResult<usize>,
    make: impl FnMut(&P, usize) -> CuResult<Step>,
) -> CuResult<()> {
    let mut make = make;
    require_init()?;
    let exec = exec_of(e)?;
    if params.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: non-NULL (checked) and valid (caller contract).
    let p = unsafe { &*params };
    exec.update(node, kind, n_steps(p)?, |i| make(p, i))
}

// ---------------------------------------------------------------------------------------
// C API
// ---------------------------------------------------------------------------------------

/// Creates an empty graph; `flags` must be 0.
///
/// # Safety
/// `phGraph` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphCreate(phGraph: *mut CUgraph, flags: c_uint) -> CUresult {
    ret((|| {
        require_ctx()?;
        if phGraph.is_null() || flags != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let h = GRAPHS.insert(Arc::new(Graph::new()));
        // SAFETY: checked non-NULL, writable (caller contract).
        unsafe { out(phGraph, h as CUgraph) }
    })())
}

/// Destroys a graph and its nodes; executable graphs instantiated from it stay valid for
/// launches, but their `cuGraphExec*SetParams` calls fail with `CUDA_ERROR_INVALID_VALUE`
/// from then on (the node handles named the destroyed graph's nodes), as on the real driver.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphDestroy(hGraph: CUgraph) -> CUresult {
    ret((|| {
        require_init()?;
        GRAPHS
            .remove(hGraph as usize)
            .map(drop)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)
    })())
}

/// Adds a kernel node: the checks and argument decoding of `cuLaunchKernel` (the arguments
/// are copied now); `func` must be set (library kernels: `CUDA_ERROR_INVALID_VALUE`), `ctx`
/// NULL or the primary context.
///
/// # Safety
/// `phGraphNode` NULL or writable; `dependencies` NULL or valid for `numDependencies`
/// handles; `nodeParams` NULL or valid, its `kernelParams` as for `cuLaunchKernel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphAddKernelNode_v2(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded caller contract.
    ret(unsafe {
        add_node(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            nodeParams,
            Kind::Kernel,
            // SAFETY: forwarded caller contract.
            |p| Ok(vec![kernel_step(p)?]),
        )
    })
}

/// Adds a batch memory-operation node: 32/64-bit waits and writes, checked like
/// `cuStreamWaitValue*`/`cuStreamWriteValue*` and run in array order; `count` > 0, flags 0,
/// `ctx` NULL or the primary context. Flush and barrier entries: `CUDA_ERROR_NOT_SUPPORTED`.
///
/// # Safety
/// As `cuGraphAddKernelNode_v2`; `paramArray` valid for `count` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphAddBatchMemOpNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_BATCH_MEM_OP_NODE_PARAMS,
) -> CUresult {
    let make = |p: &CUDA_BATCH_MEM_OP_NODE_PARAMS| {
        // SAFETY: forwarded caller contract.
        let ops = unsafe { batch_ops(p) }?;
        ops.iter().map(batch_step).collect()
    };
    // SAFETY: forwarded caller contract.
    ret(unsafe {
        add_node(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            nodeParams,
            Kind::MemOp,
            make,
        )
    })
}

/// Adds an external-semaphore wait node: one wait per semaphore on the fence its parameters
/// point to, read at each launch (checks of `cuWaitExternalSemaphoresAsync`).
///
/// # Safety
/// As `cuGraphAddKernelNode_v2`; both arrays valid for `numExtSems` elements; each fence
/// pointer valid for reads as long as the graph or an executable graph of it holds it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphAddExternalSemaphoresWaitNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_EXT_SEM_WAIT_NODE_PARAMS,
) -> CUresult {
    let make = |p: &CUDA_EXT_SEM_WAIT_NODE_PARAMS| {
        // SAFETY: forwarded caller contract.
        let (sems, params) = unsafe { sem_arrays(p.extSemArray, p.paramsArray, p.numExtSems) }?;
        sems.iter()
            .zip(params)
            .map(|(&h, q)| sem_step(h, q, false))
            .collect()
    };
    // SAFETY: forwarded caller contract.
    ret(unsafe {
        add_node(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            nodeParams,
            Kind::ExtWait,
            make,
        )
    })
}

/// Adds an external-semaphore signal node: one signal per semaphore; each launch writes the
/// fence of the value it will reach to the fence its parameters point to, as
/// `cuSignalExternalSemaphoresAsync` does at enqueue.
///
/// # Safety
/// As `cuGraphAddKernelNode_v2`; both arrays valid for `numExtSems` elements; each fence
/// pointer valid for reads and writes as long as the graph or an executable graph of it
/// holds it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphAddExternalSemaphoresSignalNode(
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS,
) -> CUresult {
    let make = |p: &CUDA_EXT_SEM_SIGNAL_NODE_PARAMS| {
        // SAFETY: forwarded caller contract.
        let (sems, params) = unsafe { sem_arrays(p.extSemArray, p.paramsArray, p.numExtSems) }?;
        sems.iter()
            .zip(params)
            .map(|(&h, q)| sem_step(h, q, true))
            .collect()
    };
    // SAFETY: forwarded caller contract.
    ret(unsafe {
        add_node(
            phGraphNode,
            hGraph,
            dependencies,
            numDependencies,
            nodeParams,
            Kind::ExtSignal,
            make,
        )
    })
}

/// Instantiates a graph: a copy of its nodes in a topological order. `flags`: 0,
/// `CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH` (1) or `..._USE_NODE_PRIORITY` (8),
/// which change nothing here; others `CUDA_ERROR_INVALID_VALUE`.
///
/// # Safety
/// `phGraphExec` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    flags: u64,
) -> CUresult {
    ret((|| {
        require_ctx()?;
        if phGraphExec.is_null() || flags & !(1 | 8) != 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let graph = graph_of(hGraph)?;
        let nodes: Vec<ExecNode> = graph
            .lock()
            .iter()
            .map(|n| ExecNode {
                handle: n.handle,
                kind: n.kind,
                steps: n.steps.clone(),
            })
            .collect();
        let ops = nodes.iter().map(|n| n.steps.len()).sum();
        let exec = Exec {
            st: Mutex::new(ExecState {
                source: hGraph as usize,
                nodes,
                ops,
                last_stream: 0,
            }),
        };
        let h = EXECS.insert(Arc::new(exec));
        // SAFETY: checked non-NULL, writable (caller contract).
        unsafe { out(phGraphExec, h as CUgraphExec) }
    })())
}

/// Enqueues every node of an executable graph on `hStream`, in topological order, in one
/// queue transaction (all or nothing when the queue is full: `CUDA_ERROR_OUT_OF_MEMORY`).
/// Launched on another stream than its previous launch, it first waits on the host until
/// that stream is idle, so launches of one exec never overlap. Allocates nothing.
///
/// # Safety
/// Always safe to call (fence pointers of external-semaphore nodes: see their add calls).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphLaunch(hGraphExec: CUgraphExec, hStream: CUstream) -> CUresult {
    ret((|| {
        require_init()?;
        let exec = exec_of(hGraphExec)?;
        let s = ready_stream(hStream)?;
        let mut st = exec.lock();
        if st.last_stream != 0 && st.last_stream != hStream as usize {
            // That stream's sticky error is its own (its synchronize reports it).
            if let Ok(prev) = stream_of(st.last_stream as CUstream) {
                let _ = prev.synchronize();
            }
        }
        let cur = &*st;
        s.enqueue(cur.ops, |q| {
            for step in cur.nodes.iter().flat_map(|n| &n.steps) {
                q.push(step.op()?);
            }
            Ok(())
        })?;
        st.last_stream = hStream as usize;
        Ok(())
    })())
}

/// Destroys an executable graph; launches already enqueued still run.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphExecDestroy(hGraphExec: CUgraphExec) -> CUresult {
    ret((|| {
        require_init()?;
        EXECS
            .remove(hGraphExec as usize)
            .map(drop)
            .ok_or(CUDA_ERROR_INVALID_HANDLE)
    })())
}

/// Sets a kernel node's parameters for later launches of `hGraphExec` (checks of
/// `cuGraphAddKernelNode_v2`; the function may change). A node that is not a kernel node of
/// this exec: `CUDA_ERROR_INVALID_VALUE`. Allocates nothing.
///
/// # Safety
/// `nodeParams` NULL or valid, its `kernelParams` as for `cuLaunchKernel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded caller contract.
    ret(unsafe {
        set_params(
            hGraphExec,
            hNode,
            nodeParams,
            Kind::Kernel,
            |_| Ok(1),
            // SAFETY: forwarded caller contract.
            |p, _| kernel_step(p),
        )
    })
}

/// Sets a batch memory-operation node's operations for later launches: the count and each
/// entry's operation (wait or write, width) must stay the same; addresses, values and wait
/// conditions may change. Anything else: `CUDA_ERROR_INVALID_VALUE`, nothing changed.
/// Allocates nothing.
///
/// # Safety
/// `nodeParams` NULL or valid, its `paramArray` valid for `count` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphExecBatchMemOpNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_BATCH_MEM_OP_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded caller contract (each closure reads the array `batch_ops` checked).
    ret(unsafe {
        set_params(
            hGraphExec,
            hNode,
            nodeParams,
            Kind::MemOp,
            |p| Ok(batch_ops(p)?.len()),
            |p, i| batch_step(&batch_ops(p)?[i]),
        )
    })
}

/// Sets an external-semaphore wait node's semaphores and fences for later launches (same
/// number of semaphores, else `CUDA_ERROR_INVALID_VALUE`). Allocates nothing.
///
/// # Safety
/// As `cuGraphAddExternalSemaphoresWaitNode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphExecExternalSemaphoresWaitNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_EXT_SEM_WAIT_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded caller contract.
    ret(unsafe {
        set_params(
            hGraphExec,
            hNode,
            nodeParams,
            Kind::ExtWait,
            |p| {
                Ok(sem_arrays(p.extSemArray, p.paramsArray, p.numExtSems)?
                    .0
                    .len())
            },
            |p, i| {
                let (sems, params) = sem_arrays(p.extSemArray, p.paramsArray, p.numExtSems)?;
                sem_step(sems[i], &params[i], false)
            },
        )
    })
}

/// Sets an external-semaphore signal node's semaphores and fences for later launches (same
/// number of semaphores, else `CUDA_ERROR_INVALID_VALUE`). Allocates nothing.
///
/// # Safety
/// As `cuGraphAddExternalSemaphoresSignalNode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuGraphExecExternalSemaphoresSignalNodeSetParams(
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded caller contract.
    ret(unsafe {
        set_params(
            hGraphExec,
            hNode,
            nodeParams,
            Kind::ExtSignal,
            |p| {
                Ok(sem_arrays(p.extSemArray, p.paramsArray, p.numExtSems)?
                    .0
                    .len())
            },
            |p, i| {
                let (sems, params) = sem_arrays(p.extSemArray, p.paramsArray, p.numExtSems)?;
                sem_step(sems[i], &params[i], true)
            },
        )
    })
}

/// Starts capturing `hStream`: later kernel launches, stream memory operations and
/// external-semaphore signals/waits on it become nodes of a new graph (a chain, in call
/// order) instead of running. `mode` must be a `CU_STREAM_CAPTURE_MODE_*` value
/// (`CUDA_ERROR_INVALID_VALUE`); a stream that already captures: `CUDA_ERROR_ILLEGAL_STATE`.
///
/// # Safety
/// Always safe to call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamBeginCapture_v2(
    hStream: CUstream,
    mode: CUstreamCaptureMode,
) -> CUresult {
    ret((|| {
        require_init()?;
        let s = stream_of(hStream)?;
        if mode.0 > CU_STREAM_CAPTURE_MODE_RELAXED.0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        s.begin_capture(mode)
    })())
}

/// Ends the capture of `hStream` and returns its graph in `*phGraph`. A capture that an
/// unsupported call invalidated ends with `*phGraph` = NULL and
/// `CUDA_ERROR_STREAM_CAPTURE_INVALIDATED`; a stream that does not capture:
/// `CUDA_ERROR_ILLEGAL_STATE`; another thread than the one that began a non-relaxed capture:
/// `CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD` (the capture goes on).
///
/// # Safety
/// `phGraph` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuStreamEndCapture(hStream: CUstream, phGraph: *mut CUgraph) -> CUresult {
    ret((|| {
        require_init()?;
        let s = stream_of(hStream)?;
        if phGraph.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        match s.end_capture() {
            Ok(g) => {
                let h = GRAPHS.insert(g);
                // SAFETY: checked non-NULL, writable (caller contract).
                unsafe { out(phGraph, h as CUgraph) }
            }
            Err(e) => {
                if e == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED {
                    // SAFETY: as above.
                    unsafe { out(phGraph, core::ptr::null_mut()) }?;
                }
                Err(e)
            }
        }
    })())
}
