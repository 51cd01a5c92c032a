//! Graph submission (`submit = "graph"`) against the stream path on the same schedule: a CPU
//! producer, two kernels on stream 0 (graph or stream mode), one on stream 1 (stream mode),
//! a CPU verifier. The first kernel also waits for the last kernel of the frame before, so
//! frame 0 (where that dependency is not planned) takes the stream path in graph mode too,
//! and every later frame is one graph launch. Two intermediate buffers have two copies, so the
//! kernel parameters change from frame to frame. Outputs, fence values (the trace's submit
//! records), task counters and submission counts must be the same in both modes, with frames
//! in flight (lookahead 1), GPU timestamps on and off.
//!
//! Covers: REQ-GPU-017
#![cfg(feature = "sil")]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{CpuTask, Executive, Storage, SubmitStats, TaskCounters, TaskFault};
use orin_exec::table::*;
use orin_exec::trace::ring::Pop;
use orin_exec::trace::{Event, Record};

mod user_kernel;
use user_kernel::chain::{
    self, IN, LAST, MID, MS, PRODUCE, VERIFY, buffer, check, engines, gpu, task,
};
use user_kernel::{K, KERNEL, N, SCALE_INDEX, leak, user_cubin};

fn chain(graph: bool) -> &'static Schedule {
    chain::schedule(chain::Options {
        name: "graph_submit",
        graph,
        copies: 2,
        first_waits_last: true,
        cpu_waits: &[],
        fallback_mode: false,
    })
}

/// Per frame, a checksum of `last`, and how many frames were wrong.
static OUTPUTS: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());
static BAD: AtomicU64 = AtomicU64::new(0);

/// The SIL clock and the statics are process-wide: one run at a time.
static ONE_RUN: Mutex<()> = Mutex::new(());

/// Checks `last` is the kernel applied three times to `in` and records its checksum.
struct Verify(BufferId, u32);

impl CpuTask for Verify {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let (input, last) = (ctx.read_as::<i32>(IN)?, ctx.read_as::<i32>(self.0)?);
        let mut x: Vec<i32> = input.to_vec();
        for _ in 0..self.1 {
            for (i, v) in x.iter_mut().enumerate() {
                *v = v.wrapping_mul(K).wrapping_add(i as i32);
            }
        }
        if x[..] != last[..N as usize] {
            BAD.fetch_add(1, Ordering::Relaxed);
        }
        let sum = last.iter().fold(0u64, |h, &v| {
            h.wrapping_mul(31).wrapping_add(v as u32 as u64)
        });
        OUTPUTS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((ctx.frame(), sum));
        Ok(())
    }
}

fn sealed<const T: usize>(
    schedule: &'static Schedule,
    verify: (TaskId, Verify),
    virtual_clock: bool,
    gpu_timestamps: bool,
) -> orin_exec::Result<Executive> {
    OUTPUTS.lock().unwrap_or_else(|e| e.into_inner()).clear();
    BAD.store(0, Ordering::Relaxed);
    chain::builder(
        schedule,
        Storage::<T, 4, 8, 1>::new(),
        virtual_clock,
        gpu_timestamps,
    )
    .bind(verify.0, Box::leak(Box::new(verify.1)))
    .init()?
    .seal()
}

/// What one run shows: outputs, submit records (frame, task, fence value), the other
/// records' kinds, per-task counters, submission counts.
#[derive(Debug)]
struct Run {
    outputs: Vec<(u64, u64)>,
    submits: Vec<(u64, u16, u64)>,
    events: Vec<(u64, u16, u16)>,
    counters: Vec<TaskCounters>,
    faults: u32,
    bad: u64,
    /// The last faults (frame, task, error), for the messages.
    recent: Vec<String>,
}

/// The runs agree (compared part by part: a whole run prints too long to read).
fn assert_same(graph: &Run, stream: &Run) {
    let first = |a: &[(u64, u64)], b: &[(u64, u64)]| a.iter().zip(b).position(|(x, y)| x != y);
    assert_eq!(graph.outputs.len(), stream.outputs.len());
    assert_eq!(
        first(&graph.outputs, &stream.outputs),
        None,
        "outputs differ"
    );
    assert_eq!(graph.submits.len(), stream.submits.len());
    let diff = graph
        .submits
        .iter()
        .zip(&stream.submits)
        .find(|(a, b)| a != b);
    assert_eq!(
        diff, None,
        "submit records (frame, task, fence value) differ"
    );
    assert_eq!(graph.events.len(), stream.events.len());
    let diff = graph
        .events
        .iter()
        .zip(&stream.events)
        .find(|(a, b)| a != b);
    assert_eq!(diff, None, "trace events differ");
    assert_eq!(graph.counters, stream.counters);
    assert_eq!((graph.faults, graph.bad), (stream.faults, stream.bad));
}

fn drain(exec: &Executive, run: &mut Run) {
    loop {
        match exec.trace().pop() {
            Pop::Record(Record {
                frame,
                task,
                event,
                value,
                ..
            }) => match event {
                Event::Submit => run.submits.push((frame, task, value)),
                // Release errors and execution times are clock readings, not outcomes.
                e => run.events.push((frame, task, e.code())),
            },
            Pop::Lost(n) => panic!("{n} trace records lost"),
            Pop::Empty => break,
        }
    }
}

fn run_chain(
    graph: bool,
    virtual_clock: bool,
    gpu_timestamps: bool,
    frames: u64,
) -> (Run, SubmitStats) {
    let mut exec = sealed::<5>(
        chain(graph),
        (VERIFY, Verify(LAST, 3)),
        virtual_clock,
        gpu_timestamps,
    )
    .expect("init");
    let mut run = Run {
        outputs: Vec::new(),
        submits: Vec::new(),
        events: Vec::new(),
        counters: Vec::new(),
        faults: 0,
        bad: 0,
        recent: Vec::new(),
    };
    for _ in 0..frames {
        run.faults += exec.step().expect("step").faults;
        drain(&exec, &mut run);
    }
    run.counters = (0..5).map(|t| exec.counters(TaskId(t))).collect();
    // CPU workers record their tasks' times from their own threads: the order in which their
    // records and the executive's meet in the ring is not part of the outcome.
    run.events.sort_unstable();
    let stats = exec.submit_stats();
    run.recent = exec
        .recent_faults()
        .map(|f| format!("frame {} task {}: {}", f.frame, f.task.0, f.error))
        .collect();
    let shutdown = exec.shutdown();
    assert!(
        shutdown.is_ok(),
        "shutdown: {shutdown:?}; faults {:?}",
        run.recent
    );
    run.outputs = std::mem::take(&mut *OUTPUTS.lock().unwrap_or_else(|e| e.into_inner()));
    run.bad = BAD.load(Ordering::Relaxed);
    (run, stats)
}

#[test]
fn graph_mode_matches_stream_mode_on_the_virtual_clock() {
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &SCALE_INDEX).expect("model");
    let frames = 120;
    for gpu_timestamps in [false, true] {
        let (stream, s) = run_chain(false, true, gpu_timestamps, frames);
        let (graph, g) = run_chain(true, true, gpu_timestamps, frames);
        assert_eq!((stream.faults, stream.bad), (0, 0));
        assert_eq!(stream.outputs.len() as u64, frames);
        assert_same(&graph, &stream);
        // Frames submitted: the run's and the lookahead's; all but frame 0 (its lag-1 wait
        // is not planned) went out as one graph of stream 0.
        let submitted = s.gpu_tasks / 3;
        assert!(submitted > frames, "{s:?}");
        assert_eq!(s.graph_launches, 0);
        assert_eq!(g.graph_launches, submitted - 1, "{g:?}");
        // The same driver operations and left-out waits either way.
        assert_eq!(
            (g.gpu_tasks, g.stream_ops, g.waits_elided),
            (s.gpu_tasks, s.stream_ops, s.waits_elided),
            "{g:?} {s:?}"
        );
        assert!(g.gpu_enqueue_ns > 0);
    }
}

#[test]
fn graph_mode_delivers_every_frame_on_the_real_clock() {
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &SCALE_INDEX).expect("model");
    let frames = 30;
    // Each frame's output, from the stream path on the virtual clock (and the lookahead's).
    let (reference, _) = run_chain(false, true, false, frames + 2);
    for gpu_timestamps in [false, true] {
        let (graph, g) = run_chain(true, false, gpu_timestamps, frames);
        // Real time on a possibly loaded machine: faults may happen, wrong outputs may not.
        assert_eq!(graph.bad, 0);
        assert!(!graph.outputs.is_empty());
        assert!(g.graph_launches > 0, "{g:?}");
        // A frame with a fault (a timeout on a loaded machine) may see another frame's data
        // (stale, not wrong): every output is some frame's output of the stream path.
        for (frame, sum) in &graph.outputs {
            assert!(
                reference.outputs.iter().any(|(_, s)| s == sum),
                "frame {frame}: an output no frame produced; faults {:?}",
                graph.recent
            );
        }
    }
}

/// `kernels` kernels on one graph-mode stream, each waiting for the producer: 4 nodes each
/// (two timer stamps, the launch, the signal) and one for the wait.
fn wide(kernels: usize) -> ScheduleTables {
    let w = |task, lag| Wait { task, lag };
    let mut tasks = vec![task(
        "produce",
        0,
        Work::Cpu,
        (vec![], vec![IN]),
        vec![w(TaskId(kernels as u16 + 1), 1)],
    )];
    for k in 0..kernels {
        let name: &'static str = Box::leak(format!("k{k}").into_boxed_str());
        tasks.push(task(
            name,
            1,
            gpu(IN, MID),
            (vec![IN], vec![MID]),
            vec![w(PRODUCE, 0)],
        ));
    }
    tasks.push(task(
        "verify",
        0,
        Work::Cpu,
        (vec![IN, MID], vec![]),
        vec![w(TaskId(kernels as u16), 0)],
    ));
    // Short kernels: all of them in a row fit the period.
    for t in &mut tasks {
        t.wcet_ns = MS / 10;
    }
    ScheduleTables {
        name: "graph_wide",
        profile: "sil",
        period_ns: 10 * MS,
        minor_frames_ns: &[0],
        lookahead: 0,
        threads: &[],
        engines: engines(true),
        buffers: leak(vec![buffer("in", 1), buffer("mid", 1)]),
        tasks: leak(tasks),
        modes: leak(vec![ModeDesc { name: "normal" }]),
        health: &[],
        cubins: leak(vec![*user_cubin()]),
        loadables: &[],
        pva_programs: &[],
        timeline: &[],
        cpu_waits: &[],
    }
}

/// 12 kernels (60 nodes with timer stamps) fit the graph and run; 13 (65 nodes) are refused
/// by `Schedule::check` with the limit, before init.
#[test]
fn a_graph_that_does_not_fit_is_refused_by_the_check() {
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &SCALE_INDEX).expect("model");
    let verify = || (TaskId(13), Verify(MID, 1));
    let mut exec = sealed::<14>(check(wide(12)), verify(), true, true).expect("60 nodes fit");
    for _ in 0..5 {
        assert_eq!(exec.step().expect("step").faults, 0);
    }
    let stats = exec.submit_stats();
    exec.shutdown().expect("shutdown");
    assert_eq!(BAD.load(Ordering::Relaxed), 0);
    assert!(stats.graph_launches >= 5, "{stats:?}");
    assert_eq!(
        Schedule::check(Box::leak(Box::new(wide(13)))).err(),
        Some(TableError::Limit {
            limit: Limit::GraphNodes,
            name: "gpu0",
            value: 65,
        })
    );
}
