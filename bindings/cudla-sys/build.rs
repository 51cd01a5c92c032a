//! Link configuration: `libcudla.so.1` with feature `link-vendor` (see
//! `bindings/README.md`, "Linking").

include!("../build-support/link.rs");

fn main() {
    link_main(&LinkSpec {
        dir_env: "ORIN_EXEC_CUDLA_LIB_DIR",
        libs: &[VendorLib {
            name: "cudla",
            soname: "libcudla.so.1",
            sources: &["lib.rs"],
        }],
        stub_by_default_on_x86_64: false,
        default_dirs: &[(
            "aarch64",
            &[
                "/usr/local/cuda/lib64",
                "/usr/local/cuda/targets/aarch64-linux/lib",
            ],
        )],
    });
}
