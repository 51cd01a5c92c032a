//! Objects, fences, waits, timestamps and the SIL extension calls (real time).

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use common::*;

const BAD: NvSciError = NvSciError_BadParameter;

/// Covers: REQ-SYNC-004
#[test]
fn deterministic_counter_adds_exactly_one() {
    let m = module();
    let ctx = context(m);
    let o = object(m, true, true, false);
    let c = counter(o);
    assert_eq!(c.addr() % 4096, 0, "counter alone in a page-aligned page");
    assert_eq!(load(c), 0);
    for k in 1..=1000u64 {
        let f = generate(o);
        assert_eq!(extract(&f), Ok((0, k)));
        assert_eq!(wait(&f, ctx, 0), NvSciError_Timeout);
        signal(o);
        assert_eq!(load(c), k);
        ok(wait(&f, ctx, 0));
        let mut f = f;
        clear(&mut f);
    }
    // The counter address is stable for the object's life.
    assert_eq!(counter(o), c);
    // SAFETY: handles from this library.
    unsafe {
        NvSciSyncObjFree(o);
        NvSciSyncCpuWaitContextFree(ctx);
    }
}

/// Covers: REQ-SYNC-006
#[test]
fn cpu_signal_needs_a_cpu_signaler() {
    let m = module();
    let o = object(m, false, true, false);
    let mut f = cleared();
    // SAFETY: locals and handles.
    unsafe {
        assert_eq!(NvSciSyncObjGenerateFence(o, &mut f), BAD);
        assert_eq!(NvSciSyncObjSignal(o), BAD);
        assert_eq!(NvSciSyncObjSignal(null_mut()), BAD);
        assert_eq!(NvSciSyncObjSignal(bogus()), BAD);
        assert_eq!(NvSciSyncObjGenerateFence(bogus(), &mut f), BAD);
        let o2 = object(m, true, false, false);
        assert_eq!(NvSciSyncObjGenerateFence(o2, null_mut()), BAD);
        // Engines still signal it.
        ok(NvSciSyncSilObjSignalEngine(o, 5));
        assert_eq!(load(counter(o)), 1);
        assert_eq!(NvSciSyncSilObjSignalEngine(bogus(), 5), BAD);
    }
}

/// Covers: REQ-SYNC-006, REQ-SIL-004
#[test]
fn fence_wait_arguments() {
    let m = module();
    let ctx = context(m);
    let o = object(m, true, true, false);
    let f = generate(o);
    let c = cleared();
    // SAFETY: locals and handles; NULL and bogus values are checked by the library.
    unsafe {
        // A cleared fence is expired.
        ok(NvSciSyncFenceWait(&c, ctx, 0));
        ok(NvSciSyncFenceWait(&c, ctx, -1));
        assert_eq!(NvSciSyncFenceWait(std::ptr::null(), ctx, 0), BAD);
        assert_eq!(NvSciSyncFenceWait(&f, null_mut(), 0), BAD);
        assert_eq!(NvSciSyncFenceWait(&f, bogus(), 0), BAD);
        assert_eq!(NvSciSyncFenceWait(&f, ctx, -2), BAD);
        assert_eq!(
            NvSciSyncFenceWait(&f, ctx, NvSciSyncFenceMaxTimeout + 1),
            BAD
        );
        assert_eq!(NvSciSyncFenceWait(&f, ctx, i64::MIN), BAD);
        // Timeout 0x200 on expiry, after at least the timeout.
        let t = Instant::now();
        assert_eq!(NvSciSyncFenceWait(&f, ctx, 2000), NvSciError_Timeout);
        assert!(t.elapsed() >= Duration::from_micros(2000));
        assert_eq!(NvSciError_Timeout.0, 0x200);
        // The largest timeout is accepted (the fence is expired, so it returns at once).
        signal(o);
        ok(NvSciSyncFenceWait(&f, ctx, NvSciSyncFenceMaxTimeout));
        // A context of another module.
        let ctx2 = context(module());
        assert_eq!(NvSciSyncFenceWait(&f, ctx2, 0), BAD);
        // A garbage fence.
        let mut g = f;
        g.payload[3] += 1;
        assert_eq!(NvSciSyncFenceWait(&g, ctx, 0), BAD);
        // No CPU wait permission: the waiter's list had no NeedCpuAccess.
        let o3 = object(m, true, false, false);
        let f3 = generate(o3);
        assert_eq!(NvSciSyncFenceWait(&f3, ctx, 0), BAD);
        // Wait modes.
        ok(NvSciSyncFenceWaitWithMode(
            &f,
            ctx,
            0,
            NvSciSyncWaitMode_Default,
        ));
        ok(NvSciSyncFenceWaitWithMode(
            &f,
            ctx,
            0,
            NvSciSyncWaitMode_BusyWithYield,
        ));
        ok(NvSciSyncFenceWaitWithMode(
            &f,
            ctx,
            0,
            NvSciSyncWaitMode_BusyNoYield,
        ));
        assert_eq!(
            NvSciSyncFenceWaitWithMode(&f, ctx, 0, NvSciSyncWaitMode_Blocking),
            NvSciError_UnsupportedConfig
        );
        assert_eq!(
            NvSciSyncFenceWaitWithMode(&f, ctx, 0, NvSciSyncWaitMode(4)),
            BAD
        );
        ok(NvSciSyncFenceWaitWithMode(
            &c,
            ctx,
            0,
            NvSciSyncWaitMode_Blocking,
        ));
        let f4 = generate(o);
        assert_eq!(
            NvSciSyncFenceWaitWithMode(&f4, ctx, 1000, NvSciSyncWaitMode_BusyNoYield),
            NvSciError_Timeout
        );
        // A zero timeout is one look, also for the spinning mode.
        assert_eq!(
            NvSciSyncFenceWaitWithMode(&f4, ctx, 0, NvSciSyncWaitMode_BusyNoYield),
            NvSciError_Timeout
        );
    }
}

/// Moves a handle or pointer into another thread.
#[derive(Clone, Copy)]
struct Send<T>(T);
// SAFETY: the library's handles and SIL counters may be used from any thread.
unsafe impl<T> std::marker::Send for Send<T> {}

/// Covers: REQ-SYNC-006
#[test]
fn cpu_signal_wakes_a_blocked_waiter() {
    let m = module();
    let o = object(m, true, true, false);
    let f = generate(o);
    let h = Send(o);
    let signaller = thread::spawn(move || {
        let h = h;
        thread::sleep(Duration::from_millis(20));
        let before = Instant::now();
        signal(h.0);
        before
    });
    let ctx = context(m);
    ok(wait(&f, ctx, -1));
    let woke = Instant::now();
    let signalled = signaller.join().unwrap();
    assert!(woke >= signalled);
    // A liveness bound, not a latency judgement (the wait has no timeout; the wake-up count is
    // checked in tests/wakeups.rs): loose enough for a fully loaded host.
    assert!(woke - signalled < Duration::from_secs(2));
}

/// Covers: REQ-SYNC-006
#[test]
fn one_wait_at_a_time_per_context() {
    let m = module();
    let ctx = context(m);
    let o = object(m, true, true, false);
    let f = generate(o);
    let (hc, hf) = (Send(ctx), Send(f));
    let t = thread::spawn(move || {
        let (hc, hf) = (hc, hf);
        wait(&hf.0, hc.0, 2_000_000)
    });
    thread::sleep(Duration::from_millis(30));
    // The same context in a second thread while the first waits.
    assert_eq!(wait(&f, ctx, 0), BAD);
    // Another context is fine.
    assert_eq!(wait(&f, context(m), 0), NvSciError_Timeout);
    signal(o);
    ok(t.join().unwrap());
    // Free again once the wait ended.
    ok(wait(&f, ctx, 0));
}

/// Covers: REQ-SYNC-005
#[test]
fn fence_operations() {
    let m = module();
    let o = object(m, true, true, false);
    let c = cleared();
    assert_eq!(extract(&c), Err(NvSciError_ClearedFence));
    let mut f = update(o, u64::MAX);
    assert_eq!(extract(&f), Ok((0, u64::MAX)));
    let (mut id, mut v) = (0, 0);
    // SAFETY: locals and handles; NULL and bogus values are checked by the library.
    unsafe {
        assert_eq!(NvSciSyncFenceExtractFence(&f, null_mut(), &mut v), BAD);
        assert_eq!(NvSciSyncFenceExtractFence(&f, &mut id, null_mut()), BAD);
        assert_eq!(
            NvSciSyncFenceExtractFence(std::ptr::null(), &mut id, &mut v),
            BAD
        );
        // Update: id other than 0 overflows; the destination is replaced.
        assert_eq!(
            NvSciSyncFenceUpdateFence(o, 1, 5, &mut f),
            NvSciError_Overflow
        );
        assert_eq!(NvSciSyncFenceUpdateFence(bogus(), 0, 5, &mut f), BAD);
        assert_eq!(NvSciSyncFenceUpdateFence(o, 0, 5, null_mut()), BAD);
        ok(NvSciSyncFenceUpdateFence(o, 0, 5, &mut f));
        assert_eq!(extract(&f), Ok((0, 5)));
        // Dup.
        let mut d = cleared();
        assert_eq!(NvSciSyncFenceDup(&f, &mut f), BAD);
        assert_eq!(NvSciSyncFenceDup(std::ptr::null(), &mut d), BAD);
        assert_eq!(NvSciSyncFenceDup(&f, null_mut()), BAD);
        ok(NvSciSyncFenceDup(&f, &mut d));
        assert_eq!(d, f);
        // A cleared source clears the destination.
        ok(NvSciSyncFenceDup(&c, &mut d));
        assert_eq!(d, c);
        // Garbage fences.
        let mut g = f;
        g.payload[0] ^= 1;
        assert_eq!(extract(&g), Err(BAD));
        assert_eq!(NvSciSyncFenceDup(&g, &mut d), BAD);
        clear(&mut g);
        assert_eq!(g, c);
        NvSciSyncFenceClear(null_mut());
        clear(&mut f);
        assert_eq!(f, c);
        clear(&mut f); // clearing a cleared fence is harmless
    }
}

/// Covers: REQ-SYNC-005
#[test]
fn fences_keep_the_object_alive() {
    let m = module();
    let ctx = context(m);
    let o = object(m, true, true, false);
    let mut dup = null_mut();
    // SAFETY: locals and handles.
    unsafe {
        ok(NvSciSyncObjDup(o, &mut dup));
        assert_eq!(NvSciSyncObjDup(o, null_mut()), BAD);
        assert_eq!(NvSciSyncObjDup(bogus(), &mut dup), BAD);
    }
    let mut f = generate(o);
    let mut f2 = cleared();
    // SAFETY: locals.
    unsafe { ok(NvSciSyncFenceDup(&f, &mut f2)) };
    let copy = f;
    // SAFETY: handles from this library.
    unsafe {
        NvSciSyncObjFree(o);
        NvSciSyncObjFree(o); // double free: ignored
        NvSciSyncObjFree(bogus());
        NvSciSyncObjFree(null_mut());
    }
    // The dup handle still works, and the object is the same.
    assert_eq!(try_signal(o), BAD);
    signal(dup);
    ok(wait(&f, ctx, 0));
    // SAFETY: handle from this library.
    unsafe { NvSciSyncObjFree(dup) };
    assert_eq!(try_signal(dup), BAD);
    // No handle left, but two fences: the object lives.
    ok(wait(&f, ctx, 0));
    assert_eq!(extract(&f), Ok((0, 1)));
    clear(&mut f);
    assert_eq!(extract(&f2), Ok((0, 1)));
    clear(&mut f2);
    // The last reference is gone: a stale copy of a fence is invalid, not a crash.
    assert_eq!(extract(&copy), Err(BAD));
    assert_eq!(wait(&copy, ctx, 0), BAD);
    let mut d = cleared();
    // SAFETY: locals.
    unsafe { assert_eq!(NvSciSyncFenceDup(&copy, &mut d), BAD) };
    let mut copy = copy;
    clear(&mut copy);
}

/// Covers: REQ-SYNC-005
#[test]
fn update_and_dup_clear_the_destination_first() {
    let m = module();
    let ctx = context(m);
    let a = object(m, true, true, false);
    let b = object(m, true, true, false);
    let mut f = generate(a);
    // SAFETY: handle from this library.
    unsafe { NvSciSyncObjFree(a) };
    // `f` holds the last reference on `a`; updating it to `b` destroys `a`.
    let stale = f;
    // SAFETY: locals and handles.
    unsafe { ok(NvSciSyncFenceUpdateFence(b, 0, 0, &mut f)) };
    assert_eq!(extract(&stale), Err(BAD));
    ok(wait(&f, ctx, 0));
    clear(&mut f);
}

/// Covers: REQ-SYNC-007
#[test]
fn timestamps_in_microseconds() {
    let m = module();
    let o = object(m, true, true, true);
    let mut f = generate(o);
    let mut ts = 0u64;
    let mut slot = 0u32;
    // SAFETY: locals and handles.
    unsafe {
        // Not expired yet.
        assert_eq!(NvSciSyncFenceGetTimestamp(&f, &mut ts), BAD);
        let mut st: NvSciSyncTaskStatus = std::mem::zeroed();
        ok(NvSciSyncFenceGetTaskStatus(&f, &mut st));
        assert_eq!({ st.status }, NvSciSyncTaskStatus_Invalid.0 as u16);
        let before = NvSciSilClockNowNs();
        signal(o);
        let after = NvSciSilClockNowNs();
        ok(NvSciSyncFenceGetTimestamp(&f, &mut ts));
        let ns = signal_ts(o, 1).unwrap();
        assert!(before <= ns && ns <= after);
        assert_eq!(ts, ns / 1000);
        ok(NvSciSyncFenceGetTaskStatus(&f, &mut st));
        assert_eq!({ st.status }, NvSciSyncTaskStatus_Success.0 as u16);
        assert_eq!({ st.timestamp }, ns / 1000);
        assert_eq!(NvSciSyncFenceGetTaskStatus(&f, null_mut()), BAD);
        assert_eq!(NvSciSyncFenceGetTimestamp(&f, null_mut()), BAD);
        // Slots: by default value mod 512.
        ok(NvSciSyncFenceExtractTimestampSlot(&mut f, &mut slot));
        assert_eq!(slot, 1);
        ok(NvSciSyncFenceAddTimestampSlot(&mut f, 511));
        ok(NvSciSyncFenceExtractTimestampSlot(&mut f, &mut slot));
        assert_eq!(slot, 511);
        assert_eq!(NvSciSyncFenceAddTimestampSlot(&mut f, 512), BAD);
        // The slot does not change which timestamp the fence reads.
        ok(NvSciSyncFenceGetTimestamp(&f, &mut ts));
        assert_eq!(ts, ns / 1000);
        assert_eq!(NvSciSyncFenceAddTaskStatusSlot(&mut f, 0), BAD);
        assert_eq!(NvSciSyncFenceExtractTimestampSlot(&mut f, null_mut()), BAD);
        // Cleared fences.
        let mut c = cleared();
        assert_eq!(
            NvSciSyncFenceGetTimestamp(&c, &mut ts),
            NvSciError_ClearedFence
        );
        assert_eq!(
            NvSciSyncFenceGetTaskStatus(&c, &mut st),
            NvSciError_ClearedFence
        );
        assert_eq!(
            NvSciSyncFenceAddTimestampSlot(&mut c, 0),
            NvSciError_ClearedFence
        );
        assert_eq!(
            NvSciSyncFenceAddTaskStatusSlot(&mut c, 0),
            NvSciError_ClearedFence
        );
        assert_eq!(
            NvSciSyncFenceExtractTimestampSlot(&mut c, &mut slot),
            NvSciError_ClearedFence
        );
        clear(&mut f);
        // Only the last 512 signals are kept.
        let f1 = update(o, 1);
        for _ in 0..512 {
            signal(o);
        }
        assert_eq!(NvSciSyncFenceGetTimestamp(&f1, &mut ts), BAD);
        assert!(signal_ts(o, 2).is_ok());
        assert_eq!(signal_ts(o, 1), Err(BAD));
        assert_eq!(signal_ts(o, 514), Err(BAD)); // not reached yet
        assert_eq!(NvSciSyncSilObjGetSignalTimestamp(o, 2, null_mut()), BAD);
        assert_eq!(NvSciSyncSilObjGetSignalTimestamp(bogus(), 2, &mut ts), BAD);
    }
    // Without timestamps (no CPU waiter asked), GetTimestamp is refused.
    let o2 = object(m, true, true, false);
    let mut f2 = generate(o2);
    signal(o2);
    // SAFETY: locals.
    unsafe {
        assert_eq!(NvSciSyncFenceGetTimestamp(&f2, &mut ts), BAD);
        assert_eq!(NvSciSyncFenceAddTimestampSlot(&mut f2, 0), BAD);
        assert_eq!(NvSciSyncFenceExtractTimestampSlot(&mut f2, &mut slot), BAD);
    }
}

/// Covers: REQ-SYNC-004
#[test]
fn engine_signals_and_counter_writes() {
    let m = module();
    let o = object(m, false, false, false);
    let c = counter(o);
    let mut reached = 0u64;
    // SAFETY: locals and handles.
    unsafe {
        assert_eq!(NvSciSyncSilObjGetCounter(o, null_mut()), BAD);
        let mut p = null_mut();
        assert_eq!(NvSciSyncSilObjGetCounter(bogus(), &mut p), BAD);
        ok(NvSciSyncSilObjSignalEngine(o, 1_000));
        ok(NvSciSyncSilObjSignalEngine(o, 2_000));
        assert_eq!(load(c), 2);
        assert_eq!(signal_ts(o, 2), Ok(2_000));
        // A direct write (as SIL CUDA / a GPU) of +2, then CounterWritten.
        store(c, 4);
        ok(NvSciSyncSilCounterWritten(c, 4_000));
        assert_eq!(signal_ts(o, 3), Ok(4_000));
        assert_eq!(signal_ts(o, 4), Ok(4_000));
        ok(NvSciSyncSilCounterWritten(c, 9_000)); // same value again: first record kept
        assert_eq!(signal_ts(o, 4), Ok(4_000));
        let local = 0u64;
        assert_eq!(NvSciSyncSilCounterWritten(&local, 1), BAD);
        assert_eq!(NvSciSyncSilCounterWritten(std::ptr::null(), 1), BAD);
        // Engine fence waits: no CPU permission needed; reachedAt is the signal timestamp.
        let f = update(o, 3);
        ok(NvSciSyncSilFenceWaitEngine(&f, 0, &mut reached));
        assert_eq!(reached, 4_000);
        ok(NvSciSyncSilFenceWaitEngine(&f, 0, null_mut()));
        let f5 = update(o, 5);
        assert_eq!(
            NvSciSyncSilFenceWaitEngine(&f5, 1000, &mut reached),
            NvSciError_Timeout
        );
        assert_eq!(NvSciSyncSilFenceWaitEngine(&f5, -7, &mut reached), BAD);
        assert_eq!(
            NvSciSyncSilFenceWaitEngine(std::ptr::null(), 0, &mut reached),
            BAD
        );
        let cl = cleared();
        reached = 77;
        ok(NvSciSyncSilFenceWaitEngine(&cl, 0, &mut reached));
        assert_eq!(reached, 0);
        // CounterWait on a SIL counter reports the recorded timestamp.
        ok(NvSciSyncSilCounterWait(c, 2, 0, 0, &mut reached));
        assert_eq!(reached, 2_000);
        ok(NvSciSyncSilCounterWait(c, 4, 1, 0, &mut reached));
        assert_eq!(reached, 4_000);
        assert_eq!(
            NvSciSyncSilCounterWait(c, 3, 1, 0, &mut reached),
            NvSciError_Timeout
        );
        // Woken by an engine signal from another thread.
        let h = Send(o);
        let t = thread::spawn(move || {
            let h = h;
            thread::sleep(Duration::from_millis(10));
            NvSciSyncSilObjSignalEngine(h.0, 5_000)
        });
        ok(NvSciSyncSilFenceWaitEngine(&f5, -1, &mut reached));
        assert_eq!(reached, 5_000);
        ok(t.join().unwrap());
    }
}

/// Covers: REQ-SYNC-004
#[test]
fn sil_counter_wraps_around() {
    let m = module();
    let ctx = context(m);
    let o = object(m, false, true, false);
    let c = counter(o);
    store(c, u64::MAX - 1);
    // SAFETY: locals and handles.
    unsafe {
        ok(NvSciSyncSilCounterWritten(c, 10));
        let last = update(o, u64::MAX);
        let zero = update(o, 0);
        let one = update(o, 1);
        assert_eq!(wait(&last, ctx, 0), NvSciError_Timeout);
        ok(NvSciSyncSilObjSignalEngine(o, 20)); // u64::MAX
        ok(wait(&last, ctx, 0));
        assert_eq!(wait(&zero, ctx, 0), NvSciError_Timeout);
        ok(NvSciSyncSilObjSignalEngine(o, 30)); // wraps to 0
        assert_eq!(load(c), 0);
        ok(wait(&zero, ctx, 0));
        ok(wait(&last, ctx, 0));
        assert_eq!(wait(&one, ctx, 0), NvSciError_Timeout);
        assert_eq!(signal_ts(o, u64::MAX), Ok(20));
        assert_eq!(signal_ts(o, 0), Ok(30));
    }
}

/// Covers: REQ-SYNC-004
#[test]
fn counter_wait_on_any_address() {
    let word = AtomicU64::new(u64::MAX - 1);
    let p = word.as_ptr().cast_const();
    let mut reached = 0;
    // SAFETY: `word` outlives every wait; it is only accessed atomically.
    unsafe {
        // GEQ is cyclic: MAX-1 has not reached 1 (1 is two steps ahead).
        assert_eq!(
            NvSciSyncSilCounterWait(p, 1, 0, 0, &mut reached),
            NvSciError_Timeout
        );
        ok(NvSciSyncSilCounterWait(p, u64::MAX - 1, 0, 0, &mut reached));
        ok(NvSciSyncSilCounterWait(
            p,
            u64::MAX - 100,
            0,
            0,
            &mut reached,
        ));
        word.store(2, Ordering::Release); // wrapped
        let before = NvSciSilClockNowNs();
        ok(NvSciSyncSilCounterWait(p, u64::MAX - 5, 0, 0, &mut reached));
        assert!(reached >= before);
        ok(NvSciSyncSilCounterWait(p, 1, 0, 0, null_mut()));
        assert_eq!(
            NvSciSyncSilCounterWait(p, 3, 0, 0, &mut reached),
            NvSciError_Timeout
        );
        // EQ.
        ok(NvSciSyncSilCounterWait(p, 2, 1, 0, &mut reached));
        assert_eq!(
            NvSciSyncSilCounterWait(p, 1, 1, 0, &mut reached),
            NvSciError_Timeout
        );
        // Arguments.
        assert_eq!(NvSciSyncSilCounterWait(p, 1, 2, 0, &mut reached), BAD);
        assert_eq!(
            NvSciSyncSilCounterWait(std::ptr::null(), 1, 0, 0, &mut reached),
            BAD
        );
        let misaligned = p.cast::<u8>().wrapping_add(1).cast::<u64>();
        assert_eq!(
            NvSciSyncSilCounterWait(misaligned, 1, 0, 0, &mut reached),
            BAD
        );
        assert_eq!(NvSciSyncSilCounterWait(p, 1, 0, -5, &mut reached), BAD);
    }
    // A plain memory write (no notification) is seen by polling.
    let shared = std::sync::Arc::new(AtomicU64::new(0));
    let s2 = shared.clone();
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(10));
        s2.store(7, Ordering::Release);
    });
    // SAFETY: `shared` outlives the wait; it is only accessed atomically.
    unsafe {
        ok(NvSciSyncSilCounterWait(
            shared.as_ptr(),
            7,
            0,
            2_000_000,
            &mut reached,
        ))
    };
    t.join().unwrap();
}

/// Covers: REQ-SYNC-004
#[test]
fn direct_writes_without_notification_are_polled() {
    let m = module();
    let ctx = context(m);
    let o = object(m, false, true, false);
    let f = update(o, 1);
    let c = Send(counter(o));
    let t = thread::spawn(move || {
        let c = c;
        thread::sleep(Duration::from_millis(10));
        store(c.0, 1); // a GPU write: nobody is told
    });
    ok(wait(&f, ctx, 2_000_000));
    t.join().unwrap();
    // No timestamp was recorded: the engine wait reports the SIL clock instead.
    let mut reached = 0;
    let before = now();
    // SAFETY: locals.
    unsafe { ok(NvSciSyncSilFenceWaitEngine(&f, 0, &mut reached)) };
    assert!(reached >= before);
}

/// `NvSciSyncSilObjEngineFence` into a fresh fence.
fn engine_fence(o: NvSciSyncObj) -> NvSciSyncFence {
    let mut f = cleared();
    // SAFETY: `f` is a local fence.
    ok(unsafe { NvSciSyncSilObjEngineFence(o, &mut f) });
    f
}

/// Covers: REQ-SYNC-005
#[test]
fn engine_fence_reserves_the_next_engine_signal() {
    let m = module();
    let ctx = context(m);
    // No CPU signaler: only the engine's call may reserve signals.
    let o = object(m, false, true, false);
    let c = counter(o);
    let f1 = engine_fence(o);
    let f2 = engine_fence(o);
    assert_eq!(extract(&f1), Ok((0, 1)));
    assert_eq!(extract(&f2), Ok((0, 2)));
    assert_eq!(load(c), 0, "reserving does not signal");
    assert_eq!(wait(&f1, ctx, 0), NvSciError_Timeout);
    // SAFETY: live handle.
    ok(unsafe { NvSciSyncSilObjSignalEngine(o, 10) });
    ok(wait(&f1, ctx, 0));
    assert_eq!(wait(&f2, ctx, 0), NvSciError_Timeout);
    // SAFETY: live handle.
    ok(unsafe { NvSciSyncSilObjSignalEngine(o, 20) });
    ok(wait(&f2, ctx, 0));
    // A counter that went past every promise (direct writes): one past the counter.
    store(c, 10);
    assert_eq!(extract(&engine_fence(o)), Ok((0, 11)));
    assert_eq!(extract(&engine_fence(o)), Ok((0, 12)));
    // SAFETY: locals; NULL and bogus handles are checked by the library.
    unsafe {
        assert_eq!(NvSciSyncSilObjEngineFence(o, null_mut()), BAD);
        let mut g = f1;
        assert_eq!(NvSciSyncSilObjEngineFence(bogus(), &mut g), BAD);
        assert_eq!(g, f1, "nothing written on error");
        // The destination is cleared first: it held a reference on `o`, now on `o2`.
        let o2 = object(m, false, true, false);
        ok(NvSciSyncSilObjEngineFence(o2, &mut g));
        assert_eq!(extract(&g), Ok((0, 1)));
        let mut f1 = f1;
        let mut f2 = f2;
        clear(&mut f1);
        clear(&mut f2);
        clear(&mut g);
        NvSciSyncObjFree(o);
        NvSciSyncObjFree(o2);
        NvSciSyncCpuWaitContextFree(ctx);
    }
}
