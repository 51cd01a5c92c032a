//! Link configuration: `libcuda.so.1` with feature `link-vendor`; on x86_64 (the HIL
//! rig) a link stub by default (see `bindings/README.md`, "Linking").

include!("../build-support/link.rs");

fn main() {
    link_main(&LinkSpec {
        dir_env: "ORIN_EXEC_CUDA_LIB_DIR",
        libs: &[VendorLib {
            name: "cuda",
            soname: "libcuda.so.1",
            sources: &["lib.rs"],
        }],
        stub_by_default_on_x86_64: true,
        default_dirs: &[
            (
                "aarch64",
                &[
                    "/usr/lib/aarch64-linux-gnu/tegra",
                    "/usr/lib/aarch64-linux-gnu/nvidia",
                    "/usr/local/cuda/lib64/stubs",
                ],
            ),
            (
                "x86_64",
                &["/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64/stubs"],
            ),
        ],
    });
}
