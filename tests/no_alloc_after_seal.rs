//! No allocation after `seal()`: a counting global allocator watches 10,000 frames of the
//! GPU→DLA→CPU mini pipeline (every thread of the process counts: the executive, the CPU
//! workers and the SIL engines' worker threads), with the GPU engine in stream mode and in
//! graph mode, and 10,000 frames of the CPU→PVA→CPU pipeline of `common::pva` (the SIL
//! cuPVA's stream worker counts too). A control case shows the counter counts.
//!
//! This test has its own `main` (no libtest harness), so no test-runner thread allocates
//! behind our back.
//!
//! Covers: REQ-RT-009, REQ-GPU-017, REQ-PVA-075

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use common::*;
use orin_exec::exec::{Builder, Config};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
/// `ALLOC_BACKTRACE=1`: print where a counted allocation came from.
static BACKTRACE: AtomicBool = AtomicBool::new(false);

// SAFETY: delegates every call to the system allocator; only adds a counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            if BACKTRACE.load(Ordering::Relaxed) && COUNTING.swap(false, Ordering::SeqCst) {
                eprintln!(
                    "allocation of {} bytes:\n{}",
                    layout.size(),
                    std::backtrace::Backtrace::force_capture()
                );
                COUNTING.store(true, Ordering::SeqCst);
            }
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn counted<T>(f: impl FnOnce() -> T) -> (T, u64) {
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    let r = f();
    COUNTING.store(false, Ordering::SeqCst);
    (r, ALLOCATIONS.load(Ordering::SeqCst))
}

static GOOD: AtomicU64 = AtomicU64::new(0);
static BAD: AtomicU64 = AtomicU64::new(0);
const FRAMES: u64 = 10_000;

fn main() {
    BACKTRACE.store(
        std::env::var_os("ALLOC_BACKTRACE").is_some(),
        Ordering::Relaxed,
    );
    // Control: the counter sees allocations.
    let (v, control) = counted(|| std::hint::black_box(vec![1u8; 64]));
    drop(v);
    assert!(control >= 1, "the counting allocator does not count");
    for gpu_graph in [false, true] {
        run(gpu_graph);
    }
    #[cfg(feature = "sil")]
    run_pva();
    println!(
        "no_alloc_after_seal: {FRAMES} frames per GPU submission mode and with a PVA task, 0 allocations after seal (control counted {control})"
    );
}

fn run(gpu_graph: bool) {
    GOOD.store(0, Ordering::Relaxed);
    BAD.store(0, Ordering::Relaxed);
    let storage = Box::leak(Box::new(MiniStorage::new()));
    let check = Box::leak(Box::new(Check {
        good: &GOOD,
        bad: &BAD,
        expected: expected_detection(),
    }));
    let variant = Variant {
        gpu_graph,
        ..Variant::default()
    };
    let runtime = Builder::new(schedule(variant), storage)
        .config(Config {
            virtual_clock: true,
            realtime_priority: None,
            ..Config::default()
        })
        .bind(INPUT, Box::leak(Box::new(Input)))
        .bind(CHECK, check)
        .init()
        .expect("init");
    let (exec, seal_allocations) = counted(|| runtime.seal());
    let mut exec = exec.expect("seal");
    assert_eq!(seal_allocations, 0, "seal() allocated");

    let (result, allocations) = counted(|| {
        for _ in 0..FRAMES {
            exec.step()?;
        }
        Ok::<(), orin_exec::Error>(())
    });
    result.expect("run");
    let graph_launches = exec.submit_stats().graph_launches;
    exec.shutdown().expect("shutdown");
    // Graph mode launches a graph every frame but the first (its lag-1 waits are not
    // planned there); stream mode none.
    if gpu_graph {
        assert!(
            graph_launches >= FRAMES - 1,
            "{graph_launches} graph launches"
        );
    } else {
        assert_eq!(graph_launches, 0);
    }
    assert_eq!(
        GOOD.load(Ordering::Relaxed),
        FRAMES,
        "golden output mismatch"
    );
    assert_eq!(BAD.load(Ordering::Relaxed), 0);
    assert_eq!(
        allocations, 0,
        "graph mode {gpu_graph}: {allocations} allocations after seal over {FRAMES} frames"
    );
}

#[cfg(feature = "sil")]
/// The PVA pipeline: fence imports, the submission, the fence export and the command-status
/// checks of every frame allocate nothing.
fn run_pva() {
    let c = pva::counts();
    let s = pva::schedule(pva::Setup::default());
    let mut exec = pva::init(s, &c).expect("init and seal");
    let (result, allocations) = counted(|| {
        for _ in 0..FRAMES {
            exec.step()?;
        }
        Ok::<(), orin_exec::Error>(())
    });
    result.expect("run");
    assert_eq!(exec.submit_stats().pva_tasks, FRAMES + 1);
    exec.shutdown().expect("shutdown");
    assert_eq!(
        c.good.load(Ordering::Relaxed),
        FRAMES,
        "PVA output mismatch"
    );
    assert_eq!(
        allocations, 0,
        "PVA pipeline: {allocations} allocations after seal over {FRAMES} frames"
    );
}
