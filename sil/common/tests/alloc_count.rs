//! The counting allocator: which threads count, and the backtrace recording. One `main`
//! (no libtest harness), so that the checks run one after another on the process's main
//! thread and share the global allocator without interference.
//!
//! Covers: REQ-RT-009
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::{Arc, Barrier};
use std::thread;

use sil_common::alloc_count::{BACKTRACES_ENV, CountingAlloc, on_main_thread};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::all_threads();

/// One heap allocation the optimiser cannot remove.
fn allocate_once() {
    drop(black_box(Box::new(black_box(7u64))));
}

/// Started on the main thread: the main thread and other threads count.
fn started_on_main_counts_every_thread() {
    assert!(on_main_thread());
    let h = thread::spawn(|| assert!(!on_main_thread()));
    h.join().unwrap();
    let before = A.allocations();
    A.start();
    allocate_once();
    A.stop();
    assert_eq!(A.allocations() - before, 1, "the main thread counts");

    let gate = Arc::new(Barrier::new(2));
    let g = gate.clone();
    let h = thread::spawn(move || {
        g.wait();
        allocate_once();
        g.wait();
    });
    let before = A.allocations();
    A.start();
    gate.wait();
    gate.wait();
    A.stop();
    h.join().unwrap();
    assert_eq!(A.allocations() - before, 1, "another thread counts");
}

/// Started on another thread (as in a libtest test): that thread counts, the main thread
/// (the harness) does not.
fn started_elsewhere_skips_the_main_thread() {
    let gate = Arc::new(Barrier::new(2));
    let g = gate.clone();
    let h = thread::spawn(move || {
        let before = A.allocations();
        A.start();
        g.wait(); // the main thread allocates now
        g.wait();
        allocate_once();
        A.stop();
        A.allocations() - before
    });
    gate.wait();
    allocate_once();
    gate.wait();
    assert_eq!(
        h.join().unwrap(),
        1,
        "only the starting thread's allocation"
    );
}

/// `record_backtraces(n)` keeps the first `n` counted allocations' backtraces; the
/// recording itself is not counted.
fn backtraces_of_the_first_allocations() {
    // `start` takes the environment's number instead, when it is set.
    let n = std::env::var(BACKTRACES_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(2usize);
    A.record_backtraces(2);
    let before = A.allocations();
    A.start();
    for _ in 0..3 {
        allocate_once();
    }
    A.stop();
    assert_eq!(A.allocations() - before, 3, "the captures are not counted");
    let text = A.backtraces();
    assert_eq!(
        text.matches("--- counted allocation").count(),
        n.min(3),
        "{text}"
    );
    A.record_backtraces(0);
    assert!(A.backtraces().is_empty());
}

fn main() {
    started_on_main_counts_every_thread();
    started_elsewhere_skips_the_main_thread();
    backtraces_of_the_first_allocations();
    println!("alloc_count: 3 checks passed");
}
