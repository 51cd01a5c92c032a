//! Hardware-in-the-loop tests of orin-exec: scenarios that run unchanged on `sil`, `rig` and
//! `orin`, with pass criteria and evidence output (see `hil-tests/README.md`).
//!
//! * [`aeb`]: the AEB demo's schedule and task code for N frames, with the trace, the per-task
//!   summary, the Perfetto view and a digest of every frame's outputs;
//! * [`outputs`]: the per-frame outputs file and the exact comparison of two runs;
//! * [`b2b`]: back-to-back tests of every kernel (GPU vs reference model);
//! * [`bench`]: the runtime against hand-written driver code ([`raw_gpu`]) in one process.
//!
//! The AEB application is the demo's own library crate (`aeb`: schedule, task bodies,
//! scenario): there is one copy of the application.

use ::aeb::{app, scenario, tasks};

/// The bench's GPU pipeline tables (from `schedules/gpu_bench.toml`).
#[allow(dead_code, missing_docs)]
mod bench_schedule {
    include!(concat!(env!("OUT_DIR"), "/gpu_bench_schedule.rs"));
}

/// The bench's CPU -> GPU -> DLA -> GPU -> CPU chain tables (from `schedules/dla_bench.toml`).
#[allow(dead_code, missing_docs)]
mod dla_schedule {
    include!(concat!(env!("OUT_DIR"), "/dla_bench_schedule.rs"));
}

pub mod aeb;
pub mod b2b;
pub mod bench;
pub mod outputs;
pub mod pinned;
pub mod raw_dla;
pub mod raw_gpu;
pub mod rng;
pub mod stats;

/// `v`, leaked: the `'static` storage and task bodies of a runtime (the harness builds several
/// runtimes per process, so it cannot use `static`s).
fn leak<T>(v: T) -> &'static mut T {
    Box::leak(Box::new(v))
}

/// On SIL: registers the project's reference model of every kernel of `cubin` (one of
/// `orin_exec_kernels::CUBIN_DESCS`) with SIL CUDA, which runs them in place of the GPU;
/// nothing on `rig` and `orin`. For the harnesses that drive the GPU engine directly; a
/// schedule's kernels are registered by `aeb::app::register_kernel_models` and
/// `orin_exec_kernels::register_models`.
pub fn register_cubin_models(cubin: &'static orin_exec::table::CubinDesc) -> orin_exec::Result<()> {
    #[cfg(feature = "sil")]
    for &(module, kernel, model) in orin_exec_kernels::MODELS {
        if module == cubin.name {
            orin_exec::sil::register_kernel_model(cubin, kernel, model)?;
        }
    }
    #[cfg(not(feature = "sil"))]
    let _ = cubin;
    Ok(())
}

/// The platform this build runs on (`sil`, `rig` or `orin`).
pub const PLATFORM: &str = orin_exec::engine::platform::NAME;
