//! The PVA engine on the SIL cuPVA, on the virtual clock (the pipeline of
//! `tests/common/pva.rs`): results over many frames, the typed init errors, each fault
//! injection detected in its frame, the queue capacity.
//!
//! Covers: REQ-PVA-072
#![cfg(feature = "sil")]

mod common;

use std::sync::atomic::Ordering;

use orin_exec::Error;
use orin_exec::error::{InjectionRefusal, PvaRegisterFault, Status};
use orin_exec::exec::{Executive, Injection};
use orin_exec::table::{Action, FaultKind, FaultScope, HealthRule, Limit, MAX_PARAMS, TableError};

use common::pva::*;
use common::serial;

/// Covers: REQ-PVA-072, REQ-PVA-071
#[test]
fn the_pva_pipeline_matches_the_model_over_many_frames() {
    let _serial = serial();
    let c = counts();
    let mut exec = init(schedule(Setup::default()), &c).expect("init");
    let frames = 300;
    let mut faults = 0;
    for _ in 0..frames {
        faults += exec.step().expect("step").faults;
    }
    for f in exec.recent_faults() {
        eprintln!("fault: {f:?}");
    }
    assert_eq!(faults, 0);
    assert_eq!(c.good.load(Ordering::Relaxed), frames);
    assert_eq!(c.bad.load(Ordering::Relaxed), 0);
    assert_eq!(exec.counters(SCALE).runs, frames);
    let stats = exec.submit_stats();
    assert_eq!(stats.pva_tasks, frames + 1); // + the lookahead frame already queued
    assert_eq!(stats.dla_tasks, 0);
    exec.shutdown().expect("shutdown");
}

/// GPU -> PVA -> CPU: the PVA waits on the GPU's semaphore, the CPU on the PVA's, and the
/// GPU task of the next frame on the PVA's.
///
/// Covers: REQ-PVA-071
#[test]
fn the_pva_waits_on_the_gpu_and_the_gpu_on_the_pva() {
    let _serial = serial();
    let c = counts();
    let mut exec = init(
        schedule(Setup {
            gpu: true,
            ..Setup::default()
        }),
        &c,
    )
    .expect("init");
    for _ in 0..100 {
        assert_eq!(exec.step().expect("step").faults, 0);
    }
    assert_eq!(c.good.load(Ordering::Relaxed), 100);
    assert_eq!(exec.counters(SCALE).runs, 100);
    let stats = exec.submit_stats();
    assert_eq!((stats.gpu_tasks, stats.pva_tasks), (101, 101));
    exec.shutdown().expect("shutdown");
}

/// The smallest queue the validator accepts for one PVA task per frame with lookahead 1 (2):
/// the executive never has more PVA work queued than that, and every frame runs.
///
/// Covers: REQ-PVA-077
#[test]
fn the_smallest_valid_pva_queue_runs_every_frame() {
    let _serial = serial();
    let c = counts();
    let capacity = 2;
    let mut exec = init(
        schedule(Setup {
            queue_capacity: capacity,
            ..Setup::default()
        }),
        &c,
    )
    .expect("init");
    for _ in 0..50 {
        assert_eq!(exec.step().expect("step").faults, 0);
        let queued = exec.submit_stats().pva_tasks - exec.counters(SCALE).runs;
        assert!(queued <= capacity as u64, "{queued} PVA tasks queued");
    }
    assert_eq!(c.good.load(Ordering::Relaxed), 50);
    exec.shutdown().expect("shutdown");
}

/// Covers: REQ-PVA-073
#[test]
fn an_unlisted_program_and_a_missing_model_are_typed_init_errors() {
    let _serial = serial();
    let unlisted = Program {
        name: "unlisted",
        image: b"orin-exec test VPU program: not in the allowlist",
        model: true,
        allowed: false,
    };
    let e = init(
        schedule(Setup {
            program: unlisted,
            ..Setup::default()
        }),
        &counts(),
    )
    .err()
    .expect("an unlisted program is refused");
    assert_eq!(
        e,
        Error::PvaProgramNotAllowed {
            program: "unlisted"
        }
    );
    assert!(e.to_string().contains("allow_pva_program"), "{e}");
    let no_model = Program {
        name: "no_model",
        image: b"orin-exec test VPU program: allowed, no model",
        model: false,
        allowed: true,
    };
    let e = init(
        schedule(Setup {
            program: no_model,
            ..Setup::default()
        }),
        &counts(),
    )
    .err()
    .expect("a program without a model is refused");
    assert_eq!(
        e,
        Error::NoPvaProgramModel {
            program: "no_model"
        }
    );
    assert!(
        e.to_string()
            .contains("register_pva_program_model(\"no_model\""),
        "{e}"
    );
    // The manifest names a parameter the program does not have.
    let renamed = Program {
        name: "renamed",
        image: b"orin-exec test VPU program: scale, renamed parameter",
        ..GOOD
    };
    let e = init(
        schedule(Setup {
            program: renamed,
            k_symbol: "factor",
            ..Setup::default()
        }),
        &counts(),
    )
    .err()
    .expect("an unknown parameter is refused");
    assert!(
        matches!(
            e,
            Error::PvaParam {
                program: "renamed",
                param: "factor",
                status: Status::Cupva(_),
            }
        ),
        "{e:?}"
    );
    // The model registration itself: one name per parameter.
    let e = orin_exec::sil::register_pva_program_model(
        "short",
        &[[9; 32]],
        &["src", "dst"],
        one_u32_model(),
    );
    assert_eq!(
        e,
        Err(Error::PvaModelRefused {
            program: "short",
            why: PvaRegisterFault::ParamCount {
                names: 2,
                params: 1
            },
        })
    );
}

/// A model of one u32 parameter (for the registration refusal).
fn one_u32_model() -> &'static dyn orin_exec::kernel_model::KernelModel {
    use orin_exec::kernel_model::{KernelModel, Launch, ModelError, ParamKind};
    struct One;
    impl KernelModel for One {
        fn params(&self) -> &[ParamKind] {
            &[ParamKind::U32]
        }
        fn launch(&self, _: &mut Launch<'_>) -> Result<(), ModelError> {
            Ok(())
        }
    }
    &One
}

/// At the PVA limits (16 parameters, a 127-byte symbol) init succeeds and the program runs;
/// past them `Schedule::check` refuses the tables (as the validator does, whose tests cover
/// its side).
///
/// Covers: REQ-PVA-076
#[test]
fn the_pva_limits_init_at_and_are_refused_past() {
    let _serial = serial();
    let wide = Program {
        name: "wide",
        image: b"orin-exec test VPU program: scale with sixteen parameters",
        ..GOOD
    };
    let at = Setup {
        program: wide,
        padding: MAX_PARAMS - 4,
        ..Setup::default()
    };
    let c = counts();
    let mut exec = init(schedule(at), &c).expect("init at the limits");
    for _ in 0..5 {
        assert_eq!(exec.step().expect("step").faults, 0);
    }
    assert_eq!(c.good.load(Ordering::Relaxed), 5);
    exec.shutdown().expect("shutdown");
    let refused = |v: Setup| match try_schedule(v) {
        Err(TableError::Limit { limit, .. }) => limit,
        other => panic!("not refused: {:?}", other.map(|_| ())),
    };
    assert_eq!(
        refused(Setup {
            padding: MAX_PARAMS - 3,
            ..at
        }),
        Limit::PvaParams
    );
    assert_eq!(
        refused(Setup {
            symbol_past: true,
            ..at
        }),
        Limit::PvaSymbol
    );
}

const RULES: &[HealthRule] = &[
    HealthRule {
        fault: FaultKind::EngineError,
        scope: FaultScope::Task(SCALE),
        action: Action::Skip,
    },
    HealthRule {
        fault: FaultKind::TaskError,
        scope: FaultScope::Task(CHECK),
        action: Action::Log,
    },
    HealthRule {
        fault: FaultKind::FenceTimeout,
        scope: FaultScope::Task(SCALE),
        action: Action::Log,
    },
];

/// Run 12 frames with `injection` aimed at `scale` in frame 5: the faults of frame 5 (task,
/// kind, action) and the counts.
fn injected(injection: Injection) -> (Vec<(u16, FaultKind, Action)>, Counts, Executive) {
    let c = counts();
    let mut exec = init(
        schedule(Setup {
            health: RULES,
            ..Setup::default()
        }),
        &c,
    )
    .expect("init");
    exec.inject(SCALE, 5, injection).expect("accepted");
    for _ in 0..12 {
        exec.step().expect("step");
    }
    let in_frame: Vec<_> = exec
        .recent_faults()
        .filter(|f| f.frame == 5)
        .map(|f| (f.task.0, f.kind, f.action))
        .collect();
    (in_frame, c, exec)
}

/// Each PVA fault injection is detected in its frame with its health rule's reaction, and the
/// stream goes on afterwards.
///
/// Covers: REQ-PVA-074
#[test]
fn each_pva_injection_is_detected_in_its_frame() {
    let _serial = serial();
    // A hang ends at the execution timeout, past the deadline: a fence timeout at the deadline.
    let (faults, c, exec) = injected(Injection::PvaHang);
    assert!(
        faults.contains(&(SCALE.0, FaultKind::FenceTimeout, Action::Log)),
        "{faults:?}"
    );
    assert!(
        c.good.load(Ordering::Relaxed) >= 9,
        "the stream did not recover"
    );
    exec.shutdown().expect("shutdown");
    // Late by 5 ms: 6 ms against a 4 ms budget.
    let (faults, c, exec) = injected(Injection::PvaLate { extra_ns: 5 * MS });
    assert_eq!(
        faults,
        [(SCALE.0, FaultKind::BudgetOverrun, Action::Log)],
        "{faults:?}"
    );
    assert_eq!(c.bad.load(Ordering::Relaxed), 0);
    exec.shutdown().expect("shutdown");
    // An error in the command status: the engine error, reported with cuPVA's code.
    let (faults, _c, exec) = injected(Injection::PvaError);
    assert!(
        faults.contains(&(SCALE.0, FaultKind::EngineError, Action::Skip)),
        "{faults:?}"
    );
    let record = exec
        .recent_faults()
        .find(|f| f.kind == FaultKind::EngineError)
        .expect("the engine error");
    assert_eq!(
        record.error,
        Error::EngineFailed {
            engine: "pva0",
            status: Status::Cupva(cupva_sys::CUPVA_ENGINE_IN_BAD_STATE.0),
        }
    );
    // Skipped once (frame 6 runs as a no-op), then it runs again.
    assert_eq!(exec.counters(SCALE).skipped, 1);
    exec.shutdown().expect("shutdown");
    // Corrupt output: the consumer sees it in that frame.
    let (faults, c, exec) = injected(Injection::PvaCorrupt);
    assert_eq!(
        faults,
        [(CHECK.0, FaultKind::TaskError, Action::Log)],
        "{faults:?}"
    );
    assert_eq!(c.last_bad.load(Ordering::Relaxed), 5);
    assert_eq!(c.bad.load(Ordering::Relaxed), 1);
    exec.shutdown().expect("shutdown");
}

/// PVA injections are refused for a task that does not run on a PVA.
///
/// Covers: REQ-PVA-074
#[test]
fn pva_injections_aim_at_pva_tasks_only() {
    let _serial = serial();
    let mut exec = init(schedule(Setup::default()), &counts()).expect("init");
    for injection in [
        Injection::PvaHang,
        Injection::PvaLate { extra_ns: 1 },
        Injection::PvaError,
        Injection::PvaCorrupt,
    ] {
        assert_eq!(
            exec.inject(INPUT, 3, injection),
            Err(Error::InjectionRefused {
                task: "input",
                injection: injection.name(),
                reason: InjectionRefusal::NotAPvaTask,
            })
        );
        assert!(injection.name().starts_with("pva-"));
    }
    exec.shutdown().expect("shutdown");
}
