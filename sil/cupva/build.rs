//! Link arguments for the C shared library `libcupva_host.so` only (the rlib is unaffected):
//! SONAME `libcupva_host.so.2.10`, the soname of the PVA SDK 2.10 host runtime (see
//! `bindings/cupva-sys/build.rs`), and every exported function under that version node.
//! See sil/README.md, "Packaging".

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    // GNU ld has `--default-symver` (rust-lld, rustc's default linker, does not).
    println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcupva_host.so.2.10");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
}
