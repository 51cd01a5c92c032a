//! The schedule code generation options of the AEB application: kernel parameters are checked
//! against the kernels' signatures (`orin_exec_kernels::SIGNATURES`).
//!
//! Shared by the build scripts of the demo (`examples/aeb/build.rs`) and of `hil-tests`
//! (through `#[path]`), which generate the tables of the same `schedule.toml`.
use orin_exec_schedule::{KernelSignature, Options, ParamKind};

/// The generator's options: the default ones, with the kernels' signatures.
pub fn options() -> Options {
    let signatures = orin_exec_kernels::SIGNATURES
        .iter()
        .map(|s| KernelSignature {
            kernel: s.name.to_string(),
            params: s
                .params
                .iter()
                .map(|p| ParamKind::parse(&format!("{p:?}")).expect("known parameter kind"))
                .collect(),
        })
        .collect();
    Options {
        signatures,
        ..Options::default()
    }
}
