//! Dependencies that a CUDA stream already orders get no semaphore wait: a chain of the
//! user's kernel, two tasks on stream 0 and a third on stream 1, between two CPU tasks. The
//! wait of the second kernel on the first is left out (same stream, issued first); the
//! third's wait on the second (another stream) and every wait on a CPU task stay. Every
//! frame's output is checked, so a left-out wait that the stream did not order would show.
//!
//! The same chain on the real clock runs each `cpu_wait` policy of the last kernel: a
//! spinning policy reports the CPU time spun, blocking reports none; with blocking waits and
//! GPU timer stamps the executive looks at the runs when they are due, not at each completion.
#![cfg(feature = "sil")]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use orin_exec::engine::cpu::CpuCtx;
use orin_exec::exec::{CpuTask, Storage, TaskFault};
use orin_exec::table::*;

mod user_kernel;
use user_kernel::chain::{self, IN, LAST, OTHER_STREAM, SECOND, VERIFY};
use user_kernel::{K, KERNEL, N, SCALE_INDEX, user_cubin};

fn schedule(cpu_waits: &'static [CpuWait], fallback_mode: bool) -> &'static Schedule {
    chain::schedule(chain::Options {
        name: "stream_order",
        graph: false,
        copies: 1,
        first_waits_last: false,
        cpu_waits,
        fallback_mode,
    })
}

static GOOD: AtomicU64 = AtomicU64::new(0);

/// The SIL clock and `GOOD` are process-wide: one run at a time.
static ONE_RUN: Mutex<()> = Mutex::new(());

fn sealed(
    schedule: &'static Schedule,
    virtual_clock: bool,
    gpu_timestamps: bool,
) -> orin_exec::exec::Executive {
    GOOD.store(0, Ordering::Relaxed);
    let storage = Storage::<6, 4, 4, 1>::new();
    chain::builder(schedule, storage, virtual_clock, gpu_timestamps)
        .bind(VERIFY, Box::leak(Box::new(Verify)))
        .init()
        .expect("init")
        .seal()
        .expect("seal")
}

/// Counts the frames whose `last` is the kernel applied three times to `in`.
struct Verify;

impl CpuTask for Verify {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        let (input, last) = (ctx.read_as::<i32>(IN)?, ctx.read_as::<i32>(LAST)?);
        let step = |x: i32, i: usize| x.wrapping_mul(K).wrapping_add(i as i32);
        let ok = (0..N as usize).all(|i| last[i] == step(step(step(input[i], i), i), i));
        if ok {
            GOOD.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// Covers: REQ-GPU-015
#[test]
fn a_wait_the_stream_already_orders_is_left_out() {
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &SCALE_INDEX).expect("model");
    for gpu_timestamps in [true, false] {
        let mut exec = sealed(schedule(&[], false), true, gpu_timestamps);
        let frames = 200;
        let mut faults = 0;
        for _ in 0..frames {
            faults += exec.step().expect("step").faults;
        }
        let stats = exec.submit_stats();
        exec.shutdown().expect("shutdown");
        assert_eq!(faults, 0);
        assert_eq!(GOOD.load(Ordering::Relaxed), frames);
        // Frames submitted: the run's and the lookahead's, three GPU tasks each.
        let submitted = stats.gpu_tasks / 3;
        assert_eq!(stats.gpu_tasks, 3 * submitted);
        assert!(submitted >= frames, "{stats:?}");
        // Per frame one wait left out (second on first), two kept (first on produce, the
        // other stream's on second); per task a launch and a signal, and two stamps when on.
        assert_eq!(stats.waits_elided, submitted, "{stats:?}");
        let stamps = if gpu_timestamps { 2 } else { 0 };
        assert_eq!(
            stats.stream_ops,
            submitted * (2 + 3 * (2 + stamps)),
            "{stats:?}"
        );
        assert!(stats.gpu_enqueue_ns > 0);
    }
}

/// Covers: REQ-RT-014
#[test]
fn a_spinning_cpu_wait_reports_its_cpu_time_and_blocking_none() {
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &SCALE_INDEX).expect("model");
    let spin_last: &'static [CpuWait] = Box::leak(Box::new([
        CpuWait::Block,
        CpuWait::Block,
        CpuWait::Block,
        // A window from the release to half the deadline, then blocking.
        CpuWait::Spin {
            from_ns: 0,
            until_ns: 5_000_000,
        },
        CpuWait::Block,
    ]));
    for (waits, spins) in [(spin_last, true), (&[][..], false)] {
        let mut exec = sealed(schedule(waits, false), false, false);
        let frames = 20;
        let mut faults = 0;
        for _ in 0..frames {
            faults += exec.step().expect("step").faults;
        }
        let recent: Vec<_> = exec.recent_faults().map(|f| (f.frame, f.error)).collect();
        let spun = |t| exec.counters(t).spin_ns;
        // The verifier's worker waits for the last kernel; the executive monitors it.
        let (worker, executive, others) = (spun(VERIFY), spun(OTHER_STREAM), spun(SECOND));
        exec.shutdown().expect("shutdown");
        // Real time on a possibly loaded machine: faults may happen, but frames complete.
        assert!(
            GOOD.load(Ordering::Relaxed) > 0,
            "{faults} faults: {recent:?}"
        );
        assert_eq!(others, 0, "a blocking task's waits never spin");
        if spins {
            assert!(worker > 0 && executive > 0, "{worker} {executive}");
        } else {
            assert_eq!((worker, executive), (0, 0));
        }
    }
}

/// Covers: REQ-RT-018
#[test]
fn the_executive_looks_at_blocking_timestamped_runs_when_they_are_due() {
    let _one = ONE_RUN.lock().unwrap_or_else(|e| e.into_inner());
    orin_exec::sil::register_kernel_model(user_cubin(), KERNEL, &SCALE_INDEX).expect("model");
    // Every task blocks, the GPU stamps its runs, and all five share the 10 ms deadline:
    // the executive sleeps to the release and, while a run is pending, to the deadline,
    // then finds the rest done. Woken by each completion it would wake about six times. A
    // task with a 10 µs deadline in another mode must not cut the sleep short.
    for fallback_mode in [false, true] {
        let mut exec = sealed(schedule(&[], fallback_mode), false, true);
        let (warmup, frames) = (5, 40);
        for _ in 0..warmup {
            exec.step().expect("step");
        }
        let before = orin_exec::engine::os::thread_usage().expect("per-thread usage (Linux)");
        let mut faults = 0;
        for _ in 0..frames {
            faults += exec.step().expect("step").faults;
        }
        let spent = orin_exec::engine::os::thread_usage()
            .expect("usage")
            .since(before);
        let recent: Vec<_> = exec.recent_faults().map(|f| (f.frame, f.error)).collect();
        exec.shutdown().expect("shutdown");
        assert!(
            GOOD.load(Ordering::Relaxed) > 0,
            "{faults} faults: {recent:?}"
        );
        let per_frame = spent.wakeups as f64 / frames as f64;
        // Two sleeps a frame, plus slack for a lock contended on a loaded machine.
        assert!(
            per_frame <= 3.0,
            "{per_frame} wake-ups per frame (fallback mode: {fallback_mode}): the executive \
             was woken by completions"
        );
    }
}
