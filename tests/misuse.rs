//! Misuse gives typed errors: wrong tensor size, too small an alignment, a loadable whose hash
//! does not match, a CPU borrow while the DLA holds the buffer, a fence timeout.
//!
//! Covers: REQ-RT-012

mod common;

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use common::*;
use orin_exec::Error;
use orin_exec::engine::cpu::CpuCtx;
use orin_exec::error::{Context, Holder, PlatformFact, TensorMismatch};
use orin_exec::exec::{Builder, Config, CpuTask, Injection, TaskFault};
use orin_exec::table::{FaultKind, Limit, ModeId, TableError};

static GOOD: AtomicU64 = AtomicU64::new(0);
static BAD: AtomicU64 = AtomicU64::new(0);

fn init(
    v: Variant,
    config: Config,
    check: &'static mut dyn CpuTask,
) -> Result<orin_exec::exec::Initialized, Error> {
    Builder::new(schedule(v), Box::leak(Box::new(MiniStorage::new())))
        .config(config)
        .bind(INPUT, Box::leak(Box::new(Input)))
        .bind(CHECK, check)
        .init()
}

fn checker() -> &'static mut Check {
    Box::leak(Box::new(Check {
        good: &GOOD,
        bad: &BAD,
        expected: expected_detection(),
    }))
}

fn virtual_config() -> Config {
    Config {
        virtual_clock: true,
        realtime_priority: None,
        virtual_wait_cap_us: 200_000,
        ..Config::default()
    }
}

/// Covers: REQ-RT-006, REQ-RT-010
#[test]
fn wrong_tensor_size_names_the_tensor() {
    let _serial = serial();
    let err = init(
        Variant {
            image_size: 1000,
            ..Variant::default()
        },
        virtual_config(),
        checker(),
    )
    .err();
    assert_eq!(
        err,
        Some(Error::Tensor {
            loadable: "aeb_detector",
            tensor: "image",
            mismatch: TensorMismatch::Size {
                expected: 3072,
                found: 1000
            }
        })
    );
}

/// Covers: REQ-RT-006
#[test]
fn too_small_an_alignment_for_the_dla_is_refused() {
    // `Schedule::check` refuses it before init could (init's own check stays as a defence).
    let err = try_schedule(Variant {
        image_align: 16,
        ..Variant::default()
    })
    .err();
    assert_eq!(
        err,
        Some(TableError::Limit {
            limit: Limit::DlaAlign,
            name: "image",
            value: 16,
        })
    );
    assert_eq!(
        err.map(|e| e.to_string()).as_deref(),
        Some(
            "buffer `image`: 16 alignment in bytes of a buffer a DLA task uses (`align`); the \
             runtime needs at least 32 (`DLA_ALIGN`)"
        )
    );
}

/// Covers: REQ-RT-006
#[test]
fn a_loadable_with_the_wrong_hash_is_refused() {
    let _serial = serial();
    let err = init(
        Variant {
            wrong_hash: true,
            ..Variant::default()
        },
        virtual_config(),
        checker(),
    )
    .err();
    assert_eq!(
        err,
        Some(Error::HashMismatch {
            context: Context::Loadable("aeb_detector")
        })
    );
}

/// A failed init releases what it had built (here the DLA device, the semaphores and the
/// libraries) and says so: the caller may reuse the storage and the bodies.
///
/// Covers: REQ-PART-038
#[test]
fn a_failed_init_says_it_released_everything() {
    let _serial = serial();
    let v = Variant {
        wrong_hash: true,
        ..Variant::default()
    };
    let failure = Builder::new(schedule(v), Box::leak(Box::new(MiniStorage::new())))
        .config(virtual_config())
        .bind(INPUT, Box::leak(Box::new(Input)))
        .bind(CHECK, checker())
        .try_init()
        .err()
        .expect("init refuses the loadable");
    assert_eq!(
        failure.error,
        Error::HashMismatch {
            context: Context::Loadable("aeb_detector")
        }
    );
    assert_eq!(failure.release, Ok(()));
    assert!(failure.released_all());
    assert_eq!(failure.to_string(), failure.error.to_string());
}

static REFUSED: Mutex<Option<Error>> = Mutex::new(None);

/// A `check` that records what the runtime says of its read of the DLA's output.
struct Racer;

impl CpuTask for Racer {
    fn run(&mut self, ctx: &CpuCtx<'_>) -> Result<(), TaskFault> {
        if let Err(e) = ctx.read(MAP) {
            REFUSED.lock().unwrap().get_or_insert(e);
            return Err(e.into());
        }
        Ok(())
    }
}

/// Covers: REQ-RT-002
#[test]
fn a_cpu_task_racing_with_the_engines_is_refused_before_it_runs() {
    // Without a wait for `postprocess`, nothing orders `check`'s read of `obstacle_map` after
    // the DLA's write: `Schedule::check` refuses the tables, so no runtime ever runs them.
    let racy = Variant {
        check_waits: false,
        ..Variant::default()
    };
    assert_eq!(
        try_schedule(racy).err(),
        Some(TableError::RaceWithinFrame {
            buffer: MAP,
            buffer_name: "obstacle_map",
            mode: ModeId(0),
            mode_name: "normal",
            first: DETECTOR,
            first_name: "detector",
            second: CHECK,
            second_name: "check"
        })
    );
}

/// Covers: REQ-RT-002, REQ-API-008
#[test]
fn cpu_borrow_while_the_dla_holds_the_buffer_is_refused() {
    let _serial = serial();
    // In a checked schedule the DLA still holds the buffer only when it hangs: `check` runs
    // once its wait for `postprocess` timed out, and its borrow of the DLA's output is refused.
    let rt = init(
        Variant::default(),
        virtual_config(),
        Box::leak(Box::new(Racer)),
    )
    .expect("init");
    let mut exec = rt.seal().expect("seal");
    exec.inject(DETECTOR, 0, Injection::DlaHang)
        .expect("inject");
    let report = exec.step().expect("step");
    assert!(report.faults >= 1);
    assert_eq!(exec.health().count(CHECK, FaultKind::TaskError), 1);
    // The fault keeps the task's cause: the refusal itself.
    let fault = exec
        .recent_faults()
        .find(|f| f.kind == FaultKind::TaskError)
        .copied()
        .expect("a task_error fault");
    assert_eq!(Some(fault.error), *REFUSED.lock().unwrap());
    // The hung DLA cannot be drained: shutdown says so.
    let _ = exec.shutdown();
    assert_eq!(
        *REFUSED.lock().unwrap(),
        Some(Error::BufferBusy {
            buffer: "obstacle_map",
            holder: Holder::Dla(0),
            task: "detector"
        })
    );
}

/// Covers: REQ-RT-001
#[test]
fn each_buffer_copy_records_which_engine_holds_it() {
    let _serial = serial();
    let rt = init(Variant::default(), virtual_config(), checker()).expect("init");
    let mut exec = rt.seal().expect("seal");
    for _ in 0..3 {
        exec.step().expect("step");
    }
    // Frames 0..=2 are complete; frame 3 is planned and its DLA work queued (it waits for
    // frame 3's CPU input): the DLA holds copy 1 of its output, copy 0 is the CPU's.
    assert_eq!(
        exec.holder(MAP, 1).unwrap(),
        (Holder::Dla(0), Some(DETECTOR))
    );
    assert_eq!(exec.holder(MAP, 0).unwrap(), (Holder::Cpu, None));
    assert_eq!(exec.holder(IMAGE, 1).unwrap(), (Holder::Cpu, Some(INPUT)));
    exec.shutdown().expect("shutdown");
}

/// Covers: REQ-SCH-011
#[test]
fn a_hung_dla_gives_a_fence_timeout() {
    let _serial = serial();
    let rt = init(Variant::default(), virtual_config(), checker()).expect("init");
    let mut exec = rt.seal().expect("seal");
    exec.inject(DETECTOR, 1, Injection::DlaHang)
        .expect("inject");
    assert_eq!(exec.step().expect("frame 0").faults, 0);
    let report = exec.step().expect("frame 1");
    assert!(report.faults >= 1);
    assert_eq!(exec.health().count(DETECTOR, FaultKind::FenceTimeout), 1);
    let fault = exec.health().count(POSTPROCESS, FaultKind::FenceTimeout);
    assert_eq!(fault, 1, "the GPU task behind the hung DLA times out too");
    let detector_fault = exec.counters(DETECTOR);
    assert_eq!(detector_fault.timeouts, 1);
    // The hung DLA still holds frame 1's copy of its output.
    assert_eq!(
        exec.holder(MAP, 1).unwrap(),
        (Holder::Dla(0), Some(DETECTOR))
    );
    // The hung DLA and the GPU stream behind it cannot be drained: shutdown says so.
    let _ = exec.shutdown();
}

/// Covers: REQ-RT-010
#[test]
fn fence_timeout_error_names_the_task_and_value() {
    let _serial = serial();
    let rt = init(Variant::default(), virtual_config(), checker()).expect("init");
    let mut exec = rt.seal().expect("seal");
    exec.inject(DETECTOR, 0, Injection::DlaHang)
        .expect("inject");
    exec.step().expect("frame 0");
    let fault = exec
        .recent_faults()
        .find(|f| f.task == DETECTOR)
        .copied()
        .expect("a detector fault");
    // Warm-up signalled once; frame 0's signal would have produced value 2.
    assert_eq!(
        fault.error,
        Error::FenceTimeout {
            task: "detector",
            value: 2
        }
    );
    assert_eq!(
        fault.error.to_string(),
        "fence 2 of task `detector` was not reached before its deadline"
    );
    let _ = exec.shutdown();
}

/// Covers: REQ-RT-020
#[test]
fn a_virtual_clock_runtime_is_alone_in_its_process() {
    let _serial = serial();
    let real_config = Config {
        realtime_priority: None,
        ..Config::default()
    };
    let in_use = Some(Error::Platform(PlatformFact::ClockInUse));
    let first = init(Variant::default(), virtual_config(), checker()).expect("init");
    // While it runs, neither a second virtual-clock runtime nor a real-clock one may start:
    // both would share its time.
    let exec = first.seal().expect("seal");
    assert_eq!(
        init(Variant::default(), virtual_config(), checker()).err(),
        in_use
    );
    assert_eq!(
        init(Variant::default(), real_config, checker()).err(),
        in_use
    );
    exec.shutdown().expect("shutdown");
    // Real-clock runtimes run side by side; a virtual-clock one waits for both to end.
    let a = init(Variant::default(), real_config, checker()).expect("first real-clock init");
    let b = init(Variant::default(), real_config, checker()).expect("second real-clock init");
    assert_eq!(
        init(Variant::default(), virtual_config(), checker()).err(),
        in_use
    );
    a.seal().expect("seal").shutdown().expect("shutdown");
    assert_eq!(
        init(Variant::default(), virtual_config(), checker()).err(),
        in_use,
        "one real-clock runtime still runs"
    );
    // Dropping a runtime gives the clock back too (the refused inits above held nothing).
    drop(b);
    let last = init(Variant::default(), virtual_config(), checker()).expect("init after both");
    last.seal().expect("seal").shutdown().expect("shutdown");
    assert_eq!(
        in_use.map(|e| e.to_string()).as_deref(),
        Some(
            "platform check failed: another runtime of this process holds the clock: a \
             runtime on the SIL virtual \
             clock must be the only runtime in its process (the SIL keeps one clock per \
             process); shut the other down first"
        )
    );
}
