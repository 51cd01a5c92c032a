//! The AEB application on orin-exec: its five CPU task bodies bound to the schedule, the
//! reference models of its GPU kernels and PVA program on the SIL platforms, the DLA timing
//! model of the SIL platform, and the evidence both of its runners produce (trace
//! draining, fault records, the timing summary).
//!
//! Shared by the demo (`main.rs`) and the HIL scenario (`hil-tests/src/aeb.rs`), so that both
//! run one copy of the application. The caller owns the
//! storage: the demo puts it in `StaticCell`s, the HIL harness (several runtimes per process)
//! leaks it.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use orin_exec::exec::{Builder, Config, Executive, FaultRecord, Initialized};
use orin_exec::table::{Action, ModeId, Schedule};
use orin_exec_trace::{self as export, Drainer, ReleaseSummary, TaskSummary, TraceMeta};

#[cfg(any(feature = "sil", feature = "rig"))]
use crate::schedule::engine;
use crate::schedule::{Bodies, body};
use crate::tasks::{ConservativeDecision, DecisionLog, DecisionTask, FallbackDetector, Sensor};

/// The SIL DLA's shortest frame (uniform 3 to 5 ms; the SIL default is 2 ms).
#[cfg_attr(not(any(feature = "sil", feature = "rig")), allow(dead_code))]
pub const DLA_MIN_NS: u64 = 3_000_000;
/// The SIL DLA's longest frame.
#[cfg_attr(not(any(feature = "sil", feature = "rig")), allow(dead_code))]
pub const DLA_MAX_NS: u64 = 5_000_000;
/// The demo's seed of the SIL DLA timing model.
pub const DLA_SEED: u64 = 7;

/// The runtime options of the application: the defaults, `virtual_clock`, and a 300 ms cap on
/// a virtual-clock wait.
pub fn config(virtual_clock: bool) -> Config {
    Config {
        virtual_clock,
        virtual_wait_cap_us: 300_000,
        ..Config::default()
    }
}

/// The bodies of the CPU tasks. `D` is the body of the normal-mode `decision` task: the
/// demo's [`DecisionTask`], or a wrapper of it.
pub struct Tasks<D = DecisionTask> {
    /// `sensor`.
    pub sensor: Sensor,
    /// `sensor_fallback`.
    pub sensor_fallback: Sensor,
    /// `decision`.
    pub decision: D,
    /// `fallback_detector`.
    pub fallback_detector: FallbackDetector,
    /// `conservative_decision`.
    pub conservative_decision: ConservativeDecision,
}

impl<D: body::Decision + 'static> Tasks<D> {
    /// The bodies: both decision tasks write to `log`, and the `decision` body is
    /// `decision(the demo's DecisionTask)` (`std::convert::identity` for the demo's).
    pub fn new(log: &'static DecisionLog, decision: impl FnOnce(DecisionTask) -> D) -> Self {
        Tasks {
            sensor: Sensor,
            sensor_fallback: Sensor,
            decision: decision(DecisionTask { log }),
            fallback_detector: FallbackDetector,
            conservative_decision: ConservativeDecision { log },
        }
    }

    /// The schedule's `Bodies`, one field per CPU task.
    pub fn bodies(&'static mut self) -> Bodies {
        let Tasks {
            sensor,
            sensor_fallback,
            decision,
            fallback_detector,
            conservative_decision,
        } = self;
        Bodies {
            sensor,
            sensor_fallback,
            decision,
            fallback_detector,
            conservative_decision,
        }
    }
}

/// Bind `bodies` to `builder` (`Builder::new` of the AEB schedule and its storage, with its
/// options), register the kernel models on SIL ([`register_kernel_models`]) and the PVA
/// program models on the SIL cuPVA ([`register_pva_models`]), build the runtime and, on the
/// SIL DLA, set the DLA timing model seeded with `dla_seed`.
pub fn init(
    builder: Builder,
    bodies: &'static mut Bodies,
    dla_seed: u64,
) -> orin_exec::Result<Initialized> {
    register_kernel_models()?;
    register_pva_models()?;
    let runtime = builder.bodies(bodies).init()?;
    #[cfg(any(feature = "sil", feature = "rig"))]
    runtime.set_dla_timing(engine::DLA0, &dla_timing(dla_seed))?;
    #[cfg(not(any(feature = "sil", feature = "rig")))]
    let _ = dla_seed;
    Ok(runtime)
}

/// On SIL: registers the reference model of every kernel the schedule launches (the project's
/// own, from `orin-exec-kernels`) with SIL CUDA, through the public API an application uses
/// for its own kernels; SIL CUDA runs them in place of the GPU. Nothing to do on `rig` and
/// `orin`, where the GPU runs the cubins.
pub fn register_kernel_models() -> orin_exec::Result<()> {
    #[cfg(feature = "sil")]
    orin_exec_kernels::register_models(
        crate::schedule::SCHEDULE.tables(),
        orin_exec::sil::register_kernel_model,
    )?;
    Ok(())
}

/// The reference model of each PVA program of the AEB schedule: (program, module, kernel) of
/// `orin_exec_kernels::MODELS`. The VPU program `aeb_preprocess` (`pva/manifest.toml`) computes
/// what the GPU kernel `aeb_preprocess` does, so it shares its model.
pub const PVA_MODELS: [(&str, &str, &str); 1] = [("aeb_preprocess", "aeb", "aeb_preprocess")];

/// On `sil` and `rig` (both use the SIL cuPVA): registers the reference model of every PVA
/// program the schedule runs ([`PVA_MODELS`]) with the SIL cuPVA, bound to the SHA-256 of the
/// program's VPU ELF with the parameter names of the programs manifest, and allowlists the
/// image, through the public API an application uses for its own programs. Nothing to do on
/// `orin`, where the VPU runs the image (which the integrator must have built with the PVA
/// SDK: `pva/manifest.toml`). A program without a model is left out: init then fails with
/// `Error::NoPvaProgramModel`, which names it.
pub fn register_pva_models() -> orin_exec::Result<()> {
    #[cfg(any(feature = "sil", feature = "rig"))]
    for program in crate::schedule::SCHEDULE.tables().pva_programs {
        let Some(model) = PVA_MODELS
            .iter()
            .find(|(name, ..)| *name == program.name)
            .and_then(|&(_, module, kernel)| orin_exec_kernels::model(module, kernel))
        else {
            continue;
        };
        let names: Vec<&str> = program.params.iter().map(|p| p.name).collect();
        orin_exec::sil::register_pva_program_model(program.name, &[program.sha256], &names, model)?;
        orin_exec::sil::allow_pva_program(program.sha256);
    }
    Ok(())
}

/// The SIL DLA's timing model: uniform from [`DLA_MIN_NS`] to [`DLA_MAX_NS`] per frame.
#[cfg(any(feature = "sil", feature = "rig"))]
pub fn dla_timing(seed: u64) -> orin_exec::engine::platform::dla_sil::TimingModel {
    orin_exec::engine::platform::dla_sil::TimingModel::uniform(DLA_MIN_NS, DLA_MAX_NS, seed)
}

/// Start draining the trace of `exec` into `path` every 20 ms.
pub fn start_trace(exec: &Executive, path: &Path) -> std::io::Result<Drainer> {
    let meta = TraceMeta::from_schedule(exec.schedule(), orin_exec::engine::platform::NAME);
    Drainer::start(exec.trace(), &meta, path, Duration::from_millis(20))
}

/// The name of mode `m` (`?` if the schedule has no such mode).
pub fn mode_name(s: &Schedule, m: ModeId) -> &'static str {
    s.modes.get(m.0 as usize).map_or("?", |m| m.name)
}

/// How the demo words a health-monitor reaction (its output, `summary.json`, the safety
/// manual's campaign table).
pub fn reaction_text(s: &Schedule, action: Action) -> String {
    match action {
        Action::Log => "logged".to_string(),
        Action::Skip => "task skipped next frame".to_string(),
        Action::SwitchMode(m) => format!("switch to mode `{}`", mode_name(s, m)),
        Action::SafeStop => "safe stop".to_string(),
    }
}

/// The `faults` faults detected in the frame just stepped (at most as many as the executive
/// still holds).
pub fn new_faults(exec: &Executive, faults: u32) -> Vec<FaultRecord> {
    let recent: Vec<_> = exec.recent_faults().copied().collect();
    let fresh = recent.len() - (faults as usize).min(recent.len());
    recent[fresh..].to_vec()
}

/// The JSON record of `fault` and the `reaction` to it.
pub fn fault_json(s: &Schedule, fault: &FaultRecord, reaction: &str) -> serde_json::Value {
    serde_json::json!({
        "frame": fault.frame,
        "task": s.task(fault.task).name,
        "fault": fault.kind.name(),
        "reaction": reaction,
        "error": fault.error.to_string(),
    })
}

/// Print the per-task timing table and the frame release error (a closed stdout is not an
/// error: the run's evidence is in its files).
pub fn print_timing(tasks: &[TaskSummary], release: &ReleaseSummary) {
    let _ = write!(
        std::io::stdout(),
        "\nper-task timing (ms) over {} frames:\n{}\
         frame release error: mean {:.1} us, p99 {:.1} us, max {:.1} us\n",
        release.frames,
        export::summary_table(tasks),
        release.mean_error_ns as f64 / 1e3,
        release.p99_error_ns as f64 / 1e3,
        release.max_error_ns as f64 / 1e3
    );
}
