//! Multi-threaded stress of the semaphore and wait code: engine and CPU signalers,
//! direct counter writers with `NvSciSyncSilCounterWritten`, fence waiters, counter
//! waiters and fence dup/clear, all at once. Run under ThreadSanitizer by `sil/tsan.sh`.
//!
//! Covers: REQ-SIL-006

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;

use common::*;

const N: u64 = 20_000;
const WAIT_US: i64 = 20_000_000;

#[derive(Clone, Copy)]
struct H<T>(T);
// SAFETY: the library's handles and SIL counters may be used from any thread.
unsafe impl<T> Send for H<T> {}

#[test]
fn signalers_waiters_and_writers() {
    let m = module();
    let mh = H(m);
    let eng = H(object(m, false, true, true)); // two engine signalers
    let cpu = H(object(m, true, true, true)); // one CPU signaler
    let raw = H(object(m, false, true, false)); // counter written directly
    let raw_counter = H(counter(raw.0));
    let mut threads = Vec::new();

    for t in 0..2u64 {
        threads.push(thread::spawn(move || {
            let eng = eng;
            for k in 0..N {
                // SAFETY: live handle.
                ok(unsafe { NvSciSyncSilObjSignalEngine(eng.0, t * N + k) });
            }
        }));
    }
    threads.push(thread::spawn(move || {
        let cpu = cpu;
        for _ in 0..N {
            let mut f = generate(cpu.0);
            signal(cpu.0);
            clear(&mut f);
        }
    }));
    threads.push(thread::spawn(move || {
        let c = raw_counter;
        for k in 1..=N {
            // SAFETY: a live SIL counter, only accessed atomically.
            unsafe { AtomicU64::from_ptr(c.0) }.fetch_add(1, Ordering::AcqRel);
            // SAFETY: a live SIL counter.
            ok(unsafe { NvSciSyncSilCounterWritten(c.0, k) });
        }
    }));
    // CPU waiters with their own contexts.
    for (obj, total) in [(eng, 2 * N), (cpu, N), (raw, N)] {
        threads.push(thread::spawn(move || {
            let (obj, mh) = (obj, mh);
            let ctx = context(mh.0);
            let mut k = 1;
            while k <= total {
                let mut f = update(obj.0, k);
                ok(wait(&f, ctx, WAIT_US));
                clear(&mut f);
                k += 7;
            }
            let mut f = update(obj.0, total);
            ok(wait(&f, ctx, WAIT_US));
            clear(&mut f);
            // SAFETY: live handle.
            unsafe { NvSciSyncCpuWaitContextFree(ctx) };
        }));
    }
    // Engine waiters and counter waiters.
    threads.push(thread::spawn(move || {
        let (eng, c) = (eng, raw_counter);
        let mut reached = 0;
        for k in (1..=2 * N).step_by(13) {
            let mut f = update(eng.0, k);
            // SAFETY: locals.
            ok(unsafe { NvSciSyncSilFenceWaitEngine(&f, WAIT_US, &mut reached) });
            clear(&mut f);
        }
        for k in (1..=N).step_by(11) {
            // SAFETY: a live SIL counter.
            ok(unsafe { NvSciSyncSilCounterWait(c.0, k, 0, WAIT_US, &mut reached) });
        }
    }));
    // Fence dup/clear churn and timestamp reads on the engine object.
    threads.push(thread::spawn(move || {
        let eng = eng;
        let mut a = update(eng.0, 1);
        for k in 0..N {
            let mut b = cleared();
            // SAFETY: locals.
            ok(unsafe { NvSciSyncFenceDup(&a, &mut b) });
            clear(&mut a);
            a = b;
            let _ = signal_ts(eng.0, k);
        }
        clear(&mut a);
    }));
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(load(counter(eng.0)), 2 * N);
    assert_eq!(load(counter(cpu.0)), N);
    assert_eq!(load(raw_counter.0), N);
    // SAFETY: live handles.
    unsafe {
        NvSciSyncObjFree(eng.0);
        NvSciSyncObjFree(cpu.0);
        NvSciSyncObjFree(raw.0);
    }
}

#[test]
fn sync_point_engine_fences_and_waits() {
    let m = module();
    let mh = H(m);
    // A sync point with an engine signaler and a CPU waiter.
    let s = list(
        m,
        Opts {
            perm: Some(NvSciSyncAccessPerm_SignalOnly),
            cpu: Some(false),
            ..Opts::default()
        },
    );
    let w = waiter(m, true, true);
    let sp = H(alloc(&[s, w]));
    let mut threads = Vec::new();
    for t in 0..2u64 {
        threads.push(thread::spawn(move || {
            let (sp, mh) = (sp, mh);
            let ctx = context(mh.0);
            for k in 0..N {
                let mut f = cleared();
                // SAFETY: locals and a live handle.
                unsafe {
                    ok(NvSciSyncSilObjEngineFence(sp.0, &mut f));
                    ok(NvSciSyncSilObjSignalEngine(sp.0, t * N + k));
                }
                // Another thread's signal may have reached it first: either way it expires.
                ok(wait(&f, ctx, WAIT_US));
                let mut reached = 0;
                // SAFETY: locals.
                ok(unsafe { NvSciSyncSilFenceWaitEngine(&f, WAIT_US, &mut reached) });
                clear(&mut f);
            }
            // SAFETY: live handle.
            unsafe { NvSciSyncCpuWaitContextFree(ctx) };
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    // Every reservation was signalled: the next one is 2N + 1.
    let mut f = cleared();
    // SAFETY: locals and a live handle.
    ok(unsafe { NvSciSyncSilObjEngineFence(sp.0, &mut f) });
    assert_eq!(extract(&f).unwrap().1, 2 * N + 1);
    clear(&mut f);
    // SAFETY: live handles.
    unsafe {
        NvSciSyncObjFree(sp.0);
        NvSciSyncAttrListFree(s);
        NvSciSyncAttrListFree(w);
    }
}
