//! Fault campaigns on the SIL platform: each injected fault is detected within the major frame
//! it happens in, the health monitor's configured action is taken and the trace records the
//! fault and the reaction. Virtual clock: every run is deterministic.
//!
//! Covers: REQ-SCH-011, REQ-SCH-012, REQ-SCH-013

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use common::*;
use orin_exec::error::{Error, InjectionRefusal, Phase};
use orin_exec::exec::{Builder, Config, Executive, Injection, NotApplied, SafeStop};
use orin_exec::table::{Action, EngineId, FaultKind, FaultScope, HealthRule, ModeId, TaskId};
use orin_exec::trace::ring::Pop;
use orin_exec::trace::{Event, Record};

static GOOD: AtomicU64 = AtomicU64::new(0);
static BAD: AtomicU64 = AtomicU64::new(0);
static SAFE_STOPPED: AtomicBool = AtomicBool::new(false);

fn safe_state(_: &SafeStop) {
    SAFE_STOPPED.store(true, Ordering::SeqCst);
}

const DLA0: EngineId = EngineId(1);

static HEALTH: [HealthRule; 5] = [
    HealthRule {
        fault: FaultKind::FenceTimeout,
        scope: FaultScope::Engine(DLA0),
        action: Action::SwitchMode(ModeId(1)),
    },
    HealthRule {
        fault: FaultKind::DeadlineMiss,
        scope: FaultScope::Task(DETECTOR),
        action: Action::Log,
    },
    HealthRule {
        fault: FaultKind::EngineError,
        scope: FaultScope::Engine(DLA0),
        action: Action::SafeStop,
    },
    HealthRule {
        fault: FaultKind::BudgetOverrun,
        scope: FaultScope::Task(INPUT),
        action: Action::Skip,
    },
    HealthRule {
        fault: FaultKind::FenceTimeout,
        scope: FaultScope::Any,
        action: Action::Log,
    },
];

fn start() -> Executive {
    let v = Variant {
        health: &HEALTH,
        ..Variant::default()
    };
    let check = Box::leak(Box::new(Check {
        good: &GOOD,
        bad: &BAD,
        expected: expected_detection(),
    }));
    Builder::new(schedule(v), Box::leak(Box::new(MiniStorage::new())))
        .config(Config {
            virtual_clock: true,
            realtime_priority: None,
            virtual_wait_cap_us: 200_000,
            ..Config::default()
        })
        .bind(INPUT, Box::leak(Box::new(Input)))
        .bind(CHECK, check)
        .safe_state(safe_state)
        .init()
        .expect("init")
        .seal()
        .expect("seal")
}

fn drain(exec: &Executive) -> Vec<Record> {
    let mut out = Vec::new();
    loop {
        match exec.trace().pop() {
            Pop::Record(r) => out.push(r),
            Pop::Lost(n) => panic!("trace lost {n} records"),
            Pop::Empty => return out,
        }
    }
}

/// Run until frame `upto` (inclusive) or a safe stop; return the trace.
fn run(exec: &mut Executive, upto: u64) -> Vec<Record> {
    let mut records = Vec::new();
    while exec.next_frame() <= upto {
        let r = exec.step().expect("step");
        records.extend(drain(exec));
        if r.stopped {
            break;
        }
    }
    records
}

fn find(records: &[Record], task: TaskId, event: Event) -> Option<Record> {
    records
        .iter()
        .copied()
        .find(|r| r.task == task.0 && r.event == event)
}

/// Covers: REQ-SCH-010
#[test]
fn dla_hang_is_a_fence_timeout_and_switches_mode_two_frames_later() {
    let _serial = serial();
    let mut exec = start();
    exec.inject(DETECTOR, 5, Injection::DlaHang).unwrap();
    let trace = run(&mut exec, 8);
    let fault =
        find(&trace, DETECTOR, Event::Fault(FaultKind::FenceTimeout)).expect("fault recorded");
    assert_eq!(fault.frame, 5, "detected in the frame it happened");
    let reaction = find(
        &trace,
        DETECTOR,
        Event::Reaction(Action::SwitchMode(ModeId(1))),
    )
    .expect("reaction recorded");
    assert_eq!((reaction.frame, reaction.value), (5, 1));
    // Frame 6 was already planned (lookahead 1); the switch takes effect at frame 7.
    let switch = trace
        .iter()
        .find(|r| r.event == Event::ModeSwitch)
        .expect("mode switch recorded");
    assert_eq!((switch.frame, switch.value), (7, 1));
    assert_eq!(exec.mode(), ModeId(1));
    let _ = exec.shutdown(); // the hung DLA cannot be drained
}

#[test]
fn late_dla_is_a_deadline_miss_and_is_logged() {
    let _serial = serial();
    let mut exec = start();
    exec.inject(
        DETECTOR,
        3,
        Injection::DlaLate {
            extra_ns: 12_000_000,
        },
    )
    .unwrap();
    let trace = run(&mut exec, 5);
    let fault =
        find(&trace, DETECTOR, Event::Fault(FaultKind::DeadlineMiss)).expect("fault recorded");
    assert_eq!(fault.frame, 3);
    assert!(find(&trace, DETECTOR, Event::Reaction(Action::Log)).is_some_and(|r| r.frame == 3));
    assert_eq!(exec.counters(DETECTOR).deadline_misses, 1);
    assert_eq!(exec.mode(), ModeId(0), "a logged fault changes nothing");
    exec.shutdown().expect("shutdown");
}

/// Covers: REQ-RT-008
#[test]
fn dla_async_error_triggers_a_safe_stop() {
    let _serial = serial();
    SAFE_STOPPED.store(false, Ordering::SeqCst);
    let mut exec = start();
    exec.inject(DETECTOR, 4, Injection::DlaError).unwrap();
    let trace = run(&mut exec, 10);
    let fault =
        find(&trace, DETECTOR, Event::Fault(FaultKind::EngineError)).expect("fault recorded");
    assert_eq!(fault.frame, 4);
    assert!(
        find(&trace, DETECTOR, Event::Reaction(Action::SafeStop)).is_some_and(|r| r.frame == 4)
    );
    assert!(
        SAFE_STOPPED.load(Ordering::SeqCst),
        "the safe-state function ran"
    );
    assert!(exec.stopped());
    assert_eq!(
        exec.next_frame(),
        5,
        "no frame is released after the safe stop"
    );
    assert!(exec.step().is_err());
    let _ = exec.shutdown();
}

#[test]
fn cpu_task_over_budget_is_skipped_in_the_next_unplanned_frame() {
    let _serial = serial();
    let mut exec = start();
    exec.inject(
        INPUT,
        2,
        Injection::CpuOverrun {
            extra_ns: 5_000_000,
        },
    )
    .unwrap();
    let trace = run(&mut exec, 6);
    let fault =
        find(&trace, INPUT, Event::Fault(FaultKind::BudgetOverrun)).expect("fault recorded");
    assert_eq!(fault.frame, 2);
    assert!(find(&trace, INPUT, Event::Reaction(Action::Skip)).is_some_and(|r| r.frame == 2));
    let skipped: Vec<u64> = trace
        .iter()
        .filter(|r| r.task == INPUT.0 && r.event == Event::TaskSkipped)
        .map(|r| r.frame)
        .collect();
    assert_eq!(
        skipped,
        [4],
        "skipped once, in the first frame planned after the fault"
    );
    assert_eq!(exec.counters(INPUT).skipped, 1);
    exec.shutdown().expect("shutdown");
}

#[test]
fn fence_timeouts_downstream_of_a_hang_follow_their_own_rule() {
    let _serial = serial();
    let mut exec = start();
    exec.inject(DETECTOR, 1, Injection::DlaHang).unwrap();
    let trace = run(&mut exec, 2);
    // The GPU task waits for the hung DLA: a fence timeout of its own, logged (rule 5).
    let fault =
        find(&trace, POSTPROCESS, Event::Fault(FaultKind::FenceTimeout)).expect("fault recorded");
    assert_eq!(fault.frame, 1);
    assert!(find(&trace, POSTPROCESS, Event::Reaction(Action::Log)).is_some());
    let _ = exec.shutdown();
}

/// Covers: REQ-API-008
#[test]
fn a_task_error_keeps_the_code_the_task_reported() {
    let _serial = serial();
    let mut exec = start();
    // A corrupted DLA output makes `check` report code 1 in frame 3.
    exec.inject(DETECTOR, 3, Injection::DlaCorrupt).unwrap();
    run(&mut exec, 4);
    let fault = exec
        .recent_faults()
        .find(|f| f.kind == FaultKind::TaskError)
        .copied()
        .expect("a task_error fault");
    assert_eq!(fault.frame, 3);
    assert_eq!(
        fault.error,
        orin_exec::Error::TaskFailed {
            task: "check",
            code: Some(1)
        }
    );
    assert_eq!(
        fault.error.to_string(),
        "CPU task `check` reported failure code 1"
    );
    exec.shutdown().expect("shutdown");
}

/// An injection that cannot take effect is refused at once (wrong engine, unknown task, a
/// planned frame) or, aimed at a task its frame's mode does not run, recorded as not applied;
/// one whose frame is not reached stays pending. None is dropped silently.
///
/// Covers: REQ-ROB-083
#[test]
fn an_injection_that_cannot_take_effect_is_refused_or_reported() {
    let _serial = serial();
    let mut exec = start();
    let overrun = Injection::CpuOverrun {
        extra_ns: 5_000_000,
    };
    let refused = |r: orin_exec::Result<()>| match r {
        Err(Error::InjectionRefused { reason, .. }) => Some(reason),
        _ => None,
    };
    assert_eq!(
        refused(exec.inject(INPUT, 3, Injection::DlaHang)),
        Some(InjectionRefusal::NotADlaTask)
    );
    assert_eq!(
        refused(exec.inject(DETECTOR, 3, overrun)),
        Some(InjectionRefusal::NotACpuTask)
    );
    assert_eq!(
        refused(exec.inject(TaskId(999), 3, Injection::DlaHang)),
        Some(InjectionRefusal::NoSuchTask)
    );
    let message = exec
        .inject(INPUT, 3, Injection::DlaCorrupt)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("dla-corrupt") && message.contains("`input`"),
        "{message}"
    );

    // The hang in frame 1 switches to mode 1 (input only) from frame 3: the DLA error aimed at
    // the detector in frame 5 cannot take effect; the one in frame 50 is never reached.
    exec.inject(DETECTOR, 1, Injection::DlaHang).unwrap();
    exec.inject(DETECTOR, 5, Injection::DlaError).unwrap();
    exec.inject(DETECTOR, 50, Injection::DlaError).unwrap();
    exec.inject(INPUT, 5, overrun).unwrap();
    let mut not_applied = Vec::new();
    while exec.next_frame() <= 6 {
        let r = exec.step().expect("step");
        not_applied.push(r.injections_not_applied);
    }
    // Frame 5 is planned (lookahead 1) while frame 4 runs.
    assert_eq!(not_applied, [0, 0, 0, 0, 1, 0, 0]);
    assert_eq!(
        exec.not_applied().copied().collect::<Vec<_>>(),
        [NotApplied {
            frame: 5,
            task: DETECTOR,
            injection: Injection::DlaError,
            mode: ModeId(1),
        }]
    );
    assert_eq!(exec.not_applied_total(), 1);
    assert_eq!(
        exec.pending_injections().collect::<Vec<_>>(),
        [(DETECTOR, 50, Injection::DlaError)]
    );
    // The input's overrun in frame 5 did take effect (it runs in every mode).
    assert!(exec.counters(INPUT).overruns >= 1);
    assert_eq!(
        exec.inject(INPUT, 7, overrun),
        Err(Error::Phase(Phase::InjectionIntoPlannedFrame))
    );
    let _ = exec.shutdown(); // the hung DLA cannot be drained
}
