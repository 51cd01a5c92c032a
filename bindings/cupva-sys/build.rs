//! Link configuration: `libcupva_host.so` (soname `libcupva_host.so.2.10`, PVA SDK 2.10
//! host runtime) with feature `link-vendor` (see `bindings/README.md`, "Linking").
//!
//! Library name, soname and directory: the PVA SDK L4T package `pva-sdk-2.10-l4t`
//! installs `/opt/nvidia/pva-sdk-2.10/lib/aarch64-linux-gnu/libcupva_host.so.<version>`
//! with the link `libcupva_host.so.2.10` (OE4T meta-tegra recipe of `pva-sdk`; older
//! releases: `/opt/nvidia/cupva-2.x/...`). No plain `libcupva_host.so` is installed, so
//! `ORIN_EXEC_CUPVA_LIB_DIR` must name a directory that has one, or use the stub.

include!("../build-support/link.rs");

fn main() {
    link_main(&LinkSpec {
        dir_env: "ORIN_EXEC_CUPVA_LIB_DIR",
        libs: &[VendorLib {
            name: "cupva_host",
            soname: "libcupva_host.so.2.10",
            sources: &["lib.rs"],
        }],
        stub_by_default_on_x86_64: false,
        default_dirs: &[(
            "aarch64",
            &[
                "/opt/nvidia/pva-sdk-2.10/lib/aarch64-linux-gnu",
                "/opt/nvidia/cupva-2.5/lib/aarch64-linux-gnu",
            ],
        )],
    });
}
