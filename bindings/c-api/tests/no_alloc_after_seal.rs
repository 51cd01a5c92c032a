//! No allocation after `orin_exec_seal` through the C API: a counting global allocator
//! watches 5,000 frames of the two-task CPU pipeline run with `orin_exec_step` and
//! `orin_exec_run`, with the fault and health callbacks set and failing calls on the way
//! (their messages are recorded, without allocating), then a task error and the safe stop.
//! Every thread counts (the executive and the CPU worker). A control case shows the counter
//! counts.
//!
//! Own `main` (no libtest harness), so no test-runner thread allocates behind our back.
//!
//! Covers: REQ-PART-036

mod common;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, Ordering};

use common::*;
use counting::{Counting, counted};
use orin_exec_capi::orin_exec_status_t as S;
use orin_exec_capi::*;

#[path = "common/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

static FRAMES: AtomicU64 = AtomicU64::new(0);
static FAULTS: AtomicU64 = AtomicU64::new(0);

unsafe extern "C" fn on_health(_: *const orin_exec_frame_report_t, _: *mut c_void) {
    FRAMES.fetch_add(1, Ordering::Relaxed);
}

unsafe extern "C" fn on_fault(_: *const orin_exec_fault_t, _: *mut c_void) {
    FAULTS.fetch_add(1, Ordering::Relaxed);
}

const STEPS: u64 = 2_500;

fn main() {
    let (v, control) = counted(|| std::hint::black_box(vec![1u8; 64]));
    drop(v);
    assert!(control >= 1, "the counting allocator does not count");

    let p = Pipeline::new();
    let rt = create(&p.tables()).expect("create");
    let stop = AtomicU64::new(2 * STEPS + 10);
    // `stop` outlives the runtime.
    {
        assert_eq!(
            orin_exec_bind(rt, PRODUCER, Some(producer), null_mut()),
            S::ORIN_EXEC_OK
        );
        let user = std::ptr::from_ref(&stop).cast_mut().cast();
        assert_eq!(
            orin_exec_bind(rt, CONSUMER, Some(consumer), user),
            S::ORIN_EXEC_OK
        );
        assert_eq!(
            orin_exec_set_health_callback(rt, Some(on_health), null_mut()),
            S::ORIN_EXEC_OK
        );
        assert_eq!(
            orin_exec_set_fault_callback(rt, Some(on_fault), null_mut()),
            S::ORIN_EXEC_OK
        );
        assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_OK);
        assert_eq!(orin_exec_seal(rt), S::ORIN_EXEC_OK);
    }
    let (last, allocations) = counted(|| {
        let mut r = orin_exec_frame_report_t::default();
        // SAFETY: for all calls, a valid handle and report pointer.
        unsafe {
            for _ in 0..STEPS {
                assert_eq!(orin_exec_step(rt, &mut r), S::ORIN_EXEC_OK);
                // A failing call records its message: no allocation either.
                assert_eq!(orin_exec_seal(rt), S::ORIN_EXEC_E_PHASE);
            }
            assert_eq!(orin_exec_run(rt, STEPS, &mut r), S::ORIN_EXEC_OK);
            // The task error of frame 2 * STEPS + 10 and the safe stop.
            assert_eq!(orin_exec_run(rt, 100, &mut r), S::ORIN_EXEC_OK);
            assert_eq!(orin_exec_step(rt, null_mut()), S::ORIN_EXEC_E_SAFE_STOPPED);
        }
        r
    });
    assert!(last.stopped && last.frame == 2 * STEPS + 10, "{last:?}");
    assert_eq!(FRAMES.load(Ordering::Relaxed), 2 * STEPS + 11);
    assert_eq!(FAULTS.load(Ordering::Relaxed), 1);
    assert_eq!(PRODUCED.load(Ordering::Relaxed), 2 * STEPS + 11);
    assert_eq!(
        allocations, 0,
        "the C API allocated {allocations} times after orin_exec_seal"
    );
    assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
    println!(
        "no allocation in {} frames after orin_exec_seal",
        2 * STEPS + 11
    );
}
