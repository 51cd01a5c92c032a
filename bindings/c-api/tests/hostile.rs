//! Hostile use of the C API through its `extern "C"` functions: malformed tables, NULL,
//! forged and stale handles, calls in the wrong phase, out-of-range ids, wrong, duplicate and
//! missing bindings, too many runtimes, and undeclared buffer access from a task. Each gets
//! its error code and a message, never undefined behaviour; a good run after each shows the
//! API still works.
//!
//! Covers: REQ-PART-030, REQ-PART-033, REQ-PART-034

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use common::*;
use orin_exec_capi::orin_exec_status_t as S;
use orin_exec_capi::*;

/// The tests share the process's runtime slots: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Creates from tables broken by `f` and returns the code and message.
fn create_broken(f: impl FnOnce(&mut Pipeline, &mut orin_exec_schedule_tables_t)) -> (S, String) {
    let mut p = Pipeline::new();
    let mut t = p.tables();
    f(&mut p, &mut t);
    match create(&t) {
        Ok(rt) => {
            assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
            (S::ORIN_EXEC_OK, String::new())
        }
        Err(e) => (e, last_error()),
    }
}

/// Breaks one field of the tables or of what they point to.
type Break = dyn FnOnce(&mut Pipeline, &mut orin_exec_schedule_tables_t);

#[test]
fn malformed_tables_are_refused_with_a_code() {
    let _s = serial();
    let cases: Vec<(&str, S, Box<Break>)> = vec![
        (
            "abi",
            S::ORIN_EXEC_E_ABI,
            Box::new(|_, t| t.abi_version = 999),
        ),
        (
            "null name",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|_, t| t.name = null()),
        ),
        (
            "array NULL with count",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|_, t| t.tasks = null()),
        ),
        (
            "huge count",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|_, t| t.modes_len = usize::MAX),
        ),
        (
            "engine kind",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|p, _| p.engines[0].kind = 77),
        ),
        (
            "buffer kind",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|p, _| p.buffers[0].kind = 9),
        ),
        (
            "work kind",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|p, _| p.tasks[0].work = 12),
        ),
        (
            "health action",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|p, _| p.health[0].action = 40),
        ),
        (
            "not UTF-8",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|p, _| p.tasks[0].name = c"\xff\xfe".as_ptr()),
        ),
        (
            "engine out of range",
            S::ORIN_EXEC_E_SCHEDULE,
            Box::new(|p, _| p.tasks[0].engine = 9),
        ),
        (
            "buffer out of range",
            S::ORIN_EXEC_E_SCHEDULE,
            Box::new(|p, _| p.writes[0] = 40),
        ),
        (
            "wait on itself",
            S::ORIN_EXEC_E_SCHEDULE,
            Box::new(|p, _| p.waits_consumer[0].task = CONSUMER),
        ),
        (
            "GPU task without cubin",
            S::ORIN_EXEC_E_TABLES,
            Box::new(|p, _| p.tasks[0].work = ORIN_EXEC_WORK_GPU),
        ),
        (
            "no modes",
            S::ORIN_EXEC_E_SCHEDULE,
            Box::new(|_, t| t.modes_len = 0),
        ),
        (
            "zero period",
            S::ORIN_EXEC_E_SCHEDULE,
            Box::new(|_, t| t.period_ns = 0),
        ),
    ];
    for (what, want, f) in cases {
        let (got, message) = create_broken(f);
        assert_eq!(got, want, "{what}: {message}");
        assert!(!message.is_empty(), "{what}: no message");
    }
    // The unbroken tables still make a runtime.
    assert_eq!(create_broken(|_, _| {}).0, S::ORIN_EXEC_OK);
}

#[test]
fn null_forged_and_stale_handles_are_refused() {
    let _s = serial();
    let forged = std::ptr::without_provenance_mut::<orin_exec_runtime_t>(0x1234_5678);
    for h in [null_mut(), forged, std::ptr::without_provenance_mut(1)] {
        assert_eq!(orin_exec_init(h), S::ORIN_EXEC_E_HANDLE);
        // SAFETY: the report pointer may be NULL.
        let status = unsafe { orin_exec_step(h, null_mut()) };
        assert_eq!(status, S::ORIN_EXEC_E_HANDLE);
    }
    let p = Pipeline::new();
    let rt = create(&p.tables()).expect("create");
    assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
    assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_E_HANDLE, "stale handle");
    assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_E_HANDLE);
    assert!(last_error().contains("destroyed"), "{}", last_error());
    // A new runtime in the same slot does not revive the old handle.
    let rt2 = create(&p.tables()).expect("create");
    assert_ne!(rt, rt2);
    assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_E_HANDLE);
    assert_eq!(orin_exec_destroy(rt2), S::ORIN_EXEC_OK);
    // NULL out pointers.
    let mut out = null_mut();
    // SAFETY: NULL arguments are what is tested.
    unsafe {
        assert_eq!(
            orin_exec_create(null(), null(), &mut out),
            S::ORIN_EXEC_E_NULL
        );
        assert_eq!(
            orin_exec_create(&p.tables(), null(), null_mut()),
            S::ORIN_EXEC_E_NULL
        );
        assert_eq!(
            orin_exec_ctx_read(null(), 0, null_mut(), null_mut()),
            S::ORIN_EXEC_E_NULL
        );
        assert_eq!(orin_exec_ctx_frame(null()), 0);
    }
}

#[test]
fn ids_bindings_and_phases_are_checked() {
    let _s = serial();
    let p = Pipeline::new();
    let rt = create(&p.tables()).expect("create");
    // SAFETY: for all calls, valid handle and pointers, or NULL where allowed.
    unsafe {
        assert_eq!(orin_exec_step(rt, null_mut()), S::ORIN_EXEC_E_PHASE);
        assert_eq!(orin_exec_seal(rt), S::ORIN_EXEC_E_PHASE);
        assert_eq!(
            orin_exec_bind(rt, 2, Some(producer), null_mut()),
            S::ORIN_EXEC_E_TASK
        );
        assert_eq!(
            orin_exec_bind(rt, u16::MAX, Some(producer), null_mut()),
            S::ORIN_EXEC_E_TASK
        );
        assert_eq!(
            orin_exec_bind(rt, PRODUCER, None, null_mut()),
            S::ORIN_EXEC_E_NULL
        );
        assert_eq!(orin_exec_set_virtual_cost(rt, 5, 1), S::ORIN_EXEC_E_TASK);
        assert_eq!(
            orin_exec_bind(rt, PRODUCER, Some(producer), null_mut()),
            S::ORIN_EXEC_OK
        );
        assert_eq!(
            orin_exec_bind(rt, PRODUCER, Some(producer), null_mut()),
            S::ORIN_EXEC_E_BINDING
        );
        assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_E_BINDING);
        assert!(last_error().contains("consumer"), "{}", last_error());
        assert_eq!(
            orin_exec_bind(rt, CONSUMER, Some(consumer), null_mut()),
            S::ORIN_EXEC_OK
        );
        assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_OK);
        assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_E_PHASE);
        assert_eq!(
            orin_exec_set_safe_state(rt, None, null_mut()),
            S::ORIN_EXEC_E_PHASE
        );
        let v = 0u64.to_ne_bytes();
        assert_eq!(
            orin_exec_write_buffer(rt, VALUE, 1, v.as_ptr().cast(), 8),
            S::ORIN_EXEC_E_BUFFER
        );
        assert_eq!(
            orin_exec_write_buffer(rt, VALUE, 0, null(), 8),
            S::ORIN_EXEC_E_NULL
        );
        assert_eq!(
            orin_exec_write_buffer(rt, VALUE, 0, v.as_ptr().cast(), 8),
            S::ORIN_EXEC_OK
        );
        assert_eq!(orin_exec_step(rt, null_mut()), S::ORIN_EXEC_E_PHASE);
        assert_eq!(orin_exec_seal(rt), S::ORIN_EXEC_OK);
        assert_eq!(orin_exec_seal(rt), S::ORIN_EXEC_E_PHASE);
        assert_eq!(
            orin_exec_write_buffer(rt, VALUE, 0, v.as_ptr().cast(), 8),
            S::ORIN_EXEC_E_PHASE
        );
        let mut r = orin_exec_frame_report_t::default();
        assert_eq!(orin_exec_run(rt, 20, &mut r), S::ORIN_EXEC_OK);
        assert_eq!((r.frame, r.faults, r.stopped), (19, 0, false));
        let mut c = orin_exec_task_counters_t::default();
        assert_eq!(
            orin_exec_task_counters(rt, CONSUMER, &mut c),
            S::ORIN_EXEC_OK
        );
        assert_eq!((c.runs, c.errors), (20, 0));
        assert_eq!(orin_exec_task_counters(rt, 2, &mut c), S::ORIN_EXEC_E_TASK);
        assert_eq!(
            orin_exec_task_counters(rt, 0, null_mut()),
            S::ORIN_EXEC_E_NULL
        );
        assert_eq!(orin_exec_shutdown(rt), S::ORIN_EXEC_OK);
        assert_eq!(orin_exec_step(rt, null_mut()), S::ORIN_EXEC_E_PHASE);
        assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
    }
}

#[test]
fn at_most_four_runtimes() {
    let _s = serial();
    let p = Pipeline::new();
    let rts: Vec<_> = (0..ORIN_EXEC_MAX_RUNTIMES)
        .map(|_| create(&p.tables()).expect("create"))
        .collect();
    assert_eq!(create(&p.tables()), Err(S::ORIN_EXEC_E_CAPACITY));
    for rt in rts {
        assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
    }
    let rt = create(&p.tables()).expect("a slot is free again");
    assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
}

#[test]
fn every_code_has_a_name() {
    for s in orin_exec_status_t::ALL {
        // SAFETY: static NUL-terminated strings.
        let name = unsafe { std::ffi::CStr::from_ptr(orin_exec_error_name(s as i32)) };
        assert_eq!(name, s.name());
        assert!(name.to_str().unwrap().starts_with("ORIN_EXEC_"));
    }
    // SAFETY: as above.
    let unknown = unsafe { std::ffi::CStr::from_ptr(orin_exec_error_name(4711)) };
    assert_eq!(unknown, c"ORIN_EXEC_E_UNKNOWN");
    assert_eq!(orin_exec_abi_version(), ORIN_EXEC_ABI_VERSION);
}

static FAULTS: AtomicU64 = AtomicU64::new(0);
static LAST_FAULT: Mutex<Option<(u64, u16, u32, u32)>> = Mutex::new(None);
static SAFE: Mutex<Option<(u64, u16, u32)>> = Mutex::new(None);

unsafe extern "C" fn on_fault(f: *const orin_exec_fault_t, _: *mut c_void) {
    // SAFETY: valid for the call.
    let f = unsafe { *f };
    FAULTS.fetch_add(1, Ordering::Relaxed);
    *LAST_FAULT.lock().unwrap() = Some((f.frame, f.task, f.kind, f.action));
}

unsafe extern "C" fn on_safe_state(f: *const orin_exec_fault_t, user: *mut c_void) {
    // SAFETY: valid for the call.
    let f = unsafe { *f };
    *SAFE.lock().unwrap() = Some((f.frame, f.task, f.kind));
    // A callback that calls back in on the same runtime is refused, not a deadlock.
    let rt = user.cast::<orin_exec_runtime_t>();
    // SAFETY: NULL report.
    let status = unsafe { orin_exec_step(rt, null_mut()) };
    assert_eq!(status, S::ORIN_EXEC_E_BUSY);
}

/// Writes to a buffer the task only reads: refused inside the task, which then fails.
unsafe extern "C" fn undeclared_writer(ctx: *const orin_exec_task_ctx_t, _: *mut c_void) -> i32 {
    let (mut p, mut n) = (null_mut(), 0usize);
    // SAFETY: the context of this run.
    match unsafe { orin_exec_ctx_write(ctx, VALUE, &mut p, &mut n) } {
        S::ORIN_EXEC_E_BUFFER => 9,
        _ => 0,
    }
}

#[test]
fn task_errors_reach_the_fault_callback_and_the_safe_state_hook() {
    let _s = serial();
    for (body, stop_frame) in [
        (consumer as unsafe extern "C" fn(_, _) -> i32, 30u64),
        (undeclared_writer, 0),
    ] {
        FAULTS.store(0, Ordering::Relaxed);
        *SAFE.lock().unwrap() = None;
        let p = Pipeline::new();
        let rt = create(&p.tables()).expect("create");
        let stop = AtomicU64::new(stop_frame);
        // SAFETY: for all calls, valid handle and pointers; `stop` outlives the runtime.
        unsafe {
            assert_eq!(
                orin_exec_bind(rt, PRODUCER, Some(producer), null_mut()),
                S::ORIN_EXEC_OK
            );
            let user = std::ptr::from_ref(&stop).cast_mut().cast();
            assert_eq!(
                orin_exec_bind(rt, CONSUMER, Some(body), user),
                S::ORIN_EXEC_OK
            );
            assert_eq!(
                orin_exec_set_fault_callback(rt, Some(on_fault), null_mut()),
                S::ORIN_EXEC_OK
            );
            assert_eq!(
                orin_exec_set_safe_state(rt, Some(on_safe_state), rt.cast()),
                S::ORIN_EXEC_OK
            );
            assert_eq!(orin_exec_init(rt), S::ORIN_EXEC_OK);
            assert_eq!(orin_exec_seal(rt), S::ORIN_EXEC_OK);
            let mut r = orin_exec_frame_report_t::default();
            assert_eq!(orin_exec_run(rt, 100, &mut r), S::ORIN_EXEC_OK);
            assert!(r.stopped, "a safe stop");
            assert_eq!(r.frame, stop_frame);
            assert_eq!(orin_exec_step(rt, null_mut()), S::ORIN_EXEC_E_SAFE_STOPPED);
            assert_eq!(orin_exec_destroy(rt), S::ORIN_EXEC_OK);
        }
        assert_eq!(FAULTS.load(Ordering::Relaxed), 1);
        assert_eq!(
            *LAST_FAULT.lock().unwrap(),
            Some((
                stop_frame,
                CONSUMER,
                ORIN_EXEC_FAULT_TASK_ERROR,
                ORIN_EXEC_ACTION_SAFE_STOP
            ))
        );
        assert_eq!(
            *SAFE.lock().unwrap(),
            Some((stop_frame, CONSUMER, ORIN_EXEC_FAULT_TASK_ERROR))
        );
    }
}
