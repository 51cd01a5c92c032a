//! SIL CUDA graphs through the C ABI, in real time: explicit construction of a chain
//! (wait value -> kernel -> write value) launched frame after frame with per-launch updates,
//! compared with the same work as plain stream operations; updates after a launch leave the
//! enqueued launch alone; stream capture; and the error paths.
//!
//! Covers: REQ-SIL-009

mod common;

use core::ffi::c_void;
use core::ptr::{null, null_mut};
use std::time::Duration;

use common::*;

/// A batch entry waiting until the 64-bit word at `addr` is >= `v`.
fn wait_entry(addr: CUdeviceptr, v: u64) -> CUstreamBatchMemOpParams {
    CUstreamBatchMemOpParams {
        waitValue: CUstreamMemOpWaitValueParams_st {
            operation: CU_STREAM_MEM_OP_WAIT_VALUE_64,
            address: addr,
            value: CUstreamMemOpValue { value64: v },
            flags: CU_STREAM_WAIT_VALUE_GEQ.0,
            alias: 0,
        },
    }
}

/// A batch entry writing `v` to the 64-bit word at `addr`.
fn write_entry(addr: CUdeviceptr, v: u64) -> CUstreamBatchMemOpParams {
    CUstreamBatchMemOpParams {
        writeValue: CUstreamMemOpWriteValueParams_st {
            operation: CU_STREAM_MEM_OP_WRITE_VALUE_64,
            address: addr,
            value: CUstreamMemOpValue { value64: v },
            flags: CU_STREAM_WRITE_VALUE_DEFAULT.0,
            alias: 0,
        },
    }
}

/// Node parameters over `ops` (kept alive by the caller).
fn batch(ops: &mut [CUstreamBatchMemOpParams]) -> CUDA_BATCH_MEM_OP_NODE_PARAMS {
    CUDA_BATCH_MEM_OP_NODE_PARAMS {
        ctx: null_mut(),
        count: ops.len() as u32,
        paramArray: ops.as_mut_ptr(),
        flags: 0,
    }
}

/// Kernel node parameters: `f` over 1x1x1 blocks of 64 threads with `args`.
fn kernel(f: CUfunction, args: &mut [*mut c_void]) -> CUDA_KERNEL_NODE_PARAMS {
    CUDA_KERNEL_NODE_PARAMS {
        func: f,
        gridDimX: 1,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: 64,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        kernelParams: args.as_mut_ptr(),
        extra: null_mut(),
        kern: null_mut(),
        ctx: null_mut(),
    }
}

fn new_graph() -> CUgraph {
    let mut g = null_mut();
    // SAFETY: valid out pointer.
    ck(unsafe { cuGraphCreate(&mut g, 0) });
    g
}

fn add_batch(
    g: CUgraph,
    deps: &[CUgraphNode],
    ops: &mut [CUstreamBatchMemOpParams],
) -> CUgraphNode {
    let mut n = null_mut();
    let p = batch(ops);
    // SAFETY: valid pointers for the call.
    ck(unsafe { cuGraphAddBatchMemOpNode(&mut n, g, deps.as_ptr(), deps.len(), &p) });
    n
}

fn add_kernel(g: CUgraph, deps: &[CUgraphNode], p: &CUDA_KERNEL_NODE_PARAMS) -> CUgraphNode {
    let mut n = null_mut();
    // SAFETY: valid pointers; `p`'s argument pointers are alive.
    ck(unsafe { cuGraphAddKernelNode_v2(&mut n, g, deps.as_ptr(), deps.len(), p) });
    n
}

fn instantiate(g: CUgraph) -> CUgraphExec {
    let mut e = null_mut();
    // SAFETY: valid out pointer.
    ck(unsafe { cuGraphInstantiateWithFlags(&mut e, g, 0) });
    e
}

fn graph_launch(e: CUgraphExec, s: CUstream) -> CUresult {
    // SAFETY: plain C call.
    unsafe { cuGraphLaunch(e, s) }
}

fn set_batch(e: CUgraphExec, n: CUgraphNode, ops: &mut [CUstreamBatchMemOpParams]) -> CUresult {
    let p = batch(ops);
    // SAFETY: valid pointers.
    unsafe { cuGraphExecBatchMemOpNodeSetParams(e, n, &p) }
}

fn set_kernel(e: CUgraphExec, n: CUgraphNode, p: &CUDA_KERNEL_NODE_PARAMS) -> CUresult {
    // SAFETY: valid pointers; `p`'s argument pointers are alive.
    unsafe { cuGraphExecKernelNodeSetParams_v2(e, n, p) }
}

fn load_u64(p: *mut u64, i: usize) -> u64 {
    // SAFETY: aligned pinned memory, written by the stream atomically.
    unsafe { std::sync::atomic::AtomicU64::from_ptr(p.add(i)) }
        .load(std::sync::atomic::Ordering::Acquire)
}

/// `saxpy_f32` over 64 elements: `y = a * x + y`.
struct Saxpy {
    f: CUfunction,
    x: Pinned<f32>,
    y: Pinned<f32>,
}

impl Saxpy {
    fn new(m: CUmodule) -> Saxpy {
        let (r, f) = function(m, "saxpy_f32");
        ck(r);
        let mut x = Pinned::<f32>::new(64);
        let mut y = Pinned::<f32>::new(64);
        for (i, v) in x.slice_mut().iter_mut().enumerate() {
            *v = i as f32 + 0.5;
        }
        y.slice_mut().fill(1.0);
        Saxpy { f, x, y }
    }
}

/// One frame as a graph (updated per frame) and as stream operations give the same memory:
/// `wait(go >= f) -> saxpy(a = f) -> write(done = f)` for frames 1..=6, on two copies of the
/// data. The graph's wait really blocks until the host publishes `go`.
#[test]
fn chain_graph_matches_stream_operations() {
    setup();
    let m = load("selftest", 87);
    let (sg, ss) = (Saxpy::new(m), Saxpy::new(m));
    // Words: 0 go, 1 done (graph), 2 done (stream ops).
    let flags = Pinned::<u64>::new(4);
    let (go, done_g, done_s) = (flags.dptr(), flags.dptr() + 8, flags.dptr() + 16);
    let (gs, st) = (stream(), stream());

    let (mut a, mut xd, mut yd, mut n) = (1.0f32, sg.x.dptr(), sg.y.dptr(), 64u32);
    let mut args = [p(&mut a), p(&mut xd), p(&mut yd), p(&mut n)];
    let g = new_graph();
    let w = add_batch(g, &[], &mut [wait_entry(go, 1)]);
    let k = add_kernel(g, &[w], &kernel(sg.f, &mut args));
    let d = add_batch(g, &[k], &mut [write_entry(done_g, 1)]);
    let e = instantiate(g);

    for f in 1..=6u64 {
        // Per-frame values: the wait threshold, the kernel's `a`, the written value.
        ck(set_batch(e, w, &mut [wait_entry(go, f)]));
        // SAFETY: `args[0]` points to `a`, alive; the node copied the old value.
        unsafe { args[0].cast::<f32>().write(f as f32) };
        ck(set_kernel(e, k, &kernel(sg.f, &mut args)));
        ck(set_batch(e, d, &mut [write_entry(done_g, f)]));
        ck(graph_launch(e, gs));

        ck(wait64(st, go, f, CU_STREAM_WAIT_VALUE_GEQ.0));
        let (mut sa, mut sx, mut sy, mut sn) = (f as f32, ss.x.dptr(), ss.y.dptr(), 64u32);
        ck(launch(
            ss.f,
            st,
            &mut [p(&mut sa), p(&mut sx), p(&mut sy), p(&mut sn)],
        ));
        ck(write64(st, done_s, f));

        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(
            query(gs),
            CUDA_ERROR_NOT_READY,
            "frame {f}: the wait node waits"
        );
        assert_eq!(load_u64(flags.ptr, 1), f - 1);
        store_u64(flags.ptr, f);
        ck(sync(gs));
        ck(sync(st));
        assert_eq!(load_u64(flags.ptr, 1), f);
        assert_eq!(load_u64(flags.ptr, 2), f);
        assert_eq!(sg.y.slice(), ss.y.slice(), "frame {f}");
    }
    // And both equal the reference: y = 1 + (1 + 2 + ... + 6) * x.
    for (i, v) in sg.y.slice().iter().enumerate() {
        let x = i as f32 + 0.5;
        let mut want = 1.0f32;
        for f in 1..=6 {
            want += f as f32 * x;
        }
        assert_eq!(*v, want, "element {i}");
    }
    // SAFETY: plain C calls on live handles.
    unsafe {
        ck(cuGraphExecDestroy(e));
        ck(cuGraphDestroy(g));
    }
    ck(destroy(gs));
    ck(destroy(st));
    sg.x.free();
    sg.y.free();
    ss.x.free();
    ss.y.free();
    flags.free();
}

/// An update after a launch changes the next launch only: the first launch (blocked on
/// `go`) still writes its old address and value, runs its kernel with the old `a`. Once the
/// source graph is destroyed the executable graph still launches, but its updates fail with
/// `CUDA_ERROR_INVALID_VALUE` (its node handles named the graph's nodes), as on an H200.
#[test]
fn update_after_launch_leaves_the_enqueued_launch_alone() {
    setup();
    let m = load("selftest", 87);
    let sx = Saxpy::new(m);
    let flags = Pinned::<u64>::new(4);
    let go = flags.dptr();
    let (out_a, out_b) = (flags.dptr() + 8, flags.dptr() + 16);
    let s = stream();

    let (mut a, mut xd, mut yd, mut n) = (2.0f32, sx.x.dptr(), sx.y.dptr(), 64u32);
    let mut args = [p(&mut a), p(&mut xd), p(&mut yd), p(&mut n)];
    let g = new_graph();
    let w = add_batch(g, &[], &mut [wait_entry(go, 1)]);
    let k = add_kernel(g, &[w], &kernel(sx.f, &mut args));
    let d = add_batch(g, &[k], &mut [write_entry(out_a, 10)]);
    let e = instantiate(g);

    ck(graph_launch(e, s));
    // Changing the caller's argument memory after the node was added changes nothing either.
    // SAFETY: `args[0]` points to `a`, alive.
    unsafe { args[0].cast::<f32>().write(1000.0) };
    let mut a2 = 3.0f32;
    let mut args2 = [p(&mut a2), p(&mut xd), p(&mut yd), p(&mut n)];
    ck(set_kernel(e, k, &kernel(sx.f, &mut args2)));
    ck(set_batch(e, d, &mut [write_entry(out_b, 20)]));
    ck(graph_launch(e, s));
    assert_eq!(load_u64(flags.ptr, 1), 0);
    store_u64(flags.ptr, 1);
    ck(sync(s));
    assert_eq!(
        load_u64(flags.ptr, 1),
        10,
        "first launch: old address and value"
    );
    assert_eq!(
        load_u64(flags.ptr, 2),
        20,
        "second launch: new address and value"
    );
    for (i, v) in sx.y.slice().iter().enumerate() {
        let x = i as f32 + 0.5;
        assert_eq!(*v, 1.0 + 2.0 * x + 3.0 * x, "element {i}: a = 2 then a = 3");
    }
    // SAFETY: plain C call.
    ck(unsafe { cuGraphDestroy(g) });
    assert_eq!(
        set_batch(e, d, &mut [write_entry(out_b, 30)]),
        CUDA_ERROR_INVALID_VALUE,
        "an update after the source graph is gone"
    );
    ck(graph_launch(e, s));
    ck(sync(s));
    assert_eq!(
        load_u64(flags.ptr, 2),
        20,
        "the launch kept the last update"
    );
    // SAFETY: plain C call.
    ck(unsafe { cuGraphExecDestroy(e) });
    ck(destroy(s));
    sx.x.free();
    sx.y.free();
    flags.free();
}

/// Nodes run after their dependencies: a node added after two independent roots, launched
/// on another stream than the first launch (the second launch waits for the first).
#[test]
fn dependencies_and_launches_on_two_streams() {
    setup();
    let flags = Pinned::<u64>::new(4);
    let (go, a, b) = (flags.dptr(), flags.dptr() + 8, flags.dptr() + 16);
    let g = new_graph();
    let r1 = add_batch(g, &[], &mut [wait_entry(go, 1)]);
    let r2 = add_batch(g, &[], &mut [write_entry(a, 5)]);
    // After both roots: only once `go` is published.
    let _j = add_batch(g, &[r2, r1], &mut [write_entry(b, 7)]);
    let e = instantiate(g);
    let (s1, s2) = (stream(), stream());
    ck(graph_launch(e, s1));
    std::thread::sleep(Duration::from_millis(2));
    assert_eq!(
        load_u64(flags.ptr, 2),
        0,
        "the join node ran before its dependency"
    );
    // A second launch on s2 must wait for the first: publish `go` from another thread while
    // this one blocks in cuGraphLaunch.
    let ptr = flags.ptr as usize;
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(5));
        store_u64(ptr as *mut u64, 1);
    });
    ck(graph_launch(e, s2));
    // The first launch finished before the second was enqueued.
    ck(query(s1));
    t.join().expect("thread");
    ck(sync(s2));
    assert_eq!(load_u64(flags.ptr, 1), 5);
    assert_eq!(load_u64(flags.ptr, 2), 7);
    // SAFETY: plain C calls on live handles.
    unsafe {
        ck(cuGraphExecDestroy(e));
        ck(cuGraphDestroy(g));
    }
    ck(destroy(s1));
    ck(destroy(s2));
    flags.free();
}

/// Capture: launches and writes become a graph without running; the graph runs at each
/// launch. Capture errors: begin twice, end without begin, an uncapturable call (event
/// record) and a synchronize invalidate it, another thread may not end a thread-local one.
#[test]
fn stream_capture() {
    setup();
    let m = load("selftest", 87);
    let sx = Saxpy::new(m);
    let flags = Pinned::<u64>::new(2);
    let s = stream();
    let (mut a, mut xd, mut yd, mut n) = (2.0f32, sx.x.dptr(), sx.y.dptr(), 64u32);
    // SAFETY: plain C calls with valid pointers throughout.
    unsafe {
        ck(cuStreamBeginCapture_v2(
            s,
            CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        ));
        assert_eq!(
            cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
            CUDA_ERROR_ILLEGAL_STATE
        );
        ck(launch(
            sx.f,
            s,
            &mut [p(&mut a), p(&mut xd), p(&mut yd), p(&mut n)],
        ));
        a = 100.0; // captured at the call: no effect
        ck(write64(s, flags.dptr(), 9));
        // Another thread may not end a thread-local capture.
        let sh = s as usize;
        let wrong = std::thread::spawn(move || {
            let mut g = null_mut();
            cuStreamEndCapture(sh as CUstream, &mut g)
        })
        .join()
        .expect("thread");
        assert_eq!(wrong, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(load_u64(flags.ptr, 0), 0, "captured work must not run");
        assert!(sx.y.slice().iter().all(|v| *v == 1.0));
        let mut g = null_mut();
        assert_eq!(cuStreamEndCapture(s, null_mut()), CUDA_ERROR_INVALID_VALUE);
        ck(cuStreamEndCapture(s, &mut g));
        assert!(!g.is_null());
        assert_eq!(cuStreamEndCapture(s, &mut g), CUDA_ERROR_ILLEGAL_STATE);
        let e = instantiate(g);
        ck(graph_launch(e, s));
        ck(graph_launch(e, s));
        ck(sync(s));
        assert_eq!(load_u64(flags.ptr, 0), 9);
        for (i, v) in sx.y.slice().iter().enumerate() {
            let x = i as f32 + 0.5;
            assert_eq!(*v, 1.0 + 4.0 * x, "element {i}: two launches with a = 2");
        }
        ck(cuGraphExecDestroy(e));
        ck(cuGraphDestroy(g));

        // An event record invalidates the capture; ending it returns no graph.
        let ev = event(CU_EVENT_DEFAULT);
        ck(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_RELAXED));
        assert_eq!(record(ev, s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        assert_eq!(
            write64(s, flags.dptr(), 1),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        );
        let mut g = 1 as CUgraph;
        assert_eq!(
            cuStreamEndCapture(s, &mut g),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        );
        assert!(g.is_null());
        // So does a synchronize.
        ck(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        assert_eq!(sync(s), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        assert_eq!(
            cuStreamEndCapture(s, &mut g),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
        );
        // The stream works normally afterwards.
        ck(write64(s, flags.dptr(), 11));
        ck(sync(s));
        assert_eq!(load_u64(flags.ptr, 0), 11);
        assert_eq!(
            cuStreamBeginCapture_v2(s, CUstreamCaptureMode(3)),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuStreamBeginCapture_v2(null_mut(), CU_STREAM_CAPTURE_MODE_GLOBAL),
            CUDA_ERROR_INVALID_HANDLE
        );
        ck(cuEventDestroy_v2(ev));
    }
    let _ = a;
    ck(destroy(s));
    sx.x.free();
    sx.y.free();
    flags.free();
}

/// Every error path answers its code and changes nothing.
#[test]
fn error_paths() {
    setup();
    let m = load("selftest", 87);
    let sx = Saxpy::new(m);
    let flags = Pinned::<u64>::new(2);
    let s = stream();
    let (mut a, mut xd, mut yd, mut n) = (2.0f32, sx.x.dptr(), sx.y.dptr(), 64u32);
    let mut args = [p(&mut a), p(&mut xd), p(&mut yd), p(&mut n)];
    let kp = kernel(sx.f, &mut args);
    // SAFETY: every call gets valid pointers or deliberately NULL/bogus ones, which the SIL
    // checks before use.
    unsafe {
        let mut g = null_mut();
        assert_eq!(cuGraphCreate(null_mut(), 0), CUDA_ERROR_INVALID_VALUE);
        assert_eq!(cuGraphCreate(&mut g, 1), CUDA_ERROR_INVALID_VALUE);
        let g = new_graph();
        let other = new_graph();
        let mut nd = null_mut();
        let foreign = add_batch(other, &[], &mut [write_entry(flags.dptr(), 1)]);
        let root = add_batch(g, &[], &mut [write_entry(flags.dptr(), 1)]);

        // Add-node errors.
        let mut ops = [write_entry(flags.dptr(), 2)];
        let bp = batch(&mut ops);
        let add = |deps: &[CUgraphNode], p: &CUDA_BATCH_MEM_OP_NODE_PARAMS| {
            let mut nd = null_mut();
            cuGraphAddBatchMemOpNode(&mut nd, g, deps.as_ptr(), deps.len(), p)
        };
        assert_eq!(
            add(&[foreign], &bp),
            CUDA_ERROR_INVALID_VALUE,
            "foreign node"
        );
        assert_eq!(
            add(&[root, root], &bp),
            CUDA_ERROR_INVALID_VALUE,
            "duplicate"
        );
        assert_eq!(
            add(&[0x1234 as CUgraphNode], &bp),
            CUDA_ERROR_INVALID_VALUE,
            "unknown node"
        );
        assert_eq!(
            cuGraphAddBatchMemOpNode(&mut nd, g, null(), 1, &bp),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphAddBatchMemOpNode(null_mut(), g, null(), 0, &bp),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphAddBatchMemOpNode(&mut nd, g, null(), 0, null()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphAddBatchMemOpNode(&mut nd, 0x10 as CUgraph, null(), 0, &bp),
            CUDA_ERROR_INVALID_HANDLE
        );
        let mut empty = batch(&mut ops);
        empty.count = 0;
        assert_eq!(add(&[], &empty), CUDA_ERROR_INVALID_VALUE, "no operations");
        let mut flagged = batch(&mut ops);
        flagged.flags = 1;
        assert_eq!(add(&[], &flagged), CUDA_ERROR_INVALID_VALUE, "flags");
        let mut misaligned = [write_entry(flags.dptr() + 4, 2)];
        assert_eq!(add(&[], &batch(&mut misaligned)), CUDA_ERROR_INVALID_VALUE);
        let mut barrier = [CUstreamBatchMemOpParams {
            memoryBarrier: CUstreamMemOpMemoryBarrierParams_st {
                operation: CU_STREAM_MEM_OP_BARRIER,
                flags: 0,
            },
        }];
        assert_eq!(add(&[], &batch(&mut barrier)), CUDA_ERROR_NOT_SUPPORTED);
        let mut nkp = kp;
        nkp.func = null_mut();
        assert_eq!(
            cuGraphAddKernelNode_v2(&mut nd, g, null(), 0, &nkp),
            CUDA_ERROR_INVALID_VALUE
        );
        nkp.func = 0x10 as CUfunction;
        assert_eq!(
            cuGraphAddKernelNode_v2(&mut nd, g, null(), 0, &nkp),
            CUDA_ERROR_INVALID_HANDLE
        );
        let mut ekp = kp;
        ekp.gridDimX = 0;
        assert_eq!(
            cuGraphAddKernelNode_v2(&mut nd, g, null(), 0, &ekp),
            CUDA_ERROR_INVALID_VALUE
        );
        let mut pw = [wait_entry(flags.dptr(), 0)];
        let wait = add_batch(g, &[root], &mut pw);
        let k = add_kernel(g, &[wait], &kp);

        // Instantiation and launch errors.
        let mut e = null_mut();
        assert_eq!(
            cuGraphInstantiateWithFlags(null_mut(), g, 0),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut e, g, 2),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut e, 0x10 as CUgraph, 0),
            CUDA_ERROR_INVALID_HANDLE
        );
        let e = instantiate(g);
        assert_eq!(graph_launch(e, null_mut()), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(
            graph_launch(0x10 as CUgraphExec, s),
            CUDA_ERROR_INVALID_HANDLE
        );

        // Update errors: wrong node type, unknown node, changed count or operation.
        assert_eq!(set_kernel(e, root, &kp), CUDA_ERROR_INVALID_VALUE, "type");
        assert_eq!(
            set_batch(e, k, &mut [write_entry(flags.dptr(), 3)]),
            CUDA_ERROR_INVALID_VALUE,
            "type"
        );
        let late = add_batch(g, &[k], &mut [write_entry(flags.dptr(), 4)]);
        assert_eq!(
            set_batch(e, late, &mut [write_entry(flags.dptr(), 4)]),
            CUDA_ERROR_INVALID_VALUE,
            "node added after instantiation"
        );
        assert_eq!(
            set_batch(e, foreign, &mut [write_entry(flags.dptr(), 4)]),
            CUDA_ERROR_INVALID_VALUE,
            "foreign node"
        );
        assert_eq!(
            set_batch(
                e,
                root,
                &mut [write_entry(flags.dptr(), 4), write_entry(flags.dptr(), 5)]
            ),
            CUDA_ERROR_INVALID_VALUE,
            "count"
        );
        assert_eq!(
            set_batch(e, root, &mut [wait_entry(flags.dptr(), 4)]),
            CUDA_ERROR_INVALID_VALUE,
            "write -> wait"
        );
        assert_eq!(
            cuGraphExecBatchMemOpNodeSetParams(e, root, null()),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(set_kernel(e, k, &ekp), CUDA_ERROR_INVALID_VALUE, "bad dims");

        // The refused updates changed nothing: the launch writes 1 and runs the kernel.
        ck(graph_launch(e, s));
        ck(sync(s));
        assert_eq!(load_u64(flags.ptr, 0), 1);
        assert!(sx.y.slice()[1] == 1.0 + 2.0 * 1.5);

        // Destroyed handles.
        ck(cuGraphExecDestroy(e));
        assert_eq!(graph_launch(e, s), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(set_kernel(e, k, &kp), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(cuGraphExecDestroy(e), CUDA_ERROR_INVALID_HANDLE);
        ck(cuGraphDestroy(g));
        assert_eq!(cuGraphDestroy(g), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(add(&[], &bp), CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(
            cuGraphInstantiateWithFlags(&mut null_mut(), g, 0),
            CUDA_ERROR_INVALID_HANDLE
        );
        ck(cuGraphDestroy(other));
    }

    ck(destroy(s));
    sx.x.free();
    sx.y.free();
    flags.free();
}
