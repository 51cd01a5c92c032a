//! Link configuration: `libnvscisync.so.1` and `libnvscibuf.so.1` with feature
//! `link-vendor` (see `bindings/README.md`, "Linking").

include!("../build-support/link.rs");

fn main() {
    link_main(&LinkSpec {
        dir_env: "ORIN_EXEC_NVSCI_LIB_DIR",
        libs: &[
            VendorLib {
                name: "nvscisync",
                soname: "libnvscisync.so.1",
                sources: &["sync.rs"],
            },
            VendorLib {
                name: "nvscibuf",
                soname: "libnvscibuf.so.1",
                sources: &["buf.rs"],
            },
        ],
        stub_by_default_on_x86_64: false,
        default_dirs: &[(
            "aarch64",
            &[
                "/usr/lib/aarch64-linux-gnu/tegra",
                "/usr/lib/aarch64-linux-gnu/nvidia",
                "/usr/lib/aarch64-linux-gnu",
            ],
        )],
    });
}
