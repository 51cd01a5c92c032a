//! Validates `schedule.toml` (an invalid schedule fails the build) and generates the static
//! schedule tables into `$OUT_DIR/schedule.rs` (a copy goes to `<target>/orin-exec/`).
//! Kernel parameters are checked against the kernels' signatures.
use orin_exec_schedule::{KernelSignature, Options, ParamKind, build_script_with};

fn main() {
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
    build_script_with(
        "schedule.toml",
        &Options {
            signatures,
            ..Options::default()
        },
    );
}
