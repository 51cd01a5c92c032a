//! Both primitives (`cudla.h` 1.5): sync points (the default, no deterministic request) and
//! deterministic semaphores as pre-fences and signal events; fence ids and values written on
//! return; SOF/EOF timestamps; the signal-event rules (one sync point, any number of
//! semaphores, 29 pre+SOF, 29 EOF, fences needed except for deterministic semaphores).
//!
//! Covers: REQ-DLA-004
#![allow(missing_docs)]

mod common;

use std::ptr::{null, null_mut};
use std::time::Duration;

use common::*;

/// Signal events over `ptrs` with `fences` (one per pointer).
fn sig_events(ptrs: &[*mut u64], fences: &mut [CudlaFence]) -> cudlaSignalEvents {
    assert_eq!(ptrs.len(), fences.len());
    cudlaSignalEvents {
        devPtrs: ptrs.as_ptr(),
        eofFences: fences.as_mut_ptr(),
        numEvents: ptrs.len() as u32,
    }
}

/// The documented standalone flow without any deterministic request: both objects are sync
/// points; the EOF fence carries the sync point's own non-zero id.
#[test]
fn sync_point_flow_is_the_default() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sp(&sci);
    let (sig, sp) = dla.signal_sp(&sci);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let (mut pre, mut eof) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        ok(dla.submit_after(wait_obj, &mut pre, &sp, &mut eof, 0));
        let (pre_id, _) = fence_id_value(&pre);
        let (id, v1) = fence_id_value(&eof);
        assert_ne!(id, 0, "a sync point has a non-zero id");
        assert_ne!(id, pre_id, "ids are per object");
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            sci.wait(&eof, 0),
            NvSciError_Timeout,
            "ran before its pre-fence"
        );
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&eof, 5_000_000));
        assert_eq!(dla.outputs(), GOLDEN_OUT);
        ok(cudlaGetLastError(dla.dev));
        // EOF timestamp: the DLA clock (the SIL clock) in µs.
        assert_eq!(fence_ts_us(&eof), signal_ts(sig, v1) / 1000);
        // The next task's fence: same id, next value.
        let mut eof2 = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut eof2, 0));
        assert_eq!(fence_id_value(&eof2), (id, v1 + 1));
        sok(sci.wait(&eof2, 5_000_000));
        for f in [&mut pre, &mut eof, &mut eof2] {
            NvSciSyncFenceClear(f);
        }
    }
    dla.destroy();
}

/// Pre-fences of both kinds are waited for.
#[test]
fn pre_fences_of_both_kinds() {
    let (_s, sci, dla) = setup();
    let sp_wait = dla.wait_sp(&sci);
    let det_wait = dla.wait_sem(&sci);
    let (_sig, out) = dla.signal_sem(&sci);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let (mut a, mut b) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        sok(NvSciSyncObjGenerateFence(sp_wait, &mut a));
        sok(NvSciSyncObjGenerateFence(det_wait, &mut b));
        assert_ne!(fence_id_value(&a).0, 0);
        assert_eq!(fence_id_value(&b).0, 0, "the semaphore's id is 0");
        let pf = [
            cfence(&mut a, CUDLA_NVSCISYNC_FENCE),
            cfence(&mut b, CUDLA_NVSCISYNC_FENCE),
        ];
        let w = waits(&pf);
        let mut eof = NvSciSyncFenceInitializer;
        let mut ef = [cfence(&mut eof, CUDLA_NVSCISYNC_FENCE)];
        let mut s = signals(&out, &mut ef);
        ok(dla.submit(&dla.task(Some(&w), Some(&mut s)), 0));
        sok(NvSciSyncObjSignal(det_wait));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            sci.wait(&eof, 0),
            NvSciError_Timeout,
            "sync point not waited for"
        );
        sok(NvSciSyncObjSignal(sp_wait));
        sok(sci.wait(&eof, 5_000_000));
        for f in [&mut a, &mut b, &mut eof] {
            NvSciSyncFenceClear(f);
        }
    }
    dla.destroy();
}

/// One sync point plus any number of semaphores, EOF and SOF mixed; each fence gets its
/// object's id and the value its signal reaches; more than one sync point is refused and
/// promises nothing.
#[test]
fn one_sync_point_and_many_semaphores() {
    let (_s, sci, dla) = setup();
    let (_spo, sp) = dla.signal_sp(&sci);
    let (_spo2, sp2) = dla.signal_sp(&sci);
    let sems: Vec<_> = (0..3).map(|_| dla.signal_sem(&sci)).collect();
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let mut f = [NvSciSyncFenceInitializer; 4];
        let ptrs = [sp[0], sems[0].1[0], sems[1].1[0], sems[2].1[0]];
        let bases: Vec<u64> = sems.iter().map(|(o, _)| counter(*o)).collect();
        let types = [
            CUDLA_NVSCISYNC_FENCE,
            CUDLA_NVSCISYNC_FENCE_SOF,
            CUDLA_NVSCISYNC_FENCE,
            CUDLA_NVSCISYNC_FENCE_SOF,
        ];
        let mut cf: Vec<CudlaFence> = f.iter_mut().zip(types).map(|(f, t)| cfence(f, t)).collect();
        let mut s = sig_events(&ptrs, &mut cf);
        ok(dla.submit(&dla.task(None, Some(&mut s)), 0));
        let (sp_id, sp_v) = fence_id_value(&f[0]);
        assert_ne!(sp_id, 0);
        for k in 0..3 {
            assert_eq!(fence_id_value(&f[k + 1]), (0, bases[k] + 1));
        }
        for fence in &f {
            sok(sci.wait(fence, 5_000_000));
        }
        // SOF no later than EOF of the same task.
        assert!(
            signal_ts(sems[0].0, bases[0] + 1) <= signal_ts(sems[1].0, bases[1] + 1),
            "SOF after EOF"
        );

        // Two sync points: InvalidParam, nothing written, nothing promised.
        let mut g = [NvSciSyncFenceInitializer; 3];
        let ptrs2 = [sp[0], sems[0].1[0], sp2[0]];
        let mut cg: Vec<CudlaFence> = g
            .iter_mut()
            .map(|f| cfence(f, CUDLA_NVSCISYNC_FENCE))
            .collect();
        let mut s2 = sig_events(&ptrs2, &mut cg);
        assert_eq!(
            dla.submit(&dla.task(None, Some(&mut s2)), 0),
            cudlaErrorInvalidParam
        );
        assert!(g.iter().all(|f| f.payload == [0; 6]), "no fence written");
        // Combined with a queued event-only sync point: also two.
        let mut q = NvSciSyncFenceInitializer;
        let mut cq = [cfence(&mut q, CUDLA_NVSCISYNC_FENCE)];
        let mut sq = signals(&sp2, &mut cq);
        let mut ev = dla.task(None, Some(&mut sq));
        ev.inputTensor = null();
        ev.outputTensor = null();
        ok(dla.submit(&ev, 0));
        let mut h = NvSciSyncFenceInitializer;
        let mut ch = [cfence(&mut h, CUDLA_NVSCISYNC_FENCE)];
        let mut sh = signals(&sp, &mut ch);
        assert_eq!(
            dla.submit(&dla.task(None, Some(&mut sh)), 0),
            cudlaErrorInvalidParam,
            "queued sync point + the task's own"
        );
        // With a semaphore instead, the task carries both.
        let mut sh2 = signals(&sems[0].1, &mut ch);
        ok(dla.submit(&dla.task(None, Some(&mut sh2)), 0));
        sok(sci.wait(&h, 5_000_000));
        sok(sci.wait(&q, 5_000_000));
        // Nothing was promised by the refused calls: the sync point's next value follows.
        let mut next = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &sp, &mut next, 0));
        assert_eq!(fence_id_value(&next), (sp_id, sp_v + 1));
        sok(sci.wait(&next, 5_000_000));
        for fence in f.iter_mut().chain([&mut q, &mut h, &mut next]) {
            NvSciSyncFenceClear(fence);
        }
    }
    dla.destroy();
}

/// 29 EOF fences, and 29 pre-fences plus SOF fences, per task; the combined lists of a
/// queued event-only submission count too.
#[test]
fn fence_limits() {
    let (_s, sci, dla) = setup();
    let (det, dp) = dla.signal_sem(&sci);
    let wait_obj = dla.wait_sem(&sci);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let ptrs = vec![dp[0]; 30];
        let mut f = vec![NvSciSyncFenceInitializer; 30];
        let base = counter(det);
        // 30 EOF: refused; 29: accepted.
        let mut cf: Vec<CudlaFence> = f
            .iter_mut()
            .map(|f| cfence(f, CUDLA_NVSCISYNC_FENCE))
            .collect();
        let mut s30 = sig_events(&ptrs, &mut cf);
        assert_eq!(
            dla.submit(&dla.task(None, Some(&mut s30)), 0),
            cudlaErrorUnsupportedOperation
        );
        let mut s29 = sig_events(&ptrs[..29], &mut cf[..29]);
        ok(dla.submit(&dla.task(None, Some(&mut s29)), 0));
        assert_eq!(fence_value(&f[28]), base + 29);
        sok(sci.wait(&f[28], 5_000_000));
        // 28 pre-fences + 1 SOF: accepted; 28 + 2 SOF: refused.
        let mut pre = vec![NvSciSyncFenceInitializer; 29];
        for p in &mut pre {
            sok(NvSciSyncObjGenerateFence(wait_obj, p));
        }
        let pf: Vec<CudlaFence> = pre
            .iter_mut()
            .map(|p| cfence(p, CUDLA_NVSCISYNC_FENCE))
            .collect();
        let w28 = waits(&pf[..28]);
        let mut sof2: Vec<CudlaFence> = f[..2]
            .iter_mut()
            .map(|f| cfence(f, CUDLA_NVSCISYNC_FENCE_SOF))
            .collect();
        let mut s2 = sig_events(&ptrs[..2], &mut sof2);
        assert_eq!(
            dla.submit(&dla.task(Some(&w28), Some(&mut s2)), 0),
            cudlaErrorUnsupportedOperation
        );
        let mut s1 = sig_events(&ptrs[..1], &mut sof2[..1]);
        ok(dla.submit(&dla.task(Some(&w28), Some(&mut s1)), CUDLA_SUBMIT_NOOP.0));
        // Queued pre-fences + the task's SOF fence.
        let w29 = waits(&pf[..29]);
        let mut ev = dla.task(Some(&w29), None);
        ev.inputTensor = null();
        ev.outputTensor = null();
        ok(dla.submit(&ev, 0));
        assert_eq!(
            dla.submit(&dla.task(None, Some(&mut s1)), 0),
            cudlaErrorUnsupportedOperation,
            "29 queued pre-fences + 1 SOF"
        );
        ok(dla.submit(&dla.task(None, None), CUDLA_SUBMIT_NOOP.0));
        for _ in 0..29 {
            sok(NvSciSyncObjSignal(wait_obj));
        }
        let mut last = NvSciSyncFenceInitializer;
        ok(dla.submit_fences(None, &dp, &mut last, 0));
        sok(sci.wait(&last, 5_000_000));
        for p in pre.iter_mut().chain(f.iter_mut()) {
            NvSciSyncFenceClear(p);
        }
        NvSciSyncFenceClear(&mut last);
    }
    dla.destroy();
}

/// Only deterministic semaphores may go without a fence placeholder.
#[test]
fn fence_placeholders() {
    let (_s, sci, dla) = setup();
    let (det, dp) = dla.signal_sem(&sci);
    let (_spo, sp) = dla.signal_sp(&sci);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let base = counter(det);
        // No fence array at all: deterministic semaphore fine, sync point refused.
        let mut s = cudlaSignalEvents {
            devPtrs: dp.as_ptr(),
            eofFences: null_mut(),
            numEvents: 1,
        };
        ok(dla.submit(&dla.task(None, Some(&mut s)), 0));
        let mut s = cudlaSignalEvents {
            devPtrs: sp.as_ptr(),
            eofFences: null_mut(),
            numEvents: 1,
        };
        assert_eq!(
            dla.submit(&dla.task(None, Some(&mut s)), 0),
            cudlaErrorInvalidParam
        );
        // A NULL fence in the array: the same rule.
        let mut nf = [CudlaFence {
            fence: null_mut(),
            r#type: CUDLA_NVSCISYNC_FENCE,
        }];
        let mut s = signals(&sp, &mut nf);
        assert_eq!(
            dla.submit(&dla.task(None, Some(&mut s)), 0),
            cudlaErrorInvalidParam
        );
        let mut s = signals(&dp, &mut nf);
        ok(dla.submit(&dla.task(None, Some(&mut s)), 0));
        // The waiter builds the fences itself: the two signals reached base+1 and base+2.
        let mut f = NvSciSyncFenceInitializer;
        sok(NvSciSyncFenceUpdateFence(det, 0, base + 2, &mut f));
        sok(sci.wait(&f, 5_000_000));
        assert_eq!(counter(det), base + 2);
        NvSciSyncFenceClear(&mut f);
    }
    dla.destroy();
}

/// SOF and EOF fence timestamps, in virtual time exactly the task's start and end (µs of the
/// DLA clock, which on SIL is the SIL clock).
///
/// Covers: REQ-DLA-006
#[test]
fn sof_and_eof_timestamps_in_virtual_time() {
    let _s = serial();
    let sci = Sci::new();
    const T0: u64 = 7_000_000_000;
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        sok(NvSciSilClockSetVirtual(true, T0));
        let dla = Dla::new(&sci, 0);
        timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 3_000_000, 0, 0);
        let (_eo, ep) = dla.signal_sp(&sci);
        let so = sci.sem_with(CUDLA_NVSCISYNC_ATTR_SIGNAL, Kind::Deterministic, true);
        let sop = import_sem(dla.dev, so);
        let wait_obj = dla.wait_sp(&sci);
        let (mut pre, mut sof, mut eof) = (
            NvSciSyncFenceInitializer,
            NvSciSyncFenceInitializer,
            NvSciSyncFenceInitializer,
        );
        sok(NvSciSyncObjGenerateFence(wait_obj, &mut pre));
        let pf = [cfence(&mut pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        let ptrs = [sop, ep[0]];
        let mut cf = [
            cfence(&mut sof, CUDLA_NVSCISYNC_FENCE_SOF),
            cfence(&mut eof, CUDLA_NVSCISYNC_FENCE),
        ];
        let mut s = sig_events(&ptrs, &mut cf);
        ok(dla.submit(&dla.task(Some(&w), Some(&mut s)), 0));
        sok(NvSciSilClockAdvanceTo(T0 + 1_234_000));
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&eof, 5_000_000));
        sok(sci.wait(&sof, 0));
        assert_eq!(fence_ts_us(&sof), (T0 + 1_234_000) / 1000);
        assert_eq!(fence_ts_us(&eof), (T0 + 1_234_000 + 3_000_000) / 1000);
        for f in [&mut pre, &mut sof, &mut eof] {
            NvSciSyncFenceClear(f);
        }
        dla.destroy();
        sok(NvSciSilClockSetVirtual(false, 0));
    }
}

/// An event-only submission replaced by another keeps its promised values: they are reached
/// in FIFO order, after the tasks queued before the replacement, before the later ones.
///
/// Covers: REQ-DLA-005
#[test]
fn replaced_event_only_signals_are_released_in_fifo_order() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sem(&sci);
    let (x, xp) = dla.signal_sem(&sci);
    timing(dla.dev, CUDLA_SIL_TIMING_FIXED, 1_000_000, 0, 0);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let base = counter(x);
        // Task A waits for the CPU and signals X (base + 1).
        let (mut pre, mut fa) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        ok(dla.submit_after(wait_obj, &mut pre, &xp, &mut fa, 0));
        // E1 promises base + 2, E2 replaces it (base + 3).
        let ev = |s: &mut cudlaSignalEvents| {
            let mut t = dla.task(None, Some(s));
            t.inputTensor = null();
            t.outputTensor = null();
            t
        };
        let (mut e1, mut e2) = (NvSciSyncFenceInitializer, NvSciSyncFenceInitializer);
        let mut c1 = [cfence(&mut e1, CUDLA_NVSCISYNC_FENCE)];
        ok(dla.submit(&ev(&mut signals(&xp, &mut c1)), 0));
        let mut c2 = [cfence(&mut e2, CUDLA_NVSCISYNC_FENCE)];
        ok(dla.submit(&ev(&mut signals(&xp, &mut c2)), 0));
        assert_eq!(
            [fence_value(&fa), fence_value(&e1), fence_value(&e2)],
            [base + 1, base + 2, base + 3]
        );
        // A real task T carries E2.
        ok(dla.submit(&dla.task(None, None), 0));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            sci.wait(&e1, 0),
            NvSciError_Timeout,
            "released before task A"
        );
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&e2, 5_000_000));
        let (ta, t1, t2) = (
            signal_ts(x, base + 1),
            signal_ts(x, base + 2),
            signal_ts(x, base + 3),
        );
        assert!(ta <= t1 && t1 <= t2, "{ta} {t1} {t2}");
        assert!(t2 >= t1 + 1_000_000, "T ran after the release");
        for f in [&mut pre, &mut fa, &mut e1, &mut e2] {
            NvSciSyncFenceClear(f);
        }
    }
    dla.destroy();
}

/// An event-only submission with only a wait list keeps the queued signals (only non-NULL
/// lists replace, cudla.h 1.5).
///
/// Covers: REQ-DLA-005
#[test]
fn event_only_lists_replace_only_when_given() {
    let (_s, sci, dla) = setup();
    let wait_obj = dla.wait_sem(&sci);
    let (x, xp) = dla.signal_sem(&sci);
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        let base = counter(x);
        let mut e1 = NvSciSyncFenceInitializer;
        let mut c1 = [cfence(&mut e1, CUDLA_NVSCISYNC_FENCE)];
        let mut s1 = signals(&xp, &mut c1);
        let mut t = dla.task(None, Some(&mut s1));
        t.inputTensor = null();
        t.outputTensor = null();
        ok(dla.submit(&t, 0));
        let mut pre = NvSciSyncFenceInitializer;
        sok(NvSciSyncObjGenerateFence(wait_obj, &mut pre));
        let pf = [cfence(&mut pre, CUDLA_NVSCISYNC_FENCE)];
        let w = waits(&pf);
        let mut t = dla.task(Some(&w), None);
        t.inputTensor = null();
        t.outputTensor = null();
        ok(dla.submit(&t, 0));
        ok(dla.submit(&dla.task(None, None), 0));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(sci.wait(&e1, 0), NvSciError_Timeout);
        sok(NvSciSyncObjSignal(wait_obj));
        sok(sci.wait(&e1, 5_000_000));
        assert_eq!(counter(x), base + 1);
        NvSciSyncFenceClear(&mut e1);
        NvSciSyncFenceClear(&mut pre);
    }
    dla.destroy();
}

#[test]
fn semaphore_import_by_kind() {
    let (_s, sci, dla) = setup();
    // SAFETY: C ABI calls with live handles and pointers to live locals.
    unsafe {
        for (kind, want) in [
            (Kind::Syncpoint, cudlaSuccess),
            (Kind::Deterministic, cudlaSuccess),
            (Kind::Regular, cudlaErrorInvalidParam),
        ] {
            for dir in [CUDLA_NVSCISYNC_ATTR_WAIT, CUDLA_NVSCISYNC_ATTR_SIGNAL] {
                let obj = sci.sem_with(dir, kind, false);
                let desc = cudlaExternalSemaphoreHandleDesc {
                    extSyncObject: obj as *const std::ffi::c_void,
                };
                let mut p = null_mut();
                assert_eq!(
                    cudlaImportExternalSemaphore(dla.dev, &desc, &mut p, 0),
                    want,
                    "{kind:?}"
                );
                if want == cudlaSuccess {
                    ok(cudlaMemUnregister(dla.dev, p));
                }
                NvSciSyncObjFree(obj);
            }
        }
    }
    dla.destroy();
}
