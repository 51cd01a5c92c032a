//! A frame as one graph launch with NvSciSync external-semaphore nodes: wait (CPU → CUDA) →
//! preprocess → postprocess → signal (CUDA → CPU) → write value, its values updated every
//! frame with `cuGraphExec*SetParams`; the results equal the reference models, each launch
//! writes the signal's fence, and 2,000 steady-state frames (launch, updates, waits) allocate
//! nothing, counted over every thread. Virtual time, so nothing sleeps.
//!
//! Covers: REQ-SIL-009

mod common;

use core::ptr::null_mut;

use common::nvsci::*;
use common::*;
use nvsci_sys::sil::*;
use nvsci_sys::*;
use orin_exec_kernels::PostprocessParams;
use sil_common::alloc_count::CountingAlloc;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc::all_threads();

fn write_entry(addr: CUdeviceptr, v: u64) -> CUstreamBatchMemOpParams {
    CUstreamBatchMemOpParams {
        writeValue: CUstreamMemOpWriteValueParams_st {
            operation: CU_STREAM_MEM_OP_WRITE_VALUE_64,
            address: addr,
            value: CUstreamMemOpValue { value64: v },
            flags: 0,
            alias: 0,
        },
    }
}

#[test]
fn graph_frames_with_semaphore_nodes_allocate_nothing() {
    // SAFETY: plain C call.
    nv(unsafe { NvSciSilClockSetVirtual(true, 1_000_000) });
    setup();
    let m = module();
    let (a, b) = (cpu_to_cuda(m), cuda_to_cpu(m));
    let import_ok = |o: NvSciSyncObj| {
        let (r, s) = import(o);
        ck(r);
        s
    };
    let (mut ea, mut eb) = (import_ok(a), import_ok(b));
    let mut waitctx = null_mut();
    // SAFETY: valid out pointer.
    nv(unsafe { NvSciSyncCpuWaitContextAlloc(m, &mut waitctx) });

    let aeb = load("aeb", 87);
    let (_, pre) = function(aeb, "aeb_preprocess");
    let (_, post) = function(aeb, "aeb_postprocess");
    let (w, h) = (64u32, 32u32);
    let mut img = Pinned::<u8>::new((w * h) as usize);
    for (i, v) in img.slice_mut().iter_mut().enumerate() {
        *v = ((i * 13) % 256) as u8;
    }
    let map = Pinned::<i8>::new((w / 2 * h / 2) as usize);
    let out = Pinned::<i32>::new(4);
    let flag = Pinned::<u64>::new(1);
    let s = stream();
    let pp = PostprocessParams {
        threshold: 10,
        lane_x0: 2,
        lane_x1: 30,
        row_scale: 2.0,
        row_offset: 0.0,
        horizon: 1.0,
        fh: 100.0,
    };
    let mut fa = NvSciSyncFenceInitializer;
    let mut fb = NvSciSyncFenceInitializer;
    let wp = [wait_params(&mut fa)];
    let sp = [signal_params(&mut fb, 0)];

    // The graph, built once (as at init).
    let (mut src, mut dst, mut pw, mut ph) = (img.dptr(), map.dptr(), w, h);
    let mut pre_args = [p(&mut src), p(&mut dst), p(&mut pw), p(&mut ph)];
    let (mut mp, mut mw, mut mh) = (map.dptr(), w / 2, h / 2);
    let (mut th, mut x0, mut x1) = (pp.threshold, pp.lane_x0, pp.lane_x1);
    let (mut rs, mut ro, mut hz, mut fh) = (pp.row_scale, pp.row_offset, pp.horizon, pp.fh);
    let mut od = out.dptr();
    let mut post_args = [
        p(&mut mp),
        p(&mut mw),
        p(&mut mh),
        p(&mut th),
        p(&mut x0),
        p(&mut x1),
        p(&mut rs),
        p(&mut ro),
        p(&mut hz),
        p(&mut fh),
        p(&mut od),
    ];
    let kernel = |f: CUfunction, args: &mut [*mut core::ffi::c_void]| CUDA_KERNEL_NODE_PARAMS {
        func: f,
        gridDimX: 1,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: 256,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        kernelParams: args.as_mut_ptr(),
        extra: null_mut(),
        kern: null_mut(),
        ctx: null_mut(),
    };
    let waitp = CUDA_EXT_SEM_WAIT_NODE_PARAMS {
        extSemArray: &mut ea,
        paramsArray: wp.as_ptr(),
        numExtSems: 1,
    };
    let signalp = CUDA_EXT_SEM_SIGNAL_NODE_PARAMS {
        extSemArray: &mut eb,
        paramsArray: sp.as_ptr(),
        numExtSems: 1,
    };
    let mut ops = [write_entry(flag.dptr(), 0)];
    let batch = |ops: &mut [CUstreamBatchMemOpParams]| CUDA_BATCH_MEM_OP_NODE_PARAMS {
        ctx: null_mut(),
        count: ops.len() as u32,
        paramArray: ops.as_mut_ptr(),
        flags: 0,
    };
    let (mut nw, mut n1, mut n2, mut ns, mut nd) =
        (null_mut(), null_mut(), null_mut(), null_mut(), null_mut());
    let mut g = null_mut();
    let mut e = null_mut();
    // SAFETY: every pointer is valid for the call; the fences and argument values outlive
    // the graph and its exec.
    unsafe {
        ck(cuGraphCreate(&mut g, 0));
        ck(cuGraphAddExternalSemaphoresWaitNode(
            &mut nw,
            g,
            null_mut(),
            0,
            &waitp,
        ));
        let kp = kernel(pre, &mut pre_args);
        ck(cuGraphAddKernelNode_v2(&mut n1, g, &nw, 1, &kp));
        let kq = kernel(post, &mut post_args);
        ck(cuGraphAddKernelNode_v2(&mut n2, g, &n1, 1, &kq));
        ck(cuGraphAddExternalSemaphoresSignalNode(
            &mut ns, g, &n2, 1, &signalp,
        ));
        ck(cuGraphAddBatchMemOpNode(
            &mut nd,
            g,
            &ns,
            1,
            &batch(&mut ops),
        ));
        ck(cuGraphInstantiateWithFlags(&mut e, g, 0));
        // Wrong node types for the semaphore updates.
        assert_eq!(
            cuGraphExecExternalSemaphoresWaitNodeSetParams(e, ns, &waitp),
            CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            cuGraphExecExternalSemaphoresSignalNodeSetParams(e, nw, &signalp),
            CUDA_ERROR_INVALID_VALUE
        );
        let two = CUDA_EXT_SEM_WAIT_NODE_PARAMS {
            numExtSems: 2,
            ..waitp
        };
        assert_eq!(
            cuGraphExecExternalSemaphoresWaitNodeSetParams(e, nw, &two),
            CUDA_ERROR_INVALID_VALUE,
            "count changed"
        );
    }

    let mut frame = |k: u64| {
        // SAFETY: every pointer below is valid for the call.
        unsafe {
            nv(NvSciSyncFenceUpdateFence(a, 0, k, &mut fa));
            ops[0] = write_entry(flag.dptr(), k);
            ck(cuGraphExecBatchMemOpNodeSetParams(e, nd, &batch(&mut ops)));
            ck(cuGraphExecExternalSemaphoresWaitNodeSetParams(
                e, nw, &waitp,
            ));
            ck(cuGraphExecExternalSemaphoresSignalNodeSetParams(
                e, ns, &signalp,
            ));
            ck(cuGraphExecKernelNodeSetParams_v2(
                e,
                n1,
                &kernel(pre, &mut pre_args),
            ));
            ck(cuGraphLaunch(e, s));
            // The launch reserved the signal: its fence is the k-th value.
            assert_eq!(fence_value(&fb), k);
            nv(NvSciSilClockAdvanceTo(1_000_000 + k * 1_000_000));
            nv(NvSciSyncObjSignal(a));
            nv(NvSciSyncFenceWait(&fb, waitctx, 5_000_000));
            ck(sync(s));
            assert_eq!(
                std::sync::atomic::AtomicU64::from_ptr(flag.ptr)
                    .load(std::sync::atomic::Ordering::Acquire),
                k
            );
        }
    };
    for k in 1..=10 {
        frame(k);
    }
    let mut want_map = vec![0i8; map.len];
    orin_exec_kernels::aeb_preprocess(img.slice(), &mut want_map, w, h).expect("model");
    assert_eq!(map.slice(), &want_map[..]);
    let mut want = [0i32; 4];
    orin_exec_kernels::aeb_postprocess(&want_map, w / 2, h / 2, &pp, &mut want).expect("model");
    assert_eq!(out.slice(), &want[..]);

    GLOBAL.start();
    for k in 11..=2_010 {
        frame(k);
    }
    GLOBAL.stop();
    assert_eq!(
        GLOBAL.allocations(),
        0,
        "heap allocations in the steady state"
    );
    // SAFETY: plain C calls on live handles.
    unsafe {
        ck(cuGraphExecDestroy(e));
        ck(cuGraphDestroy(g));
    }
    ck(destroy(s));
}
